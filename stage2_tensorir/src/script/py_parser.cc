/*!
 * \file py_parser.cc
 * \brief Recursive-descent parser of the Python subset (stage 2, core): tokens to `ast::Module`.
 *
 * The grammar is Python's, restricted to what TVMScript uses: decorators, `class`, `def` with
 * annotated parameters, `for`/`while`/`if`/`with`, assignments (also to tuples, annotated and
 * augmented), `assert`, `return`, and expressions with Python's precedence. Constructs outside
 * the subset (`lambda`, `try`, comprehensions, `global`, `yield`, ...) are ParseErrors that
 * name the construct. Nesting is bounded so that no input can exhaust the stack.
 */
#include <algorithm>

#include "minitvm/script/ast.h"
#include "minitvm/script/lexer.h"

namespace minitvm {
namespace script {
namespace {

using ast::Expr;
using ast::ExprPtr;
using ast::Stmt;
using ast::StmtPtr;
using K = Token::Kind;

/*!
 * \brief Deepest expression tree the parser accepts. The lexer accepts as many nested brackets,
 * and the recursion budget below is larger, so any tree the parser accepts prints as text it
 * accepts again (the printer adds at most one bracket per tree level).
 */
constexpr int kMaxExprDepth = 500;
/*! \brief Deepest recursion of the parse functions (brackets, unary operators, statements). */
constexpr int kMaxRecursion = 600;

class Parser {
 public:
  Parser(const SourceFile& source, std::vector<Token> tokens)
      : src_(source), tokens_(std::move(tokens)) {}

  ast::Module ParseModule() {
    ast::Module m;
    while (!Peek().Is(K::kEnd, "")) {
      if (Peek().kind == K::kNewline) {
        Next();
        continue;
      }
      if (Peek().kind == K::kIndent) Error(Peek().span, "bad indentation: unexpected indent");
      ParseStatement(&m.body);
    }
    return m;
  }

 private:
  // ---- token helpers ----
  const Token& Peek(size_t ahead = 0) const {
    size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
    return tokens_[i];
  }
  const Token& Next() {
    const Token& t = tokens_[std::min(pos_, tokens_.size() - 1)];
    if (pos_ < tokens_.size() - 1) ++pos_;
    return t;
  }
  bool AcceptOp(const char* op) {
    if (Peek().IsOp(op)) {
      Next();
      return true;
    }
    return false;
  }
  bool AcceptName(const char* name) {
    if (Peek().IsName(name)) {
      Next();
      return true;
    }
    return false;
  }
  [[noreturn]] void Error(const Span& span, const std::string& message) {
    ThrowParseError(src_, span, message);
  }
  static std::string Describe(const Token& t) {
    switch (t.kind) {
      case K::kNewline:
        return "end of line";
      case K::kIndent:
        return "indent";
      case K::kDedent:
        return "unindent";
      case K::kEnd:
        return "end of input";
      case K::kString:
        return "string";
      case K::kInt:
      case K::kFloat:
        return "number " + t.text;
      default:
        return "'" + t.text + "'";
    }
  }
  [[noreturn]] void Unexpected(const std::string& expected) {
    const Token& t = Peek();
    if (t.kind == K::kIndent) Error(t.span, "bad indentation: unexpected indent");
    Error(t.span, "invalid syntax: expected " + expected + ", found " + Describe(t));
  }
  const Token& ExpectOp(const char* op) {
    if (!Peek().IsOp(op)) Unexpected(std::string("'") + op + "'");
    return Next();
  }
  std::string ExpectName(const char* what) {
    if (Peek().kind != K::kName || IsReserved(Peek().text)) Unexpected(what);
    return Next().text;
  }
  static bool IsReserved(const std::string& s) {
    static const char* const words[] = {
        "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
        "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
        "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
        "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
    for (const char* w : words) {
      if (s == w) return true;
    }
    return false;
  }

  /*! \brief Bounds the recursion of the parse functions. */
  struct RecursionGuard {
    RecursionGuard(Parser* p, const Span& span) : p_(p) {
      if (++p_->recursion_ > kMaxRecursion) {
        p_->Error(span, "the script is nested too deeply for the parser");
      }
    }
    ~RecursionGuard() { --p_->recursion_; }
    Parser* p_;
  };

  // ---- node construction ----
  ExprPtr NewExpr(Expr::Kind kind, const Span& span) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->span = span;
    return e;
  }
  /*! \brief Set the node's height from its children; refuse trees that are too deep. */
  ExprPtr Finish(ExprPtr e) {
    int d = 0;
    for (const ExprPtr& c : e->children) {
      if (c) d = std::max(d, c->depth);
    }
    for (const ExprPtr& c : e->values) {
      if (c) d = std::max(d, c->depth);
    }
    for (const ast::Keyword& k : e->keywords) {
      if (k.value) d = std::max(d, k.value->depth);
    }
    // `a and b and c` and `a < b < c` are one flat node here but become a chain of binary
    // nodes in the IR, one level per operand: count them so that the IR stays in bounds too.
    if (e->kind == Expr::Kind::kBoolOp || e->kind == Expr::Kind::kCompare) {
      d += static_cast<int>(e->children.size()) - 1;
    }
    e->depth = d + 1;
    if (e->depth > kMaxExprDepth) Error(e->span, "expression is nested too deeply");
    return e;
  }
  ExprPtr Binary(Expr::Kind kind, std::string op, ExprPtr a, ExprPtr b) {
    auto e = NewExpr(kind, Span::Merge(a->span, b->span));
    e->id = std::move(op);
    e->children.push_back(std::move(a));
    e->children.push_back(std::move(b));
    return Finish(std::move(e));
  }

  // ---- statements ----
  StmtPtr NewStmt(Stmt::Kind kind, const Span& span) {
    auto s = std::make_unique<Stmt>();
    s->kind = kind;
    s->span = span;
    return s;
  }

  void ParseStatement(std::vector<StmtPtr>* out) {
    RecursionGuard guard(this, Peek().span);
    const Token& t = Peek();
    if (t.IsOp("@")) {
      out->push_back(ParseDecorated());
      return;
    }
    if (t.kind == K::kName) {
      if (t.text == "if") return out->push_back(ParseIf());
      if (t.text == "while") return out->push_back(ParseWhile());
      if (t.text == "for") return out->push_back(ParseFor());
      if (t.text == "with") return out->push_back(ParseWith());
      if (t.text == "def") return out->push_back(ParseDef({}));
      if (t.text == "class") return out->push_back(ParseClass({}));
      if (t.text == "try") Error(t.span, "unsupported Python construct: try statement");
      if (t.text == "async") Error(t.span, "unsupported Python construct: async");
      if (t.text == "elif" || t.text == "else") {
        Error(t.span, "invalid syntax: '" + t.text + "' without a matching 'if'");
      }
    }
    ParseSimpleStatements(out);
  }

  void ParseSimpleStatements(std::vector<StmtPtr>* out) {
    while (true) {
      out->push_back(ParseSmallStatement());
      if (AcceptOp(";")) {
        if (Peek().kind == K::kNewline) break;
        continue;
      }
      break;
    }
    if (Peek().kind != K::kNewline) Unexpected("end of line");
    Next();
  }

  StmtPtr ParseSmallStatement() {
    const Token& t = Peek();
    Span span = t.span;
    if (t.kind == K::kName) {
      if (t.text == "pass") {
        Next();
        return NewStmt(Stmt::Kind::kPass, span);
      }
      if (t.text == "break" || t.text == "continue") {
        Next();
        return NewStmt(t.text == "break" ? Stmt::Kind::kBreak : Stmt::Kind::kContinue, span);
      }
      if (t.text == "return") {
        Next();
        auto s = NewStmt(Stmt::Kind::kReturn, span);
        if (Peek().kind != K::kNewline && !Peek().IsOp(";")) {
          s->value = ParseTestList();
          s->span = Span::Merge(span, s->value->span);
        }
        return s;
      }
      if (t.text == "assert") {
        Next();
        auto s = NewStmt(Stmt::Kind::kAssert, span);
        s->value = ParseTest();
        if (AcceptOp(",")) s->annotation = ParseTest();
        s->span = Span::Merge(span, (s->annotation ? s->annotation : s->value)->span);
        return s;
      }
      if (t.text == "import" || t.text == "from") return ParseImport();
      for (const char* word : {"global", "nonlocal", "del", "raise", "yield", "await"}) {
        if (t.text == word) {
          Error(span, std::string("unsupported Python construct: ") + word + " statement");
        }
      }
    }
    ExprPtr first = ParseTestListStarExpr();
    if (Peek().IsOp(":")) {
      Next();
      auto s = NewStmt(Stmt::Kind::kAnnAssign, first->span);
      s->annotation = ParseTest();
      if (AcceptOp("=")) s->value = ParseTestList();
      s->span = Span::Merge(first->span, (s->value ? s->value : s->annotation)->span);
      s->targets.push_back(std::move(first));
      return s;
    }
    static const char* const aug[] = {
        "+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=", "^=", "<<=", ">>=", "@="};
    for (const char* op : aug) {
      if (Peek().IsOp(op)) {
        Next();
        auto s = NewStmt(Stmt::Kind::kAugAssign, first->span);
        s->op = std::string(op).substr(0, std::string(op).size() - 1);
        s->value = ParseTestList();
        s->span = Span::Merge(first->span, s->value->span);
        s->targets.push_back(std::move(first));
        return s;
      }
    }
    if (Peek().IsOp("=")) {
      auto s = NewStmt(Stmt::Kind::kAssign, first->span);
      s->targets.push_back(std::move(first));
      while (AcceptOp("=")) s->targets.push_back(ParseTestListStarExpr());
      s->value = std::move(s->targets.back());
      s->targets.pop_back();
      s->span = Span::Merge(s->span, s->value->span);
      return s;
    }
    auto s = NewStmt(Stmt::Kind::kExpr, first->span);
    s->value = std::move(first);
    return s;
  }

  StmtPtr ParseImport() {
    Span span = Peek().span;
    auto s = NewStmt(Stmt::Kind::kImport, span);
    auto dotted = [&]() {
      std::string name = ExpectName("a module name");
      while (AcceptOp(".")) name += "." + ExpectName("a module name");
      return name;
    };
    if (AcceptName("from")) {
      while (AcceptOp(".")) s->name += ".";
      s->name += dotted();
      if (!AcceptName("import")) Unexpected("'import'");
      bool paren = AcceptOp("(");
      do {
        if (paren && Peek().IsOp(")")) break;
        if (Peek().IsOp("*")) Error(Peek().span, "unsupported Python construct: import *");
        std::string name = ExpectName("a name to import");
        std::string alias = name;
        if (AcceptName("as")) alias = ExpectName("an alias");
        s->aliases.emplace_back(name, alias);
      } while (AcceptOp(","));
      if (paren) ExpectOp(")");
    } else {
      Next();  // import
      do {
        std::string name = dotted();
        std::string alias = name.substr(0, name.find('.'));
        if (AcceptName("as")) alias = ExpectName("an alias");
        s->aliases.emplace_back(name, alias);
      } while (AcceptOp(","));
    }
    s->span = Span::Merge(span, tokens_[pos_ > 0 ? pos_ - 1 : 0].span);
    return s;
  }

  /*! \brief `:` then an indented block or statements on the same line. */
  std::vector<StmtPtr> ParseSuite(const Span& header) {
    ExpectOp(":");
    std::vector<StmtPtr> body;
    if (Peek().kind != K::kNewline) {
      if (Peek().kind == K::kName &&
          (Peek().text == "if" || Peek().text == "for" || Peek().text == "while" ||
           Peek().text == "with" || Peek().text == "def" || Peek().text == "class")) {
        Error(Peek().span, "invalid syntax: a compound statement must start on its own line");
      }
      ParseSimpleStatements(&body);
      return body;
    }
    Next();
    if (Peek().kind != K::kIndent) {
      Error(Peek().span, "bad indentation: expected an indented block after this line (line " +
                             std::to_string(header.line + src_.line_offset()) + ")");
    }
    Next();
    while (Peek().kind != K::kDedent && Peek().kind != K::kEnd) {
      if (Peek().kind == K::kNewline) {
        Next();
        continue;
      }
      ParseStatement(&body);
    }
    if (Peek().kind == K::kDedent) Next();
    return body;
  }

  StmtPtr ParseIf() {
    Span span = Next().span;  // if / elif
    auto s = NewStmt(Stmt::Kind::kIf, span);
    s->value = ParseNamedExpr();
    s->body = ParseSuite(span);
    if (Peek().IsName("elif")) {
      s->orelse.push_back(ParseIf());
    } else if (Peek().IsName("else")) {
      Span else_span = Next().span;
      s->orelse = ParseSuite(else_span);
    }
    return s;
  }

  StmtPtr ParseWhile() {
    Span span = Next().span;
    auto s = NewStmt(Stmt::Kind::kWhile, span);
    s->value = ParseNamedExpr();
    s->body = ParseSuite(span);
    if (Peek().IsName("else")) Error(Peek().span, "unsupported Python construct: while-else");
    return s;
  }

  StmtPtr ParseFor() {
    Span span = Next().span;
    auto s = NewStmt(Stmt::Kind::kFor, span);
    s->targets.push_back(ParseTargetList());
    if (!AcceptName("in")) Unexpected("'in'");
    s->value = ParseTestList();
    s->span = Span::Merge(span, s->value->span);
    s->body = ParseSuite(span);
    if (Peek().IsName("else")) Error(Peek().span, "unsupported Python construct: for-else");
    return s;
  }

  StmtPtr ParseWith() {
    Span span = Next().span;
    auto s = NewStmt(Stmt::Kind::kWith, span);
    do {
      ast::WithItem item;
      item.context = ParseTest();
      if (AcceptName("as")) item.target = ParseTargetAtomList();
      s->span = Span::Merge(s->span, item.context->span);
      s->items.push_back(std::move(item));
    } while (AcceptOp(","));
    s->body = ParseSuite(span);
    return s;
  }

  StmtPtr ParseDecorated() {
    std::vector<ExprPtr> decorators;
    while (AcceptOp("@")) {
      decorators.push_back(ParseNamedExpr());
      if (Peek().kind != K::kNewline) Unexpected("end of line after the decorator");
      Next();
    }
    if (Peek().IsName("def")) return ParseDef(std::move(decorators));
    if (Peek().IsName("class")) return ParseClass(std::move(decorators));
    Unexpected("'def' or 'class' after the decorator");
  }

  StmtPtr ParseDef(std::vector<ExprPtr> decorators) {
    Span span = Next().span;  // def
    auto s = NewStmt(Stmt::Kind::kFunctionDef, span);
    s->decorators = std::move(decorators);
    s->name = ExpectName("a function name");
    ExpectOp("(");
    while (!Peek().IsOp(")")) {
      if (Peek().IsOp("*") || Peek().IsOp("**") || Peek().IsOp("/")) {
        Error(Peek().span, "unsupported Python construct: '" + Peek().text + "' in parameters");
      }
      ast::Arg arg;
      arg.span = Peek().span;
      arg.name = ExpectName("a parameter name");
      if (AcceptOp(":")) arg.annotation = ParseTest();
      if (AcceptOp("=")) arg.default_value = ParseTest();
      if (arg.annotation) arg.span = Span::Merge(arg.span, arg.annotation->span);
      s->args.push_back(std::move(arg));
      if (!AcceptOp(",")) break;
    }
    ExpectOp(")");
    if (AcceptOp("->")) s->annotation = ParseTest();
    s->body = ParseSuite(span);
    return s;
  }

  StmtPtr ParseClass(std::vector<ExprPtr> decorators) {
    Span span = Next().span;  // class
    auto s = NewStmt(Stmt::Kind::kClassDef, span);
    s->decorators = std::move(decorators);
    s->name = ExpectName("a class name");
    if (AcceptOp("(")) {
      while (!Peek().IsOp(")")) {
        s->targets.push_back(ParseTest());
        if (!AcceptOp(",")) break;
      }
      ExpectOp(")");
    }
    s->body = ParseSuite(span);
    return s;
  }

  // ---- expressions ----

  /*! \brief `a, b` (a Tuple) or a single expression; starred items allowed. */
  ExprPtr ParseTestListStarExpr() {
    return ParseList([this] { return ParseTestOrStar(); });
  }
  ExprPtr ParseTestList() {
    return ParseList([this] { return ParseTest(); });
  }
  /*! \brief A `for` target: names, attributes, subscripts, tuples. */
  ExprPtr ParseTargetList() {
    return ParseList([this] { return ParseOr(/*in_allowed=*/false); });
  }
  ExprPtr ParseTargetAtomList() {
    return ParseList([this] { return ParseOr(false); });
  }

  template <typename F>
  ExprPtr ParseList(F item) {
    ExprPtr first = item();
    if (!Peek().IsOp(",")) return first;
    auto tuple = NewExpr(Expr::Kind::kTuple, first->span);
    tuple->children.push_back(std::move(first));
    while (AcceptOp(",")) {
      if (!StartsExpression()) break;
      tuple->children.push_back(item());
    }
    tuple->span = Span::Merge(tuple->span, tuple->children.back()->span);
    return Finish(std::move(tuple));
  }

  bool StartsExpression() const {
    const Token& t = Peek();
    if (t.kind == K::kName) {
      return !IsReserved(t.text) || t.text == "None" || t.text == "True" || t.text == "False" ||
             t.text == "not" || t.text == "lambda" || t.text == "await";
    }
    if (t.kind == K::kInt || t.kind == K::kFloat || t.kind == K::kString) return true;
    return t.IsOp("(") || t.IsOp("[") || t.IsOp("{") || t.IsOp("-") || t.IsOp("+") || t.IsOp("~") ||
           t.IsOp("*") || t.IsOp("...");
  }

  ExprPtr ParseTestOrStar() {
    if (Peek().IsOp("*")) {
      Span span = Next().span;
      ExprPtr value = ParseOr(true);
      auto e = NewExpr(Expr::Kind::kStarred, Span::Merge(span, value->span));
      e->children.push_back(std::move(value));
      return Finish(std::move(e));
    }
    return ParseTest();
  }

  /*! \brief `lambda a, b: body` (plain positional parameters only: T.comm_reducer's combiner). */
  ExprPtr ParseLambda() {
    RecursionGuard guard(this, Peek().span);
    Span start = Next().span;
    auto e = NewExpr(Expr::Kind::kLambda, start);
    while (!Peek().IsOp(":")) {
      const Token& t = Peek();
      if (t.kind != K::kName || IsReserved(t.text)) {
        Error(t.span, "unsupported Python construct: a lambda parameter other than a plain name");
      }
      auto p = NewExpr(Expr::Kind::kName, t.span);
      p->id = t.text;
      Next();
      e->children.push_back(std::move(p));
      if (!AcceptOp(",")) break;
    }
    ExpectOp(":");
    ExprPtr body = ParseTest();
    e->span = Span::Merge(start, body->span);
    e->children.push_back(std::move(body));
    return Finish(std::move(e));
  }

  ExprPtr ParseNamedExpr() {
    ExprPtr e = ParseTest();
    if (Peek().IsOp(":=")) Error(Peek().span, "unsupported Python construct: ':=' (walrus)");
    return e;
  }

  ExprPtr ParseTest() {
    if (Peek().IsName("lambda")) return ParseLambda();
    ExprPtr body = ParseOr(true);
    if (Peek().IsName("if")) {
      RecursionGuard guard(this, Peek().span);
      Next();
      ExprPtr test = ParseOr(true);
      if (!AcceptName("else")) Unexpected("'else' in a conditional expression");
      ExprPtr orelse = ParseTest();
      auto e = NewExpr(Expr::Kind::kIfExp, Span::Merge(body->span, orelse->span));
      e->children.push_back(std::move(test));
      e->children.push_back(std::move(body));
      e->children.push_back(std::move(orelse));
      return Finish(std::move(e));
    }
    return body;
  }

  ExprPtr ParseBoolChain(const char* op, ExprPtr (Parser::*sub)(bool), bool in_allowed) {
    ExprPtr first = (this->*sub)(in_allowed);
    if (!Peek().IsName(op)) return first;
    auto e = NewExpr(Expr::Kind::kBoolOp, first->span);
    e->id = op;
    e->children.push_back(std::move(first));
    while (AcceptName(op)) {
      e->children.push_back((this->*sub)(in_allowed));
      e->span = Span::Merge(e->span, e->children.back()->span);
      e = Finish(std::move(e));
    }
    return e;
  }
  ExprPtr ParseOr(bool in_allowed) { return ParseBoolChain("or", &Parser::ParseAnd, in_allowed); }
  ExprPtr ParseAnd(bool in_allowed) { return ParseBoolChain("and", &Parser::ParseNot, in_allowed); }

  ExprPtr ParseNot(bool in_allowed) {
    if (Peek().IsName("not")) {
      RecursionGuard guard(this, Peek().span);
      Span span = Next().span;
      ExprPtr operand = ParseNot(in_allowed);
      auto e = NewExpr(Expr::Kind::kUnaryOp, Span::Merge(span, operand->span));
      e->id = "not";
      e->children.push_back(std::move(operand));
      return Finish(std::move(e));
    }
    return ParseComparison(in_allowed);
  }

  /*! \brief The comparison operator at the cursor ("" when there is none). */
  std::string PeekCompareOp(bool in_allowed) const {
    const Token& t = Peek();
    for (const char* op : {"<", ">", "==", ">=", "<=", "!="}) {
      if (t.IsOp(op)) return op;
    }
    if (t.IsName("in") && in_allowed) return "in";
    if (t.IsName("is")) return Peek(1).IsName("not") ? "is not" : "is";
    if (t.IsName("not") && Peek(1).IsName("in")) return "not in";
    return "";
  }

  ExprPtr ParseComparison(bool in_allowed) {
    ExprPtr first = ParseBitOr();
    std::string op = PeekCompareOp(in_allowed);
    if (op.empty()) return first;
    auto e = NewExpr(Expr::Kind::kCompare, first->span);
    e->children.push_back(std::move(first));
    while (!op.empty()) {
      Next();
      if (op == "is not" || op == "not in") Next();
      e->ops.push_back(op);
      e->children.push_back(ParseBitOr());
      e->span = Span::Merge(e->span, e->children.back()->span);
      e = Finish(std::move(e));
      op = PeekCompareOp(in_allowed);
    }
    return e;
  }

  ExprPtr ParseLeftAssoc(std::initializer_list<const char*> ops, ExprPtr (Parser::*sub)()) {
    ExprPtr left = (this->*sub)();
    while (true) {
      const char* found = nullptr;
      for (const char* op : ops) {
        if (Peek().IsOp(op)) found = op;
      }
      if (!found) return left;
      Next();
      ExprPtr right = (this->*sub)();
      left = Binary(Expr::Kind::kBinOp, found, std::move(left), std::move(right));
    }
  }
  ExprPtr ParseBitOr() { return ParseLeftAssoc({"|"}, &Parser::ParseBitXor); }
  ExprPtr ParseBitXor() { return ParseLeftAssoc({"^"}, &Parser::ParseBitAnd); }
  ExprPtr ParseBitAnd() { return ParseLeftAssoc({"&"}, &Parser::ParseShift); }
  ExprPtr ParseShift() { return ParseLeftAssoc({"<<", ">>"}, &Parser::ParseArith); }
  ExprPtr ParseArith() { return ParseLeftAssoc({"+", "-"}, &Parser::ParseTerm); }
  ExprPtr ParseTerm() { return ParseLeftAssoc({"*", "/", "//", "%", "@"}, &Parser::ParseFactor); }

  ExprPtr ParseFactor() {
    const Token& t = Peek();
    if (t.IsOp("-") || t.IsOp("+") || t.IsOp("~")) {
      RecursionGuard guard(this, t.span);
      Span span = t.span;
      std::string op = Next().text;
      ExprPtr operand = ParseFactor();
      auto e = NewExpr(Expr::Kind::kUnaryOp, Span::Merge(span, operand->span));
      e->id = op;
      e->children.push_back(std::move(operand));
      return Finish(std::move(e));
    }
    return ParsePower();
  }

  ExprPtr ParsePower() {
    if (Peek().IsName("await")) Error(Peek().span, "unsupported Python construct: await");
    ExprPtr base = ParsePrimary();
    if (Peek().IsOp("**")) {
      RecursionGuard guard(this, Peek().span);  // `a ** b ** c` recurses to the right
      Next();
      ExprPtr exponent = ParseFactor();
      return Binary(Expr::Kind::kBinOp, "**", std::move(base), std::move(exponent));
    }
    return base;
  }

  ExprPtr ParsePrimary() {
    ExprPtr e = ParseAtom();
    while (true) {
      if (Peek().IsOp(".")) {
        Next();
        const Token& name = Peek();
        if (name.kind != K::kName) Unexpected("an attribute name after '.'");
        Next();
        auto attr = NewExpr(Expr::Kind::kAttribute, Span::Merge(e->span, name.span));
        attr->id = name.text;
        attr->children.push_back(std::move(e));
        e = Finish(std::move(attr));
      } else if (Peek().IsOp("(")) {
        e = ParseCall(std::move(e));
      } else if (Peek().IsOp("[")) {
        e = ParseSubscript(std::move(e));
      } else {
        return e;
      }
    }
  }

  ExprPtr ParseCall(ExprPtr func) {
    RecursionGuard guard(this, Peek().span);
    Next();  // (
    auto call = NewExpr(Expr::Kind::kCall, func->span);
    call->children.push_back(std::move(func));
    while (!Peek().IsOp(")")) {
      if (Peek().IsOp("**")) Error(Peek().span, "unsupported Python construct: '**' arguments");
      if (Peek().kind == K::kName && Peek(1).IsOp("=") && !IsReserved(Peek().text)) {
        ast::Keyword kw;
        kw.span = Peek().span;
        kw.name = Next().text;
        Next();  // =
        kw.value = ParseTest();
        kw.span = Span::Merge(kw.span, kw.value->span);
        for (const ast::Keyword& other : call->keywords) {
          if (other.name == kw.name) Error(kw.span, "keyword argument repeated: " + kw.name);
        }
        call->keywords.push_back(std::move(kw));
      } else {
        if (!call->keywords.empty()) {
          Error(Peek().span, "invalid syntax: positional argument follows keyword argument");
        }
        ExprPtr arg = ParseTestOrStar();
        if (Peek().IsName("for")) Error(Peek().span, "unsupported Python construct: generator");
        call->children.push_back(std::move(arg));
      }
      if (!AcceptOp(",")) break;
    }
    const Token& close = ExpectOp(")");
    call->span = Span::Merge(call->span, close.span);
    return Finish(std::move(call));
  }

  ExprPtr ParseSubscriptItem() {
    Span span = Peek().span;
    ExprPtr lower;
    if (!Peek().IsOp(":")) {
      lower = ParseTestOrStar();
      if (!Peek().IsOp(":")) return lower;
    }
    auto slice = NewExpr(Expr::Kind::kSlice, lower ? lower->span : span);
    Next();  // :
    ExprPtr upper, step;
    if (!Peek().IsOp(",") && !Peek().IsOp("]") && !Peek().IsOp(":")) upper = ParseTest();
    if (AcceptOp(":")) {
      if (!Peek().IsOp(",") && !Peek().IsOp("]")) step = ParseTest();
    }
    for (ExprPtr* part : {&lower, &upper, &step}) {
      if (*part) slice->span = Span::Merge(slice->span, (*part)->span);
    }
    slice->children.push_back(std::move(lower));
    slice->children.push_back(std::move(upper));
    slice->children.push_back(std::move(step));
    return Finish(std::move(slice));
  }

  ExprPtr ParseSubscript(ExprPtr value) {
    RecursionGuard guard(this, Peek().span);
    Span open = Next().span;  // [
    auto sub = NewExpr(Expr::Kind::kSubscript, value->span);
    sub->children.push_back(std::move(value));
    if (Peek().IsOp("]")) Error(Peek().span, "invalid syntax: empty subscript");
    ExprPtr first = ParseSubscriptItem();
    if (Peek().IsOp(",")) {
      auto tuple = NewExpr(Expr::Kind::kTuple, first->span);
      tuple->children.push_back(std::move(first));
      while (AcceptOp(",")) {
        if (Peek().IsOp("]")) break;
        tuple->children.push_back(ParseSubscriptItem());
        tuple->span = Span::Merge(tuple->span, tuple->children.back()->span);
      }
      first = Finish(std::move(tuple));
    }
    (void)open;
    sub->children.push_back(std::move(first));
    const Token& close = ExpectOp("]");
    sub->span = Span::Merge(sub->span, close.span);
    return Finish(std::move(sub));
  }

  ExprPtr Constant(const Token& t) {
    auto e = NewExpr(Expr::Kind::kConstant, t.span);
    if (t.kind == K::kInt) {
      e->const_kind = Expr::ConstKind::kInt;
      e->int_value = t.int_value;
    } else if (t.kind == K::kFloat) {
      e->const_kind = Expr::ConstKind::kFloat;
      e->float_value = t.float_value;
    } else if (t.kind == K::kString) {
      e->const_kind = Expr::ConstKind::kStr;
      e->str_value = t.text;
    }
    return e;
  }

  ExprPtr ParseAtom() {
    const Token& t = Peek();
    switch (t.kind) {
      case K::kInt:
      case K::kFloat:
        return Constant(Next());
      case K::kString: {
        ExprPtr e = Constant(Next());
        while (Peek().kind == K::kString) {  // "a" "b" is "ab"
          e->str_value += Peek().text;
          e->span = Span::Merge(e->span, Next().span);
        }
        return e;
      }
      case K::kName: {
        if (t.text == "None" || t.text == "True" || t.text == "False") {
          auto e = NewExpr(Expr::Kind::kConstant, t.span);
          e->const_kind = t.text == "None" ? Expr::ConstKind::kNone : Expr::ConstKind::kBool;
          e->int_value = t.text == "True";
          Next();
          return e;
        }
        if (t.text == "lambda") Error(t.span, "unsupported Python construct: lambda");
        if (t.text == "yield") Error(t.span, "unsupported Python construct: yield");
        if (IsReserved(t.text)) Unexpected("an expression");
        auto e = NewExpr(Expr::Kind::kName, t.span);
        e->id = t.text;
        Next();
        return e;
      }
      case K::kOp:
        break;
      default:
        Unexpected("an expression");
    }
    if (t.IsOp("...")) {
      auto e = NewExpr(Expr::Kind::kConstant, Next().span);
      e->const_kind = Expr::ConstKind::kEllipsis;
      return e;
    }
    if (t.IsOp("(")) {
      RecursionGuard guard(this, t.span);
      Span open = Next().span;
      if (Peek().IsOp(")")) {
        auto e = NewExpr(Expr::Kind::kTuple, Span::Merge(open, Next().span));
        e->parenthesized = true;
        return e;
      }
      if (Peek().IsName("yield")) Error(Peek().span, "unsupported Python construct: yield");
      ExprPtr first = ParseTestOrStar();
      if (Peek().IsName("for")) Error(Peek().span, "unsupported Python construct: generator");
      if (Peek().IsOp(",")) {
        auto tuple = NewExpr(Expr::Kind::kTuple, open);
        tuple->children.push_back(std::move(first));
        while (AcceptOp(",")) {
          if (Peek().IsOp(")")) break;
          tuple->children.push_back(ParseTestOrStar());
        }
        const Token& close = ExpectOp(")");
        tuple->span = Span::Merge(open, close.span);
        tuple->parenthesized = true;
        return Finish(std::move(tuple));
      }
      const Token& close = ExpectOp(")");
      // The parenthesized expression keeps its own span but covers the parentheses when it
      // is a tuple; a plain `(a + b)` reports at `a + b`.
      (void)close;
      if (first->kind == Expr::Kind::kTuple) first->parenthesized = true;
      return first;
    }
    if (t.IsOp("[")) {
      RecursionGuard guard(this, t.span);
      Span open = Next().span;
      auto list = NewExpr(Expr::Kind::kList, open);
      while (!Peek().IsOp("]")) {
        list->children.push_back(ParseTestOrStar());
        if (Peek().IsName("for")) {
          Error(Peek().span, "unsupported Python construct: list comprehension");
        }
        if (!AcceptOp(",")) break;
      }
      list->span = Span::Merge(open, ExpectOp("]").span);
      return Finish(std::move(list));
    }
    if (t.IsOp("{")) {
      RecursionGuard guard(this, t.span);
      Span open = Next().span;
      auto dict = NewExpr(Expr::Kind::kDict, open);
      while (!Peek().IsOp("}")) {
        if (Peek().IsOp("**")) Error(Peek().span, "unsupported Python construct: '**' in a dict");
        ExprPtr key = ParseTest();
        if (!Peek().IsOp(":")) {
          Error(key->span, "unsupported Python construct: set (only dicts are supported)");
        }
        Next();
        ExprPtr value = ParseTest();
        if (Peek().IsName("for")) {
          Error(Peek().span, "unsupported Python construct: dict comprehension");
        }
        dict->children.push_back(std::move(key));
        dict->values.push_back(std::move(value));
        if (!AcceptOp(",")) break;
      }
      dict->span = Span::Merge(open, ExpectOp("}").span);
      return Finish(std::move(dict));
    }
    Unexpected("an expression");
  }

  const SourceFile& src_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int recursion_ = 0;
};

}  // namespace

ast::Module ParsePython(const SourceFile& source) {
  Parser parser(source, Tokenize(source));
  return parser.ParseModule();
}

}  // namespace script
}  // namespace minitvm

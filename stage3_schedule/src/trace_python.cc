/*!
 * \file trace_python.cc
 * \brief Reading a trace written as Python schedule calls (stage 3): the inverse of
 * `Trace::Show`, so that text test cases and the `minitvm schedule` command line can state a
 * schedule the way a learner writes it.
 *
 * The accepted language is small: `[targets =] sch.method(arguments)` per line, where an
 * argument is None/True/False, a number, a string, a handle name, a list or tuple of those, or
 * `lambda i, j: (index expressions)` for index maps. The tokens come from the TVMScript lexer
 * (minitvm/script/lexer.h), so strings, numbers and operators read as they do in TVMScript.
 */
#include <sstream>
#include <unordered_map>

#include "instruction.h"
#include "minitvm/script/lexer.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/schedule/trace.h"

namespace minitvm {
namespace tir {
namespace {

/*! \brief A token of a schedule line (the script lexer's, with the column 0-based). */
struct Token {
  enum Kind { kIdent, kInt, kFloat, kString, kPunct, kEnd } kind;
  std::string text;
  size_t col;
  int64_t int_value = 0;
  double float_value = 0;
};

class LineParser {
 public:
  LineParser(const std::string& line, int line_no, std::unordered_map<std::string, ObjectRef>* rvs)
      : line_(line), line_no_(line_no), rvs_(rvs) {
    Tokenize();
  }

  Instruction Parse() {
    std::vector<std::string> targets;
    // Optional "a, b, = " prefix: look for a top-level '=' that is not part of a keyword.
    size_t eq = FindAssign();
    if (eq != std::string::npos) {
      while (pos_ < eq) {
        if (Peek().kind == Token::kIdent) targets.push_back(Next().text);
        if (Peek().text == ",") Next();
        if (pos_ < eq && Peek().kind != Token::kIdent && Peek().text != ",") Fail("bad target");
      }
      Expect("=");
    }
    Token obj = Next();
    if (obj.kind != Token::kIdent) Fail("expected `sch.<method>(...)`");
    Expect(".");
    Token method = Next();
    if (method.kind != Token::kIdent) Fail("expected a method name");
    const InstructionKindInfo* info = nullptr;
    for (const std::string& k : InstructionKindNames()) {
      const InstructionKindInfo& i = GetInstructionKind(k);
      if (i.method == method.text) info = &i;
    }
    if (info == nullptr) Fail("unknown schedule method \"" + method.text + "\"");
    Expect("(");
    std::vector<Any> positional;
    std::vector<std::pair<std::string, Any>> keywords;
    while (Peek().text != ")") {
      if (Peek().kind == Token::kIdent && PeekAt(1).text == "=") {
        std::string key = Next().text;
        Next();
        keywords.emplace_back(key, Value());
      } else {
        if (!keywords.empty()) Fail("positional argument after keyword argument");
        positional.push_back(Value());
      }
      if (Peek().text == ",")
        Next();
      else if (Peek().text != ")")
        Fail("expected ',' or ')'");
    }
    Expect(")");
    if (Peek().kind != Token::kEnd) Fail("unexpected text after the call");

    Array<Any> inputs, attrs;
    if (info->name == "TransformLayout") {
      Bind(*info, {"block", "buffer", "index_map", "pad_value"}, positional, keywords,
           [&](const std::vector<Any>& v) {
             inputs.push_back(v[0]);
             Array<Any> buf = v[1].cast<Array<Any>>();
             std::string kind = buf[0].cast<std::string>();
             attrs.push_back(Any(static_cast<int64_t>(kind == "write" ? 1 : 0)));
             attrs.push_back(buf[1]);
             attrs.push_back(v[2]);
             attrs.push_back(v[3]);
           });
    } else if (info->name == "ReIndex") {
      Bind(*info, {"block", "buffer"}, positional, keywords, [&](const std::vector<Any>& v) {
        inputs.push_back(v[0]);
        Array<Any> buf = v[1].cast<Array<Any>>();
        attrs.push_back(buf[1]);
        attrs.push_back(Any(static_cast<int64_t>(buf[0].cast<std::string>() == "write" ? 1 : 0)));
      });
    } else if (info->variadic) {
      for (const Any& v : positional) inputs.push_back(v);
      std::vector<std::string> names = info->attr_names;
      Bind(*info, names, {}, keywords, [&](const std::vector<Any>& v) {
        for (const Any& x : v) attrs.push_back(x);
      });
    } else {
      std::vector<std::string> names = info->python_params;
      if (names.empty()) {
        names = info->input_names;
        names.insert(names.end(), info->attr_names.begin(), info->attr_names.end());
      }
      Bind(*info, names, positional, keywords, [&](const std::vector<Any>& v) {
        std::vector<Any> in(info->input_names.size()), at(info->attr_names.size());
        for (size_t i = 0; i < v.size(); ++i) {
          for (size_t k = 0; k < in.size(); ++k) {
            if (info->input_names[k] == names[i]) in[k] = v[i];
          }
          for (size_t k = 0; k < at.size(); ++k) {
            if (info->attr_names[k] == names[i]) at[k] = v[i];
          }
        }
        for (const Any& x : in) inputs.push_back(x);
        for (const Any& x : at) attrs.push_back(x);
      });
    }
    Array<ObjectRef> outputs;
    for (const std::string& t : targets) {
      if (t == "_") continue;
      ObjectRef rv = NewScheduleRV(info->output_kind);
      (*rvs_)[t] = rv;
      outputs.push_back(rv);
    }
    return Instruction(info->name, inputs, attrs, outputs);
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    size_t col = pos_ < toks_.size() ? toks_[pos_].col : line_.size();
    MINITVM_THROW(ValueError) << "schedule line " << line_no_ << ", column " << col + 1 << ": "
                              << what << "\n  " << line_ << "\n  " << std::string(col, ' ') << "^";
  }
  /*! \brief The line's tokens, from the TVMScript lexer (one lexer for both). */
  void Tokenize() {
    std::vector<script::Token> toks;
    try {
      toks = script::Tokenize(script::SourceFile(line_));
    } catch (const Error& e) {
      // A lexical error (an unterminated string): reported like every error of a line.
      MINITVM_THROW(ValueError) << "schedule line " << line_no_ << ": " << e.what();
    }
    for (const script::Token& t : toks) {
      size_t col = t.span.defined() ? static_cast<size_t>(t.span.col - 1) : line_.size();
      switch (t.kind) {
        case script::Token::Kind::kName:
          toks_.push_back({Token::kIdent, t.text, col});
          break;
        case script::Token::Kind::kInt:
          toks_.push_back({Token::kInt, std::to_string(t.int_value), col, t.int_value});
          break;
        case script::Token::Kind::kFloat:
          toks_.push_back({Token::kFloat, "", col, 0, t.float_value});
          break;
        case script::Token::Kind::kString:
          toks_.push_back({Token::kString, t.text, col});
          break;
        case script::Token::Kind::kOp:
          toks_.push_back({Token::kPunct, t.text, col});
          break;
        default:  // layout tokens: a schedule line is one logical line
          break;
      }
    }
    toks_.push_back({Token::kEnd, "", line_.size()});
  }
  const Token& Peek() const { return toks_[pos_]; }
  const Token& PeekAt(size_t k) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  Token Next() {
    Token t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  void Expect(const std::string& p) {
    if (Peek().text != p) Fail("expected '" + p + "'");
    Next();
  }
  size_t FindAssign() const {
    int depth = 0;
    for (size_t i = 0; i < toks_.size(); ++i) {
      const std::string& t = toks_[i].text;
      if (toks_[i].kind != Token::kPunct) continue;
      if (t == "(" || t == "[") ++depth;
      if (t == ")" || t == "]") --depth;
      if (t == "=" && depth == 0) return i;
    }
    return std::string::npos;
  }

  Any Value() {
    const Token& t = Peek();
    if (t.kind == Token::kPunct && t.text == "-") {
      Next();
      Any v = Value();
      if (v.is_int()) return Any(-v.raw_int());
      if (v.is_float()) return Any(-v.raw_float());
      Fail("cannot negate this value");
    }
    if (t.kind == Token::kInt) return Any(Next().int_value);
    if (t.kind == Token::kFloat) return Any(Next().float_value);
    if (t.kind == Token::kString) return Any(String(Next().text));
    if (t.text == "[" || t.text == "(") {
      std::string close = t.text == "[" ? "]" : ")";
      Next();
      Array<Any> items;
      while (Peek().text != close) {
        items.push_back(Value());
        if (Peek().text == ",")
          Next();
        else if (Peek().text != close)
          Fail("expected ',' or '" + close + "'");
      }
      Next();
      return items;
    }
    if (t.kind == Token::kIdent) {
      std::string name = Next().text;
      if (name == "None") return Any();
      if (name == "True") return Any(true);
      if (name == "False") return Any(false);
      if (name == "lambda") return Lambda();
      auto it = rvs_->find(name);
      if (it == rvs_->end()) {
        --pos_;
        Fail("\"" + name + "\" is not a handle defined by an earlier line");
      }
      return Any(it->second);
    }
    Fail("expected a value");
  }

  // ---- index maps: lambda i, j: (expr, expr) -------------------------------------------------
  Any Lambda() {
    std::vector<std::string> names;
    while (Peek().text != ":") {
      if (Peek().kind != Token::kIdent) Fail("expected a lambda parameter");
      names.push_back(Next().text);
      if (Peek().text == ",") Next();
    }
    Next();
    Array<Var> vars;
    for (const std::string& n : names) {
      Var v(n);
      vars.push_back(v);
      lambda_vars_[n] = v;
    }
    Array<PrimExpr> exprs;
    bool paren = Peek().text == "(";
    if (paren) Next();
    while (Peek().kind != Token::kEnd && Peek().text != ")") {
      exprs.push_back(Expr());
      if (Peek().text == ",") Next();
      if (!paren) break;
    }
    if (paren) Expect(")");
    lambda_vars_.clear();
    return Any(IndexMap(vars, exprs));
  }
  PrimExpr Expr() {
    PrimExpr e = Term();
    while (Peek().text == "+" || Peek().text == "-") {
      std::string op = Next().text;
      PrimExpr r = Term();
      e = op == "+" ? e + r : e - r;
    }
    return e;
  }
  PrimExpr Term() {
    PrimExpr e = Unary();
    while (Peek().text == "*" || Peek().text == "//" || Peek().text == "%") {
      std::string op = Next().text;
      PrimExpr r = Unary();
      e = op == "*" ? e * r : op == "//" ? floordiv(e, r) : floormod(e, r);
    }
    return e;
  }
  PrimExpr Unary() {
    if (Peek().text == "-") {
      Next();
      return -Unary();
    }
    if (Peek().text == "(") {
      Next();
      PrimExpr e = Expr();
      Expect(")");
      return e;
    }
    if (Peek().kind == Token::kInt) return IntImm(DataType::Int(32), Next().int_value);
    if (Peek().kind == Token::kIdent) {
      std::string name = Next().text;
      if (name == "T" && Peek().text == ".") {
        Next();
        std::string fn = Next().text;
        Expect("(");
        PrimExpr a = Expr();
        Expect(",");
        PrimExpr b = Expr();
        Expect(")");
        if (fn == "min") return min(a, b);
        if (fn == "max") return max(a, b);
        Fail("unknown function T." + fn);
      }
      auto it = lambda_vars_.find(name);
      if (it == lambda_vars_.end()) Fail("unknown variable " + name);
      return it->second;
    }
    Fail("expected an index expression");
  }

  /*! \brief Match arguments to parameter names, filling defaults; calls `done` in order. */
  void Bind(const InstructionKindInfo& info, const std::vector<std::string>& names,
            const std::vector<Any>& positional,
            const std::vector<std::pair<std::string, Any>>& keywords,
            const std::function<void(const std::vector<Any>&)>& done) {
    if (positional.size() > names.size()) Fail("too many arguments for sch." + info.method);
    std::vector<std::optional<Any>> values(names.size());
    for (size_t i = 0; i < positional.size(); ++i) values[i] = positional[i];
    for (const auto& [k, v] : keywords) {
      size_t i = 0;
      while (i < names.size() && names[i] != k) ++i;
      if (i == names.size()) Fail("sch." + info.method + " has no argument \"" + k + "\"");
      values[i] = v;
    }
    std::vector<Any> out;
    for (size_t i = 0; i < names.size(); ++i) {
      if (!values[i]) {
        for (const auto& [k, v] : info.defaults) {
          if (k == names[i]) values[i] = v;
        }
      }
      if (!values[i]) Fail("sch." + info.method + " needs the argument \"" + names[i] + "\"");
      out.push_back(*values[i]);
    }
    done(out);
  }

  std::string line_;
  int line_no_;
  std::unordered_map<std::string, ObjectRef>* rvs_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  std::unordered_map<std::string, Var> lambda_vars_;
};

}  // namespace

Trace Trace::FromPython(const std::string& text) {
  std::unordered_map<std::string, ObjectRef> rvs;
  Array<Instruction> insts;
  std::istringstream is(text);
  std::string line;
  int line_no = 0;
  while (std::getline(is, line)) {
    ++line_no;
    size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos) continue;
    std::string body = line.substr(b);
    if (body[0] == '#' || body.rfind("def ", 0) == 0 || body == "pass" ||
        body.rfind("from ", 0) == 0 || body.rfind("import ", 0) == 0) {
      continue;
    }
    insts.push_back(LineParser(body, line_no, &rvs).Parse());
  }
  return Trace(insts);
}

}  // namespace tir
}  // namespace minitvm

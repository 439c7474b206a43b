/*!
 * \file doc.cc
 * \brief Builders of the printer document model and its Python renderer (stage 2, core).
 *
 * The renderer adds only the parentheses Python needs: an operand is wrapped when it binds
 * more loosely than its operator (or equally, on the side where Python would group
 * differently); comparisons are always wrapped inside comparisons so that `(a < b) < c` is
 * never read as a chained comparison.
 */
#include "minitvm/script/doc.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "minitvm/runtime/error.h"
#include "minitvm/script/diagnostic.h"

namespace minitvm {
namespace script {
namespace printer {

namespace {
std::shared_ptr<ExprDocNode> NewExpr(ExprDocNode::Kind kind) {
  auto n = std::make_shared<ExprDocNode>();
  n->kind = kind;
  return n;
}
StmtDoc NewStmt(StmtDocNode::Kind kind) {
  auto n = std::make_shared<StmtDocNode>();
  n->kind = kind;
  return n;
}
ExprDoc Literal(std::string text) {
  auto n = NewExpr(ExprDocNode::Kind::kLiteral);
  n->negative_literal = !text.empty() && text[0] == '-';
  n->text = std::move(text);
  return n;
}
}  // namespace

ExprDoc IdDoc(std::string name) {
  auto n = NewExpr(ExprDocNode::Kind::kId);
  n->text = std::move(name);
  return n;
}

ExprDoc IntDoc(int64_t value) {
  // -2**63 has no literal: 9223372036854775808 does not fit an int64.
  if (value == std::numeric_limits<int64_t>::min()) {
    return OperationDoc(OpKind::kSub, {Literal("-9223372036854775807"), Literal("1")});
  }
  return Literal(std::to_string(value));
}

ExprDoc FloatDoc(double value, bool is_float32) {
  if (std::isnan(value)) return StrDoc("nan");
  if (std::isinf(value)) return StrDoc(value > 0 ? "inf" : "-inf");
  char buf[64];
  if (std::nearbyint(value) == value && std::fabs(value) < 1e16) {
    std::snprintf(buf, sizeof(buf), "%.1f", value);
    return Literal(buf);
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, value);
    double back = std::strtod(buf, nullptr);
    bool same = is_float32 ? static_cast<float>(back) == static_cast<float>(value) : back == value;
    if (same) break;
  }
  std::string text = buf;
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return Literal(text);
}

ExprDoc StrDoc(const std::string& value) { return Literal(QuoteString(value)); }
ExprDoc BoolDoc(bool value) { return Literal(value ? "True" : "False"); }
ExprDoc NoneDoc() { return Literal("None"); }

ExprDoc AttrDoc(ExprDoc value, std::string name) {
  auto n = NewExpr(ExprDocNode::Kind::kAttr);
  n->value = std::move(value);
  n->text = std::move(name);
  return n;
}

ExprDoc CallDoc(ExprDoc callee, std::vector<ExprDoc> args,
                std::vector<std::pair<std::string, ExprDoc>> kwargs) {
  auto n = NewExpr(ExprDocNode::Kind::kCall);
  n->value = std::move(callee);
  n->items = std::move(args);
  for (auto& [k, v] : kwargs) {
    n->kw_keys.push_back(k);
    n->kw_values.push_back(v);
  }
  return n;
}

ExprDoc IndexDoc(ExprDoc value, std::vector<ExprDoc> indices) {
  auto n = NewExpr(ExprDocNode::Kind::kIndex);
  n->value = std::move(value);
  n->items = std::move(indices);
  return n;
}

ExprDoc SliceDoc(ExprDoc start, ExprDoc stop) {
  auto n = NewExpr(ExprDocNode::Kind::kSlice);
  n->items = {std::move(start), std::move(stop)};
  return n;
}

ExprDoc OperationDoc(OpKind op, std::vector<ExprDoc> operands) {
  auto n = NewExpr(ExprDocNode::Kind::kOperation);
  n->op = op;
  n->items = std::move(operands);
  return n;
}

ExprDoc TupleDoc(std::vector<ExprDoc> elements) {
  auto n = NewExpr(ExprDocNode::Kind::kTuple);
  n->items = std::move(elements);
  return n;
}

ExprDoc ListDoc(std::vector<ExprDoc> elements) {
  auto n = NewExpr(ExprDocNode::Kind::kList);
  n->items = std::move(elements);
  return n;
}

ExprDoc DictDoc(std::vector<std::pair<ExprDoc, ExprDoc>> items) {
  auto n = NewExpr(ExprDocNode::Kind::kDict);
  for (auto& [k, v] : items) {
    n->items.push_back(k);
    n->kw_values.push_back(v);
  }
  return n;
}

ExprDoc LambdaDoc(std::vector<ExprDoc> params, ExprDoc body) {
  auto n = NewExpr(ExprDocNode::Kind::kLambda);
  n->items = std::move(params);
  n->value = std::move(body);
  return n;
}

StmtDoc ExprStmtDoc(ExprDoc expr) {
  auto n = NewStmt(StmtDocNode::Kind::kExpr);
  n->rhs = std::move(expr);
  return n;
}

StmtDoc AssignDoc(ExprDoc lhs, ExprDoc rhs, ExprDoc annotation) {
  auto n = NewStmt(StmtDocNode::Kind::kAssign);
  n->lhs = std::move(lhs);
  n->rhs = std::move(rhs);
  n->annotation = std::move(annotation);
  return n;
}

StmtDoc ForDoc(ExprDoc lhs, ExprDoc rhs, std::vector<StmtDoc> body) {
  auto n = NewStmt(StmtDocNode::Kind::kFor);
  n->lhs = std::move(lhs);
  n->rhs = std::move(rhs);
  n->body = std::move(body);
  return n;
}

StmtDoc WhileDoc(ExprDoc cond, std::vector<StmtDoc> body) {
  auto n = NewStmt(StmtDocNode::Kind::kWhile);
  n->rhs = std::move(cond);
  n->body = std::move(body);
  return n;
}

StmtDoc IfDoc(ExprDoc cond, std::vector<StmtDoc> then_body, std::vector<StmtDoc> else_body) {
  auto n = NewStmt(StmtDocNode::Kind::kIf);
  n->rhs = std::move(cond);
  n->body = std::move(then_body);
  n->else_body = std::move(else_body);
  return n;
}

StmtDoc ScopeDoc(ExprDoc lhs, ExprDoc rhs, std::vector<StmtDoc> body) {
  auto n = NewStmt(StmtDocNode::Kind::kScope);
  n->lhs = std::move(lhs);
  n->rhs = std::move(rhs);
  n->body = std::move(body);
  return n;
}

StmtDoc AssertDoc(ExprDoc cond, ExprDoc msg) {
  auto n = NewStmt(StmtDocNode::Kind::kAssert);
  n->rhs = std::move(cond);
  n->annotation = std::move(msg);
  return n;
}

StmtDoc ReturnDoc(ExprDoc value) {
  auto n = NewStmt(StmtDocNode::Kind::kReturn);
  n->rhs = std::move(value);
  return n;
}

StmtDoc FunctionDoc(std::string name, std::vector<StmtDoc> args, std::vector<ExprDoc> decorators,
                    ExprDoc return_type, std::vector<StmtDoc> body) {
  auto n = NewStmt(StmtDocNode::Kind::kFunction);
  n->name = std::move(name);
  n->args = std::move(args);
  n->decorators = std::move(decorators);
  n->annotation = std::move(return_type);
  n->body = std::move(body);
  return n;
}

StmtDoc ClassDoc(std::string name, std::vector<ExprDoc> decorators, std::vector<StmtDoc> body) {
  auto n = NewStmt(StmtDocNode::Kind::kClass);
  n->name = std::move(name);
  n->decorators = std::move(decorators);
  n->body = std::move(body);
  return n;
}

StmtDoc CommentDoc(std::string text) {
  auto n = NewStmt(StmtDocNode::Kind::kComment);
  n->name = std::move(text);
  return n;
}

StmtDoc StmtBlockDoc(std::vector<StmtDoc> stmts) {
  auto n = NewStmt(StmtDocNode::Kind::kBlock);
  n->body = std::move(stmts);
  return n;
}

// ---- rendering -------------------------------------------------------------------------

namespace {

/*! \brief Python binding strength, loosest first. */
enum Precedence : int {
  kPrecIfElse = 1,
  kPrecOr,
  kPrecAnd,
  kPrecNot,
  kPrecCompare,
  kPrecBitOr,
  kPrecBitXor,
  kPrecBitAnd,
  kPrecShift,
  kPrecAdd,
  kPrecMul,
  kPrecUnary,
  kPrecPow,
  kPrecAtom,
};

int OpPrecedence(OpKind op) {
  switch (op) {
    case OpKind::kOr:
      return kPrecOr;
    case OpKind::kAnd:
      return kPrecAnd;
    case OpKind::kNot:
      return kPrecNot;
    case OpKind::kLt:
    case OpKind::kLtE:
    case OpKind::kGt:
    case OpKind::kGtE:
    case OpKind::kEq:
    case OpKind::kNotEq:
      return kPrecCompare;
    case OpKind::kBitOr:
      return kPrecBitOr;
    case OpKind::kBitXor:
      return kPrecBitXor;
    case OpKind::kBitAnd:
      return kPrecBitAnd;
    case OpKind::kLShift:
    case OpKind::kRShift:
      return kPrecShift;
    case OpKind::kAdd:
    case OpKind::kSub:
      return kPrecAdd;
    case OpKind::kMul:
    case OpKind::kDiv:
    case OpKind::kFloorDiv:
    case OpKind::kMod:
      return kPrecMul;
    case OpKind::kUSub:
    case OpKind::kInvert:
      return kPrecUnary;
    case OpKind::kPow:
      return kPrecPow;
  }
  return kPrecAtom;
}

const char* OpText(OpKind op) {
  switch (op) {
    case OpKind::kAdd:
      return "+";
    case OpKind::kSub:
      return "-";
    case OpKind::kMul:
      return "*";
    case OpKind::kDiv:
      return "/";
    case OpKind::kFloorDiv:
      return "//";
    case OpKind::kMod:
      return "%";
    case OpKind::kPow:
      return "**";
    case OpKind::kLt:
      return "<";
    case OpKind::kLtE:
      return "<=";
    case OpKind::kGt:
      return ">";
    case OpKind::kGtE:
      return ">=";
    case OpKind::kEq:
      return "==";
    case OpKind::kNotEq:
      return "!=";
    case OpKind::kAnd:
      return "and";
    case OpKind::kOr:
      return "or";
    case OpKind::kNot:
      return "not ";
    case OpKind::kUSub:
      return "-";
    case OpKind::kBitAnd:
      return "&";
    case OpKind::kBitOr:
      return "|";
    case OpKind::kBitXor:
      return "^";
    case OpKind::kInvert:
      return "~";
    case OpKind::kLShift:
      return "<<";
    case OpKind::kRShift:
      return ">>";
  }
  return "?";
}

int ExprPrecedence(const ExprDoc& e) {
  if (e->kind == ExprDocNode::Kind::kOperation) return OpPrecedence(e->op);
  if (e->kind == ExprDocNode::Kind::kLiteral && e->negative_literal) return kPrecUnary;
  if (e->kind == ExprDocNode::Kind::kLambda) return 0;  // below everything: parenthesized
  return kPrecAtom;
}

class PythonRenderer {
 public:
  explicit PythonRenderer(const PrintOptions& options) : options_(options) {}

  void Expr(const ExprDoc& e, std::ostream& os) {
    MINITVM_ICHECK(e != nullptr) << "printer: null expression doc";
    using K = ExprDocNode::Kind;
    switch (e->kind) {
      case K::kId:
      case K::kLiteral:
        os << e->text;
        return;
      case K::kAttr:
        Operand(e->value, kPrecAtom, false, os);
        os << "." << e->text;
        return;
      case K::kCall: {
        Operand(e->value, kPrecAtom, false, os);
        os << "(";
        bool first = true;
        for (const ExprDoc& a : e->items) {
          if (!first) os << ", ";
          first = false;
          Expr(a, os);
        }
        for (size_t i = 0; i < e->kw_keys.size(); ++i) {
          if (!first) os << ", ";
          first = false;
          os << e->kw_keys[i] << "=";
          Expr(e->kw_values[i], os);
        }
        os << ")";
        return;
      }
      case K::kIndex: {
        Operand(e->value, kPrecAtom, false, os);
        os << "[";
        if (e->items.empty()) os << "()";
        for (size_t i = 0; i < e->items.size(); ++i) {
          if (i) os << ", ";
          Expr(e->items[i], os);
        }
        os << "]";
        return;
      }
      case K::kSlice:
        if (e->items.size() > 0 && e->items[0]) Expr(e->items[0], os);
        os << ":";
        if (e->items.size() > 1 && e->items[1]) Expr(e->items[1], os);
        return;
      case K::kOperation:
        Operation(e, os);
        return;
      case K::kTuple:
        os << "(";
        Elements(e->items, os);
        if (e->items.size() == 1) os << ",";
        os << ")";
        return;
      case K::kList:
        os << "[";
        Elements(e->items, os);
        os << "]";
        return;
      case K::kDict:
        os << "{";
        for (size_t i = 0; i < e->items.size(); ++i) {
          if (i) os << ", ";
          Expr(e->items[i], os);
          os << ": ";
          Expr(e->kw_values[i], os);
        }
        os << "}";
        return;
      case K::kLambda:
        os << "lambda ";
        Elements(e->items, os);
        os << ": ";
        Expr(e->value, os);
        return;
    }
  }

  void Stmts(const std::vector<StmtDoc>& stmts, int level, std::ostream& os) {
    std::vector<StmtDoc> flat;
    Flatten(stmts, &flat);
    if (flat.empty()) {
      Indent(level, os);
      os << "pass\n";
      return;
    }
    for (size_t i = 0; i < flat.size(); ++i) {
      bool is_def = IsDefinition(flat[i]);
      // A blank line separates a function or class from the definition before it.
      if (i > 0 && is_def && IsDefinition(flat[i - 1])) os << "\n";
      Stmt(flat[i], level, os);
    }
  }

 private:
  static bool IsDefinition(const StmtDoc& s) {
    return s->kind == StmtDocNode::Kind::kFunction || s->kind == StmtDocNode::Kind::kClass;
  }

  static void Flatten(const std::vector<StmtDoc>& stmts, std::vector<StmtDoc>* out) {
    for (const StmtDoc& s : stmts) {
      if (!s) continue;
      if (s->kind == StmtDocNode::Kind::kBlock) {
        Flatten(s->body, out);
      } else {
        out->push_back(s);
      }
    }
  }

  void Indent(int level, std::ostream& os) {
    os << std::string(static_cast<size_t>(level * options_.indent_spaces), ' ');
  }

  void Elements(const std::vector<ExprDoc>& items, std::ostream& os) {
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) os << ", ";
      Expr(items[i], os);
    }
  }

  /*! \brief An operand that needs parentheses when it binds more loosely than `parent`. */
  void Operand(const ExprDoc& e, int parent, bool wrap_equal, std::ostream& os) {
    int p = ExprPrecedence(e);
    bool paren = p < parent || (wrap_equal && p == parent);
    if (paren) os << "(";
    Expr(e, os);
    if (paren) os << ")";
  }

  void Operation(const ExprDoc& e, std::ostream& os) {
    int p = OpPrecedence(e->op);
    if (e->items.size() == 1) {
      os << OpText(e->op);
      Operand(e->items[0], p, false, os);
      return;
    }
    MINITVM_ICHECK(e->items.size() == 2)
        << "printer: operation with " << e->items.size() << " operands";
    bool compare = p == kPrecCompare;
    bool right_assoc = e->op == OpKind::kPow;
    Operand(e->items[0], p, compare || right_assoc, os);
    os << " " << OpText(e->op) << " ";
    Operand(e->items[1], p, compare || !right_assoc, os);
  }

  /*! \brief A target list (`for i, j in`, `vi, vj = ...`) prints without parentheses. */
  void Target(const ExprDoc& e, std::ostream& os) {
    if (e->kind == ExprDocNode::Kind::kTuple && !e->items.empty()) {
      Elements(e->items, os);
      if (e->items.size() == 1) os << ",";
    } else {
      Expr(e, os);
    }
  }

  void Body(const std::vector<StmtDoc>& body, int level, std::ostream& os) {
    Stmts(body, level + 1, os);
  }

  void Stmt(const StmtDoc& s, int level, std::ostream& os) {
    using K = StmtDocNode::Kind;
    switch (s->kind) {
      case K::kExpr:
        Indent(level, os);
        Expr(s->rhs, os);
        os << "\n";
        return;
      case K::kAssign:
        Indent(level, os);
        Target(s->lhs, os);
        if (s->annotation) {
          os << ": ";
          Expr(s->annotation, os);
        }
        if (s->rhs) {
          os << " = ";
          Expr(s->rhs, os);
        }
        os << "\n";
        return;
      case K::kFor:
        Indent(level, os);
        os << "for ";
        Target(s->lhs, os);
        os << " in ";
        Expr(s->rhs, os);
        os << ":\n";
        Body(s->body, level, os);
        return;
      case K::kWhile:
        Indent(level, os);
        os << "while ";
        Expr(s->rhs, os);
        os << ":\n";
        Body(s->body, level, os);
        return;
      case K::kIf:
        Indent(level, os);
        os << "if ";
        Expr(s->rhs, os);
        os << ":\n";
        Body(s->body, level, os);
        if (!s->else_body.empty()) {
          Indent(level, os);
          os << "else:\n";
          Body(s->else_body, level, os);
        }
        return;
      case K::kScope:
        Indent(level, os);
        os << "with ";
        Expr(s->rhs, os);
        if (s->lhs) {
          os << " as ";
          Target(s->lhs, os);
        }
        os << ":\n";
        Body(s->body, level, os);
        return;
      case K::kAssert:
        Indent(level, os);
        os << "assert ";
        Expr(s->rhs, os);
        if (s->annotation) {
          os << ", ";
          Expr(s->annotation, os);
        }
        os << "\n";
        return;
      case K::kReturn:
        Indent(level, os);
        os << "return";
        if (s->rhs) {
          os << " ";
          Expr(s->rhs, os);
        }
        os << "\n";
        return;
      case K::kFunction:
        for (const ExprDoc& d : s->decorators) {
          Indent(level, os);
          os << "@";
          Expr(d, os);
          os << "\n";
        }
        Indent(level, os);
        os << "def " << s->name << "(";
        for (size_t i = 0; i < s->args.size(); ++i) {
          if (i) os << ", ";
          const StmtDoc& a = s->args[i];
          Expr(a->lhs, os);
          if (a->annotation) {
            os << ": ";
            Expr(a->annotation, os);
          }
          if (a->rhs) {
            os << " = ";
            Expr(a->rhs, os);
          }
        }
        os << ")";
        if (s->annotation) {
          os << " -> ";
          Expr(s->annotation, os);
        }
        os << ":\n";
        Body(s->body, level, os);
        return;
      case K::kClass:
        for (const ExprDoc& d : s->decorators) {
          Indent(level, os);
          os << "@";
          Expr(d, os);
          os << "\n";
        }
        Indent(level, os);
        os << "class " << s->name << ":\n";
        Body(s->body, level, os);
        return;
      case K::kComment: {
        std::istringstream lines(s->name);
        std::string line;
        bool any = false;
        while (std::getline(lines, line)) {
          any = true;
          Indent(level, os);
          os << "# " << line << "\n";
        }
        if (!any) {
          Indent(level, os);
          os << "#\n";
        }
        return;
      }
      case K::kBlock:
        Stmts(s->body, level, os);
        return;
    }
  }

  PrintOptions options_;
};

}  // namespace

std::string DocToPythonScript(const ExprDoc& doc, const PrintOptions& options) {
  std::ostringstream os;
  PythonRenderer(options).Expr(doc, os);
  return os.str();
}

std::string DocToPythonScript(const std::vector<StmtDoc>& docs, const PrintOptions& options) {
  std::ostringstream os;
  PythonRenderer(options).Stmts(docs, 0, os);
  return os.str();
}

}  // namespace printer
}  // namespace script
}  // namespace minitvm

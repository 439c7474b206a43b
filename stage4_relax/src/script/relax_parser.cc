/*!
 * \file relax_parser.cc
 * \brief The TVMScript parser for Relax (stage 4): values, names, expressions, struct info
 * annotations and the `R.*` functions of an `@R.function` body.
 *
 * Operators are not listed here: `R.<name>(...)` and `R.nn.<name>(...)` become
 * `MakeOpCall("relax.<name>", ...)` through the operator registry, the op's declared arguments
 * taking the leading positional arguments and the rest becoming its keyword attributes in
 * `TAttrDefaults` order (op_attr.h).
 */
#include <cctype>
#include <cstring>
#include <functional>

#include "minitvm/relax/op_attr.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/tir/op.h"
#include "relax_parser_impl.h"

namespace minitvm {
namespace relax {
namespace parser {

using EK = ast::Expr::Kind;
using RK = RValue::Kind;

namespace {

RValue Make(RK kind, const Span& span) {
  RValue v;
  v.kind = kind;
  v.span = span;
  return v;
}
RValue ExprV(Expr e, const Span& span) {
  RValue v = Make(RK::kExpr, span);
  v.expr = std::move(e);
  return v;
}
RValue PrimV(PrimExpr e, const Span& span) {
  RValue v = Make(RK::kPrim, span);
  v.prim = std::move(e);
  return v;
}
RValue SInfoV(StructInfo s, const Span& span) {
  RValue v = Make(RK::kSInfo, span);
  v.sinfo = std::move(s);
  return v;
}
RValue Builtin(std::string name, const Span& span) {
  RValue v = Make(RK::kBuiltin, span);
  v.str = std::move(name);
  return v;
}

/*! \brief Sub-namespaces of R whose names are ops (R.nn.conv2d -> relax.nn.conv2d). */
bool IsRSubNamespace(const std::string& name) {
  static const std::set<std::string> subs = {"nn",  "image",  "memory",      "builtin", "vm",
                                             "ccl", "linalg", "distributed", "grad",    "qdq"};
  return subs.count(name) > 0;
}

/*! \brief The TVMScript operator that a Python operator would mean. */
std::string OpHint(const std::string& op) {
  static const std::map<std::string, std::string> hints = {
      {"+", "R.add"},         {"-", "R.subtract"},      {"*", "R.multiply"},
      {"/", "R.divide"},      {"//", "R.floor_divide"}, {"**", "R.power"},
      {"%", "R.mod"},         {"@", "R.matmul"},        {"<", "R.less"},
      {"<=", "R.less_equal"}, {">", "R.greater"},       {">=", "R.greater_equal"},
      {"==", "R.equal"},      {"!=", "R.not_equal"}};
  auto it = hints.find(op);
  return it == hints.end() ? "" : it->second;
}

}  // namespace

std::string RValue::TypeName() const {
  switch (kind) {
    case RK::kNone:
      return "None";
    case RK::kBool:
      return "bool";
    case RK::kInt:
      return "int";
    case RK::kFloat:
      return "float";
    case RK::kStr:
      return "str";
    case RK::kExpr:
      return expr.defined() ? std::string("Relax ") + expr->GetTypeKey() : "Relax expression";
    case RK::kPrim:
      return "PrimExpr";
    case RK::kSInfo:
      return "struct info";
    case RK::kTuple:
      return "tuple";
    case RK::kList:
      return "list";
    case RK::kDict:
      return "dict";
    case RK::kNamespace:
      return "namespace " + str;
    case RK::kBuiltin:
      return str;
    case RK::kModule:
      return "the module";
    case RK::kMetadata:
      return "metadata";
  }
  return "value";
}

RelaxEvaluator::RelaxEvaluator(const FunctionParseContext& ctx) : ctx_(ctx), bb_(ctx.module) {
  scopes_.emplace_back();
}

void RelaxEvaluator::Error(const Span& span, const std::string& message) const {
  script::ThrowParseError(*ctx_.source, span.defined() ? span : stmt_span_, message);
}

void RelaxEvaluator::Bind(const std::string& name, RValue v) {
  scopes_.back()[name] = std::move(v);
}

const RValue* RelaxEvaluator::Lookup(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto f = it->find(name);
    if (f != it->end()) return &f->second;
  }
  return nullptr;
}

tir::Var RelaxEvaluator::SymVar(const std::string& name) {
  auto it = sym_.find(name);
  if (it != sym_.end()) return it->second;
  tir::Var v(name, DataType::Int(64));
  sym_.emplace(name, v);
  return v;
}

// ---- conversions ------------------------------------------------------------------------

std::string RelaxEvaluator::AsStr(const RValue& v, const Span& span, const char* what) const {
  if (v.kind != RK::kStr) Error(span, std::string(what) + " must be a string, got " + v.TypeName());
  return v.str;
}

DataType RelaxEvaluator::AsDType(const RValue& v, const Span& span) const {
  if (v.kind == RK::kBuiltin && v.str.rfind("T.", 0) == 0) {
    try {
      return DataType(v.str.substr(2));
    } catch (const minitvm::Error&) {
    }
  }
  if (v.kind == RK::kExpr && v.expr.as<DataTypeImmNode>()) {
    return v.expr.as<DataTypeImmNode>()->value;
  }
  std::string s = AsStr(v, span, "a dtype");
  if (s.empty()) return DataType::Void();
  try {
    return DataType(s);
  } catch (const minitvm::Error& e) {
    Error(span, "unknown dtype \"" + s + "\"");
  }
}

PrimExpr RelaxEvaluator::DimFromString(const std::string& text, const Span& span) {
  if (text.empty()) Error(span, "a symbolic dimension needs a name");
  bool identifier = !isdigit(static_cast<unsigned char>(text[0]));
  for (char c : text) identifier &= isalnum(static_cast<unsigned char>(c)) || c == '_';
  if (identifier) return SymVar(text);
  // "w - kw + 1": an expression of symbolic variables, as TVM prints them in signatures.
  script::SourceFile src(text, "<dimension>");
  ast::Module m;
  try {
    m = script::ParsePython(src);
  } catch (const minitvm::Error&) {
    Error(span, "cannot read the dimension \"" + text + "\" as an integer expression");
  }
  if (m.body.size() != 1 || m.body[0]->kind != ast::Stmt::Kind::kExpr) {
    Error(span, "cannot read the dimension \"" + text + "\" as an integer expression");
  }
  std::function<PrimExpr(const ast::Expr&)> conv = [&](const ast::Expr& e) -> PrimExpr {
    switch (e.kind) {
      case EK::kName: {
        const RValue* v = Lookup(e.id);
        if (v && v->kind == RK::kPrim) return v->prim;
        return SymVar(e.id);
      }
      case EK::kConstant:
        if (e.const_kind == ast::Expr::ConstKind::kInt) {
          return IntImm(DataType::Int(64), e.int_value);
        }
        break;
      case EK::kUnaryOp:
        if (e.id == "-") return -conv(*e.children[0]);
        break;
      case EK::kBinOp: {
        PrimExpr a = conv(*e.children[0]), b = conv(*e.children[1]);
        if (e.id == "+") return a + b;
        if (e.id == "-") return a - b;
        if (e.id == "*") return a * b;
        if (e.id == "//") return tir::floordiv(a, b);
        if (e.id == "%") return tir::floormod(a, b);
        break;
      }
      default:
        break;
    }
    Error(span, "cannot read the dimension \"" + text +
                    "\": only names, integers and + - * // % are allowed");
  };
  return conv(*m.body[0]->value);
}

PrimExpr RelaxEvaluator::AsDim(const RValue& v, const Span& span) {
  switch (v.kind) {
    case RK::kInt:
      return IntImm(DataType::Int(64), v.i);
    case RK::kStr:
      return DimFromString(v.str, span);
    case RK::kPrim:
      if (!v.prim.dtype().is_int() && !v.prim.dtype().is_uint()) {
        Error(span, "a dimension must be an integer expression, got dtype " +
                        runtime::DataTypeToString(v.prim.dtype()));
      }
      return v.prim;
    default:
      Error(span,
            "a dimension must be an int, a \"name\" or a symbolic expression, got " + v.TypeName());
  }
}

Array<PrimExpr> RelaxEvaluator::AsDims(const RValue& v, const Span& span) {
  if (v.kind == RK::kExpr) {
    if (auto* s = v.expr.as<ShapeExprNode>()) return s->values;
  }
  if (v.kind != RK::kTuple && v.kind != RK::kList) {
    Error(span, "a shape must be a tuple or list of dimensions, got " + v.TypeName());
  }
  Array<PrimExpr> dims;
  for (const RValue& d : v.items) dims.push_back(AsDim(d, d.span.defined() ? d.span : span));
  return dims;
}

Expr RelaxEvaluator::AsExpr(const RValue& v, const Span& span) {
  switch (v.kind) {
    case RK::kExpr:
      return v.expr;
    case RK::kPrim:
      return PrimValue(v.prim);
    case RK::kTuple:
    case RK::kList: {
      bool all_dims = !v.items.empty();
      for (const RValue& it : v.items) {
        if (it.kind != RK::kInt && it.kind != RK::kPrim) all_dims = false;
      }
      if (all_dims) return ShapeExpr(AsDims(v, span));
      Array<Expr> fields;
      for (const RValue& it : v.items) {
        fields.push_back(Leaf(AsExpr(it, it.span.defined() ? it.span : span), span));
      }
      return Tuple(fields);
    }
    case RK::kInt:
    case RK::kFloat:
    case RK::kBool:
      Error(span, "a Python number is not a Relax value here: write R.const(" +
                      std::string(v.kind == RK::kFloat ? "1.0, \"float32\"" : "1, \"int64\"") +
                      ") for a tensor or R.prim_value(...) for a scalar");
    case RK::kStr:
      Error(span, "a Python string is not a Relax value here: write R.str(\"...\")");
    default:
      Error(span, "expected a Relax value, got " + v.TypeName());
  }
}

Any RelaxEvaluator::AsAttr(const RValue& v, const Span& span, int depth) {
  if (depth > 32) Error(span, "attribute value nests too deeply");
  switch (v.kind) {
    case RK::kNone:
      return Any();
    case RK::kBool:
      return Any(v.i != 0);
    case RK::kInt:
      return Any(v.i);
    case RK::kFloat:
      return Any(v.f);
    case RK::kStr:
      return Any(String(v.str));
    case RK::kPrim:
      if (auto* imm = v.prim.as<IntImmNode>()) return Any(imm->value);
      return Any(v.prim);
    case RK::kExpr:
      if (auto* d = v.expr.as<DataTypeImmNode>()) {
        return Any(String(runtime::DataTypeToString(d->value)));
      }
      if (auto* s = v.expr.as<StringImmNode>()) return Any(s->value);
      return Any(v.expr);
    case RK::kSInfo:
      return Any(v.sinfo);
    case RK::kTuple:
    case RK::kList: {
      Array<Any> items;
      for (const RValue& it : v.items) items.push_back(AsAttr(it, span, depth + 1));
      return Any(items);
    }
    case RK::kDict: {
      Map<String, Any> m;
      for (size_t k = 0; k < v.items.size(); ++k) {
        m.Set(String(AsStr(v.items[k], span, "a dict key")), AsAttr(v.values[k], span, depth + 1));
      }
      return Any(m);
    }
    default:
      Error(span, "unsupported attribute value " + v.TypeName());
  }
}

StructInfo RelaxEvaluator::AsSInfo(const RValue& v, const Span& span) {
  if (v.kind == RK::kSInfo) return v.sinfo;
  if (v.kind == RK::kBuiltin) {
    if (v.str == "R.Tensor") return TensorStructInfo(DataType::Void(), kUnknownNDim);
    if (v.str == "R.Object" || v.str == "R.Any") return ObjectStructInfo();
    if (v.str == "R.Shape") return ShapeStructInfo(kUnknownNDim);
    if (v.str == "R.Tuple") return TupleStructInfo(Array<StructInfo>());
  }
  if (v.kind == RK::kTuple) {
    // `-> (R.Tensor(...), R.Tensor(...))`: a tuple of struct infos.
    Array<StructInfo> fields;
    for (const RValue& it : v.items)
      fields.push_back(AsSInfo(it, it.span.defined() ? it.span : span));
    return TupleStructInfo(fields);
  }
  Error(span,
        "expected a struct info annotation (R.Tensor(...), R.Tuple(...), R.Shape(...), "
        "R.Object, R.Prim(...), R.Callable(...)), got " +
            v.TypeName());
}

// ---- expressions ------------------------------------------------------------------------

RValue RelaxEvaluator::Eval(const ast::Expr& e) {
  if (++depth_ > 200) Error(e.span, "the expression nests too deeply");
  struct Dec {
    int* d;
    ~Dec() { --*d; }
  } dec{&depth_};
  switch (e.kind) {
    case EK::kName: {
      if (const RValue* v = Lookup(e.id)) {
        RValue r = *v;
        r.span = e.span;
        return r;
      }
      auto ns = ctx_.namespaces.find(e.id);
      if (ns != ctx_.namespaces.end()) {
        RValue r = Make(RK::kNamespace, e.span);
        r.str = ns->second;
        return r;
      }
      if (!ctx_.module_name.empty() && e.id == ctx_.module_name) return Make(RK::kModule, e.span);
      if (auto gv = ctx_.global_vars.Get(String(e.id))) return ExprV(*gv, e.span);
      if (e.id == "metadata") return Make(RK::kMetadata, e.span);
      auto c = ctx_.constants.find(e.id);
      if (c != ctx_.constants.end()) {
        const Any& a = c->second;
        if (a.is_bool()) {
          RValue r = Make(RK::kBool, e.span);
          r.i = a.raw_int() != 0;
          return r;
        }
        if (a.is_int()) {
          RValue r = Make(RK::kInt, e.span);
          r.i = a.raw_int();
          return r;
        }
        if (a.is_float()) {
          RValue r = Make(RK::kFloat, e.span);
          r.f = a.raw_float();
          return r;
        }
        if (a.is_string()) {
          RValue r = Make(RK::kStr, e.span);
          r.str = a.cast<String>();
          return r;
        }
      }
      if (expired_dataflow_.count(e.id)) {
        Error(e.span, "\"" + e.id +
                          "\" is a dataflow variable of a block above: list it in R.output(...) "
                          "to use it after the block");
      }
      Error(e.span, "undefined variable \"" + e.id + "\"");
    }
    case EK::kConstant: {
      using CK = ast::Expr::ConstKind;
      switch (e.const_kind) {
        case CK::kNone:
          return Make(RK::kNone, e.span);
        case CK::kBool: {
          RValue r = Make(RK::kBool, e.span);
          r.i = e.int_value;
          return r;
        }
        case CK::kInt: {
          RValue r = Make(RK::kInt, e.span);
          r.i = e.int_value;
          return r;
        }
        case CK::kFloat: {
          RValue r = Make(RK::kFloat, e.span);
          r.f = e.float_value;
          return r;
        }
        case CK::kStr: {
          RValue r = Make(RK::kStr, e.span);
          r.str = e.str_value;
          return r;
        }
        case CK::kEllipsis:
          Error(e.span, "unsupported constant ...");
      }
      break;
    }
    case EK::kAttribute:
      return Attribute(Eval(*e.children[0]), e.id, e.span);
    case EK::kCall:
      return Call(e);
    case EK::kSubscript:
      return Subscript(Eval(*e.children[0]), *e.children[1], e.span);
    case EK::kTuple:
    case EK::kList: {
      RValue r = Make(e.kind == EK::kTuple ? RK::kTuple : RK::kList, e.span);
      for (const ast::ExprPtr& c : e.children) {
        if (c->kind == EK::kStarred) Error(c->span, "unsupported Python construct: *args");
        r.items.push_back(Eval(*c));
      }
      return r;
    }
    case EK::kDict: {
      RValue r = Make(RK::kDict, e.span);
      for (size_t k = 0; k < e.children.size(); ++k) {
        if (!e.children[k]) Error(e.span, "unsupported Python construct: **dict");
        r.items.push_back(Eval(*e.children[k]));
        r.values.push_back(Eval(*e.values[k]));
      }
      return r;
    }
    case EK::kBinOp:
      return BinaryOp(e.id, Eval(*e.children[0]), Eval(*e.children[1]), e.span);
    case EK::kUnaryOp: {
      RValue a = Eval(*e.children[0]);
      if (e.id == "-" && a.kind == RK::kInt) {
        a.i = -a.i;
        a.span = e.span;
        return a;
      }
      if (e.id == "-" && a.kind == RK::kFloat) {
        a.f = -a.f;
        a.span = e.span;
        return a;
      }
      if (e.id == "-" && a.kind == RK::kPrim) return PrimV(-a.prim, e.span);
      if (e.id == "+" && (a.kind == RK::kInt || a.kind == RK::kFloat)) return a;
      if (a.kind == RK::kExpr) {
        Error(e.span, "Python operator " + e.id +
                          " on a Relax value is not supported in TVMScript; call the operator, "
                          "e.g. R.negative(x)");
      }
      Error(e.span, "unsupported operator " + e.id + " on " + a.TypeName());
    }
    case EK::kCompare: {
      if (e.ops.size() == 1) {
        return BinaryOp(e.ops[0], Eval(*e.children[0]), Eval(*e.children[1]), e.span);
      }
      Error(e.span, "chained comparisons are not supported in a Relax function");
    }
    case EK::kBoolOp:
    case EK::kIfExp:
      Error(e.span, "unsupported Python construct in a Relax function: " +
                        std::string(e.kind == EK::kBoolOp ? e.id : "x if c else y") +
                        " (use an if statement or R.where)");
    case EK::kSlice:
      Error(e.span, "slices are not supported in a Relax function (use R.strided_slice)");
    case EK::kStarred:
      Error(e.span, "unsupported Python construct: *args");
    case EK::kLambda:
      Error(e.span, "unsupported Python construct: lambda");
  }
  Error(e.span, "unsupported expression");
}

RValue RelaxEvaluator::BinaryOp(const std::string& op, const RValue& a, const RValue& b,
                                const Span& span) {
  if (a.kind == RK::kExpr || b.kind == RK::kExpr) {
    std::string hint = OpHint(op);
    Error(span, "Python operator " + op + " on Relax values is not supported in TVMScript" +
                    (hint.empty() ? std::string() : "; call " + hint + "(a, b)"));
  }
  if (a.kind == RK::kInt && b.kind == RK::kInt) {
    RValue r = Make(RK::kInt, span);
    if (op == "+")
      r.i = a.i + b.i;
    else if (op == "-")
      r.i = a.i - b.i;
    else if (op == "*")
      r.i = a.i * b.i;
    else if ((op == "//" || op == "%") && b.i == 0)
      Error(span, "division by zero");
    else if (op == "//")
      r.i = a.i / b.i - ((a.i % b.i != 0) && ((a.i < 0) != (b.i < 0)));
    else if (op == "%")
      r.i = a.i - b.i * (a.i / b.i - ((a.i % b.i != 0) && ((a.i < 0) != (b.i < 0))));
    else
      Error(span, "unsupported operator " + op + " on ints in a Relax function");
    return r;
  }
  bool a_dim = a.kind == RK::kInt || a.kind == RK::kPrim;
  bool b_dim = b.kind == RK::kInt || b.kind == RK::kPrim;
  if (a_dim && b_dim) {
    PrimExpr x = AsDim(a, span), y = AsDim(b, span);
    if (op == "+") return PrimV(x + y, span);
    if (op == "-") return PrimV(x - y, span);
    if (op == "*") return PrimV(x * y, span);
    if (op == "//") return PrimV(tir::floordiv(x, y), span);
    if (op == "%") return PrimV(tir::floormod(x, y), span);
    if (op == "<") return PrimV(x < y, span);
    if (op == "<=") return PrimV(x <= y, span);
    if (op == ">") return PrimV(x > y, span);
    if (op == ">=") return PrimV(x >= y, span);
    if (op == "==") return PrimV(x == y, span);
    if (op == "!=") return PrimV(x != y, span);
    Error(span, "unsupported operator " + op + " on symbolic dimensions");
  }
  if ((a.kind == RK::kFloat || a.kind == RK::kInt) &&
      (b.kind == RK::kFloat || b.kind == RK::kInt)) {
    double x = a.kind == RK::kFloat ? a.f : static_cast<double>(a.i);
    double y = b.kind == RK::kFloat ? b.f : static_cast<double>(b.i);
    RValue r = Make(RK::kFloat, span);
    if (op == "+")
      r.f = x + y;
    else if (op == "-")
      r.f = x - y;
    else if (op == "*")
      r.f = x * y;
    else if (op == "/" && y != 0)
      r.f = x / y;
    else
      Error(span, "unsupported operator " + op + " on numbers in a Relax function");
    return r;
  }
  Error(span, "unsupported operator " + op + " on " + a.TypeName() + " and " + b.TypeName());
}

RValue RelaxEvaluator::Attribute(const RValue& base, const std::string& attr, const Span& span) {
  switch (base.kind) {
    case RK::kNamespace: {
      const std::string& ns = base.str;
      if (ns == "R") {
        if (IsRSubNamespace(attr)) {
          RValue r = Make(RK::kNamespace, span);
          r.str = "R." + attr;
          return r;
        }
        return Builtin("R." + attr, span);
      }
      if (ns.rfind("R.", 0) == 0) return Builtin(ns + "." + attr, span);
      if (ns == "T") return Builtin("T." + attr, span);
      if (ns == "tvm" && attr == "script") {
        RValue r = Make(RK::kNamespace, span);
        r.str = "tvm.script";
        return r;
      }
      if (ns == "tvm.script") {
        std::string sub = script::FindScriptNamespace(attr);
        if (!sub.empty() || attr == "tir" || attr == "ir") {
          RValue r = Make(RK::kNamespace, span);
          r.str = !sub.empty() ? sub : (attr == "tir" ? "T" : "I");
          return r;
        }
      }
      Error(span, "unknown name \"" + ns + "." + attr + "\"");
    }
    case RK::kModule: {
      if (auto gv = ctx_.global_vars.Get(String(attr))) return ExprV(*gv, span);
      Error(span, "the module has no function named \"" + attr + "\"");
    }
    case RK::kExpr:
      if (attr == "struct_info" && base.expr->struct_info_.defined()) {
        return SInfoV(Downcast<StructInfo>(base.expr->struct_info_), span);
      }
      Error(span, base.TypeName() + " has no attribute \"" + attr + "\" in a script");
    default:
      Error(span, base.TypeName() + " has no attribute \"" + attr + "\"");
  }
}

RValue RelaxEvaluator::Subscript(const RValue& base, const ast::Expr& index, const Span& span) {
  if (base.kind == RK::kMetadata) {
    RValue idx = Eval(index);
    if (base.str.empty()) {
      RValue r = Make(RK::kMetadata, span);
      r.str = AsStr(idx, index.span, "a metadata kind");
      return r;
    }
    if (idx.kind != RK::kInt) Error(index.span, "a metadata index must be an int");
    if (!ctx_.has_metadata) {
      Error(span, "the script refers to metadata[\"" + base.str + "\"][" + std::to_string(idx.i) +
                      "] but was parsed without its metadata table (the printer left the "
                      "constants out): pass the table as from_source(text, metadata={\"" +
                      base.str + "\": [...]})");
    }
    auto table = ctx_.metadata.Get(String(base.str));
    if (!table) Error(span, "the metadata table has no entry \"" + base.str + "\"");
    if (idx.i < 0 || idx.i >= static_cast<int64_t>(table->size())) {
      Error(index.span, "metadata[\"" + base.str + "\"] has " + std::to_string(table->size()) +
                            " entries; index " + std::to_string(idx.i) + " is out of range");
    }
    Any item = (*table)[idx.i];
    if (item.as<runtime::NDArrayNode>()) {
      return ExprV(Constant(item.cast<NDArray>()), span);
    }
    if (item.as<ExprNode>()) return ExprV(item.cast<Expr>(), span);
    Error(span, "metadata[\"" + base.str + "\"][" + std::to_string(idx.i) +
                    "] is not a Relax expression or an NDArray");
  }
  RValue idx = Eval(index);
  if (base.kind == RK::kTuple || base.kind == RK::kList) {
    if (idx.kind != RK::kInt) Error(index.span, "a tuple index must be an int");
    int64_t n = static_cast<int64_t>(base.items.size());
    int64_t k = idx.i < 0 ? idx.i + n : idx.i;
    if (k < 0 || k >= n) Error(index.span, "tuple index out of range");
    return base.items[k];
  }
  if (base.kind == RK::kExpr) {
    if (idx.kind != RK::kInt) {
      Error(index.span, "a Relax tuple is indexed by an int constant, got " + idx.TypeName());
    }
    Expr tuple = Leaf(base.expr, base.span);
    if (tuple->struct_info_.defined()) {
      auto* t = tuple->struct_info_.as<TupleStructInfoNode>();
      if (!t) {
        Error(span, "only a tuple can be indexed, but the value's struct info is " +
                        StructInfoToString(Downcast<StructInfo>(tuple->struct_info_)));
      }
      if (idx.i < 0 || idx.i >= static_cast<int64_t>(t->fields.size())) {
        Error(index.span, "index " + std::to_string(idx.i) + " is out of range for a tuple of " +
                              std::to_string(t->fields.size()) + " fields");
      }
    }
    return ExprV(TupleGetItem(tuple, idx.i), span);
  }
  if (base.kind == RK::kBuiltin && base.str == "R.Tensor" && idx.kind == RK::kTuple &&
      idx.items.size() == 2) {
    // The early spelling R.Tensor[(1, 784), "float32"].
    return SInfoV(TensorStructInfo(ShapeExpr(AsDims(idx.items[0], index.span)),
                                   AsDType(idx.items[1], index.span)),
                  span);
  }
  if (base.kind == RK::kBuiltin) {
    Error(span, base.str + "[...] is not supported; write " + base.str + "(...)");
  }
  Error(span, base.TypeName() + " cannot be indexed");
}

RValue RelaxEvaluator::Call(const ast::Expr& e) {
  RValue callee = Eval(*e.children[0]);
  if (callee.kind == RK::kBuiltin) return CallBuiltin(callee.str, e);
  if (callee.kind == RK::kExpr) {
    // A call of another function of the module, an ExternFunc, or a function-typed variable.
    if (!e.keywords.empty()) {
      Error(e.keywords[0].span, "a call of a Relax function takes no keyword arguments");
    }
    Array<Expr> args;
    for (size_t k = 1; k < e.children.size(); ++k) {
      const ast::Expr& a = *e.children[k];
      if (a.kind == EK::kStarred) Error(a.span, "unsupported Python construct: *args");
      args.push_back(Leaf(AsExpr(Eval(a), a.span), a.span));
    }
    return ExprV(relax::Call(callee.expr, args), e.span);
  }
  Error(e.children[0]->span, callee.TypeName() + " is not callable");
}

}  // namespace parser
}  // namespace relax
}  // namespace minitvm

/*!
 * \file tir_parser_expr.cc
 * \brief TVMScript parser, part 1 (stage 2): values, names, expressions and the `T.*`
 * functions. Python arithmetic on Python numbers is done the Python way; as soon as a TIR
 * expression is involved the operators of `op.h` apply, with a Python number taking the dtype
 * of the other operand (`A[i] + 1.0` on float16 is a float16 add), as in TVM.
 */
#include <cmath>
#include <limits>
#include <unordered_set>

#include "minitvm/arith/analyzer.h"
#include "minitvm/script/tir_printer.h"
#include "minitvm/te/reduce.h"
#include "minitvm/tir/builtin.h"
#include "minitvm/tir/op.h"
#include "tir_parser_impl.h"
#include "tir_utils.h"

namespace minitvm {
namespace script {
namespace tir_parser {

using namespace ::minitvm::tir;  // NOLINT(build/namespaces)
using ast::Expr;
using VK = Value::Kind;

namespace {

/*! \brief Why a TVM name that minitvm does not have is missing, for the "unknown name" error. */
std::string UnsupportedHint(const std::string& name) {
  if (name == "T.call_packed" || name == "T.call_cpacked" || name == "T.call_packed_lowered") {
    return ": minitvm's TensorIR has no packed function calls; call a registered function "
           "with T.call_extern(dtype, \"name\", args...)";
  }
  // TVM intrinsics minitvm does not register at all, and (below) the registered ones TVMScript
  // has no T.<name> builder for (tir/builtin.h: no "TScriptPrinterName").
  static const std::unordered_set<std::string> intrinsics = {"T.tvm_thread_allreduce",
                                                             "T.tvm_storage_sync",
                                                             "T.address_of",
                                                             "T.tvm_access_ptr",
                                                             "T.tvm_struct_get",
                                                             "T.tvm_warp_shuffle",
                                                             "T.vscale",
                                                             "T.prefetch",
                                                             "T.tvm_fill_fragment",
                                                             "T.tvm_mma_sync",
                                                             "T.ptx_mma",
                                                             "T.ptx_ldmatrix",
                                                             "T.mma_store",
                                                             "T.mma_fill",
                                                             "T.popcount",
                                                             "T.clz"};
  bool unscripted = false;
  if (name.rfind("T.", 0) == 0) {
    std::optional<Op> op = GetIntrinsic("tir." + name.substr(2));
    unscripted = op && GetIntrinsicString(*op, tir::attr::kScriptPrinterName).empty();
  }
  if (intrinsics.count(name) || unscripted) {
    return ": this TVM intrinsic has no builder in minitvm; keep it in the IR as "
           "T.call_intrin(dtype, \"tir." +
           name.substr(2) + "\", args...)";
  }
  if (name == "T.Bind" || name == "T.type_annotation") {
    return ": not supported by minitvm's TensorIR";
  }
  return "";
}

Value Make(VK kind, const Span& span) {
  Value v;
  v.kind = kind;
  v.span = span;
  return v;
}
Value IntValue(int64_t i, const Span& span) {
  Value v = Make(VK::kInt, span);
  v.i = i;
  return v;
}
Value FloatValue(double f, const Span& span) {
  Value v = Make(VK::kFloat, span);
  v.f = f;
  return v;
}
Value BoolValue(bool b, const Span& span) {
  Value v = Make(VK::kBool, span);
  v.i = b;
  return v;
}
Value ExprValue(PrimExpr e, const Span& span) {
  Value v = Make(VK::kExpr, span);
  v.expr = std::move(e);
  return v;
}
Value StrValue(std::string s, const Span& span) {
  Value v = Make(VK::kStr, span);
  v.str = std::move(s);
  return v;
}

/*! \brief `a.b.c` for a chain of names and attributes, else "". */
std::string DottedName(const Expr& e) {
  if (e.kind == Expr::Kind::kName) return e.id;
  if (e.kind == Expr::Kind::kAttribute && !e.children.empty() && e.children[0]) {
    std::string base = DottedName(*e.children[0]);
    if (!base.empty()) return base + "." + e.id;
  }
  return "";
}

}  // namespace

std::string Value::TypeName() const {
  switch (kind) {
    case VK::kNone:
      return "None";
    case VK::kBool:
      return "bool";
    case VK::kInt:
      return "int";
    case VK::kFloat:
      return "float";
    case VK::kStr:
      return "str";
    case VK::kExpr:
      return "a " + runtime::DataTypeToString(expr.dtype()) + " expression";
    case VK::kBuffer:
      return "a Buffer";
    case VK::kRegion:
      return "a buffer region";
    case VK::kTuple:
      return "tuple";
    case VK::kList:
      return "list";
    case VK::kDict:
      return "dict";
    case VK::kSlice:
      return "slice";
    case VK::kBuiltin:
      return "the function " + str;
    case VK::kNamespace:
      return "the module " + str;
    case VK::kDType:
      return "the type T." + runtime::DataTypeToString(dtype);
    case VK::kIterVar:
      return "an IterVar";
    case VK::kObject:
      return "a " + object->GetTypeKey();
    case VK::kLambda:
      return "a lambda";
    case VK::kAxis:
      return "a block iterator";
    case VK::kLoop:
      return "a loop range";
    case VK::kScope:
      return "a scoped statement";
    case VK::kStmt:
      return "a statement";
    case VK::kBufferDecl:
      return "a buffer declaration";
    case VK::kVarDecl:
      return "a variable declaration";
    case VK::kEnvThread:
      return "a thread axis";
    case VK::kEllipsis:
      return "Ellipsis";
    case VK::kBlock:
      return "a T.block";
    case VK::kInit:
      return "T.init()";
  }
  return "value";
}

const Value* CallArgs::Get(size_t index, const std::string& name) const {
  if (index < args.size()) return &args[index];
  for (const auto& [k, v] : kwargs) {
    if (k == name) return &v;
  }
  return nullptr;
}

Evaluator::Evaluator(const SourceFile& source) : src_(source) {
  auto ns = [](const char* name) {
    Value v;
    v.kind = VK::kNamespace;
    v.str = name;
    return v;
  };
  globals_["T"] = ns("T");
  globals_["I"] = ns("I");
  globals_["tvm"] = ns("tvm");
  globals_["minitvm"] = ns("tvm");
  // Namespaces of later stages (parser_ext.h): `R` names Relax by default, like `T` and `I`.
  for (const std::string& name : ListScriptNamespaces()) globals_[name] = ns(name.c_str());
  Value range;
  range.kind = VK::kBuiltin;
  range.str = "range";
  globals_["range"] = range;
}

namespace {
/*! \brief The script value of a Python object captured from the decorated code's scope. */
std::optional<Value> ClosureValue(const Any& any, int depth) {
  Value v;
  if (any.is_null()) return v;  // None
  if (depth > 8) return std::nullopt;
  if (auto s = any.try_cast<String>()) {
    v.kind = VK::kStr;
    v.str = s->str();
    return v;
  }
  if (auto e = any.try_cast<PrimExpr>()) {
    v.kind = VK::kExpr;
    v.expr = *e;
    return v;
  }
  if (auto b = any.try_cast<Buffer>()) {
    v.kind = VK::kBuffer;
    v.buffer = *b;
    return v;
  }
  if (auto arr = any.try_cast<Array<Any>>()) {
    v.kind = VK::kList;
    for (const Any& item : *arr) {
      std::optional<Value> iv = ClosureValue(item, depth + 1);
      if (!iv) return std::nullopt;
      v.items.push_back(*iv);
    }
    return v;
  }
  if (auto obj = any.try_cast<ObjectRef>()) {
    v.kind = VK::kObject;
    v.object = *obj;
    return v;
  }
  return std::nullopt;
}
}  // namespace

std::optional<Value> Evaluator::ScriptCallOf(const Any& rv, const Span& span) {
  // A helper that returns `T.decl_buffer(...)` (or any T. call) hands back the call as
  // ["__minitvm_script_call__", "decl_buffer", [args...], {kwargs}]: run it here.
  auto arr = rv.try_cast<Array<Any>>();
  if (!arr || arr->size() != 4) return std::nullopt;
  auto tag = (*arr)[0].try_cast<String>();
  if (!tag || tag->str() != "__minitvm_script_call__") return std::nullopt;
  auto name = (*arr)[1].try_cast<String>();
  auto pos = (*arr)[2].try_cast<Array<Any>>();
  auto kw = (*arr)[3].try_cast<Map<String, Any>>();
  if (!name || !pos || !kw) Error(span, "malformed T. call returned by a Python function");
  CallArgs call;
  call.span = span;
  call.func = "T." + name->str();
  std::function<Value(const Any&)> value_of = [&](const Any& a) -> Value {
    if (a.is_bool()) return BoolValue(a.cast<bool>(), span);
    if (a.is_int()) return IntValue(a.cast<int64_t>(), span);
    if (a.is_float()) return FloatValue(a.cast<double>(), span);
    if (std::optional<Value> v = ScriptCallOf(a, span)) return *v;
    if (auto items = a.try_cast<Array<Any>>()) {
      Value list = Make(VK::kList, span);
      for (const Any& item : *items) list.items.push_back(value_of(item));
      return list;
    }
    std::optional<Value> v = ClosureValue(a, 0);
    if (!v) Error(span, "a Python function passed " + a.type_name() + " to " + call.func);
    v->span = span;
    return *v;
  };
  for (const Any& a : *pos) call.args.push_back(value_of(a));
  for (const auto& [k, v] : kw->items()) call.kwargs.emplace_back(k.str(), value_of(v));
  return CallBuiltin(call.func, call);
}

void Evaluator::SetClosure(const Map<String, Any>& vars) {
  for (const auto& [name, value] : vars.items()) {
    // The script's own namespaces (T, I, R, range) stay what the parser knows them as.
    if (globals_.count(name.str())) continue;
    if (auto s = value.try_cast<String>(); s && s->str() == "__minitvm_module__:tvm.tir") {
      // `from tvm import tir` around the script: the Python module minitvm.tir.
      Value ns;
      ns.kind = VK::kNamespace;
      ns.str = "tvm.tir";
      globals_[name.str()] = ns;
      continue;
    }
    if (std::optional<Value> v = ClosureValue(value, 0)) globals_[name.str()] = *v;
  }
}

void Evaluator::Error(const Span& span, const std::string& message) const {
  ThrowParseError(src_, span, message);
}

Evaluator::DepthGuard::DepthGuard(Evaluator* e, const Span& span) : e_(e) {
  if (++e_->depth_ > 256) e_->Error(span, "the script nests scopes too deeply");
}

// ---- names ------------------------------------------------------------------------------

void Evaluator::Bind(const std::string& name, Value v) {
  if (scopes_.empty()) scopes_.emplace_back();
  scopes_.back()[name] = std::move(v);
}

const Value* Evaluator::Lookup(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto f = it->find(name);
    if (f != it->end()) return &f->second;
  }
  auto g = globals_.find(name);
  if (g != globals_.end()) return &g->second;
  return nullptr;
}

// ---- conversions ------------------------------------------------------------------------

PrimExpr Evaluator::AsExpr(const Value& v, const Span& span) const {
  switch (v.kind) {
    case VK::kExpr:
      return v.expr;
    case VK::kInt:
      return PrimExpr(v.i);
    case VK::kFloat:
      return FloatImm(DataType::Float(32), v.f);
    case VK::kBool:
      return IntImm(DataType::Bool(), v.i != 0);
    case VK::kIterVar:
      return v.iter_var->var;
    case VK::kBuffer:
      Error(span, "expected a TIR expression, got a Buffer (index it, e.g. " +
                      v.buffer->name.str() + "[i])");
    case VK::kLambda:
      Error(span, "unsupported Python construct: lambda (only the combiner of T.comm_reducer)");
    default:
      Error(span, "expected a TIR expression, got " + v.TypeName());
  }
}

PrimExpr Evaluator::ConstOf(const Value& v, DataType t, const Span& span) const {
  try {
    if (v.kind == VK::kFloat) {
      if (!(t.is_float() || t.is_bfloat16())) {
        Error(span, "dtype mismatch: the float " + std::to_string(v.f) + " is not a " +
                        runtime::DataTypeToString(t) + " value");
      }
      return make_const(t, v.f);
    }
    if (v.kind == VK::kInt || v.kind == VK::kBool) {
      if (t.lanes() > 1) return Broadcast(ConstOf(v, t.element_of(), span), t.lanes());
      if (t.is_float() || t.is_bfloat16()) return FloatImm(t, static_cast<double>(v.i));
      if (t.is_int() || t.is_uint()) return IntImm(t, v.i);
    }
    return cast(t, AsExpr(v, span));
  } catch (const minitvm::Error& e) {
    if (e.kind() == "ParseError") throw;
    Error(span, std::string("dtype mismatch: ") + e.what());
  }
}

std::string Evaluator::AsString(const Value& v, const Span& span, const char* what) const {
  if (v.kind != VK::kStr) Error(span, std::string(what) + " must be a string, got " + v.TypeName());
  return v.str;
}

int64_t Evaluator::AsInt(const Value& v, const Span& span, const char* what) const {
  if (v.kind == VK::kInt || v.kind == VK::kBool) return v.i;
  if (v.kind == VK::kExpr) {
    if (auto c = AsConstInt(v.expr)) return *c;
  }
  Error(span, std::string(what) + " must be an integer constant, got " + v.TypeName());
}

DataType Evaluator::AsDType(const Value& v, const Span& span) const {
  if (v.kind == VK::kDType) return v.dtype;
  if (v.kind == VK::kStr) {
    if (v.str.empty()) return DataType::Void();  // TVM reads "" as void (call_extern(dtype=""))
    try {
      return DataType(v.str);
    } catch (const minitvm::Error&) {
      Error(span, "unknown dtype \"" + v.str + "\"");
    }
  }
  Error(span, "expected a dtype such as \"float32\", got " + v.TypeName());
}

Any Evaluator::ToAny(const Value& v, int depth) const {
  if (depth > 64) Error(v.span, "attribute value is nested too deeply");
  switch (v.kind) {
    case VK::kNone:
      return Any();
    case VK::kBool:
      return Any(v.i != 0);
    case VK::kInt:
      return Any(v.i);
    case VK::kFloat:
      return Any(v.f);
    case VK::kStr:
      return Any(v.str);
    case VK::kExpr:
      return Any(v.expr);
    case VK::kBuffer:
      return Any(v.buffer);
    case VK::kDType:
      return Any(v.dtype);
    case VK::kObject:
      return Any(v.object);
    case VK::kTuple:
    case VK::kList: {
      Array<Any> items;
      for (const Value& item : v.items) items.push_back(ToAny(item, depth + 1));
      return Any(items);
    }
    case VK::kDict: {
      Map<Any, Any> m;
      for (size_t i = 0; i < v.items.size(); ++i) {
        m.Set(ToAny(v.items[i], depth + 1), ToAny(v.values[i], depth + 1));
      }
      return Any(m);
    }
    default:
      Error(v.span, "an attribute value cannot be " + v.TypeName());
  }
}

Map<String, Any> Evaluator::AsAttrMap(const Value& v, const Span& span) const {
  if (v.kind != VK::kDict) Error(span, "expected a dict of attributes, got " + v.TypeName());
  Map<String, Any> m;
  for (size_t i = 0; i < v.items.size(); ++i) {
    m.Set(String(AsString(v.items[i], v.items[i].span, "an attribute name")), ToAny(v.values[i]));
  }
  return m;
}

Array<PrimExpr> Evaluator::AsShape(const Value& v, const Span& span) const {
  Array<PrimExpr> shape;
  auto dim = [&](const Value& d) {
    PrimExpr e = AsExpr(d, d.span.defined() ? d.span : span);
    if (!(e.dtype().is_int() || e.dtype().is_uint()) || !e.dtype().is_scalar()) {
      Error(d.span.defined() ? d.span : span,
            "a shape entry must be an integer, got " + d.TypeName());
    }
    if (auto c = AsConstInt(e); c && *c < 0) Error(d.span, "a shape entry cannot be negative");
    shape.push_back(e);
  };
  if (v.kind == VK::kTuple || v.kind == VK::kList) {
    for (const Value& d : v.items) dim(d);
  } else {
    dim(v);
  }
  return shape;
}

Range Evaluator::AsDomain(const Value& v, const Span& span) const {
  if (v.kind == VK::kTuple || v.kind == VK::kList) {
    if (v.items.size() != 2) Error(span, "a domain is an extent or a (min, max) pair");
    PrimExpr lo = AsExpr(v.items[0], span), hi = AsExpr(v.items[1], span);
    try {
      PrimExpr extent = RangeExtent(lo, hi);
      if (lo.dtype() != extent.dtype()) lo = cast(extent.dtype(), lo);
      return Range(lo, extent);
    } catch (const minitvm::Error& e) {
      Error(span, std::string("dtype mismatch: ") + e.what());
    }
  }
  if (v.kind == VK::kLoop && v.loop->ranges.size() == 1) {
    return Range(v.loop->ranges[0].first, v.loop->ranges[0].second);
  }
  PrimExpr extent = AsExpr(v, span);
  if (!(extent.dtype().is_int() || extent.dtype().is_uint())) {
    Error(span, "a domain extent must be an integer, got " + v.TypeName());
  }
  return Range(make_zero(extent.dtype()), extent);
}

BufferRegion Evaluator::AsRegion(const Value& v, const Span& span) const {
  if (v.kind == VK::kRegion) return v.region;
  if (v.kind == VK::kBuffer) return BufferRegion::FullRegion(v.buffer);
  if (v.kind == VK::kExpr) {
    if (auto* load = v.expr.as<BufferLoadNode>()) {
      Array<Range> region;
      for (const PrimExpr& i : load->indices) region.push_back(Range(i, make_const(i.dtype(), 1)));
      return BufferRegion(load->buffer, region);
    }
  }
  Error(span, "expected a buffer region such as A[vi, 0:128], got " + v.TypeName());
}

bool Evaluator::Truthy(const Value& v, const Span& span) const {
  switch (v.kind) {
    case VK::kNone:
      return false;
    case VK::kBool:
    case VK::kInt:
      return v.i != 0;
    case VK::kFloat:
      return v.f != 0;
    case VK::kStr:
      return !v.str.empty();
    case VK::kTuple:
    case VK::kList:
    case VK::kDict:
      return !v.items.empty();
    case VK::kExpr:
      if (auto c = AsConstInt(v.expr)) return *c != 0;
      Error(span, "a TIR expression has no Python truth value here");
    default:
      return true;
  }
}

// ---- operators --------------------------------------------------------------------------

std::pair<PrimExpr, PrimExpr> Evaluator::MatchOperands(const Value& a, const Value& b,
                                                       const Span& span) const {
  auto like = [&](const Value& num, const PrimExpr& other) -> PrimExpr {
    DataType t = other.dtype().element_of();
    if (num.kind == VK::kBool) return IntImm(DataType::Bool(), num.i != 0);
    if (num.kind == VK::kFloat) {
      if (t.is_float() || t.is_bfloat16()) return FloatImm(t, num.f);
      return FloatImm(DataType::Float(32), num.f);
    }
    if (t.is_float() || t.is_bfloat16()) return FloatImm(t, static_cast<double>(num.i));
    if ((t.is_int() || t.is_uint()) && !t.is_bool()) {
      try {
        return IntImm(t, num.i);
      } catch (const minitvm::Error&) {
        return PrimExpr(num.i);
      }
    }
    return PrimExpr(num.i);
  };
  if (a.IsNumber() && (b.kind == VK::kExpr || b.kind == VK::kIterVar)) {
    PrimExpr eb = AsExpr(b, span);
    return {like(a, eb), eb};
  }
  if (b.IsNumber() && (a.kind == VK::kExpr || a.kind == VK::kIterVar)) {
    PrimExpr ea = AsExpr(a, span);
    return {ea, like(b, ea)};
  }
  return {AsExpr(a, a.span.defined() ? a.span : span), AsExpr(b, b.span.defined() ? b.span : span)};
}

namespace {
/*! \brief Python's floor division and modulo on int64, with overflow checks. */
bool PyFloorDiv(int64_t a, int64_t b, int64_t* q) {
  if (b == -1 && a == std::numeric_limits<int64_t>::min()) return false;
  int64_t d = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --d;
  *q = d;
  return true;
}
}  // namespace

Value Evaluator::BinaryOp(const std::string& op, const Value& a, const Value& b, const Span& span) {
  // Python values: evaluate here, the Python way.
  if (a.IsNumber() && b.IsNumber()) {
    bool ints = a.kind != VK::kFloat && b.kind != VK::kFloat;
    if (ints) {
      int64_t x = a.i, y = b.i, r = 0;
      bool ok = true;
      if (op == "+") {
        ok = !__builtin_add_overflow(x, y, &r);
      } else if (op == "-") {
        ok = !__builtin_sub_overflow(x, y, &r);
      } else if (op == "*") {
        ok = !__builtin_mul_overflow(x, y, &r);
      } else if (op == "//" || op == "%") {
        if (y == 0) Error(span, "division by zero");
        int64_t q = 0;
        ok = PyFloorDiv(x, y, &q);
        r = op == "//" ? q : x - q * y;
      } else if (op == "/") {
        if (y == 0) Error(span, "division by zero");
        return FloatValue(static_cast<double>(x) / static_cast<double>(y), span);
      } else if (op == "**") {
        if (y < 0)
          return FloatValue(std::pow(static_cast<double>(x), static_cast<double>(y)), span);
        r = 1;
        int64_t base = x;
        while (y > 0 && ok) {
          if (y & 1) ok = !__builtin_mul_overflow(r, base, &r);
          y >>= 1;
          if (y > 0 && ok) ok = !__builtin_mul_overflow(base, base, &base);
        }
      } else if (op == "&") {
        r = x & y;
      } else if (op == "|") {
        r = x | y;
      } else if (op == "^") {
        r = x ^ y;
      } else if (op == "<<" || op == ">>") {
        if (y < 0 || y > 62) Error(span, "shift count out of range");
        if (op == ">>") {
          r = x >> y;
        } else {
          ok = !__builtin_mul_overflow(x, int64_t(1) << y, &r);
        }
      } else {
        Error(span, "unsupported operator '" + op + "'");
      }
      if (!ok) Error(span, "integer overflow in constant expression");
      return IntValue(r, span);
    }
    double x = a.kind == VK::kFloat ? a.f : static_cast<double>(a.i);
    double y = b.kind == VK::kFloat ? b.f : static_cast<double>(b.i);
    if (op == "+") return FloatValue(x + y, span);
    if (op == "-") return FloatValue(x - y, span);
    if (op == "*") return FloatValue(x * y, span);
    if (op == "/" || op == "//" || op == "%") {
      if (y == 0) Error(span, "division by zero");
      if (op == "/") return FloatValue(x / y, span);
      double q = std::floor(x / y);
      return FloatValue(op == "//" ? q : x - q * y, span);
    }
    if (op == "**") return FloatValue(std::pow(x, y), span);
    Error(span, "unsupported operator '" + op + "' for float values");
  }
  if (a.kind == VK::kStr && b.kind == VK::kStr && op == "+") return StrValue(a.str + b.str, span);
  if ((a.kind == VK::kTuple || a.kind == VK::kList) && a.kind == b.kind && op == "+") {
    Value r = a;
    r.span = span;
    r.items.insert(r.items.end(), b.items.begin(), b.items.end());
    return r;
  }
  auto [x, y] = MatchOperands(a, b, span);
  try {
    PrimExpr r;
    if (op == "+") {
      r = x + y;
    } else if (op == "-") {
      r = x - y;
    } else if (op == "*") {
      r = x * y;
    } else if (op == "/") {
      r = x / y;
    } else if (op == "//") {
      r = floordiv(x, y);
    } else if (op == "%") {
      r = floormod(x, y);
    } else if (op == "**") {
      r = tir::pow(x, y);
    } else if (op == "&" || op == "|" || op == "^" || op == "<<" || op == ">>") {
      static const std::unordered_map<std::string, std::string> names = {{"&", "bitwise_and"},
                                                                         {"|", "bitwise_or"},
                                                                         {"^", "bitwise_xor"},
                                                                         {"<<", "shift_left"},
                                                                         {">>", "shift_right"}};
      r = BitwiseOp(names.at(op), a, b, span);
    } else {
      Error(span, "operator '" + op + "' is not supported on TIR expressions");
    }
    return ExprValue(r, span);
  } catch (const minitvm::Error& e) {
    if (e.kind() == "ParseError") throw;
    std::string msg = e.what();
    if (msg.find("type") != std::string::npos || msg.find("lanes") != std::string::npos) {
      Error(span, "dtype mismatch: " + msg);
    }
    Error(span, msg);
  }
}

PrimExpr Evaluator::BitwiseOp(const std::string& op, const Value& a, const Value& b,
                              const Span& span) const {
  auto [x, y] = MatchOperands(a, b, span);
  for (const PrimExpr& e : {x, y}) {
    if (!(e.dtype().is_int() || e.dtype().is_uint() || e.dtype().is_bool())) {
      Error(span, "dtype mismatch: T." + op + " needs integer operands, got " +
                      runtime::DataTypeToString(e.dtype()));
    }
  }
  if (x.dtype() != y.dtype()) {
    Error(span, "dtype mismatch: T." + op + " of " + runtime::DataTypeToString(x.dtype()) +
                    " and " + runtime::DataTypeToString(y.dtype()));
  }
  return tir::Call(x.dtype(), "tir." + op, {x, y});
}

PrimExpr Evaluator::BitwiseNot(const Value& a, const Span& span) const {
  PrimExpr x = AsExpr(a, a.span.defined() ? a.span : span);
  if (!(x.dtype().is_int() || x.dtype().is_uint() || x.dtype().is_bool())) {
    Error(span, "dtype mismatch: T.bitwise_not needs an integer operand, got " +
                    runtime::DataTypeToString(x.dtype()));
  }
  return tir::Call(x.dtype(), "tir.bitwise_not", {x});
}

Value Evaluator::UnaryOp(const std::string& op, const Value& a, const Span& span) {
  if (op == "not") {
    if (a.kind == VK::kExpr && !AsConstInt(a.expr)) {
      if (!a.expr.dtype().is_bool()) {
        Error(span, "dtype mismatch: 'not' needs a bool expression, got " +
                        runtime::DataTypeToString(a.expr.dtype()));
      }
      return ExprValue(!a.expr, span);
    }
    if (a.kind == VK::kExpr) return ExprValue(!a.expr, span);
    return BoolValue(!Truthy(a, span), span);
  }
  if (op == "+") {
    if (a.IsNumber() || a.kind == VK::kExpr) return a;
    Error(span, "bad operand for unary +: " + a.TypeName());
  }
  if (a.kind == VK::kInt || a.kind == VK::kBool) {
    if (op == "-") {
      if (a.i == std::numeric_limits<int64_t>::min()) Error(span, "integer overflow");
      return IntValue(-a.i, span);
    }
    if (op == "~") return IntValue(~a.i, span);
  }
  if (a.kind == VK::kFloat && op == "-") return FloatValue(-a.f, span);
  if (op == "~" && a.kind == VK::kExpr) return ExprValue(BitwiseNot(a, span), span);
  if (op == "-" && (a.kind == VK::kExpr || a.kind == VK::kIterVar)) {
    try {
      return ExprValue(-AsExpr(a, span), span);
    } catch (const minitvm::Error& e) {
      if (e.kind() == "ParseError") throw;
      Error(span, e.what());
    }
  }
  Error(span, "bad operand for unary " + op + ": " + a.TypeName());
}

Value Evaluator::Compare(const std::string& op, const Value& a, const Value& b, const Span& span) {
  if (op == "is" || op == "is not") {
    if (b.kind != VK::kNone) Error(span, "'is' is only supported to compare with None");
    bool is = a.kind == VK::kNone;
    return BoolValue(op == "is" ? is : !is, span);
  }
  if (op == "in" || op == "not in") Error(span, "unsupported Python construct: '" + op + "'");
  if (a.IsNumber() && b.IsNumber()) {
    double x = a.kind == VK::kFloat ? a.f : static_cast<double>(a.i);
    double y = b.kind == VK::kFloat ? b.f : static_cast<double>(b.i);
    bool ints = a.kind != VK::kFloat && b.kind != VK::kFloat;
    bool r;
    if (ints) {
      int64_t p = a.i, q = b.i;
      r = op == "<"    ? p < q
          : op == "<=" ? p <= q
          : op == ">"  ? p > q
          : op == ">=" ? p >= q
          : op == "==" ? p == q
                       : p != q;
    } else {
      r = op == "<"    ? x < y
          : op == "<=" ? x <= y
          : op == ">"  ? x > y
          : op == ">=" ? x >= y
          : op == "==" ? x == y
                       : x != y;
    }
    return BoolValue(r, span);
  }
  if (a.kind == VK::kStr && b.kind == VK::kStr && (op == "==" || op == "!=")) {
    return BoolValue((a.str == b.str) == (op == "=="), span);
  }
  auto [x, y] = MatchOperands(a, b, span);
  try {
    PrimExpr r = op == "<"    ? x < y
                 : op == "<=" ? x <= y
                 : op == ">"  ? x > y
                 : op == ">=" ? x >= y
                 : op == "==" ? x == y
                              : x != y;
    return ExprValue(r, span);
  } catch (const minitvm::Error& e) {
    if (e.kind() == "ParseError") throw;
    Error(span, std::string("dtype mismatch: ") + e.what());
  }
}

// ---- evaluation -------------------------------------------------------------------------

PrimExpr Evaluator::EvalExpr(const Expr& e) { return AsExpr(Eval(e), e.span); }

Value Evaluator::Eval(const Expr& e) {
  using EK = Expr::Kind;
  switch (e.kind) {
    case EK::kName: {
      const Value* v = Lookup(e.id);
      auto g = globals_.find(e.id);
      bool global_or_none = !v || (g != globals_.end() && v == &g->second);
      if (global_or_none && !module_name_.empty() && e.id == module_name_) {
        // The class name inside an @I.ir_module class: its functions (`Module.f(...)`).
        Value m = Make(VK::kNamespace, e.span);
        m.str = "@module";
        return m;
      }
      if (!v) Error(e.span, "undefined variable \"" + e.id + "\"");
      Value r = *v;
      r.span = e.span;
      return r;
    }
    case EK::kConstant:
      switch (e.const_kind) {
        case Expr::ConstKind::kNone:
          return Make(VK::kNone, e.span);
        case Expr::ConstKind::kBool:
          return BoolValue(e.int_value != 0, e.span);
        case Expr::ConstKind::kInt:
          return IntValue(e.int_value, e.span);
        case Expr::ConstKind::kFloat:
          return FloatValue(e.float_value, e.span);
        case Expr::ConstKind::kStr:
          return StrValue(e.str_value, e.span);
        case Expr::ConstKind::kEllipsis:
          return Make(VK::kEllipsis, e.span);
      }
      break;
    case EK::kAttribute: {
      Value base = Eval(*e.children[0]);
      if (base.kind == VK::kNamespace) {
        std::string written = DottedName(e);
        Value r = Attribute(base, e.id, e.span);
        if (r.kind == VK::kNone) {
          std::string full = base.str + "." + e.id;
          Error(e.span, "unknown name \"" + (written.empty() ? full : written) + "\"" +
                            UnsupportedHint(full));
        }
        return r;
      }
      return Attribute(base, e.id, e.span);
    }
    case EK::kCall: {
      Value callee = Eval(*e.children[0]);
      CallArgs args;
      args.span = e.span;
      for (size_t i = 1; i < e.children.size(); ++i) {
        const Expr& a = *e.children[i];
        if (a.kind == EK::kStarred) {
          Value seq = Eval(*a.children[0]);
          if (seq.kind != VK::kTuple && seq.kind != VK::kList) {
            Error(a.span, "only a tuple or list can be unpacked with *, got " + seq.TypeName());
          }
          for (Value& item : seq.items) args.args.push_back(item);
        } else {
          args.args.push_back(Eval(a));
        }
      }
      for (const ast::Keyword& kw : e.keywords) args.kwargs.emplace_back(kw.name, Eval(*kw.value));
      if (callee.kind == VK::kDType) {
        args.func = callee.dtype.is_handle() ? std::string("T.handle")
                                             : "T." + runtime::DataTypeToString(callee.dtype);
        args.dtype = callee.dtype;
        return CallBuiltin(callee.dtype.is_handle() ? "<handle>" : "<dtype>", args);
      }
      if (callee.kind == VK::kObject && callee.object.as<runtime::PackedFuncObj>()) {
        // A Python function of the scope around the script (a closure variable), called at
        // parse time on the script's values, as TVM's parser does. The keywords travel as a
        // last dict argument (the Python side spreads them).
        std::vector<Any> packed;
        for (const Value& v : args.args) packed.push_back(ToAny(v, 0));
        Map<String, Any> kwargs;
        for (const auto& [k, v] : args.kwargs) kwargs.Set(String(k), ToAny(v, 0));
        packed.push_back(kwargs);
        Any rv;
        try {
          Downcast<runtime::PackedFunc>(callee.object)
              .CallPacked(runtime::PackedArgs(packed.data(), static_cast<int>(packed.size())), &rv);
        } catch (const minitvm::Error& err) {
          Error(e.span, std::string("the Python function raised: ") + err.what());
        }
        if (std::optional<Value> call = ScriptCallOf(rv, e.span)) return *call;
        std::optional<Value> out = ClosureValue(rv, 0);
        if (!out) Error(e.span, "the Python function returned " + rv.type_name());
        out->span = e.span;
        return *out;
      }
      if (callee.kind == VK::kObject && callee.object.as<GlobalVarNode>()) {
        if (!args.kwargs.empty()) Error(e.span, "a module function takes no keyword arguments");
        return CallModuleFunction(Downcast<GlobalVar>(callee.object), args.args, e.span);
      }
      if (callee.kind == VK::kBuiltin && callee.str == "tvm.tir.call_tir") {
        // tvm.tir.call_tir(Module.f, *args), as TVM's Python function.
        if (args.args.empty() || args.args[0].kind != VK::kObject ||
            !args.args[0].object.as<GlobalVarNode>()) {
          Error(e.span, "tir.call_tir expects a module function (Module.f) first");
        }
        std::vector<Value> rest(args.args.begin() + 1, args.args.end());
        return CallModuleFunction(Downcast<GlobalVar>(args.args[0].object), rest, e.span);
      }
      if (callee.kind != VK::kBuiltin) {
        Error(e.children[0]->span, callee.TypeName() + " is not callable");
      }
      if (callee.str.rfind("Buffer.", 0) == 0 && callee.buffer.defined()) {
        return CallBufferMethod(callee, args, e.span);
      }
      args.func = callee.str;
      return CallBuiltin(callee.str, args);
    }
    case EK::kSubscript: {
      Value base = Eval(*e.children[0]);
      return Subscript(base, *e.children[1], e.span);
    }
    case EK::kSlice: {
      Value s = Make(VK::kSlice, e.span);
      for (const ast::ExprPtr& part : e.children) {
        s.items.push_back(part ? Eval(*part) : Make(VK::kNone, e.span));
      }
      return s;
    }
    case EK::kTuple:
    case EK::kList: {
      Value v = Make(e.kind == EK::kTuple ? VK::kTuple : VK::kList, e.span);
      for (const ast::ExprPtr& c : e.children) {
        if (c->kind == EK::kStarred) {
          Value seq = Eval(*c->children[0]);
          if (seq.kind != VK::kTuple && seq.kind != VK::kList) {
            Error(c->span, "only a tuple or list can be unpacked with *");
          }
          for (Value& item : seq.items) v.items.push_back(item);
        } else {
          v.items.push_back(Eval(*c));
        }
      }
      return v;
    }
    case EK::kDict: {
      Value v = Make(VK::kDict, e.span);
      for (size_t i = 0; i < e.children.size(); ++i) {
        v.items.push_back(Eval(*e.children[i]));
        v.values.push_back(Eval(*e.values[i]));
      }
      return v;
    }
    case EK::kBinOp:
      return BinaryOp(e.id, Eval(*e.children[0]), Eval(*e.children[1]), e.span);
    case EK::kUnaryOp:
      return UnaryOp(e.id, Eval(*e.children[0]), e.span);
    case EK::kBoolOp: {
      bool is_and = e.id == "and";
      Value acc = Eval(*e.children[0]);
      for (size_t i = 1; i < e.children.size(); ++i) {
        if (acc.kind != VK::kExpr) {
          // Python semantics while the left side is a Python value: short-circuit.
          bool t = Truthy(acc, e.span);
          if (is_and ? !t : t) return acc;
          acc = Eval(*e.children[i]);
          continue;
        }
        Value next = Eval(*e.children[i]);
        PrimExpr b = next.kind == VK::kExpr ? next.expr : AsExpr(next, next.span);
        if (next.IsNumber()) b = IntImm(DataType::Bool(), Truthy(next, next.span));
        if (!acc.expr.dtype().is_bool() || !b.dtype().is_bool()) {
          Error(e.span, "dtype mismatch: '" + e.id + "' needs bool operands, got " +
                            runtime::DataTypeToString(acc.expr.dtype()) + " and " +
                            runtime::DataTypeToString(b.dtype()));
        }
        acc = ExprValue(is_and ? (acc.expr && b) : (acc.expr || b), e.span);
      }
      acc.span = e.span;
      return acc;
    }
    case EK::kCompare: {
      Value left = Eval(*e.children[0]);
      Value result;
      for (size_t i = 0; i < e.ops.size(); ++i) {
        Value right = Eval(*e.children[i + 1]);
        Value c = Compare(e.ops[i], left, right, e.span);
        if (i == 0) {
          result = c;
        } else {
          if (result.kind == VK::kExpr || c.kind == VK::kExpr) {
            result = ExprValue(AsExpr(result, e.span) && AsExpr(c, e.span), e.span);
          } else {
            result = BoolValue(Truthy(result, e.span) && Truthy(c, e.span), e.span);
          }
        }
        left = right;
      }
      return result;
    }
    case EK::kIfExp: {
      Value test = Eval(*e.children[0]);
      if (test.kind == VK::kExpr && !AsConstInt(test.expr)) {
        auto [t, f] = MatchOperands(Eval(*e.children[1]), Eval(*e.children[2]), e.span);
        try {
          return ExprValue(if_then_else(test.expr, t, f), e.span);
        } catch (const minitvm::Error& err) {
          Error(e.span, std::string("dtype mismatch: ") + err.what());
        }
      }
      return Truthy(test, e.span) ? Eval(*e.children[1]) : Eval(*e.children[2]);
    }
    case EK::kStarred:
      Error(e.span, "a starred expression is only allowed in a call or a tuple");
    case EK::kLambda: {
      Value v = Make(VK::kLambda, e.span);
      v.lambda = &e;
      return v;
    }
  }
  Error(e.span, "unsupported expression");
}

Value Evaluator::CallModuleFunction(const GlobalVar& gv, const std::vector<Value>& args,
                                    const Span& span) {
  std::string name = gv->name_hint.str();
  auto ret = module_ret_.find(name);
  DataType dtype = ret == module_ret_.end() ? DataType::Void() : ret->second;
  Array<PrimExpr> call_args = {StringImm(name)};
  for (const Value& v : args) {
    call_args.push_back(v.kind == VK::kStr ? PrimExpr(StringImm(v.str)) : AsExpr(v, v.span));
  }
  try {
    return ExprValue(Call(dtype, "tir.call_tir", call_args), span);
  } catch (const minitvm::Error& e) {
    if (e.kind() == "ParseError") throw;
    Error(span, e.what());
  }
}

Value Evaluator::Attribute(const Value& base, const std::string& attr, const Span& span) {
  if (base.kind == VK::kNamespace && base.str == "@module") {
    // `Module.f`: function f of the module being parsed.
    auto gv = module_gvs_.Get(String(attr));
    if (!gv) {
      Error(span, "cannot find the function \"" + attr + "\" in module " + module_name_);
    }
    Value v = Make(VK::kObject, span);
    v.object = *gv;
    return v;
  }
  if (base.kind == VK::kNamespace && base.str == "tvm.tir" && attr != "call_tir") {
    // tvm.tir.<f>: the builder of the same name in T.
    Value t = Make(VK::kNamespace, span);
    t.str = "T";
    return Attribute(t, attr, span);
  }
  if (base.kind == VK::kNamespace) {
    std::string path = base.str + "." + attr;
    static const std::unordered_map<std::string, std::string> namespaces = {
        {"tvm.script", "tvm.script"},
        {"tvm.script.tir", "T"},
        {"tvm.script.tirx", "T"},
        {"tvm.script.ir", "I"},
        {"tvm.script.parser", "tvm.script"},
        {"tvm.tir", "tvm.tir"},
        {"T.axis", "T.axis"}};
    auto ns = namespaces.find(path);
    if (ns == namespaces.end() && base.str == "tvm.script") {
      std::string ext = FindScriptNamespace(attr);
      if (!ext.empty()) {
        Value v = Make(VK::kNamespace, span);
        v.str = ext;
        return v;
      }
    }
    if (ns != namespaces.end()) {
      Value v = Make(VK::kNamespace, span);
      v.str = ns->second;
      return v;
    }
    static const std::unordered_map<std::string, std::string> renames = {
        {"tvm.script.ir_module", "I.ir_module"},
        {"tvm.script.prim_func", "T.prim_func"},
        // TVM 0.22 renamed the TensorIR block (`tirx`, `T.sblock`); same IR as T.block.
        {"T.sblock", "T.block"},
        {"T.sblock_alloc_buffer", "T.alloc_buffer"},
        {"T.sblock_attr", "T.block_attr"},
        // Lower-case spellings TVM's T namespace also has (v0.20).
        {"T.ramp", "T.Ramp"},
        {"T.broadcast", "T.Broadcast"},
        {"T.boolean", "T.bool"}};
    auto rn = renames.find(path);
    if (rn != renames.end()) path = rn->second;
    if (path == "T.bool") {
      Value v = Make(VK::kDType, span);
      v.dtype = DataType::Bool();
      return v;
    }
    if (base.str == "T" && attr != "Buffer") {
      // A dtype: T.float32, T.int64, T.bool, T.handle, T.float32x4, ...
      bool dtype_like = attr == "handle" || attr == "bool" || attr.rfind("int", 0) == 0 ||
                        attr.rfind("uint", 0) == 0 || attr.rfind("float", 0) == 0 ||
                        attr.rfind("bfloat", 0) == 0;
      if (dtype_like) {
        try {
          Value v = Make(VK::kDType, span);
          v.dtype = attr == "handle" ? DataType::Handle() : DataType(attr);
          return v;
        } catch (const minitvm::Error&) {
          // not a dtype after all: fall through to the unknown-name error
        }
      }
    }
    if (IsBuiltinName(path)) {
      Value v = Make(VK::kBuiltin, span);
      v.str = path;
      return v;
    }
    return Make(VK::kNone, span);  // the caller reports the unknown name
  }
  if (base.kind == VK::kBuffer) {
    const Buffer& b = base.buffer;
    if (attr == "data") return ExprValue(b->data, span);
    if (attr == "dtype") return StrValue(runtime::DataTypeToString(b->dtype), span);
    if (attr == "elem_offset") return ExprValue(b->elem_offset, span);
    if (attr == "name") return StrValue(b->name.str(), span);
    if (attr == "shape" || attr == "strides") {
      Value v = Make(VK::kTuple, span);
      for (const PrimExpr& d : attr == "shape" ? b->shape : b->strides) {
        v.items.push_back(ExprValue(d, span));
      }
      return v;
    }
    if (attr == "vload" || attr == "vstore" || attr == "access_ptr") {
      // A bound method: called below (CallBufferMethod).
      Value v = Make(VK::kBuiltin, span);
      v.str = "Buffer." + attr;
      v.buffer = b;
      return v;
    }
    Error(span, "Buffer has no attribute \"" + attr + "\"");
  }
  if (base.kind == VK::kIterVar && attr == "var") return ExprValue(base.iter_var->var, span);
  if (base.kind == VK::kExpr && attr == "dtype") {
    return StrValue(runtime::DataTypeToString(base.expr.dtype()), span);
  }
  Error(span, base.TypeName() + " has no attribute \"" + attr + "\"");
}

Value Evaluator::MakeCommReducer(CallArgs& a) {
  const Value* combiner = a.Get(0, "combiner");
  const Value* identity = a.Get(1, "identity");
  if (!combiner || !identity) Error(a.span, "T.comm_reducer expects (combiner, identity)");
  if (combiner->kind != VK::kLambda) {
    Error(combiner->span,
          "the combiner of T.comm_reducer must be a lambda, got " + combiner->TypeName());
  }
  std::vector<Value> ids;
  if (identity->kind == VK::kList || identity->kind == VK::kTuple) {
    ids = identity->items;
  } else {
    ids.push_back(*identity);
  }
  const Expr& lam = *combiner->lambda;
  size_t n = ids.size();
  if (n == 0 || lam.children.size() != 2 * n + 1) {
    Error(combiner->span, "the combiner of T.comm_reducer takes 2 parameters per identity value (" +
                              std::to_string(2 * n) + "), got " +
                              std::to_string(lam.children.size() - 1));
  }
  Array<PrimExpr> identity_element;
  for (const Value& v : ids) {
    // A Python number is an int32 / float32 constant, as TVM converts it.
    PrimExpr e = v.kind == VK::kFloat  ? ConstOf(v, DataType::Float(32), v.span)
                 : v.kind == VK::kBool ? ConstOf(v, DataType::Bool(), v.span)
                 : v.IsNumber()        ? ConstOf(v, DataType::Int(32), v.span)
                                       : AsExpr(v, v.span);
    identity_element.push_back(e);
  }
  Array<Var> lhs, rhs;
  PushScope();
  struct Pop {
    Evaluator* e;
    ~Pop() { e->PopScope(); }
  } pop{this};
  for (size_t i = 0; i < 2 * n; ++i) {
    const Expr& p = *lam.children[i];
    Var var(p.id, identity_element[i % n].dtype());
    (i < n ? lhs : rhs).push_back(var);
    Bind(p.id, ExprValue(var, p.span));
  }
  const Expr& body = *lam.children.back();
  Value r = Eval(body);
  std::vector<Value> results;
  if (r.kind == VK::kTuple || r.kind == VK::kList) {
    results = r.items;
  } else {
    results.push_back(r);
  }
  if (results.size() != n) {
    Error(body.span, "the combiner of T.comm_reducer must return " + std::to_string(n) +
                         " value(s), got " + std::to_string(results.size()));
  }
  Array<PrimExpr> result;
  for (size_t i = 0; i < n; ++i) {
    PrimExpr e = results[i].IsNumber() ? ConstOf(results[i], identity_element[i].dtype(), body.span)
                                       : AsExpr(results[i], body.span);
    result.push_back(e);
  }
  Value v = Make(VK::kObject, a.span);
  try {
    v.object = te::CommReducer(lhs, rhs, result, identity_element);
  } catch (const minitvm::Error& err) {
    if (err.kind() == "ParseError") throw;
    Error(a.span, err.what());
  }
  return v;
}

Array<PrimExpr> Evaluator::SliceIndices(const Buffer& b, const std::vector<Value>& items) {
  Array<PrimExpr> out;
  for (size_t d = 0; d < items.size(); ++d) {
    const Value& v = items[d];
    if (v.kind != VK::kSlice) {
      PrimExpr e = AsExpr(v, v.span);
      if (!(e.dtype().is_int() || e.dtype().is_uint())) {
        Error(v.span, "dtype mismatch: a buffer index must be an integer, got " +
                          runtime::DataTypeToString(e.dtype()));
      }
      out.push_back(e);
      continue;
    }
    DataType idx = b->shape[d].dtype();
    PrimExpr start = v.items[0].kind == VK::kNone ? make_zero(idx) : AsExpr(v.items[0], v.span);
    PrimExpr stop = v.items[1].kind == VK::kNone ? b->shape[d] : AsExpr(v.items[1], v.span);
    PrimExpr step = v.items.size() > 2 && v.items[2].kind != VK::kNone
                        ? AsExpr(v.items[2], v.span)
                        : make_const(start.dtype(), 1);
    if (step.dtype() != start.dtype()) step = cast(start.dtype(), step);
    if (stop.dtype() != start.dtype()) stop = cast(start.dtype(), stop);
    // The number of lanes, (stop - start + step - 1) // step, must be a constant.
    arith::Analyzer analyzer;
    PrimExpr lanes =
        analyzer.Simplify(floordiv(stop - start + step - make_const(step.dtype(), 1), step));
    auto n = AsConstInt(lanes);
    if (!n || *n < 1) {
      Error(v.span, "the slice of buffer " + b->name.str() +
                        " must have a constant positive number of elements, got " +
                        AsScript(lanes));
    }
    out.push_back(*n == 1 ? start : Ramp(start, step, *n));
  }
  return out;
}

Value Evaluator::Subscript(const Value& base, const Expr& index, const Span& span) {
  std::vector<Value> items;
  bool tuple_index = index.kind == Expr::Kind::kTuple;
  if (tuple_index) {
    for (const ast::ExprPtr& c : index.children) items.push_back(Eval(*c));
  } else {
    items.push_back(Eval(index));
  }
  if (base.kind == VK::kBuffer) {
    const Buffer& b = base.buffer;
    if (items.size() != b->shape.size()) {
      size_t n = items.size();
      Error(span, "buffer " + b->name.str() + " has " + std::to_string(b->shape.size()) +
                      (b->shape.size() == 1 ? " dimension" : " dimensions") +
                      " but is indexed with " + std::to_string(n) +
                      (n == 1 ? " index" : " indices"));
    }
    bool any_slice = false, any_step = false;
    for (const Value& v : items) {
      any_slice = any_slice || v.kind == VK::kSlice;
      any_step =
          any_step || (v.kind == VK::kSlice && v.items.size() > 2 && v.items[2].kind != VK::kNone);
    }
    if (any_step) {
      // As TVM: a slice with a step (even `A[i:i + 4:1]`) is a vector load of a T.Ramp.
      try {
        return ExprValue(BufferLoad(b, SliceIndices(b, items)), span);
      } catch (const minitvm::Error& e) {
        if (e.kind() == "ParseError") throw;
        Error(span, e.what());
      }
    }
    if (!any_slice) {
      Array<PrimExpr> indices;
      for (const Value& v : items) {
        PrimExpr e = AsExpr(v, v.span);
        if (!(e.dtype().is_int() || e.dtype().is_uint())) {
          Error(v.span, "dtype mismatch: a buffer index must be an integer, got " +
                            runtime::DataTypeToString(e.dtype()));
        }
        indices.push_back(e);
      }
      try {
        return ExprValue(BufferLoad(b, indices), span);
      } catch (const minitvm::Error& e) {
        Error(span, e.what());
      }
    }
    Array<Range> region;
    for (size_t d = 0; d < items.size(); ++d) {
      const Value& v = items[d];
      if (v.kind != VK::kSlice) {
        PrimExpr e = AsExpr(v, v.span);
        region.push_back(Range(e, make_const(e.dtype(), 1)));
        continue;
      }
      if (v.items.size() > 2 && v.items[2].kind != VK::kNone &&
          !(v.items[2].kind == VK::kInt && v.items[2].i == 1)) {
        Error(v.span, "a buffer region cannot have a step");
      }
      PrimExpr start = v.items[0].kind == VK::kNone ? make_zero(b->shape[d].dtype())
                                                    : AsExpr(v.items[0], v.span);
      PrimExpr stop = v.items[1].kind == VK::kNone ? b->shape[d] : AsExpr(v.items[1], v.span);
      try {
        PrimExpr extent = RangeExtent(start, stop);
        if (start.dtype() != extent.dtype()) start = cast(extent.dtype(), start);
        region.push_back(Range(start, extent));
      } catch (const minitvm::Error& e) {
        Error(v.span, std::string("dtype mismatch: ") + e.what());
      }
    }
    Value r = Make(VK::kRegion, span);
    r.region = BufferRegion(b, region);
    return r;
  }
  if (base.kind == VK::kBuiltin && base.str == "T.Buffer") {
    // The old annotation T.Buffer[(8,), "float32"] / T.Buffer[8, "float32"].
    CallArgs args;
    args.func = "T.Buffer";
    args.span = span;
    args.args = items;
    return CallBuiltin("T.Buffer", args);
  }
  if ((base.kind == VK::kTuple || base.kind == VK::kList) && items.size() == 1 && !tuple_index) {
    int64_t i = AsInt(items[0], items[0].span, "an index");
    int64_t n = static_cast<int64_t>(base.items.size());
    if (i < 0) i += n;
    if (i < 0 || i >= n) Error(span, "index out of range");
    return base.items[static_cast<size_t>(i)];
  }
  Error(span, base.TypeName() + " cannot be indexed");
}

// Buffer methods of TVMScript, as TVM's Python Buffer has them:
//   A.vload(begin, dtype=None, predicate=None)   a load of `dtype`'s lanes from `begin`
//   A.vstore(begin, value, predicate=None)       a store of value's lanes at `begin`
//   A.access_ptr(access_mask, ptr_type="handle", content_lanes=1, offset=0, extent=None)
// A vector access is a load/store whose last index is a Ramp of stride 1. minitvm's loads and
// stores have no predicate, so predicate= is refused by name.
Value Evaluator::CallBufferMethod(const Value& method, CallArgs& args, const Span& span) {
  const Buffer& b = method.buffer;
  const std::string name = method.str.substr(7);
  auto get = [&](size_t pos, const char* key) -> const Value* {
    for (const auto& [k, v] : args.kwargs) {
      if (k == key) return &v;
    }
    return pos < args.args.size() ? &args.args[pos] : nullptr;
  };
  std::vector<std::string> known;
  if (name == "vload") known = {"begin", "dtype", "predicate"};
  if (name == "vstore") known = {"begin", "value", "predicate"};
  if (name == "access_ptr") {
    known = {"access_mask", "ptr_type", "content_lanes", "offset", "extent"};
  }
  if (args.args.size() > known.size()) {
    Error(span, "Buffer." + name + " takes at most " + std::to_string(known.size()) +
                    " positional arguments, got " + std::to_string(args.args.size()));
  }
  for (const auto& [k, v] : args.kwargs) {
    if (std::find(known.begin(), known.end(), k) == known.end()) {
      Error(v.span, "Buffer." + name + " has no parameter \"" + k + "\"");
    }
  }
  auto is_none = [](const Value* v) { return v == nullptr || v->kind == VK::kNone; };
  if (name == "vload" || name == "vstore") {
    const Value* begin = get(0, "begin");
    if (is_none(begin)) Error(span, "Buffer." + name + " needs begin (the first indices)");
    if (!is_none(get(2, "predicate"))) {
      Error(get(2, "predicate")->span,
            "Buffer." + name + "(predicate=...): minitvm's loads and stores have no predicate");
    }
    Array<PrimExpr> indices;
    if (begin->kind == VK::kTuple || begin->kind == VK::kList) {
      for (const Value& v : begin->items) indices.push_back(AsExpr(v, v.span));
    } else {
      indices.push_back(AsExpr(*begin, begin->span));
    }
    if (indices.size() != b->shape.size()) {
      Error(begin->span, "Buffer." + name + ": " + b->name.str() + " has " +
                             std::to_string(b->shape.size()) + " dimensions but begin has " +
                             std::to_string(indices.size()) + " indices");
    }
    auto vectorize_last = [&](int lanes) {
      if (lanes > 1 && !indices.empty()) {
        PrimExpr last = indices[indices.size() - 1];
        indices.Set(indices.size() - 1, Ramp(last, make_const(last.dtype(), 1), lanes));
      }
    };
    if (name == "vload") {
      DataType t = b->dtype;
      if (!is_none(get(1, "dtype"))) t = AsDType(*get(1, "dtype"), get(1, "dtype")->span);
      if (t.code() != b->dtype.code() || t.bits() != b->dtype.bits() ||
          t.lanes() % b->dtype.lanes() != 0) {
        Error(span, "Buffer.vload: cannot load " + runtime::DataTypeToString(t) + " from " +
                        b->name.str() + " of dtype " + runtime::DataTypeToString(b->dtype));
      }
      vectorize_last(t.lanes() / b->dtype.lanes());
      return ExprValue(BufferLoad(b, indices), span);
    }
    const Value* value = get(1, "value");
    if (is_none(value)) Error(span, "Buffer.vstore needs value");
    PrimExpr v = AsExpr(*value, value->span);
    if (v.dtype().lanes() % b->dtype.lanes() != 0) {
      Error(value->span, "Buffer.vstore: a " + runtime::DataTypeToString(v.dtype()) +
                             " value does not fill whole elements of " + b->name.str());
    }
    vectorize_last(v.dtype().lanes() / b->dtype.lanes());
    if (v.dtype().code() != b->dtype.code() || v.dtype().bits() != b->dtype.bits()) {
      v = cast(b->dtype.with_lanes(v.dtype().lanes()), v);
    }
    Value out = Make(VK::kStmt, span);
    out.stmt = BufferStore(b, v, indices);
    return out;
  }
  // access_ptr
  const Value* mask_v = get(0, "access_mask");
  if (is_none(mask_v)) Error(span, "Buffer.access_ptr needs access_mask (\"r\", \"w\" or \"rw\")");
  int64_t mask = 0;
  if (mask_v->kind == VK::kStr) {
    for (char c : mask_v->str) {
      if (c == 'r') {
        mask |= 1;
      } else if (c == 'w') {
        mask |= 2;
      } else {
        Error(mask_v->span,
              "Buffer.access_ptr: access_mask is made of 'r' and 'w', not \"" + mask_v->str + "\"");
      }
    }
  } else {
    mask = AsInt(*mask_v, mask_v->span, "access_mask");
  }
  DataType ptr_type = DataType::Handle();
  if (!is_none(get(1, "ptr_type")))
    ptr_type = AsDType(*get(1, "ptr_type"), get(1, "ptr_type")->span);
  int64_t lanes =
      is_none(get(2, "content_lanes"))
          ? 1
          : AsInt(*get(2, "content_lanes"), get(2, "content_lanes")->span, "content_lanes");
  PrimExpr offset = is_none(get(3, "offset")) ? PrimExpr(make_const(b->elem_offset.dtype(), 0))
                                              : AsExpr(*get(3, "offset"), get(3, "offset")->span);
  PrimExpr extent;
  if (b->shape.empty()) {
    extent = make_const(b->elem_offset.dtype(), 1);
  } else if (b->strides.size() == b->shape.size()) {
    extent = b->strides[0] * b->shape[0] - offset;
  } else {
    PrimExpr size = b->shape[0];
    for (size_t i = 1; i < b->shape.size(); ++i) size = size * b->shape[i];
    extent = size - offset;
  }
  PrimExpr elem_offset = b->elem_offset + offset;
  DataType content = b->dtype;
  if (lanes > 1) {
    content = b->dtype.with_lanes(static_cast<int>(lanes));
    extent = floordiv(extent, make_const(extent.dtype(), lanes));
    elem_offset = floordiv(b->elem_offset, make_const(b->elem_offset.dtype(), lanes));
  }
  if (!is_none(get(4, "extent"))) extent = AsExpr(*get(4, "extent"), get(4, "extent")->span);
  arith::Analyzer analyzer;
  PrimExpr annotation = tir::Call(content, "tir.type_annotation", {});
  return ExprValue(tir::Call(ptr_type, "tir.tvm_access_ptr",
                             {annotation, b->data, analyzer.Simplify(elem_offset),
                              analyzer.Simplify(extent), make_const(DataType::Int(32), mask)}),
                   span);
}

}  // namespace tir_parser
}  // namespace script
}  // namespace minitvm

/*!
 * \file op_common.cc
 * \brief `MakeOpCall` and the helpers shared by the Relax operator files (stage 4): argument
 * and attribute access with errors naming the op, numpy broadcasting of symbolic shapes, and the
 * per-op attribute normalisers MakeOpCall runs.
 */
#include "op/op_common.h"

#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "minitvm/script/tir_printer.h"

namespace minitvm {
namespace relax {
namespace op_detail {

// ---- messages --------------------------------------------------------------------------------

std::string OpName(const Call& call) {
  if (auto* op = call->op.as<OpNode>()) return op->name.str();
  return "call";
}

std::string ArgName(const Call& call, int i) {
  if (auto* op = call->op.as<OpNode>()) {
    if (i < static_cast<int>(op->arguments.size())) return op->arguments[i].name;
  }
  return "argument " + std::to_string(i);
}

std::string DimStr(const PrimExpr& dim) {
  if (auto c = AsConstInt(dim)) return std::to_string(*c);
  if (auto* v = dim.as<tir::VarNode>()) return v->name_hint.str();
  try {
    return script::AsScript(dim);
  } catch (const std::exception&) {
    return "?";
  }
}

std::string ShapeStr(const Array<PrimExpr>& shape) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << DimStr(shape[i]);
  os << (shape.size() == 1 ? ",)" : ")");
  return os.str();
}

std::string TensorShapeStr(const TensorStructInfoNode* t) {
  if (auto s = t->GetShape()) return ShapeStr(*s);
  if (t->IsUnknownNdim()) return "(unknown shape)";
  return "(rank " + std::to_string(t->ndim) + ")";
}

// ---- arguments -------------------------------------------------------------------------------

StructInfo ArgInfo(const Call& call, int i) {
  if (i >= static_cast<int>(call->args.size())) {
    MINITVM_THROW(ValueError) << OpName(call) << ": missing argument " << ArgName(call, i);
  }
  Expr arg = call->args[i];
  if (!arg.defined() || !arg->struct_info_.defined()) {
    MINITVM_THROW(InternalError) << OpName(call) << ": argument " << ArgName(call, i)
                                 << " has no struct info (normalise the arguments first)";
  }
  return GetStructInfo(arg);
}

const TensorStructInfoNode* TensorArg(const Call& call, int i) {
  StructInfo info = ArgInfo(call, i);
  auto* t = info.as<TensorStructInfoNode>();
  if (!t) {
    MINITVM_THROW(TypeError) << OpName(call) << ": argument " << ArgName(call, i)
                             << " must be a tensor, but got " << StructInfoToString(info);
  }
  return t;
}

namespace {

/*! \brief A tensor's device when it names one with a target, else undefined. */
VDevice StatedVDevice(const StructInfo& info) {
  auto* t = info.as<TensorStructInfoNode>();
  if (!t || !t->vdevice.defined() || !t->vdevice->target.defined()) return VDevice();
  return t->vdevice;
}

/*! \brief `info` with every tensor that names no device placed on `vdev`. */
StructInfo PlaceOn(const StructInfo& info, const VDevice& vdev) {
  if (auto* t = info.as<TensorStructInfoNode>()) {
    if (t->vdevice.defined()) return info;
    if (t->shape.defined()) return TensorStructInfo(t->shape, t->dtype, vdev);
    return TensorStructInfo(t->dtype, t->ndim, vdev);
  }
  if (auto* tup = info.as<TupleStructInfoNode>()) {
    Array<StructInfo> fields;
    bool same = true;
    for (const StructInfo& f : tup->fields) {
      fields.push_back(PlaceOn(f, vdev));
      same = same && fields.back().same_as(f);
    }
    return same ? info : StructInfo(TupleStructInfo(fields));
  }
  return info;
}

}  // namespace

StructInfo WithArgVDevice(const Call& call, StructInfo result) {
  VDevice vdev;
  int vdev_arg = -1;
  auto note = [&](const StructInfo& info, int i) {
    VDevice v = StatedVDevice(info);
    if (!v.defined()) return;
    if (!vdev.defined()) {
      vdev = v;
      vdev_arg = i;
    } else if (!VDeviceEqual(vdev, v)) {
      MINITVM_THROW(ValueError) << OpName(call) << ": the arguments must be on the same virtual "
                                << "device, but " << ArgName(call, vdev_arg) << " is on "
                                << VDeviceToString(vdev) << " and " << ArgName(call, i) << " on "
                                << VDeviceToString(v);
    }
  };
  for (size_t i = 0; i < call->args.size(); ++i) {
    const Expr& arg = call->args[i];
    if (!arg.defined() || !arg->struct_info_.defined()) continue;
    StructInfo info = GetStructInfo(arg);
    note(info, static_cast<int>(i));
    if (auto* tup = info.as<TupleStructInfoNode>()) {
      for (const StructInfo& f : tup->fields) note(f, static_cast<int>(i));
    }
  }
  if (!vdev.defined() || !result.defined()) return result;
  return PlaceOn(result, vdev);
}

void CheckNumArgs(const Call& call, size_t lo, size_t hi) {
  size_t n = call->args.size();
  if (n < lo || n > hi) {
    std::ostringstream os;
    os << OpName(call) << ": expects ";
    if (lo == hi) {
      os << lo;
    } else {
      os << lo << " to " << hi;
    }
    os << " arguments, but got " << n;
    MINITVM_THROW(ValueError) << os.str();
  }
}

std::optional<Array<PrimExpr>> ShapeArgValues(const Call& call, int i, int64_t* ndim) {
  Expr arg = call->args[i];
  if (auto* s = arg.as<ShapeExprNode>()) {
    *ndim = static_cast<int64_t>(s->values.size());
    return s->values;
  }
  StructInfo info = ArgInfo(call, i);
  auto* s = info.as<ShapeStructInfoNode>();
  if (!s) {
    MINITVM_THROW(TypeError) << OpName(call) << ": argument " << ArgName(call, i)
                             << " must be a shape (R.shape([...])), but got "
                             << StructInfoToString(info);
  }
  *ndim = s->ndim;
  if (s->values.defined()) return s->values;
  return std::nullopt;
}

// ---- attributes ------------------------------------------------------------------------------

Any AttrOf(const Call& call, const std::string& key) {
  auto v = call->attrs.defined() ? call->attrs.Get(key) : std::nullopt;
  if (v) return *v;
  // An attribute missing from a hand-built call reads as its declared default.
  if (auto* op = call->op.as<OpNode>()) {
    Any defaults = GetRef<Op>(op).GetAttr(kTAttrDefaults);
    if (!defaults.is_null()) {
      auto d = defaults.cast<Map<String, Any>>().Get(key);
      if (d) return *d;
    }
  }
  MINITVM_THROW(ValueError) << OpName(call) << ": the call has no attribute \"" << key << "\"";
}

int64_t IntAttr(const Call& call, const std::string& key) {
  Any v = AttrOf(call, key);
  if (!v.is_int() && !v.is_bool()) {
    if (auto* imm = v.as<IntImmNode>()) return imm->value;
    MINITVM_THROW(TypeError) << OpName(call) << ": attribute " << key << " must be an int, but got "
                             << v.type_name();
  }
  return v.raw_int();
}

std::optional<int64_t> OptIntAttr(const Call& call, const std::string& key) {
  if (AttrOf(call, key).is_null()) return std::nullopt;
  return IntAttr(call, key);
}

bool BoolAttr(const Call& call, const std::string& key) {
  Any v = AttrOf(call, key);
  if (!v.is_bool() && !v.is_int()) {
    MINITVM_THROW(TypeError) << OpName(call) << ": attribute " << key << " must be a bool, but got "
                             << v.type_name();
  }
  return v.raw_int() != 0;
}

double FloatAttr(const Call& call, const std::string& key) {
  Any v = AttrOf(call, key);
  if (v.is_float()) return v.raw_float();
  if (v.is_int()) return static_cast<double>(v.raw_int());
  if (auto* f = v.as<FloatImmNode>()) return f->value;
  MINITVM_THROW(TypeError) << OpName(call) << ": attribute " << key << " must be a float, but got "
                           << v.type_name();
}

std::optional<std::string> OptStrAttr(const Call& call, const std::string& key) {
  Any v = AttrOf(call, key);
  if (v.is_null()) return std::nullopt;
  if (!v.is_string()) {
    MINITVM_THROW(TypeError) << OpName(call) << ": attribute " << key
                             << " must be a string, but got " << v.type_name();
  }
  return v.cast<std::string>();
}

std::string StrAttr(const Call& call, const std::string& key) {
  auto s = OptStrAttr(call, key);
  if (!s) MINITVM_THROW(ValueError) << OpName(call) << ": attribute " << key << " is required";
  return *s;
}

static int64_t ElemToInt(const Call& call, const std::string& key, const Any& e) {
  if (e.is_int()) return e.raw_int();
  if (auto* imm = e.as<IntImmNode>()) return imm->value;
  MINITVM_THROW(TypeError) << OpName(call) << ": attribute " << key
                           << " must hold ints, but holds a " << e.type_name();
}

std::optional<std::vector<int64_t>> OptIntListAttr(const Call& call, const std::string& key) {
  Any v = AttrOf(call, key);
  if (v.is_null()) return std::nullopt;
  std::vector<int64_t> out;
  if (auto* arr = v.as<ArrayNode>()) {
    for (const Any& e : arr->data) out.push_back(ElemToInt(call, key, e));
  } else {
    out.push_back(ElemToInt(call, key, v));
  }
  return out;
}

std::vector<int64_t> IntListAttr(const Call& call, const std::string& key) {
  auto v = OptIntListAttr(call, key);
  if (!v) MINITVM_THROW(ValueError) << OpName(call) << ": attribute " << key << " is required";
  return *v;
}

DataType DTypeAttr(const Call& call, const std::string& key) {
  Any v = AttrOf(call, key);
  if (v.is_null()) return DataType::Void();
  if (v.tag() == Any::kDataType) return v.raw_dtype();
  if (!v.is_string()) {
    MINITVM_THROW(TypeError) << OpName(call) << ": attribute " << key
                             << " must be a dtype string, but got " << v.type_name();
  }
  std::string s = v.cast<std::string>();
  if (s.empty() || s == "void") return DataType::Void();
  return DataType(s);
}

// ---- shapes ----------------------------------------------------------------------------------

PrimExpr NormDim(const PrimExpr& d) {
  PrimExpr e = d.dtype() == DataType::Int(64) ? d : tir::cast(DataType::Int(64), d);
  if (auto c = AsConstInt(e)) return Int64(*c);
  arith::Analyzer analyzer;
  return analyzer.Simplify(e);
}

int64_t NormalizeAxis(const Call& call, int64_t axis, int64_t ndim, const std::string& what) {
  if (axis < -ndim || axis >= ndim) {
    MINITVM_THROW(ValueError) << OpName(call) << ": " << what << " " << axis
                              << " is out of range for a tensor of rank " << ndim << " (expected ["
                              << -ndim << ", " << ndim << "))";
  }
  return axis < 0 ? axis + ndim : axis;
}

std::vector<int64_t> NormalizeAxes(const Call& call, const std::vector<int64_t>& axes, int64_t ndim,
                                   const std::string& what) {
  std::vector<int64_t> out;
  std::set<int64_t> seen;
  for (int64_t a : axes) {
    int64_t n = NormalizeAxis(call, a, ndim, what);
    if (!seen.insert(n).second) {
      MINITVM_THROW(ValueError) << OpName(call) << ": " << what << " " << n
                                << " appears more than once";
    }
    out.push_back(n);
  }
  return out;
}

bool ProveEqual(const PrimExpr& a, const PrimExpr& b) {
  if (a.same_as(b)) return true;
  auto x = AsConstInt(a), y = AsConstInt(b);
  if (x && y) return *x == *y;
  arith::Analyzer analyzer;
  return analyzer.CanProveEqual(NormDim(a), NormDim(b));
}

bool ProveNotEqual(const PrimExpr& a, const PrimExpr& b) {
  auto x = AsConstInt(a), y = AsConstInt(b);
  if (x && y) return *x != *y;
  arith::Analyzer analyzer;
  return analyzer.CanProve(NormDim(a) != NormDim(b));
}

std::optional<Array<PrimExpr>> BroadcastShapes(const Call& call, const Array<PrimExpr>& a,
                                               const std::string& a_name, const Array<PrimExpr>& b,
                                               const std::string& b_name) {
  size_t na = a.size(), nb = b.size(), n = std::max(na, nb);
  std::vector<PrimExpr> out(n);
  bool known = true;
  for (size_t k = 0; k < n; ++k) {
    size_t o = n - 1 - k;  // output dimension, counted from the left
    if (k >= na) {
      out[o] = b[nb - 1 - k];
      continue;
    }
    if (k >= nb) {
      out[o] = a[na - 1 - k];
      continue;
    }
    PrimExpr da = a[na - 1 - k], db = b[nb - 1 - k];
    auto ca = AsConstInt(da), cb = AsConstInt(db);
    if (ca && *ca == 1) {
      out[o] = db;
    } else if (cb && *cb == 1) {
      out[o] = da;
    } else if (ProveEqual(da, db)) {
      out[o] = da;
    } else if (ca && cb) {
      MINITVM_THROW(ValueError) << OpName(call) << ": the shapes of " << a_name << " "
                                << ShapeStr(a) << " and " << b_name << " " << ShapeStr(b)
                                << " cannot broadcast at dimension " << o << " (" << *ca << " vs "
                                << *cb << ")";
    } else {
      known = false;  // n vs 4, n vs m: decided at run time
    }
  }
  if (!known) return std::nullopt;
  return Array<PrimExpr>(out);
}

Expr ShapeOperand(const Any& v, const std::string& op, const std::string& what) {
  if (auto* e = v.as<ExprNode>()) {
    if (!e->IsInstance<PrimExprNode>()) return GetRef<Expr>(e);
  }
  auto* arr = v.as<ArrayNode>();
  if (!arr) {
    MINITVM_THROW(TypeError) << op << ": " << what << " must be a shape (a list of dimensions "
                             << "or a ShapeExpr), but got " << v.type_name();
  }
  Array<PrimExpr> dims;
  for (const Any& e : arr->data) {
    if (e.is_int()) {
      dims.push_back(Int64(e.raw_int()));
    } else if (auto* p = e.as<PrimExprNode>()) {
      if (!p->dtype.is_int() && !p->dtype.is_uint()) {
        MINITVM_THROW(TypeError) << op << ": " << what << " must hold integer dimensions, but "
                                 << "holds one of dtype " << p->dtype;
      }
      dims.push_back(NormDim(GetRef<PrimExpr>(p)));
    } else {
      MINITVM_THROW(TypeError) << op << ": " << what << " must hold integer dimensions, but "
                               << "holds a " << e.type_name();
    }
  }
  return ShapeExpr(dims);
}

StructInfo TensorFromShape(const Array<PrimExpr>& shape, DataType dtype) {
  std::vector<PrimExpr> dims;
  for (const PrimExpr& d : shape) dims.push_back(NormDim(d));
  return TensorStructInfo(ShapeExpr(Array<PrimExpr>(dims)), dtype);
}

StructInfo TensorOfUnknownShapeArg(const Call& call, int i, DataType dtype, int64_t ndim) {
  if (call->args[i]->IsInstance<VarNode>()) return TensorStructInfo(call->args[i], dtype);
  return TensorStructInfo(dtype, ndim);
}

StructInfo TensorOfShapeArg(const Call& call, int i, DataType dtype) {
  int64_t ndim = kUnknownNDim;
  auto values = ShapeArgValues(call, i, &ndim);
  if (values) return TensorFromShape(*values, dtype);
  return TensorOfUnknownShapeArg(call, i, dtype, ndim);
}

PrimExpr ShapeProduct(const Array<PrimExpr>& shape) {
  PrimExpr p = Int64(1);
  for (const PrimExpr& d : shape) p = p * NormDim(d);
  return NormDim(p);
}

DataType UnifyDType(const Call& call, DataType a, const std::string& a_name, DataType b,
                    const std::string& b_name) {
  if (a.is_void()) return b.is_void() ? a : DataType::Void();
  if (b.is_void()) return DataType::Void();
  if (a != b) {
    MINITVM_THROW(TypeError) << OpName(call) << ": the dtypes of " << a_name << " (" << a
                             << ") and " << b_name << " (" << b << ") must be equal";
  }
  return a;
}

void RequireFloat(const Call& call, int i, DataType dtype) {
  if (!dtype.is_void() && !dtype.is_float() && !dtype.is_bfloat16()) {
    MINITVM_THROW(TypeError) << OpName(call) << ": argument " << ArgName(call, i)
                             << " must have a float dtype, but has " << dtype;
  }
}

// ---- registration ----------------------------------------------------------------------------

namespace {
struct NormalizerTable {
  std::mutex mu;
  std::map<std::string, FNormalizeAttrs> table;
  static NormalizerTable* Global() {
    static NormalizerTable* t = new NormalizerTable();
    return t;
  }
};
}  // namespace

bool RegisterAttrNormalizer(const std::string& op_name, FNormalizeAttrs f) {
  auto* t = NormalizerTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  t->table[op_name] = std::move(f);
  return true;
}

static FNormalizeAttrs FindNormalizer(const std::string& op_name) {
  auto* t = NormalizerTable::Global();
  std::lock_guard<std::mutex> lock(t->mu);
  auto it = t->table.find(op_name);
  return it == t->table.end() ? FNormalizeAttrs() : it->second;
}

Array<Any> IntList(const std::vector<int64_t>& v) {
  Array<Any> out;
  for (int64_t x : v) out.push_back(Any(x));
  return out;
}

Any ExpandIntList(const Any& v, size_t n, const std::string& op, const std::string& key,
                  const std::vector<size_t>& allowed) {
  if (v.is_null()) return v;
  std::vector<int64_t> vals;
  auto to_int = [&](const Any& e) -> int64_t {
    if (e.is_int()) return e.raw_int();
    if (auto* imm = e.as<IntImmNode>()) return imm->value;
    MINITVM_THROW(TypeError) << op << ": " << key << " must be an int or a list of ints, but got "
                             << e.type_name();
  };
  if (auto* arr = v.as<ArrayNode>()) {
    for (const Any& e : arr->data) vals.push_back(to_int(e));
  } else {
    vals.push_back(to_int(v));
  }
  if (vals.size() == n) return IntList(vals);
  bool ok = false;
  for (size_t a : allowed) ok = ok || vals.size() == a;
  if (!ok) {
    std::ostringstream os;
    for (size_t i = 0; i < allowed.size(); ++i) os << (i ? ", " : "") << allowed[i];
    os << (allowed.empty() ? "" : " or ") << n;
    MINITVM_THROW(ValueError) << op << ": " << key << " takes " << os.str() << " values, but got "
                              << vals.size();
  }
  std::vector<int64_t> out;
  if (vals.size() == 1) {
    out.assign(n, vals[0]);
  } else if (n == 4 && vals.size() == 2) {
    out = {vals[0], vals[1], vals[0], vals[1]};  // (h, w) padding → (top, left, bottom, right)
  } else {
    MINITVM_THROW(ValueError) << op << ": " << key << " takes " << n << " values, but got "
                              << vals.size();
  }
  return IntList(out);
}

/*! \brief Plain attribute values: IntImm → int64, DataType → String, inside lists too. */
static Any NormalizeValue(const Any& v) {
  if (v.tag() == Any::kDataType) {
    std::ostringstream os;
    os << v.raw_dtype();
    return String(os.str());
  }
  if (auto* imm = v.as<IntImmNode>()) {
    if (imm->dtype.is_bool()) return Any(imm->value != 0);
    return Any(imm->value);
  }
  if (auto* f = v.as<FloatImmNode>()) return Any(f->value);
  if (auto* arr = v.as<ArrayNode>()) {
    bool change = false;
    for (const Any& e : arr->data) {
      change = change || e.tag() == Any::kDataType || e.as<IntImmNode>() || e.as<FloatImmNode>();
    }
    if (!change) return v;
    Array<Any> out;
    for (const Any& e : arr->data) out.push_back(NormalizeValue(e));
    return out;
  }
  return v;
}

}  // namespace op_detail

using namespace op_detail;  // NOLINT(*)

Call MakeOpCall(const std::string& name, Array<Expr> args, Map<String, Any> attrs,
                Array<StructInfo> sinfo_args) {
  Op op = Op::Get(name);
  if (op->num_inputs >= 0 && static_cast<int64_t>(args.size()) != op->num_inputs) {
    std::ostringstream os;
    for (size_t i = 0; i < op->arguments.size(); ++i) {
      os << (i ? ", " : "") << op->arguments[i].name;
    }
    MINITVM_THROW(ValueError) << name << " takes " << op->num_inputs << " argument"
                              << (op->num_inputs == 1 ? "" : "s") << " (" << os.str()
                              << "), but got " << args.size();
  }
  Map<String, Any> defaults;
  Any d = op.GetAttr(kTAttrDefaults);
  if (!d.is_null()) defaults = d.cast<Map<String, Any>>();
  if (attrs.defined()) {
    for (const auto& kv : attrs.items()) {
      if (!defaults.count(kv.first)) {
        std::ostringstream known;
        size_t i = 0;
        for (const auto& dk : defaults.items()) known << (i++ ? ", " : "") << dk.first.str();
        MINITVM_THROW(ValueError) << name << " has no attribute \"" << kv.first.str() << "\" ("
                                  << (defaults.empty() ? "it takes no attributes"
                                                       : "its attributes are " + known.str())
                                  << ")";
      }
    }
  }
  Map<String, Any> out;
  for (const auto& kv : defaults.items()) {
    std::optional<Any> given = attrs.defined() ? attrs.Get(kv.first) : std::nullopt;
    out.Set(kv.first, NormalizeValue(given ? *given : kv.second));
  }
  if (FNormalizeAttrs f = FindNormalizer(name)) out = f(args, out);
  return Call(op, args, out, sinfo_args.defined() ? sinfo_args : Array<StructInfo>());
}

MINITVM_REGISTER_GLOBAL("relax.MakeOpCall")
    .set_body_typed([](std::string name, Array<Expr> args, Map<String, Any> attrs,
                       Array<StructInfo> sinfo_args) {
      return MakeOpCall(name, args, attrs, sinfo_args);
    });

}  // namespace relax
}  // namespace minitvm

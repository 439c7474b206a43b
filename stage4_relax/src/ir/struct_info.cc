/*!
 * \file struct_info.cc
 * \brief StructInfo (stage 4): the constructors, the precision order (`IsBaseOf`,
 * `MayBeBaseOf`), the least common ancestor of two struct infos, their TVMScript text, and the
 * symbolic shape variables they use or define.
 *
 * Symbolic dimensions are compared with the stage-2 arithmetic analyzer, so `n + 1` and `1 + n`
 * are the same dimension; what the analyzer cannot prove equal is treated as different by the
 * exact queries and as "possibly equal" by `MayBeBaseOf`.
 */
#include "minitvm/relax/struct_info.h"

#include <regex>
#include <sstream>
#include <unordered_set>

#include "minitvm/arith/analyzer.h"
#include "minitvm/ir/structural.h"
#include "minitvm/relax/expr.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/expr_functor.h"
#include "minitvm/tir/op.h"

namespace minitvm {
namespace relax {

namespace {
/*! \brief An undefined (null) array, distinct from an empty one: "not known". */
template <typename T>
Array<T> NullArray() {
  return Array<T>(ObjectPtr<Object>(nullptr));
}
}  // namespace

// ---- constructors -------------------------------------------------------------------------------

ObjectStructInfo::ObjectStructInfo() : StructInfo(make_object<ObjectStructInfoNode>()) {}

PrimStructInfo::PrimStructInfo(DataType dtype) {
  if (!dtype.is_void() && !dtype.is_scalar()) {
    MINITVM_THROW(ValueError) << "PrimStructInfo: dtype " << dtype << " is not a scalar type";
  }
  auto n = make_object<PrimStructInfoNode>();
  n->dtype = dtype;
  data_ = std::move(n);
}

PrimStructInfo::PrimStructInfo(PrimExpr value) {
  if (!value.defined()) MINITVM_THROW(ValueError) << "PrimStructInfo: the value is undefined";
  auto n = make_object<PrimStructInfoNode>();
  n->dtype = value.dtype();
  n->value = std::move(value);
  data_ = std::move(n);
}

ShapeStructInfo::ShapeStructInfo(Array<PrimExpr> values) {
  if (!values.defined()) MINITVM_THROW(ValueError) << "ShapeStructInfo: the values are undefined";
  auto n = make_object<ShapeStructInfoNode>();
  Array<PrimExpr> dims;
  for (size_t i = 0; i < values.size(); ++i) {
    PrimExpr v = values[i];
    if (!v.defined() || !(v.dtype().is_int() || v.dtype().is_uint()) || !v.dtype().is_scalar()) {
      MINITVM_THROW(TypeError) << "ShapeStructInfo: dimension " << i
                               << " must be an integer expression, got "
                               << (v.defined() ? runtime::Repr(v) : std::string("None"));
    }
    // Dimensions are int64, as in TVM (a literal 4 arrives as an int32 IntImm).
    if (auto c = AsConstInt(v); c && v.dtype() != DataType::Int(64))
      v = IntImm(DataType::Int(64), *c);
    dims.push_back(v);
  }
  n->ndim = static_cast<int64_t>(dims.size());
  n->values = dims;
  data_ = std::move(n);
}

ShapeStructInfo::ShapeStructInfo(int64_t ndim) {
  if (ndim < kUnknownNDim) {
    MINITVM_THROW(ValueError) << "ShapeStructInfo: ndim must be >= -1 (-1: unknown), got " << ndim;
  }
  auto n = make_object<ShapeStructInfoNode>();
  n->ndim = ndim;
  n->values = NullArray<PrimExpr>();
  data_ = std::move(n);
}

TensorStructInfo::TensorStructInfo(Expr shape, DataType dtype, VDevice vdevice) {
  if (!shape.defined()) MINITVM_THROW(ValueError) << "TensorStructInfo: the shape is undefined";
  auto n = make_object<TensorStructInfoNode>();
  if (auto* s = shape.as<ShapeExprNode>()) {
    n->ndim = static_cast<int64_t>(s->values.size());
    // A tensor's constant dimensions are sizes: none negative, and their product (the number
    // of elements) must fit in int64.
    int64_t count = 1;
    bool overflow = false, zero = false;
    for (size_t i = 0; i < s->values.size(); ++i) {
      auto c = AsConstInt(s->values[i]);
      if (!c) continue;
      if (*c < 0) {
        MINITVM_THROW(ValueError) << "TensorStructInfo: dimension " << i << " of the shape "
                                  << runtime::Repr(shape) << " is negative (" << *c << ")";
      }
      zero = zero || *c == 0;
      overflow = overflow || __builtin_mul_overflow(count, *c, &count);
    }
    if (overflow && !zero) {
      MINITVM_THROW(ValueError) << "TensorStructInfo: the shape " << runtime::Repr(shape)
                                << " has more elements than int64 can count";
    }
  } else if (shape.as<VarNode>()) {
    auto* sinfo = GetStructInfoAs<ShapeStructInfoNode>(shape);
    if (!sinfo) {
      MINITVM_THROW(TypeError) << "TensorStructInfo: the shape variable "
                               << shape.as<VarNode>()->name_hint << " must have R.Shape struct info"
                               << (shape->struct_info_.defined()
                                       ? ", got " + StructInfoToString(
                                                        Downcast<StructInfo>(shape->struct_info_))
                                       : std::string(", it has none"));
    }
    n->ndim = sinfo->ndim;
  } else {
    MINITVM_THROW(TypeError)
        << "TensorStructInfo: the shape must be a ShapeExpr or a variable, got "
        << shape->GetTypeKey();
  }
  if (!dtype.is_void() && !dtype.is_scalar()) {
    MINITVM_THROW(ValueError) << "TensorStructInfo: dtype " << dtype << " is not a scalar type";
  }
  n->shape = std::move(shape);
  n->dtype = dtype;
  n->vdevice = std::move(vdevice);
  data_ = std::move(n);
}

TensorStructInfo::TensorStructInfo(DataType dtype, int64_t ndim, VDevice vdevice) {
  if (ndim < kUnknownNDim) {
    MINITVM_THROW(ValueError) << "TensorStructInfo: ndim must be >= -1 (-1: unknown), got " << ndim;
  }
  if (!dtype.is_void() && !dtype.is_scalar()) {
    MINITVM_THROW(ValueError) << "TensorStructInfo: dtype " << dtype << " is not a scalar type";
  }
  auto n = make_object<TensorStructInfoNode>();
  n->dtype = dtype;
  n->ndim = ndim;
  n->vdevice = std::move(vdevice);
  data_ = std::move(n);
}

std::optional<Array<PrimExpr>> TensorStructInfoNode::GetShape() const {
  if (!shape.defined()) return std::nullopt;
  if (auto* s = shape.as<ShapeExprNode>()) return s->values;
  if (auto* sinfo = GetStructInfoAs<ShapeStructInfoNode>(shape)) {
    if (sinfo->values.defined()) return sinfo->values;
  }
  return std::nullopt;
}

TupleStructInfo::TupleStructInfo(Array<StructInfo> fields) {
  if (!fields.defined()) fields = Array<StructInfo>();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!fields[i].defined()) {
      MINITVM_THROW(ValueError) << "TupleStructInfo: field " << i << " is undefined";
    }
  }
  auto n = make_object<TupleStructInfoNode>();
  n->fields = std::move(fields);
  data_ = std::move(n);
}

FuncStructInfo::FuncStructInfo(Array<StructInfo> params, StructInfo ret, bool purity) {
  if (!params.defined()) params = Array<StructInfo>();
  for (size_t i = 0; i < params.size(); ++i) {
    if (!params[i].defined()) {
      MINITVM_THROW(ValueError) << "FuncStructInfo: parameter " << i << " is undefined";
    }
  }
  if (!ret.defined()) MINITVM_THROW(ValueError) << "FuncStructInfo: the result is undefined";
  auto n = make_object<FuncStructInfoNode>();
  n->params = std::move(params);
  n->ret = std::move(ret);
  n->purity = purity;
  data_ = std::move(n);
}

FuncStructInfo FuncStructInfo::OpaqueFunc(StructInfo ret, bool purity) {
  if (!ret.defined()) ret = ObjectStructInfo();
  auto n = make_object<FuncStructInfoNode>();
  n->params = NullArray<StructInfo>();
  n->ret = std::move(ret);
  n->purity = purity;
  return FuncStructInfo(ObjectPtr<Object>(std::move(n)));
}

// ---- get / set ----------------------------------------------------------------------------------

StructInfo GetStructInfo(const Expr& expr) {
  if (!expr.defined()) MINITVM_THROW(InternalError) << "GetStructInfo: undefined expression";
  if (!expr->struct_info_.defined()) {
    std::string what = expr->GetTypeKey();
    if (auto* v = expr.as<VarNode>()) what += " " + v->name_hint.str();
    MINITVM_THROW(InternalError) << "GetStructInfo: the " << what
                                 << " has no struct info (it was not normalised)";
  }
  return Downcast<StructInfo>(expr->struct_info_);
}

void UpdateStructInfo(const Expr& expr, const StructInfo& info) {
  if (!expr.defined()) MINITVM_THROW(InternalError) << "UpdateStructInfo: undefined expression";
  if (!info.defined()) MINITVM_THROW(InternalError) << "UpdateStructInfo: undefined struct info";
  expr->struct_info_ = info;
}

// ---- comparisons --------------------------------------------------------------------------------

namespace {

/*! \brief Provably equal dimensions / values (undefined equals only undefined). */
bool ProveEqual(const PrimExpr& a, const PrimExpr& b) {
  if (a.same_as(b)) return true;
  if (!a.defined() || !b.defined()) return false;
  auto ca = AsConstInt(a), cb = AsConstInt(b);
  if (ca && cb) return *ca == *cb;
  if (a.dtype() != b.dtype()) return false;
  if (ExprDeepEqual(a, b)) return true;
  if (!(a.dtype().is_int() || a.dtype().is_uint())) return false;
  try {
    arith::Analyzer analyzer;
    return analyzer.CanProveEqual(a, b);
  } catch (const Error&) {
    return false;
  }
}

/*! \brief Whether two values could be equal at run time (false only when provably not). */
bool MayBeEqual(const PrimExpr& a, const PrimExpr& b) {
  if (!a.defined() || !b.defined()) return true;
  auto ca = AsConstInt(a), cb = AsConstInt(b);
  if (ca && cb) return *ca == *cb;
  if (ProveEqual(a, b)) return true;
  if (a.dtype() != b.dtype() || !(a.dtype().is_int() || a.dtype().is_uint())) return true;
  try {
    arith::Analyzer analyzer;
    return !analyzer.CanProve(minitvm::operator!=(a, b));
  } catch (const Error&) {
    return true;
  }
}

bool AllProveEqual(const Array<PrimExpr>& a, const Array<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!ProveEqual(a[i], b[i])) return false;
  }
  return true;
}

bool AllMayBeEqual(const Array<PrimExpr>& a, const Array<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!MayBeEqual(a[i], b[i])) return false;
  }
  return true;
}

/*! \brief Whether the tensor shape `derived` is at least as precise as `base` and agrees. */
bool TensorShapeIsBase(const TensorStructInfoNode* base, const TensorStructInfoNode* derived) {
  if (!base->shape.defined()) return true;
  if (!derived->shape.defined()) return false;
  if (base->shape.same_as(derived->shape)) return true;
  auto bs = base->GetShape();
  auto ds = derived->GetShape();
  if (bs && ds) return AllProveEqual(*bs, *ds);
  return false;
}

/*!
 * \brief The shared walk of IsBaseOf (`may == false`) and MayBeBaseOf (`may == true`): in
 * "may" mode, what is not statically known (a less precise derived, a symbolic dimension) is
 * given the benefit of the doubt and only a certain mismatch fails.
 */
bool BaseCheck(const StructInfo& base, const StructInfo& derived, bool may) {
  if (base.same_as(derived)) return true;
  if (base.as<ObjectStructInfoNode>()) return true;
  if (may && derived.as<ObjectStructInfoNode>()) return true;
  if (auto* b = base.as<PrimStructInfoNode>()) {
    auto* d = derived.as<PrimStructInfoNode>();
    if (!d) return false;
    if (!b->dtype.is_void() && b->dtype != d->dtype) return may && d->dtype.is_void();
    if (!b->value.defined()) return true;
    if (!d->value.defined()) return may;
    return may ? MayBeEqual(b->value, d->value) : ProveEqual(b->value, d->value);
  }
  if (auto* b = base.as<ShapeStructInfoNode>()) {
    auto* d = derived.as<ShapeStructInfoNode>();
    if (!d) return false;
    if (!b->IsUnknownNdim() && b->ndim != d->ndim) return may && d->IsUnknownNdim();
    if (!b->values.defined()) return true;
    if (!d->values.defined()) return may;
    return may ? AllMayBeEqual(b->values, d->values) : AllProveEqual(b->values, d->values);
  }
  if (auto* b = base.as<TensorStructInfoNode>()) {
    auto* d = derived.as<TensorStructInfoNode>();
    if (!d) return false;
    if (!b->IsUnknownDtype() && b->dtype != d->dtype) return may && d->IsUnknownDtype();
    if (!b->IsUnknownNdim() && b->ndim != d->ndim) return may && d->IsUnknownNdim();
    // A base on a virtual device: a derived on no stated device may still be there at run time
    // (TVM's L1 failure); one on another device never is.
    if (b->vdevice.defined() && b->vdevice->target.defined()) {
      bool d_dev = d->vdevice.defined() && d->vdevice->target.defined();
      if (d_dev ? !VDeviceEqual(b->vdevice, d->vdevice) : !may) return false;
    }
    if (!may) return TensorShapeIsBase(b, d);
    auto bs = b->GetShape();
    auto ds = d->GetShape();
    if (bs && ds) return AllMayBeEqual(*bs, *ds);
    return true;
  }
  if (auto* b = base.as<TupleStructInfoNode>()) {
    auto* d = derived.as<TupleStructInfoNode>();
    if (!d || b->fields.size() != d->fields.size()) return false;
    for (size_t i = 0; i < b->fields.size(); ++i) {
      if (!BaseCheck(b->fields[i], d->fields[i], may)) return false;
    }
    return true;
  }
  if (auto* b = base.as<FuncStructInfoNode>()) {
    auto* d = derived.as<FuncStructInfoNode>();
    if (!d) return false;
    // A pure function may stand where an impure one is expected, not the other way round.
    if (b->purity && !d->purity) return false;
    if (!BaseCheck(b->ret, d->ret, may)) return false;
    if (b->IsOpaque()) return true;
    if (d->IsOpaque()) return may;
    if (b->params.size() != d->params.size()) return false;
    // Parameters are contravariant: the derived function must accept all the base accepts.
    for (size_t i = 0; i < b->params.size(); ++i) {
      if (!BaseCheck(d->params[i], b->params[i], may)) return false;
    }
    return true;
  }
  return false;
}

}  // namespace

bool IsBaseOf(const StructInfo& base, const StructInfo& derived) {
  if (!base.defined() || !derived.defined()) {
    MINITVM_THROW(InternalError) << "IsBaseOf: undefined struct info";
  }
  return BaseCheck(base, derived, false);
}

bool MayBeBaseOf(const StructInfo& base, const StructInfo& derived) {
  if (!base.defined() || !derived.defined()) {
    MINITVM_THROW(InternalError) << "MayBeBaseOf: undefined struct info";
  }
  return BaseCheck(base, derived, true);
}

StructInfo StructInfoLCA(const StructInfo& a, const StructInfo& b) {
  if (!a.defined() || !b.defined()) MINITVM_THROW(InternalError) << "StructInfoLCA: undefined";
  if (a.same_as(b)) return a;
  if (a.as<ObjectStructInfoNode>()) return a;
  if (b.as<ObjectStructInfoNode>()) return b;
  if (auto* x = a.as<PrimStructInfoNode>()) {
    auto* y = b.as<PrimStructInfoNode>();
    if (!y) return ObjectStructInfo();
    if (x->dtype != y->dtype) return ObjectStructInfo();
    if (x->value.defined() && y->value.defined() && ProveEqual(x->value, y->value)) return a;
    if (!x->value.defined()) return a;
    if (!y->value.defined()) return b;
    return PrimStructInfo(x->dtype);
  }
  if (auto* x = a.as<ShapeStructInfoNode>()) {
    auto* y = b.as<ShapeStructInfoNode>();
    if (!y) return ObjectStructInfo();
    if (x->ndim != y->ndim) return ShapeStructInfo(kUnknownNDim);
    if (!x->values.defined()) return a;
    if (!y->values.defined()) return b;
    if (AllProveEqual(x->values, y->values)) return a;
    return ShapeStructInfo(x->ndim);
  }
  if (auto* x = a.as<TensorStructInfoNode>()) {
    auto* y = b.as<TensorStructInfoNode>();
    if (!y) return ObjectStructInfo();
    DataType dtype = x->dtype == y->dtype ? x->dtype : DataType::Void();
    int64_t ndim = x->ndim == y->ndim ? x->ndim : kUnknownNDim;
    // The device survives only where both agree.
    VDevice vdev = VDeviceEqual(x->vdevice, y->vdevice) ? x->vdevice : VDevice();
    bool x_dev = VDeviceEqual(vdev, x->vdevice), y_dev = VDeviceEqual(vdev, y->vdevice);
    if (x_dev && dtype == x->dtype && ndim == x->ndim && TensorShapeIsBase(x, y)) return a;
    if (y_dev && dtype == y->dtype && ndim == y->ndim && TensorShapeIsBase(y, x)) return b;
    // Equal shapes survive a dtype disagreement.
    if (x->shape.defined() && TensorShapeIsBase(x, y)) {
      return TensorStructInfo(x->shape, dtype, vdev);
    }
    return TensorStructInfo(dtype, ndim, vdev);
  }
  if (auto* x = a.as<TupleStructInfoNode>()) {
    auto* y = b.as<TupleStructInfoNode>();
    if (!y || x->fields.size() != y->fields.size()) return ObjectStructInfo();
    Array<StructInfo> fields;
    bool same_as_a = true;
    for (size_t i = 0; i < x->fields.size(); ++i) {
      StructInfo f = StructInfoLCA(x->fields[i], y->fields[i]);
      same_as_a = same_as_a && f.same_as(x->fields[i]);
      fields.push_back(f);
    }
    if (same_as_a) return a;
    return TupleStructInfo(fields);
  }
  if (auto* x = a.as<FuncStructInfoNode>()) {
    auto* y = b.as<FuncStructInfoNode>();
    if (!y) return ObjectStructInfo();
    StructInfo ret = StructInfoLCA(x->ret, y->ret);
    bool purity = x->purity && y->purity;
    if (x->IsOpaque() || y->IsOpaque() || x->params.size() != y->params.size()) {
      return FuncStructInfo::OpaqueFunc(ret, purity);
    }
    // Only identical parameter lists make a known signature (their meet is not tracked).
    for (size_t i = 0; i < x->params.size(); ++i) {
      if (!IsBaseOf(x->params[i], y->params[i]) || !IsBaseOf(y->params[i], x->params[i])) {
        return FuncStructInfo::OpaqueFunc(ret, purity);
      }
    }
    return FuncStructInfo(x->params, ret, purity);
  }
  return ObjectStructInfo();
}

// ---- text ---------------------------------------------------------------------------------------

namespace {

/*!
 * \brief A dimension as TVMScript prints it inside Relax, where int64 is the default integer
 * type: `n + 1`, not `n + T.int64(1)`.
 */
std::string DimToString(const PrimExpr& e) {
  if (auto c = AsConstInt(e)) return std::to_string(*c);
  static const std::regex kInt64Literal(R"(T\.int64\((-?[0-9]+)\))");
  return std::regex_replace(runtime::Repr(e), kInt64Literal, "$1");
}

void PrintStructInfo(const StructInfo& info, std::ostream& os) {
  if (!info.defined()) {
    os << "None";
    return;
  }
  if (info.as<ObjectStructInfoNode>()) {
    os << "R.Object";
  } else if (auto* p = info.as<PrimStructInfoNode>()) {
    if (p->value.defined()) {
      os << "R.Prim(value=" << DimToString(p->value) << ")";
    } else {
      os << "R.Prim(\"" << p->dtype << "\")";
    }
  } else if (auto* s = info.as<ShapeStructInfoNode>()) {
    if (s->values.defined()) {
      os << "R.Shape([";
      for (size_t i = 0; i < s->values.size(); ++i)
        os << (i ? ", " : "") << DimToString(s->values[i]);
      os << "])";
    } else {
      os << "R.Shape(ndim=" << s->ndim << ")";
    }
  } else if (auto* t = info.as<TensorStructInfoNode>()) {
    std::vector<std::string> args;
    if (auto* se = t->shape.as<ShapeExprNode>()) {
      std::ostringstream shape;
      shape << "(";
      for (size_t i = 0; i < se->values.size(); ++i) {
        shape << (i ? ", " : "") << DimToString(se->values[i]);
      }
      if (se->values.size() == 1) shape << ",";
      shape << ")";
      args.push_back(shape.str());
    } else if (auto* v = t->shape.as<VarNode>()) {
      args.push_back(v->name_hint.str());
    }
    if (!t->IsUnknownDtype()) {
      std::ostringstream d;
      d << "dtype=\"" << t->dtype << "\"";
      args.push_back(d.str());
    }
    if (!t->shape.defined() && !t->IsUnknownNdim())
      args.push_back("ndim=" + std::to_string(t->ndim));
    if (t->vdevice.defined() && t->vdevice->target.defined())
      args.push_back("vdevice=\"" + VDeviceScriptName(t->vdevice) + "\"");
    os << "R.Tensor";
    if (!args.empty()) {
      os << "(";
      for (size_t i = 0; i < args.size(); ++i) os << (i ? ", " : "") << args[i];
      os << ")";
    }
  } else if (auto* tup = info.as<TupleStructInfoNode>()) {
    os << "R.Tuple";
    if (!tup->fields.empty()) {
      os << "(";
      for (size_t i = 0; i < tup->fields.size(); ++i) {
        if (i) os << ", ";
        PrintStructInfo(tup->fields[i], os);
      }
      os << ")";
    }
  } else if (auto* f = info.as<FuncStructInfoNode>()) {
    if (f->IsOpaque()) {
      os << "R.Callable(ret=";
      PrintStructInfo(f->ret, os);
      os << ", purity=" << (f->purity ? "True" : "False") << ")";
    } else {
      os << "R.Callable((";
      for (size_t i = 0; i < f->params.size(); ++i) {
        if (i) os << ", ";
        PrintStructInfo(f->params[i], os);
      }
      if (f->params.size() == 1) os << ",";
      os << "), ";
      PrintStructInfo(f->ret, os);
      os << ", " << (f->purity ? "True" : "False") << ")";
    }
  } else {
    os << info->GetTypeKey();
  }
}

/*! \brief Collects tir::Vars of struct infos, in first-appearance order, without repeats. */
class TIRVarCollector {
 public:
  explicit TIRVarCollector(bool definable_only) : definable_only_(definable_only) {}

  void Visit(const StructInfo& info) {
    if (!info.defined()) return;
    if (auto* p = info.as<PrimStructInfoNode>()) {
      VisitValue(p->value);
    } else if (auto* s = info.as<ShapeStructInfoNode>()) {
      if (s->values.defined()) {
        for (const PrimExpr& v : s->values) VisitValue(v);
      }
    } else if (auto* t = info.as<TensorStructInfoNode>()) {
      if (auto* se = t->shape.as<ShapeExprNode>()) {
        for (const PrimExpr& v : se->values) VisitValue(v);
      }
    } else if (auto* tup = info.as<TupleStructInfoNode>()) {
      for (const StructInfo& f : tup->fields) Visit(f);
    } else if (auto* f = info.as<FuncStructInfoNode>()) {
      // A function type's own variables are not defined by a value of that type.
      if (definable_only_) return;
      if (f->params.defined()) {
        for (const StructInfo& p : f->params) Visit(p);
      }
      Visit(f->ret);
    }
  }

  Array<tir::Var> result;

 private:
  void VisitValue(const PrimExpr& e) {
    if (!e.defined()) return;
    if (definable_only_) {
      if (auto* v = e.as<tir::VarNode>()) Add(v);
      return;
    }
    tir::PostOrderVisit(e, [this](const ObjectRef& node) {
      if (auto* v = node.as<tir::VarNode>()) Add(v);
    });
  }
  void Add(const tir::VarNode* v) {
    if (seen_.insert(v).second) result.push_back(GetRef<tir::Var>(v));
  }
  bool definable_only_;
  std::unordered_set<const tir::VarNode*> seen_;
};

}  // namespace

std::string StructInfoToString(const StructInfo& info) {
  std::ostringstream os;
  PrintStructInfo(info, os);
  return os.str();
}

Array<tir::Var> DefinableTIRVarsInStructInfo(const StructInfo& info) {
  TIRVarCollector collector(true);
  collector.Visit(info);
  return collector.result;
}

Array<tir::Var> TIRVarsInStructInfo(const StructInfo& info) {
  TIRVarCollector collector(false);
  collector.Visit(info);
  return collector.result;
}

}  // namespace relax
}  // namespace minitvm

/*!
 * \file api_expr.cc
 * \brief The Relax node and struct info constructors Python reaches by name (stage 4):
 * "relax.Var", "relax.Call", "relax.Function", "relax.TensorStructInfo", ... and the struct
 * info queries "relax.StructInfoIsBaseOf", "relax.StructInfoLCA", "relax.StructInfoToString".
 *
 * Optional arguments arrive as a null Any (Python's None) and are taken as "not given".
 */
#include "minitvm/relax/expr.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace relax {

namespace {

StructInfo OptInfo(const Any& a) { return a.is_null() ? StructInfo() : a.cast<StructInfo>(); }

/*! \brief A shape given as an Expr (ShapeExpr or shape var) or as a list of dimensions. */
Expr AsShape(const Any& a) {
  if (a.is_null()) return Expr();
  if (a.as<runtime::ArrayNode>()) return ShapeExpr(a.cast<Array<PrimExpr>>());
  if (a.as<PrimExprNode>()) {
    MINITVM_THROW(TypeError) << "TensorStructInfo: shape must be a list of dimensions or a shape "
                                "expression, got the single dimension "
                             << a.ToString();
  }
  return a.cast<Expr>();
}

DataType OptDType(const Any& a) {
  if (a.is_null()) return DataType::Void();
  if (a.is_string() && a.cast<std::string>().empty()) return DataType::Void();
  return a.cast<DataType>();
}

}  // namespace

// ---- expressions ----------------------------------------------------------------------------

MINITVM_REGISTER_GLOBAL("relax.Var").set_body_typed([](std::string name, Any info) {
  return Var(name, OptInfo(info));
});
MINITVM_REGISTER_GLOBAL("relax.DataflowVar").set_body_typed([](std::string name, Any info) {
  return DataflowVar(name, OptInfo(info));
});
MINITVM_REGISTER_GLOBAL("relax.Constant").set_body_typed([](NDArray data) {
  return Constant(data);
});
MINITVM_REGISTER_GLOBAL("relax.Tuple").set_body_typed([](Array<Expr> fields) {
  return Tuple(fields);
});
MINITVM_REGISTER_GLOBAL("relax.TupleGetItem").set_body_typed([](Expr tuple, int64_t index) {
  return TupleGetItem(tuple, index);
});
MINITVM_REGISTER_GLOBAL("relax.ShapeExpr").set_body_typed([](Array<PrimExpr> values) {
  return ShapeExpr(values);
});
MINITVM_REGISTER_GLOBAL("relax.PrimValue").set_body_typed([](PrimExpr value) {
  return PrimValue(value);
});
MINITVM_REGISTER_GLOBAL("relax.StringImm").set_body_typed([](std::string value) {
  return StringImm(value);
});
MINITVM_REGISTER_GLOBAL("relax.DataTypeImm").set_body_typed([](DataType value) {
  return DataTypeImm(value);
});
MINITVM_REGISTER_GLOBAL("relax.Call")
    .set_body_typed([](Expr op, Array<Expr> args, Any attrs, Any sinfo_args) {
      Map<String, Any> a = attrs.is_null() ? Map<String, Any>() : attrs.cast<Map<String, Any>>();
      Array<StructInfo> s =
          sinfo_args.is_null() ? Array<StructInfo>() : sinfo_args.cast<Array<StructInfo>>();
      return Call(op, args, a, s);
    });
MINITVM_REGISTER_GLOBAL("relax.If").set_body_typed([](Expr cond, Expr t, Expr f) {
  return If(cond, t, f);
});
MINITVM_REGISTER_GLOBAL("relax.SeqExpr").set_body_typed([](Array<BindingBlock> blocks, Expr body) {
  return SeqExpr(blocks, body);
});
MINITVM_REGISTER_GLOBAL("relax.Function")
    .set_body_typed([](Array<Var> params, Expr body, Any ret, bool is_pure, Any attrs) {
      Map<String, Any> a = attrs.is_null() ? Map<String, Any>() : attrs.cast<Map<String, Any>>();
      return Function(params, body, OptInfo(ret), is_pure, a);
    });
MINITVM_REGISTER_GLOBAL("relax.ExternFunc").set_body_typed([](std::string symbol) {
  return ExternFunc(symbol);
});
MINITVM_REGISTER_GLOBAL("relax.VarBinding").set_body_typed([](Var var, Expr value) {
  return VarBinding(var, value);
});
MINITVM_REGISTER_GLOBAL("relax.MatchCast").set_body_typed([](Var var, Expr value, StructInfo info) {
  return MatchCast(var, value, info);
});
MINITVM_REGISTER_GLOBAL("relax.BindingBlock").set_body_typed([](Array<Binding> bindings) {
  return BindingBlock(bindings);
});
MINITVM_REGISTER_GLOBAL("relax.DataflowBlock").set_body_typed([](Array<Binding> bindings) {
  return DataflowBlock(bindings);
});
MINITVM_REGISTER_GLOBAL("relax.IsOp").set_body_typed([](Expr op, std::string name) {
  return IsOp(op, name.c_str());
});

// `func.with_attr(...)` (ir.BaseFuncWithAttr dispatches on the type key).
MINITVM_REGISTER_GLOBAL("relax.expr.Function.WithAttr")
    .set_body_typed([](Function f, std::string key, Any value) {
      return WithAttr(std::move(f), key, value);
    });
MINITVM_REGISTER_GLOBAL("relax.expr.ExternFunc.WithAttr")
    .set_body_typed([](ExternFunc f, std::string key, Any value) {
      auto n = runtime::make_object<ExternFuncNode>(*f.get());
      n->attrs.Set(String(key), value);
      return ExternFunc(ObjectPtr<Object>(std::move(n)));
    });

// ---- struct info ----------------------------------------------------------------------------

MINITVM_REGISTER_GLOBAL("relax.ObjectStructInfo").set_body_typed([]() {
  return ObjectStructInfo();
});
MINITVM_REGISTER_GLOBAL("relax.PrimStructInfo").set_body_typed([](Any dtype, Any value) {
  if (!value.is_null()) {
    PrimExpr v = value.cast<PrimExpr>();
    if (!dtype.is_null() && OptDType(dtype) != v.dtype()) {
      MINITVM_THROW(ValueError) << "PrimStructInfo: dtype " << OptDType(dtype)
                                << " disagrees with the value's dtype " << v.dtype();
    }
    return PrimStructInfo(v);
  }
  if (dtype.is_null()) {
    MINITVM_THROW(ValueError) << "PrimStructInfo: give a dtype or a value";
  }
  return PrimStructInfo(OptDType(dtype));
});
MINITVM_REGISTER_GLOBAL("relax.ShapeStructInfo").set_body_typed([](Any values, int64_t ndim) {
  if (!values.is_null()) {
    Array<PrimExpr> v = values.cast<Array<PrimExpr>>();
    if (ndim != kUnknownNDim && ndim != static_cast<int64_t>(v.size())) {
      MINITVM_THROW(ValueError) << "ShapeStructInfo: ndim " << ndim << " disagrees with the "
                                << v.size() << " values given";
    }
    return ShapeStructInfo(v);
  }
  return ShapeStructInfo(ndim);
});
MINITVM_REGISTER_GLOBAL("relax.TensorStructInfo")
    .set_body_typed([](Any shape, Any dtype, int64_t ndim, Any vdevice) {
      Expr s = AsShape(shape);
      DataType t = OptDType(dtype);
      VDevice vdev;
      if (auto* v = vdevice.as<VDeviceNode>()) {
        vdev = runtime::GetRef<VDevice>(v);
      } else if (!vdevice.is_null()) {
        MINITVM_THROW(TypeError) << "TensorStructInfo: vdevice must be a VDevice or None, got "
                                 << vdevice.type_name();
      }
      if (s.defined()) {
        TensorStructInfo info(s, t, vdev);
        if (ndim != kUnknownNDim && ndim != info->ndim) {
          MINITVM_THROW(ValueError)
              << "TensorStructInfo: ndim " << ndim << " disagrees with the shape of " << info->ndim
              << " dimensions";
        }
        return info;
      }
      return TensorStructInfo(t, ndim, vdev);
    });
MINITVM_REGISTER_GLOBAL("relax.TupleStructInfo").set_body_typed([](Array<StructInfo> fields) {
  return TupleStructInfo(fields);
});
MINITVM_REGISTER_GLOBAL("relax.FuncStructInfo")
    .set_body_typed([](Array<StructInfo> params, StructInfo ret, bool purity) {
      return FuncStructInfo(params, ret, purity);
    });
MINITVM_REGISTER_GLOBAL("relax.FuncStructInfoOpaqueFunc").set_body_typed([](Any ret, bool purity) {
  return FuncStructInfo::OpaqueFunc(ret.is_null() ? StructInfo(ObjectStructInfo()) : OptInfo(ret),
                                    purity);
});
MINITVM_REGISTER_GLOBAL("relax.ExprStructInfo").set_body_typed([](Expr e) -> Any {
  if (!e->struct_info_.defined()) return Any();
  return Any(e->struct_info_);
});
MINITVM_REGISTER_GLOBAL("relax.UpdateStructInfo").set_body_typed([](Expr e, StructInfo info) {
  UpdateStructInfo(e, info);
});
MINITVM_REGISTER_GLOBAL("relax.StructInfoIsBaseOf")
    .set_body_typed([](StructInfo base, StructInfo derived) { return IsBaseOf(base, derived); });
MINITVM_REGISTER_GLOBAL("relax.StructInfoMayBeBaseOf")
    .set_body_typed([](StructInfo base, StructInfo derived) { return MayBeBaseOf(base, derived); });
MINITVM_REGISTER_GLOBAL("relax.StructInfoLCA").set_body_typed([](StructInfo a, StructInfo b) {
  return StructInfoLCA(a, b);
});
MINITVM_REGISTER_GLOBAL("relax.StructInfoToString").set_body_typed([](StructInfo info) {
  return StructInfoToString(info);
});
MINITVM_REGISTER_GLOBAL("relax.DefinableTIRVarsInStructInfo").set_body_typed([](StructInfo info) {
  return DefinableTIRVarsInStructInfo(info);
});
MINITVM_REGISTER_GLOBAL("relax.TIRVarsInStructInfo").set_body_typed([](StructInfo info) {
  return TIRVarsInStructInfo(info);
});
MINITVM_REGISTER_GLOBAL("relax.TensorStructInfoGetShape")
    .set_body_typed([](StructInfo info) -> Any {
      auto* t = info.as<TensorStructInfoNode>();
      if (!t) return Any();
      auto shape = t->GetShape();
      if (!shape) return Any();
      return Any(*shape);
    });

}  // namespace relax
}  // namespace minitvm

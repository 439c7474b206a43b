/*!
 * \file block_builder/struct_info_utils.cc
 * \brief Private struct-info helpers of stage 4 (see struct_info_utils.h): substitution of
 * symbolic shape variables and their binding from an argument's struct info.
 */
#include "block_builder/struct_info_utils.h"

#include "minitvm/arith/analyzer.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace relax {
namespace sinfo_util {

PrimExpr SubstitutePrim(const PrimExpr& e, const Map<tir::Var, PrimExpr>& vmap) {
  if (!e.defined() || vmap.empty()) return e;
  PrimExpr out = tir::Substitute(e, vmap);
  if (out.same_as(e)) return e;
  // `n + 1` with n := 4 prints as 5, as TVM's analyzer would make it.
  arith::Analyzer analyzer;
  return analyzer.Simplify(out);
}

namespace {

Array<PrimExpr> SubstituteAll(const Array<PrimExpr>& values, const Map<tir::Var, PrimExpr>& vmap,
                              bool* changed) {
  Array<PrimExpr> out;
  for (const PrimExpr& v : values) {
    PrimExpr nv = SubstitutePrim(v, vmap);
    if (!nv.same_as(v)) *changed = true;
    out.push_back(nv);
  }
  return out;
}

}  // namespace

StructInfo Substitute(const StructInfo& info, const Map<tir::Var, PrimExpr>& vmap) {
  if (!info.defined() || vmap.empty()) return info;
  if (const auto* t = info.as<TensorStructInfoNode>()) {
    const auto* shape = t->shape.defined() ? t->shape.as<ShapeExprNode>() : nullptr;
    if (!shape) return info;
    bool changed = false;
    Array<PrimExpr> values = SubstituteAll(shape->values, vmap, &changed);
    if (!changed) return info;
    return TensorStructInfo(ShapeExpr(values), t->dtype);
  }
  if (const auto* s = info.as<ShapeStructInfoNode>()) {
    if (!s->values.defined()) return info;
    bool changed = false;
    Array<PrimExpr> values = SubstituteAll(s->values, vmap, &changed);
    return changed ? StructInfo(ShapeStructInfo(values)) : info;
  }
  if (const auto* p = info.as<PrimStructInfoNode>()) {
    if (!p->value.defined()) return info;
    PrimExpr v = SubstitutePrim(p->value, vmap);
    return v.same_as(p->value) ? info : StructInfo(PrimStructInfo(v));
  }
  if (const auto* tup = info.as<TupleStructInfoNode>()) {
    bool changed = false;
    Array<StructInfo> fields;
    for (const StructInfo& f : tup->fields) {
      StructInfo nf = Substitute(f, vmap);
      changed = changed || !nf.same_as(f);
      fields.push_back(nf);
    }
    return changed ? StructInfo(TupleStructInfo(fields)) : info;
  }
  if (const auto* fn = info.as<FuncStructInfoNode>()) {
    bool changed = false;
    Array<StructInfo> params;
    if (fn->params.defined()) {
      for (const StructInfo& p : fn->params) {
        StructInfo np = Substitute(p, vmap);
        changed = changed || !np.same_as(p);
        params.push_back(np);
      }
    }
    StructInfo ret = Substitute(fn->ret, vmap);
    changed = changed || !ret.same_as(fn->ret);
    if (!changed) return info;
    if (!fn->params.defined()) return FuncStructInfo::OpaqueFunc(ret, fn->purity);
    return FuncStructInfo(params, ret, fn->purity);
  }
  return info;
}

namespace {

void BindDims(const Array<PrimExpr>& param, const Array<PrimExpr>& arg,
              Map<tir::Var, PrimExpr>* bindings) {
  if (!param.defined() || !arg.defined() || param.size() != arg.size()) return;
  for (size_t i = 0; i < param.size(); ++i) {
    if (const auto* v = param[i].as<tir::VarNode>()) {
      tir::Var var = GetRef<tir::Var>(v);
      if (!bindings->count(var)) bindings->Set(var, arg[i]);
    }
  }
}

}  // namespace

void BindSymbolicVars(const StructInfo& param, const StructInfo& arg,
                      Map<tir::Var, PrimExpr>* bindings) {
  if (!param.defined() || !arg.defined()) return;
  if (const auto* pt = param.as<TensorStructInfoNode>()) {
    const auto* at = arg.as<TensorStructInfoNode>();
    if (!at) return;
    auto ps = pt->GetShape();
    auto as = at->GetShape();
    if (ps && as) BindDims(*ps, *as, bindings);
    return;
  }
  if (const auto* ps = param.as<ShapeStructInfoNode>()) {
    if (const auto* as = arg.as<ShapeStructInfoNode>()) BindDims(ps->values, as->values, bindings);
    return;
  }
  if (const auto* pp = param.as<PrimStructInfoNode>()) {
    const auto* ap = arg.as<PrimStructInfoNode>();
    if (ap && pp->value.defined() && ap->value.defined()) {
      BindDims(Array<PrimExpr>{pp->value}, Array<PrimExpr>{ap->value}, bindings);
    }
    return;
  }
  if (const auto* pt = param.as<TupleStructInfoNode>()) {
    const auto* at = arg.as<TupleStructInfoNode>();
    if (!at || at->fields.size() != pt->fields.size()) return;
    for (size_t i = 0; i < pt->fields.size(); ++i) {
      BindSymbolicVars(pt->fields[i], at->fields[i], bindings);
    }
  }
}

bool IsLeafOrTuple(const Expr& e) {
  return e.as<VarNode>() || e.as<ConstantNode>() || e.as<ShapeExprNode>() ||
         e.as<PrimValueNode>() || e.as<StringImmNode>() || e.as<DataTypeImmNode>() ||
         e.as<GlobalVarNode>() || e.as<ExternFuncNode>() || e.as<OpNode>() || e.as<TupleNode>();
}

}  // namespace sinfo_util
}  // namespace relax
}  // namespace minitvm

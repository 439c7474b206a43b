/*!
 * \file transform/bind_params.cc
 * \brief BindParams (stage 4), TVM's `relax.transform.BindParams(func_name, params)`: bind
 * weights to parameters of a function as constants, specialising the function's symbolic shape
 * variables to the weights' dimensions (the course binds the MLP's weights this way before
 * building).
 */
#include <sstream>
#include <unordered_map>

#include "block_builder/struct_info_utils.h"
#include "minitvm/relax/block_builder.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/transform.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace relax {
namespace transform {

namespace {

/*!
 * \brief Replaces bound parameters by constants and symbolic variables by their values (the
 * base mutator gives variables whose struct info changes a fresh definition).
 */
class BindParamsMutator : public ExprMutator {
 public:
  BindParamsMutator(std::unordered_map<const VarNode*, Constant> consts,
                    Map<tir::Var, PrimExpr> vmap)
      : consts_(std::move(consts)), vmap_(std::move(vmap)) {}

  Expr VisitExpr_(const VarNode* op) override {
    auto it = consts_.find(op);
    if (it != consts_.end()) return it->second;
    return ExprMutator::VisitExpr_(op);
  }
  StructInfo VisitStructInfo(const StructInfo& info) override {
    return sinfo_util::Substitute(info, vmap_);
  }
  PrimExpr VisitPrimExpr(const PrimExpr& e) override {
    return sinfo_util::SubstitutePrim(e, vmap_);
  }

 private:
  std::unordered_map<const VarNode*, Constant> consts_;
  Map<tir::Var, PrimExpr> vmap_;
};

std::string ParamNames(const Function& func) {
  std::ostringstream os;
  for (size_t i = 0; i < func->params.size(); ++i) {
    os << (i ? ", " : "") << func->params[i]->name_hint;
  }
  return os.str();
}

}  // namespace

Function BindParamsToFunction(const Function& func, const std::string& func_name,
                              const Map<Any, NDArray>& params) {
  // Resolve the keys to parameters.
  std::unordered_map<const VarNode*, NDArray> bound;
  for (const auto& [key, array] : params.items()) {
    Var param;
    if (auto name = key.try_cast<String>()) {
      for (const Var& p : func->params) {
        if (p->name_hint != *name) continue;
        if (param.defined()) {
          MINITVM_THROW(ValueError)
              << "BindParams: function \"" << func_name << "\" has several parameters named \""
              << *name << "\"; bind it by its Var instead";
        }
        param = p;
      }
      if (!param.defined()) {
        MINITVM_THROW(ValueError) << "BindParams: function \"" << func_name
                                  << "\" has no parameter named \"" << *name
                                  << "\"; its parameters are: " << ParamNames(func);
      }
    } else if (auto v = key.try_cast<Var>()) {
      for (const Var& p : func->params) {
        if (p.same_as(*v)) param = p;
      }
      if (!param.defined()) {
        MINITVM_THROW(ValueError) << "BindParams: variable \"" << (*v)->name_hint
                                  << "\" is not a parameter of function \"" << func_name
                                  << "\"; its parameters are: " << ParamNames(func);
      }
    } else {
      MINITVM_THROW(TypeError) << "BindParams: a key must be a parameter name or a relax.Var, not "
                               << key.ToString();
    }
    if (!array.defined()) {
      MINITVM_THROW(ValueError) << "BindParams: no array for parameter \"" << param->name_hint
                                << "\"";
    }
    bound[param.get()] = array;
  }

  // Check each array against its parameter's annotation; bind symbolic dimensions.
  Map<tir::Var, PrimExpr> vmap;
  std::unordered_map<const VarNode*, Constant> consts;
  Array<Var> remaining;
  for (const Var& p : func->params) {
    auto it = bound.find(p.get());
    if (it == bound.end()) {
      remaining.push_back(p);
      continue;
    }
    const NDArray& array = it->second;
    const auto* t = GetStructInfoAs<TensorStructInfoNode>(p);
    std::string have =
        runtime::ShapeToString(array.Shape()) + " " + runtime::DataTypeToString(array.dtype());
    if (!t) {
      if (!GetStructInfoAs<ObjectStructInfoNode>(p)) {
        MINITVM_THROW(ValueError) << "BindParams: parameter \"" << p->name_hint
                                  << "\" of function \"" << func_name << "\" is "
                                  << StructInfoToString(GetStructInfo(p))
                                  << ", not a tensor; cannot bind the array of shape " << have;
      }
    } else {
      std::string want = StructInfoToString(GetStructInfo(p));
      if (!t->IsUnknownDtype() && t->dtype != array.dtype()) {
        MINITVM_THROW(ValueError) << "BindParams: parameter \"" << p->name_hint
                                  << "\" of function \"" << func_name << "\" is " << want
                                  << " but the array is " << have << " (dtype mismatch)";
      }
      const auto& shape = array.Shape();
      if (!t->IsUnknownNdim() && t->ndim != static_cast<int64_t>(shape.size())) {
        MINITVM_THROW(ValueError) << "BindParams: parameter \"" << p->name_hint
                                  << "\" of function \"" << func_name << "\" is " << want
                                  << " but the array is " << have << " (rank mismatch)";
      }
      if (auto dims = t->GetShape()) {
        for (size_t d = 0; d < dims->size(); ++d) {
          PrimExpr dim = sinfo_util::SubstitutePrim((*dims)[d], vmap);
          if (const auto* v = dim.as<tir::VarNode>()) {
            vmap.Set(GetRef<tir::Var>(v), IntImm(v->dtype, shape[d]));
          } else if (auto c = AsConstInt(dim); c && *c != shape[d]) {
            MINITVM_THROW(ValueError)
                << "BindParams: parameter \"" << p->name_hint << "\" of function \"" << func_name
                << "\" is " << want << " but the array is " << have << " (dimension " << d
                << " differs)";
          }
        }
      }
    }
    consts.emplace(p.get(), Constant(array));
  }
  if (consts.empty()) return func;

  BindParamsMutator mutator(consts, vmap);
  Array<Var> new_params;
  for (const Var& p : remaining) new_params.push_back(mutator.VisitVarDef(p));
  Expr body = mutator.VisitExpr(func->body);
  body = Normalize(body);
  StructInfo ret = func->ret_struct_info.defined()
                       ? sinfo_util::Substitute(func->ret_struct_info, vmap)
                       : StructInfo();
  Function out(new_params, body, ret, func->is_pure, func->attrs);
  if (auto n = func->GetAttr<int64_t>("num_input")) {
    // Bound parameters are weights, which come after the inputs.
    int64_t inputs = *n;
    for (size_t i = 0; i < func->params.size() && static_cast<int64_t>(i) < *n; ++i) {
      if (consts.count(func->params[i].get())) --inputs;
    }
    out = WithAttr(out, "num_input", Any(inputs));
  }
  return out;
}

Pass BindParams(String func_name, Map<Any, NDArray> params) {
  return minitvm::transform::CreateModulePass(
      [func_name, params](IRModule mod, PassContext) {
        auto gv = mod->GetGlobalVar(func_name);
        if (!gv) {
          std::ostringstream names;
          bool first = true;
          for (const GlobalVar& g : mod->GetGlobalVars()) {
            names << (first ? "" : ", ") << g->name_hint;
            first = false;
          }
          MINITVM_THROW(ValueError) << "BindParams: the module has no function \"" << func_name
                                    << "\"; its functions are: " << names.str();
        }
        BaseFunc f = mod->Lookup(*gv);
        const auto* fn = f.as<FunctionNode>();
        if (!fn) {
          MINITVM_THROW(ValueError)
              << "BindParams: \"" << func_name << "\" is not a Relax function";
        }
        Function bound = BindParamsToFunction(GetRef<Function>(fn), func_name, params);
        if (bound.same_as(f)) return mod;
        (*gv)->struct_info_ = bound->struct_info_;
        mod.Add(*gv, bound);
        return mod;
      },
      0, "BindParams");
}

MINITVM_REGISTER_GLOBAL("relax.transform.BindParams")
    .set_body_typed([](String func_name, Map<Any, NDArray> params) {
      return BindParams(func_name, params);
    });

}  // namespace transform
}  // namespace relax
}  // namespace minitvm

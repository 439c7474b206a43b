/*!
 * \file index_map.cc
 * \brief IndexMap (stage 3): construction, application to indices and shapes, printing as a
 * Python lambda, JSON form (the reflection-driven node serialiser of json.h); and the Python
 * spelling of expressions used by traces and messages (the TVMScript printer's readable mode).
 */
#include "minitvm/tir/schedule/index_map.h"

#include <sstream>

#include "json.h"
#include "minitvm/arith/analyzer.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/script/tir_printer.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace tir {

IndexMap::IndexMap(Array<Var> initial_indices, Array<PrimExpr> final_indices) {
  auto n = make_object<IndexMapNode>();
  n->initial_indices = std::move(initial_indices);
  n->final_indices = std::move(final_indices);
  data_ = std::move(n);
}

IndexMap IndexMap::FromFunc(int ndim, const std::function<Array<PrimExpr>(Array<Var>)>& func,
                            const std::vector<std::string>& names) {
  Array<Var> vars;
  for (int i = 0; i < ndim; ++i) {
    std::string name = i < static_cast<int>(names.size()) ? names[i] : "i" + std::to_string(i);
    vars.push_back(Var(name));
  }
  return IndexMap(vars, func(vars));
}

Array<PrimExpr> IndexMap::MapIndices(const Array<PrimExpr>& indices) const {
  const IndexMapNode* n = get();
  if (indices.size() != n->initial_indices.size()) {
    MINITVM_THROW(ValueError) << "the index map takes " << n->initial_indices.size()
                              << " indices but the buffer has " << indices.size();
  }
  Map<Var, PrimExpr> vmap;
  for (size_t i = 0; i < indices.size(); ++i) {
    PrimExpr idx = indices[i];
    Var v = n->initial_indices[i];
    if (idx.dtype() != v.dtype()) idx = cast(v.dtype(), idx);
    vmap.Set(v, idx);
  }
  Array<PrimExpr> out;
  for (const PrimExpr& e : n->final_indices) out.push_back(Substitute(e, vmap));
  return out;
}

Array<PrimExpr> IndexMap::MapShape(const Array<PrimExpr>& shape, arith::Analyzer* analyzer) const {
  const IndexMapNode* n = get();
  if (shape.size() != n->initial_indices.size()) {
    MINITVM_THROW(ValueError) << "the index map takes " << n->initial_indices.size()
                              << " indices but the buffer has " << shape.size() << " dimensions";
  }
  std::unordered_map<const VarNode*, arith::IntSet> dom;
  for (size_t i = 0; i < shape.size(); ++i) {
    dom[n->initial_indices[i].get()] =
        arith::IntSet::FromRange(Range(IntImm(shape[i].dtype(), 0), shape[i]));
  }
  Array<PrimExpr> out;
  for (const PrimExpr& e : n->final_indices) {
    arith::IntSet s = analyzer->int_set(e, dom);
    if (!s.HasUpperBound()) {
      MINITVM_THROW(ValueError) << "cannot bound the new index " << PrintPythonExpr(e);
    }
    out.push_back(analyzer->Simplify(s.max() + 1));
  }
  return out;
}

std::string IndexMap::ToPythonLambda() const {
  std::ostringstream os;
  os << "lambda ";
  for (size_t i = 0; i < get()->initial_indices.size(); ++i) {
    os << (i ? ", " : "") << get()->initial_indices[i]->name_hint;
  }
  os << ": (";
  for (size_t i = 0; i < get()->final_indices.size(); ++i) {
    os << (i ? ", " : "") << PrintPythonExpr(get()->final_indices[i]);
  }
  if (get()->final_indices.size() == 1) os << ",";
  os << ")";
  return os.str();
}

// ---- JSON form ------------------------------------------------------------------------------

namespace {

/*! \brief The nodes an index map is made of, so that json::NodeFromJSON can create them. */
template <typename TNode>
bool RegisterCreator() {
  return json::RegisterNodeCreator(TNode::_type_key, [] { return make_object<TNode>(); });
}

[[maybe_unused]] const bool kCreators = [] {
  RegisterCreator<IndexMapNode>();
  RegisterCreator<VarNode>();
  RegisterCreator<SizeVarNode>();
  RegisterCreator<IntImmNode>();
  RegisterCreator<FloatImmNode>();
  RegisterCreator<AddNode>();
  RegisterCreator<SubNode>();
  RegisterCreator<MulNode>();
  RegisterCreator<DivNode>();
  RegisterCreator<ModNode>();
  RegisterCreator<FloorDivNode>();
  RegisterCreator<FloorModNode>();
  RegisterCreator<MinNode>();
  RegisterCreator<MaxNode>();
  return true;
}();

}  // namespace

Any IndexMap::ToJSONValue() const { return json::NodeToJSON(*this); }

IndexMap IndexMap::FromJSONValue(const Any& value) {
  ObjectRef node = json::NodeFromJSON(value);
  if (node.as<IndexMapNode>() == nullptr) {
    MINITVM_THROW(ValueError) << "expected an index map in JSON but got "
                              << (node.defined() ? node->GetTypeKey() : std::string("None"));
  }
  return Downcast<IndexMap>(node);
}

// ---- the Python spelling of expressions ----------------------------------------------------

std::string PrintPythonExpr(const PrimExpr& e) {
  if (!e.defined()) return "None";
  // The TVMScript printer in its readable mode: bare ints, Python operators.
  script::ScriptOptions options;
  options.print_header = false;
  options.plain_literals = true;
  return script::AsScript(e, options);
}

}  // namespace tir
}  // namespace minitvm

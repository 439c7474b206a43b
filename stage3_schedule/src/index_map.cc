/*!
 * \file index_map.cc
 * \brief IndexMap (stage 3): construction, application to indices and shapes, printing as a
 * Python lambda, JSON form (the reflection-driven node serialiser of json.h); and the
 * Python-style expression printer used by traces and messages.
 */
#include "minitvm/tir/schedule/index_map.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "json.h"
#include "minitvm/arith/analyzer.h"
#include "minitvm/runtime/registry.h"
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

// ---- the Python expression printer ---------------------------------------------------------

namespace {

/*! \brief Prints expressions with Python precedence. */
class PyPrinter {
 public:
  std::string Print(const PrimExpr& e, int parent_prec = 0, bool right = false) {
    int prec = Prec(e);
    std::string s = Raw(e);
    bool paren = prec < parent_prec || (right && prec == parent_prec && prec > 0);
    return paren ? "(" + s + ")" : s;
  }

 private:
  static int Prec(const PrimExpr& e) {
    if (e.as<OrNode>()) return 1;
    if (e.as<AndNode>()) return 2;
    if (e.as<NotNode>()) return 3;
    if (e.as<EQNode>() || e.as<NENode>() || e.as<LTNode>() || e.as<LENode>() || e.as<GTNode>() ||
        e.as<GENode>()) {
      return 4;
    }
    if (e.as<AddNode>() || e.as<SubNode>()) return 5;
    if (e.as<MulNode>() || e.as<FloorDivNode>() || e.as<FloorModNode>() || e.as<DivNode>()) {
      return 6;
    }
    if (auto v = AsConstInt(e); v && *v < 0) return 7;
    return 9;
  }
  std::string Bin(const BinaryOpNode* op, const char* sym, int prec) {
    return Print(op->a, prec) + " " + sym + " " + Print(op->b, prec, true);
  }
  std::string Call(const char* name, const std::vector<PrimExpr>& args) {
    std::string s = std::string(name) + "(";
    for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + Print(args[i]);
    return s + ")";
  }
  std::string Raw(const PrimExpr& e) {
    if (auto* imm = e.as<IntImmNode>()) {
      if (imm->dtype.is_bool()) return imm->value ? "True" : "False";
      return std::to_string(imm->value);
    }
    if (auto* f = e.as<FloatImmNode>()) {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.17g", f->value);
      std::string s = buf;
      double back = std::strtod(s.c_str(), nullptr);
      for (int p = 1; p < 17; ++p) {
        std::snprintf(buf, sizeof(buf), "%.*g", p, f->value);
        if (std::strtod(buf, nullptr) == back) {
          s = buf;
          break;
        }
      }
      if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
      return s;
    }
    if (auto* v = e.as<VarNode>()) return v->name_hint.str();
    if (auto* op = e.as<AddNode>()) return Bin(op, "+", 5);
    if (auto* op = e.as<SubNode>()) return Bin(op, "-", 5);
    if (auto* op = e.as<MulNode>()) return Bin(op, "*", 6);
    if (auto* op = e.as<FloorDivNode>()) return Bin(op, "//", 6);
    if (auto* op = e.as<FloorModNode>()) return Bin(op, "%", 6);
    if (auto* op = e.as<DivNode>()) return Bin(op, "/", 6);
    if (auto* op = e.as<EQNode>()) return Bin(op, "==", 4);
    if (auto* op = e.as<NENode>()) return Bin(op, "!=", 4);
    if (auto* op = e.as<LTNode>()) return Bin(op, "<", 4);
    if (auto* op = e.as<LENode>()) return Bin(op, "<=", 4);
    if (auto* op = e.as<GTNode>()) return Bin(op, ">", 4);
    if (auto* op = e.as<GENode>()) return Bin(op, ">=", 4);
    if (auto* op = e.as<AndNode>()) return Bin(op, "and", 2);
    if (auto* op = e.as<OrNode>()) return Bin(op, "or", 1);
    if (auto* op = e.as<NotNode>()) return "not " + Print(op->a, 3);
    if (auto* op = e.as<MinNode>()) return Call("T.min", {op->a, op->b});
    if (auto* op = e.as<MaxNode>()) return Call("T.max", {op->a, op->b});
    if (auto* op = e.as<ModNode>()) return Call("T.truncmod", {op->a, op->b});
    if (auto* op = e.as<SelectNode>()) {
      return Call("T.Select", {op->condition, op->true_value, op->false_value});
    }
    if (auto* op = e.as<CastNode>()) {
      return "T.Cast(\"" + DataTypeToString(op->dtype) + "\", " + Print(op->value) + ")";
    }
    if (auto* op = e.as<BufferLoadNode>()) {
      std::string s = op->buffer->name.str() + "[";
      for (size_t i = 0; i < op->indices.size(); ++i) s += (i ? ", " : "") + Print(op->indices[i]);
      return s + "]";
    }
    if (auto* op = e.as<CallNode>()) {
      std::string name = op->op.str();
      if (name.rfind("tir.", 0) == 0) name = "T." + name.substr(4);
      std::vector<PrimExpr> args = op->args.to_vector();
      return Call(name.c_str(), args);
    }
    if (auto* op = e.as<StringImmNode>()) return "\"" + op->value.str() + "\"";
    return runtime::Repr(e);
  }
};

}  // namespace

std::string PrintPythonExpr(const PrimExpr& e) {
  if (!e.defined()) return "None";
  return PyPrinter().Print(e);
}

}  // namespace tir
}  // namespace minitvm

/*!
 * \file expr.cc
 * \brief Constructors of the Relax IR nodes (stage 4) with their argument checks, and the struct
 * info that is known the moment a node is made (a constant's shape, a variable's annotation, a
 * function's signature). Everything else is filled in by the BlockBuilder's normaliser.
 */
#include "minitvm/relax/expr.h"

#include <string>

#include "minitvm/tir/expr.h"

namespace minitvm {
namespace relax {

namespace {

void CheckDefined(const ObjectRef& x, const char* node, const std::string& what) {
  if (!x.defined()) MINITVM_THROW(ValueError) << node << ": " << what << " is undefined";
}

/*! \brief The struct info of `e` if it has one (null otherwise). */
StructInfo MaybeStructInfo(const Expr& e) {
  return e->struct_info_.defined() ? Downcast<StructInfo>(e->struct_info_) : StructInfo();
}

}  // namespace

// ---- leaves ---------------------------------------------------------------------------------

Var::Var(String name_hint, StructInfo info) {
  auto n = make_object<VarNode>();
  n->name_hint = std::move(name_hint);
  n->struct_info_ = std::move(info);
  data_ = std::move(n);
}

DataflowVar::DataflowVar(String name_hint, StructInfo info) {
  auto n = make_object<DataflowVarNode>();
  n->name_hint = std::move(name_hint);
  n->struct_info_ = std::move(info);
  data_ = std::move(n);
}

Constant::Constant(NDArray data) {
  CheckDefined(data, "Constant", "the data");
  auto n = make_object<ConstantNode>();
  Array<PrimExpr> shape;
  for (int64_t d : data.Shape()) shape.push_back(IntImm(DataType::Int(64), d));
  n->struct_info_ = TensorStructInfo(ShapeExpr(shape), data.dtype());
  n->data = std::move(data);
  data_ = std::move(n);
}

ShapeExpr::ShapeExpr(Array<PrimExpr> values) {
  if (!values.defined()) values = Array<PrimExpr>();
  Array<PrimExpr> dims;
  for (size_t i = 0; i < values.size(); ++i) {
    PrimExpr v = values[i];
    if (!v.defined()) MINITVM_THROW(TypeError) << "ShapeExpr: dimension " << i << " is undefined";
    if (!(v.dtype().is_int() || v.dtype().is_uint()) || v.dtype().is_bool() ||
        !v.dtype().is_scalar()) {
      MINITVM_THROW(TypeError) << "ShapeExpr: dimension " << i
                               << " must be an integer expression, got " << runtime::Repr(v)
                               << " of dtype " << v.dtype();
    }
    // Dimensions are int64, as in TVM: a literal 4 (an int32 IntImm) becomes int64.
    if (auto c = AsConstInt(v); c && v.dtype() != DataType::Int(64)) {
      v = IntImm(DataType::Int(64), *c);
    }
    dims.push_back(v);
  }
  auto n = make_object<ShapeExprNode>();
  n->values = dims;
  n->struct_info_ = ShapeStructInfo(dims);
  data_ = std::move(n);
}

PrimValue::PrimValue(PrimExpr value) {
  CheckDefined(value, "PrimValue", "the value");
  auto n = make_object<PrimValueNode>();
  n->struct_info_ = PrimStructInfo(value);
  n->value = std::move(value);
  data_ = std::move(n);
}

StringImm::StringImm(String value) {
  auto n = make_object<StringImmNode>();
  n->value = std::move(value);
  n->struct_info_ = ObjectStructInfo();
  data_ = std::move(n);
}

DataTypeImm::DataTypeImm(DataType value) {
  auto n = make_object<DataTypeImmNode>();
  n->value = value;
  n->struct_info_ = ObjectStructInfo();
  data_ = std::move(n);
}

ExternFunc::ExternFunc(String global_symbol) {
  if (global_symbol.empty()) MINITVM_THROW(ValueError) << "ExternFunc: empty global symbol";
  auto n = make_object<ExternFuncNode>();
  n->global_symbol = std::move(global_symbol);
  n->struct_info_ = FuncStructInfo::OpaqueFunc();
  data_ = std::move(n);
}

// ---- compound expressions -------------------------------------------------------------------

Tuple::Tuple(Array<Expr> fields) {
  if (!fields.defined()) fields = Array<Expr>();
  Array<StructInfo> infos;
  bool all_known = true;
  for (size_t i = 0; i < fields.size(); ++i) {
    Expr f = fields[i];
    if (!f.defined()) MINITVM_THROW(ValueError) << "Tuple: field " << i << " is undefined";
    if (f.as<PrimExprNode>()) {
      MINITVM_THROW(TypeError) << "Tuple: field " << i << " is a TIR expression ("
                               << runtime::Repr(f) << "); wrap it in R.prim_value";
    }
    StructInfo s = MaybeStructInfo(f);
    all_known = all_known && s.defined();
    if (all_known) infos.push_back(s);
  }
  auto n = make_object<TupleNode>();
  n->fields = std::move(fields);
  if (all_known) n->struct_info_ = TupleStructInfo(infos);
  data_ = std::move(n);
}

TupleGetItem::TupleGetItem(Expr tuple, int64_t index) {
  CheckDefined(tuple, "TupleGetItem", "the tuple");
  if (index < 0) {
    MINITVM_THROW(ValueError) << "TupleGetItem: index must be non-negative, got " << index;
  }
  auto n = make_object<TupleGetItemNode>();
  if (auto* t = GetStructInfoAs<TupleStructInfoNode>(tuple)) {
    if (index >= static_cast<int64_t>(t->fields.size())) {
      MINITVM_THROW(IndexError) << "TupleGetItem: index " << index << " out of range for "
                                << StructInfoToString(GetStructInfo(tuple)) << " of "
                                << t->fields.size() << " fields";
    }
    n->struct_info_ = t->fields[index];
  } else if (tuple->struct_info_.defined() && !GetStructInfoAs<ObjectStructInfoNode>(tuple)) {
    MINITVM_THROW(TypeError) << "TupleGetItem: the value is not a tuple, its struct info is "
                             << StructInfoToString(GetStructInfo(tuple));
  }
  n->tuple = std::move(tuple);
  n->index = index;
  data_ = std::move(n);
}

Call::Call(Expr op, Array<Expr> args, Map<String, Any> attrs, Array<StructInfo> sinfo_args) {
  CheckDefined(op, "Call", "the callee");
  if (!(op.as<OpNode>() || op.as<GlobalVarNode>() || op.as<ExternFuncNode>() || op.as<VarNode>() ||
        op.as<FunctionNode>())) {
    MINITVM_THROW(TypeError) << "Call: the callee must be an Op, a GlobalVar, an ExternFunc, a "
                                "Function or a variable holding a function, got "
                             << op->GetTypeKey();
  }
  if (!args.defined()) args = Array<Expr>();
  for (size_t i = 0; i < args.size(); ++i) {
    Expr a = args[i];
    if (!a.defined()) MINITVM_THROW(ValueError) << "Call: argument " << i << " is undefined";
    if (a.as<PrimExprNode>()) {
      MINITVM_THROW(TypeError) << "Call: argument " << i << " is a TIR expression ("
                               << runtime::Repr(a) << "); wrap it in R.prim_value";
    }
  }
  if (!attrs.defined()) attrs = Map<String, Any>();
  if (!sinfo_args.defined()) sinfo_args = Array<StructInfo>();
  for (size_t i = 0; i < sinfo_args.size(); ++i) {
    if (!sinfo_args[i].defined()) {
      MINITVM_THROW(ValueError) << "Call: struct info argument " << i << " is undefined";
    }
  }
  auto n = make_object<CallNode>();
  n->op = std::move(op);
  n->args = std::move(args);
  n->attrs = std::move(attrs);
  n->sinfo_args = std::move(sinfo_args);
  data_ = std::move(n);
}

If::If(Expr cond, Expr true_branch, Expr false_branch) {
  CheckDefined(cond, "If", "the condition");
  CheckDefined(true_branch, "If", "the true branch");
  CheckDefined(false_branch, "If", "the false branch");
  if (cond->struct_info_.defined()) {
    StructInfo s = GetStructInfo(cond);
    auto* t = s.as<TensorStructInfoNode>();
    auto* p = s.as<PrimStructInfoNode>();
    bool ok = (t && (t->IsUnknownNdim() || t->ndim == 0)) || p;
    if (!ok) {
      MINITVM_THROW(TypeError) << "If: the condition must be a scalar (a 0-d tensor or a "
                                  "PrimValue), got "
                               << StructInfoToString(s);
    }
  }
  // Branches are SeqExprs, so that each has a scope of its own for the bindings it makes.
  auto as_seq = [](Expr e) -> Expr {
    if (e.as<SeqExprNode>()) return e;
    SeqExpr seq({}, e);
    if (e->struct_info_.defined()) seq->struct_info_ = e->struct_info_;
    return seq;
  };
  auto n = make_object<IfNode>();
  n->cond = std::move(cond);
  n->true_branch = as_seq(std::move(true_branch));
  n->false_branch = as_seq(std::move(false_branch));
  data_ = std::move(n);
}

SeqExpr::SeqExpr(Array<BindingBlock> blocks, Expr body) {
  CheckDefined(body, "SeqExpr", "the body");
  if (!blocks.defined()) blocks = Array<BindingBlock>();
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (!blocks[i].defined())
      MINITVM_THROW(ValueError) << "SeqExpr: block " << i << " is undefined";
  }
  auto n = make_object<SeqExprNode>();
  n->blocks = std::move(blocks);
  n->body = std::move(body);
  data_ = std::move(n);
}

// ---- bindings and blocks --------------------------------------------------------------------

VarBinding::VarBinding(Var var, Expr value) {
  CheckDefined(var, "VarBinding", "the variable");
  CheckDefined(value, "VarBinding", "the value");
  auto n = make_object<VarBindingNode>();
  n->var = std::move(var);
  n->value = std::move(value);
  data_ = std::move(n);
}

MatchCast::MatchCast(Var var, Expr value, StructInfo struct_info) {
  CheckDefined(var, "MatchCast", "the variable");
  CheckDefined(value, "MatchCast", "the value");
  CheckDefined(struct_info, "MatchCast", "the struct info");
  auto n = make_object<MatchCastNode>();
  n->var = std::move(var);
  n->value = std::move(value);
  n->struct_info = std::move(struct_info);
  data_ = std::move(n);
}

namespace {
Array<Binding> CheckBindings(Array<Binding> bindings, const char* node) {
  if (!bindings.defined()) return Array<Binding>();
  for (size_t i = 0; i < bindings.size(); ++i) {
    if (!bindings[i].defined())
      MINITVM_THROW(ValueError) << node << ": binding " << i << " is undefined";
  }
  return bindings;
}
}  // namespace

BindingBlock::BindingBlock(Array<Binding> bindings) {
  auto n = make_object<BindingBlockNode>();
  n->bindings = CheckBindings(std::move(bindings), "BindingBlock");
  data_ = std::move(n);
}

DataflowBlock::DataflowBlock(Array<Binding> bindings) {
  auto n = make_object<DataflowBlockNode>();
  n->bindings = CheckBindings(std::move(bindings), "DataflowBlock");
  data_ = std::move(n);
}

// ---- functions ------------------------------------------------------------------------------

Function::Function(Array<Var> params, Expr body, StructInfo ret_struct_info, bool is_pure,
                   Map<String, Any> attrs) {
  CheckDefined(body, "Function", "the body");
  if (!params.defined()) params = Array<Var>();
  Array<StructInfo> param_infos;
  for (size_t i = 0; i < params.size(); ++i) {
    Var p = params[i];
    if (!p.defined()) MINITVM_THROW(ValueError) << "Function: parameter " << i << " is undefined";
    if (!p->struct_info_.defined()) {
      MINITVM_THROW(ValueError) << "Function: parameter " << i << " (" << p->name_hint
                                << ") has no struct info annotation";
    }
    param_infos.push_back(GetStructInfo(p));
  }
  if (!ret_struct_info.defined()) {
    if (!body->struct_info_.defined()) {
      MINITVM_THROW(ValueError) << "Function: no return struct info was given and the body ("
                                << body->GetTypeKey() << ") has none (normalise it first)";
    }
    ret_struct_info = GetStructInfo(body);
  }
  if (!attrs.defined()) attrs = Map<String, Any>();
  auto n = make_object<FunctionNode>();
  n->struct_info_ = FuncStructInfo(param_infos, ret_struct_info, is_pure);
  n->params = std::move(params);
  n->body = std::move(body);
  n->ret_struct_info = std::move(ret_struct_info);
  n->is_pure = is_pure;
  n->attrs = std::move(attrs);
  data_ = std::move(n);
}

bool IsOp(const Expr& op, const char* name) {
  auto* n = op.as<OpNode>();
  return n != nullptr && n->name.str() == name;
}

}  // namespace relax
}  // namespace minitvm

/*!
 * \file call.cc
 * \brief The Relax operators that call functions outside the graph (stage 4):
 * `relax.call_tir(gvar, args, out_sinfo, tir_vars)` (a PrimFunc of the module in
 * destination-passing style), `relax.call_dps_packed(func, args, out_sinfo)` (a packed
 * function, destination-passing style) and `relax.call_pure_packed(func, *args, sinfo_args)`
 * (a packed function that returns its result and is declared pure).
 *
 * Layout of the Call (TVM's): `call_tir` args = [gvar, Tuple(args)] plus a ShapeExpr of the
 * extra TIR integer arguments when given, sinfo_args = [output struct info] (several outputs:
 * one TupleStructInfo); `call_dps_packed` args = [ExternFunc, Tuple(args)]; `call_pure_packed`
 * args = [ExternFunc, args...]. The result's struct info is `sinfo_args[0]`.
 */
#include "op/op_common.h"

namespace minitvm {
namespace relax {

using namespace op_detail;  // NOLINT(*)

namespace {

StructInfo TheOutput(const Call& call, const std::string& param) {
  if (call->sinfo_args.size() != 1) {
    MINITVM_THROW(ValueError) << OpName(call) << ": expects exactly one output struct info ("
                              << param << "), but the call has " << call->sinfo_args.size();
  }
  return call->sinfo_args[0];
}

void CheckDPSOutput(const Call& call, const StructInfo& out) {
  auto ok = [](const StructInfo& s) { return s.as<TensorStructInfoNode>() != nullptr; };
  bool good = ok(out);
  if (auto* t = out.as<TupleStructInfoNode>()) {
    good = true;
    for (const StructInfo& f : t->fields) good = good && ok(f);
  }
  if (!good) {
    MINITVM_THROW(TypeError) << OpName(call) << ": out_sinfo must be a tensor or a tuple of "
                             << "tensors (outputs are written in place), but is "
                             << StructInfoToString(out);
  }
}

void CheckArgsTuple(const Call& call, int i) {
  if (call->args[i].as<TupleNode>()) return;
  StructInfo info = ArgInfo(call, i);
  if (!info.as<TupleStructInfoNode>()) {
    MINITVM_THROW(TypeError) << OpName(call) << ": args must be a tuple, but got "
                             << StructInfoToString(info);
  }
}

StructInfo InferCallTIR(const Call& call) {
  CheckNumArgs(call, 2, 3);
  if (!call->args[0].as<GlobalVarNode>()) {
    MINITVM_THROW(TypeError) << "relax.call_tir: gvar must be a GlobalVar naming a PrimFunc of "
                                "the module, but is a "
                             << call->args[0]->GetTypeKey();
  }
  CheckArgsTuple(call, 1);
  if (call->args.size() == 3 && !call->args[2].as<ShapeExprNode>()) {
    StructInfo info = ArgInfo(call, 2);
    if (!info.as<ShapeStructInfoNode>()) {
      MINITVM_THROW(TypeError) << "relax.call_tir: tir_vars must be a shape (R.shape([...])), "
                                  "but got "
                               << StructInfoToString(info);
    }
  }
  StructInfo out = TheOutput(call, "out_sinfo");
  CheckDPSOutput(call, out);
  return out;
}

void CheckPackedFunc(const Call& call) {
  Expr f = call->args[0];
  if (f.as<ExternFuncNode>() || f.as<GlobalVarNode>()) return;
  if (f->struct_info_.defined() && GetStructInfo(f).as<FuncStructInfoNode>()) return;
  MINITVM_THROW(TypeError) << OpName(call)
                           << ": func must be an ExternFunc (a packed function's name), but is a "
                           << f->GetTypeKey();
}

StructInfo InferCallDPSPacked(const Call& call) {
  CheckNumArgs(call, 2, 2);
  CheckPackedFunc(call);
  CheckArgsTuple(call, 1);
  StructInfo out = TheOutput(call, "out_sinfo");
  CheckDPSOutput(call, out);
  return out;
}

StructInfo InferCallPurePacked(const Call& call) {
  if (call->args.empty()) {
    MINITVM_THROW(ValueError) << "relax.call_pure_packed: expects the function to call";
  }
  CheckPackedFunc(call);
  return TheOutput(call, "sinfo_args");
}

Expr FuncOperand(const Any& f, const char* op) {
  if (f.is_string()) return ExternFunc(f.cast<std::string>());
  if (auto* e = f.as<ExprNode>()) return GetRef<Expr>(e);
  MINITVM_THROW(TypeError) << op << ": func must be a string or an ExternFunc, but got "
                           << f.type_name();
}

Expr ArgsTuple(const Any& args, const char* op) {
  if (args.as<ArrayNode>()) return Tuple(args.cast<Array<Expr>>());
  if (auto* e = args.as<ExprNode>()) {
    if (e->IsInstance<TupleNode>()) return GetRef<Expr>(e);
    if (e->struct_info_.defined() && e->struct_info_.as<TupleStructInfoNode>()) {
      return GetRef<Expr>(e);
    }
    return Tuple({GetRef<Expr>(e)});  // a single argument, as TVM's Python does
  }
  MINITVM_THROW(TypeError) << op << ": args must be a tuple or a list of expressions, but got "
                           << args.type_name();
}

Array<StructInfo> OutSInfo(const Any& out, const char* op, const char* param) {
  if (auto* arr = out.as<ArrayNode>()) {
    Array<StructInfo> fields = out.cast<Array<StructInfo>>();
    if (fields.empty()) MINITVM_THROW(ValueError) << op << ": " << param << " is empty";
    if (arr->data.size() == 1) return {fields[0]};
    return {TupleStructInfo(fields)};
  }
  if (out.as<StructInfoNode>()) return {out.cast<StructInfo>()};
  MINITVM_THROW(TypeError) << op << ": " << param
                           << " must be a struct info or a list of them, but got "
                           << out.type_name();
}

}  // namespace

MINITVM_REGISTER_OP("relax.call_tir")
    .describe(
        "Call a PrimFunc of the module in destination-passing style; the outputs are "
        "allocated by the caller as described by out_sinfo.")
    .set_num_inputs(-1)
    .add_argument("gvar", "GlobalVar", "The PrimFunc to call.")
    .add_argument("args", "Tuple", "The input arguments.")
    .add_argument("tir_vars", "Shape", "Extra TIR integer arguments (optional).")
    .set_attr(kTAttrDefaults, AttrMap())
    .MINITVM_RELAX_OP_TRAITS(kOpaque, true, InferCallTIR);

MINITVM_REGISTER_OP("relax.call_dps_packed")
    .describe("Call a packed function in destination-passing style.")
    .set_num_inputs(2)
    .add_argument("func", "ExternFunc", "The packed function.")
    .add_argument("args", "Tuple", "The input arguments.")
    .set_attr(kTAttrDefaults, AttrMap())
    .MINITVM_RELAX_OP_TRAITS(kOpaque, true, InferCallDPSPacked);

MINITVM_REGISTER_OP("relax.call_pure_packed")
    .describe("Call a packed function that returns its result, treating the call as pure.")
    .set_num_inputs(-1)
    .add_argument("func", "ExternFunc", "The packed function.")
    .add_argument("args", "Expr", "The arguments (variadic).")
    .set_attr(kTAttrDefaults, AttrMap())
    .MINITVM_RELAX_OP_TRAITS(kOpaque, true, InferCallPurePacked);

namespace op {

Call call_tir(Expr gvar, Any args, Any out_sinfo, Any tir_vars) {
  Array<Expr> call_args{gvar, ArgsTuple(args, "relax.call_tir")};
  if (!tir_vars.is_null())
    call_args.push_back(ShapeOperand(tir_vars, "relax.call_tir", "tir_vars"));
  return MakeOpCall("relax.call_tir", call_args, {},
                    OutSInfo(out_sinfo, "relax.call_tir", "out_sinfo"));
}

Call call_dps_packed(Any func, Any args, Any out_sinfo) {
  return MakeOpCall(
      "relax.call_dps_packed",
      {FuncOperand(func, "relax.call_dps_packed"), ArgsTuple(args, "relax.call_dps_packed")}, {},
      OutSInfo(out_sinfo, "relax.call_dps_packed", "out_sinfo"));
}

Call call_pure_packed(Any func, Array<Expr> args, Any sinfo_args) {
  Array<Expr> call_args{FuncOperand(func, "relax.call_pure_packed")};
  for (const Expr& a : args) call_args.push_back(a);
  return MakeOpCall("relax.call_pure_packed", call_args, {},
                    OutSInfo(sinfo_args, "relax.call_pure_packed", "sinfo_args"));
}

}  // namespace op

MINITVM_REGISTER_GLOBAL("relax.op.call_tir").set_body_typed(op::call_tir);
MINITVM_REGISTER_GLOBAL("relax.op.call_dps_packed").set_body_typed(op::call_dps_packed);
MINITVM_REGISTER_GLOBAL("relax.op.call_pure_packed").set_body_typed(op::call_pure_packed);

}  // namespace relax
}  // namespace minitvm

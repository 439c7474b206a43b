/*!
 * \file relax_vm_lower_test.cc
 * \brief Tests of the Relax-to-VM lowering and VM code generation (stage 5): the structure of
 * a small MLP after each lowering pass (CallTIRRewrite, StaticPlanBlockMemory,
 * LowerAllocTensor, KillAfterLastUse, LowerRuntimeBuiltin, VMShapeLower, AttachGlobalSymbol),
 * the memory plan's figures (planned peak ≤ sum of intermediates, ≥ largest live set), symbolic
 * shapes through the shape heap, `If` as If/Goto bytecode, the executable's text, the errors,
 * and — with the VM — the compiled MLP against the reference interpreter.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "minitvm/lownumpy/creation.h"
#include "minitvm/relax/analysis.h"
#include "minitvm/relax/block_builder.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/interpreter.h"
#include "minitvm/relax/op.h"
#include "minitvm/relax/transform.h"
#include "minitvm/relax_vm/build.h"
#include "minitvm/relax_vm/codegen_vm.h"
#include "minitvm/relax_vm/executable.h"
#include "minitvm/relax_vm/transform.h"
#include "minitvm/relax_vm/vm.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/te/create_prim_func.h"
#include "minitvm/te/operation.h"
#include "minitvm/tir/op.h"
#include "minitvm_test_util.h"

namespace minitvm {
namespace relax_vm {
namespace {

using namespace relax;  // NOLINT(build/namespaces)
using runtime::Any;
namespace ln = lownumpy;

const DataType kF32 = DataType::Float(32);
const DataType kI64 = DataType::Int(64);

Array<PrimExpr> Dims(const std::vector<PrimExpr>& dims) { return Array<PrimExpr>(dims); }
PrimExpr I(int64_t v) { return IntImm(kI64, v); }

/*! \brief Occurrences of `needle` in `text`. */
int64_t Count(const std::string& text, const std::string& needle) {
  int64_t n = 0;
  for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

/*!
 * \brief The course's MLP: `relu(x @ w0 + b0) @ w1 + b1`, batch `batch` (an int, or a
 * symbolic variable), 784-256-10, legalized (every op a call_tir).
 */
IRModule MLP(PrimExpr batch, bool legalize = true) {
  Var x("x", TensorStructInfo(ShapeExpr(Dims({batch, I(784)})), kF32));
  Var w0("w0", TensorStructInfo(ShapeExpr(Dims({I(784), I(256)})), kF32));
  Var b0("b0", TensorStructInfo(ShapeExpr(Dims({I(256)})), kF32));
  Var w1("w1", TensorStructInfo(ShapeExpr(Dims({I(256), I(10)})), kF32));
  Var b1("b1", TensorStructInfo(ShapeExpr(Dims({I(10)})), kF32));
  BlockBuilder bb;
  bb.BeginFunction("main", {x, w0, b0, w1, b1});
  bb.BeginDataflowBlock();
  Var lv0 = bb.Emit(op::matmul(x, w0), "lv0");
  Var lv1 = bb.Emit(op::add(lv0, b0), "lv1");
  Var lv2 = bb.Emit(op::nn::relu(lv1), "lv2");
  Var lv3 = bb.Emit(op::matmul(lv2, w1), "lv3");
  Var gv = bb.EmitOutput(op::add(lv3, b1), "gv");
  bb.EndBlock();
  bb.EmitFuncOutput(gv);
  IRModule mod = bb.Get();
  return legalize ? relax::transform::LegalizeOps()(mod) : mod;
}

Function MainOf(const IRModule& mod) { return Downcast<Function>(mod["main"]); }
std::string Text(const IRModule& mod) { return minitvm::transform::ModuleText(mod); }

/*! \brief Every call's callee / op name in a function, in order. */
class CallNames : public ExprVisitor {
 public:
  void VisitExpr_(const CallNode* op) override {
    if (const auto* o = op->op.as<OpNode>()) names.push_back(o->name.str());
    if (const auto* e = op->op.as<ExternFuncNode>()) names.push_back(e->global_symbol.str());
    if (const auto* g = op->op.as<GlobalVarNode>()) names.push_back("@" + g->name_hint.str());
    if (IsOp(op->op, "relax.call_builtin_with_ctx")) {
      names.back() = op->args[0].as<ExternFuncNode>()->global_symbol.str();
    }
    ExprVisitor::VisitExpr_(op);
  }
  int64_t Count(const std::string& name) const {
    return std::count(names.begin(), names.end(), name);
  }
  std::vector<std::string> names;
};

CallNames NamesOf(const IRModule& mod) {
  CallNames c;
  c.VisitExpr(MainOf(mod));
  return c;
}

bool HasDataflowBlock(const Function& f) {
  for (const BindingBlock& b : f->body.as<SeqExprNode>()->blocks) {
    if (b.as<DataflowBlockNode>()) return true;
  }
  return false;
}

// ---- the passes, one at a time --------------------------------------------------------------

TEST(RelaxVMLower, CallTIRRewriteMakesOutputsExplicit) {
  IRModule mod = CallTIRRewrite()(MLP(I(1)));
  CallNames names = NamesOf(mod);
  EXPECT_EQ(names.Count("relax.call_tir"), 0);
  EXPECT_EQ(names.Count("relax.builtin.alloc_tensor"), 5);
  // One impure kernel call per op, with the inputs and then the output.
  int64_t kernel_calls = 0;
  for (const std::string& n : names.names) kernel_calls += n[0] == '@';
  EXPECT_EQ(kernel_calls, 5);
  Function main = MainOf(mod);
  EXPECT_FALSE(HasDataflowBlock(main));
  EXPECT_TRUE(main->GetAttr<bool>("relax.force_pure").value_or(false));
  EXPECT_TRUE(WellFormed(mod)) << Text(mod);
  std::string text = Text(mod);
  EXPECT_NE(text.find("R.builtin.alloc_tensor(R.shape([1, 256]), R.dtype(\"float32\")"),
            std::string::npos)
      << text;
  // The result is the last allocation itself.
  const auto* seq = main->body.as<SeqExprNode>();
  EXPECT_TRUE(seq->body.as<VarNode>());
}

TEST(RelaxVMLower, CallTIRRewriteKeepsOtherModulesUnchanged) {
  IRModule mod = MLP(I(1), /*legalize=*/false);
  // No call_tir at all: still, dataflow blocks go (the pass is ToNonDataflow as well).
  IRModule out = CallTIRRewrite()(mod);
  EXPECT_FALSE(HasDataflowBlock(MainOf(out)));
  EXPECT_FALSE(MainOf(out)->GetAttr<bool>("relax.force_pure").has_value());
}

TEST(RelaxVMLower, StaticPlanReusesStorage) {
  IRModule mod = StaticPlanBlockMemory()(CallTIRRewrite()(MLP(I(1))));
  CallNames names = NamesOf(mod);
  // Four intermediates in two storages; the result keeps its own allocation.
  EXPECT_EQ(names.Count("relax.memory.alloc_tensor"), 4);
  EXPECT_EQ(names.Count("relax.memory.alloc_storage"), 2);
  EXPECT_EQ(names.Count("relax.builtin.alloc_tensor"), 1);
  // lv0 (1x256 f32) and lv1 are alive together: 2 x 1024 bytes; lv2 reuses lv0's storage and
  // lv3 (1x10) lv1's.
  EXPECT_EQ(MainOf(mod)->GetAttr<int64_t>(kMemoryPlanPeakBytes).value_or(-1), 2048);
  EXPECT_TRUE(WellFormed(mod)) << Text(mod);
}

TEST(RelaxVMLower, PlannedMemoryFigures) {
  for (int64_t batch : {1, 64}) {
    IRModule mod = MLP(I(batch));
    auto f = runtime::Registry::Get("relax.vm.PlannedMemory");
    ASSERT_TRUE(f.has_value());
    Map<String, Array<Any>> figures = (*f)(mod).cast<Map<String, Array<Any>>>();
    Array<Any> m = figures["main"];
    int64_t planned = m[0].cast<int64_t>(), sum = m[1].cast<int64_t>(), live = m[2].cast<int64_t>();
    EXPECT_EQ(sum, batch * (256 * 3 + 10) * 4);
    EXPECT_EQ(live, batch * 256 * 2 * 4);
    EXPECT_LE(planned, sum);
    EXPECT_GE(planned, live);
    EXPECT_EQ(planned, live);  // the greedy plan is optimal on a chain
    PlannedMemory direct = EstimatePlannedMemory(MainOf(CallTIRRewrite()(mod)));
    EXPECT_EQ(direct.planned_bytes, planned);
  }
}

TEST(RelaxVMLower, LowerAllocTensorAndKills) {
  IRModule mod =
      KillAfterLastUse()(LowerAllocTensor()(StaticPlanBlockMemory()(CallTIRRewrite()(MLP(I(1))))));
  CallNames names = NamesOf(mod);
  EXPECT_EQ(names.Count("relax.builtin.alloc_tensor"), 0);
  EXPECT_EQ(names.Count("relax.memory.alloc_storage"), 3);
  EXPECT_EQ(names.Count("relax.memory.alloc_tensor"), 5);
  // Every intermediate is killed, and both planned storages; the result and its storage not.
  EXPECT_EQ(names.Count("relax.memory.kill_tensor"), 4);
  EXPECT_EQ(names.Count("relax.memory.kill_storage"), 2);
  EXPECT_TRUE(WellFormed(mod)) << Text(mod);
  // A kill comes after the last use: lv0's kill follows the kernel call that reads it.
  std::string text = Text(mod);
  size_t kill = text.find("R.memory.kill_tensor(lv0)");
  ASSERT_NE(kill, std::string::npos) << text;
  size_t use = text.rfind("lv0", kill - 1);
  size_t add = text.find("cls.add(lv0", 0);
  ASSERT_NE(add, std::string::npos) << text;
  EXPECT_LT(add, kill);
  (void)use;
}

TEST(RelaxVMLower, LowerRuntimeBuiltinCallsBuiltins) {
  IRModule mod = LowerRuntimeBuiltin()(
      KillAfterLastUse()(LowerAllocTensor()(StaticPlanBlockMemory()(CallTIRRewrite()(MLP(I(1)))))));
  CallNames names = NamesOf(mod);
  EXPECT_EQ(names.Count("relax.memory.alloc_storage"), 0);
  EXPECT_EQ(names.Count("relax.memory.alloc_tensor"), 0);
  EXPECT_EQ(names.Count("vm.builtin.alloc_storage"), 3);
  EXPECT_EQ(names.Count("vm.builtin.alloc_tensor"), 5);
  EXPECT_EQ(names.Count("relax.memory.kill_tensor"), 4);  // kills stay for code generation
  std::string text = Text(mod);
  EXPECT_NE(text.find("R.call_builtin_with_ctx(\"vm.builtin.alloc_storage\""), std::string::npos)
      << text;
  EXPECT_NE(text.find("R.call_packed(\"vm.builtin.alloc_tensor\""), std::string::npos) << text;
}

TEST(RelaxVMLower, VMShapeLowerChecksArguments) {
  IRModule mod = LoweringPipeline()(MLP(I(1)));
  CallNames names = NamesOf(mod);
  EXPECT_EQ(names.Count("vm.builtin.check_tensor_info"), 5);
  EXPECT_EQ(names.Count("vm.builtin.match_shape"), 5);
  EXPECT_EQ(names.Count("vm.builtin.alloc_shape_heap"), 0);  // no symbolic variable
  EXPECT_EQ(names.Count("vm.builtin.null_value"), 1);
  std::string text = Text(mod);
  EXPECT_NE(text.find("\"main: argument w0\""), std::string::npos) << text;
  EXPECT_TRUE(WellFormed(mod)) << text;
  // AttachGlobalSymbol: every function has one.
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    EXPECT_EQ(mod->Lookup(gv)->GetAttr<String>("global_symbol").value_or("").str(),
              gv->name_hint.str());
  }
}

TEST(RelaxVMLower, SymbolicBatchUsesTheShapeHeap) {
  tir::Var n("n", kI64);
  IRModule mod = LoweringPipeline()(MLP(n));
  CallNames names = NamesOf(mod);
  std::string text = Text(mod);
  EXPECT_EQ(names.Count("vm.builtin.alloc_shape_heap"), 1) << text;
  EXPECT_GE(names.Count("vm.builtin.make_shape"), 1) << text;
  EXPECT_GE(names.Count("vm.builtin.heap_binop"), 1) << text;  // storage bytes n * 1024
  // No symbolic ShapeExpr is left for code generation.
  EXPECT_EQ(text.find("R.shape([n"), std::string::npos) << text;
  // Nothing is planned statically: every allocation has a storage of its own.
  EXPECT_EQ(MainOf(mod)->GetAttr<int64_t>(kMemoryPlanPeakBytes).value_or(-1), 0);
  auto exec = CodeGenVM(mod);
  EXPECT_NE(exec->AsText().find("vm.builtin.match_shape"), std::string::npos);
}

TEST(RelaxVMLower, UndefinedSymbolicVariableIsAnError) {
  tir::Var n("n", kI64), m("m", kI64);
  Var x("x", TensorStructInfo(ShapeExpr(Dims({n})), kF32));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginBindingBlock();
  Var s = bb.Emit(ShapeExpr(Dims({m, I(2)})), "s");
  bb.EndBlock();
  bb.EmitFuncOutput(s);
  IRModule mod = bb.Get();
  EXPECT_MINITVM_ERROR(VMShapeLower()(mod), "ValueError",
                       "the symbolic variable m is used but no parameter or R.match_cast");
}

// ---- code generation ------------------------------------------------------------------------

TEST(RelaxVMCodeGen, MLPBytecode) {
  IRModule mod = LoweringPipeline()(MLP(I(1)));
  auto exec = CodeGenVM(mod);
  ASSERT_TRUE(exec->func_map.count("main"));
  const VMFuncInfo& main = exec->func_table[exec->func_map.at("main")];
  EXPECT_EQ(main.kind, VMFuncInfo::Kind::kVMFunc);
  EXPECT_EQ(main.num_args, 5);
  EXPECT_EQ(main.param_names, (std::vector<std::string>{"x", "w0", "b0", "w1", "b1"}));
  EXPECT_GE(main.register_file_size, 5);
  // Every kernel and builtin is a packed entry.
  for (const char* name :
       {"vm.builtin.alloc_storage", "vm.builtin.alloc_tensor", "vm.builtin.check_tensor_info",
        "vm.builtin.match_shape", "vm.builtin.null_value", "matmul", "add", "relu"}) {
    ASSERT_TRUE(exec->func_map.count(name)) << name << "\n" << exec->AsText();
    EXPECT_EQ(exec->func_table[exec->func_map.at(name)].kind, VMFuncInfo::Kind::kPackedFunc);
  }
  // The last instruction returns; there is no control flow.
  ASSERT_GT(main.end_instr, main.start_instr);
  const Instruction& last = exec->instructions[main.end_instr - 1];
  EXPECT_EQ(last.op, Instruction::Opcode::kRet);
  std::string text = exec->AsText();
  EXPECT_EQ(text.rfind("@main(x, w0, b0, w1, b1):\n", 0), 0u) << text;
  EXPECT_NE(text.find("call  vm.builtin.alloc_storage in: %vm, c["), std::string::npos) << text;
  EXPECT_NE(text.find("call  matmul in: %0, %1, %"), std::string::npos) << text;
  EXPECT_EQ(Count(text, "  ret   %"), 1) << text;
  EXPECT_EQ(Count(text, "  if    "), 0);
  std::string stats = exec->Stats();
  EXPECT_NE(stats.find("VM functions (1): main (5 args"), std::string::npos) << stats;
  EXPECT_NE(stats.find("shape (1, 256)"), std::string::npos) << stats;
  EXPECT_NE(stats.find("str \"float32\""), std::string::npos) << stats;
}

TEST(RelaxVMCodeGen, IfBecomesIfAndGoto) {
  Var c("c", TensorStructInfo(ShapeExpr(Array<PrimExpr>()), DataType::Bool()));
  Var x("x", TensorStructInfo(ShapeExpr(Dims({I(4)})), kF32));
  Var y("y", TensorStructInfo(ShapeExpr(Dims({I(4)})), kF32));
  BlockBuilder bb;
  bb.BeginFunction("main", {c, x, y});
  bb.BeginBindingBlock();
  Expr t = SeqExpr({}, x);
  Expr f = SeqExpr({}, y);
  Var r = bb.Emit(If(c, t, f), "r");
  bb.EndBlock();
  bb.EmitFuncOutput(r);
  IRModule mod = LoweringPipeline()(bb.Get());
  auto exec = CodeGenVM(mod);
  const VMFuncInfo& main = exec->func_table[exec->func_map.at("main")];
  std::string text = exec->AsText();
  int64_t if_pc = -1, goto_pc = -1;
  for (int64_t pc = main.start_instr; pc < main.end_instr; ++pc) {
    if (exec->instructions[pc].op == Instruction::Opcode::kIf) if_pc = pc;
    if (exec->instructions[pc].op == Instruction::Opcode::kGoto) goto_pc = pc;
  }
  ASSERT_GE(if_pc, 0) << text;
  ASSERT_GT(goto_pc, if_pc) << text;
  // The condition comes from read_if_cond; the false branch starts right after the Goto, and
  // the Goto lands after the false branch's copy, on the Ret.
  const Instruction& before = exec->instructions[if_pc - 1];
  EXPECT_EQ(exec->func_table[before.func_idx].name, "vm.builtin.read_if_cond");
  EXPECT_EQ(exec->instructions[if_pc].cond, before.dst);
  EXPECT_EQ(if_pc + exec->instructions[if_pc].false_offset, goto_pc + 1);
  int64_t target = goto_pc + exec->instructions[goto_pc].pc_offset;
  ASSERT_LT(target, main.end_instr);
  EXPECT_EQ(exec->instructions[target].op, Instruction::Opcode::kRet) << text;
  EXPECT_EQ(exec->instructions[target].result, exec->instructions[target - 1].dst) << text;
}

TEST(RelaxVMCodeGen, UnloweredOperatorIsAnError) {
  EXPECT_MINITVM_ERROR(CodeGenVM(MLP(I(1), /*legalize=*/false)), "ValueError",
                       "the operator relax.matmul has no VM code");
  tir::Var n("n", kI64);
  // A symbolic shape that VMShapeLower has not computed.
  IRModule mod = LowerRuntimeBuiltin()(LowerAllocTensor()(CallTIRRewrite()(MLP(n))));
  EXPECT_MINITVM_ERROR(CodeGenVM(mod), "ValueError", "run VMShapeLower");
}

TEST(RelaxVMCodeGen, RegisteredGlobals) {
  for (const char* name :
       {"relax.transform.CallTIRRewrite", "relax.transform.StaticPlanBlockMemory",
        "relax.transform.LowerAllocTensor", "relax.transform.KillAfterLastUse",
        "relax.transform.LowerRuntimeBuiltin", "relax.transform.VMShapeLower",
        "relax.transform.AttachGlobalSymbol", "relax.vm.LoweringPipeline", "relax.vm.PlannedMemory",
        "relax.VMCodeGen"}) {
    EXPECT_TRUE(runtime::Registry::Get(name).has_value()) << name;
  }
  runtime::Module m = (*runtime::Registry::Get("relax.VMCodeGen"))(LoweringPipeline()(MLP(I(1))))
                          .cast<runtime::Module>();
  EXPECT_EQ(m->kind(), "relax.Executable");
}

// ---- end to end: lowering + code generation + the LLVM kernels + the VM ----------------------

/*! \brief Largest |a - b| over two float32 arrays of one shape. */
double MaxAbsDiff(const NDArray& a, const NDArray& b) {
  EXPECT_EQ(a.Shape(), b.Shape());
  const float* pa = static_cast<const float*>(a->data);
  const float* pb = static_cast<const float*>(b->data);
  double m = 0;
  for (int64_t i = 0; i < a.NumElements(); ++i) m = std::max(m, std::fabs(double(pa[i]) - pb[i]));
  return m;
}

std::vector<Any> MLPInputs(int64_t batch, uint64_t seed) {
  std::vector<std::vector<int64_t>> shapes = {{batch, 784}, {784, 256}, {256}, {256, 10}, {10}};
  std::vector<Any> args;
  for (const auto& s : shapes) {
    args.push_back(ln::random_uniform(s, -0.5, 0.5, seed++, kF32));
  }
  return args;
}

/*! \brief Call a packed function with a vector of arguments. */
Any CallWith(const runtime::PackedFunc& f, std::vector<Any> args) {
  Any rv;
  f.CallPacked(runtime::PackedArgs(args.data(), static_cast<int>(args.size())), &rv);
  return rv;
}

runtime::Module MakeVM(const IRModule& mod) {
  runtime::Module exec = Build(mod, Any("llvm"), Any(relax::transform::LegalizeOps()));
  runtime::Module vm = VirtualMachineCreate(GetExecutable(exec, "the MLP"));
  vm["vm_initialization"](static_cast<int64_t>(runtime::CPU().device_type), int64_t{0}, int64_t{2});
  return vm;
}

TEST(RelaxVMEndToEnd, StaticMLPMatchesTheInterpreter) {
  for (int64_t batch : {1, 64}) {
    IRModule mod = MLP(I(batch), /*legalize=*/false);
    runtime::Module vm = MakeVM(mod);
    for (uint64_t seed : {1u, 7u}) {
      std::vector<Any> args = MLPInputs(batch, seed);
      NDArray expected = Interpret(mod, "main", args).cast<NDArray>();
      runtime::PackedFunc main = vm["main"];
      NDArray got = CallWith(main, args).cast<NDArray>();
      EXPECT_LT(MaxAbsDiff(got, expected), 1e-4) << "batch " << batch;
      // A second call reuses nothing it should not: same inputs, same result.
      NDArray again = CallWith(main, args).cast<NDArray>();
      EXPECT_EQ(MaxAbsDiff(again, expected), MaxAbsDiff(got, expected));
    }
  }
}

/*!
 * \brief main(x: (4, 6)) = exp(r) + r with r = reshape(exp(x), (2, 12)) (or a transpose when
 * `transpose`): y's storage must outlive the view r.
 */
IRModule ReshapeModule(bool transpose) {
  Var x("x", TensorStructInfo(ShapeExpr(Dims({I(4), I(6)})), kF32));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflowBlock();
  Var y = bb.Emit(op::exp(x));
  Var r = bb.Emit(transpose ? op::permute_dims(y)
                            : op::reshape(y, Array<Any>{Any(int64_t{2}), Any(int64_t{12})}));
  Var z = bb.Emit(op::exp(r));
  Var out = bb.EmitOutput(op::add(bb.Emit(op::negative(z)), r));
  bb.EndBlock();
  bb.EmitFuncOutput(out);
  return bb.Get();
}

TEST(RelaxVMEndToEnd, RewriteDataflowReshapeMakesAViewThatMatchesTheInterpreter) {
  for (bool transpose : {false, true}) {
    IRModule mod = ReshapeModule(transpose);
    IRModule legal = relax::transform::LegalizeOps()(mod);
    IRModule after = RewriteDataflowReshape()(legal);
    EXPECT_EQ(NamesOf(after).Count("relax.reshape"), transpose ? 0 : 1);
    EXPECT_EQ(after.same_as(legal), transpose);
    runtime::Module vm = MakeVM(mod);
    for (uint64_t seed : {3u, 4u}) {
      std::vector<Any> args = {ln::random_uniform({4, 6}, -1, 1, seed, kF32)};
      NDArray expected = Interpret(mod, "main", args).cast<NDArray>();
      EXPECT_LT(MaxAbsDiff(CallWith(vm["main"], args).cast<NDArray>(), expected), 1e-5);
    }
  }
}

TEST(RelaxVMEndToEnd, SymbolicBatchRunsForAnyBatch) {
  tir::Var n("n", kI64);
  IRModule mod = MLP(n, /*legalize=*/false);
  runtime::Module vm = MakeVM(mod);
  runtime::PackedFunc main = vm["main"];
  for (int64_t batch : {1, 3, 17}) {
    std::vector<Any> args = MLPInputs(batch, 100 + batch);
    NDArray expected = Interpret(mod, "main", args).cast<NDArray>();
    NDArray got = CallWith(main, args).cast<NDArray>();
    EXPECT_EQ(got.Shape(), (std::vector<int64_t>{batch, 10}));
    EXPECT_LT(MaxAbsDiff(got, expected), 1e-4) << "batch " << batch;
  }
  // A wrong argument is refused before any kernel runs, naming it and both values.
  std::vector<Any> bad = MLPInputs(2, 5);
  bad[1] = ln::random_uniform({700, 256}, -1, 1, 3, kF32);
  EXPECT_MINITVM_ERROR(CallWith(main, bad), "ValueError", "main: argument w0");
}

/*! \brief `main(x, y)`: a two-output kernel (x + y, x - y), taken apart, multiplied. */
IRModule TwoOutputModule() {
  Var x("x", TensorStructInfo(ShapeExpr(Dims({I(8)})), kF32));
  Var y("y", TensorStructInfo(ShapeExpr(Dims({I(8)})), kF32));
  BlockBuilder bb;
  bb.BeginFunction("main", {x, y});
  bb.BeginDataflowBlock();
  Var t = bb.EmitTE(
      [](const Array<te::Tensor>& in) {
        te::Tensor a = in[0], b = in[1];
        te::Tensor sum = te::compute(
            a->shape, [&](tir::Var i) -> PrimExpr { return minitvm::operator+(a(i), b(i)); },
            "sum");
        te::Tensor diff = te::compute(
            a->shape, [&](tir::Var i) -> PrimExpr { return minitvm::operator-(a(i), b(i)); },
            "diff");
        return Array<te::Tensor>{sum, diff};
      },
      {x, y}, "sum_diff");
  Var a = bb.Emit(TupleGetItem(t, 0), "a");
  Var b = bb.Emit(TupleGetItem(t, 1), "b");
  Var gv = bb.EmitOutput(op::multiply(a, b), "gv");
  bb.EndBlock();
  bb.EmitFuncOutput(gv);
  return bb.Get();
}

TEST(RelaxVMLower, SeveralOutputsBecomeATupleOfAllocations) {
  IRModule mod = CallTIRRewrite()(relax::transform::LegalizeOps()(TwoOutputModule()));
  std::string text = Text(mod);
  EXPECT_NE(text.find("cls.sum_diff(x, y, alloc, alloc1"), std::string::npos) << text;
  EXPECT_NE(text.find("= (alloc, alloc1)"), std::string::npos) << text;
  // Both outputs live until the multiply reads them through the tuple: 2 x 32 bytes at once.
  PlannedMemory m = EstimatePlannedMemory(MainOf(mod));
  EXPECT_EQ(m.sum_of_intermediates, 64);
  EXPECT_EQ(m.largest_live_set, 64);
  EXPECT_EQ(m.planned_bytes, 64);
  IRModule lowered = LoweringPipeline()(mod);
  CallNames names = NamesOf(lowered);
  EXPECT_EQ(names.Count("vm.builtin.make_tuple"), 1);
  EXPECT_EQ(names.Count("vm.builtin.tuple_getitem"), 2);
}

TEST(RelaxVMEndToEnd, SeveralOutputsMatchTheInterpreter) {
  IRModule mod = TwoOutputModule();
  runtime::Module vm = MakeVM(mod);
  std::vector<Any> args = {ln::random_uniform({8}, -1, 1, 1, kF32),
                           ln::random_uniform({8}, -1, 1, 2, kF32)};
  NDArray expected = Interpret(mod, "main", args).cast<NDArray>();
  NDArray got = CallWith(vm["main"], args).cast<NDArray>();
  EXPECT_LT(MaxAbsDiff(got, expected), 1e-6);
}

TEST(RelaxVMEndToEnd, IfWithKernelsInTheBranches) {
  Var c("c", TensorStructInfo(ShapeExpr(Array<PrimExpr>()), DataType::Bool()));
  Var x("x", TensorStructInfo(ShapeExpr(Dims({I(6)})), kF32));
  Expr relu = Normalize(op::nn::relu(x));
  Var t("t", GetStructInfo(relu));
  Expr twice = Normalize(op::add(x, x));
  Var u("u", GetStructInfo(twice));
  Expr then_branch = SeqExpr({BindingBlock({VarBinding(t, relu)})}, t);
  Expr else_branch = SeqExpr({BindingBlock({VarBinding(u, twice)})}, u);
  BlockBuilder bb;
  bb.BeginFunction("main", {c, x});
  bb.BeginBindingBlock();
  Var r = bb.Emit(If(c, then_branch, else_branch), "r");
  bb.EndBlock();
  bb.EmitFuncOutput(r);
  IRModule mod = bb.Get();
  runtime::Module vm = MakeVM(mod);
  for (bool cond : {true, false}) {
    NDArray cv = NDArray::Empty({}, DataType::Bool());
    *static_cast<bool*>(cv->data) = cond;
    std::vector<Any> args = {cv, ln::random_uniform({6}, -1, 1, 9, kF32)};
    NDArray expected = Interpret(mod, "main", args).cast<NDArray>();
    NDArray got = CallWith(vm["main"], args).cast<NDArray>();
    EXPECT_LT(MaxAbsDiff(got, expected), 1e-6) << "cond " << cond;
  }
}

TEST(RelaxVMEndToEnd, CallDPSPackedCallsTheRegisteredFunction) {
  runtime::Registry::Register("test.vm_lower.add_one", /*override=*/true)
      .set_body_typed([](NDArray in, NDArray out) {
        const float* a = static_cast<const float*>(in->data);
        float* b = static_cast<float*>(out->data);
        for (int64_t i = 0; i < in.NumElements(); ++i) b[i] = a[i] + 1.0f;
      });
  Var x("x", TensorStructInfo(ShapeExpr(Dims({I(2), I(3)})), kF32));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflowBlock();
  Var y = bb.Emit(op::call_dps_packed(Any(String("test.vm_lower.add_one")), Any(Array<Expr>{x}),
                                      Any(GetStructInfo(x))),
                  "y");
  Var gv = bb.EmitOutput(op::nn::relu(y), "gv");
  bb.EndBlock();
  bb.EmitFuncOutput(gv);
  IRModule mod = bb.Get();
  IRModule lowered = LoweringPipeline()(relax::transform::LegalizeOps()(mod));
  EXPECT_EQ(NamesOf(lowered).Count("test.vm_lower.add_one"), 1) << Text(lowered);
  runtime::Module vm = MakeVM(mod);
  std::vector<Any> args = {ln::random_uniform({2, 3}, -2, 2, 4, kF32)};
  NDArray expected = Interpret(mod, "main", args).cast<NDArray>();
  NDArray got = CallWith(vm["main"], args).cast<NDArray>();
  EXPECT_LT(MaxAbsDiff(got, expected), 1e-6);
}

TEST(RelaxVMEndToEnd, MatchCastDefinesAndChecksShapes) {
  // main(x: R.Tensor(ndim=2)): y = R.match_cast(x, R.Tensor((n, 4))); relu(y)
  tir::Var n("n", kI64);
  Var x("x", TensorStructInfo(kF32, 2));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflowBlock();
  Var y = bb.EmitMatchCast(x, TensorStructInfo(ShapeExpr(Dims({n, I(4)})), kF32), "y");
  Var gv = bb.EmitOutput(op::nn::relu(y), "gv");
  bb.EndBlock();
  bb.EmitFuncOutput(gv);
  IRModule mod = bb.Get();
  IRModule lowered = LoweringPipeline()(relax::transform::LegalizeOps()(mod));
  EXPECT_NE(Text(lowered).find("\"main: match_cast of y\""), std::string::npos) << Text(lowered);
  runtime::Module vm = MakeVM(mod);
  std::vector<Any> args = {ln::random_uniform({3, 4}, -1, 1, 2, kF32)};
  NDArray expected = Interpret(mod, "main", args).cast<NDArray>();
  NDArray got = CallWith(vm["main"], args).cast<NDArray>();
  EXPECT_LT(MaxAbsDiff(got, expected), 1e-6);
  std::vector<Any> bad = {ln::random_uniform({3, 5}, -1, 1, 2, kF32)};
  EXPECT_MINITVM_ERROR(CallWith(vm["main"], bad), "ValueError", "main: match_cast of y");
}

TEST(RelaxVMEndToEnd, TirVarsComeFromTheShapeHeap) {
  // main(x: R.Tensor((4,)), s: R.Shape([m])): R.call_tir(add_m, (x,), tir_vars=R.shape([m])),
  // add_m(A, B, m): B[i] = A[i] + m — m reaches the kernel as an int from the shape heap.
  tir::Var m("m", kI64);
  te::Tensor a = te::placeholder({I(4)}, kF32, "A");
  te::Tensor b = te::compute(
      {I(4)}, [&](tir::Var i) -> PrimExpr { return minitvm::operator+(a(i), tir::Cast(kF32, m)); },
      "B");
  tir::PrimFunc add_m = te::CreatePrimFuncFromArgs({a, b, m});
  Var x("x", TensorStructInfo(ShapeExpr(Dims({I(4)})), kF32));
  Var s("s", ShapeStructInfo(Dims({m})));
  BlockBuilder bb;
  GlobalVar gv_add = bb.AddFunction(add_m, "add_m");
  bb.BeginFunction("main", {x, s});
  bb.BeginDataflowBlock();
  Var gv = bb.EmitOutput(
      op::call_tir(gv_add, Any(Array<Expr>{x}), Any(GetStructInfo(x)), Any(ShapeExpr(Dims({m})))),
      "gv");
  bb.EndBlock();
  bb.EmitFuncOutput(gv);
  IRModule mod = bb.Get();
  IRModule lowered = LoweringPipeline()(mod);
  EXPECT_EQ(NamesOf(lowered).Count("vm.builtin.heap_load"), 1) << Text(lowered);
  runtime::Module vm = MakeVM(mod);
  std::vector<Any> args = {ln::random_uniform({4}, -1, 1, 2, kF32), ShapeTuple({5})};
  NDArray expected = Interpret(mod, "main", args).cast<NDArray>();
  NDArray got = CallWith(vm["main"], args).cast<NDArray>();
  EXPECT_LT(MaxAbsDiff(got, expected), 1e-6);
}

}  // namespace
}  // namespace relax_vm
}  // namespace minitvm

/*!
 * \file fuse_test.cc
 * \brief Stage 4: FuseOps and FuseTIR. Modules are written in TVMScript with PrimFuncs that
 * carry their "op_pattern"; each test runs the module before and after each pass in the Relax
 * reference interpreter on random inputs (the results must agree), checks the result is well
 * formed and that it prints and parses back, and counts the kernels (call_tir calls) left.
 */
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "minitvm/ir/structural.h"
#include "minitvm/lownumpy/creation.h"
#include "minitvm/relax/analysis.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/interpreter.h"
#include "minitvm/relax/transform.h"
#include "minitvm/script/tir_parser.h"
#include "minitvm/script/tir_printer.h"
#include "minitvm/tir/function.h"
#include "minitvm/tir/stmt_functor.h"
#include "minitvm_test_util.h"

namespace minitvm {
namespace relax {
namespace {

using runtime::Any;
using transform::PassContext;

// ---- the PrimFuncs the modules share ------------------------------------------------------------

const char* kHeader = R"(from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
)";

const char* kMatmul = R"(
    @T.prim_func
    def matmul(var_x: T.handle, var_w: T.handle, var_y: T.handle):
        T.func_attr({"op_pattern": 4, "tir.noalias": True})
        n = T.int64()
        k = T.int64()
        m = T.int64()
        X = T.match_buffer(var_x, (n, k))
        W = T.match_buffer(var_w, (k, m))
        Y = T.match_buffer(var_y, (n, m))
        for i, j, r in T.grid(n, m, k):
            with T.block("matmul"):
                vi, vj, vr = T.axis.remap("SSR", [i, j, r])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vr] * W[vr, vj]
)";

const char* kAddBias = R"(
    @T.prim_func
    def add(var_x: T.handle, var_b: T.handle, var_y: T.handle):
        T.func_attr({"op_pattern": 0, "tir.noalias": True})
        n = T.int64()
        m = T.int64()
        X = T.match_buffer(var_x, (n, m))
        B = T.match_buffer(var_b, (m,))
        Y = T.match_buffer(var_y, (n, m))
        for i, j in T.grid(n, m):
            with T.block("T_add"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = X[vi, vj] + B[vj]
)";

const char* kAdd2 = R"(
    @T.prim_func
    def add2(var_x: T.handle, var_y: T.handle, var_z: T.handle):
        T.func_attr({"op_pattern": 0, "tir.noalias": True})
        n = T.int64()
        m = T.int64()
        X = T.match_buffer(var_x, (n, m))
        Y = T.match_buffer(var_y, (n, m))
        Z = T.match_buffer(var_z, (n, m))
        for i, j in T.grid(n, m):
            with T.block("T_add"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = X[vi, vj] + Y[vi, vj]
)";

const char* kRelu = R"(
    @T.prim_func
    def relu(var_x: T.handle, var_y: T.handle):
        T.func_attr({"op_pattern": 0, "tir.noalias": True})
        n = T.int64()
        m = T.int64()
        X = T.match_buffer(var_x, (n, m))
        Y = T.match_buffer(var_y, (n, m))
        for i, j in T.grid(n, m):
            with T.block("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))
)";

/*! \brief An elementwise op marked opaque (as an extern kernel would be). */
const char* kOpaqueExp = R"(
    @T.prim_func
    def opaque_exp(var_x: T.handle, var_y: T.handle):
        T.func_attr({"op_pattern": 8, "tir.noalias": True})
        n = T.int64()
        m = T.int64()
        X = T.match_buffer(var_x, (n, m))
        Y = T.match_buffer(var_y, (n, m))
        for i, j in T.grid(n, m):
            with T.block("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.exp(X[vi, vj])
)";

const char* kRowSum = R"(
    @T.prim_func
    def row_sum(var_x: T.handle, var_y: T.handle):
        T.func_attr({"op_pattern": 3, "tir.noalias": True})
        n = T.int64()
        m = T.int64()
        X = T.match_buffer(var_x, (n, m))
        Y = T.match_buffer(var_y, (n,))
        for i, k in T.grid(n, m):
            with T.block("X_red"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    Y[vi] = T.float32(0)
                Y[vi] = Y[vi] + X[vi, vk]

    @T.prim_func
    def relu1d(var_x: T.handle, var_y: T.handle):
        T.func_attr({"op_pattern": 0, "tir.noalias": True})
        n = T.int64()
        X = T.match_buffer(var_x, (n,))
        Y = T.match_buffer(var_y, (n,))
        for i in range(n):
            with T.block("compute"):
                vi = T.axis.spatial(n, i)
                Y[vi] = T.max(X[vi], T.float32(0))
)";

const char* kTransposeReshape = R"(
    @T.prim_func
    def transpose(X: T.Buffer((4, 6), "float32"), Y: T.Buffer((6, 4), "float32")):
        T.func_attr({"op_pattern": 2, "tir.noalias": True})
        for i, j in T.grid(6, 4):
            with T.block("T_transpose"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = X[vj, vi]

    @T.prim_func
    def reshape(X: T.Buffer((6, 4), "float32"), Y: T.Buffer((3, 8), "float32")):
        T.func_attr({"op_pattern": 2, "tir.noalias": True})
        for i, j in T.grid(3, 8):
            with T.block("T_reshape"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = X[(vi * 8 + vj) // 4, (vi * 8 + vj) % 4]
)";

const char* kConv = R"(
    @T.prim_func
    def conv2d(X: T.Buffer((1, 2, 6, 6), "float32"), W: T.Buffer((3, 2, 3, 3), "float32"), Y: T.Buffer((1, 3, 4, 4), "float32")):
        T.func_attr({"op_pattern": 4, "tir.noalias": True})
        for b, o, h, w, c, kh, kw in T.grid(1, 3, 4, 4, 2, 3, 3):
            with T.block("conv2d_nchw"):
                vb, vo, vh, vw, vc, vkh, vkw = T.axis.remap("SSSSRRR", [b, o, h, w, c, kh, kw])
                with T.init():
                    Y[vb, vo, vh, vw] = T.float32(0)
                Y[vb, vo, vh, vw] = Y[vb, vo, vh, vw] + X[vb, vc, vh + vkh, vw + vkw] * W[vo, vc, vkh, vkw]

    @T.prim_func
    def add4(X: T.Buffer((1, 3, 4, 4), "float32"), B: T.Buffer((1, 3, 1, 1), "float32"), Y: T.Buffer((1, 3, 4, 4), "float32")):
        T.func_attr({"op_pattern": 0, "tir.noalias": True})
        for b, o, h, w in T.grid(1, 3, 4, 4):
            with T.block("T_add"):
                vb, vo, vh, vw = T.axis.remap("SSSS", [b, o, h, w])
                Y[vb, vo, vh, vw] = X[vb, vo, vh, vw] + B[vb, vo, 0, 0]

    @T.prim_func
    def relu4(X: T.Buffer((1, 3, 4, 4), "float32"), Y: T.Buffer((1, 3, 4, 4), "float32")):
        T.func_attr({"op_pattern": 0, "tir.noalias": True})
        for b, o, h, w in T.grid(1, 3, 4, 4):
            with T.block("compute"):
                vb, vo, vh, vw = T.axis.remap("SSSS", [b, o, h, w])
                Y[vb, vo, vh, vw] = T.max(X[vb, vo, vh, vw], T.float32(0))
)";

IRModule ParseModule(const std::vector<const char*>& prim_funcs, const std::string& main) {
  std::string text = kHeader;
  for (const char* f : prim_funcs) text += f;
  text += main;
  return Downcast<IRModule>(script::FromSource(text, "fuse_test.py"));
}

const char* kMlpMain = R"(
    @R.function
    def main(x: R.Tensor(("n", 16), "float32"), w0: R.Tensor((16, 32), "float32"), b0: R.Tensor((32,), "float32"), w1: R.Tensor((32, 8), "float32"), b1: R.Tensor((8,), "float32")) -> R.Tensor(("n", 8), "float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            lv0 = R.call_tir(cls.matmul, (x, w0), out_sinfo=R.Tensor((n, 32), "float32"))
            lv1 = R.call_tir(cls.add, (lv0, b0), out_sinfo=R.Tensor((n, 32), "float32"))
            lv2 = R.call_tir(cls.relu, (lv1,), out_sinfo=R.Tensor((n, 32), "float32"))
            lv3 = R.call_tir(cls.matmul, (lv2, w1), out_sinfo=R.Tensor((n, 8), "float32"))
            gv = R.call_tir(cls.add, (lv3, b1), out_sinfo=R.Tensor((n, 8), "float32"))
            R.output(gv)
        return gv
)";

// ---- helpers ------------------------------------------------------------------------------------

/*! \brief Calls in `main`: (call_tir, calls of Relax functions). */
std::pair<int, int> CountCalls(const IRModule& mod, const std::string& fname = "main") {
  struct Counter : ExprVisitor {
    int tir = 0, funcs = 0;
    void VisitExpr_(const CallNode* op) override {
      if (IsOp(op->op, "relax.call_tir")) ++tir;
      if (op->op.as<GlobalVarNode>()) ++funcs;
      ExprVisitor::VisitExpr_(op);
    }
  } c;
  c.VisitExpr(Downcast<Function>(mod->Lookup(fname)));
  return {c.tir, c.funcs};
}

/*! \brief The names of the module's functions with attribute "Primitive". */
std::vector<std::string> PrimitiveNames(const IRModule& mod) {
  std::vector<std::string> out;
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    BaseFunc f = mod->Lookup(gv);
    if (f.as<FunctionNode>() && f->attrs.Get(String("Primitive"))) out.push_back(gv->name_hint);
  }
  return out;
}

std::vector<std::string> PrimFuncNames(const IRModule& mod) {
  std::vector<std::string> out;
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    if (mod->Lookup(gv).as<tir::PrimFuncNode>()) out.push_back(gv->name_hint);
  }
  return out;
}

std::vector<Any> RandomArgs(const std::vector<std::vector<int64_t>>& shapes, uint64_t seed) {
  std::vector<Any> args;
  for (size_t i = 0; i < shapes.size(); ++i) {
    args.push_back(lownumpy::random_uniform(shapes[i], -1.0, 1.0, seed * 31 + i));
  }
  return args;
}

void ExpectSameResult(const IRModule& a, const IRModule& b, const std::vector<Any>& args) {
  NDArray x = Interpret(a, "main", args).cast<NDArray>();
  NDArray y = Interpret(b, "main", args).cast<NDArray>();
  ASSERT_EQ(x.Shape(), y.Shape());
  auto xv = testing::ToVector<float>(x), yv = testing::ToVector<float>(y);
  for (size_t i = 0; i < xv.size(); ++i) ASSERT_NEAR(xv[i], yv[i], 1e-4) << "element " << i;
}

/*! \brief Well formed, and prints to text that parses back to an equal module. */
void ExpectWellFormedAndRoundTrips(const IRModule& mod) {
  Array<String> problems = WellFormedViolations(mod);
  for (const String& p : problems) ADD_FAILURE() << "not well formed: " << p;
  std::string text = script::AsScript(mod);
  IRModule back = Downcast<IRModule>(script::FromSource(text, "printed.py"));
  // The printer orders functions by name: compare them one by one.
  ASSERT_EQ(back->functions.size(), mod->functions.size()) << text;
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    BaseFunc a = mod->Lookup(gv), b = back->Lookup(gv->name_hint);
    EXPECT_TRUE(StructuralEqual(a, b)) << gv->name_hint << ": " << StructuralDiff(a, b) << "\n"
                                       << text;
  }
}

/*! \brief FuseOps then FuseTIR, checking each step against the original. */
struct Fused {
  IRModule ops, tir;
};
Fused RunBoth(const IRModule& mod, const std::vector<std::vector<int64_t>>& shapes) {
  Fused f;
  f.ops = transform::FuseOps(-1)(mod);
  f.tir = transform::FuseTIR()(f.ops);
  for (uint64_t seed = 1; seed <= 2; ++seed) {
    auto args = RandomArgs(shapes, seed);
    ExpectSameResult(mod, f.ops, args);
    ExpectSameResult(mod, f.tir, args);
  }
  ExpectWellFormedAndRoundTrips(f.ops);
  ExpectWellFormedAndRoundTrips(f.tir);
  return f;
}

// ---- tests --------------------------------------------------------------------------------------

TEST(RelaxFuse, MlpBecomesTwoKernels) {
  IRModule mod = ParseModule({kMatmul, kAddBias, kRelu}, kMlpMain);
  EXPECT_EQ(CountCalls(mod), std::make_pair(5, 0));
  Fused f = RunBoth(mod, {{3, 16}, {16, 32}, {32}, {32, 8}, {8}});
  EXPECT_EQ(PrimitiveNames(f.ops),
            (std::vector<std::string>{"fused_matmul_add_relu", "fused_matmul_add"}));
  EXPECT_EQ(CountCalls(f.ops), std::make_pair(0, 2));
  EXPECT_EQ(CountCalls(f.tir), std::make_pair(2, 0));
  EXPECT_TRUE(PrimitiveNames(f.tir).empty());
  // The callees are gone; the fused PrimFuncs keep the Primitive functions' names.
  EXPECT_EQ(PrimFuncNames(f.tir),
            (std::vector<std::string>{"fused_matmul_add_relu", "fused_matmul_add"}));
  // Other batch sizes still agree (the batch dimension stays symbolic).
  auto args = RandomArgs({{5, 16}, {16, 32}, {32}, {32, 8}, {8}}, 7);
  ExpectSameResult(mod, f.tir, args);
}

TEST(RelaxFuse, FusedPrimFuncHasIntermediateBuffersAndUniqueNames) {
  IRModule mod = ParseModule({kMatmul, kAddBias, kRelu}, kMlpMain);
  IRModule fused = transform::FuseTIR()(transform::FuseOps(-1)(mod));
  auto prim = Downcast<tir::PrimFunc>(fused->Lookup("fused_matmul_add_relu"));
  // x, w0, b0 and the output.
  ASSERT_EQ(prim->params.size(), 4u);
  EXPECT_EQ(prim->params[0]->name_hint, "p_x");
  EXPECT_EQ(prim->params[3]->name_hint, "p_output0");
  auto* realize = prim->body.as<tir::BlockRealizeNode>();
  ASSERT_NE(realize, nullptr);
  std::vector<std::string> allocs;
  for (const tir::Buffer& b : realize->block->alloc_buffers) allocs.push_back(b->name);
  EXPECT_EQ(allocs, (std::vector<std::string>{"Y_intermediate", "Y_1_intermediate"}));
  std::vector<std::string> blocks;
  tir::PostOrderVisit(realize->block->body, [&](const ObjectRef& n) {
    if (auto* b = n.as<tir::BlockNode>()) blocks.push_back(b->name_hint);
  });
  EXPECT_EQ(blocks, (std::vector<std::string>{"matmul", "T_add", "compute"}));
  EXPECT_FALSE(prim->attrs.Get(String("global_symbol")));
}

TEST(RelaxFuse, ConvAddReluIsOneKernel) {
  IRModule mod = ParseModule({kConv}, R"(
    @R.function
    def main(x: R.Tensor((1, 2, 6, 6), "float32"), w: R.Tensor((3, 2, 3, 3), "float32"), b: R.Tensor((1, 3, 1, 1), "float32")) -> R.Tensor((1, 3, 4, 4), "float32"):
        cls = Module
        with R.dataflow():
            lv0 = R.call_tir(cls.conv2d, (x, w), out_sinfo=R.Tensor((1, 3, 4, 4), "float32"))
            lv1 = R.call_tir(cls.add4, (lv0, b), out_sinfo=R.Tensor((1, 3, 4, 4), "float32"))
            gv = R.call_tir(cls.relu4, (lv1,), out_sinfo=R.Tensor((1, 3, 4, 4), "float32"))
            R.output(gv)
        return gv
)");
  Fused f = RunBoth(mod, {{1, 2, 6, 6}, {3, 2, 3, 3}, {1, 3, 1, 1}});
  EXPECT_EQ(PrimitiveNames(f.ops), (std::vector<std::string>{"fused_conv2d_add4_relu4"}));
  EXPECT_EQ(CountCalls(f.tir), std::make_pair(1, 0));
  EXPECT_EQ(PrimFuncNames(f.tir), (std::vector<std::string>{"fused_conv2d_add4_relu4"}));
}

TEST(RelaxFuse, OpaqueOpStaysAlone) {
  IRModule mod = ParseModule({kAddBias, kRelu, kOpaqueExp}, R"(
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), b: R.Tensor((8,), "float32")) -> R.Tensor((4, 8), "float32"):
        cls = Module
        with R.dataflow():
            lv0 = R.call_tir(cls.add, (x, b), out_sinfo=R.Tensor((4, 8), "float32"))
            lv1 = R.call_tir(cls.relu, (lv0,), out_sinfo=R.Tensor((4, 8), "float32"))
            lv2 = R.call_tir(cls.opaque_exp, (lv1,), out_sinfo=R.Tensor((4, 8), "float32"))
            lv3 = R.call_tir(cls.relu, (lv2,), out_sinfo=R.Tensor((4, 8), "float32"))
            gv = R.call_tir(cls.add, (lv3, b), out_sinfo=R.Tensor((4, 8), "float32"))
            R.output(gv)
        return gv
)");
  Fused f = RunBoth(mod, {{4, 8}, {8}});
  EXPECT_EQ(PrimitiveNames(f.ops), (std::vector<std::string>{"fused_add_relu", "fused_relu_add"}));
  EXPECT_EQ(CountCalls(f.ops), std::make_pair(1, 2));
  EXPECT_EQ(CountCalls(f.tir), std::make_pair(3, 0));
  // The opaque kernel is still there, called by name.
  auto names = PrimFuncNames(f.tir);
  EXPECT_NE(std::find(names.begin(), names.end(), "opaque_exp"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "relu"), names.end());
}

TEST(RelaxFuse, ReductionEndsItsGroup) {
  IRModule mod = ParseModule({kAddBias, kRowSum}, R"(
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), b: R.Tensor((8,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        with R.dataflow():
            lv0 = R.call_tir(cls.add, (x, b), out_sinfo=R.Tensor((4, 8), "float32"))
            lv1 = R.call_tir(cls.row_sum, (lv0,), out_sinfo=R.Tensor((4,), "float32"))
            gv = R.call_tir(cls.relu1d, (lv1,), out_sinfo=R.Tensor((4,), "float32"))
            R.output(gv)
        return gv
)");
  Fused f = RunBoth(mod, {{4, 8}, {8}});
  // The elementwise add fuses into the reduction; the relu after it is a kernel of its own.
  EXPECT_EQ(PrimitiveNames(f.ops), (std::vector<std::string>{"fused_add_row_sum"}));
  EXPECT_EQ(CountCalls(f.tir), std::make_pair(2, 0));
}

TEST(RelaxFuse, InjectiveChainAndDiamondFuse) {
  IRModule mod = ParseModule({kTransposeReshape, kAdd2, kRelu, kOpaqueExp}, R"(
    @R.function
    def main(x: R.Tensor((4, 6), "float32"), y: R.Tensor((3, 8), "float32")) -> R.Tensor((3, 8), "float32"):
        cls = Module
        with R.dataflow():
            lv0 = R.call_tir(cls.transpose, (x,), out_sinfo=R.Tensor((6, 4), "float32"))
            lv1 = R.call_tir(cls.reshape, (lv0,), out_sinfo=R.Tensor((3, 8), "float32"))
            lv2 = R.call_tir(cls.add2, (lv1, y), out_sinfo=R.Tensor((3, 8), "float32"))
            lv3 = R.call_tir(cls.relu, (lv2,), out_sinfo=R.Tensor((3, 8), "float32"))
            lv4 = R.call_tir(cls.add2, (lv2, lv2), out_sinfo=R.Tensor((3, 8), "float32"))
            gv = R.call_tir(cls.add2, (lv3, lv4), out_sinfo=R.Tensor((3, 8), "float32"))
            R.output(gv)
        return gv
)");
  Fused f = RunBoth(mod, {{4, 6}, {3, 8}});
  EXPECT_EQ(CountCalls(f.ops), std::make_pair(0, 1));
  EXPECT_EQ(PrimitiveNames(f.ops),
            (std::vector<std::string>{"fused_transpose_reshape_add2_relu_add2_add2"}));
  EXPECT_EQ(CountCalls(f.tir), std::make_pair(1, 0));
  // Block names are made unique inside the fused PrimFunc.
  auto prim =
      Downcast<tir::PrimFunc>(f.tir->Lookup("fused_transpose_reshape_add2_relu_add2_add2"));
  std::vector<std::string> blocks;
  tir::PostOrderVisit(prim->body, [&](const ObjectRef& n) {
    if (auto* b = n.as<tir::BlockNode>()) blocks.push_back(b->name_hint);
  });
  EXPECT_EQ(blocks, (std::vector<std::string>{"T_transpose", "T_reshape", "T_add", "compute",
                                              "T_add1", "T_add2", "root"}));
}

TEST(RelaxFuse, EscapingIntermediateIsNotFused) {
  // lv0 is also an output of the dataflow block: it cannot become internal to a group.
  IRModule mod = ParseModule({kAddBias, kRelu, kAdd2}, R"(
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), b: R.Tensor((8,), "float32")) -> R.Tensor((4, 8), "float32"):
        cls = Module
        with R.dataflow():
            gv0 = R.call_tir(cls.add, (x, b), out_sinfo=R.Tensor((4, 8), "float32"))
            lv1 = R.call_tir(cls.relu, (gv0,), out_sinfo=R.Tensor((4, 8), "float32"))
            lv2 = R.call_tir(cls.relu, (lv1,), out_sinfo=R.Tensor((4, 8), "float32"))
            R.output(gv0, lv2)
        gv = R.call_tir(cls.add2, (gv0, lv2), out_sinfo=R.Tensor((4, 8), "float32"))
        return gv
)");
  Fused f = RunBoth(mod, {{4, 8}, {8}});
  EXPECT_EQ(PrimitiveNames(f.ops), (std::vector<std::string>{"fused_relu_relu"}));
  EXPECT_EQ(CountCalls(f.tir), std::make_pair(3, 0));
}

TEST(RelaxFuse, OptLevelZeroChangesNothing) {
  IRModule mod = ParseModule({kMatmul, kAddBias, kRelu}, kMlpMain);
  EXPECT_TRUE(transform::FuseOps(0)(mod).same_as(mod));
  {
    PassContext ctx = PassContext::Create();
    ctx->opt_level = 0;
    PassContext::Scope scope(ctx);
    EXPECT_TRUE(transform::FuseOps(-1)(mod).same_as(mod));
  }
  // Without Primitive functions FuseTIR has nothing to do.
  EXPECT_TRUE(transform::FuseTIR()(mod).same_as(mod));
  // An explicit level fuses whatever the context says.
  PassContext ctx = PassContext::Create();
  ctx->opt_level = 0;
  PassContext::Scope scope(ctx);
  EXPECT_EQ(CountCalls(transform::FuseOps(2)(mod)), std::make_pair(0, 2));
}

TEST(RelaxFuse, PassesAreRegistered) {
  auto f = runtime::Registry::Get("relax.transform.FuseOps");
  ASSERT_TRUE(f);
  auto g = runtime::Registry::Get("relax.transform.FuseTIR");
  ASSERT_TRUE(g);
  IRModule mod = ParseModule({kMatmul, kAddBias, kRelu}, kMlpMain);
  auto pass = (*f)(int64_t{-1}).cast<transform::Pass>();
  IRModule fused = (*g)().cast<transform::Pass>()(pass(mod));
  EXPECT_EQ(CountCalls(fused), std::make_pair(2, 0));
}

}  // namespace
}  // namespace relax
}  // namespace minitvm

/*!
 * \file fuse_test.cc
 * \brief Stage 4: FuseOps and FuseTIR. Modules are written in TVMScript with PrimFuncs that
 * carry their "op_pattern"; each test runs the module before and after each pass in the Relax
 * reference interpreter on random inputs (the results must agree), checks the result is well
 * formed and that it prints and parses back, and counts the kernels (call_tir calls) left.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "minitvm/ir/structural.h"
#include "minitvm/lownumpy/creation.h"
#include "minitvm/relax/analysis.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/interpreter.h"
#include "minitvm/relax/op_attr.h"
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
  // Large constants print as metadata references, which need the table to parse back.
  if (text.find("metadata[") != std::string::npos) return;
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
  EXPECT_EQ(allocs, (std::vector<std::string>{"Y_intermediate", "Y_intermediate_1"}));
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
  auto prim = Downcast<tir::PrimFunc>(f.tir->Lookup("fused_transpose_reshape_add2_relu_add2_add2"));
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

TEST(RelaxFuse, NegativeOptLevelIsRefused) {
  IRModule mod = ParseModule({kMatmul, kAddBias, kRelu}, kMlpMain);
  EXPECT_MINITVM_ERROR(transform::FuseOps(-2)(mod), "ValueError",
                       "FuseOps: fuse_opt_level must be -1 (use the PassContext's opt_level) or "
                       "at least 0, got -2");
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

TEST(RelaxFuse, ConstantsBecomeParameters) {
  IRModule mod = ParseModule({kAddBias, kRelu}, R"(
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        cls = Module
        with R.dataflow():
            lv0 = R.call_tir(cls.add, (x, R.const([1.0, -2.0, 0.5], "float32")), out_sinfo=R.Tensor((2, 3), "float32"))
            gv = R.call_tir(cls.relu, (lv0,), out_sinfo=R.Tensor((2, 3), "float32"))
            R.output(gv)
        return gv
)");
  Fused f = RunBoth(mod, {{2, 3}});
  auto func = Downcast<Function>(f.ops->Lookup("fused_add_relu"));
  ASSERT_EQ(func->params.size(), 2u);
  EXPECT_EQ(func->params[1]->name_hint, "param_0");
  EXPECT_EQ(CountCalls(f.tir), std::make_pair(1, 0));
}

TEST(RelaxFuse, TirVarsFollowIntoTheFusedKernel) {
  IRModule mod = ParseModule({kRelu}, R"(
    @T.prim_func
    def shift(var_x: T.handle, var_y: T.handle, s: T.int64):
        T.func_attr({"op_pattern": 0, "tir.noalias": True})
        n = T.int64()
        m = T.int64()
        X = T.match_buffer(var_x, (n, m))
        Y = T.match_buffer(var_y, (n, m))
        for i, j in T.grid(n, m):
            with T.block("T_shift"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = X[vi, vj] - T.Cast("float32", s)

    @R.function
    def main(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            lv0 = R.call_tir(cls.shift, (x,), out_sinfo=R.Tensor((n, 4), "float32"), tir_vars=R.shape([n]))
            gv = R.call_tir(cls.relu, (lv0,), out_sinfo=R.Tensor((n, 4), "float32"))
            R.output(gv)
        return gv
)");
  Fused f = RunBoth(mod, {{3, 4}});
  EXPECT_EQ(PrimitiveNames(f.ops), (std::vector<std::string>{"fused_shift_relu"}));
  EXPECT_EQ(CountCalls(f.tir), std::make_pair(1, 0));
  ExpectSameResult(mod, f.tir, RandomArgs({{1, 4}}, 3));
}

TEST(RelaxFuse, HighLevelOpsFuseByTOpPatternAndFuseTIRLeavesThem) {
  IRModule mod =
      Downcast<IRModule>(script::FromSource(R"(from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2,), "float32"):
        with R.dataflow():
            lv0 = R.add(x, y)
            lv1 = R.nn.relu(lv0)
            lv2 = R.sum(lv1, axis=[1])
            gv = R.exp(lv2)
            R.output(gv)
        return gv
)",
                                            "ops.py"));
  IRModule ops = transform::FuseOps(-1)(mod);
  EXPECT_EQ(PrimitiveNames(ops), (std::vector<std::string>{"fused_add_relu_sum"}));
  IRModule tir = transform::FuseTIR()(ops);
  EXPECT_TRUE(tir.same_as(ops));
  auto args = RandomArgs({{2, 3}, {2, 3}}, 5);
  ExpectSameResult(mod, ops, args);
  ExpectWellFormedAndRoundTrips(ops);
}

TEST(RelaxFuse, FusingTwiceChangesNothingMore) {
  IRModule mod = ParseModule({kMatmul, kAddBias, kRelu}, kMlpMain);
  IRModule once = transform::FuseOps(-1)(mod);
  EXPECT_TRUE(transform::FuseOps(-1)(once).same_as(once));
  IRModule fused = transform::FuseTIR()(once);
  EXPECT_TRUE(transform::FuseTIR()(fused).same_as(fused));
  EXPECT_TRUE(transform::FuseOps(-1)(fused).same_as(fused));
}

TEST(RelaxFuse, LegalizedMlpFromRelaxOps) {
  auto legalize = runtime::Registry::Get("relax.transform.LegalizeOps");
  auto annotate = runtime::Registry::Get("relax.transform.AnnotateTIROpPattern");
  if (!legalize || !annotate) GTEST_SKIP() << "LegalizeOps / AnnotateTIROpPattern not built";
  IRModule mod =
      Downcast<IRModule>(script::FromSource(R"(from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 16), "float32"), w0: R.Tensor((16, 32), "float32"), b0: R.Tensor((32,), "float32"), w1: R.Tensor((32, 8), "float32"), b1: R.Tensor((8,), "float32")) -> R.Tensor(("n", 8), "float32"):
        with R.dataflow():
            lv0 = R.matmul(x, w0)
            lv1 = R.add(lv0, b0)
            lv2 = R.nn.relu(lv1)
            lv3 = R.matmul(lv2, w1)
            gv = R.add(lv3, b1)
            R.output(gv)
        return gv
)",
                                            "mlp.py"));
  IRModule legal = (*legalize)(Map<String, runtime::PackedFunc>()).cast<transform::Pass>()(mod);
  IRModule annotated = (*annotate)().cast<transform::Pass>()(legal);
  EXPECT_EQ(CountCalls(annotated), std::make_pair(5, 0));
  Fused f = RunBoth(annotated, {{3, 16}, {16, 32}, {32}, {32, 8}, {8}});
  // The bias add is a broadcast kernel, but it reads the matmul's result at its own output
  // shape: that edge is elementwise (TVM's rule), so each matmul fuses with what follows it.
  EXPECT_EQ(CountCalls(f.tir), std::make_pair(2, 0));
  EXPECT_EQ(PrimFuncNames(f.tir),
            (std::vector<std::string>{"fused_matmul_add_relu", "fused_matmul1_add1"}));
  auto args = RandomArgs({{3, 16}, {16, 32}, {32}, {32, 8}, {8}}, 11);
  ExpectSameResult(mod, f.tir, args);
}

// ---- random programs ----------------------------------------------------------------------------

const char* kRandomOps = R"(
    @T.prim_func
    def add2(X: T.Buffer((4, 8), "float32"), Y: T.Buffer((4, 8), "float32"), Z: T.Buffer((4, 8), "float32")):
        T.func_attr({"op_pattern": 0, "tir.noalias": True})
        for i, j in T.grid(4, 8):
            with T.block("T_add"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = X[vi, vj] + Y[vi, vj]

    @T.prim_func
    def relu(X: T.Buffer((4, 8), "float32"), Y: T.Buffer((4, 8), "float32")):
        T.func_attr({"op_pattern": 0, "tir.noalias": True})
        for i, j in T.grid(4, 8):
            with T.block("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @T.prim_func
    def flip(X: T.Buffer((4, 8), "float32"), Y: T.Buffer((4, 8), "float32")):
        T.func_attr({"op_pattern": 2, "tir.noalias": True})
        for i, j in T.grid(4, 8):
            with T.block("T_flip"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = X[vi, 7 - vj]

    @T.prim_func
    def opaque_tanh(X: T.Buffer((4, 8), "float32"), Y: T.Buffer((4, 8), "float32")):
        T.func_attr({"op_pattern": 8, "tir.noalias": True})
        for i, j in T.grid(4, 8):
            with T.block("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.tanh(X[vi, vj])

    @T.prim_func
    def row_sum(X: T.Buffer((4, 8), "float32"), Y: T.Buffer((4,), "float32")):
        T.func_attr({"op_pattern": 3, "tir.noalias": True})
        for i, k in T.grid(4, 8):
            with T.block("X_red"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    Y[vi] = T.float32(0)
                Y[vi] = Y[vi] + X[vi, vk]

    @T.prim_func
    def add_col(X: T.Buffer((4, 8), "float32"), C: T.Buffer((4,), "float32"), Y: T.Buffer((4, 8), "float32")):
        T.func_attr({"op_pattern": 1, "tir.noalias": True})
        for i, j in T.grid(4, 8):
            with T.block("T_add"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = X[vi, vj] + C[vi] * T.float32(0.125)
)";

/*! \brief A random dataflow block over (4, 8) and (4,) tensors; some values are block outputs. */
std::string RandomMain(std::mt19937* rng) {
  std::vector<std::string> mats = {"x", "y"}, cols;
  std::vector<std::string> outputs;
  std::string body;
  std::set<std::string> unused;
  // Mostly the newest value (chains), sometimes any earlier one (branches and joins).
  auto pick = [&](const std::vector<std::string>& v) {
    bool newest = std::uniform_int_distribution<int>(0, 9)(*rng) < 6;
    std::string name =
        newest ? v.back() : v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(*rng)];
    unused.erase(name);
    return name;
  };
  int n = std::uniform_int_distribution<int>(4, 12)(*rng);
  const char* kMat = "R.Tensor((4, 8), \"float32\")";
  const char* kCol = "R.Tensor((4,), \"float32\")";
  for (int i = 0; i < n; ++i) {
    std::string name = "v" + std::to_string(i);
    int op = std::uniform_int_distribution<int>(0, 5)(*rng);
    if ((op == 5) && cols.empty()) op = 0;
    std::string call;
    bool col = false;
    switch (op) {
      case 0:
        call = "cls.add2, (" + pick(mats) + ", " + pick(mats) + ")";
        break;
      case 1:
        call = "cls.relu, (" + pick(mats) + ",)";
        break;
      case 2:
        call = "cls.flip, (" + pick(mats) + ",)";
        break;
      case 3:
        call = "cls.opaque_tanh, (" + pick(mats) + ",)";
        break;
      case 4:
        call = "cls.row_sum, (" + pick(mats) + ",)";
        col = true;
        break;
      default:
        call = "cls.add_col, (" + pick(mats) + ", " + pick(cols) + ")";
        break;
    }
    body += "            " + name + " = R.call_tir(" + call + ", out_sinfo=" + (col ? kCol : kMat) +
            ")\n";
    (col ? cols : mats).push_back(name);
    unused.insert(name);
    if (std::uniform_int_distribution<int>(0, 7)(*rng) == 0) outputs.push_back(name);
  }
  // Values nothing uses are outputs too (no dead code).
  for (int i = 0; i < n; ++i) {
    std::string name = "v" + std::to_string(i);
    if (unused.count(name) && std::find(outputs.begin(), outputs.end(), name) == outputs.end()) {
      outputs.push_back(name);
    }
  }
  std::string outs, ret;
  for (const std::string& o : outputs) {
    outs += (outs.empty() ? "" : ", ") + o;
  }
  return R"(
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), y: R.Tensor((4, 8), "float32")):
        cls = Module
        with R.dataflow():
)" + body +
         "            R.output(" + outs + ")\n        return (" + outs +
         (outputs.size() == 1 ? ",)" : ")") + "\n";
}

void ExpectSameValues(const Any& a, const Any& b) {
  if (auto t = a.try_cast<Array<Any>>()) {
    auto u = b.cast<Array<Any>>();
    ASSERT_EQ(t->size(), u.size());
    for (size_t i = 0; i < t->size(); ++i) ExpectSameValues((*t)[i], u[i]);
    return;
  }
  auto x = testing::ToVector<float>(a.cast<NDArray>()),
       y = testing::ToVector<float>(b.cast<NDArray>());
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(x[i], y[i], 1e-4) << "element " << i;
}

/*! \brief Whether a Primitive function holds a call_tir of a PrimFunc with one of `kinds`. */
bool HoldsPattern(const IRModule& mod, const Function& func, std::vector<int64_t> kinds) {
  bool found = false;
  struct Finder : ExprVisitor {
    const IRModule* mod;
    std::vector<int64_t> kinds;
    bool* found;
    void VisitExpr_(const CallNode* op) override {
      if (IsOp(op->op, "relax.call_tir")) {
        auto gv = Downcast<GlobalVar>(op->args[0]);
        auto k = (*mod)->Lookup(gv->name_hint)->GetAttr<int64_t>("op_pattern");
        for (int64_t want : kinds) *found = *found || (k && *k == want);
      }
      ExprVisitor::VisitExpr_(op);
    }
  } f;
  f.mod = &mod;
  f.kinds = kinds;
  f.found = &found;
  f.VisitExpr(func);
  return found;
}

TEST(RelaxFuse, RandomBlocksKeepTheirValues) {
  std::mt19937 rng(20251125);
  int kernels_before = 0, kernels_after = 0;
  for (int trial = 0; trial < 40; ++trial) {
    std::string main = RandomMain(&rng);
    SCOPED_TRACE(main);
    IRModule mod = ParseModule({kRandomOps}, main);
    IRModule ops = transform::FuseOps(-1)(mod);
    IRModule tir = transform::FuseTIR()(ops);
    auto args = RandomArgs({{4, 8}, {4, 8}}, trial + 1);
    Any want = Interpret(mod, "main", args);
    ExpectSameValues(want, Interpret(ops, "main", args));
    ExpectSameValues(want, Interpret(tir, "main", args));
    ExpectWellFormedAndRoundTrips(ops);
    ExpectWellFormedAndRoundTrips(tir);
    // No opaque op is ever fused; every Primitive function became a kernel.
    for (const std::string& name : PrimitiveNames(ops)) {
      auto func = Downcast<Function>(ops->Lookup(name));
      EXPECT_FALSE(HoldsPattern(ops, func, {8})) << name;
      // A reduction ends its group: nothing inside the group uses its value.
      std::set<const Object*> reduced;
      for (const Binding& b : func->body.as<SeqExprNode>()->blocks[0]->bindings) {
        auto* call = Downcast<VarBinding>(b)->value.as<CallNode>();
        for (const Var& v : FreeVars(Downcast<VarBinding>(b)->value)) {
          EXPECT_FALSE(reduced.count(v.get())) << name << " uses the reduction " << v->name_hint;
        }
        auto gv = Downcast<GlobalVar>(call->args[0]);
        if (ops->Lookup(gv->name_hint)->GetAttr<int64_t>("op_pattern") == 3) {
          reduced.insert(b->var.get());
        }
      }
      EXPECT_TRUE(tir->Lookup(name).as<tir::PrimFuncNode>()) << name;
    }
    EXPECT_TRUE(PrimitiveNames(tir).empty());
    EXPECT_LE(CountCalls(tir).first, CountCalls(mod).first);
    kernels_before += CountCalls(mod).first;
    kernels_after += CountCalls(tir).first;
  }
  // Fusion did happen, and far from everything fused (opaque ops and reductions stop it).
  EXPECT_LT(kernels_after, kernels_before * 9 / 10) << kernels_after << " of " << kernels_before;
  EXPECT_GT(kernels_after, kernels_before / 4) << kernels_after << " of " << kernels_before;
}

TEST(RelaxFuse, FuseTIRHandlesTupleOutputs) {
  // A hand-written Primitive function: a two-output kernel read through TupleGetItem, and two
  // results, one of them also used inside.
  IRModule mod = ParseModule({kRandomOps}, R"(
    @T.prim_func
    def split2(X: T.Buffer((4, 8), "float32"), A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
        T.func_attr({"op_pattern": 0, "tir.noalias": True})
        for i, j in T.grid(4, 8):
            with T.block("A"):
                vi, vj = T.axis.remap("SS", [i, j])
                A[vi, vj] = X[vi, vj] * T.float32(2)
        for i, j in T.grid(4, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = X[vi, vj] - T.float32(1)

    @R.function(private=True)
    def fused_split2_add2_relu(x: R.Tensor((4, 8), "float32")) -> R.Tuple(R.Tensor((4, 8), "float32"), R.Tensor((4, 8), "float32")):
        R.func_attr({"Primitive": 1})
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.split2, (x,), out_sinfo=[R.Tensor((4, 8), "float32"), R.Tensor((4, 8), "float32")])
            a = lv[0]
            b = lv[1]
            c = R.call_tir(cls.add2, (a, b), out_sinfo=R.Tensor((4, 8), "float32"))
            d = R.call_tir(cls.relu, (c,), out_sinfo=R.Tensor((4, 8), "float32"))
            R.output(c, d)
        return (c, d)

    @R.function
    def main(x: R.Tensor((4, 8), "float32")) -> R.Tensor((4, 8), "float32"):
        cls = Module
        with R.dataflow():
            t = cls.fused_split2_add2_relu(x)
            c = t[0]
            d = t[1]
            gv = R.call_tir(cls.add2, (c, d), out_sinfo=R.Tensor((4, 8), "float32"))
            R.output(gv)
        return gv
)");
  IRModule tir = transform::FuseTIR()(mod);
  for (uint64_t seed = 1; seed <= 3; ++seed) ExpectSameResult(mod, tir, RandomArgs({{4, 8}}, seed));
  ExpectWellFormedAndRoundTrips(tir);
  EXPECT_EQ(CountCalls(tir), std::make_pair(2, 0));
  auto prim = Downcast<tir::PrimFunc>(tir->Lookup("fused_split2_add2_relu"));
  std::vector<std::string> params;
  for (const tir::Var& p : prim->params) params.push_back(p->name_hint);
  EXPECT_EQ(params, (std::vector<std::string>{"p_x", "p_output0", "p_output1"}));
  std::vector<std::string> allocs;
  for (const tir::Buffer& b : prim->body.as<tir::BlockRealizeNode>()->block->alloc_buffers) {
    allocs.push_back(b->name);
  }
  EXPECT_EQ(allocs, (std::vector<std::string>{"A_intermediate", "B_intermediate"}));
  // split2 is gone; add2 is still called by main.
  auto names = PrimFuncNames(tir);
  EXPECT_EQ(std::find(names.begin(), names.end(), "split2"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "add2"), names.end());
}

}  // namespace
}  // namespace relax
}  // namespace minitvm

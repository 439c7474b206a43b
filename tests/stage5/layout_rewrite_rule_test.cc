/*!
 * \file layout_rewrite_rule_test.cc
 * \brief Stage 5: the CPU schedule rules' side of weight packing at compile time. A conv2d or
 * GEMM PrimFunc whose weight parameter is listed in "layout_free_buffers" gets its packing block
 * (packedW / packedB) annotated "meta_schedule.layout_rewrite_preproc"; without the attribute, or
 * with another parameter listed, nothing is annotated. The end-to-end results (split, folded,
 * compiled) are checked in tests/python/test_layout_rewrite.py.
 */
#include <gtest/gtest.h>

#include <tuple>

#include "minitvm/relax_vm/default_schedule.h"
#include "minitvm/te/create_prim_func.h"
#include "minitvm/te/operation.h"
#include "minitvm/te/reduce.h"
#include "minitvm/tir/stmt_functor.h"
#include "minitvm/topi/nn.h"
#include "stage5_test_util.h"

namespace minitvm {
namespace {

using namespace testing;  // NOLINT(build/namespaces)

PrimExpr I64(int64_t v) { return IntImm(DataType::Int(64), v); }

PrimFunc Conv(int64_t c, int64_t hw, int64_t o, int64_t k) {
  te::Tensor x = te::placeholder({I64(1), I64(c), I64(hw), I64(hw)}, F32(), "x");
  te::Tensor w = te::placeholder({I64(o), I64(c), I64(k), I64(k)}, F32(), "w");
  te::Tensor y = topi::nn::conv2d_nchw(x, w, {1, 1}, {1, 1}, {1, 1});
  return te::CreatePrimFunc({x, w, y});
}

PrimFunc Dense(int64_t m, int64_t n, int64_t k) {
  te::Tensor a = te::placeholder({I64(m), I64(k)}, F32(), "A");
  te::Tensor b = te::placeholder({I64(n), I64(k)}, F32(), "B");
  tir::IterVar r = te::reduce_axis(Range(0, I64(k)), "k");
  te::Tensor c = te::compute(
      {I64(m), I64(n)},
      [&](tir::Var i, tir::Var j) { return te::sum(a(i, r->var) * b(j, r->var), {r}); }, "C");
  return te::CreatePrimFunc({a, b, c});
}

PrimFunc Matmul(int64_t m, int64_t n, int64_t k) {
  te::Tensor a = te::placeholder({I64(m), I64(k)}, F32(), "A");
  te::Tensor b = te::placeholder({I64(k), I64(n)}, F32(), "B");
  tir::IterVar r = te::reduce_axis(Range(0, I64(k)), "k");
  te::Tensor c = te::compute(
      {I64(m), I64(n)},
      [&](tir::Var i, tir::Var j) { return te::sum(a(i, r->var) * b(r->var, j), {r}); }, "C");
  return te::CreatePrimFunc({a, b, c});
}

PrimFunc WithLayoutFree(const PrimFunc& f, std::vector<int64_t> indices) {
  Array<Any> a;
  for (int64_t i : indices) a.push_back(Any(i));
  return WithAttr(f, "layout_free_buffers", Any(a));
}

/*! \brief Names of the blocks annotated as layout-rewrite preprocessing. */
std::vector<std::string> Marked(const PrimFunc& f) {
  std::vector<std::string> out;
  PostOrderVisit(f->body, [&](const ObjectRef& n) {
    if (const auto* b = n.as<tir::BlockNode>();
        b && b->annotations.count(String("meta_schedule.layout_rewrite_preproc"))) {
      out.push_back(b->name_hint);
    }
  });
  return out;
}

TEST(LayoutRewriteRules, ConvMarksPackedWForALayoutFreeWeight) {
  for (const char* cpu : {"llvm -mcpu=znver3", "llvm -mcpu=znver4"}) {
    target::Target t(cpu);
    PrimFunc plain = Conv(16, 14, 37, 3);
    EXPECT_TRUE(Marked(relax_vm::DefaultCPUSchedulePrimFunc(plain, t)).empty()) << cpu;
    EXPECT_EQ(Marked(relax_vm::DefaultCPUSchedulePrimFunc(WithLayoutFree(plain, {1}), t)),
              std::vector<std::string>{"packedW"})
        << cpu;
    // Only the data is constant: the weight is still packed per call.
    EXPECT_TRUE(Marked(relax_vm::DefaultCPUSchedulePrimFunc(WithLayoutFree(plain, {0}), t)).empty())
        << cpu;
  }
}

int CountBlocks(const PrimFunc& f, const std::string& name) {
  int n = 0;
  PostOrderVisit(f->body, [&](const ObjectRef& o) {
    if (const auto* b = o.as<tir::BlockNode>(); b && b->name_hint == name) ++n;
  });
  return n;
}

TEST(LayoutRewriteRules, GemmMarksPackedBForALayoutFreeWeight) {
  target::Target t("llvm -mcpu=znver4");
  // Whichever kernel the GEMM rule picks for a shape: without the attribute nothing is marked;
  // with B layout free, its B packing (if it has one) is marked, and nothing else; a constant A
  // marks nothing.
  int packing = 0;
  for (auto [m, n, k, tb] :
       std::vector<std::tuple<int64_t, int64_t, int64_t, bool>>{{64, 100, 60, true},
                                                                {12, 100, 60, true},
                                                                {200, 96, 130, true},
                                                                {128, 80, 64, false},
                                                                {12, 100, 60, false},
                                                                {1, 256, 784, true}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                 (tb ? " dense" : " matmul"));
    PrimFunc plain = tb ? Dense(m, n, k) : Matmul(m, n, k);
    EXPECT_TRUE(Marked(relax_vm::DefaultCPUSchedulePrimFunc(plain, t)).empty());
    // (The rule may choose another kernel for a constant B, e.g. the packed one over the
    // small-M swapped kernel.)
    PrimFunc s = relax_vm::DefaultCPUSchedulePrimFunc(WithLayoutFree(plain, {1}), t);
    const bool packs_b = CountBlocks(s, "packedB") == 1;
    packing += packs_b;
    std::vector<std::string> want;
    if (packs_b) want.push_back("packedB");
    EXPECT_EQ(Marked(s), want);
    EXPECT_TRUE(
        Marked(relax_vm::DefaultCPUSchedulePrimFunc(WithLayoutFree(plain, {0}), t)).empty());
  }
  // The blocked GEMM of a large M packs B: some case above must have exercised the marking.
  EXPECT_GE(packing, 1);
}

}  // namespace
}  // namespace minitvm

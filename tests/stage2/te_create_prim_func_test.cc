/*!
 * \file te_create_prim_func_test.cc
 * \brief Tests of tensor expressions and create_prim_func (stage 2): the structure of the
 * PrimFunc (params, buffers, blocks, loops, iterator names and kinds, reads/writes, init),
 * intermediates, multi-output and tuple reductions, and the errors.
 */
#include <gtest/gtest.h>

#include "minitvm/runtime/registry.h"
#include "minitvm/te/create_prim_func.h"
#include "minitvm/tir/analysis/block_access.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/stmt_functor.h"
#include "minitvm_test_util.h"
#include "test_util.h"

namespace minitvm {
namespace {

using namespace tir;  // NOLINT(build/namespaces)
using testing::ExprStr;

/*! \brief The blocks of a function in order, with their realize. */
std::vector<const BlockRealizeNode*> Blocks(const PrimFunc& f) {
  std::vector<const BlockRealizeNode*> out;
  PostOrderVisit(f->body, [&](const ObjectRef& n) {
    if (auto* r = n.as<BlockRealizeNode>()) out.push_back(r);
  });
  return out;
}

std::string RegionStr(const BufferRegion& r) {
  std::string s = r->buffer->name.str() + "[";
  for (size_t i = 0; i < r->region.size(); ++i) {
    const Range& rg = r->region[i];
    s += (i ? ", " : "");
    if (auto e = AsConstInt(rg->extent); e && *e == 1) {
      s += ExprStr(rg->min);
    } else {
      s += ExprStr(rg->min) + ":" + ExprStr(rg->min + rg->extent);
    }
  }
  return s + "]";
}

TEST(TECreatePrimFunc, VectorAddLikeTheCourse) {
  te::Tensor A = te::placeholder({8}, DataType::Float(32), "A");
  te::Tensor B =
      te::compute({8}, [&](const Array<Var>& i) { return A(i) + 1.0f; }, "B", "", {}, {"i0"});
  PrimFunc f = te::CreatePrimFunc({A, B});
  ASSERT_EQ(f->params.size(), 2u);
  EXPECT_EQ(f->buffer_map.at(f->params[0])->name, "A");
  EXPECT_EQ(f->buffer_map.at(f->params[1])->name, "B");
  EXPECT_EQ(f->GetAttr<bool>("tir.noalias"), true);
  EXPECT_FALSE(f->attrs.count(String("global_symbol")));
  // Root block, then one loop and block B.
  auto* root = f->body.as<BlockRealizeNode>();
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->block->name_hint, "root");
  auto* loop = root->block->body.as<ForNode>();
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->loop_var->name_hint, "i0");
  EXPECT_EQ(loop->kind, ForKind::kSerial);
  auto* realize = loop->body.as<BlockRealizeNode>();
  ASSERT_NE(realize, nullptr);
  const Block& b = realize->block;
  EXPECT_EQ(b->name_hint, "B");
  ASSERT_EQ(b->iter_vars.size(), 1u);
  EXPECT_EQ(b->iter_vars[0]->var->name_hint, "v_i0");
  EXPECT_EQ(b->iter_vars[0]->iter_type, kDataPar);
  EXPECT_TRUE(realize->iter_values[0].same_as(loop->loop_var));
  ASSERT_EQ(b->reads.size(), 1u);
  EXPECT_EQ(RegionStr(b->reads[0]), "A[v_i0]");
  EXPECT_EQ(RegionStr(b->writes[0]), "B[v_i0]");
  EXPECT_FALSE(b->init.defined());
}

TEST(TECreatePrimFunc, MatmulReluHasInitAndReductionIterators) {
  te::Tensor A = te::placeholder({128, 128}, DataType::Float(32), "A");
  te::Tensor B = te::placeholder({128, 128}, DataType::Float(32), "B");
  IterVar k = te::reduce_axis(Range(0, 128), "k");
  te::Tensor Y = te::compute(
      {128, 128}, [&](Var i, Var j) { return te::sum(A(i, k->var) * B(k->var, j), {k}); }, "Y", "",
      {}, {"i", "j"});
  te::Tensor C = te::compute({128, 128}, [&](Var i, Var j) { return max(Y(i, j), 0.0f); }, "C", "",
                             {}, {"i", "j"});
  PrimFunc f = te::CreatePrimFunc({A, B, C});
  ASSERT_EQ(f->params.size(), 3u);
  auto blocks = Blocks(f);
  ASSERT_EQ(blocks.size(), 3u);  // Y, C, root (post-order)
  const Block& y = blocks[0]->block;
  EXPECT_EQ(y->name_hint, "Y");
  ASSERT_EQ(y->iter_vars.size(), 3u);
  EXPECT_EQ(y->iter_vars[2]->var->name_hint, "v_k");
  EXPECT_EQ(y->iter_vars[2]->iter_type, kCommReduce);
  ASSERT_TRUE(y->init.defined());
  ASSERT_EQ(y->reads.size(), 2u);  // Y itself is not listed: the block has an init
  EXPECT_EQ(RegionStr(y->reads[0]), "A[v_i, v_k]");
  EXPECT_EQ(RegionStr(y->reads[1]), "B[v_k, v_j]");
  EXPECT_EQ(RegionStr(y->writes[0]), "Y[v_i, v_j]");
  // Y is an intermediate: allocated by the root block.
  const Block& root = blocks[2]->block;
  ASSERT_EQ(root->alloc_buffers.size(), 1u);
  EXPECT_EQ(root->alloc_buffers[0]->name, "Y");
  // Loops: i, j, k around Y.
  auto* seq = root->body.as<SeqStmtNode>();
  ASSERT_NE(seq, nullptr);
  auto* li = seq->seq[0].as<ForNode>();
  ASSERT_NE(li, nullptr);
  EXPECT_EQ(li->loop_var->name_hint, "i");
  auto* lk = li->body.as<ForNode>()->body.as<ForNode>();
  ASSERT_NE(lk, nullptr);
  EXPECT_EQ(lk->loop_var->name_hint, "k");
}

TEST(TECreatePrimFunc, DefaultAxisNamesAreTVMsCppNames) {
  te::Tensor A = te::placeholder({4, 5}, DataType::Float(32), "A");
  te::Tensor B = te::compute(
      {4, 5}, [&](Var i, Var j) { return A(i, j) * 2.0f; }, "T_mul");
  PrimFunc f = te::CreatePrimFunc({A, B});
  auto blocks = Blocks(f);
  EXPECT_EQ(blocks[0]->block->iter_vars[0]->var->name_hint, "v_ax0");
  EXPECT_EQ(blocks[0]->block->iter_vars[1]->var->name_hint, "v_ax1");
}

TEST(TECreatePrimFunc, MultiOutputAndArgmax) {
  te::Tensor A = te::placeholder({6, 7}, DataType::Float(32), "A");
  Array<te::Tensor> outs =
      te::compute({6, 7}, te::FBatchCompute([&](const Array<Var>& i) {
                    return Array<PrimExpr>{A(i[0], i[1]) + 1.0f, A(i[0], i[1]) * 2.0f};
                  }),
                  "two");
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0].name(), "two_v0");
  PrimFunc f = te::CreatePrimFunc({A, outs[0], outs[1]});
  EXPECT_EQ(Blocks(f)[0]->block->writes.size(), 2u);

  IterVar k = te::reduce_axis(Range(0, 7), "k");
  te::CommReducer r = te::ArgMaxReducer(DataType::Int(32), DataType::Float(32));
  Array<te::Tensor> am =
      te::compute({6}, te::FBatchCompute([&](const Array<Var>& i) {
                    Array<PrimExpr> src{k->var, A(i[0], k->var)};
                    return Array<PrimExpr>{te::Reduce(r, src, {k}, PrimExpr(), 0),
                                           te::Reduce(r, src, {k}, PrimExpr(), 1)};
                  }),
                  "argmax");
  PrimFunc g = te::CreatePrimFunc({A, am[0], am[1]});
  const Block& blk = Blocks(g)[0]->block;
  EXPECT_TRUE(blk->init.defined());
  EXPECT_EQ(blk->writes.size(), 2u);
}

TEST(TECreatePrimFunc, Errors) {
  te::Tensor A = te::placeholder({4}, DataType::Float(32), "A");
  te::Tensor B = te::compute(
      {4}, [&](Var i) { return A(i) + 1.0f; }, "B");
  EXPECT_TRUE(testing::ThrowsError([&] { te::CreatePrimFunc({B}); }, "ValueError",
                                   "placeholder A is read by the computation but is not in the "
                                   "argument list"));
  EXPECT_TRUE(testing::ThrowsError(
      [&] {
        te::CreatePrimFunc({A, B, B});
      },
      "ValueError", "tensor B is listed twice"));
  IterVar k = te::reduce_axis(Range(0, 4), "k");
  EXPECT_TRUE(testing::ThrowsError(
      [&] {
        te::compute(
            {1}, [&](Var i) { return te::sum(A(k->var), {k}) + 1.0f; }, "bad");
      },
      "ValueError", "must be the whole body"));
  EXPECT_TRUE(testing::ThrowsError([&] { A(1, 2); }, "ValueError", "has rank 1"));
  EXPECT_TRUE(testing::ThrowsError(
      [&] {
        te::compute(
            {4, 4}, [&](Var i) { return A(i); }, "C");
      },
      "ValueError", "takes 1 variable(s) but the shape has rank 2"));
}

TEST(TECreatePrimFunc, SymbolicShapeAndScalarParam) {
  Var n = te::var("n");
  te::Tensor A = te::placeholder({n}, DataType::Float(32), "A");
  te::Tensor B = te::compute(
      {n}, [&](Var i) { return A(i) * 2.0f; }, "B");
  PrimFunc f = te::CreatePrimFuncFromArgs({A, B, n});
  ASSERT_EQ(f->params.size(), 3u);
  EXPECT_TRUE(f->params[2].same_as(n));
  EXPECT_TRUE(f->buffer_map.at(f->params[0])->shape[0].same_as(n));
}

TEST(BlockAccessRegion, RelaxesLoopsInsideTheBlock) {
  Buffer A = decl_buffer({64}, DataType::Float(32), "A");
  Buffer B = decl_buffer({16}, DataType::Float(32), "B");
  Var vi("vi"), j("j");
  // with block: for j in range(4): B[vi] = B[vi] + A[vi * 4 + j]
  Stmt body = For(j, 0, 4, ForKind::kSerial,
                  BufferStore(B, B(Array<PrimExpr>{vi}) + A(Array<PrimExpr>{vi * 4 + j}), {vi}));
  Block blk({IterVar(Range(0, 16), vi, kDataPar)}, {}, {}, "blk", body);
  BlockAccessRegion r = GetBlockAccessRegion(blk);
  ASSERT_EQ(r.reads.size(), 2u);
  EXPECT_EQ(RegionStr(r.reads[0]), "B[vi]");
  EXPECT_EQ(RegionStr(r.reads[1]), "A[vi * 4:vi * 4 + 4]");
  EXPECT_EQ(RegionStr(r.writes[0]), "B[vi]");
  // Relax through floordiv / floormod.
  Var k("k");
  Range rg = RelaxIndex(floordiv(k, 4), {{k, Range(0, 16)}}, Range(0, 99));
  EXPECT_EQ(ExprStr(rg->min), "0");
  EXPECT_EQ(ExprStr(rg->extent), "4");
  Range rm = RelaxIndex(floormod(k, 4), {{k, Range(0, 16)}}, Range(0, 99));
  EXPECT_EQ(ExprStr(rm->extent), "4");
}

}  // namespace
}  // namespace minitvm

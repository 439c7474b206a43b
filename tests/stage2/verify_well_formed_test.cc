/*!
 * \file verify_well_formed_test.cc
 * \brief VerifyWellFormed: a well-formed block function passes; each broken rule is reported
 * with a message naming the variable, buffer or block at fault.
 */
#include <gtest/gtest.h>

#include "minitvm/runtime/registry.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/verify.h"
#include "minitvm_test_util.h"

namespace minitvm {
namespace {

using namespace tir;  // NOLINT(build/namespaces)

const DataType f32 = DataType::Float(32);

/*! \brief The pieces of `B[vi] = A[vi] + 1` that the tests break one at a time. */
struct Pieces {
  Var a{"a", DataType::Handle()}, b{"b", DataType::Handle()};
  Buffer A = decl_buffer({16}, f32, "A"), B = decl_buffer({16}, f32, "B");
  Var i{"i"}, vi{"vi"};

  PrimFunc Func(Stmt block_body, Array<PrimExpr> iter_values = {}, bool with_iter = true) {
    Array<IterVar> iters;
    if (with_iter) iters.push_back(IterVar(Range(0, 16), vi, kDataPar));
    Block block(iters, {BufferRegion(A, {Range(vi, 1)})}, {BufferRegion(B, {Range(vi, 1)})}, "B",
                block_body);
    if (iter_values.empty() && with_iter) iter_values = {i};
    auto n = make_object<BlockRealizeNode>();  // bypass the constructor's arity check
    n->iter_values = iter_values;
    n->predicate = const_true();
    n->block = block;
    Stmt realize(ObjectPtr<Object>(std::move(n)));
    Stmt body = For(i, 0, 16, ForKind::kSerial, realize);
    Map<String, Any> attrs;
    attrs.Set("global_symbol", String("main"));
    return PrimFunc({a, b}, body, {{a, A}, {b, B}}, attrs);
  }
  Stmt GoodBody() { return BufferStore(B, A({vi}) + FloatImm(f32, 1), {vi}); }
};

TEST(VerifyWellFormedTest, WellFormedFunctionPasses) {
  Pieces p;
  EXPECT_TRUE(VerifyWellFormed(p.Func(p.GoodBody())));
  // Symbolic shapes defined by the buffer_map, local allocations, let bindings.
  Var a("a", DataType::Handle()), n("n");
  Buffer A = decl_buffer({n}, f32, "A");
  Buffer T = decl_buffer({4}, f32, "T", "local");
  Var i("i"), vi("vi"), t("t");
  Stmt inner = LetStmt(t, vi * 2, BufferStore(T, A({vi}), {floormod(t, 4)}));
  Block block({IterVar(Range(0, n), vi, kDataPar)}, {}, {}, "compute", inner, Stmt(), {T});
  Stmt body = For(i, 0, n, ForKind::kSerial, BlockRealize({i}, const_true(), block));
  EXPECT_TRUE(VerifyWellFormed(PrimFunc({a}, body, {{a, A}})));
}

TEST(VerifyWellFormedTest, UndefinedVariable) {
  Pieces p;
  Var free("free_var");
  Stmt body = BufferStore(p.B, p.A({p.vi}), {floormod(p.vi + free, 16)});
  EXPECT_MINITVM_ERROR(VerifyWellFormed(p.Func(body)), "ValueError",
                       "VerifyWellFormed(main): variable free_var is used but not defined");
  EXPECT_FALSE(VerifyWellFormed(p.Func(body), /*assert_mode=*/false));
}

TEST(VerifyWellFormedTest, LoopVariableInsideBlock) {
  Pieces p;
  Stmt body = BufferStore(p.B, p.A({p.i}), {p.vi});
  EXPECT_MINITVM_ERROR(VerifyWellFormed(p.Func(body)), "ValueError",
                       "block B uses the loop variable i of an enclosing scope");
}

TEST(VerifyWellFormedTest, VariableUsedOutsideItsScope) {
  Pieces p;
  // vi is the block's iterator: using it in the iter_values (outside the block) is wrong.
  EXPECT_MINITVM_ERROR(VerifyWellFormed(p.Func(p.GoodBody(), {p.vi})), "ValueError",
                       "variable vi is used but not defined");
}

TEST(VerifyWellFormedTest, IterValueCount) {
  Pieces p;
  EXPECT_MINITVM_ERROR(VerifyWellFormed(p.Func(p.GoodBody(), {p.i, p.i})), "ValueError",
                       "block B has 1 iterators but its BlockRealize gives 2 values");
}

TEST(VerifyWellFormedTest, UndeclaredBuffer) {
  Pieces p;
  Buffer C = decl_buffer({16}, f32, "C");
  Stmt body = BufferStore(C, p.A({p.vi}), {p.vi});
  EXPECT_MINITVM_ERROR(VerifyWellFormed(p.Func(body)), "ValueError",
                       "buffer C is stored to but not declared");
}

TEST(VerifyWellFormedTest, IndexCountAndStoreType) {
  Pieces p;
  auto load = make_object<BufferLoadNode>();  // bypass the constructor's rank check
  load->dtype = f32;
  load->buffer = p.A;
  load->indices = {p.vi, p.vi};
  Stmt bad_rank = BufferStore(p.B, PrimExpr(ObjectPtr<Object>(std::move(load))), {p.vi});
  EXPECT_MINITVM_ERROR(VerifyWellFormed(p.Func(bad_rank)), "ValueError",
                       "load from buffer A has 2 indices but the buffer has rank 1 (in block B)");
  auto store = make_object<BufferStoreNode>();
  store->buffer = p.B;
  store->value = p.vi;
  store->indices = {p.vi};
  Stmt bad_type(ObjectPtr<Object>(std::move(store)));
  EXPECT_MINITVM_ERROR(VerifyWellFormed(p.Func(bad_type)), "ValueError",
                       "store to buffer B (float32) has a value of type int32 (in block B)");
}

TEST(VerifyWellFormedTest, RedefinitionInScope) {
  Pieces p;
  Buffer A = p.A;
  Var j("j");
  Stmt nested = For(j, 0, 4, ForKind::kSerial,
                    For(j, 0, 4, ForKind::kSerial, BufferStore(A, FloatImm(f32, 0), {j})));
  PrimFunc f({p.a}, nested, {{p.a, A}});
  EXPECT_MINITVM_ERROR(VerifyWellFormed(f), "ValueError",
                       "loop variable j is defined again while its loop variable definition is "
                       "still in scope");
}

TEST(VerifyWellFormedTest, OpaqueBlocksMayUseLoopVariables) {
  // A block without iterators (like "root", or one made by a schedule) is exempt, as in TVM.
  Pieces p;
  Block opaque({}, {}, {}, "opaque", BufferStore(p.B, p.A({p.i}), {p.i}));
  Stmt body = For(p.i, 0, 16, ForKind::kSerial, BlockRealize({}, const_true(), opaque));
  EXPECT_TRUE(VerifyWellFormed(PrimFunc({p.a, p.b}, body, {{p.a, p.A}, {p.b, p.B}})));
}

TEST(VerifyWellFormedTest, RegisteredGlobal) {
  Pieces p;
  auto verify = runtime::Registry::GetOrThrow("tir.analysis.VerifyWellFormed");
  EXPECT_TRUE(verify(p.Func(p.GoodBody()), true).cast<bool>());
  Stmt body = BufferStore(p.B, p.A({p.i}), {p.vi});
  EXPECT_FALSE(verify(p.Func(body), false).cast<bool>());
}

}  // namespace
}  // namespace minitvm

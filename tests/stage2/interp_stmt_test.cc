/*!
 * \file interp_stmt_test.cc
 * \brief More TIR interpreter tests (stage 2): Let/LetStmt, While, AssertStmt,
 * Allocate + DeclBuffer (and a flattened alias of a parameter), thread_extent attributes,
 * scalar parameters, call_extern, reinterpret, vector lets and the reduction init rule.
 */
#include <gtest/gtest.h>

#include <cstring>

#include "minitvm/runtime/registry.h"
#include "minitvm/te/create_prim_func.h"
#include "minitvm/tir/interpreter.h"
#include "minitvm/tir/op.h"
#include "minitvm_test_util.h"

namespace minitvm {
namespace {

using namespace tir;  // NOLINT(build/namespaces)
using runtime::NDArray;
using testing::MakeArray;
using testing::ThrowsError;
using testing::ToVector;

const DataType f32 = DataType::Float(32);
const DataType i32 = DataType::Int(32);

TEST(InterpreterStmt, LetWhileAssertAndScalarParams) {
  // n (scalar param): x = 0; while x < n: A[x] = x * scale; x += 1  (x lives in a local buffer)
  Buffer A = decl_buffer({8}, f32, "A");
  Buffer X = decl_buffer({1}, i32, "X", "local");
  Var a("a", DataType::Handle()), n("n"), scale("scale", f32), t("t");
  PrimExpr x = X(Array<PrimExpr>{0});
  Stmt loop = While(x < n, SeqStmt({LetStmt(t, x, BufferStore(A, cast(f32, t) * scale, {t})),
                                    BufferStore(X, x + 1, {0})}));
  Stmt body =
      AssertStmt(n <= 8, StringImm("n must be at most 8"), SeqStmt({BufferStore(X, 0, {0}), loop}));
  Block root({}, {}, {}, "root", body, Stmt(), {X});
  PrimFunc fn({a, n, scale}, BlockRealize({}, const_true(), root), {{a, A}});
  Interpreter f(fn);
  NDArray arr = MakeArray<float>({8}, f32, std::vector<float>(8, -1.0f));
  f(arr, 5, 0.5);
  auto v = ToVector<float>(arr);
  EXPECT_EQ(v[4], 2.0f);
  EXPECT_EQ(v[5], -1.0f);
  EXPECT_TRUE(ThrowsError([&] { f(arr, 9, 1.0); }, "RuntimeError",
                          "assertion failed: n must be at most 8"));
  EXPECT_TRUE(ThrowsError([&] { f(arr, 1.5, 1.0); }, "TypeError",
                          "argument n: expected an integer (int32) but got float"));
}

TEST(InterpreterStmt, AllocateDeclBufferAndFlattenedAlias) {
  // A 2-D parameter read through a 1-D alias of its data (what flattening produces), staged
  // through an Allocate'd buffer declared with DeclBuffer.
  Buffer A = decl_buffer({2, 3}, f32, "A");
  Buffer B = decl_buffer({6}, f32, "B");
  Buffer A_flat(A->data, f32, {6}, {}, PrimExpr(0), "A_flat");
  Var a("a", DataType::Handle()), b("b", DataType::Handle());
  Var tmp_data("tmp", DataType::Handle());
  Buffer tmp(tmp_data, f32, {6}, {}, PrimExpr(0), "tmp", "local");
  Var i("i"), j("j");
  Stmt stage =
      For(i, 0, 6, ForKind::kSerial, BufferStore(tmp, A_flat(Array<PrimExpr>{i}) * 10.0f, {i}));
  Stmt copy = For(j, 0, 6, ForKind::kSerial, BufferStore(B, tmp(Array<PrimExpr>{5 - j}), {j}));
  Stmt body = Allocate(tmp_data, f32, {6}, PrimExpr(), DeclBuffer(tmp, SeqStmt({stage, copy})));
  PrimFunc fn({a, b}, body, {{a, A}, {b, B}});
  NDArray arr = MakeArray<float>({2, 3}, f32, {0, 1, 2, 3, 4, 5});
  NDArray out = NDArray::Empty({6}, f32);
  Interpreter{fn}(arr, out);
  EXPECT_EQ(ToVector<float>(out), (std::vector<float>{50, 40, 30, 20, 10, 0}));
}

TEST(InterpreterStmt, ThreadExtentAttributeRunsEveryThread) {
  Buffer A = decl_buffer({4, 8}, f32, "A");
  Var a("a", DataType::Handle()), bx("blockIdx.x"), tx("threadIdx.x");
  IterVar bxi(Range(0, 4), bx, kThreadIndex, "blockIdx.x");
  IterVar txi(Range(0, 8), tx, kThreadIndex, "threadIdx.x");
  Stmt store = BufferStore(A, cast(f32, bx * 8 + tx), {bx, tx});
  Stmt body = AttrStmt(bxi, "thread_extent", 4, AttrStmt(txi, "thread_extent", 8, store));
  PrimFunc fn({a}, body, {{a, A}});
  NDArray arr = NDArray::Empty({4, 8}, f32);
  Interpreter{fn}(arr);
  auto v = ToVector<float>(arr);
  for (int k = 0; k < 32; ++k) EXPECT_EQ(v[k], static_cast<float>(k));
}

TEST(InterpreterStmt, CallExternReinterpretAndVectorLet) {
  runtime::Registry::Register("testing.interp.twice", true).set_body_typed([](double x) {
    return 2 * x;
  });
  Buffer A = decl_buffer({4}, f32, "A");
  Buffer U = decl_buffer({4}, DataType::UInt(32), "U");
  Buffer V = decl_buffer({4}, f32, "V");
  Var a("a", DataType::Handle()), u("u", DataType::Handle()), vv("v", DataType::Handle());
  Var i("i"), vec("vec", DataType::Float(32, 4));
  PrimExpr ai = A(Array<PrimExpr>{i});
  Stmt scalar = For(i, 0, 4, ForKind::kSerial,
                    SeqStmt({BufferStore(U, reinterpret(DataType::UInt(32), ai), {i}),
                             BufferStore(A, call_extern(f32, "testing.interp.twice", {ai}), {i})}));
  // vec = A[0:4] (a vector let), V[0:4] = vec * vec
  PrimExpr load4 = A(Array<PrimExpr>{Ramp(0, 1, 4)});
  Stmt vector = LetStmt(vec, load4, BufferStore(V, vec * vec, {Ramp(0, 1, 4)}));
  PrimFunc fn({a, u, vv}, SeqStmt({scalar, vector}), {{a, A}, {u, U}, {vv, V}});
  NDArray arr = MakeArray<float>({4}, f32, {1.0f, -2.0f, 0.5f, 3.0f});
  NDArray ua = NDArray::Empty({4}, DataType::UInt(32)), va = NDArray::Empty({4}, f32);
  Interpreter{fn}(arr, ua, va);
  uint32_t bits;
  float one = 1.0f;
  std::memcpy(&bits, &one, 4);
  EXPECT_EQ(ToVector<uint32_t>(ua)[0], bits);
  EXPECT_EQ(ToVector<float>(arr), (std::vector<float>{2.0f, -4.0f, 1.0f, 6.0f}));
  EXPECT_EQ(ToVector<float>(va), (std::vector<float>{4.0f, 16.0f, 1.0f, 36.0f}));
  PrimFunc missing({a}, Evaluate(call_extern(f32, "no.such.function", {})), {{a, A}});
  EXPECT_TRUE(ThrowsError([&] { Interpreter f(missing); }, "ValueError",
                          "extern function no.such.function is not registered"));
}

TEST(InterpreterStmt, InitRunsAtTheFirstReductionPointOfItsDomain) {
  // A reduction over k in [2, 5): init runs when v_k == 2, the domain's minimum.
  Buffer A = decl_buffer({6}, f32, "A"), S = decl_buffer({1}, f32, "S");
  Var a("a", DataType::Handle()), s("s", DataType::Handle()), k("k"), vk("vk");
  Block blk({IterVar(Range(2, 3), vk, kCommReduce)}, {}, {}, "S",
            BufferStore(S, S(Array<PrimExpr>{0}) + A(Array<PrimExpr>{vk}), {0}),
            BufferStore(S, FloatImm(f32, 100.0), {0}));
  PrimFunc fn({a, s}, For(k, 2, 3, ForKind::kSerial, BlockRealize({k}, const_true(), blk)),
              {{a, A}, {s, S}});
  NDArray arr = MakeArray<float>({6}, f32, {1, 2, 3, 4, 5, 6});
  NDArray out = MakeArray<float>({1}, f32, {-7.0f});
  Interpreter{fn}(arr, out);
  EXPECT_EQ(ToVector<float>(out)[0], 100.0f + 3 + 4 + 5);
}

TEST(InterpreterStmt, NonCompactArraysAreRejected) {
  te::Tensor A = te::placeholder({2, 3}, f32, "A");
  te::Tensor B = te::compute(
      {2, 3}, [&](Var i, Var j) { return A(i, j); }, "B");
  Interpreter f(te::CreatePrimFunc({A, B}));
  NDArray big = NDArray::Empty({3, 2}, f32);
  NDArray transposed = big.CreateStridedView({2, 3}, {1, 2}, 0);
  NDArray out = NDArray::Empty({2, 3}, f32);
  EXPECT_TRUE(ThrowsError([&] { f(transposed, out); }, "ValueError",
                          "argument A: expected a compact (contiguous) array"));
}

}  // namespace
}  // namespace minitvm

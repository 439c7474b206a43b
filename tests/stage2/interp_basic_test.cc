/*!
 * \file interp_basic_test.cc
 * \brief Tests of the TIR interpreter (stage 2): running TE-built and hand-built PrimFuncs,
 * reductions with init, every loop kind, vectors, local allocations, match_buffer, dtypes
 * and casts, and the checked errors (arguments, bounds, division by zero, uninitialised
 * reads, domains).
 */
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "minitvm/driver/build.h"
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

std::vector<float> Iota(size_t n, float scale = 1.0f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i) * scale;
  return v;
}

PrimFunc VectorAdd(int n) {
  te::Tensor A = te::placeholder({n}, f32, "A");
  te::Tensor B = te::placeholder({n}, f32, "B");
  te::Tensor C = te::compute(
      {n}, [&](Var i) { return A(i) + B(i); }, "C");
  return te::CreatePrimFunc({A, B, C});
}

TEST(Interpreter, VectorAdd) {
  Interpreter f(VectorAdd(8));
  NDArray a = MakeArray<float>({8}, f32, Iota(8));
  NDArray b = MakeArray<float>({8}, f32, Iota(8, 10));
  NDArray c = NDArray::Empty({8}, f32);
  f(a, b, c);
  auto out = ToVector<float>(c);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], 11.0f * i);
}

TEST(Interpreter, MatmulReluMatchesLoops) {
  const int m = 7, n = 5, kk = 9;
  te::Tensor A = te::placeholder({m, kk}, f32, "A");
  te::Tensor B = te::placeholder({kk, n}, f32, "B");
  IterVar k = te::reduce_axis(Range(0, kk), "k");
  te::Tensor Y = te::compute(
      {m, n}, [&](Var i, Var j) { return te::sum(A(i, k->var) * B(k->var, j), {k}); }, "Y");
  te::Tensor C = te::compute(
      {m, n}, [&](Var i, Var j) { return max(Y(i, j), 0.0f); }, "C");
  Interpreter f(te::CreatePrimFunc({A, B, C}));
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> av(m * kk), bv(kk * n);
  for (auto& x : av) x = dist(rng);
  for (auto& x : bv) x = dist(rng);
  NDArray a = MakeArray<float>({m, kk}, f32, av), b = MakeArray<float>({kk, n}, f32, bv);
  NDArray c = NDArray::Empty({m, n}, f32);
  f(a, b, c);
  auto out = ToVector<float>(c);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float acc = 0;
      for (int r = 0; r < kk; ++r) acc += av[i * kk + r] * bv[r * n + j];
      EXPECT_FLOAT_EQ(out[i * n + j], std::max(acc, 0.0f));
    }
  }
}

TEST(Interpreter, ArgumentChecksNameTheArgumentAndWriteNothing) {
  Interpreter f(VectorAdd(8));
  NDArray a = MakeArray<float>({8}, f32, Iota(8));
  NDArray c = MakeArray<float>({8}, f32, std::vector<float>(8, -1.0f));
  EXPECT_TRUE(ThrowsError([&] { f(a, c); }, "TypeError", "main: expects 3 arguments (A, B, C)"));
  EXPECT_TRUE(ThrowsError([&] { f(a, 1, c); }, "TypeError",
                          "main: argument B: expected an NDArray but got int"));
  NDArray short_b = MakeArray<float>({7}, f32, Iota(7));
  EXPECT_TRUE(ThrowsError([&] { f(a, short_b, c); }, "ValueError",
                          "main: argument B: expected shape (8,) but got (7,)"));
  NDArray int_b = MakeArray<int32_t>({8}, i32, std::vector<int32_t>(8, 1));
  EXPECT_TRUE(ThrowsError([&] { f(a, int_b, c); }, "ValueError",
                          "main: argument B: expected dtype float32 but got int32"));
  for (float x : ToVector<float>(c)) EXPECT_EQ(x, -1.0f);
}

TEST(Interpreter, SymbolicShapesBindFromArrays) {
  Var n = te::var("n");
  te::Tensor A = te::placeholder({n}, f32, "A");
  te::Tensor B = te::compute(
      {n}, [&](Var i) { return A(i) * 2.0f; }, "B");
  Interpreter f(te::CreatePrimFunc({A, B}));
  for (int len : {1, 5, 33}) {
    NDArray a = MakeArray<float>({len}, f32, Iota(len));
    NDArray b = NDArray::Empty({len}, f32);
    f(a, b);
    auto out = ToVector<float>(b);
    for (int i = 0; i < len; ++i) EXPECT_EQ(out[i], 2.0f * i);
  }
  NDArray a = MakeArray<float>({3}, f32, Iota(3));
  NDArray b = NDArray::Empty({4}, f32);
  EXPECT_TRUE(
      ThrowsError([&] { f(a, b); }, "ValueError", "argument B: expected shape (3,) but got (4,)"));
}

/*! \brief A hand-built function: for i: B[i] = A[i + offset], with a block binding. */
PrimFunc ShiftFunc(int n, int offset) {
  Buffer A = decl_buffer({n}, f32, "A");
  Buffer B = decl_buffer({n}, f32, "B");
  Var a("a", DataType::Handle()), b("b", DataType::Handle());
  Var i("i"), vi("vi");
  Stmt store = BufferStore(B, A(Array<PrimExpr>{vi + offset}), {vi});
  Block blk({IterVar(Range(0, n), vi, kDataPar)}, {}, {}, "B", store);
  Stmt body = For(i, 0, n, ForKind::kSerial, BlockRealize({i}, const_true(), blk));
  return PrimFunc({a, b}, body, {{a, A}, {b, B}});
}

TEST(Interpreter, OutOfBoundsReportsBufferIndicesAndLoopValues) {
  Interpreter f(ShiftFunc(8, 1));
  NDArray a = MakeArray<float>({8}, f32, Iota(8));
  NDArray b = NDArray::Empty({8}, f32);
  EXPECT_TRUE(ThrowsError([&] { f(a, b); }, "IndexError",
                          "main: buffer A: index (8,) is out of bounds for shape (8,) (in block "
                          "\"B\"; i = 7, vi = 7)"));
}

TEST(Interpreter, BlockIteratorOutsideDomain) {
  Buffer A = decl_buffer({8}, f32, "A");
  Var a("a", DataType::Handle()), i("i"), vi("vi");
  Block blk({IterVar(Range(0, 4), vi, kDataPar)}, {}, {}, "B",
            BufferStore(A, FloatImm(f32, 1.0), {vi}));
  PrimFunc fn({a}, For(i, 0, 8, ForKind::kSerial, BlockRealize({i}, const_true(), blk)), {{a, A}});
  NDArray arr = NDArray::Empty({8}, f32);
  EXPECT_TRUE(ThrowsError([&] { Interpreter{fn}(arr); }, "ValueError",
                          "block B: iterator vi = 4 is outside its domain [0, 4)"));
  // With a predicate the out-of-domain points are skipped.
  PrimFunc guarded({a}, For(i, 0, 8, ForKind::kSerial, BlockRealize({i}, i < 4, blk)), {{a, A}});
  NDArray z = MakeArray<float>({8}, f32, std::vector<float>(8, 0.0f));
  Interpreter{guarded}(z);
  auto out = ToVector<float>(z);
  EXPECT_EQ(out[3], 1.0f);
  EXPECT_EQ(out[4], 0.0f);
}

TEST(Interpreter, IntegerSemantics) {
  // B[i] = A[i] // 3, C[i] = A[i] % 3 (floor), D[i] = truncdiv, E[i] = int8 wrap of A*100
  const int n = 6;
  std::vector<int32_t> av = {-7, -6, -1, 0, 5, 7};
  Buffer A = decl_buffer({n}, i32, "A");
  Buffer B = decl_buffer({n}, i32, "B"), C = decl_buffer({n}, i32, "C");
  Buffer D = decl_buffer({n}, i32, "D"), E = decl_buffer({n}, DataType::Int(8), "E");
  Var a("a", DataType::Handle()), b("b", DataType::Handle()), c("c", DataType::Handle());
  Var d("d", DataType::Handle()), e("e", DataType::Handle());
  Var i("i");
  PrimExpr x = A(Array<PrimExpr>{i});
  Stmt body = For(i, 0, n, ForKind::kSerial,
                  SeqStmt({BufferStore(B, floordiv(x, 3), {i}), BufferStore(C, floormod(x, 3), {i}),
                           BufferStore(D, truncdiv(x, 3), {i}),
                           BufferStore(E, cast(DataType::Int(8), x * 100), {i})}));
  PrimFunc fn({a, b, c, d, e}, body, {{a, A}, {b, B}, {c, C}, {d, D}, {e, E}});
  NDArray arr = MakeArray<int32_t>({n}, i32, av);
  NDArray rb = NDArray::Empty({n}, i32), rc = NDArray::Empty({n}, i32);
  NDArray rd = NDArray::Empty({n}, i32), re = NDArray::Empty({n}, DataType::Int(8));
  Interpreter{fn}(arr, rb, rc, rd, re);
  auto vb = ToVector<int32_t>(rb), vc = ToVector<int32_t>(rc), vd = ToVector<int32_t>(rd);
  auto ve = ToVector<int8_t>(re);
  for (int k = 0; k < n; ++k) {
    int q = av[k] / 3;
    if ((av[k] % 3 != 0) && (av[k] < 0)) --q;
    EXPECT_EQ(vb[k], q);
    EXPECT_EQ(vc[k], av[k] - q * 3);
    EXPECT_EQ(vd[k], av[k] / 3);
    EXPECT_EQ(ve[k], static_cast<int8_t>(av[k] * 100));
  }
}

TEST(Interpreter, DivisionByZeroIsAnErrorNotACrash) {
  Buffer A = decl_buffer({2}, i32, "A");
  Var a("a", DataType::Handle()), i("i");
  PrimExpr x = A(Array<PrimExpr>{i});
  PrimFunc fn({a}, For(i, 0, 2, ForKind::kSerial, BufferStore(A, floordiv(7, x), {i})), {{a, A}});
  NDArray arr = MakeArray<int32_t>({2}, i32, {1, 0});
  EXPECT_TRUE(
      ThrowsError([&] { Interpreter{fn}(arr); }, "RuntimeError", "integer division by zero"));
}

TEST(Interpreter, EveryLoopKindVectorsAndLocalAllocation) {
  // for io (parallel) / ii (vectorized via Ramp) with a local buffer staging the values.
  const int n = 16;
  Buffer A = decl_buffer({n}, f32, "A");
  Buffer B = decl_buffer({n}, f32, "B");
  Buffer L = decl_buffer({4}, f32, "L", "local");
  Var a("a", DataType::Handle()), b("b", DataType::Handle());
  Var io("io"), ii("ii"), tx("tx");
  Stmt stage = For(ii, 0, 4, ForKind::kUnrolled,
                   BufferStore(L, A(Array<PrimExpr>{io * 4 + ii}) * 3.0f, {ii}));
  Stmt vec_store =
      BufferStore(B, L(Array<PrimExpr>{Ramp(0, 1, 4)}) + Broadcast(FloatImm(f32, 1.0), 4),
                  {Ramp(io * 4, 1, 4)});
  Block inner({}, {}, {}, "stage", SeqStmt({stage, vec_store}), Stmt(), {L});
  Stmt body = For(io, 0, n / 4, ForKind::kParallel, BlockRealize({}, const_true(), inner));
  IterVar thread(Range(0, 1), tx, kThreadIndex, "threadIdx.x");
  body = For(tx, 0, 1, ForKind::kThreadBinding, body, thread);
  PrimFunc fn({a, b}, body, {{a, A}, {b, B}});
  NDArray arr = MakeArray<float>({n}, f32, Iota(n));
  NDArray out = NDArray::Empty({n}, f32);
  Interpreter{fn}(arr, out);
  auto v = ToVector<float>(out);
  for (int i = 0; i < n; ++i) EXPECT_EQ(v[i], 3.0f * i + 1.0f);
}

TEST(Interpreter, UninitializedLocalReadIsReportedWhenAsked) {
  Buffer A = decl_buffer({4}, f32, "A");
  Buffer L = decl_buffer({4}, f32, "L", "local");
  Var a("a", DataType::Handle()), i("i");
  // L[0] is written, then L[i] is read for every i.
  Stmt body = SeqStmt({BufferStore(L, FloatImm(f32, 2.0), {0}),
                       For(i, 0, 4, ForKind::kSerial, BufferStore(A, L(Array<PrimExpr>{i}), {i}))});
  Block root({}, {}, {}, "root", body, Stmt(), {L});
  PrimFunc fn({a}, BlockRealize({}, const_true(), root), {{a, A}});
  NDArray arr = NDArray::Empty({4}, f32);
  Interpreter{fn}(arr);  // without the check: zero-filled
  EXPECT_EQ(ToVector<float>(arr)[1], 0.0f);
  InterpreterOptions opts;
  opts.check_uninitialized = true;
  EXPECT_TRUE(ThrowsError(
      [&] {
        Interpreter{fn, "main", opts}(arr);
      },
      "RuntimeError", "buffer L: element (1,) is read before it is written"));
}

TEST(Interpreter, UndefinedVariableIsACompileError) {
  Buffer A = decl_buffer({4}, f32, "A");
  Var a("a", DataType::Handle()), stray("stray");
  PrimFunc fn({a}, BufferStore(A, FloatImm(f32, 1.0), {stray}), {{a, A}});
  EXPECT_TRUE(ThrowsError([&] { Interpreter f(fn); }, "ValueError",
                          "variable stray is used but not defined"));
}

TEST(Interpreter, DtypesAndCasts) {
  // float16 storage, bool storage, float -> int casts with C semantics, uint8 wrap.
  const int n = 4;
  Buffer H = decl_buffer({n}, DataType::Float(16), "H");
  Buffer O = decl_buffer({n}, DataType::Int(32), "O");
  Buffer M = decl_buffer({n}, DataType::Bool(), "M");
  Buffer U = decl_buffer({n}, DataType::UInt(8), "U");
  Var h("h", DataType::Handle()), o("o", DataType::Handle()), m("m", DataType::Handle());
  Var u("u", DataType::Handle()), i("i");
  PrimExpr hv = H(Array<PrimExpr>{i});
  Stmt body = For(i, 0, n, ForKind::kSerial,
                  SeqStmt({BufferStore(O, cast(i32, cast(f32, hv) * 2.5f), {i}),
                           BufferStore(M, cast(f32, hv) > 0.0f, {i}),
                           BufferStore(U, cast(DataType::UInt(8), i * 100), {i}),
                           BufferStore(H, cast(DataType::Float(16), cast(f32, hv) + 0.5f), {i})}));
  PrimFunc fn({h, o, m, u}, body, {{h, H}, {o, O}, {m, M}, {u, U}});
  // half values: -1.5, 0, 1, 2.25
  std::vector<uint16_t> halves = {0xBE00, 0x0000, 0x3C00, 0x4080};
  NDArray ha = MakeArray<uint16_t>({n}, DataType::Float(16), halves);
  NDArray oa = NDArray::Empty({n}, i32), ma = NDArray::Empty({n}, DataType::Bool());
  NDArray ua = NDArray::Empty({n}, DataType::UInt(8));
  Interpreter{fn}(ha, oa, ma, ua);
  EXPECT_EQ(ToVector<int32_t>(oa), (std::vector<int32_t>{-3, 0, 2, 5}));
  EXPECT_EQ(ToVector<uint8_t>(ma), (std::vector<uint8_t>{0, 0, 1, 1}));
  EXPECT_EQ(ToVector<uint8_t>(ua), (std::vector<uint8_t>{0, 100, 200, 44}));
  EXPECT_EQ(ToVector<uint16_t>(ha), (std::vector<uint16_t>{0xBC00, 0x3800, 0x3E00, 0x4180}));
}

TEST(Interpreter, MatchBufferViewsASubRegion) {
  // for i in range(4): block: sub = match_buffer(A[i, 0:3]); for j: sub[j] = i * 10 + j
  Buffer A = decl_buffer({4, 3}, f32, "A");
  Var a("a", DataType::Handle()), i("i"), vi("vi"), j("j");
  Buffer sub = decl_buffer({3}, f32, "sub");
  MatchBufferRegion mb(sub, BufferRegion(A, {Range(vi, 1), Range(0, 3)}));
  Stmt inner = For(j, 0, 3, ForKind::kSerial, BufferStore(sub, cast(f32, vi * 10 + j), {j}));
  Block blk({IterVar(Range(0, 4), vi, kDataPar)}, {}, {}, "fill", inner, Stmt(), {}, {mb});
  PrimFunc fn({a}, For(i, 0, 4, ForKind::kSerial, BlockRealize({i}, const_true(), blk)), {{a, A}});
  NDArray arr = NDArray::Empty({4, 3}, f32);
  Interpreter{fn}(arr);
  auto v = ToVector<float>(arr);
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 3; ++c) EXPECT_EQ(v[r * 3 + c], r * 10.0f + c);
  }
}

TEST(Interpreter, RefModuleThroughTheDriver) {
  runtime::Module mod = driver::Build(VectorAdd(4), target::Target("ref"));
  EXPECT_EQ(mod->kind(), "ref");
  EXPECT_EQ(mod->entry_name, "main");
  NDArray a = MakeArray<float>({4}, f32, Iota(4));
  NDArray c = NDArray::Empty({4}, f32);
  mod["main"](a, a, c);
  EXPECT_EQ(ToVector<float>(c)[3], 6.0f);
  EXPECT_TRUE(ThrowsError([&] { driver::Build(VectorAdd(4), target::Target("cuda")); },
                          "ValueError", "target cuda is not available"));
}

}  // namespace
}  // namespace minitvm

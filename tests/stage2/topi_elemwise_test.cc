/*!
 * \file topi_elemwise_test.cc
 * \brief Differential tests of the elementwise TOPI operators (stage 2): each op on random
 * (broadcast) shapes, run by create_prim_func + the interpreter, against the stage 1
 * reference "lownumpy.<op>".
 */
#include <gtest/gtest.h>

#include "minitvm/topi/topi.h"
#include "minitvm_test_util.h"
#include "topi_test_util.h"

namespace minitvm {
namespace {

using namespace testing;  // NOLINT(build/namespaces)
using te::Tensor;

const DataType f32 = DataType::Float(32);

/*! \brief Two random shapes that broadcast together (either side may carry 1s or fewer axes). */
std::pair<std::vector<int64_t>, std::vector<int64_t>> BroadcastPair(std::mt19937* rng) {
  std::vector<int64_t> a = RandomShape(rng, 1, 4, 4), b = a;
  std::uniform_int_distribution<int> coin(0, 3);
  for (size_t d = 0; d < a.size(); ++d) {
    int c = coin(*rng);
    if (c == 0) a[d] = 1;
    if (c == 1) b[d] = 1;
  }
  int drop = std::uniform_int_distribution<int>(0, static_cast<int>(b.size()) - 1)(*rng);
  b.erase(b.begin(), b.begin() + drop);
  if (coin(*rng) == 0) std::swap(a, b);
  return {a, b};
}

using BinaryFn = Tensor (*)(const Tensor&, const Tensor&, std::string, std::string);

struct BinaryCase {
  const char* topi_name;
  BinaryFn fn;
  const char* ref;
  DataType dtype;
  double lo, hi;  ///< range of the inputs
};

class TopiBinary : public ::testing::TestWithParam<BinaryCase> {};

TEST_P(TopiBinary, MatchesReferenceOnRandomBroadcastShapes) {
  const BinaryCase& c = GetParam();
  MINITVM_REFERENCE_OR_SKIP(ref, c.ref);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 6; ++trial) {
    auto [sa, sb] = BroadcastPair(&rng);
    Tensor A = Placeholder(sa, c.dtype, "A"), B = Placeholder(sb, c.dtype, "B");
    Tensor C = c.fn(A, B, std::string("T_") + c.topi_name, topi::kBroadcast);
    NDArray a = RandomArray(sa, c.dtype, &rng, c.lo, c.hi);
    NDArray b = RandomArray(sb, c.dtype, &rng, c.lo, c.hi);
    NDArray got = RunTE({A, B}, {C}, {a, b})[0];
    NDArray want = ref(a, b).cast<NDArray>();
    EXPECT_TRUE(AllClose(got, want, 1e-5, 1e-6))
        << c.topi_name << " on " << Str(sa) << " and " << Str(sb);
  }
}

#define BIN(name, ref, dtype, lo, hi)                                                          \
  BinaryCase {                                                                                 \
#name,                                                                                     \
        static_cast < BinaryFn>                                                                \
            (static_cast <Tensor (*)(const Tensor&, const Tensor&, std::string, std::string)>( \
                topi::name)),                                                                  \
        ref, dtype, lo, hi                                                                     \
  }

INSTANTIATE_TEST_SUITE_P(
    AllBinary, TopiBinary,
    ::testing::Values(BIN(add, "add", f32, -1, 1), BIN(subtract, "subtract", f32, -1, 1),
                      BIN(multiply, "multiply", f32, -1, 1), BIN(divide, "divide", f32, 0.5, 2),
                      BIN(floor_divide, "floor_divide", f32, -3, 3),
                      BIN(floor_mod, "mod", f32, 0.5, 3), BIN(power, "power", f32, 0.5, 2),
                      BIN(maximum, "maximum", f32, -1, 1), BIN(minimum, "minimum", f32, -1, 1),
                      BIN(add, "add", DataType::Int(32), -50, 50),
                      BIN(multiply, "multiply", DataType::Int(64), -50, 50),
                      BIN(floor_divide, "floor_divide", DataType::Int(32), 1, 9),
                      BIN(floor_mod, "mod", DataType::Int(32), 1, 9),
                      BIN(equal, "equal", DataType::Int(32), 0, 2),
                      BIN(not_equal, "not_equal", DataType::Int(32), 0, 2),
                      BIN(less, "less", f32, -1, 1), BIN(less_equal, "less_equal", f32, -1, 1),
                      BIN(greater, "greater", f32, -1, 1),
                      BIN(greater_equal, "greater_equal", f32, -1, 1),
                      BIN(logical_and, "logical_and", DataType::Bool(), 0, 1),
                      BIN(logical_or, "logical_or", DataType::Bool(), 0, 1),
                      BIN(logical_xor, "logical_xor", DataType::Bool(), 0, 1)),
    [](const ::testing::TestParamInfo<BinaryCase>& info) {
      return std::string(info.param.topi_name) + "_" + DataTypeToString(info.param.dtype);
    });
#undef BIN

struct UnaryCase {
  const char* name;
  std::function<Tensor(const Tensor&)> fn;
  std::function<Any(runtime::PackedFunc, NDArray)> ref;
  double lo, hi;
  double rtol;
};

class TopiUnary : public ::testing::TestWithParam<UnaryCase> {};

TEST_P(TopiUnary, MatchesReference) {
  const UnaryCase& c = GetParam();
  std::string ref_name = c.name;
  if (ref_name == "gelu_tanh") ref_name = "gelu";
  if (ref_name == "clip" || ref_name == "cast") ref_name = c.name;
  MINITVM_REFERENCE_OR_SKIP(ref, ref_name);
  std::mt19937 rng(11);
  for (int trial = 0; trial < 4; ++trial) {
    std::vector<int64_t> s = RandomShape(&rng, 1, 3, 6);
    Tensor A = Placeholder(s, f32, "A");
    Tensor B = c.fn(A);
    NDArray a = RandomArray(s, f32, &rng, c.lo, c.hi);
    NDArray got = RunTE({A}, {B}, {a})[0];
    NDArray want = c.ref(ref, a).cast<NDArray>();
    EXPECT_TRUE(AllClose(got, want, c.rtol, 1e-6)) << c.name << " on " << Str(s);
  }
}

Any Call1(runtime::PackedFunc f, NDArray a) { return f(a); }

INSTANTIATE_TEST_SUITE_P(
    AllUnary, TopiUnary,
    ::testing::Values(
        UnaryCase{"negative", [](const Tensor& x) { return topi::negative(x); }, Call1, -2, 2,
                  1e-6},
        UnaryCase{"abs", [](const Tensor& x) { return topi::abs(x); }, Call1, -2, 2, 1e-6},
        UnaryCase{"exp", [](const Tensor& x) { return topi::exp(x); }, Call1, -3, 3, 1e-5},
        UnaryCase{"log", [](const Tensor& x) { return topi::log(x); }, Call1, 0.1, 5, 1e-5},
        UnaryCase{"sqrt", [](const Tensor& x) { return topi::sqrt(x); }, Call1, 0, 5, 1e-5},
        UnaryCase{"rsqrt", [](const Tensor& x) { return topi::rsqrt(x); }, Call1, 0.1, 5, 1e-5},
        UnaryCase{"tanh", [](const Tensor& x) { return topi::tanh(x); }, Call1, -3, 3, 1e-5},
        UnaryCase{"sigmoid", [](const Tensor& x) { return topi::sigmoid(x); }, Call1, -5, 5, 1e-5},
        UnaryCase{"erf", [](const Tensor& x) { return topi::erf(x); }, Call1, -2, 2, 1e-5},
        UnaryCase{"relu", [](const Tensor& x) { return topi::nn::relu(x); }, Call1, -2, 2, 1e-6},
        UnaryCase{"gelu", [](const Tensor& x) { return topi::nn::gelu(x); },
                  [](runtime::PackedFunc f, NDArray a) { return f(a, "none"); }, -3, 3, 1e-5},
        UnaryCase{"gelu_tanh", [](const Tensor& x) { return topi::nn::gelu(x, "tanh"); },
                  [](runtime::PackedFunc f, NDArray a) { return f(a, "tanh"); }, -3, 3, 1e-5},
        UnaryCase{"clip",
                  [](const Tensor& x) { return topi::clip(x, PrimExpr(-0.5), PrimExpr(0.25)); },
                  [](runtime::PackedFunc f, NDArray a) { return f(a, -0.5, 0.25); }, -1, 1, 1e-6},
        UnaryCase{"cast", [](const Tensor& x) { return topi::cast(x, DataType::Float(64)); },
                  [](runtime::PackedFunc f, NDArray a) { return f(a, DataType::Float(64)); }, -1, 1,
                  1e-12}),
    [](const ::testing::TestParamInfo<UnaryCase>& info) { return std::string(info.param.name); });

TEST(TopiElemwise, CastFloatToIntTruncatesLikeC) {
  MINITVM_REFERENCE_OR_SKIP(ref, "cast");
  std::mt19937 rng(3);
  Tensor A = Placeholder({17}, f32, "A");
  Tensor B = topi::cast(A, DataType::Int(32));
  NDArray a = RandomArray({17}, f32, &rng, -20, 20);
  EXPECT_TRUE(AllClose(RunTE({A}, {B}, {a})[0], ref(a, DataType::Int(32)).cast<NDArray>(), 0, 0));
}

TEST(TopiElemwise, ScalarOperandsAndWhere) {
  MINITVM_REFERENCE_OR_SKIP(where_ref, "where");
  std::mt19937 rng(5);
  Tensor A = Placeholder({3, 4}, f32, "A");
  Tensor B = topi::multiply(topi::add(A, PrimExpr(1.0f)), PrimExpr(2.0f));
  Tensor C = topi::subtract(PrimExpr(1.0f), A);
  NDArray a = RandomArray({3, 4}, f32, &rng);
  auto outs = RunTE({A}, {B, C}, {a});
  for (int64_t i = 0; i < 12; ++i) {
    EXPECT_FLOAT_EQ(ElementAsDouble(outs[0], i), (ElementAsDouble(a, i) + 1.0f) * 2.0f);
    EXPECT_FLOAT_EQ(ElementAsDouble(outs[1], i), 1.0f - static_cast<float>(ElementAsDouble(a, i)));
  }
  Tensor cond = Placeholder({3, 1}, DataType::Bool(), "cond");
  Tensor X = Placeholder({3, 4}, f32, "X"), Y = Placeholder({4}, f32, "Y");
  Tensor W = topi::where(cond, X, Y);
  NDArray c = RandomArray({3, 1}, DataType::Bool(), &rng);
  NDArray x = RandomArray({3, 4}, f32, &rng), y = RandomArray({4}, f32, &rng);
  EXPECT_TRUE(AllClose(RunTE({cond, X, Y}, {W}, {c, x, y})[0], where_ref(c, x, y).cast<NDArray>()));
}

TEST(TopiElemwise, CreationOps) {
  MINITVM_REFERENCE_OR_SKIP(arange_ref, "arange");
  MINITVM_REFERENCE_OR_SKIP(full_ref, "full");
  Tensor R = topi::arange(1.5, 7.0, 0.5, f32);
  EXPECT_TRUE(
      AllClose(RunTE({}, {R}, {})[0], arange_ref(1.5, 7.0, 0.5, f32).cast<NDArray>(), 0, 0));
  Tensor Ri = topi::arange(10, -3, -4, DataType::Int(64));
  EXPECT_TRUE(AllClose(RunTE({}, {Ri}, {})[0],
                       arange_ref(10, -3, -4, DataType::Int(64)).cast<NDArray>(), 0, 0));
  Tensor F = topi::full({2, 3}, f32, PrimExpr(3.25f));
  EXPECT_TRUE(
      AllClose(RunTE({}, {F}, {})[0], full_ref(Array<Any>{2, 3}, 3.25, f32).cast<NDArray>(), 0, 0));
}

TEST(TopiElemwise, BroadcastErrorsNameTheShapes) {
  Tensor A = Placeholder({2, 3}, f32, "A"), B = Placeholder({4, 3}, f32, "B");
  EXPECT_TRUE(ThrowsError([&] { topi::add(A, B); }, "ValueError",
                          "add: shapes (2, 3) and (4, 3) cannot be broadcast together"));
}

}  // namespace
}  // namespace minitvm

/*!
 * \file topi_transform_test.cc
 * \brief Differential tests of the TOPI shape and reduction operators (stage 2): reshape,
 * transpose, flatten, concatenate, split, squeeze, expand_dims, broadcast_to, take, pad,
 * strided_slice and sum/mean/max/min/prod/argmax/argmin over axes with keepdims, against
 * "lownumpy.<op>".
 */
#include <gtest/gtest.h>

#include <numeric>

#include "minitvm/tir/stmt_functor.h"
#include "minitvm/topi/topi.h"
#include "minitvm_test_util.h"
#include "topi_test_util.h"

namespace minitvm {
namespace {

using namespace testing;  // NOLINT(build/namespaces)
using te::Tensor;

const DataType f32 = DataType::Float(32);

Array<Any> Ints(const std::vector<int64_t>& v) {
  Array<Any> out;
  for (int64_t x : v) out.push_back(x);
  return out;
}
Array<PrimExpr> Exprs(const std::vector<int64_t>& v) {
  Array<PrimExpr> out;
  for (int64_t x : v) out.push_back(PrimExpr(x));
  return out;
}

TEST(TopiTransform, ReshapeTransposeFlatten) {
  MINITVM_REFERENCE_OR_SKIP(reshape_ref, "reshape");
  MINITVM_REFERENCE_OR_SKIP(permute_ref, "permute_dims");
  MINITVM_REFERENCE_OR_SKIP(flatten_ref, "flatten");
  std::mt19937 rng(31);
  Tensor X = Placeholder({2, 3, 4}, f32, "X");
  NDArray x = RandomArray({2, 3, 4}, f32, &rng);
  for (std::vector<int64_t> s : {std::vector<int64_t>{4, 6}, {24}, {3, -1, 2}, {1, 2, 12, 1}}) {
    Tensor Y = topi::reshape(X, Exprs(s));
    EXPECT_TRUE(AllClose(RunTE({X}, {Y}, {x})[0], reshape_ref(x, Ints(s)).cast<NDArray>(), 0, 0))
        << Str(s);
  }
  for (std::vector<int64_t> p : {std::vector<int64_t>{2, 0, 1}, {1, 0, 2}, {0, 2, 1}}) {
    Tensor Y = topi::transpose(X, p);
    EXPECT_TRUE(AllClose(RunTE({X}, {Y}, {x})[0], permute_ref(x, Ints(p)).cast<NDArray>(), 0, 0));
  }
  Tensor R = topi::transpose(X);
  EXPECT_TRUE(AllClose(RunTE({X}, {R}, {x})[0], permute_ref(x, nullptr).cast<NDArray>(), 0, 0));
  for (auto [s, e] : std::vector<std::pair<int64_t, int64_t>>{{0, -1}, {1, 2}, {0, 1}}) {
    Tensor Y = topi::flatten(X, s, e);
    EXPECT_TRUE(AllClose(RunTE({X}, {Y}, {x})[0], flatten_ref(x, s, e).cast<NDArray>(), 0, 0));
  }
  EXPECT_TRUE(ThrowsError(
      [&] {
        topi::reshape(X, Exprs({5, 5}));
      },
      "ValueError", "reshape: cannot reshape (2, 3, 4) (24 elements) into (5, 5)"));
}

TEST(TopiTransform, ConcatenateSplitSqueezeExpand) {
  MINITVM_REFERENCE_OR_SKIP(concat_ref, "concatenate");
  MINITVM_REFERENCE_OR_SKIP(split_ref, "split");
  MINITVM_REFERENCE_OR_SKIP(squeeze_ref, "squeeze");
  MINITVM_REFERENCE_OR_SKIP(expand_ref, "expand_dims");
  std::mt19937 rng(32);
  for (int64_t axis : {0, 1, -1}) {
    std::vector<std::vector<int64_t>> shapes = {{2, 3}, {2, 3}, {2, 3}};
    int64_t a = axis < 0 ? axis + 2 : axis;
    shapes[1][a] = 1;
    shapes[2][a] = 4;
    std::vector<Tensor> ins;
    std::vector<NDArray> args;
    Array<Tensor> ts;
    Array<NDArray> arrs;
    for (size_t k = 0; k < shapes.size(); ++k) {
      ins.push_back(Placeholder(shapes[k], f32, "X" + std::to_string(k)));
      args.push_back(RandomArray(shapes[k], f32, &rng));
      ts.push_back(ins.back());
      arrs.push_back(args.back());
    }
    Tensor Y = topi::concatenate(ts, axis);
    EXPECT_TRUE(AllClose(RunTE(ins, {Y}, args)[0], concat_ref(arrs, axis).cast<NDArray>(), 0, 0));
  }
  Tensor X = Placeholder({6, 4}, f32, "X");
  NDArray x = RandomArray({6, 4}, f32, &rng);
  {
    Array<Tensor> parts = topi::split_sections(X, 3, 0);
    Array<NDArray> want = split_ref(x, 3, 0).cast<Array<NDArray>>();
    auto got = RunTE({X}, {parts[0], parts[1], parts[2]}, {x});
    for (int k = 0; k < 3; ++k) EXPECT_TRUE(AllClose(got[k], want[k], 0, 0));
  }
  {
    Array<Tensor> parts = topi::split(X, {1, 3}, 1);
    Array<NDArray> want = split_ref(x, Ints({1, 3}), 1).cast<Array<NDArray>>();
    auto got = RunTE({X}, {parts[0], parts[1], parts[2]}, {x});
    for (int k = 0; k < 3; ++k) EXPECT_TRUE(AllClose(got[k], want[k], 0, 0));
  }
  Tensor S = Placeholder({1, 3, 1, 2}, f32, "S");
  NDArray s = RandomArray({1, 3, 1, 2}, f32, &rng);
  Tensor Q1 = topi::squeeze(S), Q2 = topi::squeeze(S, std::vector<int64_t>{2});
  auto sq = RunTE({S}, {Q1, Q2}, {s});
  EXPECT_TRUE(AllClose(sq[0], squeeze_ref(s, nullptr).cast<NDArray>(), 0, 0));
  EXPECT_TRUE(AllClose(sq[1], squeeze_ref(s, Ints({2})).cast<NDArray>(), 0, 0));
  Tensor E = topi::expand_dims(X, std::vector<int64_t>{0, 3});
  EXPECT_TRUE(AllClose(RunTE({X}, {E}, {x})[0], expand_ref(x, Ints({0, 3})).cast<NDArray>(), 0, 0));
  EXPECT_TRUE(ThrowsError([&] { topi::squeeze(S, std::vector<int64_t>{1}); }, "ValueError",
                          "squeeze: axis 1 of shape (1, 3, 1, 2) does not have extent 1"));
}

TEST(TopiTransform, BroadcastToTakePadStridedSlice) {
  MINITVM_REFERENCE_OR_SKIP(bto_ref, "broadcast_to");
  MINITVM_REFERENCE_OR_SKIP(take_ref, "take");
  MINITVM_REFERENCE_OR_SKIP(pad_ref, "pad");
  std::mt19937 rng(33);
  Tensor X = Placeholder({3, 1}, f32, "X");
  NDArray x = RandomArray({3, 1}, f32, &rng);
  Tensor B = topi::broadcast_to(X, Exprs({2, 3, 4}));
  EXPECT_TRUE(AllClose(RunTE({X}, {B}, {x})[0], bto_ref(x, Ints({2, 3, 4})).cast<NDArray>(), 0, 0));

  Tensor T = Placeholder({4, 5}, f32, "T");
  NDArray t = RandomArray({4, 5}, f32, &rng);
  Tensor I = Placeholder({2, 3}, DataType::Int(64), "I");
  NDArray idx = RandomArray({2, 3}, DataType::Int(64), &rng, 0, 3);
  for (std::optional<int64_t> axis :
       {std::optional<int64_t>(), std::optional<int64_t>(0), std::optional<int64_t>(1)}) {
    Tensor Y = topi::take(T, I, axis, "raise");
    Any ax = axis ? Any(*axis) : Any();
    EXPECT_TRUE(AllClose(RunTE({T, I}, {Y}, {t, idx})[0],
                         take_ref(t, idx, ax, "raise").cast<NDArray>(), 0, 0));
  }
  for (const char* mode : {"constant", "edge", "reflect"}) {
    Tensor P = topi::pad(T, Exprs({1, 2}), Exprs({2, 0}), PrimExpr(0.5f), "PadInput", mode);
    EXPECT_TRUE(AllClose(RunTE({T}, {P}, {t})[0],
                         pad_ref(t, Ints({1, 2}), Ints({2, 0}), 0.5, mode).cast<NDArray>(), 0, 0))
        << mode;
  }
  // strided_slice against a direct loop.
  Tensor SS = topi::strided_slice(T, {3, 1}, {0, 5}, {-1, 2});
  NDArray got = RunTE({T}, {SS}, {t})[0];
  ASSERT_EQ(got.Shape(), (std::vector<int64_t>{3, 2}));
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 2; ++j) {
      EXPECT_EQ(ElementAsDouble(got, i * 2 + j), ElementAsDouble(t, (3 - i) * 5 + 1 + 2 * j));
    }
  }
}

TEST(TopiReduction, AxesAndKeepdimsAgainstReference) {
  std::mt19937 rng(34);
  Tensor X = Placeholder({3, 4, 5}, f32, "X");
  NDArray x = RandomArray({3, 4, 5}, f32, &rng, 0.5, 1.5);
  using Fn = Tensor (*)(const Tensor&, const topi::Axes&, bool);
  std::vector<std::pair<const char*, Fn>> ops = {{"sum", &topi::sum},
                                                 {"mean", &topi::mean},
                                                 {"max", &topi::max},
                                                 {"min", &topi::min},
                                                 {"prod", &topi::prod}};
  for (auto [name, fn] : ops) {
    MINITVM_REFERENCE_OR_SKIP(ref, name);
    std::vector<topi::Axes> all_axes = {std::nullopt, std::vector<int64_t>{1},
                                        std::vector<int64_t>{0, 2}, std::vector<int64_t>{-1}};
    for (const topi::Axes& axes : all_axes) {
      for (bool keep : {false, true}) {
        Tensor Y = fn(X, axes, keep);
        Any ax = axes ? Any(Ints(*axes)) : Any();
        EXPECT_TRUE(AllClose(RunTE({X}, {Y}, {x})[0], ref(x, ax, keep).cast<NDArray>(), 1e-5, 1e-6))
            << name << " keepdims=" << keep;
      }
    }
  }
  for (bool is_max : {true, false}) {
    MINITVM_REFERENCE_OR_SKIP(ref, is_max ? "argmax" : "argmin");
    // Ties: values from a small set so the first-occurrence rule matters.
    Tensor Z = Placeholder({4, 6}, DataType::Int(32), "Z");
    NDArray z = RandomArray({4, 6}, DataType::Int(32), &rng, 0, 2);
    for (std::optional<int64_t> axis :
         {std::optional<int64_t>(), std::optional<int64_t>(0), std::optional<int64_t>(1)}) {
      for (bool keep : {false, true}) {
        Tensor Y = is_max ? topi::argmax(Z, axis, keep) : topi::argmin(Z, axis, keep);
        Any ax = axis ? Any(*axis) : Any();
        // As TVM's topi, the index has the dtype of the shape (int32 here); NumPy's is int64.
        EXPECT_EQ(Y->dtype, DataType::Int(32));
        NDArray want = (*Reference("cast"))(ref(z, ax, keep), Y->dtype).cast<NDArray>();
        EXPECT_TRUE(AllClose(RunTE({Z}, {Y}, {z})[0], want, 0, 0));
      }
    }
  }
}

TEST(TopiReduction, BlockNamesAreUniqueAndReductionsHaveInit) {
  Tensor X = Placeholder({2, 3}, f32, "X");
  Tensor Y = topi::add(topi::add(X, X), X);  // two computes named T_add
  tir::PrimFunc f = te::CreatePrimFunc({X, Y});
  std::vector<std::string> names;
  tir::PostOrderVisit(f->body, [&](const ObjectRef& n) {
    if (auto* b = n.as<tir::BlockNode>()) names.push_back(b->name_hint.str());
  });
  EXPECT_EQ(names, (std::vector<std::string>{"T_add", "T_add_1", "root"}));
  Tensor S = topi::sum(X, std::vector<int64_t>{1});
  tir::PrimFunc g = te::CreatePrimFunc({X, S});
  bool has_init = false;
  tir::PostOrderVisit(g->body, [&](const ObjectRef& n) {
    if (auto* b = n.as<tir::BlockNode>(); b && b->name_hint == "X_red")
      has_init = b->init.defined();
  });
  EXPECT_TRUE(has_init);
}

}  // namespace
}  // namespace minitvm

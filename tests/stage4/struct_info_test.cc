/*!
 * \file struct_info_test.cc
 * \brief StructInfo (stage 4): constructors and their errors, the TVMScript text, the
 * precision order (IsBaseOf / MayBeBaseOf) and the least common ancestor — with properties
 * checked on random struct infos (reflexivity, transitivity, LCA is an upper bound) — and the
 * symbolic variables a struct info uses or defines.
 */
#include <gtest/gtest.h>

#include <random>

#include "minitvm/ir/structural.h"
#include "minitvm/relax/expr.h"
#include "minitvm/tir/op.h"
#include "minitvm_test_util.h"

namespace minitvm {
namespace relax {
namespace {

const DataType f32 = DataType::Float(32);
const DataType i64 = DataType::Int(64);

PrimExpr I(int64_t v) { return IntImm(i64, v); }
TensorStructInfo T(Array<PrimExpr> shape, DataType dtype = f32) {
  return TensorStructInfo(ShapeExpr(shape), dtype);
}

TEST(StructInfoCore, Constructors) {
  TensorStructInfo t = T({4, 8});
  EXPECT_EQ(t->ndim, 2);
  auto shape = t->GetShape();
  ASSERT_TRUE(shape.has_value());
  EXPECT_EQ((*shape)[0].dtype(), i64);  // int literals become int64
  TensorStructInfo u(f32, kUnknownNDim);
  EXPECT_TRUE(u->IsUnknownNdim());
  EXPECT_FALSE(u->GetShape().has_value());
  ShapeStructInfo s(3);
  EXPECT_FALSE(s->values.defined());
  EXPECT_EQ(ShapeStructInfo(Array<PrimExpr>{1, 2})->ndim, 2);
  FuncStructInfo opaque = FuncStructInfo::OpaqueFunc();
  EXPECT_TRUE(opaque->IsOpaque());
  EXPECT_FALSE(opaque->purity);
  EXPECT_FALSE(FuncStructInfo({t}, t)->IsOpaque());
  tir::Var n("n", i64);
  PrimStructInfo p(n);
  EXPECT_EQ(p->dtype, i64);
  EXPECT_TRUE(p->value.same_as(n));
}

TEST(StructInfoCore, ConstructorErrors) {
  EXPECT_MINITVM_ERROR(ShapeStructInfo(-2), "ValueError", "ndim must be >= -1");
  EXPECT_MINITVM_ERROR(TensorStructInfo(f32, -3), "ValueError", "ndim must be >= -1");
  EXPECT_MINITVM_ERROR(ShapeStructInfo(Array<PrimExpr>{FloatImm(f32, 1.5)}), "TypeError",
                       "dimension 0 must be an integer expression");
  Var not_a_shape("s", ObjectStructInfo());
  EXPECT_MINITVM_ERROR(TensorStructInfo(not_a_shape, f32), "TypeError",
                       "shape variable s must have R.Shape struct info, got R.Object");
  EXPECT_MINITVM_ERROR(TensorStructInfo(Constant(runtime::NDArray::Empty({1}, f32)), f32),
                       "TypeError", "must be a ShapeExpr or a variable");
  EXPECT_MINITVM_ERROR(FuncStructInfo({StructInfo()}, ObjectStructInfo()), "ValueError",
                       "parameter 0 is undefined");
  EXPECT_MINITVM_ERROR(GetStructInfo(Var("x")), "InternalError", "relax.expr.Var x has no struct");
}

TEST(StructInfoCore, ToString) {
  tir::Var n("n", i64);
  EXPECT_EQ(StructInfoToString(T({n, 784})), "R.Tensor((n, 784), dtype=\"float32\")");
  EXPECT_EQ(StructInfoToString(T({4})), "R.Tensor((4,), dtype=\"float32\")");
  // int64 literals inside dimensions print plain, as in Relax TVMScript.
  EXPECT_EQ(StructInfoToString(T({n + 1, n * 2})), "R.Tensor((n + 1, n * 2), dtype=\"float32\")");
  EXPECT_EQ(StructInfoToString(T(Array<PrimExpr>())), "R.Tensor((), dtype=\"float32\")");
  EXPECT_EQ(StructInfoToString(TensorStructInfo(f32, 2)), "R.Tensor(dtype=\"float32\", ndim=2)");
  EXPECT_EQ(StructInfoToString(TensorStructInfo(DataType::Void(), -1)), "R.Tensor");
  EXPECT_EQ(StructInfoToString(TensorStructInfo(ShapeExpr({n, 4}), DataType::Void())),
            "R.Tensor((n, 4))");
  EXPECT_EQ(StructInfoToString(ShapeStructInfo(Array<PrimExpr>{n, 4})), "R.Shape([n, 4])");
  EXPECT_EQ(StructInfoToString(ShapeStructInfo(2)), "R.Shape(ndim=2)");
  EXPECT_EQ(StructInfoToString(ObjectStructInfo()), "R.Object");
  EXPECT_EQ(StructInfoToString(PrimStructInfo(i64)), "R.Prim(\"int64\")");
  EXPECT_EQ(StructInfoToString(TupleStructInfo({T({2}), ObjectStructInfo()})),
            "R.Tuple(R.Tensor((2,), dtype=\"float32\"), R.Object)");
  EXPECT_EQ(StructInfoToString(TupleStructInfo(Array<StructInfo>())), "R.Tuple");
  EXPECT_EQ(StructInfoToString(FuncStructInfo({T({2})}, T({2}))),
            "R.Callable((R.Tensor((2,), dtype=\"float32\"),), R.Tensor((2,), "
            "dtype=\"float32\"), True)");
}

TEST(StructInfoCore, IsBaseOfCases) {
  tir::Var n("n", i64), m("m", i64);
  EXPECT_TRUE(IsBaseOf(ObjectStructInfo(), T({4, 8})));
  EXPECT_TRUE(IsBaseOf(TensorStructInfo(DataType::Void(), 2), T({4, 8})));
  EXPECT_TRUE(IsBaseOf(TensorStructInfo(f32, 2), T({4, 8})));
  EXPECT_FALSE(IsBaseOf(TensorStructInfo(f32, 3), T({4, 8})));
  EXPECT_FALSE(IsBaseOf(T({4, 8}), TensorStructInfo(f32, 2)));
  EXPECT_FALSE(IsBaseOf(T({4, 8}, DataType::Int(32)), T({4, 8})));
  EXPECT_TRUE(IsBaseOf(T({n, 4}), T({n, 4})));
  EXPECT_FALSE(IsBaseOf(T({n, 4}), T({m, 4})));
  EXPECT_FALSE(IsBaseOf(T({n, 4}), T({8, 4})));
  // Symbolic dims compare by provable equality, not by form.
  EXPECT_TRUE(IsBaseOf(T({n + 1}), T({1 + n})));
  EXPECT_TRUE(IsBaseOf(T({n * 2}), T({n + n})));
  EXPECT_FALSE(IsBaseOf(T({4}), ShapeStructInfo(1)));
  EXPECT_FALSE(IsBaseOf(T({4}), ObjectStructInfo()));
  // Functions: parameters contravariant, result covariant, purity.
  FuncStructInfo exact({T({4})}, T({4}));
  FuncStructInfo general({TensorStructInfo(f32, 1)}, T({4}));
  EXPECT_TRUE(IsBaseOf(exact, general));
  EXPECT_FALSE(IsBaseOf(general, exact));
  EXPECT_TRUE(IsBaseOf(FuncStructInfo::OpaqueFunc(), exact));
  EXPECT_FALSE(
      IsBaseOf(FuncStructInfo({T({4})}, T({4}), true), FuncStructInfo({T({4})}, T({4}), false)));
  EXPECT_TRUE(
      IsBaseOf(FuncStructInfo({T({4})}, T({4}), false), FuncStructInfo({T({4})}, T({4}), true)));
}

TEST(StructInfoCore, MayBeBaseOfCases) {
  tir::Var n("n", i64), m("m", i64);
  EXPECT_TRUE(MayBeBaseOf(T({n, 4}), T({8, 4})));
  EXPECT_FALSE(MayBeBaseOf(T({n, 4}), T({8, 5})));
  EXPECT_TRUE(MayBeBaseOf(T({n, 4}), T({m, 4})));
  EXPECT_FALSE(MayBeBaseOf(T({n}), T({n + 1})));  // provably different
  EXPECT_TRUE(MayBeBaseOf(T({4, 8}), TensorStructInfo(f32, 2)));
  EXPECT_TRUE(MayBeBaseOf(T({4, 8}), ObjectStructInfo()));
  EXPECT_FALSE(MayBeBaseOf(T({4, 8}), TensorStructInfo(f32, 3)));
  EXPECT_FALSE(MayBeBaseOf(T({4}), ShapeStructInfo(1)));
}

TEST(StructInfoCore, LCACases) {
  StructInfo l = StructInfoLCA(T({4}), T({8}));
  EXPECT_EQ(StructInfoToString(l), "R.Tensor(dtype=\"float32\", ndim=1)");
  EXPECT_EQ(StructInfoToString(StructInfoLCA(T({4}), T({4, 4}))), "R.Tensor(dtype=\"float32\")");
  EXPECT_EQ(StructInfoToString(StructInfoLCA(T({4}), T({4}, DataType::Int(32)))), "R.Tensor((4,))");
  EXPECT_EQ(StructInfoToString(StructInfoLCA(T({4}), ShapeStructInfo(1))), "R.Object");
  EXPECT_EQ(StructInfoToString(StructInfoLCA(TupleStructInfo({T({4})}), TupleStructInfo({T({5})}))),
            "R.Tuple(R.Tensor(dtype=\"float32\", ndim=1))");
  EXPECT_EQ(StructInfoToString(StructInfoLCA(ShapeStructInfo(Array<PrimExpr>{1}),
                                             ShapeStructInfo(Array<PrimExpr>{1, 2}))),
            "R.Shape(ndim=-1)");
  StructInfo t = T({4});
  EXPECT_TRUE(StructInfoLCA(t, T({4})).same_as(t));
}

TEST(StructInfoCore, TIRVars) {
  tir::Var n("n", i64), m("m", i64), k("k", i64);
  StructInfo info = TupleStructInfo(
      {T({n, m * 2}), ShapeStructInfo(Array<PrimExpr>{k, n}), PrimStructInfo(PrimExpr(m))});
  Array<tir::Var> def = DefinableTIRVarsInStructInfo(info);
  ASSERT_EQ(def.size(), 3u);
  EXPECT_TRUE(def[0].same_as(n));
  EXPECT_TRUE(def[1].same_as(k));
  EXPECT_TRUE(def[2].same_as(m));
  Array<tir::Var> all = TIRVarsInStructInfo(info);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_TRUE(all[0].same_as(n));
  EXPECT_TRUE(all[1].same_as(m));
  EXPECT_TRUE(all[2].same_as(k));
  EXPECT_EQ(DefinableTIRVarsInStructInfo(T({m * 2})).size(), 0u);
}

// ---- properties on random struct infos -------------------------------------------------------

/*! \brief Random struct infos over a small vocabulary, so that related pairs are frequent. */
class RandomStructInfo {
 public:
  explicit RandomStructInfo(uint32_t seed) : rng_(seed) {}

  StructInfo Make(int depth = 2) {
    switch (Pick(depth > 0 ? 7 : 5)) {
      case 0:
        return ObjectStructInfo();
      case 1:
        return Pick(2) ? PrimStructInfo(Dtype(true)) : PrimStructInfo(Dim());
      case 2: {
        if (Pick(2)) return ShapeStructInfo(static_cast<int64_t>(Pick(4)) - 1);
        return ShapeStructInfo(Dims());
      }
      case 3:
      case 4: {
        DataType dtype = Dtype(false);
        int k = Pick(3);
        if (k == 0) return TensorStructInfo(dtype, static_cast<int64_t>(Pick(4)) - 1);
        return TensorStructInfo(ShapeExpr(Dims()), dtype);
      }
      case 5: {
        Array<StructInfo> fields;
        int n = Pick(3);
        for (int i = 0; i < n; ++i) fields.push_back(Make(depth - 1));
        return TupleStructInfo(fields);
      }
      default: {
        bool purity = Pick(2);
        if (Pick(3) == 0) return FuncStructInfo::OpaqueFunc(Make(depth - 1), purity);
        Array<StructInfo> params;
        int n = Pick(2) + 1;
        for (int i = 0; i < n; ++i) params.push_back(Make(depth - 1));
        return FuncStructInfo(params, Make(depth - 1), purity);
      }
    }
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  DataType Dtype(bool scalar_only) {
    int k = Pick(scalar_only ? 2 : 3);
    if (k == 0) return f32;
    if (k == 1) return i64;
    return DataType::Void();
  }
  PrimExpr Dim() {
    switch (Pick(4)) {
      case 0:
        return I(2 + Pick(2));
      case 1:
        return n_;
      case 2:
        return m_;
      default:
        return n_ + 1;
    }
  }
  Array<PrimExpr> Dims() {
    Array<PrimExpr> dims;
    int nd = Pick(3);
    for (int i = 0; i < nd; ++i) dims.push_back(Dim());
    return dims;
  }
  std::mt19937 rng_;
  tir::Var n_{"n", i64}, m_{"m", i64};
};

TEST(StructInfoCore, RandomOrderProperties) {
  RandomStructInfo gen(20261125);
  int related = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    StructInfo a = gen.Make(), b = gen.Make(), c = gen.Make();
    std::string ctx =
        StructInfoToString(a) + " | " + StructInfoToString(b) + " | " + StructInfoToString(c);
    // Reflexive, and a fresh equal copy is a base too.
    ASSERT_TRUE(IsBaseOf(a, a)) << ctx;
    ASSERT_TRUE(MayBeBaseOf(a, a)) << ctx;
    // IsBaseOf implies MayBeBaseOf.
    if (IsBaseOf(a, b)) {
      ++related;
      ASSERT_TRUE(MayBeBaseOf(a, b)) << ctx;
      // The LCA of a base and its derived is (equivalent to) the base.
      StructInfo l = StructInfoLCA(a, b);
      ASSERT_TRUE(IsBaseOf(l, a) && IsBaseOf(a, l)) << ctx;
    }
    // Transitive.
    if (IsBaseOf(a, b) && IsBaseOf(b, c)) {
      ASSERT_TRUE(IsBaseOf(a, c)) << ctx;
    }
    // The LCA is an upper bound of both, symmetric up to equivalence.
    StructInfo ab = StructInfoLCA(a, b), ba = StructInfoLCA(b, a);
    ASSERT_TRUE(IsBaseOf(ab, a)) << ctx << " lca " << StructInfoToString(ab);
    ASSERT_TRUE(IsBaseOf(ab, b)) << ctx << " lca " << StructInfoToString(ab);
    ASSERT_TRUE(IsBaseOf(ab, ba) && IsBaseOf(ba, ab)) << ctx;
    ASSERT_TRUE(StructuralEqual(StructInfoLCA(a, a), a)) << ctx;
    // Structurally equal struct infos are bases of each other.
    if (StructuralEqual(a, b)) {
      ASSERT_TRUE(IsBaseOf(a, b) && IsBaseOf(b, a)) << ctx;
    }
  }
  EXPECT_GT(related, 100);  // the generator makes enough related pairs to mean something
}

}  // namespace
}  // namespace relax
}  // namespace minitvm

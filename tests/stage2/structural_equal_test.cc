/*!
 * \file structural_equal_test.cc
 * \brief Structural equality and hashing: alpha-equivalence of bound variables and buffers,
 * free variables, what is and is not part of equality (names, block names, attributes), the
 * consistency of the hash, and the first-difference path of AssertStructuralEqual.
 */
#include <gtest/gtest.h>

#include "minitvm/ir/module.h"
#include "minitvm/ir/structural.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/function.h"
#include "minitvm/tir/op.h"
#include "minitvm_test_util.h"
#include "test_util.h"

namespace minitvm {
namespace {

using namespace tir;  // NOLINT(build/namespaces)

const DataType f32 = DataType::Float(32);

/*! \brief `B[vi] = A[vi] * c` in one block under one loop, built from scratch each call. */
PrimFunc MakeScale(double c, const std::string& block_name = "B", const std::string& loop = "i") {
  Var a("a", DataType::Handle()), b("b", DataType::Handle());
  Buffer A = decl_buffer({16}, f32, "A"), B = decl_buffer({16}, f32, "B");
  Var i(loop), vi("vi");
  IterVar iv(Range(0, 16), vi, kDataPar);
  Stmt store = BufferStore(B, A({vi}) * FloatImm(f32, c), {vi});
  Block block({iv}, {BufferRegion(A, {Range(vi, 1)})}, {BufferRegion(B, {Range(vi, 1)})},
              block_name, store);
  Stmt body = For(i, 0, 16, ForKind::kSerial, BlockRealize({i}, const_true(), block));
  Map<String, Any> attrs;
  attrs.Set("global_symbol", String("main"));
  attrs.Set("tir.noalias", true);
  return PrimFunc({a, b}, body, {{a, A}, {b, B}}, attrs);
}

/*! \brief `C[i, j] = A[i, j]` (or `A[j, i]` when swapped) over two plain loops. */
PrimFunc MakeCopy2D(bool swap_uses) {
  Var a("a", DataType::Handle()), c("c", DataType::Handle());
  Buffer A = decl_buffer({8, 8}, f32, "A"), C = decl_buffer({8, 8}, f32, "C");
  Var i("i"), j("j");
  Array<PrimExpr> idx = swap_uses ? Array<PrimExpr>{j, i} : Array<PrimExpr>{i, j};
  Stmt store = BufferStore(C, A(idx), {i, j});
  Stmt body = For(i, 0, 8, ForKind::kSerial, For(j, 0, 8, ForKind::kSerial, store));
  return PrimFunc({a, c}, body, {{a, A}, {c, C}});
}

TEST(StructuralEqualTest, IndependentlyBuiltFunctionsAreEqual) {
  PrimFunc f = MakeScale(1.0), g = MakeScale(1.0);
  EXPECT_FALSE(f.same_as(g));
  EXPECT_TRUE(StructuralEqual(f, g));
  EXPECT_EQ(StructuralHash(f), StructuralHash(g));
  EXPECT_NO_THROW(AssertStructuralEqual(f, g));
  EXPECT_TRUE(StructuralEqual(f, f));
}

TEST(StructuralEqualTest, NamesOfVariablesAndBuffersDoNotMatter) {
  PrimFunc f = MakeScale(1.0, "B", "i"), g = MakeScale(1.0, "B", "k");
  EXPECT_TRUE(StructuralEqual(f, g));
  EXPECT_EQ(StructuralHash(f), StructuralHash(g));
  Buffer A = decl_buffer({4}, f32, "A"), X = decl_buffer({4}, f32, "X");
  EXPECT_TRUE(StructuralEqual(A, X));
}

TEST(StructuralEqualTest, BlockNamesDoNotMatterAttributesDo) {
  // As in TVM, a block's name is a label: blocks differing only in name are equal.
  EXPECT_TRUE(StructuralEqual(MakeScale(1.0, "B"), MakeScale(1.0, "C")));
  EXPECT_EQ(StructuralHash(MakeScale(1.0, "B")), StructuralHash(MakeScale(1.0, "C")));
  PrimFunc f = MakeScale(1.0);
  PrimFunc g = WithAttr(MakeScale(1.0), "global_symbol", String("other"));
  EXPECT_FALSE(StructuralEqual(f, g));
  EXPECT_MINITVM_ERROR(AssertStructuralEqual(f, g), "ValueError",
                       "root.attrs[\"global_symbol\"]: \"main\" vs \"other\"");
}

TEST(StructuralEqualTest, AttributeOrderDoesNotMatter) {
  Map<String, Any> x, y;
  x.Set("a", 1);
  x.Set("b", 2);
  y.Set("b", 2);
  y.Set("a", 1);
  EXPECT_TRUE(StructuralEqual(x, y));
  EXPECT_EQ(StructuralHash(x), StructuralHash(y));
}

TEST(StructuralEqualTest, BoolAttributeEqualsBoolImm) {
  // As TVM: `T.func_attr({"tir.noalias": True})` and `{"tir.noalias": T.bool(True)}` agree.
  PrimFunc f = MakeScale(1.0);
  PrimFunc g = WithAttr(MakeScale(1.0), "tir.noalias", IntImm(DataType::Bool(), 1));
  EXPECT_TRUE(StructuralEqual(f, g));
  EXPECT_EQ(StructuralHash(f), StructuralHash(g));
  PrimFunc h = WithAttr(MakeScale(1.0), "tir.noalias", IntImm(DataType::Bool(), 0));
  EXPECT_FALSE(StructuralEqual(f, h));
  // Only bools: an int32 1 stays another kind of value than True.
  PrimFunc k = WithAttr(MakeScale(1.0), "tir.noalias", IntImm(DataType::Int(32), 1));
  EXPECT_FALSE(StructuralEqual(f, k));
}

TEST(StructuralEqualTest, EmptyStorageScopeIsGlobal) {
  Buffer a = decl_buffer({4}, f32, "A", "");
  EXPECT_EQ(a->scope.str(), "global");
}

TEST(StructuralEqualTest, ChangedConstantReportsPath) {
  PrimFunc f = MakeScale(1.0), g = MakeScale(2.0);
  EXPECT_FALSE(StructuralEqual(f, g));
  EXPECT_NE(StructuralHash(f), StructuralHash(g));
  EXPECT_MINITVM_ERROR(AssertStructuralEqual(f, g), "ValueError",
                       "root.body.body.block.body.value.b.value: 1.0 vs 2.0");
  std::string diff = StructuralDiff(f, g);
  // The innermost nodes holding the difference are shown too.
  EXPECT_NE(diff.find("lhs root.body.body.block.body.value.b: "), std::string::npos) << diff;
  EXPECT_NE(diff.find("rhs root.body.body.block.body.value.b: "), std::string::npos) << diff;
}

TEST(StructuralEqualTest, SwappedLoopVariableUsesDiffer) {
  PrimFunc f = MakeCopy2D(false), g = MakeCopy2D(true), h = MakeCopy2D(false);
  EXPECT_TRUE(StructuralEqual(f, h));
  EXPECT_EQ(StructuralHash(f), StructuralHash(h));
  EXPECT_FALSE(StructuralEqual(f, g));
  EXPECT_MINITVM_ERROR(AssertStructuralEqual(f, g), "ValueError",
                       "root.body.body.body.value.indices[0]");
}

TEST(StructuralEqualTest, FreeVariables) {
  Var x("x"), y("y");
  EXPECT_TRUE(StructuralEqual(x + 1, x + 1));
  EXPECT_FALSE(StructuralEqual(x + 1, y + 1));
  EXPECT_TRUE(StructuralEqual(x + 1, y + 1, /*map_free_vars=*/true));
  EXPECT_EQ(StructuralHash(x + 1, true), StructuralHash(y + 1, true));
  EXPECT_TRUE(StructuralEqual(x + y, y + x, true));  // x↔y consistently
  EXPECT_FALSE(StructuralEqual(x + x, x + y, true));
  EXPECT_FALSE(StructuralEqual(x + y, x + x, true));
  EXPECT_MINITVM_ERROR(AssertStructuralEqual(x + 1, y + 1), "ValueError", "map_free_vars");
  // Different dtypes are never the same variable.
  EXPECT_FALSE(StructuralEqual(Var("x", DataType::Int(64)), Var("x"), true));
}

TEST(StructuralEqualTest, LetAndLoopBindingsAreAlphaEquivalent) {
  Var x("x"), y("y");
  EXPECT_TRUE(StructuralEqual(Let(x, 1, x + 1), Let(y, 1, y + 1)));
  EXPECT_EQ(StructuralHash(Let(x, 1, x + 1)), StructuralHash(Let(y, 1, y + 1)));
  EXPECT_FALSE(StructuralEqual(Let(x, 1, x + 1), Let(y, 1, x + 1)));
  // The same Var object reused by two sibling loops matches two different ones.
  Buffer A = decl_buffer({4}, f32, "A");
  Var i("i"), j("j"), k("k");
  auto loop = [&](const Var& v) {
    return For(v, 0, 4, ForKind::kSerial, BufferStore(A, FloatImm(f32, 0), {v}));
  };
  Stmt lhs = SeqStmt({loop(i), loop(i)});
  Stmt rhs = SeqStmt({loop(j), loop(k)});
  EXPECT_TRUE(StructuralEqual(lhs, rhs));
  EXPECT_EQ(StructuralHash(lhs), StructuralHash(rhs));
}

TEST(StructuralEqualTest, BuffersCompareStructurally) {
  Var i("i");
  Buffer A = decl_buffer({4}, f32, "A"), B = decl_buffer({4}, f32, "B");
  Buffer C = decl_buffer({8}, f32, "C"), D = decl_buffer({4}, DataType::Float(16), "D");
  EXPECT_TRUE(StructuralEqual(A({i}), B({i})));
  EXPECT_FALSE(StructuralEqual(A({i}), C({i})));
  EXPECT_FALSE(StructuralEqual(A({i}), D({i})));
  // Once A is matched with B, A cannot also match another buffer.
  Stmt s1 = SeqStmt({Evaluate(A({i})), Evaluate(A({i}))});
  Stmt s2 = SeqStmt({Evaluate(B({i})), Evaluate(decl_buffer({4}, f32, "E")({i}))});
  EXPECT_FALSE(StructuralEqual(s1, s2));
}

TEST(StructuralEqualTest, SymbolicShapesOfTwoParsesAreEqual) {
  // Each parse of `A = T.match_buffer(a, (n,))` makes a fresh n.
  auto make = [] {
    Var a("a", DataType::Handle()), n("n");
    Buffer A = decl_buffer({n}, f32, "A");
    Var i("i");
    Stmt body = For(i, 0, n, ForKind::kSerial, BufferStore(A, FloatImm(f32, 0), {i}));
    return PrimFunc({a}, body, {{a, A}});
  };
  PrimFunc f = make(), g = make();
  EXPECT_TRUE(StructuralEqual(f, g));
  EXPECT_EQ(StructuralHash(f), StructuralHash(g));
}

TEST(StructuralEqualTest, ContainersAndScalars) {
  EXPECT_TRUE(StructuralEqual(Array<PrimExpr>{1, 2}, Array<PrimExpr>{1, 2}));
  EXPECT_FALSE(StructuralEqual(Array<PrimExpr>{1, 2}, Array<PrimExpr>{1, 2, 3}));
  EXPECT_MINITVM_ERROR(AssertStructuralEqual(Array<PrimExpr>{1, 2}, Array<PrimExpr>{1, 2, 3}),
                       "ValueError", "array sizes 2 and 3");
  EXPECT_FALSE(StructuralEqual(PrimExpr(1), PrimExpr(1.0f)));
  EXPECT_FALSE(StructuralEqual(IntImm(DataType::Int(64), 1), PrimExpr(1)));
  EXPECT_TRUE(StructuralEqual(String("a"), String("a")));
  EXPECT_MINITVM_ERROR(AssertStructuralEqual(PrimExpr(1), PrimExpr(1.0f)), "ValueError",
                       "different node types");
}

TEST(StructuralEqualTest, Modules) {
  IRModule m1 = IRModule::FromNamed({{"main", MakeScale(1.0)}});
  IRModule m2 = IRModule::FromNamed({{"main", MakeScale(1.0)}});
  IRModule m3 = IRModule::FromNamed({{"main", MakeScale(3.0)}});
  EXPECT_TRUE(StructuralEqual(m1, m2));
  EXPECT_EQ(StructuralHash(m1), StructuralHash(m2));
  EXPECT_FALSE(StructuralEqual(m1, m3));
}

TEST(StructuralEqualTest, ModuleFunctionsCompareByNameNotByOrder) {
  // TVM compares a module's functions as a map keyed by name: the order they were added in
  // does not matter, for equality and for the hash.
  IRModule ab = IRModule::FromNamed({{"a", MakeScale(1.0)}, {"b", MakeScale(2.0)}});
  IRModule ba = IRModule::FromNamed({{"b", MakeScale(2.0)}, {"a", MakeScale(1.0)}});
  EXPECT_TRUE(StructuralEqual(ab, ba));
  EXPECT_EQ(StructuralHash(ab), StructuralHash(ba));
  EXPECT_EQ(StructuralDiff(ab, ba), "");
  // The same functions under swapped names are a different module.
  IRModule swapped = IRModule::FromNamed({{"a", MakeScale(2.0)}, {"b", MakeScale(1.0)}});
  EXPECT_FALSE(StructuralEqual(ab, swapped));
  EXPECT_NE(StructuralHash(ab), StructuralHash(swapped));
  EXPECT_NE(StructuralDiff(ab, swapped).find("[\"a\"]"), std::string::npos)
      << StructuralDiff(ab, swapped);
  // A different name is a difference even with equal functions.
  IRModule ac = IRModule::FromNamed({{"a", MakeScale(1.0)}, {"c", MakeScale(2.0)}});
  EXPECT_FALSE(StructuralEqual(ab, ac));
  EXPECT_NE(StructuralDiff(ab, ac).find("different keys"), std::string::npos)
      << StructuralDiff(ab, ac);
}

TEST(StructuralEqualTest, HashIsConsistentOnRandomExpressions) {
  // The same seed over two sets of variables builds the same shapes over other variables.
  Var x("x"), y("y"), p("p"), q("q");
  testing::RandomExprGen g1({{x, 0, 8}, {y, 0, 8}}, 11), g2({{p, 0, 8}, {q, 0, 8}}, 11);
  std::vector<PrimExpr> exprs;
  for (int n = 0; n < 200; ++n) {
    PrimExpr a = g1.Gen(4), b = g2.Gen(4);
    ASSERT_TRUE(StructuralEqual(a, b, /*map_free_vars=*/true)) << StructuralDiff(a, b, true);
    ASSERT_EQ(StructuralHash(a, true), StructuralHash(b, true));
    // Bound by lets, the variables match without map_free_vars.
    PrimExpr la = Let(x, 1, Let(y, 2, a)), lb = Let(p, 1, Let(q, 2, b));
    ASSERT_TRUE(StructuralEqual(la, lb)) << StructuralDiff(la, lb);
    ASSERT_EQ(StructuralHash(la), StructuralHash(lb));
    exprs.push_back(a);
  }
  // Equal implies equal hashes across all pairs; unequal ones rarely collide.
  int collisions = 0;
  exprs.resize(80);
  for (size_t i = 0; i < exprs.size(); ++i) {
    for (size_t j = i + 1; j < exprs.size(); ++j) {
      bool eq = StructuralEqual(exprs[i], exprs[j]);
      bool same_hash = StructuralHash(exprs[i]) == StructuralHash(exprs[j]);
      if (eq) ASSERT_TRUE(same_hash);
      if (!eq && same_hash) ++collisions;
    }
  }
  EXPECT_LE(collisions, 2);
}

TEST(StructuralEqualTest, RegisteredGlobals) {
  auto eq = runtime::Registry::GetOrThrow("ir.StructuralEqual");
  auto hash = runtime::Registry::GetOrThrow("ir.StructuralHash");
  auto check = runtime::Registry::GetOrThrow("ir.AssertStructuralEqual");
  PrimFunc f = MakeScale(1.0), g = MakeScale(1.0), h = MakeScale(2.0);
  EXPECT_TRUE(eq(f, g, false).cast<bool>());
  EXPECT_FALSE(eq(f, h, false).cast<bool>());
  EXPECT_EQ(hash(f, false).cast<int64_t>(), hash(g, false).cast<int64_t>());
  EXPECT_GE(hash(f, false).cast<int64_t>(), 0);
  EXPECT_MINITVM_ERROR(check(f, h, false), "ValueError", "1.0 vs 2.0");
}

}  // namespace
}  // namespace minitvm

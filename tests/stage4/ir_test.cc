/*!
 * \file ir_test.cc
 * \brief The core of the Relax IR (stage 4): node constructors (struct info set where it is
 * immediate, argument checks with their error kinds and messages), structural equality and
 * hashing of Relax functions (alpha-renaming of variables, symbolic shape variables defined by
 * parameters and match_cast, map_free_vars), the visitor and mutator, MapRelaxFunctions, and
 * the operator registry of ir/op.h.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>

#include "minitvm/ir/module.h"
#include "minitvm/ir/op.h"
#include "minitvm/ir/structural.h"
#include "minitvm/relax/expr.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/op.h"
#include "minitvm_test_util.h"

namespace minitvm {

// Test-only operators (names that no real layer uses).
MINITVM_REGISTER_OP("test.core.binary")
    .describe("a binary test operator")
    .set_num_inputs(2)
    .add_argument("x1", "Tensor", "the first operand")
    .add_argument("x2", "Tensor", "the second operand")
    .set_attr("TOpPattern", int64_t(1));
MINITVM_REGISTER_OP("test.core.unary").set_num_inputs(1);

namespace relax {
namespace {

const DataType f32 = DataType::Float(32);
const DataType i64 = DataType::Int(64);

TensorStructInfo T(Array<PrimExpr> shape, DataType dtype = f32) {
  return TensorStructInfo(ShapeExpr(shape), dtype);
}

// ---- constructors ---------------------------------------------------------------------------

TEST(RelaxIRCore, LeafStructInfo) {
  Constant c(runtime::NDArray::Empty({2, 3}, f32));
  EXPECT_EQ(StructInfoToString(GetStructInfo(c)), "R.Tensor((2, 3), dtype=\"float32\")");
  ShapeExpr s({4, PrimExpr(int64_t(5))});
  EXPECT_EQ(s->values[0].dtype(), i64);  // int32 literals become int64
  EXPECT_EQ(StructInfoToString(GetStructInfo(s)), "R.Shape([4, 5])");
  tir::Var n("n", i64);
  PrimValue p(n);
  EXPECT_TRUE(GetStructInfoAs<PrimStructInfoNode>(p)->value.same_as(n));
  EXPECT_TRUE(GetStructInfoAs<ObjectStructInfoNode>(StringImm("hi")));
  EXPECT_TRUE(GetStructInfoAs<ObjectStructInfoNode>(DataTypeImm(f32)));
  auto* ef = GetStructInfoAs<FuncStructInfoNode>(ExternFunc("env.linear"));
  ASSERT_TRUE(ef);
  EXPECT_TRUE(ef->IsOpaque());
  Var x("x", T({n, 4}));
  EXPECT_EQ(StructInfoToString(GetStructInfo(x)), "R.Tensor((n, 4), dtype=\"float32\")");
  EXPECT_FALSE(Var("y")->struct_info_.defined());
  EXPECT_TRUE(DataflowVar("lv", T({1})).as<VarNode>());
}

TEST(RelaxIRCore, TupleAndGetItem) {
  Var x("x", T({4})), y("y", ObjectStructInfo());
  Tuple t({x, y});
  EXPECT_EQ(StructInfoToString(GetStructInfo(t)),
            "R.Tuple(R.Tensor((4,), dtype=\"float32\"), R.Object)");
  EXPECT_FALSE(Tuple({x, Var("z")})->struct_info_.defined());  // a field without struct info
  TupleGetItem g(t, 1);
  EXPECT_TRUE(GetStructInfo(g).as<ObjectStructInfoNode>());
  EXPECT_MINITVM_ERROR(TupleGetItem(t, -1), "ValueError", "index must be non-negative, got -1");
  EXPECT_MINITVM_ERROR(TupleGetItem(t, 2), "IndexError", "index 2 out of range");
  EXPECT_MINITVM_ERROR(TupleGetItem(x, 0), "TypeError", "not a tuple");
  EXPECT_MINITVM_ERROR(Tuple({x, PrimExpr(1)}), "TypeError", "field 1 is a TIR expression");
}

TEST(RelaxIRCore, ConstructorErrors) {
  EXPECT_MINITVM_ERROR(ShapeExpr({FloatImm(f32, 2.0)}), "TypeError",
                       "dimension 0 must be an integer expression");
  Var x("x", T({4}));
  EXPECT_MINITVM_ERROR(Call(Constant(runtime::NDArray::Empty({1}, f32)), {x}), "TypeError",
                       "callee must be an Op, a GlobalVar, an ExternFunc");
  EXPECT_MINITVM_ERROR(Call(Op::Get("test.core.unary"), {Expr()}), "ValueError",
                       "argument 0 is undefined");
  EXPECT_MINITVM_ERROR(Call(Op::Get("test.core.unary"), {PrimExpr(3)}), "TypeError",
                       "argument 0 is a TIR expression");
  EXPECT_MINITVM_ERROR(If(Var("c", T({2, 2})), x, x), "TypeError", "condition must be a scalar");
  EXPECT_MINITVM_ERROR(Function({Var("p")}, x), "ValueError",
                       "parameter 0 (p) has no struct info annotation");
  EXPECT_MINITVM_ERROR(Function({x}, Var("u")), "ValueError", "no return struct info");
  EXPECT_MINITVM_ERROR(SeqExpr({}, Expr()), "ValueError", "SeqExpr: the body is undefined");
  EXPECT_MINITVM_ERROR(ExternFunc(""), "ValueError", "empty global symbol");
}

TEST(RelaxIRCore, CallIfFunction) {
  Op op = Op::Get("test.core.binary");
  Var x("x", T({4})), y("y", T({4}));
  Call call(op, {x, y}, {{"axis", Any(int64_t(1))}}, {T({4})});
  EXPECT_TRUE(IsOp(call->op, "test.core.binary"));
  EXPECT_FALSE(IsOp(call->op, "test.core.unary"));
  EXPECT_FALSE(IsOp(x, "test.core.binary"));
  EXPECT_EQ(call->GetAttr<int64_t>("axis"), 1);
  EXPECT_MINITVM_ERROR(call->GetAttr<int64_t>("nope"), "ValueError", "no attribute \"nope\"");
  EXPECT_FALSE(call->struct_info_.defined());  // inference is the normaliser's job

  If branch(Var("c", TensorStructInfo(ShapeExpr(Array<PrimExpr>()), DataType::Bool())), x, y);
  EXPECT_TRUE(branch->true_branch.as<SeqExprNode>());  // branches become SeqExprs
  EXPECT_TRUE(branch->true_branch.as<SeqExprNode>()->body.same_as(x));

  Var lv("lv", T({4}));
  SeqExpr body({DataflowBlock({VarBinding(lv, call)})}, lv);
  Function f({x, y}, body, T({4}), true, {{"global_symbol", Any(String("main"))}});
  auto* fs = GetStructInfoAs<FuncStructInfoNode>(f);
  ASSERT_TRUE(fs);
  EXPECT_EQ(StructInfoToString(GetStructInfo(f)),
            "R.Callable((R.Tensor((4,), dtype=\"float32\"), R.Tensor((4,), dtype=\"float32\")), "
            "R.Tensor((4,), dtype=\"float32\"), True)");
  // Without a return annotation, the body's struct info is the result.
  SeqExpr typed({}, x);
  UpdateStructInfo(typed, T({4}));
  Function g({x}, typed);
  EXPECT_TRUE(StructuralEqual(g->ret_struct_info, T({4})));
  EXPECT_EQ(f->GetAttr<String>("global_symbol")->str(), "main");
  Function h = WithAttr(f, "num_input", Any(int64_t(1)));
  EXPECT_FALSE(f->attrs.count("num_input"));
  EXPECT_TRUE(h->struct_info_.defined());
}

// ---- structural equality ----------------------------------------------------------------------

/*!
 * \brief `def f(x: R.Tensor((n, 4)), y: R.Tensor((4, m))) { lv = binary(x, x); s = match_cast(
 * lv, R.Tensor((k, 4))); return s }` with fresh variables (of the given names) each call.
 */
Function MakeFunc(const std::string& xname, bool swap_dims = false, bool dataflow = true) {
  tir::Var n("n", i64), m("m", i64), k("k", i64);
  Var x(xname, T({n, 4}));
  Var y("y", T(swap_dims ? Array<PrimExpr>{m, 4} : Array<PrimExpr>{4, m}));
  Op op = Op::Get("test.core.binary");
  Var lv = dataflow ? Var(DataflowVar("lv", T({n, 4}))) : Var("lv", T({n, 4}));
  Var s("s", T({k, 4}));
  Array<Binding> bindings{VarBinding(lv, Call(op, {x, x})), MatchCast(s, lv, T({k, 4}))};
  BindingBlock block = dataflow ? BindingBlock(DataflowBlock(bindings)) : BindingBlock(bindings);
  return Function({x, y}, SeqExpr({block}, s), T({k, 4}));
}

TEST(RelaxIRCore, StructuralEqualAlphaRenaming) {
  Function a = MakeFunc("x"), b = MakeFunc("renamed");
  EXPECT_TRUE(StructuralEqual(a, b)) << StructuralDiff(a, b);
  EXPECT_EQ(StructuralHash(a), StructuralHash(b));
  EXPECT_TRUE(StructuralEqual(a, b, true));
  // Different shapes of a parameter.
  Function c = MakeFunc("x", /*swap_dims=*/true);
  EXPECT_FALSE(StructuralEqual(a, c));
  EXPECT_NE(StructuralHash(a), StructuralHash(c));
  // DataflowVar vs Var and DataflowBlock vs BindingBlock are different nodes.
  Function d = MakeFunc("x", false, /*dataflow=*/false);
  EXPECT_FALSE(StructuralEqual(a, d));
  EXPECT_TRUE(StructuralDiff(a, d).find("different node types") != std::string::npos)
      << StructuralDiff(a, d);
}

TEST(RelaxIRCore, StructuralEqualSymbolicVars) {
  // The same n used twice vs two different dims.
  tir::Var n1("n", i64), n2("n", i64), m2("m", i64);
  Var x1("x", T({n1, n1})), x2("x", T({n2, m2}));
  Function f1({x1}, SeqExpr({}, x1), T({n1, n1}));
  Function f2({x2}, SeqExpr({}, x2), T({n2, m2}));
  EXPECT_FALSE(StructuralEqual(f1, f2));
  Var x3("x", T({n2, n2}));
  Function f3({x3}, SeqExpr({}, x3), T({n2, n2}));
  EXPECT_TRUE(StructuralEqual(f1, f3));
  EXPECT_EQ(StructuralHash(f1), StructuralHash(f3));
  // A dim that is not defined by a parameter is free: identity unless map_free_vars.
  Var y1("y", T({4})), y2("y", T({4}));
  Function g1({y1}, SeqExpr({}, ShapeExpr({n1})), ShapeStructInfo(1));
  Function g2({y2}, SeqExpr({}, ShapeExpr({n2})), ShapeStructInfo(1));
  EXPECT_FALSE(StructuralEqual(g1, g2));
  EXPECT_TRUE(StructuralEqual(g1, g2, /*map_free_vars=*/true));
  EXPECT_EQ(StructuralHash(g1, true), StructuralHash(g2, true));
}

TEST(RelaxIRCore, StructuralEqualFreeRelaxVars) {
  Var a("a", T({4})), b("b", T({4}));
  Op op = Op::Get("test.core.unary");
  Call ca(op, {a}), cb(op, {b});
  EXPECT_FALSE(StructuralEqual(ca, cb));
  EXPECT_TRUE(StructuralEqual(ca, cb, true));
  EXPECT_TRUE(StructuralEqual(ca, Call(op, {a})));
  // Bound vars do not match a free one.
  Var p("p", T({4}));
  Function f({p}, SeqExpr({}, Call(op, {p})), T({4}));
  Function g({p}, SeqExpr({}, Call(op, {a})), T({4}));
  EXPECT_FALSE(StructuralEqual(f, g, true));
  // Attributes and constants take part.
  EXPECT_FALSE(StructuralEqual(Call(op, {a}, {{"axis", Any(int64_t(0))}}),
                               Call(op, {a}, {{"axis", Any(int64_t(1))}})));
  auto arr = [](float v) { return testing::MakeArray<float>({2}, f32, {v, 2.0f}); };
  EXPECT_TRUE(StructuralEqual(Constant(arr(1)), Constant(arr(1))));
  EXPECT_FALSE(StructuralEqual(Constant(arr(1)), Constant(arr(3))));
}

/*!
 * \brief A random function from `seed`, with fresh variables (Relax and symbolic) each call:
 * parameters of random (partly symbolic) shapes, then a chain of bindings calling the test ops
 * on earlier variables, with match_casts that define new symbolic dimensions.
 */
Function RandomFunc(uint32_t seed, const std::string& prefix) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  std::vector<tir::Var> dims;
  auto dim = [&]() -> PrimExpr {
    if (!dims.empty() && pick(2)) return dims[pick(static_cast<int>(dims.size()))];
    if (pick(3) == 0) {
      dims.push_back(tir::Var(prefix + "d" + std::to_string(dims.size()), i64));
      return dims.back();
    }
    return IntImm(i64, 1 + pick(4));
  };
  auto sinfo = [&]() -> StructInfo {
    Array<PrimExpr> shape;
    int nd = pick(3) + 1;
    for (int i = 0; i < nd; ++i) shape.push_back(dim());
    return T(shape, pick(4) ? f32 : i64);
  };
  Array<Var> params;
  std::vector<Var> live;
  int np = pick(3) + 1;
  for (int i = 0; i < np; ++i) {
    params.push_back(Var(prefix + "p" + std::to_string(i), sinfo()));
    live.push_back(params.back());
  }
  bool dataflow = pick(2);
  Array<Binding> bindings;
  int nb = pick(5) + 1;
  for (int i = 0; i < nb; ++i) {
    std::string name = prefix + "v" + std::to_string(i);
    Var a = live[pick(static_cast<int>(live.size()))];
    Var b = live[pick(static_cast<int>(live.size()))];
    StructInfo info = sinfo();
    Var v = dataflow ? Var(DataflowVar(name, info)) : Var(name, info);
    if (pick(4) == 0) {
      bindings.push_back(MatchCast(v, a, info));
    } else if (pick(2)) {
      bindings.push_back(VarBinding(v, Call(Op::Get("test.core.binary"), {a, b})));
    } else {
      bindings.push_back(
          VarBinding(v, Call(Op::Get("test.core.unary"), {a}, {{"axis", Any(int64_t(pick(3)))}})));
    }
    live.push_back(v);
  }
  BindingBlock block = dataflow ? BindingBlock(DataflowBlock(bindings)) : BindingBlock(bindings);
  Var result = live.back();
  return Function(params, SeqExpr({block}, result), GetStructInfo(result));
}

TEST(RelaxIRCore, RandomFunctionsAlphaEquivalence) {
  std::vector<Function> funcs;
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    Function a = RandomFunc(seed, "a_"), b = RandomFunc(seed, "b_");
    ASSERT_TRUE(StructuralEqual(a, b)) << "seed " << seed << "\n" << StructuralDiff(a, b);
    ASSERT_EQ(StructuralHash(a), StructuralHash(b)) << "seed " << seed;
    ASSERT_TRUE(StructuralEqual(a, b, /*map_free_vars=*/true)) << "seed " << seed;
    ASSERT_EQ(StructuralHash(a, true), StructuralHash(b, true)) << "seed " << seed;
    funcs.push_back(a);
  }
  // Across seeds: equal functions hash equal, and most pairs differ.
  int equal_pairs = 0;
  for (size_t i = 0; i < funcs.size(); ++i) {
    for (size_t j = i + 1; j < funcs.size(); ++j) {
      bool eq = StructuralEqual(funcs[i], funcs[j]);
      EXPECT_EQ(eq, StructuralEqual(funcs[j], funcs[i])) << i << " " << j;
      if (eq) {
        ++equal_pairs;
        EXPECT_EQ(StructuralHash(funcs[i]), StructuralHash(funcs[j])) << i << " " << j;
      } else {
        EXPECT_TRUE(!StructuralDiff(funcs[i], funcs[j]).empty());
      }
    }
  }
  EXPECT_LT(equal_pairs, 20);
}

// ---- functors --------------------------------------------------------------------------------

class CountingVisitor : public ExprVisitor {
 public:
  void VisitExpr_(const VarNode* op) override { ++uses; }
  void VisitVarDef(const Var& var) override {
    ++defs;
    ExprVisitor::VisitVarDef(var);
  }
  void VisitStructInfo(const StructInfo& info) override { ++infos; }
  void VisitExpr_(const CallNode* op) override {
    ++calls;
    ExprVisitor::VisitExpr_(op);
  }
  int uses = 0, defs = 0, infos = 0, calls = 0;
};

TEST(RelaxIRCore, Visitor) {
  CountingVisitor v;
  v.VisitExpr(MakeFunc("x"));
  EXPECT_EQ(v.defs, 4);  // x, y, lv, s
  EXPECT_EQ(v.uses, 4);  // x, x, lv, s
  EXPECT_EQ(v.calls, 1);
  EXPECT_EQ(v.infos, 6);  // 4 var annotations, the match_cast, the return annotation
}

/*! \brief Replaces calls of test.core.binary by test.core.unary on the first argument. */
class Rewriter : public ExprMutator {
 public:
  Expr VisitExpr_(const CallNode* op) override {
    Expr e = ExprMutator::VisitExpr_(op);
    const auto* call = e.as<CallNode>();
    if (IsOp(call->op, "test.core.binary")) {
      Call out(Op::Get("test.core.unary"), {call->args[0]});
      if (changes_sinfo) UpdateStructInfo(out, T({7}));
      return out;
    }
    return e;
  }
  bool changes_sinfo = false;
};

TEST(RelaxIRCore, MutatorIdentityAndRewrite) {
  Function f = MakeFunc("x");
  ExprMutator identity;
  EXPECT_TRUE(identity.VisitExpr(f).same_as(f));

  Rewriter rw;
  Expr out = rw.VisitExpr(f);
  ASSERT_FALSE(out.same_as(f));
  auto* g = out.as<FunctionNode>();
  ASSERT_TRUE(g);
  auto* block = g->body.as<SeqExprNode>()->blocks[0].as<DataflowBlockNode>();
  ASSERT_TRUE(block);  // the block kind is kept
  auto* b0 = block->bindings[0].as<VarBindingNode>();
  EXPECT_TRUE(IsOp(b0->value.as<CallNode>()->op, "test.core.unary"));
  // The value has no struct info yet: the variable is kept.
  EXPECT_TRUE(b0->var.same_as(f->body.as<SeqExprNode>()->blocks[0]->bindings[0]->var));
  EXPECT_TRUE(g->params[0].same_as(f->params[0]));

  // A value whose struct info changed gets a fresh variable, and uses follow it.
  Rewriter rw2;
  rw2.changes_sinfo = true;
  Expr rewritten = rw2.VisitExpr(f);
  auto* h = rewritten.as<FunctionNode>();
  auto* hb = h->body.as<SeqExprNode>()->blocks[0].as<DataflowBlockNode>();
  Var lv = hb->bindings[0]->var;
  EXPECT_FALSE(lv.same_as(f->body.as<SeqExprNode>()->blocks[0]->bindings[0]->var));
  EXPECT_TRUE(lv.as<DataflowVarNode>());
  EXPECT_EQ(StructInfoToString(GetStructInfo(lv)), "R.Tensor((7,), dtype=\"float32\")");
  EXPECT_TRUE(hb->bindings[1].as<MatchCastNode>()->value.same_as(lv));
}

TEST(RelaxIRCore, MapRelaxFunctions) {
  Function f = MakeFunc("x");
  IRModule mod = IRModule::FromNamed({{"main", f}});
  IRModule same = MapRelaxFunctions(mod, [](const Function& fn) { return fn; });
  EXPECT_TRUE(same.same_as(mod));
  IRModule changed =
      MapRelaxFunctions(mod, [](const Function& fn) { return Rewriter().VisitExpr(fn); });
  EXPECT_FALSE(changed.same_as(mod));
  EXPECT_FALSE(changed->Lookup("main").same_as(f));
  EXPECT_TRUE(mod->Lookup("main").same_as(f));  // the input module is untouched
}

// ---- the operator registry -------------------------------------------------------------------

TEST(OpRegistryCore, GetAndDocs) {
  Op op = Op::Get("test.core.binary");
  EXPECT_TRUE(op.same_as(Op::Get("test.core.binary")));  // interned
  EXPECT_EQ(op->num_inputs, 2);
  EXPECT_EQ(op->description, "a binary test operator");
  ASSERT_EQ(op->arguments.size(), 2u);
  EXPECT_EQ(op->arguments[1].name, "x2");
  EXPECT_TRUE(Op::Has("test.core.unary"));
  EXPECT_FALSE(Op::Has("test.core.nope"));
  std::vector<std::string> names = Op::ListNames();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_NE(std::find(names.begin(), names.end(), "test.core.binary"), names.end());
  EXPECT_MINITVM_ERROR(Op::Get("test.core.binray"), "ValueError",
                       "no operator named \"test.core.binray\" is registered; did you mean "
                       "\"test.core.binary\"");
  EXPECT_EQ(runtime::Repr(op), "Op(test.core.binary)");
}

TEST(OpRegistryCore, AttributesAndPlevel) {
  Op op = Op::Get("test.core.binary");
  EXPECT_EQ(op.GetAttr("TOpPattern").cast<int64_t>(), 1);
  EXPECT_TRUE(op.HasAttr("TOpPattern"));
  EXPECT_FALSE(op.HasAttr("FNothing"));
  EXPECT_TRUE(op.GetAttr("FNothing").is_null());
  OpAttrMap<int64_t> pattern("TOpPattern");
  EXPECT_EQ(pattern[op], 1);
  EXPECT_EQ(pattern.get(Op::Get("test.core.unary"), 8), 8);
  EXPECT_MINITVM_ERROR(pattern[Op::Get("test.core.unary")], "ValueError",
                       "operator test.core.unary has no attribute TOpPattern");

  OpRegEntry& entry = OpRegEntry::RegisterOrGet("test.core.plevel");
  entry.set_attr("K", int64_t(1), 10);
  EXPECT_MINITVM_ERROR(entry.set_attr("K", int64_t(2), 10), "ValueError",
                       "attribute K of operator test.core.plevel is already set at plevel 10");
  entry.set_attr("K", int64_t(3), 20);  // higher overrides
  EXPECT_EQ(entry.op().GetAttr("K").cast<int64_t>(), 3);
  entry.set_attr("K", int64_t(4), 5);  // lower is ignored
  EXPECT_EQ(entry.op().GetAttr("K").cast<int64_t>(), 3);
  entry.set_attr_typed("FTwice", [](int64_t x) { return 2 * x; });
  auto f = entry.op().GetAttr("FTwice").cast<runtime::PackedFunc>();
  EXPECT_EQ(f(int64_t(21)).cast<int64_t>(), 42);
  std::vector<std::string> keys = entry.op().ListAttrKeys();
  EXPECT_EQ(keys, (std::vector<std::string>{"FTwice", "K"}));

  // From Python's side: ir.OpSetAttr / ir.OpGetAttr.
  auto set = runtime::Registry::Get("ir.OpSetAttr");
  auto get = runtime::Registry::Get("ir.OpGetAttr");
  ASSERT_TRUE(set && get);
  (*set)(entry.op(), std::string("FromPy"), std::string("v"), int64_t(10));
  EXPECT_EQ((*get)(entry.op(), std::string("FromPy")).cast<std::string>(), "v");
  EXPECT_TRUE((*get)(entry.op(), std::string("Absent")).is_null());
}

TEST(OpRegistryCore, ConcurrentRegistrationAndLookup) {
  // Registration, attribute writes and lookups from several threads at once.
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &failures]() {
      for (int i = 0; i < 200; ++i) {
        std::string name = "test.core.concurrent" + std::to_string(i % 10);
        OpRegEntry& e = OpRegEntry::RegisterOrGet(name);
        e.set_attr("T" + std::to_string(t), int64_t(i), 100 + i);  // rising plevels override
        if (!Op::Get(name).HasAttr("T" + std::to_string(t))) ++failures;
        if (Op::Get("test.core.binary").GetAttr("TOpPattern").cast<int64_t>() != 1) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  for (int i = 0; i < 10; ++i) {
    Op op = Op::Get("test.core.concurrent" + std::to_string(i));
    for (int t = 0; t < 4; ++t) {
      // The last write (highest plevel) for this op wins: i = 190 + op index.
      EXPECT_EQ(op.GetAttr("T" + std::to_string(t)).cast<int64_t>(), 190 + i);
    }
  }
}

}  // namespace
}  // namespace relax
}  // namespace minitvm

/*!
 * \file unroll_loop.cc
 * \brief UnrollLoop (stage 5): a loop of kind "unroll" with a constant extent is replaced by
 * one copy of its body per iteration, with the loop variable replaced by the iteration's
 * value. After unrolling `i` in the GEMM micro-kernel every access to the 8×32 accumulator
 * tile has a constant address, so LLVM keeps the whole tile in registers.
 *
 * Options (PassContext config): "tir.UnrollLoop.auto_max_step" (int, default 0) also unrolls
 * serial loops whose nest has at most that many iterations in total; a loop annotated
 * "pragma_auto_unroll_max_step" = N does the same for the loops inside it. Unroll loops whose
 * extent is not a constant stay loops (the code generator asks LLVM to unroll them).
 * "tir.UnrollLoop.explicit_max_extent" (int, default 4096) caps unrolling: a loop with more
 * iterations, or whose copies would hold more than 64 statements per allowed iteration (nests
 * multiply), is refused with a ValueError naming the loop instead of building for minutes;
 * raise the cap to unroll it anyway.
 */
#include <algorithm>
#include <limits>

#include "ir_utils.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace tir {
namespace transform {

namespace {

/*! \brief Statements an unrolled nest may have per allowed iteration of the limit. */
constexpr int64_t kStatementsPerIteration = 64;

class LoopUnroller : public StmtMutator {
 public:
  LoopUnroller(int64_t auto_max_step, int64_t explicit_max)
      : auto_max_step_(auto_max_step), explicit_max_(explicit_max) {}

  Stmt VisitStmt_(const ForNode* op) override {
    int64_t saved = auto_max_step_;
    if (auto v = op->annotations.Get(String("pragma_auto_unroll_max_step"))) {
      auto_max_step_ = v->cast<int64_t>();
    }
    // The step count of a nest is its extent times the step counts of the nests in its body
    // (summed over sibling nests): the body's loops add theirs to steps_below_.
    int64_t saved_steps = steps_below_;
    steps_below_ = 0;
    For loop = Downcast<For>(StmtMutator::VisitStmt_(op));
    int64_t body_steps = std::max<int64_t>(1, steps_below_);
    auto_max_step_ = saved;
    auto extent = AsConstInt(loop->extent);
    int64_t my_steps = 0;
    if (!extent || __builtin_mul_overflow(*extent, body_steps, &my_steps)) {
      my_steps = std::numeric_limits<int64_t>::max() / 4;
    }
    steps_below_ = saved_steps + my_steps;
    bool unroll = loop->kind == ForKind::kUnrolled;
    if (!unroll && loop->kind == ForKind::kSerial && extent && auto_max_step_ > 0) {
      // The body was already processed: a fully unrolled body has no loops left. The whole
      // nest (this loop times what was unrolled inside it) must fit in auto_max_step.
      unroll = !ContainsLoop(loop->body) && my_steps <= auto_max_step_;
    }
    if (!unroll || !extent) return loop;
    if (*extent <= 0) return MakeNoOp();
    // The copies multiply: a nest of unrolled loops yields the product of their extents.
    int64_t body_size = CountStatements(loop->body), total = 0;
    bool too_many = *extent > explicit_max_ || __builtin_mul_overflow(*extent, body_size, &total) ||
                    total > explicit_max_ * kStatementsPerIteration;
    if (too_many) {
      MINITVM_THROW(ValueError)
          << "UnrollLoop: unrolling loop " << loop->loop_var->name_hint << " (" << *extent
          << " iterations of a " << body_size << "-statement body) exceeds the limit "
          << "\"tir.UnrollLoop.explicit_max_extent\" = " << explicit_max_ << " iterations ("
          << explicit_max_ * kStatementsPerIteration
          << " statements in all); raise it in PassContext(config=...) or keep the loop serial";
    }
    Array<Stmt> copies;
    Var v = loop->loop_var;
    for (int64_t i = 0; i < *extent; ++i) {
      PrimExpr value = loop->min + IntImm(v.dtype(), i);
      copies.push_back(
          Substitute(loop->body, [&](const Var& x) { return x.same_as(v) ? value : PrimExpr(); }));
    }
    return SeqStmt::Flatten(copies);
  }

 private:
  static int64_t CountStatements(const Stmt& s) {
    int64_t n = 0;
    PostOrderVisit(s, [&](const ObjectRef& node) { n += node.as<StmtNode>() != nullptr; });
    return n;
  }
  static bool ContainsLoop(const Stmt& s) {
    bool found = false;
    PostOrderVisit(s, [&](const ObjectRef& n) { found = found || n.as<ForNode>(); });
    return found;
  }
  int64_t auto_max_step_;
  int64_t explicit_max_;
  int64_t steps_below_ = 0;
};

}  // namespace

MINITVM_REGISTER_PASS_CONFIG_OPTION("tir.UnrollLoop.auto_max_step", "int");
MINITVM_REGISTER_PASS_CONFIG_OPTION("tir.UnrollLoop.explicit_max_extent", "int");

Pass UnrollLoop() {
  return CreatePrimFuncPass(
      [](PrimFunc f, IRModule, PassContext ctx) {
        int64_t max_step = ctx.GetConfig<int64_t>("tir.UnrollLoop.auto_max_step", 0);
        int64_t explicit_max = ctx.GetConfig<int64_t>("tir.UnrollLoop.explicit_max_extent", 4096);
        Stmt body = LoopUnroller(max_step, explicit_max).VisitStmt(f->body);
        if (body.same_as(f->body)) return f;
        f.CopyOnWrite()->body = body;
        return f;
      },
      0, "tir.UnrollLoop");
}

}  // namespace transform
}  // namespace tir
}  // namespace minitvm

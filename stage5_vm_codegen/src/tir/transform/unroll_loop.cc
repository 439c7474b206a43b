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
 */
#include "ir_utils.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace tir {
namespace transform {

namespace {

class LoopUnroller : public StmtMutator {
 public:
  explicit LoopUnroller(int64_t auto_max_step) : auto_max_step_(auto_max_step) {}

  Stmt VisitStmt_(const ForNode* op) override {
    int64_t saved = auto_max_step_;
    if (auto v = op->annotations.Get(String("pragma_auto_unroll_max_step"))) {
      auto_max_step_ = v->cast<int64_t>();
    }
    For loop = Downcast<For>(StmtMutator::VisitStmt_(op));
    auto_max_step_ = saved;
    auto extent = AsConstInt(loop->extent);
    bool unroll = loop->kind == ForKind::kUnrolled;
    if (!unroll && loop->kind == ForKind::kSerial && extent && auto_max_step_ > 0) {
      // The body was already processed: a fully unrolled body has no loops left, so its
      // step count is the extent.
      unroll = !ContainsLoop(loop->body) && *extent <= auto_max_step_;
    }
    if (!unroll || !extent) return loop;
    if (*extent <= 0) return MakeNoOp();
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
  static bool ContainsLoop(const Stmt& s) {
    bool found = false;
    PostOrderVisit(s, [&](const ObjectRef& n) { found = found || n.as<ForNode>(); });
    return found;
  }
  int64_t auto_max_step_;
};

}  // namespace

MINITVM_REGISTER_PASS_CONFIG_OPTION("tir.UnrollLoop.auto_max_step", "int");

Pass UnrollLoop() {
  return CreatePrimFuncPass(
      [](PrimFunc f, IRModule, PassContext ctx) {
        int64_t max_step = ctx.GetConfig<int64_t>("tir.UnrollLoop.auto_max_step", 0);
        Stmt body = LoopUnroller(max_step).VisitStmt(f->body);
        if (body.same_as(f->body)) return f;
        f.CopyOnWrite()->body = body;
        return f;
      },
      0, "tir.UnrollLoop");
}

}  // namespace transform
}  // namespace tir
}  // namespace minitvm

/*!
 * \file instrument_bound_checkers.cc
 * \brief InstrumentBoundCheckers (stage 5): the checked build mode. With the PassContext option
 * "tir.instrument_bound_checkers" (TVM's name) set, every buffer load and store gets an
 * AssertStmt that its indices lie inside the buffer's shape, and every integer division or
 * modulo whose divisor is not a known non-zero constant gets asserts against a zero divisor and
 * against `INT_MIN / -1`. A failed assert returns an error from the compiled function through
 * the backend error hook, e.g. `IndexError: buffer A: index (9,) is out of bounds for shape
 * (8,) in main`, so the caller gets a minitvm error instead of a crash or silent corruption.
 *
 * The pass runs first in the pipeline, on the function as written (blocks and
 * multi-dimensional buffers), so its checks and messages are those of the TIR interpreter.
 * The checks of an expression are placed before the statement that evaluates it; a check
 * inside a branch of `if_then_else` only applies when the branch is taken (padding code reads
 * out of bounds in the branch it does not take). `Select` evaluates both values in compiled
 * code, so its values are checked unconditionally, like the interpreter does. Without the
 * option the pass does nothing: compiled code has C semantics (see docs/hardening.md).
 */
#include <sstream>

#include "ir_utils.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace tir {
namespace transform {

namespace {

PrimExpr I64(const PrimExpr& e) {
  return e.dtype() == DataType::Int(64) ? e : cast(DataType::Int(64), e);
}

/*! \brief One check: `cond` must hold, otherwise the formatted `fmt` with `values`. */
struct Check {
  PrimExpr cond;
  std::string fmt;
  std::vector<PrimExpr> values;
};

/*!
 * \brief Collects the checks of one expression in evaluation order (operands before the
 * operation), each made conditional on the `if_then_else` branches around it and wrapped in
 * the `Let` bindings it sees.
 */
class CheckCollector : public ExprVisitor {
 public:
  explicit CheckCollector(std::string func) : func_(std::move(func)) {}

  std::vector<Check> checks;

  void Collect(const PrimExpr& e) {
    if (e.defined()) VisitExpr(e);
  }

  /*! \brief The bound checks of an access to `buffer` at `indices` ("store" or "load"). */
  void AddAccess(const Buffer& buffer, const Array<PrimExpr>& indices) {
    if (indices.size() != buffer->shape.size()) return;  // reported by the verifier, not here
    std::string name = buffer->name.str();
    const size_t n = indices.size();
    PrimExpr ok;
    std::vector<PrimExpr> values;
    std::string index_fmt = "(", shape_fmt = "(";
    bool scalar = true;
    for (size_t d = 0; d < n; ++d) {
      PrimExpr idx = indices[d];
      PrimExpr extent = I64(buffer->shape[d]);
      PrimExpr lo, hi;
      if (auto* ramp = idx.as<RampNode>()) {
        PrimExpr last =
            I64(ramp->base) + I64(ramp->stride) * IntImm(DataType::Int(64), ramp->lanes - 1);
        lo = min(I64(ramp->base), last);
        hi = max(I64(ramp->base), last);
        scalar = false;
      } else if (auto* bc = idx.as<BroadcastNode>()) {
        lo = hi = I64(bc->value);
      } else if ((idx.dtype().is_int() || idx.dtype().is_uint()) && idx.dtype().lanes() == 1) {
        lo = hi = I64(idx);
      } else {
        return;  // another vector index: left to the interpreter
      }
      auto c_lo = AsConstInt(lo), c_hi = AsConstInt(hi), c_ext = AsConstInt(extent);
      if (!(c_lo && c_hi && c_ext && *c_lo >= 0 && *c_hi < *c_ext)) {
        PrimExpr cond = IntImm(DataType::Int(64), 0) <= lo && hi < extent;
        ok = ok.defined() ? (ok && cond) : cond;
      }
      const char* sep = d ? ", " : "";
      index_fmt += sep + std::string(lo.same_as(hi) ? "{}" : "{}..{}");
      shape_fmt += sep + std::string("{}");
    }
    if (!ok.defined()) return;  // every index is a constant inside the shape
    index_fmt += n == 1 ? ",)" : ")";
    shape_fmt += n == 1 ? ",)" : ")";
    for (size_t d = 0; d < n; ++d) {
      PrimExpr idx = indices[d];
      if (auto* ramp = idx.as<RampNode>()) {
        values.push_back(I64(ramp->base));
        values.push_back(I64(ramp->base) +
                         I64(ramp->stride) * IntImm(DataType::Int(64), ramp->lanes - 1));
      } else if (auto* bc = idx.as<BroadcastNode>()) {
        values.push_back(I64(bc->value));
      } else {
        values.push_back(I64(idx));
      }
    }
    for (size_t d = 0; d < n; ++d) values.push_back(I64(buffer->shape[d]));
    std::string what = scalar ? "index " : "vector index ";
    Add(ok,
        "IndexError: buffer " + name + ": " + what + index_fmt + " is out of bounds for shape " +
            shape_fmt + " in " + func_,
        values);
  }

  void VisitExpr_(const BufferLoadNode* op) override {
    ExprVisitor::VisitExpr_(op);
    AddAccess(op->buffer, op->indices);
  }
  void VisitExpr_(const DivNode* op) override { Division(op->a, op->b, "/"); }
  void VisitExpr_(const ModNode* op) override { Division(op->a, op->b, "%"); }
  void VisitExpr_(const FloorDivNode* op) override { Division(op->a, op->b, "//"); }
  void VisitExpr_(const FloorModNode* op) override { Division(op->a, op->b, "floormod"); }

  void VisitExpr_(const CallNode* op) override {
    if (op->op.str() != "tir.if_then_else" || op->args.size() != 3 ||
        op->args[0].dtype().lanes() != 1) {
      ExprVisitor::VisitExpr_(op);
      return;
    }
    PrimExpr cond = op->args[0];
    VisitExpr(cond);
    guards_.push_back(cond);
    VisitExpr(op->args[1]);
    guards_.back() = !cond;
    VisitExpr(op->args[2]);
    guards_.pop_back();
  }

  void VisitExpr_(const LetNode* op) override {
    VisitExpr(op->value);
    size_t first = checks.size();
    VisitExpr(op->body);
    // Checks made inside the body see the variable: bind it around them.
    for (size_t i = first; i < checks.size(); ++i) {
      Check& c = checks[i];
      c.cond = Let(op->var, op->value, c.cond);
      for (PrimExpr& v : c.values) v = Let(op->var, op->value, v);
    }
  }

 private:
  void Division(const PrimExpr& a, const PrimExpr& b, const char* op_name) {
    VisitExpr(a);
    VisitExpr(b);
    DataType t = b.dtype();
    if (!(t.is_int() || t.is_uint()) || t.lanes() != 1 || a.dtype().lanes() != 1) return;
    auto cb = AsConstInt(b);
    if (!cb || *cb == 0) {
      Add(b != make_zero(t),
          std::string("RuntimeError: integer division by zero ({} ") + op_name + " 0) in " + func_,
          {I64(a)});
    }
    if (t.is_int() && (!cb || *cb == -1)) {
      auto ca = AsConstInt(a);
      PrimExpr lowest = min_value(t);
      if (!ca || *ca == *AsConstInt(lowest)) {
        std::ostringstream os;
        os << t;
        Add(!(a == lowest && b == make_const(t, -1)),
            std::string("RuntimeError: integer overflow: {} ") + op_name + " -1 does not fit " +
                os.str() + " in " + func_,
            {I64(a)});
      }
    }
  }

  void Add(PrimExpr cond, std::string fmt, std::vector<PrimExpr> values) {
    // Inside `if_then_else` branches the check only applies when the branch is taken; the
    // condition is an if_then_else too, so nothing of it is evaluated otherwise.
    for (size_t i = guards_.size(); i-- > 0;) cond = if_then_else(guards_[i], cond, const_true());
    checks.push_back({std::move(cond), std::move(fmt), std::move(values)});
  }

  std::string func_;
  std::vector<PrimExpr> guards_;
};

class BoundCheckInserter : public StmtMutator {
 public:
  explicit BoundCheckInserter(std::string func) : func_(std::move(func)) {}

  Stmt VisitStmt_(const BufferStoreNode* op) override {
    CheckCollector c(func_);
    c.Collect(op->value);
    for (const PrimExpr& i : op->indices) c.Collect(i);
    c.AddAccess(op->buffer, op->indices);
    return Wrap(c, GetRef<Stmt>(op));
  }
  Stmt VisitStmt_(const EvaluateNode* op) override { return Guard({op->value}, GetRef<Stmt>(op)); }
  Stmt VisitStmt_(const LetStmtNode* op) override {
    return Guard({op->value}, StmtMutator::VisitStmt_(op));
  }
  Stmt VisitStmt_(const ForNode* op) override {
    return Guard({op->min, op->extent}, StmtMutator::VisitStmt_(op));
  }
  Stmt VisitStmt_(const IfThenElseNode* op) override {
    return Guard({op->condition}, StmtMutator::VisitStmt_(op));
  }
  Stmt VisitStmt_(const AssertStmtNode* op) override {
    return Guard({op->condition}, StmtMutator::VisitStmt_(op));
  }
  Stmt VisitStmt_(const AllocateNode* op) override {
    std::vector<PrimExpr> exprs;
    for (const PrimExpr& e : op->extents) exprs.push_back(e);
    exprs.push_back(op->condition);
    return Guard(exprs, StmtMutator::VisitStmt_(op));
  }
  // While conditions are evaluated on every iteration; their accesses stay unchecked (the
  // loop body's statements are checked).

 private:
  Stmt Guard(const std::vector<PrimExpr>& exprs, Stmt stmt) {
    CheckCollector c(func_);
    for (const PrimExpr& e : exprs) c.Collect(e);
    return Wrap(c, std::move(stmt));
  }
  static Stmt Wrap(const CheckCollector& c, Stmt body) {
    for (size_t i = c.checks.size(); i-- > 0;) {
      const Check& k = c.checks[i];
      PrimExpr message = StringImm(k.fmt);
      if (!k.values.empty()) {
        Array<PrimExpr> args{StringImm(k.fmt)};
        for (const PrimExpr& v : k.values) args.push_back(v);
        message = Call(DataType::Handle(), kFormatErrorOp, args);
      }
      body = AssertStmt(k.cond, message, body);
    }
    return body;
  }
  std::string func_;
};

}  // namespace

MINITVM_REGISTER_PASS_CONFIG_OPTION("tir.instrument_bound_checkers", "bool");

Pass InstrumentBoundCheckers() {
  return CreatePrimFuncPass(
      [](PrimFunc f, IRModule, PassContext ctx) {
        if (!ctx.GetConfig<bool>("tir.instrument_bound_checkers", false)) return f;
        std::string name = f->GetAttr<std::string>("global_symbol").value_or("the function");
        Stmt body = BoundCheckInserter(name).VisitStmt(f->body);
        if (body.same_as(f->body)) return f;
        f.CopyOnWrite()->body = body;
        return f;
      },
      0, "tir.InstrumentBoundCheckers");
}

}  // namespace transform
}  // namespace tir
}  // namespace minitvm

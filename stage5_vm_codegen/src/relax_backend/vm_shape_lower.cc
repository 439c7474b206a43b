/*!
 * \file vm_shape_lower.cc
 * \brief VMShapeLower (stage 5 lowering of Relax for the VM): run-time checks of the arguments
 * and symbolic shapes computed through a shape heap.
 *
 * What it emits at the start of every Relax function:
 *   - `shape_heap = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (K,))` when the
 *     function has symbolic variables (K slots: one per variable, plus temporaries), else
 *     `shape_heap = R.call_packed("vm.builtin.null_value")` when some shape is matched;
 *   - per parameter: `vm.builtin.check_tensor_info` / `check_shape_info` / `check_tuple_info`
 *     (kind, rank, dtype; tuple fields are taken apart and checked in turn), then
 *     `vm.builtin.match_shape` with, per dimension, "equal to a constant", "store into the
 *     heap" (the first sight of a variable `n`), or "equal to the heap slot" (seen before);
 *   - dimensions that are expressions of variables (`2 * n`) are checked in a second round,
 *     after every parameter has defined its variables, against a value computed on the heap.
 * Then, through the body (If branches included):
 *   - `R.match_cast(v, info)` gets the same checks (err_ctx "f: match_cast of v") before it;
 *   - every ShapeExpr with a symbolic dimension becomes `vm.builtin.make_shape(heap, ndim,
 *     kind, v, ...)` bound to a fresh variable, and every symbolic PrimValue
 *     `vm.builtin.heap_load(heap, slot)`;
 *   - a compound dimension is computed by `vm.builtin.heap_binop` calls into temporary slots
 *     (add, sub, mul, floordiv, floormod, min, max; casts pass through; constants fold).
 * This replaces TVM's generated TIR shape function by a handful of heap builtins: slower per
 * operation but no extra kernel. A symbolic variable that no parameter or match_cast defines
 * is a ValueError naming it and the function.
 */
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lowering_utils.h"
#include "minitvm/ir/structural.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax_vm/transform.h"
#include "minitvm/runtime/reflection.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/expr.h"

namespace minitvm {
namespace relax_vm {

using namespace relax;  // NOLINT(build/namespaces)

namespace {

/*! \brief An operand of make_shape / heap_binop: (kind, value). */
using Operand = std::pair<MakeShapeCode, int64_t>;

bool IsStatic(const PrimExpr& e) { return e.as<IntImmNode>() != nullptr; }

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

class ShapeLowerer {
 public:
  explicit ShapeLowerer(std::string func_name) : func_name_(std::move(func_name)) {}

  Function Run(const Function& func) {
    heap_ = Var("shape_heap", TensorStructInfo(DataType::Int(64), 1));
    // Parameters.
    std::vector<Binding> prologue;
    std::vector<Deferred> deferred;
    for (const Var& p : func->params) {
      if (!p->struct_info_.defined()) continue;
      CheckValue(p, Downcast<StructInfo>(p->struct_info_),
                 func_name_ + ": argument " + p->name_hint.str(), &prologue, &deferred);
    }
    CheckDeferred(deferred, &prologue);
    // Body.
    const auto* seq = func->body.as<SeqExprNode>();
    if (!seq) return func;
    Expr body = LowerSeq(GetRef<SeqExpr>(seq));
    if (!changed_ && prologue.empty()) return func;
    // The heap, first of all.
    std::vector<Binding> head;
    if (num_slots_ > 0) {
      Expr alloc = detail::CallBuiltinWithCtx(
          "vm.builtin.alloc_shape_heap", {detail::Int64Value(num_slots_)}, GetStructInfo(heap_));
      head.push_back(VarBinding(heap_, alloc));
    } else if (heap_used_) {
      head.push_back(
          VarBinding(heap_, detail::CallPacked("vm.builtin.null_value", {}, ObjectStructInfo())));
      UpdateStructInfo(heap_, ObjectStructInfo());
    }
    const auto* new_seq = body.as<SeqExprNode>();
    Array<BindingBlock> blocks;
    std::vector<Binding> first = head;
    first.insert(first.end(), prologue.begin(), prologue.end());
    if (!first.empty()) blocks.push_back(BindingBlock(Array<Binding>(first)));
    for (const BindingBlock& b : new_seq->blocks) blocks.push_back(b);
    SeqExpr out_body(blocks, new_seq->body);
    UpdateStructInfo(out_body, GetStructInfo(seq->body));
    Function out = func;
    out.CopyOnWrite()->body = out_body;
    return out;
  }

 private:
  /*! \brief A value whose compound dimensions are checked in the second round. */
  struct Deferred {
    Expr value;
    Array<PrimExpr> dims;
    std::string ctx;
  };

  // ---- checks ----

  void EmitVoid(std::vector<Binding>* out, const std::string& name, Array<Expr> args) {
    out->push_back(VarBinding(Var("_", detail::VoidInfo()),
                              detail::CallPacked(name, args, detail::VoidInfo())));
  }

  void CheckValue(const Expr& value, const StructInfo& info, const std::string& ctx,
                  std::vector<Binding>* out, std::vector<Deferred>* deferred) {
    if (const auto* t = info.as<TensorStructInfoNode>()) {
      EmitVoid(out, "vm.builtin.check_tensor_info",
               {value, detail::Int64Value(t->ndim),
                StringImm(t->IsUnknownDtype() ? "" : DataTypeToString(t->dtype)), StringImm(ctx)});
      if (auto dims = t->GetShape()) MatchDims(value, *dims, ctx, out, deferred);
    } else if (const auto* s = info.as<ShapeStructInfoNode>()) {
      EmitVoid(out, "vm.builtin.check_shape_info",
               {value, detail::Int64Value(s->ndim), StringImm(ctx)});
      if (s->values.defined()) MatchDims(value, s->values, ctx, out, deferred);
    } else if (const auto* tup = info.as<TupleStructInfoNode>()) {
      EmitVoid(
          out, "vm.builtin.check_tuple_info",
          {value, detail::Int64Value(static_cast<int64_t>(tup->fields.size())), StringImm(ctx)});
      for (size_t i = 0; i < tup->fields.size(); ++i) {
        const StructInfo& f = tup->fields[i];
        if (f.as<ObjectStructInfoNode>() || f.as<FuncStructInfoNode>() ||
            f.as<PrimStructInfoNode>()) {
          continue;
        }
        Var item("item", f);
        out->push_back(VarBinding(
            item, detail::CallPacked("vm.builtin.tuple_getitem",
                                     {value, detail::Int64Value(static_cast<int64_t>(i))}, f)));
        CheckValue(item, f, ctx + ", field " + std::to_string(i), out, deferred);
      }
    }
  }

  void MatchDims(const Expr& value, const Array<PrimExpr>& dims, const std::string& ctx,
                 std::vector<Binding>* out, std::vector<Deferred>* deferred) {
    Array<Expr> args = {value, heap_, detail::Int64Value(static_cast<int64_t>(dims.size()))};
    bool compound = false;
    for (const PrimExpr& d : dims) {
      if (const auto* imm = d.as<IntImmNode>()) {
        args.push_back(detail::Int64Value(static_cast<int64_t>(MatchShapeCode::kAssertEqualToImm)));
        args.push_back(detail::Int64Value(imm->value));
      } else if (const auto* v = d.as<tir::VarNode>()) {
        auto it = slot_.find(v);
        if (it == slot_.end()) {
          int64_t s = num_slots_++;
          slot_[v] = s;
          args.push_back(detail::Int64Value(static_cast<int64_t>(MatchShapeCode::kStoreToHeap)));
          args.push_back(detail::Int64Value(s));
        } else {
          args.push_back(
              detail::Int64Value(static_cast<int64_t>(MatchShapeCode::kAssertEqualToLoad)));
          args.push_back(detail::Int64Value(it->second));
        }
      } else {
        compound = true;
        args.push_back(detail::Int64Value(static_cast<int64_t>(MatchShapeCode::kNoOp)));
        args.push_back(detail::Int64Value(0));
      }
    }
    args.push_back(StringImm(ctx));
    heap_used_ = true;
    EmitVoid(out, "vm.builtin.match_shape", args);
    if (compound) deferred->push_back({value, dims, ctx});
  }

  void CheckDeferred(const std::vector<Deferred>& deferred, std::vector<Binding>* out) {
    for (const Deferred& d : deferred) {
      Array<Expr> args = {d.value, heap_, detail::Int64Value(static_cast<int64_t>(d.dims.size()))};
      for (const PrimExpr& dim : d.dims) {
        if (IsStatic(dim) || dim.as<tir::VarNode>()) {
          args.push_back(detail::Int64Value(static_cast<int64_t>(MatchShapeCode::kNoOp)));
          args.push_back(detail::Int64Value(0));
          continue;
        }
        Operand op = Compute(dim, out);
        if (op.first == MakeShapeCode::kUseImm) {
          args.push_back(
              detail::Int64Value(static_cast<int64_t>(MatchShapeCode::kAssertEqualToImm)));
        } else {
          args.push_back(
              detail::Int64Value(static_cast<int64_t>(MatchShapeCode::kAssertEqualToLoad)));
        }
        args.push_back(detail::Int64Value(op.second));
      }
      args.push_back(StringImm(d.ctx));
      EmitVoid(out, "vm.builtin.match_shape", args);
    }
  }

  // ---- computing on the heap ----

  Operand Compute(const PrimExpr& e, std::vector<Binding>* out) {
    if (const auto* imm = e.as<IntImmNode>()) return {MakeShapeCode::kUseImm, imm->value};
    if (const auto* v = e.as<tir::VarNode>()) {
      auto it = slot_.find(v);
      if (it == slot_.end()) {
        MINITVM_THROW(ValueError) << "VMShapeLower: in function " << func_name_
                                  << ", the symbolic variable " << v->name_hint
                                  << " is used but no parameter or R.match_cast defines it";
      }
      return {MakeShapeCode::kLoadShape, it->second};
    }
    if (const auto* c = e.as<tir::CastNode>()) return Compute(c->value, out);
    if (auto cached = Lookup(computed_, e)) return *cached;
    HeapBinOp op;
    if (e.as<tir::AddNode>()) {
      op = HeapBinOp::kAdd;
    } else if (e.as<tir::SubNode>()) {
      op = HeapBinOp::kSub;
    } else if (e.as<tir::MulNode>()) {
      op = HeapBinOp::kMul;
    } else if (e.as<tir::FloorDivNode>() || e.as<tir::DivNode>()) {
      op = HeapBinOp::kFloorDiv;
    } else if (e.as<tir::FloorModNode>() || e.as<tir::ModNode>()) {
      op = HeapBinOp::kFloorMod;
    } else if (e.as<tir::MinNode>()) {
      op = HeapBinOp::kMin;
    } else if (e.as<tir::MaxNode>()) {
      op = HeapBinOp::kMax;
    } else {
      MINITVM_THROW(ValueError) << "VMShapeLower: in function " << func_name_
                                << ", the shape expression " << runtime::Repr(e) << " uses a "
                                << e->GetTypeKey()
                                << "; only +, -, *, //, %, min, max and casts of symbolic "
                                   "variables are computed at run time";
    }
    const auto* bin = e.as<tir::BinaryOpNode>();
    Operand a = Compute(bin->a, out);
    Operand b = Compute(bin->b, out);
    if (a.first == MakeShapeCode::kUseImm && b.first == MakeShapeCode::kUseImm) {
      int64_t x = a.second, y = b.second;
      switch (op) {
        case HeapBinOp::kAdd:
          return {MakeShapeCode::kUseImm, x + y};
        case HeapBinOp::kSub:
          return {MakeShapeCode::kUseImm, x - y};
        case HeapBinOp::kMul:
          return {MakeShapeCode::kUseImm, x * y};
        case HeapBinOp::kMin:
          return {MakeShapeCode::kUseImm, std::min(x, y)};
        case HeapBinOp::kMax:
          return {MakeShapeCode::kUseImm, std::max(x, y)};
        case HeapBinOp::kFloorDiv:
        case HeapBinOp::kFloorMod:
          if (y != 0) {
            int64_t q = FloorDivInt(x, y);
            return {MakeShapeCode::kUseImm, op == HeapBinOp::kFloorDiv ? q : x - q * y};
          }
          break;
      }
    }
    int64_t dst = num_slots_++;
    EmitVoid(out, "vm.builtin.heap_binop",
             {heap_, detail::Int64Value(static_cast<int64_t>(op)), detail::Int64Value(dst),
              detail::Int64Value(static_cast<int64_t>(a.first)), detail::Int64Value(a.second),
              detail::Int64Value(static_cast<int64_t>(b.first)), detail::Int64Value(b.second)});
    heap_used_ = true;
    computed_.back().emplace_back(e, Operand{MakeShapeCode::kLoadShape, dst});
    return {MakeShapeCode::kLoadShape, dst};
  }

  /*! \brief A value cached in an enclosing scope (computed on every path to here). */
  template <typename T>
  static std::optional<T> Lookup(const std::vector<std::vector<std::pair<ObjectRef, T>>>& scopes,
                                 const ObjectRef& key) {
    for (const auto& scope : scopes) {
      for (const auto& [k, v] : scope) {
        if (StructuralEqual(k, key)) return v;
      }
    }
    return std::nullopt;
  }

  // ---- rewriting the body ----

  bool IsSymbolicShape(const Expr& e) const {
    const auto* s = e.as<ShapeExprNode>();
    if (!s) return false;
    for (const PrimExpr& v : s->values) {
      if (!IsStatic(v)) return true;
    }
    return false;
  }
  bool IsSymbolicPrim(const Expr& e) const {
    const auto* p = e.as<PrimValueNode>();
    return p && p->value.dtype().is_int() && !IsStatic(p->value) && !p->value.as<FloatImmNode>();
  }

  /*! \brief make_shape / heap_load of a symbolic ShapeExpr / PrimValue. */
  Expr LowerLeaf(const Expr& e, std::vector<Binding>* out) {
    if (IsSymbolicShape(e)) {
      const auto* s = e.as<ShapeExprNode>();
      Array<Expr> args = {heap_, detail::Int64Value(static_cast<int64_t>(s->values.size()))};
      for (const PrimExpr& v : s->values) {
        Operand op = Compute(v, out);
        args.push_back(detail::Int64Value(static_cast<int64_t>(op.first)));
        args.push_back(detail::Int64Value(op.second));
      }
      heap_used_ = true;
      changed_ = true;
      return detail::CallPacked("vm.builtin.make_shape", args, ShapeStructInfo(s->values));
    }
    if (IsSymbolicPrim(e)) {
      const auto* p = e.as<PrimValueNode>();
      Operand op = Compute(p->value, out);
      changed_ = true;
      if (op.first == MakeShapeCode::kUseImm) return detail::Int64Value(op.second);
      heap_used_ = true;
      return detail::CallPacked("vm.builtin.heap_load", {heap_, detail::Int64Value(op.second)},
                                PrimStructInfo(p->value));
    }
    return e;
  }

  /*! \brief An argument: symbolic leaves become variables bound before the binding. */
  Expr LowerArg(const Expr& e, std::vector<Binding>* out) {
    if (IsSymbolicShape(e) || IsSymbolicPrim(e)) {
      if (auto cached = Lookup(made_, e)) return *cached;
      Expr call = LowerLeaf(e, out);
      if (call.as<PrimValueNode>()) return call;
      Var v = detail::Emit(out, e.as<ShapeExprNode>() ? "shape" : "value", call);
      made_.back().emplace_back(e, v);
      return v;
    }
    if (const auto* t = e.as<TupleNode>()) {
      Array<Expr> fields;
      bool same = true;
      for (const Expr& f : t->fields) {
        Expr nf = LowerArg(f, out);
        same = same && nf.same_as(f);
        fields.push_back(nf);
      }
      if (same) return e;
      Tuple nt(fields);
      UpdateStructInfo(nt, GetStructInfo(e));
      return nt;
    }
    return e;
  }

  Expr LowerValue(const Expr& value, std::vector<Binding>* out) {
    if (IsSymbolicShape(value) || IsSymbolicPrim(value)) return LowerLeaf(value, out);
    if (const auto* call = value.as<CallNode>()) {
      Array<Expr> args;
      bool same = true;
      for (const Expr& a : call->args) {
        Expr na = LowerArg(a, out);
        same = same && na.same_as(a);
        args.push_back(na);
      }
      if (same) return value;
      Call nc(call->op, args, call->attrs, call->sinfo_args);
      UpdateStructInfo(nc, GetStructInfo(value));
      return nc;
    }
    if (value.as<TupleNode>()) return LowerArg(value, out);
    if (const auto* i = value.as<IfNode>()) {
      Expr cond = LowerArg(i->cond, out);
      Expr t = LowerBranch(i->true_branch);
      Expr f = LowerBranch(i->false_branch);
      if (cond.same_as(i->cond) && t.same_as(i->true_branch) && f.same_as(i->false_branch)) {
        return value;
      }
      If ni(cond, t, f);
      UpdateStructInfo(ni, GetStructInfo(value));
      return ni;
    }
    return value;
  }

  /*! \brief A branch: what it computes is not visible after the If. */
  Expr LowerBranch(const Expr& branch) {
    computed_.emplace_back();
    made_.emplace_back();
    Expr out = LowerBranchBody(branch);
    computed_.pop_back();
    made_.pop_back();
    return out;
  }

  Expr LowerBranchBody(const Expr& branch) {
    const auto* seq = branch.as<SeqExprNode>();
    if (!seq) {
      std::vector<Binding> out;
      Expr v = LowerValue(branch, &out);
      if (out.empty()) return v;
      SeqExpr s({BindingBlock(Array<Binding>(out))}, v);
      UpdateStructInfo(s, GetStructInfo(branch));
      return s;
    }
    return LowerSeq(GetRef<SeqExpr>(seq));
  }

  /*! \brief A SeqExpr with every binding lowered. */
  Expr LowerSeq(const SeqExpr& seq) {
    Array<BindingBlock> blocks;
    bool changed = false;
    for (const BindingBlock& block : seq->blocks) {
      std::vector<Binding> out;
      for (const Binding& b : block->bindings) {
        if (const auto* mc = b.as<MatchCastNode>()) {
          std::vector<Deferred> deferred;
          CheckValue(mc->value, mc->struct_info,
                     func_name_ + ": match_cast of " + mc->var->name_hint.str(), &out, &deferred);
          CheckDeferred(deferred, &out);
          out.push_back(b);
          changed = true;
          continue;
        }
        const auto* vb = b.as<VarBindingNode>();
        Expr value = LowerValue(vb->value, &out);
        if (value.same_as(vb->value)) {
          out.push_back(b);
        } else {
          out.push_back(VarBinding(vb->var, value));
          changed = true;
        }
      }
      if (out.size() != block->bindings.size()) changed = true;
      blocks.push_back(block.as<DataflowBlockNode>() ? BindingBlock(DataflowBlock(out))
                                                     : BindingBlock(out));
    }
    std::vector<Binding> tail;
    Expr body = LowerArg(seq->body, &tail);
    if (!tail.empty()) {
      blocks.push_back(BindingBlock(Array<Binding>(tail)));
      changed = true;
    }
    if (!changed && body.same_as(seq->body)) return seq;
    changed_ = true;
    SeqExpr out(blocks, body);
    UpdateStructInfo(out, GetStructInfo(seq));
    return out;
  }

  std::string func_name_;
  Var heap_;
  int64_t num_slots_ = 0;
  bool heap_used_ = false;
  bool changed_ = false;
  std::unordered_map<const tir::VarNode*, int64_t> slot_;
  /*! \brief Per scope: compound expressions already on the heap, shapes already made. */
  std::vector<std::vector<std::pair<ObjectRef, Operand>>> computed_ =
      std::vector<std::vector<std::pair<ObjectRef, Operand>>>(1);
  std::vector<std::vector<std::pair<ObjectRef, Var>>> made_ =
      std::vector<std::vector<std::pair<ObjectRef, Var>>>(1);
};

}  // namespace

Pass VMShapeLower() {
  return detail::RelaxFunctionPass("VMShapeLower",
                                   [](const Function& func, const std::string& name) -> Function {
                                     ShapeLowerer lowerer(name);
                                     return lowerer.Run(func);
                                   });
}

MINITVM_REGISTER_GLOBAL("relax.transform.VMShapeLower").set_body_typed([]() {
  return VMShapeLower();
});

}  // namespace relax_vm
}  // namespace minitvm

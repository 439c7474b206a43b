/*!
 * \file schedule.cc
 * \brief The Schedule (stage 3): creation, copies, the handle table, the generic `Apply`
 * that every primitive goes through (check, transform, re-find handles, record, or roll back
 * and render the error), and the typed methods (each one `Apply` of its kind). The primitives
 * themselves live in `primitive/`.
 */
#include "minitvm/tir/schedule/schedule.h"

#include <map>
#include <mutex>
#include <sstream>

#include "instruction.h"
#include "utils.h"
#include "verify_blocks.h"

namespace minitvm {
namespace tir {

// ---- instruction kinds ----------------------------------------------------------------------

namespace {
std::map<std::string, InstructionKindInfo>& KindTable() {
  static std::map<std::string, InstructionKindInfo> table;
  return table;
}
std::mutex& KindMutex() {
  static std::mutex m;
  return m;
}
}  // namespace

bool RegisterInstructionKind(InstructionKindInfo info) {
  std::lock_guard<std::mutex> lock(KindMutex());
  std::string name = info.name;
  RegisterScheduleGlobal(info);
  KindTable()[name] = std::move(info);
  return true;
}

const InstructionKindInfo& GetInstructionKind(const std::string& name) {
  std::lock_guard<std::mutex> lock(KindMutex());
  auto it = KindTable().find(name);
  if (it == KindTable().end()) {
    std::ostringstream os;
    for (const auto& [k, v] : KindTable()) os << " " << k;
    MINITVM_THROW(ValueError) << "unknown schedule instruction kind \"" << name
                              << "\"; known kinds:" << os.str();
  }
  return it->second;
}

std::vector<std::string> InstructionKindNames() {
  std::lock_guard<std::mutex> lock(KindMutex());
  std::vector<std::string> out;
  for (const auto& [k, v] : KindTable()) out.push_back(k);
  return out;
}

// ---- handles ----------------------------------------------------------------------------------

ObjectRef UnpackHandle(const Any& value, bool want_loop) {
  ObjectRef rv = value.cast<ObjectRef>();
  bool is_block = rv.as<BlockRVNode>() != nullptr, is_loop = rv.as<LoopRVNode>() != nullptr;
  if (!is_block && !is_loop) {
    MINITVM_THROW(TypeError) << "expected a BlockRV or LoopRV handle but got "
                             << (rv.defined() ? rv->GetTypeKey() : std::string("None"));
  }
  if (is_loop != want_loop) {
    MINITVM_THROW(TypeError) << (want_loop ? "expected a loop but got a block"
                                           : "expected a block but got a loop");
  }
  return rv;
}

BlockRV BlockRV::New() { return BlockRV(make_object<BlockRVNode>()); }
LoopRV LoopRV::New() { return LoopRV(make_object<LoopRVNode>()); }
ExprRV ExprRV::New(int64_t value) {
  auto n = make_object<ExprRVNode>();
  n->value = value;
  return ExprRV(ObjectPtr<Object>(std::move(n)));
}

bool IsScheduleRV(const Any& v) {
  return v.as<BlockRVNode>() || v.as<LoopRVNode>() || v.as<ExprRVNode>();
}

ObjectRef NewScheduleRV(char kind) {
  if (kind == 'l') return LoopRV::New();
  if (kind == 'v') return ExprRV::New(0);
  return BlockRV::New();
}

// ---- creation and copies ----------------------------------------------------------------------

Schedule Schedule::Create(IRModule mod, int debug_mask, ErrorRenderLevel level) {
  // Primitives trust the blocks' declared regions and iterator kinds: check them once, here.
  VerifyBlocksForSchedule(mod);
  auto n = make_object<ScheduleNode>();
  n->state_ = ScheduleState(std::move(mod));
  n->original_mod_ = n->state_.mod();
  n->trace_ = Trace::Empty();
  n->debug_mask_ = debug_mask;
  n->error_render_level_ = level;
  return Schedule(ObjectPtr<Object>(std::move(n)));
}

Schedule Schedule::Create(PrimFunc func, int debug_mask, ErrorRenderLevel level) {
  if (!func->GetAttr<String>("global_symbol")) func = WithAttr(func, "global_symbol", "main");
  return Create(IRModule::FromNamed({{"main", func}}), debug_mask, level);
}

Schedule ScheduleNode::Copy() const {
  auto n = make_object<ScheduleNode>();
  n->state_ = state_;
  n->original_mod_ = original_mod_;
  n->trace_ = Trace(trace_->insts);
  n->error_render_level_ = error_render_level_;
  n->debug_mask_ = debug_mask_;
  n->rvs_ = rvs_;
  n->rv_names_ = rv_names_;
  n->next_block_name_ = next_block_name_;
  n->next_loop_name_ = next_loop_name_;
  n->next_rv_index_ = next_rv_index_;
  n->rand_state_ = rand_state_;
  return Schedule(ObjectPtr<Object>(std::move(n)));
}

// ---- the handle table -------------------------------------------------------------------------

std::pair<std::string, const StmtNode*> ScheduleNode::Resolve(const ObjectRef& rv) const {
  if (!rv.as<BlockRVNode>() && !rv.as<LoopRVNode>()) {
    MINITVM_THROW(TypeError) << "expected a BlockRV or LoopRV handle but got "
                             << (rv.defined() ? rv->GetTypeKey() : std::string("None"));
  }
  auto it = rvs_.find(rv);
  if (it == rvs_.end()) {
    MINITVM_THROW(ValueError) << "the " << (rv.as<BlockRVNode>() ? "block" : "loop")
                              << " handle does not belong to this schedule";
  }
  const RVEntry& e = it->second;
  if (!e.expired_by.empty()) {
    std::string name = NameOf(rv);
    MINITVM_THROW(ValueError) << "the " << (rv.as<BlockRVNode>() ? "block" : "loop") << " handle"
                              << (name.empty() ? "" : " " + name) << " refers to a "
                              << (rv.as<BlockRVNode>() ? "block" : "loop")
                              << " that no longer exists: it was removed by " << e.expired_by;
  }
  return {e.func, static_cast<const StmtNode*>(e.stmt.get())};
}

Block ScheduleNode::Get(const BlockRV& rv) const {
  auto [func, stmt] = Resolve(rv);
  return GetRef<Block>(sched::AsBlock(stmt));
}

For ScheduleNode::Get(const LoopRV& rv) const {
  auto [func, stmt] = Resolve(rv);
  return GetRef<For>(sched::AsLoop(stmt));
}

std::string ScheduleNode::FuncNameOf(const ObjectRef& rv) const { return Resolve(rv).first; }

std::string ScheduleNode::NameOf(const ObjectRef& rv) const {
  auto it = rv_names_.find(rv);
  return it == rv_names_.end() ? "" : it->second;
}

void ScheduleNode::NameRV(const ObjectRef& rv) {
  if (rv_names_.count(rv)) return;
  std::string prefix = rv.as<BlockRVNode>() ? "b" : rv.as<ExprRVNode>() ? "v" : "l";
  rv_names_[rv] = prefix + std::to_string(next_rv_index_++);
}

ObjectRef ScheduleNode::NewRV(const std::string& func_name, const StmtNode* stmt) {
  ObjectRef rv;
  if (dynamic_cast<const BlockNode*>(stmt)) {
    rv = BlockRV::New();
  } else {
    MINITVM_ICHECK(dynamic_cast<const ForNode*>(stmt)) << "handles refer to blocks or loops";
    rv = LoopRV::New();
  }
  RVEntry e;
  e.func = func_name;
  e.stmt = GetRef<ObjectRef>(stmt);
  rvs_[rv] = e;
  return rv;
}

void ScheduleNode::Reconcile(const std::string& func, const std::string& primitive) {
  const FuncIndex& index = state_.Index(func);
  for (auto& [rv, e] : rvs_) {
    if (e.func != func || !e.expired_by.empty()) continue;
    if (auto* loop = e.stmt.as<ForNode>()) {
      const ForNode* now = index.LoopOfVar(loop->loop_var.get());
      if (now != nullptr) {
        e.stmt = GetRef<ObjectRef>(now);
      } else {
        e.expired_by = primitive;
      }
    } else if (auto* block = e.stmt.as<BlockNode>()) {
      if (index.Find(block)) continue;
      auto renamed = renames_.find(block);
      auto named =
          index.BlocksNamed(renamed != renames_.end() ? renamed->second : block->name_hint.str());
      if (named.size() == 1) {
        e.stmt = GetRef<ObjectRef>(named[0]);
      } else {
        e.expired_by = primitive;
      }
    }
  }
}

// ---- well-formedness check (debug_mask) ------------------------------------------------------

namespace {

/*! \brief Checks that every variable is used inside its scope and blocks use only iterators. */
class WellFormedChecker : public StmtExprVisitor {
 public:
  using StmtExprVisitor::VisitExpr;
  using StmtExprVisitor::VisitStmt;
  explicit WellFormedChecker(const PrimFunc& f) {
    for (const Var& p : f->params) defined_.insert(p.get());
    for (const auto& [v, buf] : f->buffer_map.items()) DefineBuffer(buf);
  }
  void DefineBuffer(const Buffer& buf) {
    defined_.insert(buf->data.get());
    for (const PrimExpr& s : buf->shape) {
      for (const VarNode* v : sched::UsedVars(s)) defined_.insert(v);
    }
    for (const PrimExpr& s : buf->strides) {
      for (const VarNode* v : sched::UsedVars(s)) defined_.insert(v);
    }
    for (const VarNode* v : sched::UsedVars(buf->elem_offset)) defined_.insert(v);
  }
  void VisitExpr_(const VarNode* op) override {
    if (!defined_.count(op)) {
      MINITVM_THROW(InternalError) << "schedule produced malformed IR: variable " << op->name_hint
                                   << " is used outside its scope";
    }
    if (!block_stack_.empty() && loop_vars_.count(op) && !inner_loops_.back().count(op)) {
      MINITVM_THROW(InternalError)
          << "schedule produced malformed IR: block \"" << block_stack_.back()->name_hint
          << "\" uses loop variable " << op->name_hint << " of a loop outside it";
    }
  }
  void VisitStmt_(const ForNode* op) override {
    VisitExpr(op->min);
    VisitExpr(op->extent);
    defined_.insert(op->loop_var.get());
    loop_vars_.insert(op->loop_var.get());
    if (!inner_loops_.empty()) inner_loops_.back().insert(op->loop_var.get());
    VisitStmt(op->body);
    defined_.erase(op->loop_var.get());
  }
  void VisitStmt_(const LetStmtNode* op) override {
    VisitExpr(op->value);
    defined_.insert(op->var.get());
    VisitStmt(op->body);
    defined_.erase(op->var.get());
  }
  void VisitStmt_(const BlockRealizeNode* op) override {
    for (const PrimExpr& v : op->iter_values) VisitExpr(v);
    VisitExpr(op->predicate);
    VisitStmt(op->block);
  }
  void VisitStmt_(const BlockNode* op) override {
    // As in TVM, only a block with iterators fences off the loops around it: an opaque block
    // (no iterators, the root among them) may use the loop variables outside it.
    bool is_root = op->iter_vars.empty();
    for (const IterVar& iv : op->iter_vars) defined_.insert(iv->var.get());
    for (const Buffer& b : op->alloc_buffers) DefineBuffer(b);
    for (const MatchBufferRegion& m : op->match_buffers) DefineBuffer(m->buffer);
    if (!is_root) {
      block_stack_.push_back(op);
      inner_loops_.emplace_back();
    }
    StmtExprVisitor::VisitStmt_(op);
    if (!is_root) {
      block_stack_.pop_back();
      inner_loops_.pop_back();
    }
  }

 private:
  std::unordered_set<const VarNode*> defined_;
  std::unordered_set<const VarNode*> loop_vars_;
  std::vector<const BlockNode*> block_stack_;
  std::vector<std::unordered_set<const VarNode*>> inner_loops_;
};

}  // namespace

void ScheduleNode::VerifyFunc(const std::string& func) const {
  PrimFunc f = state_.Func(func);
  WellFormedChecker checker(f);
  checker.VisitStmt(f->body);
  // Loop variables must be unique: handles find loops by them.
  std::unordered_set<const VarNode*> seen;
  PostOrderVisit(f->body, [&](const ObjectRef& n) {
    if (auto* loop = n.as<ForNode>()) {
      MINITVM_ICHECK(seen.insert(loop->loop_var.get()).second)
          << "loop variable " << loop->loop_var->name_hint << " is used by two loops";
    }
  });
}

// ---- the generic path ---------------------------------------------------------------------

namespace {

void CollectRVs(const Any& value, std::vector<ObjectRef>* out) {
  if (value.as<BlockRVNode>() || value.as<LoopRVNode>()) {
    out->push_back(value.cast<ObjectRef>());
  } else if (auto* arr = value.as<runtime::ArrayNode>()) {
    for (const Any& v : arr->data) CollectRVs(v, out);
  }
}

}  // namespace

Array<ObjectRef> ScheduleNode::Apply(const std::string& kind, const Array<Any>& inputs,
                                     const Array<Any>& given_attrs) {
  const InstructionKindInfo& info = GetInstructionKind(kind);
  // Attributes are plain values: a sampled ExprRV given as one (e.g. an annotation value)
  // stands for the integer it holds, which is what the IR gets and the trace records.
  Array<Any> attrs;
  for (const Any& a : given_attrs) {
    auto* e = a.as<ExprRVNode>();
    attrs.push_back(e ? Any(e->value) : a);
  }
  // The function the instruction works on: the one of its first handle, or the one its
  // `func_name` attribute names (get_block), or "main".
  std::vector<ObjectRef> input_rvs;
  for (const Any& v : inputs) CollectRVs(v, &input_rvs);
  std::string func_name = "main";
  if (!input_rvs.empty()) {
    func_name = FuncNameOf(input_rvs[0]);
  } else {
    for (size_t i = 0; i < info.attr_names.size() && i < attrs.size(); ++i) {
      if (info.attr_names[i] == "func_name") func_name = attrs[i].cast<std::string>();
    }
  }
  auto name_of = [this](const ObjectRef& rv) {
    std::string n = NameOf(rv);
    return n.empty() ? std::string("_") : n;
  };
  std::string call = InstructionAsPython(kind, inputs, attrs, {}, name_of);

  ScheduleState saved_state = state_;
  auto saved_rvs = rvs_;
  std::string saved_call = current_call_;
  current_call_ = call;
  pending_decision_ = Any();
  Array<ObjectRef> outputs;
  try {
    outputs = info.apply(this, inputs, attrs);
    for (const std::string& f : state_.FuncNames()) {
      if (saved_state.mod()->ContainGlobalVar(f) && state_.Func(f).same_as(saved_state.Func(f))) {
        continue;
      }
      state_.Replace(f, sched::RefreshOuterBlockAccess(state_.Func(f)));
      Reconcile(f, "sch." + info.method + "()");
      if (debug_mask_ != 0) VerifyFunc(f);
    }
  } catch (const ScheduleError& e) {
    renames_.clear();
    state_ = saved_state;
    rvs_ = saved_rvs;
    current_call_ = saved_call;
    throw Error("ScheduleError." + e.rule(),
                e.Render(error_render_level_, call, saved_state.mod(), func_name));
  } catch (...) {
    renames_.clear();
    state_ = saved_state;
    rvs_ = saved_rvs;
    current_call_ = saved_call;
    throw;
  }
  renames_.clear();
  current_call_ = saved_call;
  for (const ObjectRef& o : outputs) NameRV(o);
  // A sampling primitive records the choice it made as its `decision` attribute, so that the
  // trace replays the same choice (and a search can change it).
  Array<Any> recorded_attrs = attrs;
  if (!pending_decision_.is_null()) {
    for (size_t i = 0; i < info.attr_names.size(); ++i) {
      if (info.attr_names[i] != "decision") continue;
      while (recorded_attrs.size() <= i) recorded_attrs.push_back(Any());
      recorded_attrs.Set(i, pending_decision_);
    }
    pending_decision_ = Any();
  }
  trace_.Append(Instruction(kind, inputs, recorded_attrs, outputs));
  return outputs;
}

// ---- typed methods ------------------------------------------------------------------------

namespace {
template <typename T>
Array<T> CastRVs(const Array<ObjectRef>& in) {
  Array<T> out;
  for (const ObjectRef& o : in) out.push_back(Downcast<T>(o));
  return out;
}
Array<Any> ToAnyArray(const Array<LoopRV>& loops) {
  Array<Any> out;
  for (const LoopRV& l : loops) out.push_back(Any(l));
  return out;
}
Array<Any> ToAnyArray(const Array<BlockRV>& blocks) {
  Array<Any> out;
  for (const BlockRV& b : blocks) out.push_back(Any(b));
  return out;
}
}  // namespace

BlockRV ScheduleNode::GetBlock(const std::string& name, const std::string& func_name) {
  return Downcast<BlockRV>(Apply("GetBlock", {}, {Any(name), Any(func_name)})[0]);
}
Array<LoopRV> ScheduleNode::GetLoops(const BlockRV& block) {
  return CastRVs<LoopRV>(Apply("GetLoops", {Any(block)}, {}));
}
Array<BlockRV> ScheduleNode::GetChildBlocks(const ObjectRef& block_or_loop) {
  return CastRVs<BlockRV>(Apply("GetChildBlocks", {Any(block_or_loop)}, {}));
}
Array<BlockRV> ScheduleNode::GetProducers(const BlockRV& block) {
  return CastRVs<BlockRV>(Apply("GetProducers", {Any(block)}, {}));
}
Array<BlockRV> ScheduleNode::GetConsumers(const BlockRV& block) {
  return CastRVs<BlockRV>(Apply("GetConsumers", {Any(block)}, {}));
}
Array<LoopRV> ScheduleNode::Split(const LoopRV& loop,
                                  const std::vector<std::optional<int64_t>>& factors,
                                  bool preserve_unit_iters, bool disable_predication) {
  Array<Any> fs;
  for (const auto& f : factors) fs.push_back(f ? Any(*f) : Any());
  return CastRVs<LoopRV>(
      Apply("Split", {Any(loop), Any(fs)}, {Any(preserve_unit_iters), Any(disable_predication)}));
}
LoopRV ScheduleNode::Fuse(const Array<LoopRV>& loops, bool preserve_unit_iters) {
  return Downcast<LoopRV>(Apply("Fuse", ToAnyArray(loops), {Any(preserve_unit_iters)})[0]);
}
void ScheduleNode::Reorder(const Array<LoopRV>& ordered_loops) {
  Apply("Reorder", ToAnyArray(ordered_loops), {});
}
void ScheduleNode::Parallel(const LoopRV& loop) { Apply("Parallel", {Any(loop)}, {}); }
void ScheduleNode::Vectorize(const LoopRV& loop) { Apply("Vectorize", {Any(loop)}, {}); }
void ScheduleNode::Unroll(const LoopRV& loop) { Apply("Unroll", {Any(loop)}, {}); }
void ScheduleNode::Bind(const LoopRV& loop, const std::string& thread_axis) {
  Apply("Bind", {Any(loop)}, {Any(thread_axis)});
}
LoopRV ScheduleNode::AddUnitLoop(const ObjectRef& block_or_loop) {
  return Downcast<LoopRV>(Apply("AddUnitLoop", {Any(block_or_loop)}, {})[0]);
}
void ScheduleNode::ComputeAt(const BlockRV& block, const LoopRV& loop, bool preserve_unit_loops,
                             int index) {
  Apply("ComputeAt", {Any(block), Any(loop)}, {Any(preserve_unit_loops), Any(index)});
}
void ScheduleNode::ReverseComputeAt(const BlockRV& block, const LoopRV& loop,
                                    bool preserve_unit_loops, int index) {
  Apply("ReverseComputeAt", {Any(block), Any(loop)}, {Any(preserve_unit_loops), Any(index)});
}
void ScheduleNode::ComputeInline(const BlockRV& block) { Apply("ComputeInline", {Any(block)}, {}); }
void ScheduleNode::ReverseComputeInline(const BlockRV& block) {
  Apply("ReverseComputeInline", {Any(block)}, {});
}
BlockRV ScheduleNode::CacheRead(const BlockRV& block, int read_buffer_index,
                                const std::string& storage_scope,
                                const Array<BlockRV>& consumer_blocks) {
  return Downcast<BlockRV>(Apply("CacheRead", {Any(block), Any(ToAnyArray(consumer_blocks))},
                                 {Any(read_buffer_index), Any(storage_scope)})[0]);
}
BlockRV ScheduleNode::CacheWrite(const BlockRV& block, int write_buffer_index,
                                 const std::string& storage_scope,
                                 const Array<BlockRV>& consumer_blocks) {
  return Downcast<BlockRV>(Apply("CacheWrite", {Any(block), Any(ToAnyArray(consumer_blocks))},
                                 {Any(write_buffer_index), Any(storage_scope)})[0]);
}
void ScheduleNode::SetScope(const BlockRV& block, int buffer_index,
                            const std::string& storage_scope) {
  Apply("SetScope", {Any(block)}, {Any(buffer_index), Any(storage_scope)});
}
void ScheduleNode::StorageAlign(const BlockRV& block, int buffer_index, int axis, int factor,
                                int offset) {
  Apply("StorageAlign", {Any(block)}, {Any(buffer_index), Any(axis), Any(factor), Any(offset)});
}
void ScheduleNode::TransformLayout(const BlockRV& block, int buffer_index,
                                   BufferIndexType buffer_index_type, const IndexMap& index_map,
                                   const std::optional<PrimExpr>& pad_value) {
  Apply("TransformLayout", {Any(block)},
        {Any(static_cast<int64_t>(buffer_index_type)), Any(buffer_index), Any(index_map),
         pad_value ? Any(*pad_value) : Any()});
}
BlockRV ScheduleNode::DecomposeReduction(const BlockRV& block, const LoopRV& loop) {
  return Downcast<BlockRV>(Apply("DecomposeReduction", {Any(block), Any(loop)}, {})[0]);
}
BlockRV ScheduleNode::RFactor(const LoopRV& loop, int factor_axis) {
  return Downcast<BlockRV>(Apply("RFactor", {Any(loop)}, {Any(factor_axis)})[0]);
}
void ScheduleNode::Annotate(const ObjectRef& block_or_loop, const std::string& ann_key,
                            const Any& ann_val) {
  Apply("Annotate", {Any(block_or_loop)}, {Any(ann_key), ann_val});
}
void ScheduleNode::Unannotate(const ObjectRef& block_or_loop, const std::string& ann_key) {
  Apply("Unannotate", {Any(block_or_loop)}, {Any(ann_key)});
}
BlockRV ScheduleNode::Blockize(const LoopRV& loop, bool preserve_unit_iters) {
  return Downcast<BlockRV>(Apply("Blockize", {Any(loop)}, {Any(preserve_unit_iters)})[0]);
}
void ScheduleNode::Tensorize(const ObjectRef& block_or_loop, const std::string& tensor_intrin,
                             bool preserve_unit_iters) {
  Apply("Tensorize", {Any(block_or_loop)}, {Any(tensor_intrin), Any(preserve_unit_iters)});
}
void ScheduleNode::EnterPostproc() { Apply("EnterPostproc", {}, {}); }

}  // namespace tir
}  // namespace minitvm

/*!
 * \file state.cc
 * \brief ScheduleState and FuncIndex (stage 3): the module under scheduling and the per-function
 * index of blocks and loops, rebuilt lazily after each change.
 */
#include "minitvm/tir/schedule/state.h"

#include <algorithm>

#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace tir {

namespace {

/*! \brief Walks a function body, recording the parent, realize and depth of each block/loop. */
class IndexBuilder : public StmtVisitor {
 public:
  IndexBuilder(std::unordered_map<const StmtNode*, StmtSRef>* srefs,
               std::vector<const BlockNode*>* blocks,
               std::unordered_map<const VarNode*, const ForNode*>* loop_of_var)
      : srefs_(srefs), blocks_(blocks), loop_of_var_(loop_of_var) {}

  void VisitStmt_(const ForNode* op) override {
    StmtSRef s;
    s.stmt = op;
    s.parent = parent_;
    s.depth = depth_;
    (*srefs_)[op] = s;
    (*loop_of_var_)[op->loop_var.get()] = op;
    Enter(op, [&] { StmtVisitor::VisitStmt_(op); });
  }
  void VisitStmt_(const BlockRealizeNode* op) override {
    realize_ = op;
    VisitStmt(op->block);
  }
  void VisitStmt_(const BlockNode* op) override {
    StmtSRef s;
    s.stmt = op;
    s.parent = parent_;
    s.realize = realize_;
    s.depth = depth_;
    realize_ = nullptr;
    (*srefs_)[op] = s;
    blocks_->push_back(op);
    Enter(op, [&] {
      if (op->init.defined()) VisitStmt(op->init);
      VisitStmt(op->body);
    });
  }

 private:
  template <typename F>
  void Enter(const StmtNode* node, F f) {
    const StmtNode* saved = parent_;
    parent_ = node;
    ++depth_;
    f();
    --depth_;
    parent_ = saved;
  }
  std::unordered_map<const StmtNode*, StmtSRef>* srefs_;
  std::vector<const BlockNode*>* blocks_;
  std::unordered_map<const VarNode*, const ForNode*>* loop_of_var_;
  const StmtNode* parent_ = nullptr;
  const BlockRealizeNode* realize_ = nullptr;
  int depth_ = 0;
};

bool ContainsBlock(const Stmt& s) {
  bool found = false;
  PostOrderVisit(s, [&](const ObjectRef& n) {
    if (n.as<BlockNode>()) found = true;
  });
  return found;
}

}  // namespace

FuncIndex::FuncIndex(PrimFunc func) : func_(std::move(func)) {
  IndexBuilder builder(&srefs_, &blocks_, &loop_of_var_);
  builder.VisitStmt(func_->body);
  if (auto* realize = func_->body.as<BlockRealizeNode>()) root_ = realize->block.get();
}

const StmtSRef* FuncIndex::Find(const StmtNode* stmt) const {
  auto it = srefs_.find(stmt);
  return it == srefs_.end() ? nullptr : &it->second;
}

const StmtSRef& FuncIndex::Get(const StmtNode* stmt) const {
  const StmtSRef* s = Find(stmt);
  MINITVM_ICHECK(s != nullptr) << "statement " << stmt->GetTypeKey() << " is not in the function";
  return *s;
}

const ForNode* FuncIndex::LoopOfVar(const VarNode* var) const {
  auto it = loop_of_var_.find(var);
  return it == loop_of_var_.end() ? nullptr : it->second;
}

std::vector<const BlockNode*> FuncIndex::BlocksNamed(const std::string& name) const {
  std::vector<const BlockNode*> out;
  for (const BlockNode* b : blocks_) {
    if (b->name_hint.str() == name) out.push_back(b);
  }
  return out;
}

std::vector<const ForNode*> FuncIndex::LoopsAbove(const StmtNode* stmt) const {
  std::vector<const ForNode*> loops;
  const StmtNode* p = Get(stmt).parent;
  while (p != nullptr) {
    auto* loop = dynamic_cast<const ForNode*>(p);
    if (loop == nullptr) break;
    loops.push_back(loop);
    p = Get(p).parent;
  }
  std::reverse(loops.begin(), loops.end());
  return loops;
}

const BlockNode* FuncIndex::ScopeBlock(const StmtNode* stmt) const {
  const StmtNode* p = Get(stmt).parent;
  while (p != nullptr) {
    if (auto* b = dynamic_cast<const BlockNode*>(p)) return b;
    p = Get(p).parent;
  }
  return nullptr;
}

std::vector<const BlockNode*> FuncIndex::ChildBlocks(const StmtNode* parent) const {
  std::vector<const BlockNode*> out;
  for (const BlockNode* b : blocks_) {
    if (b == parent) continue;
    // The nearest block strictly above b must be `parent`'s scope, and parent must enclose b.
    const StmtNode* p = Get(b).parent;
    bool ok = false;
    while (p != nullptr) {
      if (p == parent) {
        ok = true;
        break;
      }
      if (dynamic_cast<const BlockNode*>(p)) break;
      p = Get(p).parent;
    }
    if (ok) out.push_back(b);
  }
  return out;
}

bool FuncIndex::IsAncestor(const StmtNode* ancestor, const StmtNode* stmt) const {
  const StmtNode* p = stmt;
  while (p != nullptr) {
    if (p == ancestor) return true;
    p = Get(p).parent;
  }
  return false;
}

PrimFunc AddRootBlockIfMissing(PrimFunc func) {
  if (func->body.as<BlockRealizeNode>() || !ContainsBlock(func->body)) return func;
  Block root({}, {}, {}, "root", func->body);
  BlockRealize realize({}, IntImm(DataType::Bool(), 1), root);
  func.CopyOnWrite()->body = realize;
  return func;
}

ScheduleState::ScheduleState(IRModule mod) : mod_(std::move(mod)) {
  for (const GlobalVar& gv : mod_->GetGlobalVars()) {
    BaseFunc f = mod_->Lookup(gv);
    if (auto* pf = f.as<PrimFuncNode>()) {
      PrimFunc fixed = AddRootBlockIfMissing(GetRef<PrimFunc>(pf));
      if (!fixed.same_as(f)) mod_.Add(gv, fixed);
    }
  }
}

PrimFunc ScheduleState::Func(const std::string& func_name) const {
  BaseFunc f = mod_->Lookup(func_name);
  auto* pf = f.as<PrimFuncNode>();
  if (pf == nullptr) {
    MINITVM_THROW(TypeError) << "function \"" << func_name << "\" is a " << f->GetTypeKey()
                             << ", not a tir.PrimFunc; only PrimFuncs can be scheduled";
  }
  return GetRef<PrimFunc>(pf);
}

const FuncIndex& ScheduleState::Index(const std::string& func_name) const {
  PrimFunc f = Func(func_name);
  auto it = index_.find(func_name);
  if (it == index_.end() || !it->second->func().same_as(f)) {
    index_[func_name] = std::make_shared<const FuncIndex>(f);
    it = index_.find(func_name);
  }
  return *it->second;
}

void ScheduleState::Replace(const std::string& func_name, PrimFunc func) {
  auto gv = mod_->GetGlobalVar(func_name);
  MINITVM_ICHECK(gv.has_value()) << "no function " << func_name;
  mod_.Add(*gv, func);
  index_.erase(func_name);
}

std::vector<std::string> ScheduleState::FuncNames() const {
  std::vector<std::string> out;
  for (const GlobalVar& gv : mod_->GetGlobalVars()) {
    if (mod_->Lookup(gv).as<PrimFuncNode>()) out.push_back(gv->name_hint.str());
  }
  return out;
}

}  // namespace tir
}  // namespace minitvm

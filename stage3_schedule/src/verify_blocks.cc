/*!
 * \file verify_blocks.cc
 * \brief The block checks of Schedule creation (stage 3): declared regions against the
 * detected accesses, and iterator kinds against the written indices. See verify_blocks.h.
 */
#include "verify_blocks.h"

#include <sstream>
#include <string>
#include <vector>

#include "minitvm/arith/analyzer.h"
#include "minitvm/tir/analysis/block_access.h"
#include "minitvm/tir/function.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/schedule/error.h"
#include "minitvm/tir/stmt_functor.h"
#include "utils.h"

namespace minitvm {
namespace tir {
namespace {

std::string RegionText(const Buffer& buffer, const Array<Range>& region) {
  std::ostringstream os;
  os << buffer->name << "[";
  for (size_t i = 0; i < region.size(); ++i) {
    const Range& r = region[i];
    os << (i ? ", " : "") << sched::ExprStr(r->min) << ":" << sched::ExprStr(r->min + r->extent);
  }
  os << "]";
  return os.str();
}

/*! \brief The stores of a block body (not its init), and whether any is under an `if`. */
struct WriteCollector : public StmtExprVisitor {
  std::vector<const BufferStoreNode*> stores;
  int if_depth = 0;
  bool guarded = false;
  bool nested_block = false;
  void VisitStmt_(const BufferStoreNode* op) override {
    stores.push_back(op);
    if (if_depth > 0) guarded = true;
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const IfThenElseNode* op) override {
    ++if_depth;
    StmtExprVisitor::VisitStmt_(op);
    --if_depth;
  }
  void VisitStmt_(const BlockRealizeNode* op) override { nested_block = true; }
};

bool UsesVarIn(const PrimExpr& e, const VarNode* v) {
  bool found = false;
  PostOrderVisit(e, [&](const ObjectRef& n) {
    if (n.get() == v) found = true;
  });
  return found;
}

class BlockChecker {
 public:
  explicit BlockChecker(std::string func_name) : func_name_(std::move(func_name)) {}

  void Check(const BlockNode* block) {
    arith::Analyzer analyzer;
    for (const IterVar& iv : block->iter_vars) analyzer.Bind(iv->var, iv->dom);
    CheckIterKinds(block, &analyzer);
    if (block->reads.empty() && block->writes.empty()) return;  // a root block declares none
    BlockAccessRegion detected = GetBlockAccessRegion(GetRef<Block>(block));
    CheckCovered(block, "T.reads", block->reads, detected.reads, &analyzer);
    CheckCovered(block, "T.writes", block->writes, detected.writes, &analyzer);
  }

 private:
  [[noreturn]] void Fail(const BlockNode* block, const std::string& rule,
                         const std::string& summary, const std::string& check,
                         const std::string& note) {
    ScheduleError err(rule, summary);
    err.Subject("block \"" + block->name_hint.str() + "\" of function \"" + func_name_ + "\"")
        .Check(check, false)
        .At(GetRef<ObjectRef>(block), note);
    throw err;
  }

  /*! \brief True when `acc` provably reaches outside `decl` in some dimension. */
  static bool ProvablyOutside(const Array<Range>& acc, const Array<Range>& decl,
                              arith::Analyzer* analyzer) {
    if (acc.size() != decl.size()) return false;
    for (size_t d = 0; d < acc.size(); ++d) {
      PrimExpr acc_end = acc[d]->min + acc[d]->extent;
      PrimExpr decl_end = decl[d]->min + decl[d]->extent;
      if (analyzer->CanProve(acc[d]->min < decl[d]->min) ||
          analyzer->CanProve(acc_end > decl_end)) {
        return true;
      }
    }
    return false;
  }

  void CheckCovered(const BlockNode* block, const char* what, const Array<BufferRegion>& declared,
                    const Array<BufferRegion>& accessed, arith::Analyzer* analyzer) {
    for (const BufferRegion& acc : accessed) {
      bool listed = false;
      bool covered = false;
      std::string declared_text;
      for (const BufferRegion& decl : declared) {
        if (!decl->buffer.same_as(acc->buffer)) continue;
        listed = true;
        declared_text +=
            (declared_text.empty() ? "" : ", ") + RegionText(decl->buffer, decl->region);
        if (!ProvablyOutside(acc->region, decl->region, analyzer)) covered = true;
      }
      std::string acc_text = RegionText(acc->buffer, acc->region);
      std::string verb = std::string(what) == "T.reads" ? "reads" : "writes";
      if (!listed) {
        Fail(block, "RegionNotCoveredError",
             "block \"" + block->name_hint.str() + "\" " + verb + " " + acc_text + " but its " +
                 what + " does not list buffer " + acc->buffer->name.str() +
                 ": declared regions must cover every access (compute_at and the other "
                 "primitives trust them)",
             std::string(what) + " covers every access of the body", "accesses " + acc_text);
      }
      if (!covered) {
        Fail(block, "RegionNotCoveredError",
             "block \"" + block->name_hint.str() + "\" " + verb + " " + acc_text +
                 " but declares " + what + "(" + declared_text +
                 "), which is narrower: declared regions must cover every access (compute_at and "
                 "the other primitives trust them)",
             std::string(what) + " covers every access of the body", "accesses " + acc_text);
      }
    }
  }

  void CheckIterKinds(const BlockNode* block, arith::Analyzer* analyzer) {
    WriteCollector writes;
    writes.VisitStmt(block->body);
    if (writes.nested_block || writes.stores.empty()) return;  // only leaf blocks that store
    for (const IterVar& iv : block->iter_vars) {
      bool used = false;
      for (const BufferStoreNode* store : writes.stores) {
        for (const PrimExpr& idx : store->indices) used = used || UsesVarIn(idx, iv->var.get());
      }
      const std::string name = iv->var->name_hint.str();
      if (iv->iter_type == kCommReduce && used) {
        Fail(block, "ReductionIterInWriteIndexError",
             "block \"" + block->name_hint.str() + "\": reduction iterator " + name +
                 " indexes a buffer the block writes; an iterator that selects the element "
                 "written is spatial (T.axis.spatial, \"S\" in T.axis.remap)",
             "no reduction iterator indexes a written buffer", "reduction iterator " + name);
      }
      if (iv->iter_type == kDataPar && !used && !writes.guarded &&
          !analyzer->CanProveEqual(iv->dom->extent, 1)) {
        Fail(block, "SpatialIterNotInWriteIndexError",
             "block \"" + block->name_hint.str() + "\": spatial iterator " + name +
                 " indexes no buffer the block writes, so every value of it writes the same "
                 "elements; an iterator the block accumulates over is a reduction "
                 "(T.axis.reduce, \"R\" in T.axis.remap)",
             "every spatial iterator indexes a written buffer", "spatial iterator " + name);
      }
    }
  }

  std::string func_name_;
};

}  // namespace

void VerifyBlocksForSchedule(const IRModule& mod) {
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    auto* f = mod->Lookup(gv).as<PrimFuncNode>();
    if (f == nullptr) continue;
    BlockChecker checker(gv->name_hint.str());
    PostOrderVisit(f->body, [&](const ObjectRef& n) {
      if (auto* realize = n.as<BlockRealizeNode>()) checker.Check(realize->block.get());
    });
  }
}

}  // namespace tir
}  // namespace minitvm

/*!
 * \file transform/annotate_tir_op_pattern.cc
 * \brief AnnotateTIROpPattern (stage 4), TVM's `relax.transform.AnnotateTIROpPattern()`: sets
 * the attribute "op_pattern" (an OpPatternKind, op_attr.h) of every PrimFunc from its body, so
 * FuseOps can group the kernels. TVM's rules, in small — each block that stores one value is
 * classified, and the function takes the largest kind of its blocks:
 *   - elementwise: every load reads at exactly the store's indices;
 *   - broadcast: every load reads at a subsequence of the store's index variables (constants
 *     allowed, for broadcast dimensions of extent 1);
 *   - injective: any other load pattern of a spatial block;
 *   - comm-reduce: a block with reduction iterators;
 *   - out-ewise-fusable: a reduction that accumulates products (matmul, conv2d: `C = C + A * B`);
 *     elementwise or broadcast blocks after it keep that kind, anything else after it is opaque;
 *   - opaque: a block whose body is not a single store.
 * A PrimFunc that already has "op_pattern" keeps it.
 */
#include "minitvm/relax/op_attr.h"
#include "minitvm/relax/transform.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/function.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace relax {
namespace transform {

namespace {

bool SameIndices(const Array<PrimExpr>& a, const Array<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].same_as(b[i])) return false;
  }
  return true;
}

/*! \brief Whether `load`'s indices are store index variables in increasing position, or constants.
 */
bool IsBroadcastIndices(const Array<PrimExpr>& load, const Array<PrimExpr>& store) {
  size_t pos = 0;
  for (const PrimExpr& e : load) {
    if (e.as<IntImmNode>()) continue;
    bool found = false;
    while (pos < store.size()) {
      if (store[pos++].same_as(e)) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

PrimExpr StripCast(const PrimExpr& e) {
  if (const auto* c = e.as<tir::CastNode>()) return StripCast(c->value);
  return e;
}

bool IsProductAccumulation(const tir::BufferStoreNode* store) {
  const auto* add = store->value.as<tir::AddNode>();
  if (!add) return false;
  auto is_self = [&](const PrimExpr& e) {
    const auto* l = e.as<tir::BufferLoadNode>();
    return l && l->buffer.same_as(store->buffer);
  };
  auto is_mul = [](const PrimExpr& e) { return StripCast(e).as<tir::MulNode>() != nullptr; };
  return (is_self(add->a) && is_mul(add->b)) || (is_self(add->b) && is_mul(add->a));
}

int BlockKind(const tir::BlockNode* block) {
  const auto* store = block->body.as<tir::BufferStoreNode>();
  if (!store) return kOpaque;
  bool reduction = false;
  for (const auto& iv : block->iter_vars)
    reduction = reduction || iv->iter_type == tir::kCommReduce;
  if (reduction || block->init.defined()) {
    return IsProductAccumulation(store) ? kOutEWiseFusable : kCommReduce;
  }
  int kind = kElemWise;
  tir::PostOrderVisit(store->value, [&](const ObjectRef& n) {
    const auto* load = n.as<tir::BufferLoadNode>();
    if (!load) return;
    if (SameIndices(load->indices, store->indices)) return;
    if (IsBroadcastIndices(load->indices, store->indices)) {
      kind = std::max<int>(kind, kBroadcast);
    } else {
      kind = std::max<int>(kind, kInjective);
    }
  });
  return kind;
}

}  // namespace

int64_t AnalyzeOpPatternKind(const tir::PrimFunc& func) {
  std::vector<const tir::BlockNode*> blocks;
  tir::PostOrderVisit(func->body, [&](const ObjectRef& n) {
    const auto* b = n.as<tir::BlockNode>();
    if (!b) return;
    bool container = false;
    tir::PostOrderVisit(b->body, [&](const ObjectRef& m) {
      container = container || m.as<tir::BlockNode>() != nullptr;
    });
    if (!container) blocks.push_back(b);
  });
  if (blocks.empty()) return kOpaque;
  int kind = kElemWise;
  bool after_fusable = false;
  for (const tir::BlockNode* b : blocks) {
    int k = BlockKind(b);
    if (after_fusable && k > kBroadcast) return kOpaque;
    if (k == kOutEWiseFusable) {
      if (after_fusable) return kOpaque;
      after_fusable = true;
    }
    kind = std::max(kind, k);
  }
  return kind;
}

Pass AnnotateTIROpPattern() {
  return minitvm::transform::CreateModulePass(
      [](IRModule mod, PassContext) {
        IRModule out = mod;
        for (const GlobalVar& gv : mod->GetGlobalVars()) {
          const auto* pf = mod->Lookup(gv).as<tir::PrimFuncNode>();
          if (!pf || pf->attrs.count("op_pattern")) continue;
          tir::PrimFunc f = GetRef<tir::PrimFunc>(pf);
          out.Add(gv, WithAttr(f, "op_pattern", Any(AnalyzeOpPatternKind(f))));
        }
        return out;
      },
      0, "AnnotateTIROpPattern");
}

MINITVM_REGISTER_GLOBAL("relax.transform.AnnotateTIROpPattern").set_body_typed([]() {
  return AnnotateTIROpPattern();
});
MINITVM_REGISTER_GLOBAL("relax.analysis.AnalyzeOpPatternKind").set_body_typed([](tir::PrimFunc f) {
  return AnalyzeOpPatternKind(f);
});

}  // namespace transform
}  // namespace relax
}  // namespace minitvm

/*!
 * \file elementwise_epilogue.cc
 * \brief Reading and folding the elementwise blocks after a kernel's main block (stage 5): see
 * elementwise_epilogue.h.
 */
#include "elementwise_epilogue.h"

#include <algorithm>
#include <functional>

#include "minitvm/tir/expr_functor.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace relax_vm {

bool IsLoadAt(const tir::BufferLoadNode* load, const tir::Buffer& buf,
              const std::vector<const tir::VarNode*>& vars) {
  if (!load || !load->buffer.same_as(buf) || load->indices.size() != vars.size()) return false;
  for (size_t i = 0; i < vars.size(); ++i) {
    if (load->indices[i].get() != vars[i]) return false;
  }
  return true;
}

std::vector<te::Tensor> ExtraPlaceholders(const std::vector<std::vector<int64_t>>* shapes,
                                          DataType dtype) {
  std::vector<te::Tensor> extra;
  if (!shapes) return extra;
  for (size_t e = 0; e < shapes->size(); ++e) {
    Array<PrimExpr> shape;
    for (int64_t d : (*shapes)[e]) shape.push_back(IntImm(DataType::Int(64), d));
    extra.push_back(te::placeholder(shape, dtype, "E" + std::to_string(e)));
  }
  return extra;
}

std::optional<ElementwiseEpilogue> ElementwiseEpilogue::Collect(
    const std::vector<const tir::BlockRealizeNode*>& realizes, size_t first,
    const std::vector<int64_t>& shape, const tir::Buffer& product,
    const std::vector<tir::Buffer>& extra) {
  ElementwiseEpilogue epi;
  epi.product_ = product;
  epi.extra_ = extra;
  // Step 1: each block stores at its own data-parallel iterators: over `shape` (a main step),
  // or over another constant shape when it reads neither the product nor a main step (a side
  // step: per-channel arithmetic such as a batch norm's sqrt(var + eps), evaluated where it is
  // read).
  for (size_t r = first; r < realizes.size(); ++r) {
    const tir::BlockNode* eb = realizes[r]->block.get();
    const auto* st = eb->body.as<tir::BufferStoreNode>();
    if (eb->init.defined() || !st || st->indices.size() != eb->iter_vars.size()) {
      return std::nullopt;
    }
    Step step{st->buffer, st->value, {}, false};
    bool same_shape = eb->iter_vars.size() == shape.size();
    for (size_t i = 0; i < eb->iter_vars.size(); ++i) {
      const tir::IterVar& iv = eb->iter_vars[i];
      auto e = AsConstInt(iv->dom->extent);
      auto m = AsConstInt(iv->dom->min);
      if (iv->iter_type != tir::kDataPar || !e || !m || *m != 0) return std::nullopt;
      if (st->indices[i].get() != iv->var.get()) return std::nullopt;
      same_shape = same_shape && *e == shape[i];
      step.iters.push_back(iv->var.get());
    }
    bool reads_main = false;
    tir::PostOrderVisit(step.value, [&](const ObjectRef& node) {
      const auto* load = node.as<tir::BufferLoadNode>();
      if (!load) return;
      reads_main = reads_main || load->buffer.same_as(product);
      for (const Step& t : epi.steps_) {
        reads_main = reads_main || (!t.side && load->buffer.same_as(t.buf));
      }
    });
    if (reads_main && !same_shape) return std::nullopt;  // reads the product, another shape
    step.side = !same_shape;
    epi.steps_.push_back(step);
  }
  if (!epi.steps_.empty() && epi.steps_.back().side) return std::nullopt;
  // Step 2: every load is checked now, so that Apply cannot fail later.
  bool ok = true;
  for (size_t s = 0; s < epi.steps_.size() && ok; ++s) {
    const Step& step = epi.steps_[s];
    tir::PostOrderVisit(step.value, [&](const ObjectRef& node) {
      const auto* load = node.as<tir::BufferLoadNode>();
      if (!load) {
        if (const auto* var = node.as<tir::VarNode>()) {
          if (std::find(step.iters.begin(), step.iters.end(), var) == step.iters.end()) {
            ok = false;
          }
        }
        return;
      }
      bool inner = !step.side && load->buffer.same_as(product);
      bool side = false;
      for (size_t t = 0; t < s; ++t) {
        if (!load->buffer.same_as(epi.steps_[t].buf)) continue;
        if (epi.steps_[t].side) {
          side = true;
        } else {
          inner = inner || !step.side;
        }
      }
      if (inner) {
        if (!IsLoadAt(load, load->buffer, step.iters)) ok = false;
        return;
      }
      if (side) return;  // read at any index of the reader's iterators
      bool is_extra = false;
      for (const tir::Buffer& e : extra) is_extra = is_extra || load->buffer.same_as(e);
      if (!is_extra) ok = false;
    });
  }
  if (!ok) return std::nullopt;
  return epi;
}

PrimExpr ElementwiseEpilogue::Apply(const PrimExpr& prod, const std::vector<te::Tensor>& extra,
                                    const std::vector<PrimExpr>& index) const {
  // Each step's value at `index`: its iterators become the index, loads of the product and of
  // earlier steps become their values, loads of extra buffers read the extra tensors.
  class Rewriter : public tir::ExprMutator {
   public:
    std::function<std::optional<PrimExpr>(const tir::BufferLoadNode*)> load_fn;
    std::vector<const tir::VarNode*> iters;
    std::vector<PrimExpr> to;
    using tir::ExprMutator::VisitExpr_;
    PrimExpr VisitExpr_(const tir::VarNode* op) override {
      for (size_t i = 0; i < iters.size(); ++i) {
        if (op == iters[i]) return to[i];
      }
      return GetRef<PrimExpr>(op);
    }
    PrimExpr VisitExpr_(const tir::BufferLoadNode* op) override {
      if (auto r = load_fn(op)) return *r;
      return tir::ExprMutator::VisitExpr_(op);
    }
  };
  // A side step's value where it is read: its iterators become the load's indices.
  std::function<PrimExpr(size_t, const std::vector<PrimExpr>&)> side_value;
  std::vector<PrimExpr> values(steps_.size());
  auto make_load_fn = [&](Rewriter* rw, size_t s) {
    return [&, rw, s](const tir::BufferLoadNode* op) -> std::optional<PrimExpr> {
      if (op->buffer.same_as(product_)) return prod;
      for (size_t t = 0; t < s; ++t) {
        if (!op->buffer.same_as(steps_[t].buf)) continue;
        if (!steps_[t].side) return values[t];
        std::vector<PrimExpr> idx;
        for (const PrimExpr& x : op->indices) idx.push_back(rw->VisitExpr(x));
        return side_value(t, idx);
      }
      for (size_t e = 0; e < extra_.size(); ++e) {
        if (op->buffer.same_as(extra_[e])) {
          Array<PrimExpr> idx;
          for (const PrimExpr& x : op->indices) idx.push_back(rw->VisitExpr(x));
          return extra[e](idx);
        }
      }
      return std::nullopt;
    };
  };
  side_value = [&](size_t t, const std::vector<PrimExpr>& idx) -> PrimExpr {
    Rewriter rw;
    rw.iters = steps_[t].iters;
    rw.to = idx;
    rw.load_fn = make_load_fn(&rw, t);
    return rw.VisitExpr(steps_[t].value);
  };
  for (size_t s = 0; s < steps_.size(); ++s) {
    if (steps_[s].side) continue;
    Rewriter rw;
    rw.iters = steps_[s].iters;
    rw.to = index;
    rw.load_fn = make_load_fn(&rw, s);
    values[s] = rw.VisitExpr(steps_[s].value);
  }
  return values.empty() ? prod : values.back();
}

}  // namespace relax_vm
}  // namespace minitvm

/*!
 * \file elementwise_epilogue.h
 * \brief The elementwise blocks FuseTIR appends after a kernel's main block (stage 5,
 * internal): bias add, ReLU, a residual add. The GEMM and conv2d rules of the default CPU
 * schedule read them here once, check them, and fold them into the kernel's write-back as an
 * expression of the output index.
 */
#ifndef MINITVM_STAGE5_SRC_RELAX_BACKEND_ELEMENTWISE_EPILOGUE_H_
#define MINITVM_STAGE5_SRC_RELAX_BACKEND_ELEMENTWISE_EPILOGUE_H_

#include <optional>
#include <vector>

#include "minitvm/te/operation.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace relax_vm {

/*!
 * \brief Placeholders E0, E1, ... (int64 shapes, as Relax's) for the extra tensors an epilogue
 * reads (bias, residual, batch-norm vectors); none when `shapes` is null.
 */
std::vector<te::Tensor> ExtraPlaceholders(const std::vector<std::vector<int64_t>>* shapes,
                                          DataType dtype);

/*! \brief True when `load` reads `buf` exactly at `vars` (one variable per index). */
bool IsLoadAt(const tir::BufferLoadNode* load, const tir::Buffer& buf,
              const std::vector<const tir::VarNode*>& vars);

/*! \brief A chain of elementwise blocks over the kernel's output shape. */
class ElementwiseEpilogue {
 public:
  /*!
   * \brief The blocks `realizes[first..]`, or nullopt unless each one is a data-parallel block
   * without init that stores at its own iterators and either is over `shape` and reads the
   * product buffer and earlier steps' buffers (at its iterators), or reads neither (a side
   * step, over any constant shape: a batch norm's per-channel `sqrt(var + eps)`); every block
   * may also read the `extra` buffers and side steps at any index of its iterators. The last
   * block is over `shape`. No blocks give an empty epilogue.
   */
  static std::optional<ElementwiseEpilogue> Collect(
      const std::vector<const tir::BlockRealizeNode*>& realizes, size_t first,
      const std::vector<int64_t>& shape, const tir::Buffer& product,
      const std::vector<tir::Buffer>& extra);
  /*! \brief No elementwise block follows the main block. */
  bool empty() const { return steps_.empty(); }
  /*! \brief The buffer the last step writes (defined when not empty). */
  const tir::Buffer& result() const { return steps_.back().buf; }
  /*!
   * \brief The last step's value at `index`, given the product's value `prod` there; the
   * tensor `extra[e]` stands for the e-th extra buffer. Empty: `prod`.
   */
  PrimExpr Apply(const PrimExpr& prod, const std::vector<te::Tensor>& extra,
                 const std::vector<PrimExpr>& index) const;

 private:
  struct Step {
    tir::Buffer buf;
    PrimExpr value;
    std::vector<const tir::VarNode*> iters;
    /*! \brief Not over the output shape: reads only parameters and earlier side steps. */
    bool side = false;
  };
  std::vector<Step> steps_;
  tir::Buffer product_;
  std::vector<tir::Buffer> extra_;
};

}  // namespace relax_vm
}  // namespace minitvm

#endif  // MINITVM_STAGE5_SRC_RELAX_BACKEND_ELEMENTWISE_EPILOGUE_H_

/*!
 * \file minitvm/relax_vm/cpu_conv.h
 * \brief Stage 5: the CPU conv2d rule of the default schedule — an NCHW, batch-1, float conv2d
 * (what LegalizeOps makes of relax.op.nn.conv2d, with the bias / ReLU / residual blocks FuseTIR
 * appends) scheduled as a GEMM with an implicit im2col, using the register tile of cpu_gemm.h.
 *
 * The GEMM is out[o, y, x] = sum_{c,ry,rx} W[o, c, ry, rx] * in[c, y*s+ry*d-p, x*s+rx*d-p]
 * with the columns (vectorized) over output channels and the rows (unrolled) over output
 * pixels of one row y:
 *
 *   pad[C][Hp][Wp] = padded input                          (parallel over channels)
 *   packedW[O/nr][C][KH][KW][nr] = W[o][c][ry][rx]         (0 beyond O; blocked, parallel)
 *   for (oo, y) in parallel:
 *     for xo in range(OW / mr):
 *       acc[mr][nr] = 0                                    (registers)
 *       for c, ry, rx:
 *         acc[xi][oi] += pad[c][y*s + ry*d][(xo*mr + xi)*s + rx*d] * packedW[oo][c][ry][rx][oi]
 *       out[oo*nr + oi][y][xo*mr + xi] = epilogue(acc[xi][oi])   (bias, ReLU, ... fused)
 *
 * The im2col matrix is never written: the row operand is a broadcast scalar read straight from
 * the padded input. mr is a divisor of OW (8 or 7 for every ResNet layer on AVX-512); otherwise
 * x is padded and the result copied out.
 */
#ifndef MINITVM_RELAX_VM_CPU_CONV_H_
#define MINITVM_RELAX_VM_CPU_CONV_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "minitvm/relax_vm/cpu_gemm.h"
#include "minitvm/target/target.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace relax_vm {

/*! \brief A conv2d NCHW, batch 1, groups 1: the sizes the rule needs. */
struct Conv2dShape {
  int64_t c = 1, h = 1, w = 1;    //!< input channels and size
  int64_t o = 1, kh = 1, kw = 1;  //!< output channels and kernel size
  int64_t sh = 1, sw = 1;         //!< strides
  int64_t dh = 1, dw = 1;         //!< dilations
  int64_t pt = 0, pl = 0;         //!< padding before (top, left); after is implied by oh, ow
  int64_t oh = 1, ow = 1;         //!< output size
  std::string str() const;
};

/*! \brief The conv tile: GEMM plan for columns (output channels) plus rows (pixels of a row). */
struct Conv2dPlan {
  int64_t lanes = 4;       //!< elements per vector
  int64_t nr = 8;          //!< output channels per tile (vectorized), a multiple of lanes
  int64_t mr = 4;          //!< output pixels per tile (unrolled)
  int64_t xp = 4;          //!< OW padded to a multiple of mr
  int64_t pack_chunk = 1;  //!< input channels per block of the separate packing pass (L1 / 2)
  /*!
   * \brief 0: the weight is packed by a pass of its own before the conv (the form that a
   * constant weight's packing is split off from). n > 0: each task of the conv packs its
   * weight panel into a buffer of its own right before use (a weight passed per call), the
   * output rows of a panel split into n tasks (a divisor of OH).
   */
  int64_t row_groups = 0;
  std::string str() const;
};

/*!
 * \brief The tile for `shape` on `info`: nr = two vectors of channels (fewer for narrow O) and
 * mr the largest divisor of OW that keeps mr*nv + nv + 1 vector registers (else OW is padded).
 */
Conv2dPlan DeriveConv2dPlan(const CpuVectorInfo& info, int64_t elem_bits, const Conv2dShape& s);

/*!
 * \brief The scheduled conv2d "main"(data[1,C,H,W], weight[O,C,KH,KW], [extra...,]
 * out[1,O,OH,OW]) with attribute "tir.is_scheduled". With an epilogue (extra_shapes + fn over
 * (conv value, extra tensors, o, y, x)), out is its result. `arg_roles` orders the parameters:
 * -1 data, -2 weight, -3 out, e >= 0 extra e (default: data, weight, extras, out).
 */
tir::PrimFunc CpuConv2dPrimFunc(
    const Conv2dShape& s, const Conv2dPlan& plan, DataType dtype = DataType::Float(32),
    const std::vector<std::vector<int64_t>>* extra_shapes = nullptr,
    const std::function<PrimExpr(const PrimExpr&, const std::vector<te::Tensor>&, const PrimExpr&,
                                 const PrimExpr&, const PrimExpr&)>* epilogue = nullptr,
    const std::vector<int>* arg_roles = nullptr);

/*! \brief The depthwise tile: a vector of `vl` output columns (a divisor of OW). */
struct DepthwisePlan {
  int64_t lanes = 4;  //!< elements per machine vector
  int64_t vl = 4;     //!< output columns per vector operation (a divisor of OW, <= 2 vectors)
  std::string str() const;
};

/*!
 * \brief The depthwise tile for `shape` (c = o = channels) on `info`: vl is the largest divisor of
 * OW that fits in two machine vectors (OW itself when it does).
 */
DepthwisePlan DeriveDepthwisePlan(const CpuVectorInfo& info, int64_t elem_bits,
                                  const Conv2dShape& s);

/*!
 * \brief The scheduled depthwise conv2d (groups = channels, multiplier 1) "main"(data[1,C,H,W],
 * weight[C,1,KH,KW], [extra...,] out[1,C,OH,OW]): per channel and output row, each tap
 * (ry, rx) is one vector FMA over `vl` output columns with the weight broadcast. The input is
 * padded into a stride-phase layout pad[C][Hp][sw][Wq] (column j*sw + phase), so that every
 * tap's load is contiguous also for stride 2. Epilogue, parameter order: as CpuConv2dPrimFunc.
 */
tir::PrimFunc CpuDepthwiseConv2dPrimFunc(
    const Conv2dShape& s, const DepthwisePlan& plan, DataType dtype = DataType::Float(32),
    const std::vector<std::vector<int64_t>>* extra_shapes = nullptr,
    const std::function<PrimExpr(const PrimExpr&, const std::vector<te::Tensor>&, const PrimExpr&,
                                 const PrimExpr&, const PrimExpr&)>* epilogue = nullptr,
    const std::vector<int>* arg_roles = nullptr);

/*!
 * \brief The conv2d rule of the default CPU schedule: when `func` is [pad →] conv2d_nchw (batch
 * 1, groups 1, float, static) followed by nothing or elementwise blocks over the output, the
 * scheduled kernel with the same parameters (order kept) and the epilogue fused; else nullopt.
 * A depthwise conv2d (groups = channels = output channels) gets CpuDepthwiseConv2dPrimFunc; a
 * 1x1 stride-1 unpadded conv whose OW is a multiple of half a vector gets a pixel-vector GEMM
 * on the NCHW tensors (vectorized along x, output channels unrolled, nothing packed).
 */
std::optional<tir::PrimFunc> ScheduleConv2dRule(const tir::PrimFunc& func,
                                                const target::Target& target);

}  // namespace relax_vm
}  // namespace minitvm

#endif  // MINITVM_RELAX_VM_CPU_CONV_H_

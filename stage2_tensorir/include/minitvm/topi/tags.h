/*!
 * \file minitvm/topi/tags.h
 * \brief The tags TOPI puts on its computes (stage 2), as TVM does: schedules and fusion
 * passes read them to know what kind of operation a block is.
 */
#ifndef MINITVM_TOPI_TAGS_H_
#define MINITVM_TOPI_TAGS_H_

namespace minitvm {
namespace topi {

constexpr const char* kElementWise = "elemwise";
constexpr const char* kBroadcast = "broadcast";
constexpr const char* kInjective = "injective";
constexpr const char* kCommReduce = "comm_reduce";
constexpr const char* kCommReduceIdx = "comm_reduce_idx";
constexpr const char* kMatMul = "matmul";
constexpr const char* kDense = "dense";
constexpr const char* kBatchMatMul = "batch_matmul";
constexpr const char* kConv2dNCHW = "conv2d_nchw";
constexpr const char* kConv2dTransposeNCHW = "conv2d_transpose_nchw";
constexpr const char* kGroupConv2d = "group_conv2d_nchw";
constexpr const char* kPoolMax = "pool_max";
constexpr const char* kPoolAvg = "pool_avg";
constexpr const char* kAdaptivePool = "adaptive_pool";

}  // namespace topi
}  // namespace minitvm

#endif  // MINITVM_TOPI_TAGS_H_

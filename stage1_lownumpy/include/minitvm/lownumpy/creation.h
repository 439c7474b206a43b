/*!
 * \file minitvm/lownumpy/creation.h
 * \brief Array creation of the lownumpy reference library (stage 1): full, zeros, ones,
 * arange, and a seeded uniform random generator that gives the same numbers on every
 * platform, so C++ and Python can build identical model weights and inputs.
 */
#ifndef MINITVM_LOWNUMPY_CREATION_H_
#define MINITVM_LOWNUMPY_CREATION_H_

#include <cstdint>

#include "minitvm/lownumpy/iteration.h"

namespace minitvm {
namespace lownumpy {

/*! \brief An array of `shape` filled with `value` converted to `dtype` (one of the five). */
NDArray full(const Shape& shape, double value, DataType dtype = DataType::Float(32));
/*! \brief full(shape, 0, dtype). */
NDArray zeros(const Shape& shape, DataType dtype = DataType::Float(32));
/*! \brief full(shape, 1, dtype). */
NDArray ones(const Shape& shape, DataType dtype = DataType::Float(32));
/*!
 * \brief start, start + step, ... below stop (above it for a negative step): a 1-D array of
 * ceil((stop - start) / step) elements (0 if negative). ValueError when step is 0.
 */
NDArray arange(double start, double stop, double step = 1.0, DataType dtype = DataType::Float(32));
/*!
 * \brief Numbers drawn uniformly from [low, high) by a SplitMix64 generator seeded with
 * `seed`, in row-major order (float32 or float64). The same seed gives the same array.
 */
NDArray random_uniform(const Shape& shape, double low, double high, uint64_t seed,
                       DataType dtype = DataType::Float(32));

/*! \brief The SplitMix64 generator behind random_uniform, for code that draws many arrays. */
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  /*! \brief The next 64 random bits. */
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  /*! \brief A double uniform in [0, 1) from the top 53 bits. */
  double NextDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

}  // namespace lownumpy
}  // namespace minitvm

#endif  // MINITVM_LOWNUMPY_CREATION_H_

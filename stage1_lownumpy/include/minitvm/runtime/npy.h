/*!
 * \file minitvm/runtime/npy.h
 * \brief `.npy` and `.npz` reading and writing (stage 1), so weights and test data move
 * between NumPy and minitvm. `.npz` files are uncompressed (stored) zip archives, as
 * `numpy.savez` writes them; compressed entries are rejected with a clear error.
 */
#ifndef MINITVM_RUNTIME_NPY_H_
#define MINITVM_RUNTIME_NPY_H_

#include <map>
#include <string>

#include "minitvm/runtime/ndarray.h"

namespace minitvm {
namespace runtime {

/*! \brief Read a `.npy` file; ValueError naming the file for truncated or malformed input. */
NDArray LoadNpy(const std::string& path);
/*! \brief Write a `.npy` file (version 1.0, C order). */
void SaveNpy(const std::string& path, const NDArray& array);
/*! \brief Parse `.npy` bytes (`what` names the source in errors). */
NDArray ParseNpy(const std::string& bytes, const std::string& what);
/*! \brief Serialise an array as `.npy` bytes. */
std::string SerializeNpy(const NDArray& array);
/*! \brief Read every array of a `.npz` archive, keyed by name without ".npy". */
std::map<std::string, NDArray> LoadNpz(const std::string& path);
/*! \brief Write arrays to an uncompressed `.npz` archive. */
void SaveNpz(const std::string& path, const std::map<std::string, NDArray>& arrays);

}  // namespace runtime
}  // namespace minitvm

#endif  // MINITVM_RUNTIME_NPY_H_

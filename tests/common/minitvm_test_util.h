/*!
 * \file minitvm_test_util.h
 * \brief Helpers shared by the C++ tests of every stage: checking that a statement raises a
 * minitvm::Error of a given kind with a given message, temporary directories, and building
 * and reading small NDArrays from std::vector values.
 */
#ifndef MINITVM_TESTS_COMMON_MINITVM_TEST_UTIL_H_
#define MINITVM_TESTS_COMMON_MINITVM_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "minitvm/runtime/error.h"
#include "minitvm/runtime/ndarray.h"

namespace minitvm {
namespace testing {

/*!
 * \brief Whether `body` throws a minitvm::Error whose kind is `kind` and whose message
 * contains `message_part`. Used through EXPECT_MINITVM_ERROR.
 */
inline ::testing::AssertionResult ThrowsError(const std::function<void()>& body,
                                              const std::string& kind,
                                              const std::string& message_part) {
  try {
    body();
  } catch (const Error& e) {
    if (e.kind() != kind) {
      return ::testing::AssertionFailure()
             << "threw " << e.kind() << " (\"" << e.what() << "\") instead of " << kind;
    }
    if (std::string(e.what()).find(message_part) == std::string::npos) {
      return ::testing::AssertionFailure()
             << "threw " << kind << " with message \"" << e.what()
             << "\", which does not contain \"" << message_part << "\"";
    }
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure()
           << "threw a std::exception that is not a minitvm::Error: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw (expected " << kind << ")";
}

/*! \brief Build a compact CPU array of `dtype` (whose C++ type is T) from row-major values. */
template <typename T>
runtime::NDArray MakeArray(const std::vector<int64_t>& shape, runtime::DataType dtype,
                           const std::vector<T>& values) {
  runtime::NDArray a = runtime::NDArray::Empty(shape, dtype);
  EXPECT_EQ(static_cast<size_t>(a.NumElements()), values.size()) << "MakeArray: wrong count";
  EXPECT_EQ(static_cast<size_t>(dtype.bytes()), sizeof(T)) << "MakeArray: wrong element type";
  if (!values.empty()) a.CopyFromBytes(values.data(), values.size() * sizeof(T));
  return a;
}

/*! \brief The elements of a CPU array (any strides) in row-major order. */
template <typename T>
std::vector<T> ToVector(const runtime::NDArray& a) {
  std::vector<T> out(static_cast<size_t>(a.NumElements()));
  const char* base = static_cast<const char*>(a.data());
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    std::memcpy(&out[i], base + a.ElementOffset(i) * a.dtype().bytes(), sizeof(T));
  }
  return out;
}

/*! \brief A fresh directory under $TMPDIR (or /tmp), removed with its contents at the end. */
class TempDir {
 public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/minitvm_test_XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed for " << pattern;
    path_ = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  /*! \brief The directory. */
  const std::string& path() const { return path_; }
  /*! \brief A path inside the directory. */
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

/*! \brief The whole content of a file (empty when it cannot be read). */
inline std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

/*! \brief Replace a file's content. */
inline void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace testing
}  // namespace minitvm

/*!
 * \brief Expect `stmt` to throw a minitvm::Error of `kind` whose message contains
 * `message_part`: `EXPECT_MINITVM_ERROR(f(1), "TypeError", "expects 2 arguments");`
 */
#define EXPECT_MINITVM_ERROR(stmt, kind, message_part)                              \
  EXPECT_TRUE(::minitvm::testing::ThrowsError([&]() { stmt; }, kind, message_part)) \
      << "statement: " #stmt

#endif  // MINITVM_TESTS_COMMON_MINITVM_TEST_UTIL_H_

/*!
 * \file backend_api.cc
 * \brief The runtime services generated CPU code calls (stage 5): parallel launch on the
 * thread pool, workspace allocation and error reporting with formatted values.
 */
#include "minitvm/runtime_cpu/backend_api.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <string>

#include "minitvm/runtime/data_type.h"
#include "minitvm/runtime_cpu/thread_pool.h"

namespace {

std::string& LastError() {
  thread_local std::string message;
  return message;
}

const char* ArgTypeName(int64_t code) {
  switch (code) {
    case kMTVMArgInt:
      return "int";
    case kMTVMArgUInt:
      return "uint";
    case kMTVMArgFloat:
      return "float";
    case kMTVMArgOpaqueHandle:
      return "handle";
    case kMTVMArgNull:
      return "None";
    case kMTVMArgDataType:
      return "DataType";
    case kMTVMArgDevice:
      return "Device";
    case kMTVMArgDLTensor:
      return "NDArray";
    case kMTVMArgObject:
      return "object";
    case kMTVMArgStr:
      return "str";
    default:
      return "unknown";
  }
}

}  // namespace

extern "C" {

int32_t MTVMBackendParallelLaunch(MTVMParallelLambda lambda, void* closure, int32_t num_task) {
  std::mutex mu;
  std::string first_error;
  int r = minitvm::runtime_cpu::ThreadPool::Global()->Launch(
      [&](int t, int n) {
        int rc = lambda(t, n, closure);
        if (rc != 0) {
          std::lock_guard<std::mutex> lock(mu);
          if (first_error.empty()) first_error = LastError();
        }
        return rc;
      },
      num_task);
  if (r != 0) {
    LastError() = first_error.empty() ? "RuntimeError: a parallel task failed" : first_error;
    return -1;
  }
  return 0;
}

void* MTVMBackendAllocWorkspace(uint64_t nbytes, int32_t alignment) {
  size_t align = alignment < 64 ? 64 : static_cast<size_t>(alignment);
  size_t size = (static_cast<size_t>(nbytes) + align - 1) / align * align;
  if (size == 0) size = align;
  void* ptr = nullptr;
  if (posix_memalign(&ptr, align, size) != 0) return nullptr;
  return ptr;
}

int32_t MTVMBackendFreeWorkspace(void* ptr) {
  std::free(ptr);
  return 0;
}

void MTVMBackendSetErrorFormatted(const char* fmt, int32_t num_values, const int64_t* values) {
  std::ostringstream os;
  int next = 0;
  auto take = [&]() -> int64_t { return next < num_values ? values[next++] : 0; };
  int64_t last = 0;  // the last `{}` value, for `{was}`
  for (const char* p = fmt; *p;) {
    if (std::strncmp(p, "{}", 2) == 0) {
      last = take();
      os << last;
      p += 2;
    } else if (std::strncmp(p, "{was}", 5) == 0) {
      os << (last == 1 ? "was" : "were");
      p += 5;
    } else if (std::strncmp(p, "{type}", 6) == 0) {
      os << ArgTypeName(take());
      p += 6;
    } else if (std::strncmp(p, "{dtype}", 7) == 0) {
      int code = static_cast<int>(take()), bits = static_cast<int>(take());
      int lanes = static_cast<int>(take());
      if (lanes < 1 || bits < 1) {  // no DataType prints these honestly
        os << "(type code " << code << ", " << bits << " bits, " << lanes << " lanes)";
      } else {
        os << minitvm::runtime::DataType(code, bits, lanes);
      }
      p += 7;
    } else {
      os << *p++;
    }
  }
  LastError() = os.str();
}

const char* MTVMBackendGetLastError(void) { return LastError().c_str(); }

}  // extern "C"

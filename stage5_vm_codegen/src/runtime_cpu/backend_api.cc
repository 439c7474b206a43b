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
#include <vector>

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
  auto* pool = minitvm::runtime_cpu::ThreadPool::Global();
  if (num_task <= 0) {
    // Several tasks per thread, handed out dynamically by the pool: a thread that starts late
    // or is preempted (other processes on the cores) leaves its remaining tasks to the others
    // instead of holding up the join with a fixed half of the loop. Generated code splits
    // its loop evenly over whatever count it is given (EmitParallelFor).
    num_task = pool->DefaultTaskCount();
  }
  std::mutex mu;
  std::string first_error;
  int r = pool->Launch(
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

namespace {

/*! \brief Written in front of every workspace block: the allocation it lies in. */
struct WorkspaceHeader {
  void* base;
  size_t bytes;  // usable bytes after the header's slot
  size_t align;
};

/*!
 * \brief Freed workspace blocks kept per thread for the next call (TVM's CPU workspaces come
 * from a per-thread pool too). Without it every call of a kernel with large workspaces (the
 * GEMM's packed panels: 8 MiB at 1024^3) gets fresh pages from the OS whenever malloc returned
 * the last ones (mmap'ed blocks, heap trimming): ~2000 page faults per 1024^3 GEMM, 10-15% of
 * its time on Zen 4. At most kMaxBlocks blocks and kMaxBytes bytes are kept; the rest is freed.
 */
class WorkspaceCache {
 public:
  static constexpr size_t kMaxBlocks = 8;
  static constexpr size_t kMaxBytes = size_t(512) << 20;
  ~WorkspaceCache() {
    for (const WorkspaceHeader& h : free_) std::free(h.base);
  }
  /*! \brief A cached block of at least `bytes` (at most twice that) and `align`, or null. */
  void* Take(size_t bytes, size_t align) {
    size_t best = free_.size();
    for (size_t i = 0; i < free_.size(); ++i) {
      const WorkspaceHeader& h = free_[i];
      if (h.align >= align && h.bytes >= bytes && h.bytes / 2 <= bytes &&
          (best == free_.size() || h.bytes < free_[best].bytes)) {
        best = i;
      }
    }
    if (best == free_.size()) return nullptr;
    WorkspaceHeader h = free_[best];
    free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(best));
    cached_ -= h.bytes;
    return static_cast<char*>(h.base) + h.align;
  }
  void Put(const WorkspaceHeader& h) {
    free_.push_back(h);
    cached_ += h.bytes;
    while (free_.size() > kMaxBlocks || cached_ > kMaxBytes) {  // drop the oldest
      cached_ -= free_.front().bytes;
      std::free(free_.front().base);
      free_.erase(free_.begin());
    }
  }

 private:
  std::vector<WorkspaceHeader> free_;
  size_t cached_ = 0;
};

WorkspaceCache& ThreadWorkspaceCache() {
  thread_local WorkspaceCache cache;
  return cache;
}

}  // namespace

void* MTVMBackendAllocWorkspace(uint64_t nbytes, int32_t alignment) {
  size_t align = alignment < 64 ? 64 : static_cast<size_t>(alignment);
  size_t size = (static_cast<size_t>(nbytes) + align - 1) / align * align;
  if (size == 0) size = align;
  if (void* ptr = ThreadWorkspaceCache().Take(size, align)) return ptr;
  // One alignment unit in front holds the header (align >= 64 > sizeof(WorkspaceHeader)).
  void* base = nullptr;
  if (posix_memalign(&base, align, size + align) != 0) return nullptr;
  char* ptr = static_cast<char*>(base) + align;
  WorkspaceHeader h{base, size, align};
  std::memcpy(ptr - sizeof(WorkspaceHeader), &h, sizeof(h));
  return ptr;
}

int32_t MTVMBackendFreeWorkspace(void* ptr) {
  if (!ptr) return 0;
  WorkspaceHeader h;
  std::memcpy(&h, static_cast<char*>(ptr) - sizeof(WorkspaceHeader), sizeof(h));
  ThreadWorkspaceCache().Put(h);
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

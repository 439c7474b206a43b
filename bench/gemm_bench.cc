/*!
 * \file gemm_bench.cc
 * \brief Stage-5 benchmark: the tuned minitvm GEMM (bench/gemm_schedule.h, compiled by LLVM
 * for the host CPU) against OpenBLAS `cblas_sgemm`, in the same process, for float32
 * M = N = K in {512, 1024, 2048} with 1 and 2 threads. Prints JSON.
 *
 *   gemm_bench [--sizes 512,1024,2048] [--threads 1,2] [--repeat 10] [--out result.json]
 *              [--export-dir DIR]   (also write the tuned modules as DIR/gemm_<n>.so)
 *
 * What it reports, besides GFLOP/s (best and median of interleaved runs):
 *  - which OpenBLAS kernel ran (`openblas_get_corename()`), and — when the environment sets
 *    OPENBLAS_CORETYPE, which forces a kernel — the same OpenBLAS runs in a child process with
 *    it unset (OpenBLAS reads it once, when it loads);
 *  - a probe of the FMA peak with 1 and 2 threads: two-thread numbers only mean something
 *    when both cores are free;
 *  - the time to build (lower + LLVM + JIT) the GEMM module.
 */
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gemm_schedule.h"
#include "minitvm/codegen/llvm.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/runtime_cpu/thread_pool.h"

// OpenBLAS, declared here (no cblas.h needed).
extern "C" {
void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                 const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);
char* openblas_get_corename(void);
void openblas_set_num_threads(int n);
}

namespace {

using Clock = std::chrono::steady_clock;
using minitvm::runtime::NDArray;

constexpr int kRowMajor = 101, kNoTrans = 111;

double Now() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

std::vector<int> ParseList(const std::string& s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(std::atoi(item.c_str()));
  return out;
}

struct Options {
  std::vector<int> sizes{512, 1024, 2048};
  std::vector<int> threads{1, 2};
  int repeat = 10;
  std::string out;
  std::string export_dir;      // also write each tuned module as <dir>/gemm_<n>.so
  bool openblas_only = false;  // child mode: OpenBLAS numbers only, one line per run
};

struct Stats {
  double best = 0, median = 0;  // GFLOP/s
};

Stats ToStats(std::vector<double> seconds, double flops) {
  std::sort(seconds.begin(), seconds.end());
  return Stats{flops / seconds.front() / 1e9, flops / seconds[seconds.size() / 2] / 1e9};
}

NDArray RandomMatrix(int64_t rows, int64_t cols, uint32_t seed) {
  NDArray a = NDArray::Empty({rows, cols}, minitvm::DataType::Float(32));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < rows * cols; ++i) a.data_as<float>()[i] = dist(gen);
  return a;
}

// ---- FMA probe ---------------------------------------------------------------------------

typedef float V8 __attribute__((vector_size(32)));

/*! \brief Independent FMA chains on 256-bit vectors; returns GFLOP/s of this thread. */
__attribute__((target("avx2,fma"))) double FmaLoop(int64_t iters) {
  constexpr int kChains = 12;  // more than latency x pipes, fewer than the 16 registers
  V8 acc[kChains];
  V8 x, y;
  for (int l = 0; l < 8; ++l) x[l] = 1.0f + 1e-7f * l, y[l] = 1e-7f;
  for (auto& a : acc) a = y;
  volatile int64_t n = iters;  // opaque trip count
  int64_t count = n;
  double t0 = Now();
  for (int64_t i = 0; i < count; ++i) {
    for (auto& a : acc) a = __builtin_ia32_vfmaddps256(a, x, y);
  }
  double dt = Now() - t0;
  float sum = 0;
  for (auto& a : acc) sum += a[0];
  volatile float sink = sum;
  (void)sink;
  return static_cast<double>(count) * kChains * 8 * 2 / dt / 1e9;
}

struct Probe {
  double one = 0, two = 0;
};

Probe ProbeFma() {
  Probe p;
  int64_t iters = 4000000;  // short runs, best of many: the machine may be shared
  for (int r = 0; r < 10; ++r) p.one = std::max(p.one, FmaLoop(iters));
  for (int r = 0; r < 10; ++r) {
    double a = 0, b = 0;
    std::thread t([&] { b = FmaLoop(iters); });
    a = FmaLoop(iters);
    t.join();
    p.two = std::max(p.two, a + b);
  }
  return p;
}

// ---- OpenBLAS ------------------------------------------------------------------------------

double TimeOpenBLAS(const NDArray& a, const NDArray& b, const NDArray& c, int n) {
  double t0 = Now();
  cblas_sgemm(kRowMajor, kNoTrans, kNoTrans, n, n, n, 1.0f, a.data_as<float>(), n,
              b.data_as<float>(), n, 0.0f, c.data_as<float>(), n);
  return Now() - t0;
}

/*! \brief Child mode: OpenBLAS only; prints "size threads best median corename" lines. */
int RunOpenBLASOnly(const Options& opt) {
  for (int n : opt.sizes) {
    NDArray a = RandomMatrix(n, n, 1), b = RandomMatrix(n, n, 2), c = RandomMatrix(n, n, 3);
    for (int t : opt.threads) {
      openblas_set_num_threads(t);
      TimeOpenBLAS(a, b, c, n);
      std::vector<double> times;
      for (int r = 0; r < opt.repeat; ++r) times.push_back(TimeOpenBLAS(a, b, c, n));
      Stats s = ToStats(times, 2.0 * n * n * n);
      std::printf("%d %d %.3f %.3f %s\n", n, t, s.best, s.median, openblas_get_corename());
    }
  }
  return 0;
}

struct ChildResult {
  int size, threads;
  double best, median;
  std::string corename;
};

/*! \brief Re-run this program without OPENBLAS_CORETYPE for the OpenBLAS numbers. */
std::vector<ChildResult> OpenBLASWithoutCoretype(const char* self, const Options& opt) {
  std::vector<ChildResult> results;
  int fds[2];
  if (pipe(fds) != 0) return results;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    unsetenv("OPENBLAS_CORETYPE");
    std::string sizes, threads;
    for (int s : opt.sizes) sizes += (sizes.empty() ? "" : ",") + std::to_string(s);
    for (int t : opt.threads) threads += (threads.empty() ? "" : ",") + std::to_string(t);
    std::string repeat = std::to_string(opt.repeat);
    execl(self, self, "--openblas-only", "--sizes", sizes.c_str(), "--threads", threads.c_str(),
          "--repeat", repeat.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  std::string text;
  char buf[256];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0) text.append(buf, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  std::istringstream is(text);
  ChildResult r;
  while (is >> r.size >> r.threads >> r.best >> r.median >> r.corename) results.push_back(r);
  return results;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--sizes")
      opt.sizes = ParseList(next());
    else if (a == "--threads")
      opt.threads = ParseList(next());
    else if (a == "--repeat")
      opt.repeat = std::max(1, std::atoi(next().c_str()));
    else if (a == "--out")
      opt.out = next();
    else if (a == "--export-dir")
      opt.export_dir = next();
    else if (a == "--openblas-only")
      opt.openblas_only = true;
    else {
      std::fprintf(stderr,
                   "usage: %s [--sizes 512,1024,2048] [--threads 1,2] [--repeat N] [--out file] "
                   "[--export-dir dir]\n",
                   argv[0]);
      return 2;
    }
  }
  if (opt.openblas_only) return RunOpenBLASOnly(opt);

  namespace mt = minitvm;
  auto* pool = mt::runtime_cpu::ThreadPool::Global();
  std::string cpu = mt::codegen::LLVMHostCPUName();
  std::string features = mt::codegen::LLVMHostCPUFeatures();
  int64_t vector_bits = features.find("+avx512f") != std::string::npos ? 512 : 256;
  mt::bench::GemmTile tile = mt::bench::GemmTileForVectorBits(vector_bits);
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  Probe probe = ProbeFma();

  std::ostringstream js;
  js << "{\n  \"benchmark\": \"gemm_float32\",\n";
  js << "  \"host_cpu\": " << JsonString(cpu) << ",\n  \"vector_bits\": " << vector_bits << ",\n";
  js << "  \"tile\": {\"ti\": " << tile.ti << ", \"tj\": " << tile.tj << ", \"ii\": " << tile.ii
     << "},\n";
  js << "  \"openblas_corename\": " << JsonString(openblas_get_corename()) << ",\n";
  js << "  \"openblas_coretype_env\": " << (coretype ? JsonString(coretype) : "null") << ",\n";
  js << "  \"fma_probe_gflops\": {\"threads_1\": " << probe.one << ", \"threads_2\": " << probe.two
     << ", \"two_cores_free\": " << (probe.two > 1.6 * probe.one ? "true" : "false") << "},\n";
  js << "  \"results\": [";
  bool first = true;
  for (int n : opt.sizes) {
    if (n % (tile.ii * tile.ti) != 0 || n % tile.tj != 0) {
      std::fprintf(stderr, "skipping size %d: not a multiple of the tile\n", n);
      continue;
    }
    double t0 = Now();
    mt::runtime::Module mod =
        mt::codegen::BuildLLVM(mt::bench::ScheduledGemm(n, n, n, tile), "llvm -mcpu=native");
    double build_seconds = Now() - t0;
    mt::runtime::PackedFunc gemm = mod["main"];
    if (!opt.export_dir.empty()) {
      mod.mutable_node()->SaveToFile(opt.export_dir + "/gemm_" + std::to_string(n) + ".so", "");
    }
    NDArray a = RandomMatrix(n, n, 1), b = RandomMatrix(n, n, 2);
    NDArray c = NDArray::Empty({n, n}, mt::DataType::Float(32)),
            c_ref = NDArray::Empty({n, n}, mt::DataType::Float(32));
    gemm(a, b, c);
    TimeOpenBLAS(a, b, c_ref, n);
    double max_err = 0;
    for (int64_t i = 0; i < int64_t(n) * n; ++i) {
      max_err =
          std::max(max_err, double(std::fabs(c.data_as<float>()[i] - c_ref.data_as<float>()[i])));
    }
    for (int t : opt.threads) {
      pool->SetNumThreads(t);
      openblas_set_num_threads(t);
      gemm(a, b, c);
      TimeOpenBLAS(a, b, c_ref, n);
      // Interleave the two so that both see the same machine load.
      std::vector<double> mine, theirs;
      for (int r = 0; r < opt.repeat; ++r) {
        double s = Now();
        gemm(a, b, c);
        mine.push_back(Now() - s);
        theirs.push_back(TimeOpenBLAS(a, b, c_ref, n));
      }
      double flops = 2.0 * n * n * n;
      Stats m = ToStats(mine, flops), o = ToStats(theirs, flops);
      js << (first ? "\n" : ",\n") << "    {\"size\": " << n << ", \"threads\": " << t
         << ", \"minitvm_gflops\": " << m.best << ", \"minitvm_gflops_median\": " << m.median
         << ", \"openblas_gflops\": " << o.best << ", \"openblas_gflops_median\": " << o.median
         << ", \"ratio_best\": " << m.best / o.best << ", \"build_seconds\": " << build_seconds
         << ", \"max_abs_error\": " << max_err << "}";
      first = false;
      std::fprintf(stderr,
                   "n=%d threads=%d  minitvm %.1f GFLOP/s  OpenBLAS(%s) %.1f GFLOP/s  (%.0f%%)  "
                   "build %.3f s\n",
                   n, t, m.best, openblas_get_corename(), o.best, 100 * m.best / o.best,
                   build_seconds);
    }
  }
  js << "\n  ]";
  if (coretype) {
    js << ",\n  \"openblas_without_coretype\": [";
    bool f = true;
    for (const ChildResult& r : OpenBLASWithoutCoretype(argv[0], opt)) {
      js << (f ? "\n" : ",\n") << "    {\"size\": " << r.size << ", \"threads\": " << r.threads
         << ", \"openblas_gflops\": " << r.best << ", \"openblas_gflops_median\": " << r.median
         << ", \"corename\": " << JsonString(r.corename) << "}";
      f = false;
    }
    js << "\n  ]";
  }
  js << "\n}\n";
  std::string text = js.str();
  std::fputs(text.c_str(), stdout);
  if (!opt.out.empty()) {
    FILE* f = std::fopen(opt.out.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", opt.out.c_str());
      return 1;
    }
    std::fputs(text.c_str(), f);
    std::fclose(f);
  }
  return 0;
}

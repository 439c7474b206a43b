/*!
 * \file gemm_bench.cc
 * \brief Stage-5 benchmark: the minitvm GEMM with the tile derived from the host target
 * (relax_vm/cpu_gemm.h: the rule the default pipeline applies to matmul/dense, compiled by LLVM
 * for -mcpu=native) against OpenBLAS `cblas_sgemm`, in the same process, float32, with 1 and 2
 * threads. Prints JSON.
 *
 *   gemm_bench [--sizes 128,256,...,1000,784x784x256,1x784x256] [--threads 1,2] [--repeat 10]
 *              [--out result.json] [--export-dir DIR] [--target "llvm -mcpu=native ..."]
 * A size is N (M = N = K) or MxKxN (A is MxK, B is KxN). --export-dir also writes the tuned
 * modules as DIR/gemm_<MxKxN>.so. --target picks the target the plan is derived from (cache-size
 * attributes such as -l1d-cache-size-bytes override the table, to try other block sizes).
 *
 * What it reports, besides GFLOP/s (best and median of interleaved runs):
 *  - which OpenBLAS kernel ran (`openblas_get_corename()`), and — when the environment sets
 *    OPENBLAS_CORETYPE, which forces a kernel — the same OpenBLAS runs in a child process with
 *    it unset (OpenBLAS reads it once, when it loads);
 *  - a probe of the FMA peak with 1 and 2 threads: two-thread numbers only mean something
 *    when both cores are free. It runs at the start and again right before each multi-thread
 *    row ("probe_before_row"); --wait-free S re-probes for up to S seconds until the cores are
 *    free, so that on a shared machine the 2-thread rows are taken in a quiet moment;
 *  - the time to build (lower + LLVM + JIT) the GEMM module;
 *  - the ratio of medians in process CPU time too ("ratio_cpu_median"): at 1 thread it leaves
 *    out the time the process waited for a core on a shared machine.
 * A/B: `--ab "nr=40,kc=200"` builds a second kernel from the plan with those fields changed, and
 * `--ab-env "NAME=VALUE;..."` sets environment variables while it is built (for a switch added
 * to the builder during an experiment). It is timed interleaved with the first kernel and
 * OpenBLAS ("minitvm_b_*", "ratio_b_median", "ratio_b_cpu_median").
 */
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "minitvm/codegen/llvm.h"
#include "minitvm/relax_vm/cpu_gemm.h"
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

/*! \brief Process CPU time in seconds: on a loaded machine, preemption does not count in it. */
double CpuNow() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

std::vector<int> ParseList(const std::string& s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(std::atoi(item.c_str()));
  return out;
}

/*! \brief One GEMM shape: A is m x k, B is k x n. */
struct Shape {
  int m, k, n;
  std::string str() const {
    return std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
  }
};

std::vector<Shape> ParseShapes(const std::string& s) {
  std::vector<Shape> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    int a = 0, b = 0, c = 0;
    if (std::sscanf(item.c_str(), "%dx%dx%d", &a, &b, &c) == 3) {
      out.push_back({a, b, c});
    } else {
      a = std::atoi(item.c_str());
      out.push_back({a, a, a});
    }
  }
  return out;
}

std::string JoinShapes(const std::vector<Shape>& shapes) {
  std::string s;
  for (const Shape& x : shapes) s += (s.empty() ? "" : ",") + x.str();
  return s;
}

struct Options {
  std::vector<Shape> sizes = ParseShapes("128,256,512,1000,1024,2048,4096,784x784x256,1x784x256");
  std::vector<int> threads{1, 2};
  int repeat = 10;
  std::string out;
  std::string export_dir;                    // also write each tuned module as <dir>/gemm_<n>.so
  std::string target = "llvm -mcpu=native";  // the plan's target (extra attributes override it)
  double wait_free = 0;  // seconds to wait (re-probing) for two free cores before a 2-thread row
  bool openblas_only = false;  // child mode: OpenBLAS numbers only, one line per run
  // A/B: a second minitvm kernel, timed interleaved with the first and OpenBLAS ("minitvm_b").
  std::string ab;      // plan overrides for it, e.g. "nr=40,kc=200"
  std::string ab_env;  // NAME=VALUE set in the environment while it is built
};

/*! \brief The plan with the overrides of `spec` ("field=value,..."; fields of GemmPlan). */
minitvm::relax_vm::GemmPlan OverridePlan(minitvm::relax_vm::GemmPlan p, const std::string& spec) {
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t eq = item.find('=');
    if (eq == std::string::npos) continue;
    std::string key = item.substr(0, eq);
    int64_t v = std::atoll(item.c_str() + eq + 1);
    if (key == "mr") p.mr = v;
    if (key == "nv") p.nv = v;
    if (key == "nr") p.nr = v;
    if (key == "mc") p.mc = v;
    if (key == "nc") p.nc = v;
    if (key == "kc") p.kc = v;
    if (key == "pack_a") p.pack_a = v != 0;
  }
  return p;
}

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
  double one = 0, two = 0;                // best of the runs (the machine's capacity)
  double one_median = 0, two_median = 0;  // median of the runs (what a run gets right now)
  /*! \brief Two threads usually get most of twice one thread's FMA rate: both cores are free. */
  bool Free() const { return two_median > 1.6 * one_median; }
};

Probe ProbeFma() {
  Probe p;
  int64_t iters = 4000000;  // short runs, many of them: the machine may be shared
  std::vector<double> ones, twos;
  for (int r = 0; r < 10; ++r) ones.push_back(FmaLoop(iters));
  for (int r = 0; r < 10; ++r) {
    double a = 0, b = 0;
    std::thread t([&] { b = FmaLoop(iters); });
    a = FmaLoop(iters);
    t.join();
    twos.push_back(a + b);
  }
  std::sort(ones.begin(), ones.end());
  std::sort(twos.begin(), twos.end());
  p.one = ones.back(), p.two = twos.back();
  p.one_median = ones[ones.size() / 2], p.two_median = twos[twos.size() / 2];
  return p;
}

// ---- OpenBLAS ------------------------------------------------------------------------------

double TimeOpenBLAS(const NDArray& a, const NDArray& b, const NDArray& c, const Shape& s) {
  double t0 = Now();
  cblas_sgemm(kRowMajor, kNoTrans, kNoTrans, s.m, s.n, s.k, 1.0f, a.data_as<float>(), s.k,
              b.data_as<float>(), s.n, 0.0f, c.data_as<float>(), s.n);
  return Now() - t0;
}

/*! \brief Repeats for a shape: fewer for the big ones (at least 3), so a run stays short. */
int RepeatFor(const Shape& s, int repeat) {
  double gflop = 2.0 * s.m * s.n * s.k / 1e9;
  return std::max(3, std::min(repeat, static_cast<int>(20.0 / std::max(gflop, 1e-3))));
}

/*! \brief Child mode: OpenBLAS only; prints "size threads best median corename" lines. */
int RunOpenBLASOnly(const Options& opt) {
  for (const Shape& sh : opt.sizes) {
    NDArray a = RandomMatrix(sh.m, sh.k, 1), b = RandomMatrix(sh.k, sh.n, 2),
            c = RandomMatrix(sh.m, sh.n, 3);
    for (int t : opt.threads) {
      openblas_set_num_threads(t);
      TimeOpenBLAS(a, b, c, sh);
      std::vector<double> times;
      for (int r = 0; r < RepeatFor(sh, opt.repeat); ++r)
        times.push_back(TimeOpenBLAS(a, b, c, sh));
      Stats s = ToStats(times, 2.0 * sh.m * sh.n * sh.k);
      std::printf("%s %d %.3f %.3f %s\n", sh.str().c_str(), t, s.best, s.median,
                  openblas_get_corename());
    }
  }
  return 0;
}

struct ChildResult {
  std::string size;
  int threads;
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
    std::string sizes = JoinShapes(opt.sizes), threads;
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
      opt.sizes = ParseShapes(next());
    else if (a == "--threads")
      opt.threads = ParseList(next());
    else if (a == "--repeat")
      opt.repeat = std::max(1, std::atoi(next().c_str()));
    else if (a == "--out")
      opt.out = next();
    else if (a == "--export-dir")
      opt.export_dir = next();
    else if (a == "--wait-free")
      opt.wait_free = std::atof(next().c_str());
    else if (a == "--target")
      opt.target = next();
    else if (a == "--ab")
      opt.ab = next();
    else if (a == "--ab-env")
      opt.ab_env = next();
    else if (a == "--openblas-only")
      opt.openblas_only = true;
    else {
      std::fprintf(stderr,
                   "usage: %s [--sizes 512,1024,2048] [--threads 1,2] [--repeat N] [--out file] "
                   "[--export-dir dir] [--wait-free seconds] [--target \"llvm -mcpu=native "
                   "-l1d-cache-size-bytes=65536\"]\n",
                   argv[0]);
      return 2;
    }
  }
  if (opt.openblas_only) return RunOpenBLASOnly(opt);

  namespace mt = minitvm;
  auto* pool = mt::runtime_cpu::ThreadPool::Global();
  std::string cpu = mt::codegen::LLVMHostCPUName();
  mt::target::Target host_target(opt.target);
  mt::relax_vm::CpuVectorInfo info = mt::relax_vm::GetCpuVectorInfo(host_target);
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  Probe probe = ProbeFma();

  std::ostringstream js;
  js << "{\n  \"benchmark\": \"gemm_float32\",\n";
  js << "  \"host_cpu\": " << JsonString(cpu)
     << ",\n  \"target\": " << JsonString(host_target.str())
     << ",\n  \"vector_bits\": " << info.vector_bits
     << ", \"vector_registers\": " << info.vector_registers << ", \"l1d_bytes\": " << info.l1d_bytes
     << ", \"l2_bytes\": " << info.l2_bytes << ",\n";
  js << "  \"openblas_corename\": " << JsonString(openblas_get_corename()) << ",\n";
  js << "  \"openblas_coretype_env\": " << (coretype ? JsonString(coretype) : "null") << ",\n";
  js << "  \"fma_probe_gflops\": {\"threads_1\": " << probe.one << ", \"threads_2\": " << probe.two
     << ", \"threads_1_median\": " << probe.one_median
     << ", \"threads_2_median\": " << probe.two_median
     << ", \"two_cores_free\": " << (probe.Free() ? "true" : "false") << "},\n";
  js << "  \"results\": [";
  bool first = true;
  for (const Shape& sh : opt.sizes) {
    mt::relax_vm::GemmPlan plan = mt::relax_vm::DeriveGemmPlan(info, 32, sh.m, sh.n, sh.k);
    double t0 = Now();
    mt::tir::PrimFunc f = mt::relax_vm::CpuGemmPrimFunc(sh.m, sh.n, sh.k, false, plan);
    mt::runtime::Module mod =
        mt::codegen::BuildLLVM(mt::IRModule::FromNamed({{"main", f}}), "llvm -mcpu=native");
    double build_seconds = Now() - t0;
    mt::runtime::PackedFunc gemm = mod["main"];
    const bool ab = !opt.ab.empty() || !opt.ab_env.empty();
    mt::relax_vm::GemmPlan plan_b = OverridePlan(plan, opt.ab);
    mt::runtime::PackedFunc gemm_b;
    mt::runtime::Module mod_b;
    if (ab) {
      // NAME=VALUE[;NAME=VALUE...] set while kernel B is built, unset after.
      std::vector<std::string> names;
      std::stringstream es(opt.ab_env);
      std::string item;
      while (std::getline(es, item, ';')) {
        size_t eq = item.find('=');
        if (eq == std::string::npos) continue;
        names.push_back(item.substr(0, eq));
        setenv(names.back().c_str(), item.substr(eq + 1).c_str(), 1);
      }
      mt::tir::PrimFunc fb = mt::relax_vm::CpuGemmPrimFunc(sh.m, sh.n, sh.k, false, plan_b);
      mod_b = mt::codegen::BuildLLVM(mt::IRModule::FromNamed({{"main", fb}}), "llvm -mcpu=native");
      for (const std::string& name : names) unsetenv(name.c_str());
      gemm_b = mod_b["main"];
      if (!opt.export_dir.empty()) {
        mod_b.mutable_node()->SaveToFile(opt.export_dir + "/gemm_b_" + sh.str() + ".s", "s");
      }
    }
    if (!opt.export_dir.empty()) {
      mod.mutable_node()->SaveToFile(opt.export_dir + "/gemm_" + sh.str() + ".so", "");
    }
    NDArray a = RandomMatrix(sh.m, sh.k, 1), b = RandomMatrix(sh.k, sh.n, 2);
    NDArray c = NDArray::Empty({sh.m, sh.n}, mt::DataType::Float(32)),
            c_ref = NDArray::Empty({sh.m, sh.n}, mt::DataType::Float(32));
    gemm(a, b, c);
    TimeOpenBLAS(a, b, c_ref, sh);
    double max_err = 0;
    for (int64_t i = 0; i < int64_t(sh.m) * sh.n; ++i) {
      max_err =
          std::max(max_err, double(std::fabs(c.data_as<float>()[i] - c_ref.data_as<float>()[i])));
    }
    if (ab) {
      gemm_b(a, b, c);
      for (int64_t i = 0; i < int64_t(sh.m) * sh.n; ++i) {
        max_err =
            std::max(max_err, double(std::fabs(c.data_as<float>()[i] - c_ref.data_as<float>()[i])));
      }
    }
    int repeat = RepeatFor(sh, opt.repeat);
    for (int t : opt.threads) {
      // A multi-thread row means something only while the cores are free: probe again right
      // before it (waiting up to --wait-free seconds for a free moment) and record the answer.
      Probe row_probe;
      if (t > 1) {
        double deadline = Now() + opt.wait_free;
        do {
          row_probe = ProbeFma();
        } while (!row_probe.Free() && Now() < deadline);
      }
      pool->SetNumThreads(t);
      openblas_set_num_threads(t);
      gemm(a, b, c);
      TimeOpenBLAS(a, b, c_ref, sh);
      // Interleave the two so that both see the same machine load.
      // Process CPU time too (cpu_*): at 1 thread it is the time the call ran on a core.
      std::vector<double> mine, theirs, mine_b, cpu_mine, cpu_theirs, cpu_b;
      // The wall-clock window holds the call alone, as TimeOpenBLAS's does: CpuNow() is a
      // system call (~0.4 us, 5% of a 1x784x256 GEMV), so it stays outside it.
      for (int r = 0; r < repeat; ++r) {
        double cs = CpuNow(), s = Now();
        gemm(a, b, c);
        mine.push_back(Now() - s);
        cpu_mine.push_back(CpuNow() - cs);
        cs = CpuNow();
        theirs.push_back(TimeOpenBLAS(a, b, c_ref, sh));
        cpu_theirs.push_back(CpuNow() - cs);
        if (ab) {
          cs = CpuNow(), s = Now();
          gemm_b(a, b, c);
          mine_b.push_back(Now() - s);
          cpu_b.push_back(CpuNow() - cs);
        }
      }
      double flops = 2.0 * sh.m * sh.n * sh.k;
      Stats m = ToStats(mine, flops), o = ToStats(theirs, flops);
      Stats cm = ToStats(cpu_mine, flops), co = ToStats(cpu_theirs, flops);
      js << (first ? "\n" : ",\n") << "    {\"size\": " << JsonString(sh.str())
         << ", \"threads\": " << t << ", \"plan\": " << JsonString(plan.str())
         << ", \"minitvm_gflops\": " << m.best << ", \"minitvm_gflops_median\": " << m.median
         << ", \"openblas_gflops\": " << o.best << ", \"openblas_gflops_median\": " << o.median
         << ", \"ratio_best\": " << m.best / o.best << ", \"ratio_median\": " << m.median / o.median
         << ", \"repeat\": " << repeat << ", \"build_seconds\": " << build_seconds
         << ", \"max_abs_error\": " << max_err
         << ", \"ratio_cpu_median\": " << cm.median / co.median;
      if (ab) {
        Stats mb = ToStats(mine_b, flops);
        Stats cb = ToStats(cpu_b, flops);
        js << ", \"plan_b\": " << JsonString(plan_b.str())
           << ", \"ab_env\": " << JsonString(opt.ab_env) << ", \"minitvm_b_gflops\": " << mb.best
           << ", \"minitvm_b_gflops_median\": " << mb.median
           << ", \"ratio_b_median\": " << mb.median / o.median
           << ", \"ratio_b_cpu_median\": " << cb.median / co.median;
        std::fprintf(stderr,
                     "%s threads=%d  B: %.1f (median %.1f)  ratio of medians %.3f, A %.3f; "
                     "process CPU time: B %.3f, A %.3f\n",
                     sh.str().c_str(), t, mb.best, mb.median, mb.median / o.median,
                     m.median / o.median, cb.median / co.median, cm.median / co.median);
      }
      if (t > 1) {
        js << ", \"probe_before_row\": {\"threads_1_median\": " << row_probe.one_median
           << ", \"threads_2_median\": " << row_probe.two_median
           << ", \"two_cores_free\": " << (row_probe.Free() ? "true" : "false") << "}";
      }
      js << "}";
      first = false;
      std::fprintf(stderr,
                   "%s threads=%d  minitvm %.1f (median %.1f) GFLOP/s  OpenBLAS(%s) %.1f (median "
                   "%.1f)  ratio of medians %.2f  build %.2f s%s\n",
                   sh.str().c_str(), t, m.best, m.median, openblas_get_corename(), o.best, o.median,
                   m.median / o.median, build_seconds,
                   t > 1 ? (row_probe.Free() ? "  cores free" : "  cores NOT free") : "");
    }
  }
  js << "\n  ]";
  if (coretype) {
    js << ",\n  \"openblas_without_coretype\": [";
    bool f = true;
    for (const ChildResult& r : OpenBLASWithoutCoretype(argv[0], opt)) {
      js << (f ? "\n" : ",\n") << "    {\"size\": " << JsonString(r.size)
         << ", \"threads\": " << r.threads << ", \"openblas_gflops\": " << r.best
         << ", \"openblas_gflops_median\": " << r.median
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

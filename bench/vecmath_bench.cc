/*!
 * \file vecmath_bench.cc
 * \brief Stage-5 benchmark: y = f(x) over 1M float32 elements (f = exp, tanh, erf, log),
 * compiled by LLVM for the host CPU, in three ways, single-threaded. Prints JSON.
 *
 *   vecmath_bench [--n 1048576] [--ops exp,tanh,erf,log] [--repeat 20] [--out result.json]
 *
 *  - "vectorized": the loop split by the vector width and vectorized; the code generator calls
 *    glibc's libmvec (`_ZGVdN8v_expf` on AVX2) — the default;
 *  - "per_lane": the same vectorized loop built with MINITVM_LLVM_VECMATH=0, the code
 *    generator's old path (one libm call per lane);
 *  - "scalar": the loop not vectorized (one libm call per element).
 * NumPy's np.exp on the same sizes is measured by bench/vecmath_bench.py.
 */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "minitvm/codegen/llvm.h"
#include "minitvm/ir/module.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/te/create_prim_func.h"
#include "minitvm/te/operation.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/schedule/schedule.h"

namespace {

namespace mt = minitvm;
using Clock = std::chrono::steady_clock;
using mt::runtime::NDArray;

double Now() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

/*! \brief y = op(x) over n float32 elements; vectorized by `lanes` when lanes > 1. */
mt::IRModule Unary(const std::string& op, int64_t n, int64_t lanes) {
  mt::DataType f32 = mt::DataType::Float(32);
  mt::PrimExpr extent = mt::IntImm(mt::DataType::Int(32), n);
  mt::te::Tensor x = mt::te::placeholder({extent}, f32, "x");
  mt::te::Tensor y = mt::te::compute(
      {extent}, [&](mt::tir::Var i) { return mt::tir::Call(f32, "tir." + op, {x(i)}); }, "y");
  mt::tir::PrimFunc f =
      mt::WithAttr(mt::te::CreatePrimFunc({x, y}), "global_symbol", mt::runtime::String("main"));
  mt::IRModule mod = mt::IRModule::FromNamed({{"main", f}});
  if (lanes <= 1) return mod;
  mt::tir::Schedule sch = mt::tir::Schedule::Create(mod);
  auto loops = sch->GetLoops(sch->GetBlock("y"));
  auto parts = sch->Split(loops[0], {std::nullopt, lanes});
  sch->Vectorize(parts[1]);
  return sch->mod();
}

/*! \brief Best and median milliseconds of `repeat` runs. */
std::pair<double, double> Time(const mt::runtime::PackedFunc& f, const NDArray& x, const NDArray& y,
                               int repeat) {
  f(x, y);
  std::vector<double> ms;
  for (int r = 0; r < repeat; ++r) {
    double t = Now();
    f(x, y);
    ms.push_back((Now() - t) * 1e3);
  }
  std::sort(ms.begin(), ms.end());
  return {ms.front(), ms[ms.size() / 2]};
}

std::string JsonString(const std::string& s) { return "\"" + s + "\""; }

}  // namespace

int main(int argc, char** argv) {
  int64_t n = 1 << 20;
  int repeat = 20;
  std::string ops_arg = "exp,tanh,erf,log", out;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--n") {
      n = std::atoll(next().c_str());
    } else if (a == "--ops") {
      ops_arg = next();
    } else if (a == "--repeat") {
      repeat = std::max(1, std::atoi(next().c_str()));
    } else if (a == "--out") {
      out = next();
    } else {
      std::fprintf(stderr, "usage: %s [--n N] [--ops exp,tanh,erf,log] [--repeat N] [--out f]\n",
                   argv[0]);
      return 2;
    }
  }
  std::vector<std::string> ops;
  std::stringstream ss(ops_arg);
  for (std::string op; std::getline(ss, op, ',');) ops.push_back(op);

  const std::string target = "llvm -mcpu=native";
  std::string features = mt::codegen::LLVMHostCPUFeatures();
  int64_t lanes = features.find("+avx512f") != std::string::npos ? 16
                  : features.find("+avx") != std::string::npos   ? 8
                                                                 : 4;
  NDArray x = NDArray::Empty({n}, mt::DataType::Float(32));
  NDArray y = NDArray::Empty({n}, mt::DataType::Float(32));
  std::mt19937 gen(0);
  std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
  for (int64_t i = 0; i < n; ++i) x.data_as<float>()[i] = dist(gen);

  std::ostringstream js;
  js << "{\n  \"benchmark\": \"vecmath_float32\",\n";
  js << "  \"host_cpu\": " << JsonString(mt::codegen::LLVMHostCPUName()) << ",\n";
  js << "  \"elements\": " << n << ",\n  \"lanes\": " << lanes << ",\n  \"threads\": 1,\n";
  js << "  \"results\": [";
  bool first = true;
  for (const std::string& op : ops) {
    // log of a negative number is NaN, which libmvec handles on a slow path: use |x| + 0.5.
    NDArray input = x;
    if (op == "log") {
      input = NDArray::Empty({n}, mt::DataType::Float(32));
      for (int64_t i = 0; i < n; ++i) {
        input.data_as<float>()[i] = std::fabs(x.data_as<float>()[i]) + 0.5f;
      }
    }
    auto vectorized = mt::codegen::BuildLLVM(Unary(op, n, lanes), target)["main"];
    setenv("MINITVM_LLVM_VECMATH", "0", 1);
    auto per_lane = mt::codegen::BuildLLVM(Unary(op, n, lanes), target)["main"];
    unsetenv("MINITVM_LLVM_VECMATH");
    auto scalar = mt::codegen::BuildLLVM(Unary(op, n, 1), target)["main"];
    // Interleave the three so that all see the same machine load.
    std::pair<double, double> v{1e30, 0}, p{1e30, 0}, s{1e30, 0};
    for (int round = 0; round < 3; ++round) {
      auto tv = Time(vectorized, input, y, repeat), tp = Time(per_lane, input, y, repeat),
           ts = Time(scalar, input, y, repeat);
      if (tv.first < v.first) v = tv;
      if (tp.first < p.first) p = tp;
      if (ts.first < s.first) s = ts;
    }
    js << (first ? "\n" : ",\n") << "    {\"op\": " << JsonString(op)
       << ", \"vectorized_ms\": " << v.first << ", \"vectorized_ms_median\": " << v.second
       << ", \"per_lane_ms\": " << p.first << ", \"per_lane_ms_median\": " << p.second
       << ", \"scalar_ms\": " << s.first << ", \"scalar_ms_median\": " << s.second
       << ", \"speedup_vs_per_lane\": " << p.first / v.first << "}";
    first = false;
    std::fprintf(stderr, "%-5s vectorized %.3f ms  per-lane %.3f ms  scalar %.3f ms  (%.1fx)\n",
                 op.c_str(), v.first, p.first, s.first, p.first / v.first);
  }
  js << "\n  ]\n}\n";
  std::string text = js.str();
  std::fputs(text.c_str(), stdout);
  if (!out.empty()) {
    FILE* f = std::fopen(out.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", out.c_str());
      return 1;
    }
    std::fputs(text.c_str(), f);
    std::fclose(f);
  }
  return 0;
}

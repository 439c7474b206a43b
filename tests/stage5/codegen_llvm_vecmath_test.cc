/*!
 * \file codegen_llvm_vecmath_test.cc
 * \brief Stage 5: vector math. `y = f(x)` for exp, log, tanh, erf, sigmoid, exp2, log2, log10,
 * split and vectorized (4 to 16 lanes, float32, float64 and float16), compiled with LLVM —
 * where the target has them, through glibc's libmvec vector variants — and compared lane by
 * lane, in ulps, with the TIR interpreter (the function computed in double and rounded) on
 * random inputs over several ranges and on the special values: NaN, ±inf, ±0, overflow and
 * underflow of exp, denormal results. Also checks that the IR calls the vector variants.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "minitvm/codegen/llvm.h"
#include "minitvm/te/create_prim_func.h"
#include "minitvm/te/operation.h"
#include "minitvm/tir/interpreter.h"
#include "minitvm/tir/schedule/schedule.h"
#include "stage5_test_util.h"

namespace minitvm {
namespace {

using namespace testing;  // NOLINT(build/namespaces)

/*! \brief y[i] = op(x[i]) over n elements, the loop split by `lanes` and vectorized. */
IRModule VectorizedUnary(const std::string& op, int64_t n, DataType dtype, int64_t lanes) {
  te::Tensor x = te::placeholder({I32(n)}, dtype, "x");
  te::Tensor y = te::compute(
      {I32(n)}, [&](Var i) { return tir::Call(dtype, "tir." + op, {x(i)}); }, "y");
  PrimFunc f = WithAttr(te::CreatePrimFunc({x, y}), "global_symbol", String("main"));
  tir::Schedule sch = tir::Schedule::Create(ModuleOf(f));
  auto loops = sch->GetLoops(sch->GetBlock("y"));
  auto parts = sch->Split(loops[0], {std::nullopt, lanes});
  sch->Vectorize(parts[1]);
  return sch->mod();
}

/*! \brief The inputs: special values first, then random values over the function's domain. */
std::vector<double> Inputs(const std::string& op, int64_t n, DataType dtype) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> v = {
      nan,   -nan,  inf,    -inf,   0.0,    -0.0,  1.0,   -1.0,  88.7,    88.8,   89.0,  100.0,
      -87.3, -88.0, -95.0,  -103.0, -104.,  -110., 709.7, 710.0, -708.0,  -740.0, -750., 1e-30,
      1e-40, 1e-45, -1e-40, 1e-300, 1e-320, 5.0,   9.0,   10.0,  -9.0,    20.0,   -20.0, 1e30,
      -1e30, 1e300, 3e38,   -3e38,  0.5,    -0.5,  1e-8,  -1e-8, 65504.0, 11.0,   -17.0, 0.1};
  std::mt19937 gen(42);
  // Log-uniform magnitudes reach the denormals and the largest floats; uniform values cover
  // the ranges where each function varies.
  double range = op == "exp" || op == "sigmoid" ? 110.0 : op == "exp2" ? 160.0 : 12.0;
  if (dtype.bits() == 64) range *= 8;
  if (dtype.bits() == 16) range = op.rfind("exp", 0) == 0 ? 12.0 : 8.0;
  std::uniform_real_distribution<double> uniform(-range, range);
  std::uniform_real_distribution<double> exponent(-45, 38);
  while (static_cast<int64_t>(v.size()) < n) {
    if (v.size() % 3 == 0) {
      v.push_back((v.size() % 2 ? 1 : -1) * std::pow(10.0, exponent(gen)));
    } else {
      v.push_back(uniform(gen));
    }
  }
  return v;
}

// float16 as the compiler's _Float16 (IEEE binary16, as minitvm's "float16").
double ReadElement(const NDArray& a, int64_t i) {
  switch (a.dtype().bits()) {
    case 16:
      return static_cast<double>(a.data_as<_Float16>()[i]);
    case 32:
      return a.data_as<float>()[i];
    default:
      return a.data_as<double>()[i];
  }
}

NDArray MakeArray(const std::vector<double>& values, DataType dtype) {
  NDArray a = NDArray::Empty({static_cast<int64_t>(values.size())}, dtype);
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype.bits() == 16) {
      a.data_as<_Float16>()[i] = static_cast<_Float16>(values[i]);
    } else if (dtype.bits() == 32) {
      a.data_as<float>()[i] = static_cast<float>(values[i]);
    } else {
      a.data_as<double>()[i] = values[i];
    }
  }
  return a;
}

/*! \brief An integer that orders floats of `bits` bits: adjacent floats differ by one. */
int64_t Ordinal(double v, int bits) {
  int64_t i;
  if (bits == 64) {
    std::memcpy(&i, &v, 8);
  } else if (bits == 32) {
    float f = static_cast<float>(v);
    int32_t k;
    std::memcpy(&k, &f, 4);
    i = k;
  } else {
    _Float16 h = static_cast<_Float16>(v);
    int16_t k;
    std::memcpy(&k, &h, 2);
    i = k;
  }
  return i < 0 ? std::numeric_limits<int64_t>::min() - i : i;
}

/*! \brief Distance in ulps of `dtype` between two of its values (0 for two NaNs). */
double UlpDistance(double a, double b, int bits) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : 1e30;
  if (a == b) return std::signbit(a) == std::signbit(b) ? 0 : 1e30;  // -0.0 stays -0.0
  __int128 d = static_cast<__int128>(Ordinal(a, bits)) - Ordinal(b, bits);
  return static_cast<double>(d < 0 ? -d : d);
}

/*! \brief The function in long double (x87: 64-bit mantissa, exponent up to 16383). */
long double Reference(const std::string& op, long double x) {
  if (op == "exp") return std::exp(x);
  if (op == "log") return std::log(x);
  if (op == "tanh") return std::tanh(x);
  if (op == "erf") return std::erf(x);
  if (op == "sigmoid") return 1.0L / (1.0L + std::exp(-x));
  if (op == "exp2") return std::exp2(x);
  if (op == "log2") return std::log2(x);
  if (op == "log10") return std::log10(x);
  ADD_FAILURE() << "no reference for " << op;
  return 0;
}

/*! \brief `v` rounded once to `bits` bits. */
double RoundTo(long double v, int bits) {
  if (bits == 16) return static_cast<double>(static_cast<_Float16>(v));
  if (bits == 32) return static_cast<double>(static_cast<float>(v));
  return static_cast<double>(v);
}

/*!
 * \brief Build and run; the max distance in ulps from the correctly rounded result (computed
 * in long double). For float32 and float16 the TIR interpreter — the function in double,
 * rounded — must agree within the same tolerance.
 */
double MaxUlpError(const std::string& op, DataType dtype, int64_t lanes, const std::string& target,
                   double tolerance) {
  std::ostringstream what;
  what << op << " " << dtype << "x" << lanes << " " << target;
  SCOPED_TRACE(what.str());
  const int64_t n = 4096;
  std::vector<double> values = Inputs(op, n, dtype);
  IRModule mod = VectorizedUnary(op, n, dtype, lanes);
  runtime::PackedFunc built = codegen::BuildLLVM(mod, target)["main"];
  NDArray x = MakeArray(values, dtype);
  NDArray got = NDArray::Empty({n}, dtype), interp = NDArray::Empty({n}, dtype);
  built(x, got);
  bool check_interpreter = dtype.bits() < 64;  // double overflows in 1 / (1 + exp(-x))
  if (check_interpreter) {
    PrimFunc unscheduled = Downcast<PrimFunc>(VectorizedUnary(op, n, dtype, 1)->Lookup("main"));
    std::vector<Any> args = {Any(x), Any(interp)};
    tir::Interpreter(unscheduled).Run(runtime::PackedArgs(args.data(), 2));
  }
  double worst = 0;
  int failures = 0;
  for (int64_t i = 0; i < n; ++i) {
    double in = ReadElement(x, i), g = ReadElement(got, i);
    double want = RoundTo(Reference(op, in), dtype.bits());
    double d = UlpDistance(g, want, dtype.bits());
    worst = std::max(worst, d);
    if (d > tolerance && ++failures <= 5) {
      ADD_FAILURE() << op << "(" << in << ") = " << g << " but it is " << want << " (" << d
                    << " ulp)";
    }
    if (check_interpreter) {
      double w = ReadElement(interp, i);
      if (UlpDistance(g, w, dtype.bits()) > tolerance && ++failures <= 5) {
        ADD_FAILURE() << op << "(" << in << ") = " << g << " but the interpreter says " << w;
      }
    }
  }
  return worst;
}

bool HostHasAVX2() { return codegen::LLVMHostCPUFeatures().find("+avx2") != std::string::npos; }

// float32: 8 lanes is one AVX2 call; 16 two (or one AVX-512 call), 4 the SSE variant,
// 12 = 8 + 4, 6 and 3 are padded, 9 = 8 + one lane through libm.
TEST(CodeGenLLVMVecMath, Float32MatchesTheInterpreter) {
  for (const char* op : {"exp", "log", "tanh", "erf", "sigmoid", "exp2", "log2", "log10"}) {
    double worst = 0;
    for (int64_t lanes : {8, 16, 4, 12, 6, 3, 9}) {
      worst = std::max(worst, MaxUlpError(op, DataType::Float(32), lanes, "llvm -mcpu=native", 4));
    }
    std::printf("float32 %-8s max %.0f ulp\n", op, worst);
  }
}

TEST(CodeGenLLVMVecMath, Float64MatchesTheInterpreter) {
  for (const char* op : {"exp", "log", "tanh", "erf", "sigmoid", "exp2", "log2", "log10"}) {
    double worst = 0;
    for (int64_t lanes : {4, 8, 2, 3}) {
      worst = std::max(worst, MaxUlpError(op, DataType::Float(64), lanes, "llvm -mcpu=native", 4));
    }
    std::printf("float64 %-8s max %.0f ulp\n", op, worst);
  }
}

TEST(CodeGenLLVMVecMath, Float16IsComputedInFloat32) {
  for (const char* op : {"exp", "log", "tanh", "erf", "sigmoid"}) {
    double worst = MaxUlpError(op, DataType::Float(16), 8, "llvm -mcpu=native", 1);
    std::printf("float16 %-8s max %.0f ulp\n", op, worst);
  }
}

// The default "llvm" target is a generic x86-64 CPU: SSE2 only, 4-lane calls.
TEST(CodeGenLLVMVecMath, GenericTargetUsesTheSSEVariants) {
  for (const char* op : {"exp", "tanh"}) {
    MaxUlpError(op, DataType::Float(32), 8, "llvm", 4);
  }
  runtime::Module mod = codegen::BuildLLVM(VectorizedUnary("exp", 64, DataType::Float(32), 8));
  std::string ll = mod.mutable_node()->GetSource("ll");
  EXPECT_NE(ll.find("@_ZGVbN4v_expf("), std::string::npos) << ll;
  EXPECT_EQ(ll.find("@_ZGVdN8v_expf("), std::string::npos);
}

TEST(CodeGenLLVMVecMath, IRCallsTheAVX2Variants) {
  if (!HostHasAVX2()) GTEST_SKIP() << "the host CPU has no AVX2";
  for (const char* op : {"exp", "log", "tanh", "erf"}) {
    SCOPED_TRACE(op);
    runtime::Module mod = codegen::BuildLLVM(VectorizedUnary(op, 64, DataType::Float(32), 8),
                                             "llvm -mcpu=native -mattr=-avx512f");
    std::string ll = mod.mutable_node()->GetSource("ll");
    std::string vector_fn = std::string("_ZGVdN8v_").append(op).append("f");
    EXPECT_NE(ll.find(std::string("call contract <8 x float> @").append(vector_fn).append("(")),
              std::string::npos)
        << ll;
    // No scalar libm call and no llvm.exp intrinsic (which LLVM scalarises) is left.
    EXPECT_EQ(ll.find(std::string("@").append(op).append("f(")), std::string::npos) << ll;
    EXPECT_EQ(ll.find(std::string("@llvm.").append(op).append(".")), std::string::npos) << ll;
    EXPECT_NE(mod.mutable_node()->GetSource("asm").find(vector_fn), std::string::npos);
  }
  runtime::Module mod = codegen::BuildLLVM(VectorizedUnary("exp", 64, DataType::Float(64), 4),
                                           "llvm -mcpu=native -mattr=-avx512f");
  EXPECT_NE(mod.mutable_node()->GetSource("ll").find("@_ZGVdN4v_exp("), std::string::npos);
}

// Code for an AVX-512 CPU calls the 16-lane variants (compiled here, not run).
TEST(CodeGenLLVMVecMath, AVX512TargetUsesTheZmmVariants) {
  runtime::Module mod = codegen::BuildLLVM(VectorizedUnary("tanh", 64, DataType::Float(32), 16),
                                           "llvm -mcpu=skylake-avx512");
  EXPECT_NE(mod.mutable_node()->GetSource("ll").find("@_ZGVeN16v_tanhf("), std::string::npos);
}

// MINITVM_LLVM_VECMATH=0 brings back one libm call per lane (the benchmark's baseline).
TEST(CodeGenLLVMVecMath, EnvironmentVariableDisablesVectorMath) {
  setenv("MINITVM_LLVM_VECMATH", "0", 1);
  runtime::Module mod =
      codegen::BuildLLVM(VectorizedUnary("tanh", 64, DataType::Float(32), 8), "llvm -mcpu=native");
  unsetenv("MINITVM_LLVM_VECMATH");
  std::string ll = mod.mutable_node()->GetSource("ll");
  EXPECT_EQ(ll.find("_ZGV"), std::string::npos);
  EXPECT_NE(ll.find("@tanhf("), std::string::npos);
}

}  // namespace
}  // namespace minitvm

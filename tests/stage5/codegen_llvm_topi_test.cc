/*!
 * \file codegen_llvm_topi_test.cc
 * \brief Stage 5: every TOPI operator (the "topi.*" globals), compiled with LLVM and compared
 * with the TIR interpreter on random inputs — once as create_prim_func makes it, once with a
 * generic schedule (outermost loop parallel, innermost loop vectorized where legal).
 */
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "minitvm/codegen/llvm.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/te/create_prim_func.h"
#include "minitvm/te/operation.h"
#include "minitvm/tir/interpreter.h"
#include "minitvm/tir/schedule/schedule.h"
#include "stage5_test_util.h"

namespace minitvm {
namespace {

using namespace testing;  // NOLINT(build/namespaces)
using runtime::Registry;

double Elem(const NDArray& a, int64_t i) {
  const char* p = static_cast<const char*>(a.data()) + i * a.dtype().bytes();
  DataType t = a.dtype();
  if (t.is_float() && t.bits() == 32) return *reinterpret_cast<const float*>(p);
  if (t.is_float() && t.bits() == 64) return *reinterpret_cast<const double*>(p);
  if (t.is_bool() || (t.is_uint() && t.bits() == 8)) return *reinterpret_cast<const uint8_t*>(p);
  if (t.is_int() && t.bits() == 32) return *reinterpret_cast<const int32_t*>(p);
  if (t.is_int() && t.bits() == 64)
    return static_cast<double>(*reinterpret_cast<const int64_t*>(p));
  ADD_FAILURE() << "unsupported dtype " << t;
  return 0;
}

::testing::AssertionResult Close(const NDArray& got, const NDArray& want, double rtol,
                                 double atol) {
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    double g = Elem(got, i), w = Elem(want, i);
    if (std::isnan(g) && std::isnan(w)) continue;
    if (!(std::fabs(g - w) <= atol + rtol * std::fabs(w))) {
      return ::testing::AssertionFailure()
             << "element " << i << ": llvm " << g << " vs interpreter " << w;
    }
  }
  return ::testing::AssertionSuccess();
}

/*! \brief Random contents for an input: floats in [lo, hi), ints in [lo, hi], bools. */
NDArray Fill(const std::vector<int64_t>& shape, DataType t, std::mt19937* rng, double lo,
             double hi) {
  NDArray a = NDArray::Empty(shape, t);
  std::uniform_real_distribution<double> real(lo, hi);
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    char* p = static_cast<char*>(a.data()) + i * t.bytes();
    double v = real(*rng);
    if (t.is_float() && t.bits() == 32)
      *reinterpret_cast<float*>(p) = static_cast<float>(v);
    else if (t.is_float() && t.bits() == 64)
      *reinterpret_cast<double*>(p) = v;
    else if (t.is_bool())
      *reinterpret_cast<uint8_t*>(p) = v > (lo + hi) / 2;
    else if (t.is_int() && t.bits() == 32)
      *reinterpret_cast<int32_t*>(p) = static_cast<int32_t>(std::floor(v));
    else if (t.is_int() && t.bits() == 64)
      *reinterpret_cast<int64_t*>(p) = static_cast<int64_t>(std::floor(v));
    else
      ADD_FAILURE() << "unsupported dtype " << t;
  }
  return a;
}

std::vector<int64_t> Shape(const te::Tensor& t) {
  std::vector<int64_t> s;
  for (const PrimExpr& d : t->shape) s.push_back(*AsConstInt(d));
  return s;
}

/*! \brief An input placeholder and the range of its random values. */
struct Input {
  te::Tensor tensor;
  double lo = -1, hi = 1;
};

Input In(std::vector<int64_t> shape, DataType t = DataType::Float(32), double lo = -1,
         double hi = 1, const std::string& name = "x") {
  Array<PrimExpr> s;
  for (int64_t d : shape) s.push_back(I32(d));
  return Input{te::placeholder(s, t, name), lo, hi};
}

/*! \brief Parallel outermost, vectorize innermost loop of every block, where legal. */
IRModule GenericSchedule(const IRModule& mod) {
  tir::Schedule sch = tir::Schedule::Create(mod);
  auto blocks = sch->GetChildBlocks(sch->GetBlock("root"));
  for (const tir::BlockRV& b : blocks) {
    auto loops = sch->GetLoops(b);
    if (loops.empty()) continue;
    try {
      sch->Vectorize(loops[loops.size() - 1]);
    } catch (const Error&) {
    }
    if (loops.size() > 1) {
      try {
        sch->Parallel(loops[0]);
      } catch (const Error&) {
      }
    }
  }
  return sch->mod();
}

/*!
 * \brief Call "topi.<op>" with `args` (placeholders are taken from `inputs`), build the
 * PrimFunc of inputs → outputs, run LLVM and the interpreter, compare.
 */
void CheckOp(const std::string& op, const std::vector<Input>& inputs, std::vector<Any> args,
             double rtol = 1e-5, double atol = 1e-5) {
  SCOPED_TRACE("topi." + op);
  auto f = Registry::Get("topi." + op);
  if (!f) GTEST_SKIP() << "topi." << op << " is not registered";
  Any result;
  f->CallPacked(runtime::PackedArgs(args.data(), static_cast<int>(args.size())), &result);
  std::vector<te::Tensor> outputs;
  if (auto* arr = result.as<runtime::ArrayNode>()) {
    for (const Any& t : arr->data) outputs.push_back(t.cast<te::Tensor>());
  } else {
    outputs.push_back(result.cast<te::Tensor>());
  }
  Array<te::Tensor> all;
  for (const Input& in : inputs) all.push_back(in.tensor);
  for (const te::Tensor& t : outputs) all.push_back(t);
  PrimFunc func = WithAttr(te::CreatePrimFunc(all), "global_symbol", String("main"));
  std::mt19937 rng(std::hash<std::string>()(op) & 0xffff);
  std::vector<NDArray> in_arrays;
  for (const Input& in : inputs)
    in_arrays.push_back(Fill(Shape(in.tensor), in.tensor->dtype, &rng, in.lo, in.hi));
  auto run = [&](const std::function<void(runtime::PackedArgs)>& fn) {
    std::vector<Any> values;
    for (const NDArray& a : in_arrays) values.emplace_back(a);
    std::vector<NDArray> outs;
    for (const te::Tensor& t : outputs) {
      outs.push_back(NDArray::Empty(Shape(t), t->dtype));
      std::memset(outs.back().data(), 0, outs.back().NBytes());
      values.emplace_back(outs.back());
    }
    fn(runtime::PackedArgs(values.data(), static_cast<int>(values.size())));
    return outs;
  };
  tir::Interpreter interp(func);
  std::vector<NDArray> want = run([&](runtime::PackedArgs a) { interp.Run(a); });
  IRModule mod = ModuleOf(func);
  for (const IRModule& variant : {mod, GenericSchedule(mod)}) {
    runtime::Module built = codegen::BuildLLVM(variant, "llvm -mcpu=native");
    runtime::PackedFunc main = built["main"];
    std::vector<NDArray> got = run([&](runtime::PackedArgs a) {
      Any rv;
      main.CallPacked(a, &rv);
    });
    for (size_t k = 0; k < got.size(); ++k)
      EXPECT_TRUE(Close(got[k], want[k], rtol, atol)) << "output " << k;
  }
}

const DataType kF32 = DataType::Float(32);
const DataType kI32 = DataType::Int(32);

TEST(CodeGenLLVMTopi, Elementwise) {
  for (const char* op : {"negative", "abs", "exp", "tanh", "sigmoid", "erf", "floor", "ceil",
                         "round", "sign", "identity", "nn.relu"}) {
    Input x = In({3, 37});
    CheckOp(op, {x}, {x.tensor}, 1e-5, 1e-6);
  }
  for (const char* op : {"log", "sqrt", "rsqrt"}) {
    Input x = In({5, 19}, kF32, 0.1, 4.0);
    CheckOp(op, {x}, {x.tensor}, 1e-5, 1e-6);
  }
  Input b = In({4, 9}, DataType::Bool());
  CheckOp("logical_not", {b}, {b.tensor});
  Input x = In({6, 20});
  CheckOp("nn.leaky_relu", {x}, {x.tensor, 0.1});
  CheckOp("nn.gelu", {x}, {x.tensor, "none"}, 1e-5, 1e-6);
  CheckOp("nn.gelu", {x}, {x.tensor, "tanh"}, 1e-5, 1e-6);
  CheckOp("clip", {x}, {x.tensor, -0.3, 0.5});
  CheckOp("cast", {x}, {x.tensor, DataType::Int(32)});
  CheckOp("full_like", {x}, {x.tensor, 2.5});
}

TEST(CodeGenLLVMTopi, Binary) {
  Input a = In({4, 1, 17}, kF32, -2, 2, "a"), b = In({3, 17}, kF32, -2, 2, "b");
  for (const char* op : {"add", "subtract", "multiply", "maximum", "minimum", "equal", "not_equal",
                         "less", "less_equal", "greater", "greater_equal"}) {
    CheckOp(op, {a, b}, {a.tensor, b.tensor});
  }
  Input d = In({3, 17}, kF32, 0.5, 2, "d");
  for (const char* op : {"divide", "floor_divide", "floor_mod", "mod"}) {
    CheckOp(op, {a, d}, {a.tensor, d.tensor}, 1e-5, 1e-5);
  }
  Input p = In({4, 1, 17}, kF32, 0.1, 2, "p");
  CheckOp("power", {p, b}, {p.tensor, b.tensor}, 1e-5, 1e-5);
  Input ia = In({5, 13}, kI32, -50, 50, "ia"), id = In({5, 13}, kI32, 1, 9, "id");
  for (const char* op :
       {"add", "multiply", "floor_divide", "floor_mod", "mod", "divide", "maximum"}) {
    CheckOp(op, {ia, id}, {ia.tensor, id.tensor});
  }
  Input l = In({8, 3}, DataType::Bool(), 0, 1, "l"), r = In({8, 3}, DataType::Bool(), 0, 1, "r");
  for (const char* op : {"logical_and", "logical_or", "logical_xor"})
    CheckOp(op, {l, r}, {l.tensor, r.tensor});
  CheckOp("add", {a}, {a.tensor, 1.5});
  Input c = In({3, 17}, DataType::Bool(), 0, 1, "c");
  CheckOp("where", {c, a, b}, {c.tensor, a.tensor, b.tensor});
}

TEST(CodeGenLLVMTopi, Reductions) {
  Input x = In({5, 7, 33});
  for (const char* op : {"sum", "max", "min", "prod", "mean"}) {
    CheckOp(op, {x}, {x.tensor, Array<Any>{1}, false}, 1e-5, 1e-5);
    CheckOp(op, {x}, {x.tensor, Array<Any>{0, 2}, true}, 1e-4, 1e-5);
    CheckOp(op, {x}, {x.tensor, Any(), false}, 1e-4, 1e-5);
  }
  CheckOp("argmax", {x}, {x.tensor, 2, false});
  CheckOp("argmin", {x}, {x.tensor, 1, true});
}

TEST(CodeGenLLVMTopi, Transforms) {
  Input x = In({2, 3, 4, 5});
  CheckOp("reshape", {x}, {x.tensor, Array<PrimExpr>{I32(6), I32(20)}});
  CheckOp("transpose", {x}, {x.tensor, Array<Any>{3, 1, 0, 2}});
  CheckOp("flatten", {x}, {x.tensor, 1, -1});
  CheckOp("nn.batch_flatten", {x}, {x.tensor});
  Input s = In({1, 3, 1});
  CheckOp("squeeze", {s}, {s.tensor, Any()});
  CheckOp("expand_dims", {x}, {x.tensor, 1, 2});
  CheckOp("expand_dims_axes", {x}, {x.tensor, Array<Any>{0, 5}});
  CheckOp("broadcast_to", {s}, {s.tensor, Array<PrimExpr>{I32(4), I32(3), I32(6)}});
  Input y = In({2, 3, 2, 5}, kF32, -1, 1, "y");
  CheckOp("concatenate", {x, y}, {Array<te::Tensor>{x.tensor, y.tensor}, 2});
  CheckOp("split", {x}, {x.tensor, 5, 3});
  CheckOp("split", {x}, {x.tensor, Array<Any>{1, 3}, 2});
  CheckOp("strided_slice", {x},
          {x.tensor, Array<Any>{0, 1, 3, 0}, Array<Any>{2, 3, 0, 5}, Array<Any>{1, 1, -1, 2}});
  Input idx = In({4, 2}, kI32, 0, 2.99, "idx");
  CheckOp("take", {x, idx}, {x.tensor, idx.tensor, 1, "clip"});
  CheckOp("take", {x, idx}, {x.tensor, idx.tensor, Any(), "clip"});
  CheckOp("nn.pad", {x},
          {x.tensor, Array<PrimExpr>{I32(0), I32(1), I32(2), I32(0)},
           Array<PrimExpr>{I32(0), I32(0), I32(1), I32(3)}, PrimExpr(0.5f), "constant"});
  CheckOp("full", {}, {Array<PrimExpr>{I32(3), I32(7)}, kF32, PrimExpr(1.25f)});
  CheckOp("arange", {}, {0.0, 10.0, 0.5, kF32});
}

TEST(CodeGenLLVMTopi, MatmulDenseConv) {
  Input a = In({17, 23}, kF32, -1, 1, "a"), b = In({23, 9}, kF32, -1, 1, "b");
  CheckOp("matmul", {a, b}, {a.tensor, b.tensor, false, false, Any()}, 1e-4, 1e-5);
  Input bt = In({9, 23}, kF32, -1, 1, "bt");
  CheckOp("matmul", {a, bt}, {a.tensor, bt.tensor, false, true, Any()}, 1e-4, 1e-5);
  Input bias = In({9}, kF32, -1, 1, "bias");
  CheckOp("nn.dense", {a, bt, bias}, {a.tensor, bt.tensor, bias.tensor, Any()}, 1e-4, 1e-5);
  Input x = In({3, 5, 7}, kF32, -1, 1, "x"), y = In({3, 7, 4}, kF32, -1, 1, "y");
  CheckOp("nn.batch_matmul", {x, y}, {x.tensor, y.tensor, false, false, Any()}, 1e-4, 1e-5);
  Input data = In({2, 3, 9, 10}, kF32, -1, 1, "data"), w = In({4, 3, 3, 3}, kF32, -1, 1, "w");
  CheckOp("nn.conv2d_nchw", {data, w},
          {data.tensor, w.tensor, Array<Any>{1, 1}, Array<Any>{1, 1}, Array<Any>{1, 1}, 1, Any()},
          1e-4, 1e-5);
  CheckOp("nn.conv2d_nchw", {data, w},
          {data.tensor, w.tensor, Array<Any>{2, 2}, Array<Any>{0, 1}, Array<Any>{1, 1}, 1, Any()},
          1e-4, 1e-5);
  Input wt = In({3, 2, 3, 3}, kF32, -1, 1, "wt");
  CheckOp("nn.conv2d_transpose_nchw", {data, wt},
          {data.tensor, wt.tensor, Array<Any>{2, 2}, Array<Any>{1, 1}, Array<Any>{1, 1},
           Array<Any>{1, 1}, 1, Any()},
          1e-4, 1e-5);
}

TEST(CodeGenLLVMTopi, NormalizationPoolingSoftmax) {
  Input x = In({2, 3, 8, 9});
  CheckOp("nn.softmax", {x}, {x.tensor, -1}, 1e-5, 1e-6);
  CheckOp("nn.softmax", {x}, {x.tensor, 1}, 1e-5, 1e-6);
  CheckOp("nn.log_softmax", {x}, {x.tensor, -1}, 1e-5, 1e-5);
  CheckOp("nn.pool2d", {x},
          {x.tensor, Array<Any>{2, 2}, Array<Any>{2, 2}, Array<Any>{1, 1}, Array<Any>{0, 0, 1, 1},
           "max", false, true});
  CheckOp("nn.pool2d", {x},
          {x.tensor, Array<Any>{3, 3}, Array<Any>{1, 1}, Array<Any>{1, 1}, Array<Any>{1, 1, 1, 1},
           "avg", false, false},
          1e-5, 1e-6);
  CheckOp("nn.adaptive_pool", {x}, {x.tensor, Array<Any>{3, 4}, "avg"}, 1e-5, 1e-6);
  Input g = In({3}, kF32, 0.5, 1.5, "g"), bt = In({3}, kF32, -1, 1, "bt"),
        m = In({3}, kF32, -1, 1, "m"), v = In({3}, kF32, 0.5, 2, "v");
  CheckOp("nn.batch_norm", {x, g, bt, m, v},
          {x.tensor, g.tensor, bt.tensor, m.tensor, v.tensor, 1, 1e-5, true, true}, 1e-5, 1e-5);
  Input lg = In({9}, kF32, 0.5, 1.5, "lg"), lb = In({9}, kF32, -1, 1, "lb");
  CheckOp("nn.layer_norm", {x, lg, lb}, {x.tensor, lg.tensor, lb.tensor, Array<Any>{-1}, 1e-5},
          1e-4, 1e-5);
}

}  // namespace
}  // namespace minitvm

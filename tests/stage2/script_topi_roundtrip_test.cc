/*!
 * \file script_topi_roundtrip_test.cc
 * \brief Round trip of every TE operator of the topi library through TVMScript (stage 2):
 * for each op, `te.create_prim_func` of its inputs and outputs is printed, parsed, printed
 * again — the texts must be equal and the parsed PrimFunc structurally equal to the original.
 * Static and symbolic shapes, float and integer dtypes.
 */
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "script_test_util.h"

#if __has_include("minitvm/topi/topi.h")
#include "minitvm/te/create_prim_func.h"
#include "minitvm/te/operation.h"
#include "minitvm/topi/topi.h"

namespace minitvm {
namespace {

using te::placeholder;
using te::Tensor;
using Case = std::pair<std::string, std::function<Array<Tensor>()>>;

Tensor F32(const Array<PrimExpr>& shape, const std::string& name) {
  return placeholder(shape, DataType::Float(32), name);
}

std::vector<Case> TopiCases() {
  std::vector<Case> cases;
  auto add = [&](std::string name, std::function<Array<Tensor>()> f) {
    cases.emplace_back(std::move(name), std::move(f));
  };
  // Element-wise unary ops.
  std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>> unary = {
      {"negative", [](const Tensor& x) { return topi::negative(x); }},
      {"abs", [](const Tensor& x) { return topi::abs(x); }},
      {"exp", [](const Tensor& x) { return topi::exp(x); }},
      {"log", [](const Tensor& x) { return topi::log(x); }},
      {"sqrt", [](const Tensor& x) { return topi::sqrt(x); }},
      {"rsqrt", [](const Tensor& x) { return topi::rsqrt(x); }},
      {"tanh", [](const Tensor& x) { return topi::tanh(x); }},
      {"sigmoid", [](const Tensor& x) { return topi::sigmoid(x); }},
      {"erf", [](const Tensor& x) { return topi::erf(x); }},
      {"floor", [](const Tensor& x) { return topi::floor(x); }},
      {"ceil", [](const Tensor& x) { return topi::ceil(x); }},
      {"round", [](const Tensor& x) { return topi::round(x); }},
      {"sign", [](const Tensor& x) { return topi::sign(x); }},
      {"identity", [](const Tensor& x) { return topi::identity(x); }},
      {"relu", [](const Tensor& x) { return topi::nn::relu(x); }},
      {"leaky_relu", [](const Tensor& x) { return topi::nn::leaky_relu(x, 0.1); }},
      {"gelu", [](const Tensor& x) { return topi::nn::gelu(x); }},
      {"gelu_tanh", [](const Tensor& x) { return topi::nn::gelu(x, "tanh"); }},
      {"softmax", [](const Tensor& x) { return topi::nn::softmax(x); }},
      {"log_softmax", [](const Tensor& x) { return topi::nn::log_softmax(x, 0); }},
      {"cast_int8", [](const Tensor& x) { return topi::cast(x, DataType::Int(8)); }},
      {"clip", [](const Tensor& x) { return topi::clip(x, PrimExpr(-1.0), PrimExpr(1.0)); }},
      {"sum", [](const Tensor& x) { return topi::sum(x, std::vector<int64_t>{1}); }},
      {"max_all", [](const Tensor& x) { return topi::max(x); }},
      {"min_keep", [](const Tensor& x) { return topi::min(x, std::vector<int64_t>{0}, true); }},
      {"prod", [](const Tensor& x) { return topi::prod(x, std::vector<int64_t>{-1}); }},
      {"mean",
       [](const Tensor& x) {
         return topi::mean(x, std::vector<int64_t>{0, 1});
       }},
      {"argmax", [](const Tensor& x) { return topi::argmax(x, 1); }},
      {"argmin", [](const Tensor& x) { return topi::argmin(x, 0, true); }},
      {"reshape",
       [](const Tensor& x) {
         return topi::reshape(x, {12, 2});
       }},
      {"transpose", [](const Tensor& x) { return topi::transpose(x); }},
      {"flatten", [](const Tensor& x) { return topi::flatten(x); }},
      {"expand_dims",
       [](const Tensor& x) { return topi::expand_dims(x, std::vector<int64_t>{0}); }},
      {"pad",
       [](const Tensor& x) {
         return topi::pad(x, {1, 2});
       }},
      {"strided_slice",
       [](const Tensor& x) {
         return topi::strided_slice(x, {0, 1}, {4, 5}, {2, 2});
       }},
      {"batch_flatten", [](const Tensor& x) { return topi::nn::batch_flatten(x); }},
  };
  for (auto& [name, f] : unary) {
    add(name, [f = f]() {
      Tensor x = F32({4, 6}, "x");
      return Array<Tensor>{x, f(x)};
    });
  }
  add("logical_not", [] {
    Tensor x = placeholder({8}, DataType::Bool(), "x");
    return Array<Tensor>{x, topi::logical_not(x)};
  });
  // Broadcasting binary ops, also with a symbolic batch.
  std::vector<std::pair<std::string, std::function<Tensor(const Tensor&, const Tensor&)>>> binary =
      {
          {"add", [](const Tensor& a, const Tensor& b) { return topi::add(a, b); }},
          {"subtract", [](const Tensor& a, const Tensor& b) { return topi::subtract(a, b); }},
          {"multiply", [](const Tensor& a, const Tensor& b) { return topi::multiply(a, b); }},
          {"divide", [](const Tensor& a, const Tensor& b) { return topi::divide(a, b); }},
          {"floor_divide",
           [](const Tensor& a, const Tensor& b) { return topi::floor_divide(a, b); }},
          {"mod", [](const Tensor& a, const Tensor& b) { return topi::mod(a, b); }},
          {"floor_mod", [](const Tensor& a, const Tensor& b) { return topi::floor_mod(a, b); }},
          {"power", [](const Tensor& a, const Tensor& b) { return topi::power(a, b); }},
          {"maximum", [](const Tensor& a, const Tensor& b) { return topi::maximum(a, b); }},
          {"minimum", [](const Tensor& a, const Tensor& b) { return topi::minimum(a, b); }},
          {"equal", [](const Tensor& a, const Tensor& b) { return topi::equal(a, b); }},
          {"not_equal", [](const Tensor& a, const Tensor& b) { return topi::not_equal(a, b); }},
          {"less", [](const Tensor& a, const Tensor& b) { return topi::less(a, b); }},
          {"less_equal", [](const Tensor& a, const Tensor& b) { return topi::less_equal(a, b); }},
          {"greater", [](const Tensor& a, const Tensor& b) { return topi::greater(a, b); }},
          {"greater_equal",
           [](const Tensor& a, const Tensor& b) { return topi::greater_equal(a, b); }},
          {"matmul",
           [](const Tensor& a, const Tensor& b) { return topi::matmul(a, b, false, true); }},
      };
  for (auto& [name, f] : binary) {
    add(name, [f = f]() {
      Tensor a = F32({4, 6}, "a");
      Tensor b = F32({1, 6}, "b");
      return Array<Tensor>{a, b, f(a, b)};
    });
    add(name + "_symbolic", [f = f]() {
      tir::Var n = te::var("n");
      Tensor a = F32({n, 6}, "a");
      Tensor b = F32({6}, "b");
      return Array<Tensor>{a, b, f(a, b)};
    });
    add(name + "_int", [f = f]() {
      Tensor a = placeholder({3, 5}, DataType::Int(32), "a");
      Tensor b = placeholder({3, 5}, DataType::Int(32), "b");
      return Array<Tensor>{a, b, f(a, b)};
    });
  }
  for (const char* logic : {"logical_and", "logical_or", "logical_xor"}) {
    add(logic, [name = std::string(logic)]() {
      Tensor a = placeholder({8}, DataType::Bool(), "a");
      Tensor b = placeholder({8}, DataType::Bool(), "b");
      Tensor c = name == "logical_and"  ? topi::logical_and(a, b)
                 : name == "logical_or" ? topi::logical_or(a, b)
                                        : topi::logical_xor(a, b);
      return Array<Tensor>{a, b, c};
    });
  }
  add("broadcast_to", [] {
    Tensor x = F32({1, 4}, "x");
    return Array<Tensor>{x, topi::broadcast_to(x, {3, 4})};
  });
  add("full", [] { return Array<Tensor>{topi::full({2, 3}, DataType::Float(16), PrimExpr(0.5))}; });
  add("arange", [] { return Array<Tensor>{topi::arange(0, 10, 2)}; });
  add("concatenate", [] {
    Tensor a = F32({2, 3}, "a"), b = F32({4, 3}, "b");
    return Array<Tensor>{a, b, topi::concatenate({a, b})};
  });
  add("split", [] {
    Tensor x = F32({6, 2}, "x");
    Array<Tensor> parts = topi::split_sections(x, 3);
    return Array<Tensor>{x, parts[0], parts[1], parts[2]};
  });
  add("squeeze", [] {
    Tensor x = F32({1, 4, 1}, "x");
    return Array<Tensor>{x, topi::squeeze(x)};
  });
  add("take", [] {
    Tensor x = F32({5, 3}, "x");
    Tensor i = placeholder({4}, DataType::Int(64), "i");
    return Array<Tensor>{x, i, topi::take(x, i, 0)};
  });
  add("where", [] {
    Tensor c = placeholder({4}, DataType::Bool(), "c");
    Tensor x = F32({4}, "x"), y = F32({4}, "y");
    return Array<Tensor>{c, x, y, topi::where(c, x, y)};
  });
  add("dense", [] {
    Tensor x = F32({8, 16}, "x"), w = F32({4, 16}, "w"), b = F32({4}, "b");
    return Array<Tensor>{x, w, b, topi::nn::dense(x, w, b)};
  });
  add("batch_matmul", [] {
    Tensor x = F32({2, 3, 5}, "x"), y = F32({2, 4, 5}, "y");
    return Array<Tensor>{x, y, topi::nn::batch_matmul(x, y)};
  });
  add("conv2d_nchw", [] {
    Tensor x = F32({1, 3, 8, 8}, "x"), w = F32({4, 3, 3, 3}, "w");
    return Array<Tensor>{x, w, topi::nn::conv2d_nchw(x, w, {1}, {1})};
  });
  add("conv2d_grouped_strided", [] {
    Tensor x = F32({2, 4, 9, 9}, "x"), w = F32({4, 2, 3, 3}, "w");
    return Array<Tensor>{x, w, topi::nn::conv2d_nchw(x, w, {2}, {0, 1}, {1}, 2)};
  });
  add("conv2d_transpose_nchw", [] {
    Tensor x = F32({1, 2, 4, 4}, "x"), w = F32({2, 3, 3, 3}, "w");
    return Array<Tensor>{x, w, topi::nn::conv2d_transpose_nchw(x, w, {2}, {1})};
  });
  add("max_pool2d", [] {
    Tensor x = F32({1, 2, 8, 8}, "x");
    return Array<Tensor>{x, topi::nn::pool2d(x, {3}, {2}, {1}, {1}, "max")};
  });
  add("avg_pool2d", [] {
    Tensor x = F32({1, 2, 7, 7}, "x");
    return Array<Tensor>{x, topi::nn::pool2d(x, {2}, {2}, {1}, {0}, "avg", true, false)};
  });
  add("adaptive_pool", [] {
    Tensor x = F32({1, 2, 7, 7}, "x");
    return Array<Tensor>{x, topi::nn::adaptive_pool(x, {1})};
  });
  add("batch_norm", [] {
    Tensor x = F32({2, 3, 4, 4}, "x");
    Tensor g = F32({3}, "g"), b = F32({3}, "b"), m = F32({3}, "m"), v = F32({3}, "v");
    return Array<Tensor>{x, g, b, m, v, topi::nn::batch_norm(x, g, b, m, v)[0]};
  });
  add("layer_norm", [] {
    Tensor x = F32({2, 8}, "x"), g = F32({8}, "g"), b = F32({8}, "b");
    return Array<Tensor>{x, g, b, topi::nn::layer_norm(x, g, b)};
  });
  return cases;
}

TEST(ScriptTopiRoundTrip, EveryOperator) {
  int checked = 0;
  for (const auto& [name, make] : TopiCases()) {
    SCOPED_TRACE(name);
    Array<Tensor> args;
    tir::PrimFunc f;
    try {
      args = make();
      f = te::CreatePrimFunc(args);
    } catch (const Error& e) {
      ADD_FAILURE() << "building " << name << " failed: " << e.what();
      continue;
    }
    testing::CheckRoundTrip(f);
    ++checked;
  }
  EXPECT_GT(checked, 80);
}

}  // namespace
}  // namespace minitvm
#endif  // __has_include("minitvm/topi/topi.h")

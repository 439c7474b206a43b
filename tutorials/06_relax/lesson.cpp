/*!
 * \file lesson.cpp
 * \brief Lesson 6 (C++): Relax from C++ — the course MLP as an IRModule parsed from TVMScript,
 * built with the BlockBuilder, run by the reference interpreter, calling C++ library functions
 * through call_dps_packed, with its weights bound as constants (stage 4).
 */
// Lesson 6 (C++): Relax from C++
// ===============================
//
// lesson.py told the story in Python. The same pieces are C++ APIs (Python only calls them):
//
//   1. the reference: lownumpy's MLP (stage 1);
//   2. the MLP as TVMScript text, parsed by `script::FromSource` into an IRModule holding
//      PrimFuncs and a Relax function, and printed back;
//   3. the module run by `relax::Interpret`: call_tir through the TIR interpreter;
//   4. the same network built with the `BlockBuilder` from high-level operators
//      (`relax::op::matmul`, `add`, `nn::relu`): every binding's struct info is inferred as it
//      is emitted, and the interpreter runs each operator through its lownumpy reference;
//   5. `call_dps_packed` to functions registered from C++;
//   6. the weights bound as constants with `BindParams`;
//   7. what happens with a wrong argument.
//
// Build and run it with `ctest -L tutorial` (or run build/bin/tutorial_06_relax).
#include <cmath>
#include <iostream>
#include <string>

#include "minitvm/lownumpy/lownumpy.h"
#include "minitvm/relax/analysis.h"
#include "minitvm/relax/block_builder.h"
#include "minitvm/relax/interpreter.h"
#include "minitvm/relax/op.h"
#include "minitvm/relax/transform.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/script/tir_parser.h"
#include "minitvm/script/tir_printer.h"

using minitvm::Error;
using minitvm::IRModule;
using minitvm::runtime::Any;
using minitvm::runtime::NDArray;
using minitvm::runtime::Registry;
namespace lnp = minitvm::lownumpy;
namespace relax = minitvm::relax;
namespace script = minitvm::script;

namespace {
/*! \brief The largest absolute difference of two float32 arrays of one shape. */
double MaxAbsDiff(const NDArray& a, const NDArray& b) {
  const float* pa = static_cast<const float*>(a->data);
  const float* pb = static_cast<const float*>(b->data);
  double worst = 0;
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    worst = std::max(worst, std::abs(double(pa[i]) - double(pb[i])));
  }
  return worst;
}

void Check(const char* what, const NDArray& got, const NDArray& expected) {
  double d = MaxAbsDiff(got, expected);
  std::cout << what << ": max |difference| to lownumpy " << (d < 1e-5 ? "< 1e-5" : "TOO LARGE")
            << "\n";
  if (d >= 1e-5) throw std::runtime_error(std::string(what) + " differs from the reference");
}

void PrintLogits(const char* what, const NDArray& out) {
  const float* p = static_cast<const float*>(out->data);
  std::cout << what << ":";
  char buf[32];
  for (int i = 0; i < 10; ++i) {
    std::snprintf(buf, sizeof(buf), " %.3f", p[i]);
    std::cout << buf;
  }
  std::cout << "\n";
}
}  // namespace

// The course MLP as TVMScript: two PrimFuncs and a Relax `main` calling them with call_tir in a
// dataflow block. (lesson.py writes the same module with Python decorators.)
static const char* kMLPScript = R"(
from minitvm.script import ir as I, relax as R, tir as T

@I.ir_module
class MyModule:
    @T.prim_func
    def linear(x: T.handle, w: T.handle, b: T.handle, z: T.handle):
        m = T.int64()
        n = T.int64()
        X = T.match_buffer(x, (1, m), "float32")
        W = T.match_buffer(w, (n, m), "float32")
        B = T.match_buffer(b, (n,), "float32")
        Z = T.match_buffer(z, (1, n), "float32")
        for i, j, k in T.grid(1, n, m):
            with T.block("Z"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Z[vi, vj] = B[vj]
                Z[vi, vj] = Z[vi, vj] + X[vi, vk] * W[vj, vk]

    @T.prim_func
    def relu(x: T.handle, y: T.handle):
        n = T.int64()
        X = T.match_buffer(x, (1, n), "float32")
        Y = T.match_buffer(y, (1, n), "float32")
        for i, j in T.grid(1, n):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @R.function
    def main(x: R.Tensor((1, 784), "float32"), w0: R.Tensor((128, 784), "float32"),
             b0: R.Tensor((128,), "float32"), w1: R.Tensor((10, 128), "float32"),
             b1: R.Tensor((10,), "float32")):
        cls = MyModule
        with R.dataflow():
            lv0 = R.call_tir(cls.linear, (x, w0, b0), out_sinfo=R.Tensor((1, 128), "float32"))
            lv1 = R.call_tir(cls.relu, (lv0,), out_sinfo=R.Tensor((1, 128), "float32"))
            out = R.call_tir(cls.linear, (lv1, w1, b1), out_sinfo=R.Tensor((1, 10), "float32"))
            R.output(out)
        return out
)";

int main() {
  try {
    // ---------------------------------------------------------------------------------------
    // 1. The reference
    // ---------------------------------------------------------------------------------------
    lnp::Params params = lnp::MLPInitParams(784, 128, 10, /*seed=*/0);
    NDArray data = lnp::random_uniform({1, 784}, 0.0, 1.0, /*seed=*/1);
    NDArray w0 = params["w0"], b0 = params["b0"], w1 = params["w1"], b1 = params["b1"];
    NDArray reference = lnp::MLP(data, params);
    PrintLogits("lownumpy MLP logits", reference);

    // ---------------------------------------------------------------------------------------
    // 2. Parse the module. The PrimFuncs take symbolic sizes (m, n), so one `linear` serves
    //    both layers: call_tir binds them from the buffers it is given.
    // ---------------------------------------------------------------------------------------
    IRModule mod = script::ParseModule(kMLPScript, "mlp.py");
    std::cout << "functions in the module:";
    for (const auto& gv : mod->GetGlobalVars()) std::cout << " " << gv->name_hint.str();
    std::cout << "\nwell formed: " << (relax::WellFormed(mod) ? "yes" : "no") << "\n";
    std::cout << script::AsScript(mod->Lookup("main")) << "\n";

    // ---------------------------------------------------------------------------------------
    // 3. Run it with the reference interpreter.
    // ---------------------------------------------------------------------------------------
    Any out = relax::Interpret(mod, "main", {data, w0, b0, w1, b1});
    Check("call_tir module", out.cast<NDArray>(), reference);

    // ---------------------------------------------------------------------------------------
    // 4. Build the same network with the BlockBuilder from high-level operators.
    // ---------------------------------------------------------------------------------------
    auto tensor = [](std::vector<int64_t> shape) {
      minitvm::runtime::Array<minitvm::PrimExpr> dims;
      for (int64_t d : shape) dims.push_back(minitvm::IntImm(minitvm::DataType::Int(64), d));
      return relax::TensorStructInfo(relax::ShapeExpr(dims), minitvm::DataType::Float(32));
    };
    relax::Var x("x", tensor({1, 784})), vw0("w0", tensor({128, 784})), vb0("b0", tensor({128}));
    relax::Var vw1("w1", tensor({10, 128})), vb1("b1", tensor({10}));
    relax::BlockBuilder bb;
    bb.BeginFunction("main", {x, vw0, vb0, vw1, vb1});
    bb.BeginDataflowBlock();
    relax::Var lv0 = bb.Emit(relax::op::matmul(x, relax::op::permute_dims(vw0)));
    relax::Var lv1 = bb.Emit(relax::op::add(lv0, vb0));
    relax::Var lv2 = bb.Emit(relax::op::nn::relu(lv1));
    relax::Var lv3 = bb.Emit(relax::op::matmul(lv2, relax::op::permute_dims(vw1)));
    relax::Var gv = bb.EmitOutput(relax::op::add(lv3, vb1));
    bb.EndBlock();
    bb.EmitFuncOutput(gv);
    IRModule built = bb.Get();
    // Nested calls were bound to their own variables, and every variable has struct info.
    std::cout << script::AsScript(built) << "\n";
    out = relax::Interpret(built, "main", {data, w0, b0, w1, b1});
    Check("BlockBuilder module (high-level ops)", out.cast<NDArray>(), reference);

    // ---------------------------------------------------------------------------------------
    // 5. Library functions: call_dps_packed reaches any registered function by name. These
    //    two are C++ lambdas over lownumpy, writing into the output they are handed.
    // ---------------------------------------------------------------------------------------
    Registry::Register("env.linear", true)
        .set_body_typed([](NDArray x, NDArray w, NDArray b, NDArray out) {
          out.CopyFrom(lnp::linear(x, w, b));
        });
    Registry::Register("env.relu", true).set_body_typed([](NDArray x, NDArray out) {
      out.CopyFrom(lnp::relu(x));
    });
    IRModule extern_mod = script::ParseModule(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 784), "float32"), w0: R.Tensor((128, 784), "float32"),
             b0: R.Tensor((128,), "float32"), w1: R.Tensor((10, 128), "float32"),
             b1: R.Tensor((10,), "float32")):
        with R.dataflow():
            lv0 = R.call_dps_packed("env.linear", (x, w0, b0), R.Tensor((1, 128), "float32"))
            lv1 = R.call_dps_packed("env.relu", (lv0,), R.Tensor((1, 128), "float32"))
            out = R.call_dps_packed("env.linear", (lv1, w1, b1), R.Tensor((1, 10), "float32"))
            R.output(out)
        return out
)");
    out = relax::Interpret(extern_mod, "main", {data, w0, b0, w1, b1});
    Check("call_dps_packed module", out.cast<NDArray>(), reference);

    // ---------------------------------------------------------------------------------------
    // 6. Bind the weights: main then takes the data only.
    // ---------------------------------------------------------------------------------------
    minitvm::runtime::Map<Any, NDArray> bind;
    bind.Set(Any(minitvm::runtime::String("w0")), w0);
    bind.Set(Any(minitvm::runtime::String("b0")), b0);
    bind.Set(Any(minitvm::runtime::String("w1")), w1);
    bind.Set(Any(minitvm::runtime::String("b1")), b1);
    IRModule bound = relax::transform::BindParams("main", bind)(mod);
    std::cout << script::AsScript(bound->Lookup("main")) << "\n";
    out = relax::Interpret(bound, "main", {data});
    Check("bound parameters", out.cast<NDArray>(), reference);
    PrintLogits("Relax MLP logits", out.cast<NDArray>());

    // ---------------------------------------------------------------------------------------
    // 7. A wrong argument is refused before anything runs, naming the parameter.
    // ---------------------------------------------------------------------------------------
    try {
      relax::Interpret(bound, "main", {lnp::random_uniform({2, 784}, 0.0, 1.0, 2)});
      std::cout << "a wrong shape was accepted!\n";
      return 1;
    } catch (const Error& e) {
      std::cout << e.kind() << ": " << e.what() << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "FAILED: " << e.what() << "\n";
    return 1;
  }
  std::cout << "OK: the Relax MLP (parsed, built with the BlockBuilder, calling C++ library "
               "functions, with bound weights) equals lownumpy's MLP\n";
  return 0;
}

/*!
 * \file lesson.cpp
 * \brief Lesson 3 (C++): TensorIR from C++ — vector add and mm_relu built node by node with
 * the IR API and with tensor expressions, printed, run by the TIR interpreter and checked
 * against plain loops and the lownumpy reference (stage 2).
 */
// Lesson 3 (C++): building TensorIR in C++
// =========================================
//
// lesson.py built its functions with tensor expressions. A compiler written in C++ also
// builds IR directly, node by node; this lesson does both:
//
//   1. vector add (B[i] = A[i] + 1) written with the IR API: a Buffer per array, a loop, a
//      block with its iterator, reads and writes, the PrimFunc;
//   2. mm_relu (C = relu(A @ B)) the same way, with a reduction block and its init;
//   3. mm_relu with tensor expressions (te::compute + te::create_prim_func) — the same IR;
//   4. running them with the TIR interpreter, through driver::Build(..., Target("ref")),
//      and comparing with loops over the arrays and with "lownumpy.matmul"/"lownumpy.relu".
//
// Build and run it with `ctest -L tutorial` (or run build/bin/tutorial_03_tensorir).
#include <cmath>
#include <iostream>
#include <random>
#include <string>

#include "minitvm/driver/build.h"
#include "minitvm/ir/module.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/reflection.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/te/create_prim_func.h"
#include "minitvm/tir/analysis/block_access.h"
#include "minitvm/tir/op.h"

using namespace minitvm;       // NOLINT(build/namespaces): a lesson reads better unqualified
using namespace minitvm::tir;  // NOLINT(build/namespaces)
using runtime::NDArray;
using runtime::Registry;

// Print IR as TVMScript when the printer is built in, else with the generic repr.
void Show(const ObjectRef& node) {
  if (auto printer = Registry::Get("script.AsScript")) {
    std::cout << (*printer)(node).cast<std::string>() << std::endl;
  } else {
    std::cout << runtime::Repr(node) << std::endl;
  }
}

// -----------------------------------------------------------------------------------------
// 1. Vector add with the IR API
// -----------------------------------------------------------------------------------------
// Every piece of the printed TVMScript is a node we construct:
//   - decl_buffer gives a Buffer (name, shape, dtype) with its own data pointer variable;
//   - the PrimFunc's parameters are handle variables, bound to the buffers by buffer_map;
//   - the block has one spatial iterator vi over [0, 8), bound to the loop variable i by its
//     BlockRealize; its reads and writes are detected from the body by GetBlockAccessRegion.
PrimFunc VectorAdd() {
  Buffer A = decl_buffer({8}, DataType::Float(32), "A");
  Buffer B = decl_buffer({8}, DataType::Float(32), "B");
  Var a("a", DataType::Handle()), b("b", DataType::Handle());
  Var i("i"), vi("vi");
  Stmt store = BufferStore(B, A(Array<PrimExpr>{vi}) + 1.0f, {vi});
  Block proto({IterVar(Range(0, 8), vi, kDataPar)}, {}, {}, "B", store);
  BlockAccessRegion access = GetBlockAccessRegion(proto);
  Block block({IterVar(Range(0, 8), vi, kDataPar)}, access.reads, access.writes, "B", store);
  Stmt loop = For(i, 0, 8, ForKind::kSerial, BlockRealize({i}, const_true(), block));
  // The root block (`with T.block("root")`) holds the whole body, as TVMScript has it.
  Stmt body = BlockRealize({}, const_true(), Block({}, {}, {}, "root", loop));
  return PrimFunc({a, b}, body, {{a, A}, {b, B}}, {{String("tir.noalias"), Any(true)}});
}

// -----------------------------------------------------------------------------------------
// 2. mm_relu with the IR API
// -----------------------------------------------------------------------------------------
// The matmul block has two spatial iterators and one reduction iterator (kCommReduce). Its
// `init` statement runs when the reduction iterator is at its first value: Y[vi, vj] = 0.
PrimFunc MMRelu(int n) {
  DataType f32 = DataType::Float(32);
  Buffer A = decl_buffer({n, n}, f32, "A"), B = decl_buffer({n, n}, f32, "B");
  Buffer C = decl_buffer({n, n}, f32, "C"), Y = decl_buffer({n, n}, f32, "Y");
  Var a("a", DataType::Handle()), b("b", DataType::Handle()), c("c", DataType::Handle());
  Var i("i"), j("j"), k("k"), vi("vi"), vj("vj"), vk("vk");
  auto iters = [&](bool with_k) {
    Array<IterVar> out{IterVar(Range(0, n), vi, kDataPar), IterVar(Range(0, n), vj, kDataPar)};
    if (with_k) out.push_back(IterVar(Range(0, n), vk, kCommReduce));
    return out;
  };
  auto make_block = [](Array<IterVar> its, const std::string& name, Stmt body, Stmt init) {
    BlockAccessRegion r = GetBlockAccessRegion(Block(its, {}, {}, name, body, init));
    return Block(its, r.reads, r.writes, name, body, init);
  };
  Stmt y_update = BufferStore(Y, Y({vi, vj}) + A({vi, vk}) * B({vk, vj}), {vi, vj});
  Stmt y_init = BufferStore(Y, FloatImm(f32, 0.0), {vi, vj});
  Block y_block = make_block(iters(true), "Y", y_update, y_init);
  Block c_block =
      make_block(iters(false), "C", BufferStore(C, max(Y({vi, vj}), 0.0f), {vi, vj}), Stmt());
  Stmt y_nest =
      For(i, 0, n, ForKind::kSerial,
          For(j, 0, n, ForKind::kSerial,
              For(k, 0, n, ForKind::kSerial, BlockRealize({i, j, k}, const_true(), y_block))));
  Var i2("i"), j2("j");
  Stmt c_nest = For(i2, 0, n, ForKind::kSerial,
                    For(j2, 0, n, ForKind::kSerial, BlockRealize({i2, j2}, const_true(), c_block)));
  Block root({}, {}, {}, "root", SeqStmt({y_nest, c_nest}), Stmt(), {Y});
  return PrimFunc({a, b, c}, BlockRealize({}, const_true(), root), {{a, A}, {b, B}, {c, C}},
                  {{String("tir.noalias"), Any(true)}});
}

// -----------------------------------------------------------------------------------------
// 3. mm_relu with tensor expressions
// -----------------------------------------------------------------------------------------
// The same computation stated element by element; create_prim_func writes the loops and
// blocks (and names the block iterators v_i, v_j, v_k after the axes i, j, k).
PrimFunc MMReluTE(int n) {
  DataType f32 = DataType::Float(32);
  te::Tensor A = te::placeholder({n, n}, f32, "A"), B = te::placeholder({n, n}, f32, "B");
  IterVar k = te::reduce_axis(Range(0, n), "k");
  te::Tensor Y =
      te::compute({n, n}, [&](Var i, Var j) { return te::sum(A(i, k->var) * B(k->var, j), {k}); },
                  "Y", "", {}, {"i", "j"});
  te::Tensor C = te::compute({n, n}, [&](Var i, Var j) { return max(Y(i, j), 0.0f); }, "C", "", {},
                             {"i", "j"});
  return te::CreatePrimFunc({A, B, C});
}

NDArray Random(std::vector<int64_t> shape, std::mt19937* rng) {
  NDArray a = NDArray::Empty(shape, DataType::Float(32));
  std::uniform_real_distribution<float> d(-1, 1);
  for (int64_t i = 0; i < a.NumElements(); ++i) a.data_as<float>()[i] = d(*rng);
  return a;
}

double MaxAbsDiff(const NDArray& x, const NDArray& y) {
  double m = 0;
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    m = std::max(m, std::fabs(double(x.data_as<float>()[i]) - y.data_as<float>()[i]));
  }
  return m;
}

int main() {
  // 1. Vector add: print, build for the interpreter, run.
  PrimFunc vadd = VectorAdd();
  IRModule vmod = IRModule::FromNamed({{"main", vadd}});
  Show(vmod);
  runtime::Module vrt = driver::Build(vmod, target::Target("ref"));
  NDArray a = NDArray::Empty({8}, DataType::Float(32)),
          b = NDArray::Empty({8}, DataType::Float(32));
  for (int i = 0; i < 8; ++i) a.data_as<float>()[i] = static_cast<float>(i);
  vrt["main"](a, b);
  std::cout << "B =";
  for (int i = 0; i < 8; ++i) std::cout << " " << b.data_as<float>()[i];
  std::cout << std::endl;
  for (int i = 0; i < 8; ++i) {
    if (b.data_as<float>()[i] != i + 1.0f) {
      std::cout << "FAILED: vector add" << std::endl;
      return 1;
    }
  }

  // 2 and 3. mm_relu written twice: print the TE version, run both.
  const int n = 64;
  PrimFunc by_hand = MMRelu(n), by_te = MMReluTE(n);
  Show(by_te);
  // The two are the same program: structural equality matches them up to variable names.
  if (auto equal = Registry::Get("ir.StructuralEqual")) {
    bool same = (*equal)(by_hand, by_te, false).cast<bool>();
    std::cout << "IR API and te give structurally equal PrimFuncs: " << (same ? "yes" : "no")
              << std::endl;
  }
  std::mt19937 rng(0);
  NDArray A = Random({n, n}, &rng), B = Random({n, n}, &rng);
  NDArray C1 = NDArray::Empty({n, n}, DataType::Float(32));
  NDArray C2 = NDArray::Empty({n, n}, DataType::Float(32));
  driver::Build(by_hand, target::Target("ref"))["main"](A, B, C1);
  driver::Build(by_te, target::Target("ref"))["main"](A, B, C2);

  // 4. Check against loops over the arrays, and against the stage 1 reference.
  NDArray want = NDArray::Empty({n, n}, DataType::Float(32));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      float acc = 0;
      for (int kk = 0; kk < n; ++kk)
        acc += A.data_as<float>()[i * n + kk] * B.data_as<float>()[kk * n + j];
      want.data_as<float>()[i * n + j] = std::max(acc, 0.0f);
    }
  }
  double d1 = MaxAbsDiff(C1, want), d2 = MaxAbsDiff(C2, want);
  std::cout << "IR API mm_relu vs loops: " << (d1 < 1e-5 ? "match" : "MISMATCH") << std::endl;
  std::cout << "TE mm_relu vs loops: " << (d2 < 1e-5 ? "match" : "MISMATCH") << std::endl;
  if (d1 >= 1e-5 || d2 >= 1e-5) return 1;
  auto matmul = Registry::Get("lownumpy.matmul");
  auto relu = Registry::Get("lownumpy.relu");
  if (matmul && relu) {
    NDArray ref = (*relu)((*matmul)(A, B)).cast<NDArray>();
    double d3 = MaxAbsDiff(C2, ref);
    std::cout << "TE mm_relu vs lownumpy: " << (d3 < 1e-5 ? "match" : "MISMATCH") << std::endl;
    if (d3 >= 1e-5) return 1;
  }

  // The interpreter checks its arguments: the message names the function and the argument.
  try {
    vrt["main"](a, NDArray::Empty({7}, DataType::Float(32)));
  } catch (const Error& e) {
    std::cout << e.kind() << ": " << e.what() << std::endl;
  }
  std::cout << "OK: vector add and mm_relu built with the IR API and with te, run by the TIR "
               "interpreter, match loops and the lownumpy reference"
            << std::endl;
  return 0;
}

/*!
 * \file lesson.cpp
 * \brief Lesson 4 (C++): schedules from C++ — the course's split/reorder/bind on vector add and
 * mm_relu scheduled step by step, each step printed and checked (stage 3).
 */
// Lesson 4 (C++): scheduling TensorIR from C++
// =============================================
//
// lesson.py drives tir.Schedule from Python; every method it calls is a C++ primitive on
// `minitvm::tir::Schedule`, which this lesson uses directly:
//
//   1. the course's vector add: Split, Reorder, Bind;
//   2. mm_relu = relu(A @ B) scheduled in six steps — Split, Reorder, ReverseComputeAt,
//      Parallel, Vectorize, DecomposeReduction — printing the IR after each step and checking
//      it against plain C++ loops with the TIR interpreter;
//   3. the trace of those steps, as Python and as JSON, replayed on a fresh schedule;
//   4. an illegal step, caught as a minitvm::Error of kind "ScheduleError.<Rule>".
//
// Build and run it with `ctest -L tutorial` (or run build/bin/tutorial_04_schedule).
#include <cmath>
#include <iostream>
#include <random>
#include <string>

#include "minitvm/ir/structural.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/script/tir_parser.h"
#include "minitvm/script/tir_printer.h"
#include "minitvm/tir/interpreter.h"
#include "minitvm/tir/schedule/schedule.h"
#include "minitvm/tir/schedule/show_steps.h"

using namespace minitvm;       // NOLINT(build/namespaces): a lesson reads better unqualified
using namespace minitvm::tir;  // NOLINT(build/namespaces)
using runtime::NDArray;

// -----------------------------------------------------------------------------------------
// 1. The course: vector add
// -----------------------------------------------------------------------------------------
// The IR comes from TVMScript text (the parser of stage 2); a schedule takes the module.
const char* kVectorAdd = R"(
@I.ir_module
class MyModule:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] + 1.0
)";

void CourseWalkthrough() {
  Schedule sch = Schedule::Create(script::ParseModule(kVectorAdd));
  // Handles: a BlockRV for the block named "B", LoopRVs for the loops above it.
  BlockRV block_b = sch->GetBlock("B");
  LoopRV i = sch->GetLoops(block_b)[0];
  // Split into three loops of 2; std::nullopt would ask for one factor to be inferred.
  Array<LoopRV> loops = sch->Split(i, {2, 2, 2});
  std::cout << script::AsScript(sch->mod()) << std::endl;
  sch->Reorder({loops[0], loops[2], loops[1]});
  sch->Bind(loops[0], "blockIdx.x");
  sch->Bind(loops[2], "threadIdx.x");
  std::cout << script::AsScript(sch->mod()) << std::endl;
}

// -----------------------------------------------------------------------------------------
// 2. mm_relu, step by step
// -----------------------------------------------------------------------------------------
const char* kMmRelu = R"(
@T.prim_func
def mm_relu(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
    Y = T.alloc_buffer((128, 128))
    for i, j, k in T.grid(128, 128, 128):
        with T.block("Y"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                Y[vi, vj] = T.float32(0)
            Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(128, 128):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = T.max(Y[vi, vj], T.float32(0))
)";

constexpr int kN = 128;

// The reference: mm_relu as plain C++ loops.
std::vector<float> ReferenceMmRelu(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> c(kN * kN);
  for (int i = 0; i < kN; ++i) {
    for (int j = 0; j < kN; ++j) {
      float acc = 0;
      for (int k = 0; k < kN; ++k) acc += a[i * kN + k] * b[k * kN + j];
      c[i * kN + j] = std::max(acc, 0.0f);
    }
  }
  return c;
}

// Run the current function with the interpreter and compare it with the reference.
void Check(const Schedule& sch, const std::string& what, const std::vector<float>& a,
           const std::vector<float>& b, const std::vector<float>& expected) {
  PrimFunc f = Downcast<PrimFunc>(sch->mod()->Lookup("main"));
  NDArray A = NDArray::Empty({kN, kN}, DataType::Float(32));
  NDArray B = NDArray::Empty({kN, kN}, DataType::Float(32));
  NDArray C = NDArray::Empty({kN, kN}, DataType::Float(32));
  A.CopyFromBytes(a.data(), a.size() * sizeof(float));
  B.CopyFromBytes(b.data(), b.size() * sizeof(float));
  Interpreter(f, "mm_relu")(A, B, C);
  const float* c = static_cast<const float*>(C.data());
  double worst = 0;
  for (int i = 0; i < kN * kN; ++i) worst = std::max(worst, std::fabs(double(c[i]) - expected[i]));
  if (worst > 1e-3) {
    std::cout << "MISMATCH after " << what << ": max |diff| " << worst << std::endl;
    std::exit(1);
  }
  std::cout << "check after " << what << ": same as the C++ loops" << std::endl;
}

void ShowStep(const Schedule& sch, const std::string& what, const std::vector<float>& a,
              const std::vector<float>& b, const std::vector<float>& expected) {
  std::cout << "==== after " << what << " ====" << std::endl;
  std::cout << script::AsScript(sch->mod()->Lookup("main")) << std::endl;
  Check(sch, what, a, b, expected);
}

Schedule ScheduleMmRelu(const IRModule& mod, const std::vector<float>& a,
                        const std::vector<float>& b, const std::vector<float>& expected) {
  Schedule sch = Schedule::Create(mod);
  BlockRV block_y = sch->GetBlock("Y");
  Array<LoopRV> loops = sch->GetLoops(block_y);
  LoopRV i = loops[0], j = loops[1], k = loops[2];

  // Split j into 32 tiles of 4 columns.
  Array<LoopRV> j_parts = sch->Split(j, {std::nullopt, 4});
  ShowStep(sch, "split", a, b, expected);

  // Move the 4 columns inside k: each k step updates 4 neighbouring elements.
  sch->Reorder({j_parts[0], k, j_parts[1]});
  ShowStep(sch, "reorder", a, b, expected);

  // Compute the ReLU of each 4-column tile right after the tile is produced.
  BlockRV block_c = sch->GetBlock("C");
  sch->ReverseComputeAt(block_c, j_parts[0]);
  ShowStep(sch, "reverse_compute_at", a, b, expected);

  // Rows are independent: run i on many cores.
  sch->Parallel(i);
  ShowStep(sch, "parallel", a, b, expected);

  // Vector lanes for the innermost 4-wide loops.
  for (const BlockRV& blk : {block_y, block_c}) sch->Vectorize(sch->GetLoops(blk).back());
  ShowStep(sch, "vectorize", a, b, expected);

  // Last, split the initialisation of Y into its own block before k; its loops copy the
  // kinds (the 4-wide one is vectorized). Before this step parallel/vectorize would be
  // refused: the update block it leaves is neither complete nor a reduction with an init.
  sch->DecomposeReduction(block_y, k);
  ShowStep(sch, "decompose_reduction", a, b, expected);
  return sch;
}

int main() {
  CourseWalkthrough();

  std::mt19937 rng(0);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(kN * kN), b(kN * kN);
  for (float& x : a) x = dist(rng);
  for (float& x : b) x = dist(rng);
  std::vector<float> expected = ReferenceMmRelu(a, b);

  IRModule mod = script::ParseModule(kMmRelu);
  Schedule sch = ScheduleMmRelu(mod, a, b, expected);

  // -----------------------------------------------------------------------------------------
  // 3. The trace
  // -----------------------------------------------------------------------------------------
  // Every primitive was recorded; Show() prints the Python that replays it, AsJSON() the
  // form to save. Replaying the JSON on a fresh schedule gives a structurally equal module.
  std::cout << sch->trace().Show();
  Trace loaded = Trace::FromJSON(sch->trace().AsJSON());
  Schedule fresh = Schedule::Create(mod);
  loaded.ApplyToSchedule(fresh);
  std::cout << "replayed from JSON, structurally equal: " << std::boolalpha
            << StructuralEqual(fresh->mod(), sch->mod()) << std::endl;

  // -----------------------------------------------------------------------------------------
  // 4. An illegal step
  // -----------------------------------------------------------------------------------------
  // Parallelising the reduction loop k is refused. The error is a minitvm::Error whose kind
  // names the rule; the schedule is unchanged afterwards.
  Schedule bad = Schedule::Create(mod, 0, ErrorRenderLevel::kNone);
  Array<LoopRV> bad_loops = bad->GetLoops(bad->GetBlock("Y"));
  IRModule before = bad->mod();
  try {
    bad->Parallel(bad_loops[2]);
  } catch (const Error& e) {
    std::cout << e.kind() << std::endl << e.what() << std::endl;
  }
  std::cout << "unchanged after the error: " << bad->mod().same_as(before) << std::endl;

  // The step-by-step view checks every step of the trace once more, from the original.
  ScheduleSteps steps = ShowSteps(sch);
  std::cout << "steps that changed the IR and kept the results: ";
  int kept = 0;
  for (const ScheduleStep& s : steps.steps) kept += s.check.checked && s.check.equal;
  std::cout << kept << ", first bad step: " << steps.first_bad_step << std::endl;

  std::cout << "OK: vector add split/reorder/bind and mm_relu scheduled in 6 steps, each "
               "checked against C++ loops; the trace replays from JSON"
            << std::endl;
  return 0;
}

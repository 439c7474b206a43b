# Lesson 11 (Python): automatic program optimization
# ===================================================
#
# Lessons 4 and 5 wrote schedules by hand: split j by 4, reorder, vectorize. Each of those
# numbers was a guess. This lesson lets the machine make the guesses and keep the good ones:
#
#   1. a *stochastic* schedule: `sch.sample_perfect_tile` draws the split factors at random;
#      the draw is recorded in the trace as a `decision`, so the trace still says exactly
#      what was done, and replaying it rebuilds the same program;
#   2. random search by hand: run the stochastic schedule with a few seeds, time each result,
#      keep the fastest;
#   3. `meta_schedule.tune_tir`: the same search done properly — candidates built and timed in
#      worker processes, guided by a cost model, every measurement kept in a database on disk;
#   4. `compile_tir`: the best record of the database, replayed, is the schedule we build;
#      checked against NumPy.
#
# Timings vary from run to run (and the machine may be shared), so they go to stderr; what
# this lesson prints on stdout is the same every time.
import sys
import tempfile
import time

import numpy as np

import minitvm as tvm
from minitvm import meta_schedule as ms
from minitvm import tir
from minitvm.script import tir as T

N = 128


@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"),
             C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(128, 128, 128):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


rng = np.random.default_rng(0)
a_np = rng.random((N, N), dtype="float32")
b_np = rng.random((N, N), dtype="float32")
c_ref = a_np @ b_np
TARGET = "llvm"


def run_and_time(mod, number=20):
    """Build `mod`, check it against NumPy, return seconds per call."""
    lib = tvm.build(mod, target=TARGET)
    a, b = tvm.nd.array(a_np), tvm.nd.array(b_np)
    c = tvm.nd.array(np.zeros((N, N), dtype="float32"))
    lib["main"](a, b, c)
    np.testing.assert_allclose(c.numpy(), c_ref, rtol=1e-4)
    return lib.time_evaluator("main", tvm.cpu(), number=number, repeat=3)(a, b, c).min


# -----------------------------------------------------------------------------------------
# 1. A stochastic schedule
# -----------------------------------------------------------------------------------------
# The hand-written schedule of lesson 5 split j with fixed factors. Here the factors are a
# *random variable*: `sample_perfect_tile(j, n=4, max_innermost_factor=16)` draws four
# integers whose product is 128 (a "perfect" tiling: no remainder) with the innermost one at
# most 16. What it returns are handles (ExprRV); `sch.get(v)` is the value drawn.
def stochastic_schedule_mm(sch: tir.Schedule):
    block_c = sch.get_block("C", "main")
    i, j, k = sch.get_loops(block=block_c)
    j_factors = sch.sample_perfect_tile(loop=j, n=4, max_innermost_factor=16)
    j_0, j_1, j_2, j_3 = sch.split(loop=j, factors=j_factors)
    sch.reorder(i, j_0, j_1, k, j_2, j_3)
    sch.vectorize(j_3)
    sch.decompose_reduction(block_c, k)
    return sch


print("== 1. a stochastic schedule ==")
sch = tir.Schedule(MyModule, seed=7)
stochastic_schedule_mm(sch)
print("the trace (the decision is part of it):")
print("\n".join("  " + line for line in sch.trace.as_python()))
factors = list(sch.trace.decisions.values())[0]
print("decision:", factors, "product:", int(np.prod(factors)))

# The same seed draws the same factors; another seed usually draws others.
again = stochastic_schedule_mm(tir.Schedule(MyModule, seed=7))
print("seed 7 again gives the same module:",
      tvm.ir.structural_equal(sch.mod, again.mod))

# Replaying the trace on a fresh schedule (any seed) rebuilds the same program: the decision
# recorded in the trace is used instead of a new draw.
replay = tir.Schedule(MyModule, seed=12345)
sch.trace.apply_to_schedule(replay)
print("replayed trace gives the same module:", tvm.ir.structural_equal(sch.mod, replay.mod))

# A trace with a different decision is a different (but equally correct) program.
first = next(inst for inst in sch.trace.insts if str(inst.kind) == "SamplePerfectTile")
changed = tir.Schedule(MyModule, seed=0)
sch.trace.with_decision(first, [2, 4, 1, 16]).apply_to_schedule(changed)
print("with decision [2, 4, 1, 16]:", list(changed.trace.decisions.values())[0])
run_and_time(changed.mod, number=1)
print("  ... and it still computes A @ B")

# -----------------------------------------------------------------------------------------
# 2. Random search by hand
# -----------------------------------------------------------------------------------------
# The simplest search: draw a few programs, time each, keep the fastest.
print("\n== 2. random search by hand ==")
best = None
for seed in range(5):
    s = stochastic_schedule_mm(tir.Schedule(MyModule, seed=seed))
    decision = list(s.trace.decisions.values())[0]
    secs = run_and_time(s.mod)
    print(f"seed {seed}: decision {decision}, correct")
    print(f"  seed {seed}: {secs * 1e3:.3f} ms", file=sys.stderr)
    if best is None or secs < best[0]:
        best = (secs, seed, decision)
print(f"best by hand: seed {best[1]} ({best[0] * 1e3:.3f} ms)", file=sys.stderr)

# -----------------------------------------------------------------------------------------
# 3. tune_tir: the search done properly
# -----------------------------------------------------------------------------------------
# tune_tir does what the loop above did, with three improvements:
#   * candidates are built and timed in worker processes (a candidate that crashes or hangs
#     is recorded as failed, tuning goes on);
#   * an evolutionary search mutates the decisions of the best candidates so far, and a cost
#     model (ridge regression on the log of tile sizes) picks which ones are worth timing;
#   * every measurement goes into a database: two JSON-lines files in `work_dir`.
# `space=` is our stochastic schedule (left out, tune_tir uses its own multi-level tiling
# space).
print("\n== 3. tune_tir ==")
work_dir = tempfile.mkdtemp(prefix="lesson11_")
start = time.time()
database = ms.tune_tir(
    mod=MyModule,
    target=TARGET,
    work_dir=work_dir,
    max_trials_global=8,
    num_trials_per_iter=8,
    space=ms.space_generator.ScheduleFn(stochastic_schedule_mm),
    seed=0,
)
print(f"tune_tir took {time.time() - start:.1f} s", file=sys.stderr)
records = database.get_all_tuning_records()
print("records in the database:", len(records))
print("all valid:", all(r.is_valid for r in records))
for r in records:
    d = list(r.trace.decisions.values())[0]
    assert int(np.prod(d)) == N and d[-1] <= 16
print("every record's decision is a perfect tiling of 128 with innermost <= 16")
# The database is two files of JSON lines, only ever appended to.
reloaded = ms.JSONDatabase(work_dir=work_dir)
print("reloaded from disk:", len(reloaded), "records")

# -----------------------------------------------------------------------------------------
# 4. compile_tir: apply the best record
# -----------------------------------------------------------------------------------------
print("\n== 4. compile_tir ==")
sch_best = ms.tir_integration.compile_tir(reloaded, MyModule, TARGET)
best_record = reloaded.query_tuning_record(MyModule)
print("the best schedule replays the best record's decisions:",
      list(sch_best.trace.decisions.values()) == list(best_record.trace.decisions.values()))
print("its trace has", len(sch_best.trace.insts), "instructions,",
      sum(1 for line in sch_best.trace.as_python() if "sample_perfect_tile" in line),
      "of them sampling")
secs = run_and_time(sch_best.mod)
print("the tuned module computes A @ B (checked against NumPy)")
print(f"tuned: {secs * 1e3:.3f} ms ({2 * N**3 / secs / 1e9:.2f} GFLOP/s); "
      f"best by hand: {best[0] * 1e3:.3f} ms", file=sys.stderr)

print("\nOK: a stochastic schedule, its trace and replay, random search by hand, tune_tir with "
      "a database, and compile_tir applying the best record all agree with NumPy")

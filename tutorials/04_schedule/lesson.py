# Lesson 4 (Python): schedules — transforming a TensorIR program without changing its result
# ============================================================================================
#
# Lesson 3 wrote tensor programs as TensorIR: loops around blocks. The loops it wrote are the
# obvious ones, and the obvious loops are slow: they walk memory in an order the caches do
# not like, use one core and no vector lanes. A *schedule* rewrites the loops — splits them,
# reorders them, moves one computation inside another's loops, marks loops parallel or
# vectorized — while the blocks keep saying *what* is computed. Because every primitive
# checks that it is legal before it acts, the result always computes the same numbers.
#
# This lesson follows the "Blitz course to TensorIR" and then the MLC course's `mm_relu`:
#
#   1. the course's vector add: split, reorder and bind, printed after each step;
#   2. mm_relu = relu(A @ B), scheduled step by step — split, reorder, reverse_compute_at,
#      parallel, vectorize, decompose_reduction — with the IR and a check against NumPy after
#      every step;
#   3. the trace: the record of every step, as Python and as JSON, replayed on a fresh
#      schedule;
#   4. what happens when a step is illegal: a ScheduleError that names the broken rule and
#      points into the IR, with the schedule left unchanged;
#   5. the step-by-step view, beyond TVM: the diff of each step and its check in one report.
#
# The scheduled programs run on the TIR interpreter (`target="ref"`); lesson 5 compiles
# the same schedules with LLVM and measures them.
import json

import numpy as np

import minitvm as tvm
import minitvm.tir  # noqa: F401  (tvm.tir.Schedule)
from minitvm.script import ir as I
from minitvm.script import tir as T

# -----------------------------------------------------------------------------------------
# 1. The course: vector add, split / reorder / bind
# -----------------------------------------------------------------------------------------
# The module of the course, written in TVMScript. `T.handle` + `T.match_buffer` is the older
# way to declare buffers; the printer shows the current form `T.Buffer((8,), "float32")`.


@I.ir_module
class MyModule:
    @T.prim_func
    def main(a: T.handle, b: T.handle):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        A = T.match_buffer(a, (8,), dtype="float32")
        B = T.match_buffer(b, (8,), dtype="float32")
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] + 1.0


ir_module = MyModule
print(type(ir_module).__name__)
print(ir_module.script())

# A schedule starts from a module. Blocks are found by name, loops through their block; what
# we get back are *handles* (BlockRV, LoopRV) that keep referring to the same block or loop
# while the schedule changes the IR around them.
sch = tvm.tir.Schedule(ir_module)
print(type(sch).__name__)
block_b = sch.get_block("B")
(i,) = sch.get_loops(block_b)

# split: one loop of 8 becomes three nested loops of 2. The block's iterator is now computed
# from the three loop variables: vi = i_0 * 4 + i_1 * 2 + i_2.
i_0, i_1, i_2 = sch.split(i, factors=[2, 2, 2])
print(sch.mod.script())

# reorder: move i_2 outside i_1. The binding of vi does not change — only the order in which
# the points are visited.
sch.reorder(i_0, i_2, i_1)
print(sch.mod.script())

# bind: on a GPU the outer loops become the grid. i_0 runs as 2 thread blocks, i_2 as 2
# threads in each; i_1 stays a loop inside every thread.
sch.bind(i_0, "blockIdx.x")
sch.bind(i_2, "threadIdx.x")
print(sch.mod.script())

# The interpreter runs thread-bound loops one after another, so the result can be checked
# here; lesson 5 builds the same module with target="cuda".
rt = tvm.build(sch.mod, target="ref")
a = tvm.nd.array(np.arange(8).astype("float32"))
b = tvm.nd.array(np.zeros((8,)).astype("float32"))
rt(a, b)
print(a)
print(b)
np.testing.assert_allclose(b.numpy(), np.arange(8) + 1.0)

# -----------------------------------------------------------------------------------------
# 2. mm_relu, step by step
# -----------------------------------------------------------------------------------------
# C = relu(A @ B) in two blocks: "Y" is the matrix product (a reduction over k, with T.init()
# setting Y to 0 before the first k), "C" the ReLU.


@I.ir_module
class MyMmRelu:
    @T.prim_func
    def mm_relu(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"),
                C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
        Y = T.alloc_buffer((128, 128), dtype="float32")
        for i, j, k in T.grid(128, 128, 128):
            with T.block("Y"):
                vi = T.axis.spatial(128, i)
                vj = T.axis.spatial(128, j)
                vk = T.axis.reduce(128, k)
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi = T.axis.spatial(128, i)
                vj = T.axis.spatial(128, j)
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))


# The reference: the same computation in NumPy, and one set of random inputs.
rng = np.random.default_rng(0)
a_np = rng.uniform(-1, 1, (128, 128)).astype("float32")
b_np = rng.uniform(-1, 1, (128, 128)).astype("float32")
c_ref = np.maximum(a_np @ b_np, 0)


def check(mod, what):
    """Run mod's mm_relu with the interpreter and compare it with NumPy."""
    c = tvm.nd.empty((128, 128), "float32")
    tvm.build(mod, target="ref")["mm_relu"](tvm.nd.array(a_np), tvm.nd.array(b_np), c)
    np.testing.assert_allclose(c.numpy(), c_ref, rtol=1e-4, atol=1e-4)
    print(f"check after {what}: same as NumPy")


def show_step(sch, what):
    print(f"==== after {what} ====")
    print(sch.mod.script())
    check(sch.mod, what)


check(MyMmRelu, "nothing (the original)")
sch = tvm.tir.Schedule(MyMmRelu)
block_Y = sch.get_block("Y", func_name="mm_relu")
i, j, k = sch.get_loops(block_Y)

# Step 1 — split j into j_0 (32 tiles) and j_1 (4 columns per tile). None asks the schedule to
# infer that factor: 128 / 4 = 32.
j0, j1 = sch.split(j, factors=[None, 4])
show_step(sch, "split")

# Step 2 — reorder: make the 4 columns the innermost loop, inside k. Each k step now updates 4
# neighbouring elements of Y from one row of B: contiguous memory, ready for vector lanes.
sch.reorder(j0, k, j1)
show_step(sch, "reorder")

# Step 3 — reverse_compute_at: move the ReLU block under j_0, so that the 4 columns of Y are
# turned into C while they are still in the cache. The schedule finds the region of Y the
# loop j_0 produces (one row, 4 columns) and gives C a loop ax0 of 4 over exactly that.
block_C = sch.get_block("C", func_name="mm_relu")
sch.reverse_compute_at(block_C, j0)
show_step(sch, "reverse_compute_at")

# Step 4 — parallel: rows of C are independent, so the loop i can run on many cores. The
# schedule checks that i only drives data-parallel iterators (never the reduction over k),
# and, as TVM does, that every block under i is "complete" (computes its output alone) or a
# reduction that still carries its T.init().
sch.parallel(i)
show_step(sch, "parallel")

# Step 5 — vectorize the innermost 4-wide loops: of Y (inside k) and of the ReLU.
for blk in (block_Y, block_C):
    sch.vectorize(sch.get_loops(blk)[-1])
show_step(sch, "vectorize")

# Step 6 — decompose_reduction: take T.init() out of the block into its own block "Y_init",
# placed before k; its loops copy the kinds of the loops they come from, so its 4-wide loop
# is vectorized too. The update block (renamed "Y_update") is a plain multiply-add. This step
# comes last: an update block without its init is neither complete nor a reduction with an
# init, so parallel or vectorize over it afterwards would be refused (NotCompactDataFlowError).
block_init = sch.decompose_reduction(block_Y, k)
show_step(sch, "decompose_reduction")

# -----------------------------------------------------------------------------------------
# 3. The trace: every step, replayable
# -----------------------------------------------------------------------------------------
# The schedule recorded every primitive with its arguments. Shown as Python it is a function
# that replays the schedule; handles get names in the order they appear (b0, l1, ...).
sch.trace.show()

# Replay it on a fresh schedule of the same module: the result is structurally equal.
fresh = tvm.tir.Schedule(MyMmRelu)
sch.trace.apply_to_schedule(fresh, remove_postproc=False)
tvm.ir.assert_structural_equal(fresh.mod, sch.mod)
print("replayed trace: structurally equal")

# As JSON it can be saved and loaded: [[kind, inputs, attrs, outputs], ...].
trace_json = sch.trace.as_json()
print(json.dumps(trace_json[0][:3]))
fresh = tvm.tir.Schedule(MyMmRelu)
tvm.tir.schedule.Trace.apply_json_to_schedule(json.loads(json.dumps(trace_json)), fresh)
tvm.ir.assert_structural_equal(fresh.mod, sch.mod)
print("trace through JSON: structurally equal")

# -----------------------------------------------------------------------------------------
# 4. Illegal steps
# -----------------------------------------------------------------------------------------
# Running the reduction loop k in parallel would let two threads add into the same Y element
# at once. The schedule refuses: the error's class names the rule (WrongBlockIterTypeError,
# a ScheduleError), the message lists the preconditions it checked and, at the default
# error_render_level="detail", shows the IR with the offending lines marked.
sch2 = tvm.tir.Schedule(MyMmRelu)
y2 = sch2.get_block("Y", func_name="mm_relu")
i2, j2, k2 = sch2.get_loops(y2)
before = sch2.mod
try:
    sch2.parallel(k2)
except tvm.tir.schedule.WrongBlockIterTypeError as err:
    print(type(err).__name__, "is a ScheduleError:", isinstance(err, tvm.tir.ScheduleError))
    lines = str(err).splitlines()
    print("\n".join(lines[:5]))
    print("\n".join(line for line in lines if "# <- error here" in line))
assert sch2.mod.same_as(before)
print("after the error the schedule is unchanged")

# -----------------------------------------------------------------------------------------
# 5. The step-by-step view
# -----------------------------------------------------------------------------------------
# show_steps replays the trace from the original module and, for every step that changes
# the IR, prints the unified diff and checks the function against the original on random
# inputs — the first step that changed the results would be named. Here we print just the
# verdict of each step.
report = sch.show_steps(func_name="mm_relu", print_output=False)
for line in report.splitlines():
    if line.startswith("step ") or line.startswith("  check:") or line.startswith("every step"):
        print(line)

print("OK: the course's split/reorder/bind and mm_relu scheduled in 6 steps, each checked "
      "against NumPy; the trace replays")

# Lesson 3 (Python): TensorIR — writing tensor programs as loops and blocks
# ==========================================================================
#
# Lesson 2 wrote the MLP as low-level NumPy loops: each function takes its inputs and the
# output it writes, and spells out every loop. TensorIR is exactly that form, as data a
# compiler can read and transform:
#
#   - a PrimFunc takes buffers (the arrays) and fills its output buffers;
#   - loops (`for i in range(8)`) walk the iteration space;
#   - a *block* wraps the statement computed at each point. It names its iterators
#     (`v_i = T.axis.spatial(8, i)` — spatial, or `T.axis.reduce` for a reduction), the
#     regions it reads and writes (`T.reads`, `T.writes`) and, for a reduction, an
#     initialisation (`T.init()`). That extra information is what lets schedules (stage 3)
#     move loops around without breaking the program.
#
# We build TensorIR the easy way first — tensor expressions (`te`), which say *what* each
# element is and let `te.create_prim_func` write the loops — then run it with the TIR
# interpreter (`minitvm.build(..., target="ref")`) and compare with NumPy and with the
# stage 1 reference (lownumpy). The same functions written by hand in TVMScript are the
# subject of the TVMScript part of this lesson.
import numpy as np

import minitvm as tvm
from minitvm import te, tir, topi
from minitvm.driver import build
from minitvm.ir import IRModule

try:
    from minitvm import lownumpy as lnp
except ImportError:  # the reference is part of every build; this only guards odd setups
    lnp = None

# -----------------------------------------------------------------------------------------
# 1. Vector add: a tensor expression becomes a PrimFunc
# -----------------------------------------------------------------------------------------
# `te.placeholder` declares an input; `te.compute` defines a tensor element by element. The
# lambda's parameter names become the loop names (`*i` gives i0, i1, ...).
A = te.placeholder((8,), dtype="float32", name="A")
B = te.compute((8,), lambda *i: A(*i) + 1.0, name="B")
func = te.create_prim_func([A, B])
ir_module_from_te = IRModule({"main": func})
print(ir_module_from_te.script())

# Reading the IR from Python: every node's fields are attributes.
loop = func.body.block.body  # the root block's body: the loop over i0
block = loop.body.block
print("loop:", loop.loop_var.name_hint, "extent", int(loop.extent), "kind", loop.kind)
print("block:", block.name_hint, "iterators", [iv.var.name_hint for iv in block.iter_vars])
print("reads", [r.buffer.name for r in block.reads], "writes", [w.buffer.name for w in block.writes])

# -----------------------------------------------------------------------------------------
# 2. Build and run with the TIR interpreter
# -----------------------------------------------------------------------------------------
# target="ref" runs the PrimFunc with the interpreter: the reference executor of TensorIR,
# which checks every buffer access. (target="llvm" compiles it; that is stage 5.)
mod = build(ir_module_from_te, target="ref")
print(type(mod).__name__, "of kind", mod.kind)
a = tvm.nd.array(np.arange(8).astype("float32"))
b = tvm.nd.array(np.zeros((8,)).astype("float32"))
mod(a, b)
print(a)
print(b)
np.testing.assert_array_equal(b.numpy(), np.arange(8) + 1)

# -----------------------------------------------------------------------------------------
# 3. mm_relu: a matmul (a reduction) followed by relu
# -----------------------------------------------------------------------------------------
# The MLC course's running example: Y = A @ B, C = relu(Y), 128x128. The reduction axis k is
# declared with `te.reduce_axis`; `te.sum` over it becomes a block with a reduction iterator
# v_k and a `T.init()` that zeroes Y before the first k. Y is not a parameter, so the root
# block allocates it (`T.alloc_buffer`).
A = te.placeholder((128, 128), "float32", name="A")
B = te.placeholder((128, 128), "float32", name="B")
k = te.reduce_axis((0, 128), "k")
Y = te.compute((128, 128), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="Y")
C = te.compute((128, 128), lambda i, j: te.max(Y[i, j], 0), name="C")
mm_relu = te.create_prim_func([A, B, C])
MyModule = IRModule({"mm_relu": mm_relu})
MyModule.show()

rng = np.random.default_rng(0)
a_np = rng.uniform(-1, 1, (128, 128)).astype("float32")
b_np = rng.uniform(-1, 1, (128, 128)).astype("float32")
c_nd = tvm.nd.empty((128, 128), "float32")
lib = build(MyModule, target="ref")
lib["mm_relu"](tvm.nd.array(a_np), tvm.nd.array(b_np), c_nd)

c_numpy = np.maximum(a_np @ b_np, 0)
np.testing.assert_allclose(c_nd.numpy(), c_numpy, rtol=1e-5, atol=1e-5)
print("mm_relu matches NumPy")
if lnp is not None:
    c_ref = lnp.relu(lnp.matmul(a_np, b_np)).numpy()
    np.testing.assert_allclose(c_nd.numpy(), c_ref, rtol=1e-5, atol=1e-5)
    print("mm_relu matches the lownumpy reference")

# -----------------------------------------------------------------------------------------
# 4. The same with the operator library
# -----------------------------------------------------------------------------------------
# TOPI writes these computes for you, with TVM's names (T_matmul, T_relu).
A2 = te.placeholder((128, 128), "float32", name="A")
B2 = te.placeholder((128, 128), "float32", name="B")
C2 = topi.nn.relu(topi.matmul(A2, B2))
topi_func = te.create_prim_func([A2, B2, C2])
names = []


def collect(stmt):
    if isinstance(stmt, tir.BlockRealize):
        names.append(stmt.block.name_hint)
        collect(stmt.block.body)
    elif isinstance(stmt, tir.For):
        collect(stmt.body)
    elif isinstance(stmt, tir.SeqStmt):
        for s in stmt:
            collect(s)


collect(topi_func.body)
print("topi blocks:", names)
c2 = tvm.nd.empty((128, 128), "float32")
build(topi_func, target="ref")(tvm.nd.array(a_np), tvm.nd.array(b_np), c2)
np.testing.assert_allclose(c2.numpy(), c_numpy, rtol=1e-5, atol=1e-5)

# -----------------------------------------------------------------------------------------
# 5. What the interpreter checks
# -----------------------------------------------------------------------------------------
# Arguments are checked before anything runs, and each message names the argument.
try:
    mod(a, tvm.nd.array(np.zeros((7,), "float32")))
except ValueError as err:
    print("ValueError:", err)

# Every load and store is bounds-checked. A hand-built function that reads one element too
# far reports the buffer, the index and the loop variables.
n = 8
a_handle, b_handle = tir.Var("a", "handle"), tir.Var("b", "handle")
Abuf = tir.decl_buffer((n,), "float32", name="A")
Bbuf = tir.decl_buffer((n,), "float32", name="B")
i = tir.Var("i", "int32")
shift = tir.For(i, 0, n, tir.ForKind.SERIAL, tir.BufferStore(Bbuf, Abuf[i + 1], [i]))
broken = tir.PrimFunc([a_handle, b_handle], shift, buffer_map={a_handle: Abuf, b_handle: Bbuf})
try:
    build(broken, target="ref")(a, b)
except IndexError as err:
    print("IndexError:", err)

print("OK: vector add and mm_relu built with te, run by the TIR interpreter, match NumPy "
      "and the lownumpy reference")

# Lesson 1 (Python): the runtime — arrays, functions, and the bridge to C++
# =========================================================================
#
# Everything minitvm does later (TensorIR, schedules, Relax, compiled code) stands on the
# stage-1 runtime. This lesson walks through it from Python:
#
#   1. NDArray: minitvm's n-dimensional array, and copying data in and out;
#   2. DLPack: sharing memory with NumPy and PyTorch without copying;
#   3. calling a function written in C++, found by name in the global registry;
#   4. registering a Python function that C++ calls back;
#   5. the registry itself: which names exist.
#
# The companion lesson.cpp tells the same story from the C++ side.
#
# Course material writes `import tvm`; minitvm keeps TVM's names, so this works the same
# with `import minitvm as tvm`.
import numpy as np
import torch

import minitvm as tvm

# -----------------------------------------------------------------------------------------
# 1. NDArray
# -----------------------------------------------------------------------------------------
# `tvm.nd.array` copies a NumPy array (or a list) into memory that minitvm allocated: 64-byte
# aligned, compact, row-major. The NDArray is a C++ object; the Python object only holds a
# reference to it. Printing shows the values as NumPy would.
a_np = np.arange(1, 9, dtype="float32")
a = tvm.nd.array(a_np)
print(a)
print("shape:", a.shape, "dtype:", a.dtype, "device:", a.device)

# `nd.empty` allocates without initialising; `copyfrom` fills it (shapes must match).
b = tvm.nd.empty((2, 4), dtype="float32")
b.copyfrom(a_np.reshape(2, 4) * 2)
print(b)

# `numpy()` copies back out. The result is a new NumPy array: changing it leaves `b` alone.
b_np = b.numpy()
b_np[0, 0] = -1
print("b[0, 0] is still", b.numpy()[0, 0])

# Mistakes are reported as Python exceptions that name what went wrong. Every minitvm error
# derives from tvm.error.TVMError and from the matching Python builtin (here ValueError).
try:
    b.copyfrom(np.zeros(3, dtype="float32"))
except ValueError as err:
    print(type(err).__name__ + ":", err)

# -----------------------------------------------------------------------------------------
# 2. DLPack: the same memory seen by NumPy, PyTorch and minitvm
# -----------------------------------------------------------------------------------------
# DLPack is a small C struct (data pointer, shape, strides, dtype, device) that array
# libraries hand to each other inside a Python "capsule". Nothing is copied: both sides
# look at the same bytes, and the memory lives until the last of them lets go.
#
# NumPy -> minitvm: write through NumPy, read through minitvm.
shared_np = np.zeros(4, dtype="float32")
shared = tvm.nd.from_dlpack(shared_np)
shared_np[:] = [1, 2, 3, 4]
print("minitvm sees NumPy's write:", shared)

# minitvm -> NumPy: np.from_dlpack gives a (read-only) NumPy view of an NDArray.
view = np.from_dlpack(a)
a.copyfrom(a_np * 10)
print("NumPy sees minitvm's write:", view[:4])

# minitvm -> PyTorch and back. `to_dlpack()` makes a capsule; torch consumes it (a capsule
# can be used once). Writing in place through torch changes the NDArray.
t = torch.utils.dlpack.from_dlpack(a.to_dlpack())
t.mul_(0.5)
print("minitvm sees torch's write:", a)

x_torch = torch.arange(6, dtype=torch.float32).reshape(2, 3)
x = tvm.nd.from_dlpack(x_torch)
del x_torch  # the NDArray keeps torch's memory alive
print("from torch:", x.shape, x.dtype)
print(x)

# -----------------------------------------------------------------------------------------
# 3. A C++ function called from Python
# -----------------------------------------------------------------------------------------
# Every C++ API that Python needs is registered under a dotted name, e.g. in C++:
#
#   MINITVM_REGISTER_GLOBAL("testing.ffi.AddInts").set_body_typed(
#       [](int64_t a, int64_t b) { return a + b; });
#
# `get_global_func` finds it and returns a PackedFunc: calling it packs each Python
# argument into a typed value, crosses the C ABI and converts the result back.
add = tvm.get_global_func("testing.ffi.AddInts")
print("AddInts(40, 2) =", add(40, 2))

# `set_body_typed` checks the number and types of the arguments for us:
try:
    add(1, "two")
except TypeError as err:
    print("TypeError:", err)

# The same mechanism reads an NDArray's shape in C++ ...
print("runtime.NDArrayShape(b) =", list(tvm.get_global_func("runtime.NDArrayShape")(b)))
# ... and fills an array in place with a C++ loop (the Python object sees the new values).
tvm.get_global_func("testing.ffi.FillFloat32")(b, 0.25)
print(b)


# -----------------------------------------------------------------------------------------
# 4. A Python function called from C++
# -----------------------------------------------------------------------------------------
# `register_func` turns a Python callable into a packed function and registers it. C++
# calls it like any other global. Here the C++ helper "testing.ffi.CallWithArray" allocates
# an array, calls the function we name with it, and returns the array: what Python wrote
# into the argument is what C++ gets back, because the argument *is* C++'s array.
@tvm.register_func("tutorial.fill_squares")
def fill_squares(arr):
    values = arr.numpy_view()  # a writable NumPy view of the NDArray's memory
    values[:] = np.arange(values.size) ** 2


call_with_array = tvm.get_global_func("testing.ffi.CallWithArray")
squares = call_with_array("tutorial.fill_squares", [6], "float32")
print("filled by Python, returned by C++:", squares)


# An exception raised in the callback crosses C++ and arrives back as the same kind of
# error, with its message.
@tvm.register_func("tutorial.refuse")
def refuse(arr):
    raise ValueError(f"refusing an array of shape {arr.shape}")


try:
    call_with_array("tutorial.refuse", [2, 2], "float32")
except ValueError as err:
    print("ValueError came back through C++:", err)

# -----------------------------------------------------------------------------------------
# 5. The registry
# -----------------------------------------------------------------------------------------
# All names, from C++ and from Python, live in one registry. (The full list grows with
# every stage; we print the ones this lesson used.)
names = tvm.list_global_func_names()
print("registered by this lesson:", [n for n in names if n.startswith("tutorial.")])
print("testing.ffi helpers:", [n for n in names if n.startswith("testing.ffi.")][:4], "...")

# -----------------------------------------------------------------------------------------
# Checks
# -----------------------------------------------------------------------------------------
np.testing.assert_array_equal(a.numpy(), a_np * 5)
np.testing.assert_array_equal(squares.numpy(), np.arange(6) ** 2)
np.testing.assert_array_equal(x.numpy(), np.arange(6).reshape(2, 3))
assert add(40, 2) == 42
print("OK: NDArray copies, DLPack sharing with NumPy and PyTorch, C++ <-> Python calls")

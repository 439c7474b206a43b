"""Hardening of the back end (stage 5 and the runtime, issue 16): the checked build mode
("tir.instrument_bound_checkers"), damaged and odd library files, the unroll cap, the calling
convention of compiled functions, NDArray assignment and copy, deep expressions in the code
generator.

Every risky case runs in a child process with a timeout: a crash or a hang is a failed test,
not a dead test run. Each child prints ``OK`` and the error it got; the parent checks the kind
and the message.
"""
import os
import subprocess
import sys
import tempfile
import textwrap

import pytest

import minitvm as tvm

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

pytestmark = pytest.mark.skipif(
    tvm.get_global_func("target.build.llvm", allow_missing=True) is None,
    reason="needs stage 5 (LLVM code generation)",
)

PRELUDE = """
import numpy as np
import minitvm as tvm
from minitvm.script import tir as T

def expect(kind, *parts, call):
    try:
        call()
    except Exception as e:  # noqa: BLE001
        text = f"{type(e).__name__}: {e}"
        assert type(e).__name__ == kind, text
        for p in parts:
            assert p in str(e), (p, text)
        print("OK", text)
        return
    raise AssertionError("no error")
"""


def run_child(code, timeout=120):
    """Run ``code`` (after PRELUDE) in a fresh interpreter; the completed process."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(REPO_ROOT, "python") + os.pathsep + env.get("PYTHONPATH", "")
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(PRELUDE + textwrap.dedent(code))  # a file: TVMScript decorators read the source
    try:
        proc = _run(f.name, timeout, env)
    finally:
        os.unlink(f.name)
    assert proc.returncode == 0, f"child died with {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    assert "OK" in proc.stdout, proc.stdout + proc.stderr
    return proc


def _run(path, timeout, env):
    return subprocess.run(
        [sys.executable, path],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )


GATHER = """
@T.prim_func
def gather(A: T.Buffer((8,), "float32"), idx: T.Buffer((4,), "int32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("b"):
            vi = T.axis.spatial(4, i)
            B[vi] = A[idx[vi]]

@T.prim_func
def div(A: T.Buffer((4,), "int32"), D: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):
    for i in range(4):
        with T.block("b"):
            vi = T.axis.spatial(4, i)
            B[vi] = T.truncdiv(A[vi], D[vi]) + T.floormod(A[vi], D[vi])

@T.prim_func
def store(A: T.Buffer((4, 4), "float32"), r: T.int32):
    for j in range(4):
        with T.block("b"):
            vj = T.axis.spatial(4, j)
            A[r, vj] = T.float32(1)

@T.prim_func
def pad(A: T.Buffer((6,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("b"):
            vi = T.axis.spatial(8, i)
            B[vi] = T.if_then_else(1 <= vi and vi < 7, A[vi - 1], T.float32(0))

CHECKED = {"tir.instrument_bound_checkers": True}

def build(f, checked=True):
    with tvm.transform.PassContext(config=CHECKED if checked else {}):
        return tvm.compile(f, target="llvm")
"""


def test_checked_out_of_bounds_load_names_buffer_index_and_shape():
    run_child(
        GATHER
        + """
fn = build(gather)
a = tvm.nd.array(np.arange(8, dtype="float32"))
b = tvm.nd.array(np.zeros(4, dtype="float32"))
fn(a, tvm.nd.array(np.array([0, 7, 2, 3], dtype="int32")), b)  # in bounds: works
assert b.numpy().tolist() == [0, 7, 2, 3]
b0 = b.numpy().copy()
for bad in (8, -1, 1 << 30):
    i = tvm.nd.array(np.array([0, 1, bad, 3], dtype="int32"))
    expect("IndexError", "buffer A", f"index ({bad},)", "shape (8,)", "gather",
           call=lambda: fn(a, i, b))
# The interpreter (the reference) reports the same access with the same words.
ref = tvm.compile(gather, target="ref")
i = tvm.nd.array(np.array([0, 1, 8, 3], dtype="int32"))
expect("IndexError", "buffer A", "index (8,)", "shape (8,)", call=lambda: ref(a, i, b))
"""
    )


def test_checked_store_out_of_bounds_and_2d_message():
    run_child(
        GATHER
        + """
fn = build(store)
a = tvm.nd.array(np.zeros((4, 4), dtype="float32"))
fn(a, 3)
expect("IndexError", "buffer A", "index (100000, 0)", "shape (4, 4)", call=lambda: fn(a, 100000))
expect("IndexError", "buffer A", "index (-5, 0)", call=lambda: fn(a, -5))
assert a.numpy()[3].tolist() == [1, 1, 1, 1] and a.numpy().sum() == 4  # nothing else written
"""
    )


def test_checked_division_by_zero_and_int_min():
    run_child(
        GATHER
        + """
fn = build(div)
a = tvm.nd.array(np.array([7, -7, 3, 4], dtype="int32"))
b = tvm.nd.empty((4,), "int32")
fn(a, tvm.nd.array(np.array([2, 2, 3, 4], dtype="int32")), b)
assert b.numpy().tolist() == [3 + 1, -3 + 1, 1 + 0, 1 + 0]
expect("RuntimeError", "integer division by zero", "div",
       call=lambda: fn(a, tvm.nd.array(np.array([2, 0, 3, 4], dtype="int32")), b))
lo = tvm.nd.array(np.array([-2**31, 1, 1, 1], dtype="int32"))
expect("RuntimeError", "integer overflow", "-2147483648", "int32",
       call=lambda: fn(lo, tvm.nd.array(np.array([-1, 1, 1, 1], dtype="int32")), b))
"""
    )


def test_checked_guarded_padding_is_not_an_error():
    run_child(
        GATHER
        + """
fn = build(pad)
a = tvm.nd.array(np.arange(1, 7, dtype="float32"))
b = tvm.nd.empty((8,), "float32")
fn(a, b)
assert b.numpy().tolist() == [0, 1, 2, 3, 4, 5, 6, 0]
print("OK padding")
"""
    )


def test_unchecked_build_has_no_checks():
    # C semantics without the option: an in-bounds call works and the IR has no asserts.
    run_child(
        GATHER
        + """
fn = build(div, checked=False)
assert "division by zero" not in fn.get_source("tir")
fn2 = build(div)
assert "division by zero" in fn2.get_source("tir")
print("OK")
"""
    )


def test_checked_matches_interpreter_on_random_gathers():
    run_child(
        GATHER
        + """
rng = np.random.default_rng(0)
fn = build(gather)
a = tvm.nd.array(rng.standard_normal(8).astype("float32"))
for _ in range(30):
    idx = rng.integers(-3, 11, size=4).astype("int32")
    b = tvm.nd.array(np.zeros(4, dtype="float32"))
    ok = bool(((idx >= 0) & (idx < 8)).all())
    try:
        fn(a, tvm.nd.array(idx), b)
        assert ok, idx
        np.testing.assert_array_equal(b.numpy(), a.numpy()[idx])
    except tvm.error.IndexError as e:
        assert not ok, (idx, e)
        first_bad = next(int(v) for v in idx if not 0 <= v < 8)
        assert f"index ({first_bad},)" in str(e), (idx, str(e))
print("OK")
"""
    )


def test_unroll_cap():
    run_child(
        """
@T.prim_func
def big(A: T.Buffer((65536,), "float32")):
    for i in T.unroll(65536):
        with T.block("b"):
            vi = T.axis.spatial(65536, i)
            A[vi] = T.float32(1)
expect("ValueError", "loop", "65536 iterations", "tir.UnrollLoop.explicit_max_extent",
       call=lambda: tvm.compile(big, target="llvm"))
@T.prim_func
def small(A: T.Buffer((64,), "float32")):
    for i in T.unroll(64):
        with T.block("b"):
            vi = T.axis.spatial(64, i)
            A[vi] = T.float32(1)
a = tvm.nd.empty((64,), "float32")
tvm.compile(small, target="llvm")(a)
assert (a.numpy() == 1).all()
with tvm.transform.PassContext(config={"tir.UnrollLoop.explicit_max_extent": 16}):
    expect("ValueError", "64 iterations", "= 16", call=lambda: tvm.compile(small, target="llvm"))
""",
        timeout=120,
    )


LIB = GATHER + """
import os, tempfile
d = tempfile.mkdtemp()
path = os.path.join(d, "lib.so")
build(gather, checked=False).export_library(path)
data = open(path, "rb").read()
"""


def test_damaged_library_is_refused_before_dlopen():
    run_child(
        LIB
        + """
assert data.endswith(b"MTVMSUM1")
tvm.runtime.load_module(path)  # intact: loads
rng = np.random.default_rng(1)
for trial in range(12):
    damaged = bytearray(data)
    pos = int(rng.integers(64, len(data) - 24))
    damaged[pos] ^= 0x5A
    bad = os.path.join(d, f"bad{trial}.so")
    open(bad, "wb").write(bytes(damaged))
    expect("ValueError", "damaged after export", bad, call=lambda: tvm.runtime.load_module(bad))
"""
    )


def test_library_for_another_machine():
    run_child(
        LIB
        + """
import struct
other = bytearray(data)
other[18:20] = struct.pack("<H", 183)  # EM_AARCH64
open(path, "wb").write(bytes(other[:-24]))  # without the trailer: the header check answers
expect("ValueError", "another machine", "AArch64", call=lambda: tvm.runtime.load_module(path))
"""
    )


def test_load_module_refuses_special_files():
    run_child(
        LIB
        + """
fifo = os.path.join(d, "pipe.so")
os.mkfifo(fifo)
expect("ValueError", "named pipe", call=lambda: tvm.runtime.load_module(fifo))
expect("ValueError", "character device", call=lambda: tvm.runtime.load_module("/dev/zero"))
expect("ValueError", "directory", call=lambda: tvm.runtime.load_module(d))
os.environ["MINITVM_MAX_LIBRARY_BYTES"] = "1000"
expect("ValueError", "more than the limit", call=lambda: tvm.runtime.load_module(path))
""",
        timeout=60,
    )


def test_function_name_cannot_inject_description_entries():
    run_child(
        GATHER
        + """
f = gather.with_attr("global_symbol", "main\\nfunctions=evil")
expect("ValueError", "control character", call=lambda: tvm.compile(f, target="llvm"))
f = gather.with_attr("global_symbol", "a,b")
expect("ValueError", "','", call=lambda: tvm.compile(f, target="llvm"))
"""
    )


def test_calling_convention():
    run_child(
        GATHER
        + """
@T.prim_func
def scale(A: T.Buffer((4,), "float32"), n: T.int32):
    for i in range(4):
        with T.block("b"):
            vi = T.axis.spatial(4, i)
            A[vi] = A[vi] * T.Cast("float32", n)
fn = tvm.compile(scale, target="llvm")
x = np.ones(4, dtype="float32")
expect("TypeError", "argument #0", "numpy.ndarray", call=lambda: fn(x, 2))
a = tvm.nd.array(x)
fn(a, 3)
assert a.numpy().tolist() == [3, 3, 3, 3]
expect("ValueError", "argument n", "value 1099511627776 out of range for int32",
       call=lambda: fn(a, 2**40))
assert a.numpy().tolist() == [3, 3, 3, 3]  # nothing written by a refused call
"""
    )


def test_ndarray_assignment_and_copy():
    run_child(
        """
import copy
a = tvm.nd.array(np.arange(4, dtype="int32"))
expect("ValueError", "nan", call=lambda: a.__setitem__(slice(None), float("nan")))
expect("ValueError", "out of range for int32", call=lambda: a.__setitem__(slice(None), 2**40))
assert a.numpy().tolist() == [0, 1, 2, 3]
a[:] = 5
assert a.numpy().tolist() == [5, 5, 5, 5]
b = copy.copy(a)
b[:] = 1
assert a.numpy().tolist() == [5, 5, 5, 5] and b.numpy().tolist() == [1, 1, 1, 1]
print("OK")
"""
    )


def test_zero_lane_dlpack_tensor_is_refused():
    run_child(
        """
import ctypes
from minitvm._ffi import core
a = tvm.nd.array(np.zeros(4, dtype="float32"))
cap = a.to_dlpack()
# Set the lanes of the DLTensor in the capsule to 0 (DLTensor: data, device(8), ndim(4),
# dtype{code u8, bits u8, lanes u16}).
get = ctypes.pythonapi.PyCapsule_GetPointer
get.restype = ctypes.c_void_p
get.argtypes = [ctypes.py_object, ctypes.c_char_p]
p = get(cap, b"dltensor")
lanes = ctypes.cast(p + 8 + 8 + 4 + 2, ctypes.POINTER(ctypes.c_uint16))
lanes[0] = 0
expect("ValueError", "lanes", call=lambda: tvm.nd.from_dlpack(cap))
"""
    )


def test_deep_expression_in_codegen():
    run_child(
        """
from minitvm import tir
A = tir.decl_buffer((4,), "float32", name="A")
i = tir.Var("i", "int32")
e = tir.BufferLoad(A, [i])
for k in range(20000):
    e = e + tir.FloatImm("float32", 1.0)
body = tir.For(i, 0, 4, tir.ForKind.SERIAL, tir.BufferStore(A, e, [i]))
f = tir.PrimFunc([A.data], body, buffer_map={A.data: A}).with_attr("global_symbol", "deep")
try:
    fn = tvm.compile(f, target="llvm")
    a = tvm.nd.array(np.zeros(4, dtype="float32"))
    fn(a)
    assert a.numpy().tolist() == [20000.0] * 4
    print("OK built")
except Exception as e:  # noqa: BLE001 - a clear minitvm error is fine, a crash is not
    assert type(e).__module__.startswith("minitvm"), repr(e)
    assert "deep" in str(e) or "nest" in str(e) or "depth" in str(e), str(e)
    print("OK", type(e).__name__, e)
""",
        timeout=300,
    )


def test_unresolved_external_symbol_is_named():
    run_child(
        """
@T.prim_func
def ext(A: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("b"):
            vi = T.axis.spatial(8, i)
            A[vi] = T.call_extern("float32", "no_such_function_xyz", A[vi])
def go():
    fn = tvm.compile(ext, target="llvm")
    fn(tvm.nd.empty((8,), "float32"))
expect("ValueError", "no_such_function_xyz", "ext", call=go)
"""
    )

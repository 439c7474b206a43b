"""TVMScript forms TVM's round-trip tests use (stage 2): each parses, prints as TVM prints it,
and reads back structurally equal."""
import pytest

import minitvm as tvm
from minitvm import tir
from minitvm.script import ir as I
from minitvm.script import tir as T


def roundtrip(obj):
    text = obj.script()
    back = tvm.script.from_source(text)
    tvm.ir.assert_structural_equal(obj, back)
    return text


def test_store_casts_to_buffer_dtype():
    @T.prim_func
    def func(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "int32")):
        A[0] = T.min(1, 2)
        for i in range(4):
            A[i] = B[i]

    text = roundtrip(func)
    assert 'A[i] = T.Cast("float32", B[i])' in text
    assert 'A[0] = T.float32(1.0)' in text  # T.min(1, 2) folds, then the cast


def test_store_of_other_lane_count_is_refused():
    with pytest.raises(tvm.error.ParseError, match="needs float32x4"):
        tvm.script.from_source(
            "@T.prim_func\n"
            "def f(A: T.Buffer((8,), \"float32\")):\n"
            "    A[T.Ramp(0, 1, 4)] = T.Broadcast(T.float32(1), 8)\n")


def test_ramp_slices_store_and_load():
    @T.prim_func
    def func(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
        for i in range(128):
            A[i:i + 1:1] = i
        for i in range(4):
            B[i * 32:i * 32 + 32] = A[i * 32:i * 32 + 32:1] + T.broadcast(1.0, 32)

    text = roundtrip(func)
    assert "B[T.Ramp(i * 32, 1, 32)] = A[T.Ramp(i * 32, 1, 32)]" in text
    assert 'A[i] = T.Cast("float32", i)' in text


def test_comm_reducer_lambda():
    @T.prim_func
    def func(a: T.handle):
        threadIdx_x = T.env_thread("threadIdx.x")
        A = T.match_buffer(a, [128], dtype="float32")
        T.launch_thread(threadIdx_x, 128)
        red_data = T.allocate([1], "float32", "local")
        red = T.Buffer(shape=[1], dtype="float32", scope="local", data=red_data)
        with T.attr(T.comm_reducer(lambda x, y: x + y, [T.float32(0)]), "reduce_scope",
                    T.reinterpret(T.uint64(0), dtype="handle")):
            T.evaluate(T.tvm_thread_allreduce(T.uint32(1), A[threadIdx_x], True, red.data,
                                              threadIdx_x, dtype="handle"))

    text = roundtrip(func)
    assert "T.comm_reducer(lambda x, y: x + y, [T.float32(0.0)])" in text


def test_comm_reducer_two_values():
    @T.prim_func
    def func():
        with T.attr(T.comm_reducer(lambda x0, x1, y0, y1: (T.Select(x1 >= y1, x0, y0),
                                                           T.Select(x1 >= y1, x1, y1)),
                                   [T.int32(-1), T.min_value("float32")]), "reduce_scope", 0):
            T.evaluate(0)

    text = roundtrip(func)
    assert "lambda x0, x1, y0, y1: (T.Select(x1 >= y1, x0, y0), T.Select(x1 >= y1, x1, y1))" \
        in text
    with pytest.raises(tvm.error.ParseError, match="2 parameters per identity value"):
        tvm.script.from_source(
            "@T.prim_func\ndef f():\n"
            "    with T.attr(T.comm_reducer(lambda x: x, [T.float32(0)]), \"k\", 0):\n"
            "        T.evaluate(0)\n")


def test_string_strides_make_variables():
    @T.prim_func
    def func(a: T.handle):
        n = T.int32()
        A = T.match_buffer(a, (n,), strides=("A_s0",), buffer_type="auto")
        A[0] = T.float32(1)

    roundtrip(func)
    stride = func.buffer_map[func.params[0]].strides[0]
    assert isinstance(stride, tir.Var) and stride.name == "A_s0"


def test_func_attr_list_keeps_intimm():
    @T.prim_func
    def func():
        T.func_attr({"layout_free_buffers": [T.int32(1)], "plain": [1]})
        T.evaluate(0)

    text = roundtrip(func)
    assert '"layout_free_buffers": [T.int32(1)]' in text and '"plain": [1]' in text


def test_dtype_call_from_python_is_a_constant():
    c = T.int32(16)
    assert isinstance(c, tir.IntImm) and c.dtype == "int32" and c.value == 16
    tvm.ir.assert_structural_equal([T.int32(16), T.int32(1)], [tir.const(16), tir.const(1)])


def test_subroutine_calls():
    @I.ir_module
    class mod:
        @T.prim_func
        def main(A: T.Buffer(2, "float32")):
            mod.square(A[0]) + mod.square(A[1])
            tir.call_tir(mod.nothing)

        @T.prim_func
        def square(x: T.float32) -> T.float32:
            T.ret(x * x)

        @T.prim_func
        def nothing():
            T.evaluate(0)

    text = roundtrip(mod)
    assert "Module.square(A[0]) + Module.square(A[1])" in text
    assert "Module.nothing()" in text
    with pytest.raises(tvm.error.ParseError, match='cannot find the function "missing"'):
        tvm.script.from_source(
            "@I.ir_module\nclass M:\n    @T.prim_func\n    def main():\n"
            "        M.missing()\n")


def test_nested_match_buffer_reads_name_the_source():
    @T.prim_func
    def func(a: T.handle, b: T.handle):
        A = T.match_buffer(a, (16, 16, 16), "float32")
        B = T.match_buffer(b, (1,), "float32")
        for i, j in T.grid(16, 4):
            with T.block():
                vi, vj = T.axis.remap("SS", [i, j])
                C = T.match_buffer(A[0:16, vi, vj * 4:vj * 4 + 4], (16, 1, 4))
                for ii in range(4):
                    with T.block():
                        vii = T.axis.S(4, ii)
                        D = T.match_buffer(C[vii * 4:vii * 4 + 4, 0, 0:4], (4, 1, 4))
                        for x, y in T.grid(4, 4):
                            B[0] += D[x, 0, y]

    text = roundtrip(func)
    assert "T.reads(B[0], A[0:16, vi, vj * 4:vj * 4 + 4])" in text


def test_realize_roundtrips_and_build_refuses_it():
    @T.prim_func
    def func(A: T.Buffer((4,), "float32")):
        B = T.Buffer([4], "float32")
        T.realize(B[0:4], "")
        for i in range(4):
            B[i] = A[i]
        for i in range(4):
            A[i] = B[i] + T.float32(1)

    text = roundtrip(func)
    assert 'T.realize(B[0:4], "")' in text
    with pytest.raises(tvm.error.ValueError, match="holds T.realize"):
        tvm.build(func, target="ref")

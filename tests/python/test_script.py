"""TVMScript from Python (stage 2): the decorators, ``from_source``, diagnostics that point at
the line of this file, and the printed text of the "Blitz course to TensorIR" example in both
of its buffer syntaxes.
"""
import os

import pytest

import minitvm as tvm

if tvm.get_global_func("script.FromSource", allow_missing=True) is None:
    pytest.skip("stage 2 (TVMScript) is not built", allow_module_level=True)

import minitvm.script  # noqa: E402  (makes tvm.script available)
from minitvm.script import ir as I  # noqa: E402
from minitvm.script import tir as T  # noqa: E402

try:  # the IRModule / PrimFunc classes, with .script() and .show()
    import minitvm.ir  # noqa: F401
    import minitvm.tir  # noqa: F401
except ImportError:  # pragma: no cover
    pass

COURSE_PRINTED = '''# from minitvm.script import ir as I
# from minitvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        T.func_attr({"tir.noalias": True})
        # with T.block("root"):
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1.0)
'''


def script_of(node):
    """``node.script()`` where the class has it, else the printer directly."""
    if hasattr(node, "script"):
        return node.script()
    return tvm.script.as_script(node)


def structural_equal(a, b):
    fn = tvm.get_global_func("ir.StructuralEqual", allow_missing=True)
    if fn is None:
        return script_of(a) == script_of(b)
    return bool(fn(a, b, False))


def course_module_with_handles():
    @tvm.script.ir_module
    class MyModule:
        @T.prim_func
        def main(a: T.handle, b: T.handle):
            # We exchange data between functions by handles, which are similar to pointers.
            T.func_attr({"global_symbol": "main", "tir.noalias": True})
            # Create buffers from handles.
            A = T.match_buffer(a, (8,), dtype="float32")
            B = T.match_buffer(b, (8,), dtype="float32")
            for i in range(8):
                # A block is an abstraction for computation.
                with T.block("B"):
                    # Define a spatial block iterator and bind it to value i.
                    vi = T.axis.spatial(8, i)
                    B[vi] = A[vi] + 1.0

    return MyModule


def course_module_with_buffers():
    @I.ir_module
    class MyModule:
        @T.prim_func
        def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
            T.func_attr({"global_symbol": "main", "tir.noalias": True})
            for i in range(8):
                with T.block("B"):
                    vi = T.axis.spatial(8, i)
                    B[vi] = A[vi] + 1.0

    return MyModule


def test_course_module_prints_in_the_current_format():
    mod = course_module_with_handles()
    assert mod.type_key == "ir.IRModule"
    assert script_of(mod) == COURSE_PRINTED
    assert str(mod) == COURSE_PRINTED


def test_both_buffer_syntaxes_give_the_same_module():
    a, b = course_module_with_handles(), course_module_with_buffers()
    assert structural_equal(a, b)
    assert script_of(b) == COURSE_PRINTED


def test_from_source_round_trip():
    mod = tvm.script.from_source(COURSE_PRINTED)
    assert script_of(mod) == COURSE_PRINTED
    assert structural_equal(mod, course_module_with_handles())
    # The old printed format of the course reads too.
    old = '''# from tvm.script import tir as T
@tvm.script.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer[8, "float32"], B: T.Buffer[8, "float32"]) -> None:
        # function attr dict
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        # body
        # with T.block("root")
        for i in T.serial(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1)
'''
    assert script_of(tvm.script.from_source(old)) == COURSE_PRINTED


def test_prim_func_decorator():
    @T.prim_func
    def add_one(A: T.Buffer[8, "float32"], B: T.Buffer[(8,), "float32"]) -> None:
        for i in T.serial(8):
            B[i] = A[i] + T.float32(1)

    assert add_one.type_key == "tir.PrimFunc"
    text = script_of(add_one)
    assert text.startswith("# from minitvm.script import tir as T\n\n@T.prim_func\ndef add_one(")
    assert "    for i in range(8):\n        B[i] = A[i] + T.float32(1.0)\n" in text

    @T.prim_func(private=True)
    def helper(A: T.Buffer((1,), "int32")):
        A[0] = 1

    assert "@T.prim_func(private=True)\ndef main(" in script_of(helper)


def test_placeholders_make_the_source_importable():
    # Annotations are evaluated when the def runs: these must be harmless objects.
    for value in (T.Buffer((8,), "float32"), T.Buffer[8, "float32"], T.handle, T.int32,
                  T.float32x4, T.float32(1.0), T.axis.spatial, I.module_attrs({})):
        assert value is not NotImplemented
    with pytest.raises(AttributeError):
        T.no_such_name  # pylint: disable=pointless-statement


def _line_of(marker):
    """The line number of the line of this file that contains `marker`."""
    with open(__file__, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if marker in line and "_line_of" not in line:
                return number
    raise AssertionError(marker)


def test_parse_error_points_into_this_file():
    with pytest.raises(tvm.error.ParseError) as info:

        @T.prim_func
        def bad(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
            for i in range(8):
                with T.block("B"):
                    vi = T.axis.spatial(8, i)
                    B[vi] = T.foo(A[vi])  # marker: unknown name

    message = str(info.value)
    line = _line_of("# marker: unknown name")
    assert f"{os.path.basename(__file__)}:{line}:29" in message, message
    assert 'error: unknown name "T.foo"' in message
    assert f"{line} |                     B[vi] = T.foo(A[vi])  # marker: unknown name" in message
    assert message.rstrip().endswith("|                             ^^^^^")
    # A ParseError is a ValueError and a TVMError.
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, tvm.TVMError)


def test_parse_error_in_a_module_class():
    with pytest.raises(tvm.error.ParseError) as info:

        @I.ir_module
        class Broken:  # pylint: disable=unused-variable
            @T.prim_func
            def main(A: T.Buffer((8,), "float32")):
                for i in range(8):
                    A[i] = A[j]  # marker: undefined variable

    message = str(info.value)
    line = _line_of("# marker: undefined variable")
    assert f":{line}:30" in message, message
    assert 'error: undefined variable "j"' in message


def test_from_source_errors_name_the_given_file_and_offset():
    with pytest.raises(tvm.error.ParseError) as info:
        tvm.script.from_source(
            "@T.prim_func\ndef f(A: T.Buffer((8,), \"float32\")):\n    A[0] = lambda: 1\n",
            "kernel.py",
            40,
        )
    message = str(info.value)
    assert "error: unsupported Python construct: lambda" in message
    assert " --> kernel.py:43:12" in message
    with pytest.raises(TypeError):
        tvm.script.from_source(b"not a str")


def test_arity_and_dtype_diagnostics():
    with pytest.raises(tvm.error.ParseError, match="T.axis.spatial expects 2 arguments, got 3"):
        tvm.script.from_source(
            """
@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("A"):
            vi = T.axis.spatial(8, i, 1)
            A[vi] = 0.0
"""
        )
    # As TVM, a store of another dtype with the same lanes is cast (B[i] = T.Cast("int32", A[i]));
    # another lane count is refused.
    with pytest.raises(tvm.error.ParseError, match="dtype mismatch"):
        tvm.script.from_source(
            """
@T.prim_func
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "int32")):
    for i in range(8):
        B[i] = T.Broadcast(A[i], 4)
"""
        )


TVM_022_SOURCE = '''
from tvm.script import ir as I
from tvm.script import tirx as T

N, dtype = 8, "float32"


@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((N,), dtype), B: T.Buffer((N,), dtype)):
        for i in T.grid(N):
            with T.sblock("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] + T.float32(1)
'''


def test_tvm_spellings_from_docs_and_course():
    # TVM 0.22 (`tirx`, `T.sblock`), constants above the module, a one-kind T.axis.remap.
    mod = tvm.script.from_source(TVM_022_SOURCE)
    text = script_of(mod)
    assert '            with T.block("B"):\n                vi = T.axis.spatial(8, i)\n' in text
    assert script_of(tvm.script.from_source(text)) == text
    with pytest.raises(tvm.error.ParseError, match='unknown name "T.call_packed": minitvm'):
        tvm.script.from_source(
            "@T.prim_func\ndef f(A: T.Buffer((1,), 'int32')):\n"
            "    T.evaluate(T.call_packed('f', A.data))\n")


@T.prim_func
def _bits(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = (A[vi] & 6) | T.shift_left(vi, 1) ^ ~A[vi] + T.ceildiv(vi, 3)


def test_bitwise_intrinsics_run_in_the_interpreter():
    import numpy as np

    f = tvm.build(_bits, target="ref")
    a = np.arange(8, dtype="int32") * 5
    b = np.zeros(8, dtype="int32")
    A, B = tvm.nd.array(a), tvm.nd.array(b)
    f(A, B)
    i = np.arange(8, dtype="int32")
    expected = (a & 6) | (i << 1) ^ (~a + (i + 2) // 3)
    np.testing.assert_array_equal(B.numpy(), expected)


def test_tirx_is_the_tvm_0_22_name_of_the_tir_namespace():
    from minitvm.script import tirx  # pylint: disable=import-outside-toplevel

    import minitvm.script.tirx  # noqa: F401  pylint: disable=import-outside-toplevel

    assert tirx is minitvm.script.tir


ROWS = 4  # read by the decorated module below, as TVM's decorators read the values around them
SCRIPT_DTYPE = "float32"


def test_decorators_see_the_python_constants_around_the_script():
    cols = 3  # a local of the defining function (a closure value for TVM)

    @I.ir_module
    class Module:  # pylint: disable=too-few-public-methods
        @T.prim_func
        def main(A: T.Buffer((ROWS, cols), SCRIPT_DTYPE)):
            for i, j in T.grid(ROWS, cols):
                with T.block("A"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    A[vi, vj] = T.float32(1)

    assert 'A: T.Buffer((4, 3), "float32")' in Module.script()


def test_constants_do_not_shift_the_line_of_a_parse_error():
    with pytest.raises(tvm.error.ParseError) as info:

        @T.prim_func
        def broken(A: T.Buffer((ROWS,), SCRIPT_DTYPE)):
            A[0] = T.foo(1)  # noqa: F821

    line = test_constants_do_not_shift_the_line_of_a_parse_error.__code__.co_firstlineno + 5
    assert f"test_script.py:{line}:" in str(info.value), str(info.value)

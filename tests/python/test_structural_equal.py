"""minitvm.ir.structural_equal / structural_hash / assert_structural_equal from Python.

They need minitvm.tir (to build IR); the TVMScript round trip needs minitvm.script too.
"""
import pytest

import minitvm as tvm

tir = pytest.importorskip("minitvm.tir")
if tvm.get_global_func("ir.StructuralEqual", allow_missing=True) is None:
    pytest.skip("stage 2 (structural equality) is not built", allow_module_level=True)
if not hasattr(tir, "Var"):
    pytest.skip("minitvm.tir is not complete yet", allow_module_level=True)

from minitvm.ir.structural import (  # noqa: E402
    assert_structural_equal,
    structural_equal,
    structural_hash,
)


def test_free_vars():
    x, y = tir.Var("x", "int32"), tir.Var("y", "int32")
    assert structural_equal(x + 1, x + 1)
    assert not structural_equal(x + 1, y + 1)
    assert structural_equal(x + 1, y + 1, map_free_vars=True)
    assert structural_hash(x + 1, map_free_vars=True) == structural_hash(y + 1, map_free_vars=True)
    with pytest.raises(tvm.error.ValueError, match="map_free_vars"):
        assert_structural_equal(x + 1, y + 1)


def test_let_is_alpha_equivalent():
    x, y = tir.Var("x", "int32"), tir.Var("y", "int32")
    assert structural_equal(tir.Let(x, 1, x + 1), tir.Let(y, 1, y + 1))
    assert structural_hash(tir.Let(x, 1, x + 1)) == structural_hash(tir.Let(y, 1, y + 1))


def test_scalars_and_containers():
    assert structural_equal([1, 2], [1, 2])
    assert not structural_equal([1, 2], [1, 2, 3])
    assert structural_equal(1.5, 1.5)
    with pytest.raises(tvm.error.ValueError, match="array sizes 2 and 3"):
        assert_structural_equal([1, 2], [1, 2, 3])



def test_two_parses_are_equal_and_report_path():
    script = pytest.importorskip("minitvm.script")
    T = script.tir  # noqa: N806

    def make():
        @T.prim_func
        def func(a: T.handle, b: T.handle):
            A = T.match_buffer(a, (16,), "float32")
            B = T.match_buffer(b, (16,), "float32")
            for i in range(16):
                with T.block("B"):
                    vi = T.axis.spatial(16, i)
                    B[vi] = A[vi] * T.float32(1.0)

        return func

    # Same function name: the parser records it as the "global_symbol" attribute, which is
    # compared too; only the constant should differ.
    @T.prim_func
    def func(a: T.handle, b: T.handle):  # noqa: F811
        A = T.match_buffer(a, (16,), "float32")
        B = T.match_buffer(b, (16,), "float32")
        for i in range(16):
            with T.block("B"):
                vi = T.axis.spatial(16, i)
                B[vi] = A[vi] * T.float32(2.0)

    other = func
    f, g = make(), make()
    assert structural_equal(f, g)
    assert structural_hash(f) == structural_hash(g)
    assert not structural_equal(f, other)
    with pytest.raises(tvm.error.ValueError, match=r"1\.0 vs 2\.0"):
        assert_structural_equal(f, other)


def test_module_functions_compare_by_name_not_order():
    # As in TVM, an IRModule's functions are a map keyed by name: insertion order is ignored.
    def func(c):
        a = tir.Var("a", "handle")
        A = tir.decl_buffer((4,), "float32", "A")  # noqa: N806
        i = tir.Var("i", "int32")
        store = tir.BufferStore(A, tir.const(c, "float32"), [i])
        body = tir.For(i, 0, 4, tir.ForKind.SERIAL, store)
        return tir.PrimFunc([a], body, buffer_map={a: A})

    ab = tvm.IRModule({"a": func(1.0), "b": func(2.0)})
    ba = tvm.IRModule({"b": func(2.0), "a": func(1.0)})
    assert structural_equal(ab, ba)
    assert structural_hash(ab) == structural_hash(ba)
    swapped = tvm.IRModule({"a": func(2.0), "b": func(1.0)})
    assert not structural_equal(ab, swapped)
    with pytest.raises(tvm.error.ValueError, match=r'\["a"\]'):
        assert_structural_equal(ab, swapped)

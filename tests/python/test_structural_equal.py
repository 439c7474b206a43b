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

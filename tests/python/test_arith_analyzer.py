"""minitvm.arith.Analyzer from Python: simplify, bind, const_int_bound, int_set, can_prove.

These tests need minitvm.tir (to build expressions) and the stage 2 library; they skip when
either is missing.
"""
import pytest

import minitvm as tvm

tir = pytest.importorskip("minitvm.tir")
if tvm.get_global_func("arith.CreateAnalyzer", allow_missing=True) is None:
    pytest.skip("stage 2 (arith) is not built", allow_module_level=True)
if not hasattr(tir, "Var") or not hasattr(tvm, "ir") or not hasattr(tvm.ir, "Range"):
    pytest.skip("minitvm.tir / minitvm.ir are not complete yet", allow_module_level=True)

from minitvm import arith  # noqa: E402
from minitvm.ir.structural import structural_equal  # noqa: E402


def _range(lo, extent):
    return tvm.ir.Range(lo, extent)


def test_simplify_split_and_fuse_patterns():
    i, j = tir.Var("i", "int32"), tir.Var("j", "int32")
    ana = arith.Analyzer()
    ana.bind(j, _range(0, 4))
    assert structural_equal(ana.simplify((i * 4 + j) // 4), i)
    assert structural_equal(ana.simplify((i * 4 + j) % 4), j)
    assert structural_equal(ana.simplify(i * 1 - i), tir.IntImm("int32", 0))
    x = tir.Var("x", "int32")
    assert structural_equal(ana.simplify(x // 8 * 8 + x % 8), x)


def test_split_binding_prints_in_loop_order():
    i0, i1, i2 = (tir.Var(n, "int32") for n in ("i_0", "i_1", "i_2"))
    ana = arith.Analyzer()
    e = ana.simplify((i0 * 2 + i1) * 2 + i2)
    assert structural_equal(e, i0 * 4 + i1 * 2 + i2)


def test_const_int_bound_and_can_prove():
    i, j = tir.Var("i", "int32"), tir.Var("j", "int32")
    ana = arith.Analyzer()
    ana.bind(i, _range(0, 8))
    ana.bind(j, _range(0, 4))
    b = ana.const_int_bound(i * 4 + j)
    assert (b.min_value, b.max_value) == (0, 31)
    assert isinstance(b, arith.ConstIntBound)
    assert "max_value=31" in repr(b)
    assert ana.can_prove(i * 4 + j < 32)
    assert not ana.can_prove(i * 4 + j < 31)
    assert ana.can_prove_equal((i * 4 + j) // 4, i)


def test_int_set_symbolic():
    i0, i1 = tir.Var("i0", "int32"), tir.Var("i1", "int32")
    ana = arith.Analyzer()
    s = ana.int_set(i0 * 4 + i1, {i1: _range(0, 4)})
    assert structural_equal(s.min_value, i0 * 4)
    assert structural_equal(s.max_value, i0 * 4 + 3)


def test_bind_twice_raises():
    i = tir.Var("i", "int32")
    ana = arith.Analyzer()
    ana.bind(i, _range(0, 8))
    with pytest.raises(tvm.error.ValueError, match="already bound"):
        ana.bind(i, _range(0, 16))
    ana.bind(i, _range(0, 16), allow_override=True)
    assert ana.const_int_bound(i).max_value == 15


def test_floats_are_only_folded():
    f = tir.Var("f", "float32")
    ana = arith.Analyzer()
    e = f * tir.FloatImm("float32", 1.0)
    assert structural_equal(ana.simplify(e), e)

"""Structural equality, the verifier and the analyzer from Python with only the registered
globals: no minitvm.tir needed. IR comes from the TVMScript parser ("script.FromSource")
when it is built; those tests skip otherwise."""
import pytest

import minitvm as tvm

if tvm.get_global_func("ir.StructuralEqual", allow_missing=True) is None:
    pytest.skip("stage 2 (structural equality) is not built", allow_module_level=True)

from minitvm import arith  # noqa: E402
from minitvm.ir.structural import (  # noqa: E402
    assert_structural_equal,
    structural_equal,
    structural_hash,
)
from minitvm.tir.analysis import verify_well_formed  # noqa: E402

SOURCE = '''
# from minitvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i_0, i_1 in T.grid(4, 4):
        with T.block("B"):
            vi = T.axis.spatial(16, i_0 * 4 + i_1)
            B[vi] = A[vi] * T.float32(%s)
'''


def _parse(text):
    parse = tvm.get_global_func("script.FromSource", allow_missing=True)
    if parse is None:
        pytest.skip("the TVMScript parser is not built")
    try:
        return parse(text, "<test>", 0)
    except tvm.error.TypeError:
        pytest.skip("script.FromSource has another signature")


def test_scalars_and_containers():
    assert structural_equal([1, 2], [1, 2])
    assert not structural_equal([1, 2], [1, 2, 3])
    assert structural_equal({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert structural_hash([1, 2]) == structural_hash([1, 2])
    with pytest.raises(tvm.error.ValueError, match="array sizes 2 and 3"):
        assert_structural_equal([1, 2], [1, 2, 3])


def test_two_parses_are_equal():
    f, g, h = _parse(SOURCE % "1.0"), _parse(SOURCE % "1.0"), _parse(SOURCE % "2.0")
    assert structural_equal(f, g)
    assert structural_hash(f) == structural_hash(g)
    assert not structural_equal(f, h)
    with pytest.raises(tvm.error.ValueError, match=r"block\.body\.value\.b\.value: 1\.0 vs 2\.0"):
        assert_structural_equal(f, h)


def test_verify_well_formed_accepts_parsed_function():
    assert verify_well_formed(_parse(SOURCE % "1.0")) is True


def test_analyzer_on_parsed_binding():
    f = _parse(SOURCE % "1.0")
    outer = f.body.block.body
    binding = outer.body.body.iter_values[0]  # i_0 * 4 + i_1
    ana = arith.Analyzer()
    assert structural_equal(ana.simplify(binding), binding)
    bound = ana.const_int_bound(binding)
    assert isinstance(bound, arith.ConstIntBound)
    s = ana.int_set(binding)
    assert s.is_single_point()

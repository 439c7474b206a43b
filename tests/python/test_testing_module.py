"""minitvm.testing and minitvm.tir.schedule.testing: the helpers TVM's own tests import."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import minitvm as tvm
import minitvm.testing
from minitvm import tir
from minitvm.script import tir as T
from minitvm.tir.schedule.testing import (
    assert_structural_equal_ignore_global_symbol,
    verify_trace_roundtrip,
)


@T.prim_func
def elementwise(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    for i, j in T.grid(128, 128):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)


@T.prim_func
def elementwise_renamed(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    for i, j in T.grid(128, 128):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)


# --- parameter / parameters / fixture ----------------------------------------------------

by_dict_param = tvm.testing.parameter(by_dict={"small": 1, "large": 100})
plain_param = tvm.testing.parameter("a", "b", "c")
pair_x, pair_y = tvm.testing.parameters((1, 2), (10, 20))

_seen_plain = []


@tvm.testing.fixture
def doubled(by_dict_param):
    return 2 * by_dict_param


def test_parameter_by_dict(by_dict_param, request):
    assert by_dict_param in (1, 100)
    assert request.node.callspec.id in ("small", "large")


def test_parameter_values(plain_param):
    assert plain_param in ("a", "b", "c")
    _seen_plain.append(plain_param)


def test_parameters_vary_together(pair_x, pair_y):
    assert pair_y == 2 * pair_x


def test_fixture_uses_parameter(doubled, by_dict_param):
    assert doubled == 2 * by_dict_param


def test_parameter_by_dict_exclusive():
    with pytest.raises(RuntimeError):
        tvm.testing.parameter(1, by_dict={"one": 1})


# --- assert_allclose ---------------------------------------------------------------------


def test_assert_allclose():
    a = np.arange(6, dtype="float32").reshape(2, 3)
    tvm.testing.assert_allclose(a, a + 1e-9, rtol=1e-5, atol=1e-5)
    tvm.testing.assert_allclose(tvm.nd.array(a), a)
    with pytest.raises(AssertionError):
        tvm.testing.assert_allclose(a, a + 1.0, rtol=1e-5, atol=1e-5)
    with pytest.raises(AssertionError):
        tvm.testing.assert_allclose(a, a.reshape(3, 2))


# --- markers -----------------------------------------------------------------------------


@tvm.testing.requires_gpu
def test_requires_gpu_skips():
    raise AssertionError("a GPU-only test ran on minitvm")


@tvm.testing.requires_llvm
def test_requires_llvm_runs():
    assert True


# --- main() ------------------------------------------------------------------------------


def test_main_runs_pytest_on_calling_file(tmp_path):
    test_file = tmp_path / "test_uses_main.py"
    test_file.write_text(
        textwrap.dedent(
            """
            import minitvm.testing

            def test_ok():
                assert True

            if __name__ == "__main__":
                minitvm.testing.main()
            """
        )
    )
    proc = subprocess.run(
        [sys.executable, str(test_file), "-q", "-p", "no:cacheprovider"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout


# --- CompareBeforeAfter ------------------------------------------------------------------


class TestCompareBeforeAfterSplit(tvm.testing.CompareBeforeAfter):
    """Functions left unparsed by @T.prim_func in a class body are parsed by the base class."""

    def transform(self):
        def func(mod):
            sch = tir.Schedule(mod)
            i, _ = sch.get_loops("B")
            sch.parallel(i)
            return sch.mod

        return func

    @T.prim_func
    def before(A: T.Buffer((16, 4), "float32"), B: T.Buffer((16, 4), "float32")):
        for i, j in T.grid(16, 4):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]

    @T.prim_func
    def expected(A: T.Buffer((16, 4), "float32"), B: T.Buffer((16, 4), "float32")):
        for i in T.parallel(16):
            for j in range(4):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vi, vj] = A[vi, vj]


class TestCompareBeforeAfterError(tvm.testing.CompareBeforeAfter):
    """``expected`` may be the exception the transform must raise; ``before`` a method."""

    def transform(self):
        def func(mod):
            sch = tir.Schedule(mod)
            sch.get_block("no_such_block")
            return sch.mod

        return func

    def before(self):
        return elementwise

    expected = tvm.error.TVMError


# --- tir.schedule.testing ----------------------------------------------------------------


def _scheduled():
    sch = tir.Schedule(elementwise, debug_mask="all")
    i, j = sch.get_loops(sch.get_block("B"))
    io, ii = sch.split(i, factors=[None, 32])
    sch.reorder(ii, io)
    sch.parallel(ii)
    return sch


@pytest.mark.parametrize("text_format", ["python", "json", ("python", "json")])
def test_verify_trace_roundtrip(text_format):
    sch = _scheduled()
    new_sch = verify_trace_roundtrip(sch=sch, mod=elementwise, text_format=text_format)
    tvm.ir.assert_structural_equal(new_sch.mod, sch.mod)
    assert new_sch.trace.as_python() == sch.trace.as_python()


def test_verify_trace_roundtrip_detects_wrong_module():
    # Replayed on a different function (another global symbol), the result must differ.
    with pytest.raises(ValueError):
        verify_trace_roundtrip(sch=_scheduled(), mod=elementwise_renamed, text_format="json")


def test_verify_trace_roundtrip_bad_format():
    with pytest.raises(ValueError):
        verify_trace_roundtrip(sch=_scheduled(), mod=elementwise, text_format="yaml")


def test_assert_structural_equal_ignore_global_symbol():
    assert elementwise.attrs["global_symbol"] == "elementwise"
    sch = tir.Schedule(elementwise)
    assert_structural_equal_ignore_global_symbol(elementwise_renamed, sch.mod["main"])
    assert_structural_equal_ignore_global_symbol(elementwise, elementwise_renamed)
    with pytest.raises(ValueError):
        tvm.ir.assert_structural_equal(elementwise, elementwise_renamed)
    with pytest.raises(ValueError):
        assert_structural_equal_ignore_global_symbol(elementwise, _scheduled().mod["main"])


def test_schedule_testing_makes_tvm_testing_available():
    import minitvm.tir.schedule.testing  # pylint: disable=import-outside-toplevel,unused-import

    assert tvm.testing.main is minitvm.testing.main

"""The visible lowering path: ``minitvm.build(mod, target, pipeline=...)`` runs the TIR pipeline
(a Pass, a name, or None) and hands the lowered module to ``"target.build.<kind>"``; the LLVM
backend no longer lowers on its own."""
import numpy as np
import pytest

import minitvm as tvm
from conftest import requires_global

def _parse():
    """A 16x12 @ 12x20 matmul PrimFunc from tensor expressions, in a module."""
    requires_global("te.ComputeOp")
    from minitvm import te  # pylint: disable=import-outside-toplevel

    a = te.placeholder((16, 12), "float32", name="A")
    b = te.placeholder((12, 20), "float32", name="B")
    k = te.reduce_axis((0, 12), "k")
    c = te.compute((16, 20), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="C")
    return tvm.IRModule({"main": te.create_prim_func([a, b, c])})


def _run(built):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((16, 12)).astype("float32")
    b = rng.standard_normal((12, 20)).astype("float32")
    c = tvm.nd.array(np.zeros((16, 20), "float32"))
    built["main"](tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5, atol=1e-5)


def _needs_llvm():
    requires_global("target.build.llvm")
    requires_global("tir.transform.GetDefaultTIRPipeline")


def test_default_pipeline_by_name_and_by_default():
    _needs_llvm()
    from minitvm import driver  # pylint: disable=import-outside-toplevel

    _run(driver.build(_parse(), target="llvm"))
    _run(driver.build(_parse(), target="llvm", pipeline="default"))
    _run(tvm.compile(_parse(), target="llvm"))


def test_pipeline_as_a_pass_is_the_one_run():
    _needs_llvm()
    from minitvm import driver, transform  # pylint: disable=import-outside-toplevel
    from minitvm.tir import transform as tt  # pylint: disable=import-outside-toplevel

    ran = []

    @transform.module_pass(opt_level=0, name="Record")
    def record(mod, _ctx):
        ran.append("record")
        return mod

    pipeline = transform.Sequential([record, tt.get_default_tir_pipeline()])
    _run(driver.build(_parse(), target="llvm", pipeline=pipeline))
    assert ran == ["record"]
    _run(tvm.compile(_parse(), target="llvm", tir_pipeline=pipeline))
    assert ran == ["record", "record"]


def test_pipeline_none_hands_the_module_on_as_it_is():
    _needs_llvm()
    from minitvm import driver  # pylint: disable=import-outside-toplevel
    from minitvm.tir import transform as tt  # pylint: disable=import-outside-toplevel

    lowered = tt.get_default_tir_pipeline()(_parse())
    _run(driver.build(lowered, target="llvm", pipeline=None))
    with pytest.raises(tvm.error.ValueError, match='"main" has not been lowered'):
        driver.build(_parse(), target="llvm", pipeline=None)
    # The backend itself does not lower.
    with pytest.raises(tvm.error.ValueError, match="has not been lowered"):
        tvm.get_global_func("target.build.llvm")(_parse(), "llvm")


def test_ref_target_runs_tensorir_without_lowering():
    requires_global("driver.build")
    from minitvm import driver  # pylint: disable=import-outside-toplevel

    _run(driver.build(_parse(), target="ref"))
    _run(driver.build(_parse(), target="ref", pipeline=None))


def test_bad_pipeline_arguments():
    requires_global("driver.build")
    from minitvm import driver  # pylint: disable=import-outside-toplevel

    with pytest.raises(tvm.error.ValueError, match='unknown TIR pipeline "fast"'):
        driver.build(_parse(), target="ref", pipeline="fast")
    with pytest.raises(tvm.error.TypeError, match="pipeline must be a Pass"):
        driver.build(_parse(), target="ref", pipeline=3)

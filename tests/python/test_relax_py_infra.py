"""relax.build's exec_mode keyword: "compiled" runs the bytecode path (docs/tvm_compat.md)."""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import relax
from minitvm.script import relax as R, ir as I


def _mod():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
            z = R.add(x, y)
            return z

    return Mod


@pytest.mark.parametrize("mode", ["bytecode", "compiled"])
def test_exec_mode_runs_against_numpy(mode):
    ex = relax.build(_mod(), "llvm", exec_mode=mode)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    a = np.random.rand(2, 3).astype("float32")
    b = np.random.rand(2, 3).astype("float32")
    out = vm["main"](tvm.nd.array(a), tvm.nd.array(b)).numpy()
    np.testing.assert_allclose(out, a + b, rtol=1e-6)


def test_exec_mode_unknown_is_value_error():
    with pytest.raises(tvm.error.ValueError, match="exec_mode must be"):
        relax.build(_mod(), "llvm", exec_mode="jit")

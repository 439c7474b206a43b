# Lesson 8 (Python): compile the model and run it in the Relax VM
# ================================================================
#
# Lessons 6 and 7 ran Relax with the reference interpreter: exact, readable, slow. This lesson
# is the rest of TVM's quick start: `tvm.compile` turns the IRModule into a deployable module —
# the PrimFuncs become machine code through LLVM (stage 5), the Relax function becomes bytecode
# for a small virtual machine — and `relax.VirtualMachine` runs it.
#
#   1. the quick start's MLP as an nn.Module, exported, through the "zero" pipeline;
#   2. `tvm.compile(mod, "llvm")` → an executable; its bytecode (`as_text()`), its `stats()`;
#   3. `relax.VirtualMachine(ex, tvm.cpu())["forward"](data, *params)`, checked against
#      low-level NumPy (and the Relax interpreter);
#   4. export to one shared library, load it back in a fresh process, run it;
#   5. the time per call beside NumPy and PyTorch (printed to stderr: timings vary);
#   6. TVM's way to transform the weights once: `main_transform_params`.
import os
import subprocess
import sys
import tempfile
import timeit

import numpy as np

import minitvm as tvm
from minitvm import relax
from minitvm.relax.frontend import nn


class MLPModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 256)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        x = self.fc1(x)
        x = self.relu1(x)
        x = self.fc2(x)
        return x


# -----------------------------------------------------------------------------------------
# 1. Export and optimise (lesson 7)
# -----------------------------------------------------------------------------------------
mod, param_spec = MLPModel().export_tvm(
    spec={"forward": {"x": nn.spec.Tensor((1, 784), "float32")}})
mod = relax.get_pipeline("zero")(mod)

# -----------------------------------------------------------------------------------------
# 2. Compile
# -----------------------------------------------------------------------------------------
# `tvm.compile` lowers the Relax function for the VM (explicit allocations, planned memory,
# shape checks), generates bytecode for it, and compiles every PrimFunc with LLVM for the
# target. The result is one runtime module: the executable, importing the kernel library.
target = tvm.target.Target("llvm")
ex = tvm.compile(mod, target)
print(ex.as_text())
print(ex.stats())

# -----------------------------------------------------------------------------------------
# 3. Run it in the VM
# -----------------------------------------------------------------------------------------
device = tvm.cpu()
vm = relax.VirtualMachine(ex, device)
rng = np.random.default_rng(0)
data = rng.random((1, 784), dtype="float32")
params = [rng.random(tuple(int(d) for d in p.shape), dtype="float32") for _, p in param_spec]
tvm_data = tvm.nd.array(data, device=device)
tvm_params = [tvm.nd.array(p, device=device) for p in params]
out = vm["forward"](tvm_data, *tvm_params).numpy()


def lnumpy_mlp(x, w1, b1, w2, b2):
    """The reference: the same arithmetic as explicit loops (destination passing)."""
    h = np.empty((1, 256), dtype="float32")
    for j in range(256):
        h[0, j] = max(np.dot(x[0, :], w1[j, :]) + b1[j], 0.0)
    res = np.empty((1, 10), dtype="float32")
    for j in range(10):
        res[0, j] = np.dot(h[0, :], w2[j, :]) + b2[j]
    return res


reference = lnumpy_mlp(data, *params)
np.testing.assert_allclose(out, reference, rtol=1e-4)
np.testing.assert_allclose(out, relax.interpret(mod, "forward", data, *params).numpy(), rtol=1e-4)
# As in the quick start, the weights are uniform in [0, 1): the logits are large.
print("VM logits:         ", np.array2string(out[0], precision=1, max_line_width=120))
print("low-level NumPy:   ", np.array2string(reference[0], precision=1, max_line_width=120))

# A wrong argument is refused before any kernel runs, naming the parameter.
try:
    vm["forward"](tvm.nd.array(np.zeros((2, 784), "float32")), *tvm_params)
    raise SystemExit("a wrong shape was accepted")
except tvm.error.TVMError as err:
    print(type(err).__name__ + ":", str(err).splitlines()[0])

# -----------------------------------------------------------------------------------------
# 4. Deploy: one shared library, loaded by a fresh process
# -----------------------------------------------------------------------------------------
with tempfile.TemporaryDirectory() as tmp:
    lib_path = os.path.join(tmp, "mlp.so")
    ex.export_library(lib_path)
    np.save(os.path.join(tmp, "data.npy"), data)
    np.savez(os.path.join(tmp, "params.npz"), *params)
    child = f"""
import numpy as np, minitvm as tvm
from minitvm import relax
lib = tvm.runtime.load_module({lib_path!r})
vm = relax.VirtualMachine(lib, tvm.cpu())
data = np.load({os.path.join(tmp, "data.npy")!r})
p = np.load({os.path.join(tmp, "params.npz")!r})
params = [tvm.nd.array(p[f"arr_{{i}}"]) for i in range(len(p.files))]
np.save({os.path.join(tmp, "out.npy")!r}, vm["forward"](tvm.nd.array(data), *params).numpy())
"""
    subprocess.run([sys.executable, "-c", child], check=True, env=os.environ.copy())
    loaded_out = np.load(os.path.join(tmp, "out.npy"))
np.testing.assert_allclose(loaded_out, out, rtol=1e-6)
print("the exported library, loaded in a fresh process, gives the same logits")

# -----------------------------------------------------------------------------------------
# 5. Time per call, beside NumPy and PyTorch (stderr)
# -----------------------------------------------------------------------------------------
timer = vm.time_evaluator("forward", device, number=200, repeat=3)
t_vm = min(timer(tvm_data, *tvm_params).results)
w1, b1, w2, b2 = params
t_np = min(timeit.repeat(lambda: np.maximum(data @ w1.T + b1, 0) @ w2.T + b2,
                         number=200, repeat=3)) / 200
line = f"time per call (batch 1): minitvm VM {t_vm * 1e6:.1f} us, NumPy {t_np * 1e6:.1f} us"
try:
    import torch

    tw = [torch.from_numpy(a) for a in (data, w1, b1, w2, b2)]
    with torch.no_grad():
        f = lambda: torch.relu(tw[0] @ tw[1].T + tw[2]) @ tw[3].T + tw[4]  # noqa: E731
        t_torch = min(timeit.repeat(f, number=200, repeat=3)) / 200
    line += f", PyTorch {t_torch * 1e6:.1f} us"
except ImportError:
    line += ", PyTorch not installed"
print(line, file=sys.stderr)

# -----------------------------------------------------------------------------------------
# 6. Transform the weights once (TVM's cpu_weight_prepack)
# -----------------------------------------------------------------------------------------
# `forward` above transposes both weights on every call (the `transpose` kernels in its
# bytecode). The export marked the function with "num_input" = 1: its parameters after the first
# are weights. LiftTransformParams moves everything computed from weights alone into a function
# `forward_transform_params`, run once; with `cpu_weight_prepack=True` the CPU rules also pack
# the weights there for their kernels (see docs/performance.md). The deployment changes: the
# caller runs the transform and passes its results.
lifted = relax.pipeline.static_shape_tuning_pipeline(
    total_trials=0, target=target, cpu_weight_prepack=True)(mod)
ex6 = tvm.compile(lifted, target)
vm6 = relax.VirtualMachine(ex6, device)
transformed = vm6["forward_transform_params"](tvm_params)  # once
out6 = vm6["forward"](tvm_data, *transformed).numpy()
np.testing.assert_allclose(out6, out, rtol=1e-5)
fwd = lifted["forward"]
print(f"forward_transform_params: {len(tvm_params)} weights in, {len(transformed)} values out")
print("forward now takes:", ", ".join(p.name_hint for p in fwd.params[:3]),
      f"and {len(fwd.params) - 3} transformed weights")
forward_text = ex6.as_text().split("@forward(")[1].split("\n@")[0]
print("same logits; forward still transposes a weight:", "transpose" in forward_text)
t_lifted = min(vm6.time_evaluator("forward", device, number=200, repeat=3)(
    tvm_data, *transformed).results)
print(f"time per call, weights transformed once: {t_lifted * 1e6:.1f} us", file=sys.stderr)

print("OK: the quick start's MLP compiled by tvm.compile and run in the Relax VM equals "
      "low-level NumPy, also after export_library and load_module in a fresh process")

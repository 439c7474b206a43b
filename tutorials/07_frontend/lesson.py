# Lesson 7 (Python): from nn.Module to a lowered IRModule
# ========================================================
#
# Lesson 6 wrote the Relax module by hand. Real models are not written that way: TVM's quick
# start builds its MLP with `relax.frontend.nn`, an API shaped like PyTorch's, and lets a
# *pipeline* of passes turn the graph of high-level operators into calls of generated tensor
# functions. This lesson follows the quick start:
#
#   1. the MLP as an `nn.Module`, exported with `export_tvm` to an IRModule and its parameter
#      list;
#   2. `relax.get_pipeline("zero")` applied to it, pass by pass: a pass instrument reports what
#      each pass left, and a diff shows what fusion changed;
#   3. before and after the pipeline, the module run by the Relax reference interpreter and
#      compared with low-level NumPy;
#   4. a real network: ResNet-18 from `relax.testing`, and the same network written in PyTorch
#      and imported with `from_fx`, both checked against PyTorch;
#   5. its batch norms folded into the convolutions (FoldBatchnormToConv2D + FoldConstant).
import numpy as np
import torch

import minitvm as tvm
from minitvm import relax
from minitvm.relax.frontend import nn
from minitvm.relax.testing import torch_models


# -----------------------------------------------------------------------------------------
# 1. The model, exported
# -----------------------------------------------------------------------------------------
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


model = MLPModel()
# `spec` says which methods to export and the struct info of their inputs. The exported
# `forward` takes the input, then every parameter; `param_spec` lists the parameters in that
# order, with PyTorch's names.
mod, param_spec = model.export_tvm(spec={"forward": {"x": nn.spec.Tensor((1, 784), "float32")}})
mod.show()
for name, param in param_spec:
    print(f"{name}: {tuple(param.shape)} {param.dtype}")

# Weights and data from a seeded generator (the quick start uses np.random.rand).
rng = np.random.default_rng(0)
data = rng.random((1, 784), dtype="float32")
params = [(rng.random(tuple(int(d) for d in p.shape), dtype="float32") - 0.5) * 0.1
          for _, p in param_spec]


def lnumpy_mlp(x, w1, b1, w2, b2):
    """The reference: low-level loops over the same arithmetic (destination passing)."""
    h = np.empty((1, 256), dtype="float32")
    for j in range(256):
        h[0, j] = max(np.dot(x[0, :], w1[j, :]) + b1[j], 0.0)
    out = np.empty((1, 10), dtype="float32")
    for j in range(10):
        out[0, j] = np.dot(h[0, :], w2[j, :]) + b2[j]
    return out


reference = lnumpy_mlp(data, *params)
before = relax.interpret(mod, "forward", data, *params).numpy()
np.testing.assert_allclose(before, reference, rtol=1e-4, atol=1e-5)
print("exported module (interpreted):", np.round(before[0], 4))


# -----------------------------------------------------------------------------------------
# 2. The "zero" pipeline, pass by pass
# -----------------------------------------------------------------------------------------
# A pipeline is a list of passes. "zero" legalizes every high-level operator into a call_tir
# of a generated PrimFunc, annotates each PrimFunc's pattern, folds constants, fuses
# neighbouring kernels and merges each fused group into one PrimFunc.
pipeline = relax.get_pipeline("zero")
print("the zero pipeline:", [p.name for p in pipeline])


# An instrument runs around every pass. This one prints how many kernels each pass leaves.
@tvm.transform.pass_instrument
class CountKernels:
    def run_after_pass(self, mod, info):
        n_prim = sum(1 for gv in mod.get_global_vars() if isinstance(mod[gv], tvm.tir.PrimFunc))
        print(f"  after {info.name}: {n_prim} PrimFunc(s)")


with tvm.transform.PassContext(instruments=[CountKernels()]):
    lowered = pipeline(mod)
lowered.show()

# What fusion did, as a diff of `forward`: LegalizeOps gave one kernel per operator; FuseOps
# groups each matmul with the bias add and relu that follow it (a matmul is "out-elementwise
# fusable", the add and relu read its result element by element), and FuseTIR merges each
# group into one PrimFunc.
legalized = tvm.transform.Sequential(list(pipeline)[:3])(mod)
print(tvm.transform.line_diff(legalized["forward"].script(), lowered["forward"].script()))

after = relax.interpret(lowered, "forward", data, *params).numpy()
np.testing.assert_allclose(after, reference, rtol=1e-4, atol=1e-5)
print("after the zero pipeline (interpreted):", np.round(after[0], 4))


# -----------------------------------------------------------------------------------------
# 3. A real network: ResNet-18, twice
# -----------------------------------------------------------------------------------------
# `relax.testing.resnet.get_workload` builds ResNet-18 with seeded weights (torchvision's
# names). `torch_models` writes the same network in PyTorch; loading the same
# weights gives the yardstick. A 32x32 image keeps the interpreter quick.
resnet_mod, resnet_params = relax.testing.resnet.get_workload(
    batch_size=1, num_layers=18, image_shape=(3, 32, 32), num_classes=10, seed=0)
image = np.random.default_rng(1).random((1, 3, 32, 32), dtype="float32")
torch_net = torch_models.load(
    torch_models.resnet(18, num_classes=10), resnet_params)
with torch.no_grad():
    torch_out = torch_net(torch.from_numpy(image)).numpy()

ours = relax.interpret(resnet_mod, "main", image, *resnet_params.values()).numpy()
np.testing.assert_allclose(ours, torch_out, rtol=1e-3, atol=1e-4)
print("ResNet-18 (relax.testing) matches PyTorch; top class", int(ours.argmax()))

# The same PyTorch network imported through torch.fx: parameters become constants.
from minitvm.relax.frontend.torch import from_fx  # noqa: E402

graph = torch.fx.symbolic_trace(torch_net)
imported = from_fx(graph, [((1, 3, 32, 32), "float32")])
imported_out = relax.interpret(imported, "main", image).numpy()
np.testing.assert_allclose(imported_out, torch_out, rtol=1e-3, atol=1e-4)
print("ResNet-18 (from_fx) matches PyTorch; top class", int(imported_out.argmax()))


# -----------------------------------------------------------------------------------------
# 4. Batch norms folded into the convolutions
# -----------------------------------------------------------------------------------------
# In inference a batch norm is a per-channel scale and shift. After a conv2d whose kernel is a
# constant, both fold away: with s = gamma / sqrt(var + eps), bn(conv2d(x, W)) equals
# conv2d(x, W * s) + (beta - mean * s). FoldBatchnormToConv2D writes that arithmetic on the
# constants, and FoldConstant computes the new kernels and biases once. (The "default"
# pipeline does this by itself for the batch norms in inference mode.)
def count_calls(mod, op_name):
    return mod["main"].script().count(op_name + "(")


folded = relax.transform.FoldBatchnormToConv2D()(imported)
folded = relax.transform.CanonicalizeBindings()(folded)
folded = relax.transform.DeadCodeElimination()(relax.transform.FoldConstant()(folded))
print("batch norms before:", count_calls(imported, "R.nn.batch_norm"),
      "after:", count_calls(folded, "R.nn.batch_norm"),
      "| convolutions:", count_calls(folded, "R.nn.conv2d"))
folded_out = relax.interpret(folded, "main", image).numpy()
np.testing.assert_allclose(folded_out, torch_out, rtol=1e-3, atol=1e-4)
print("ResNet-18 with its batch norms folded matches PyTorch; top class",
      int(folded_out.argmax()))

print("OK: nn.Module MLP before and after the zero pipeline equals low-level NumPy; "
      "ResNet-18 from relax.testing and from PyTorch, and with its batch norms folded, matches "
      "PyTorch")

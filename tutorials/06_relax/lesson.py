# Lesson 6 (Python): Relax — a whole model as one IRModule
# =========================================================
#
# Lessons 3-5 wrote *one* tensor function at a time (a PrimFunc). A model is many of them,
# called in order, each output feeding the next. Relax is the layer of TVM that writes that
# graph down: a Relax function calls primitive tensor functions, library functions and
# operators, and one IRModule holds the Relax functions beside the PrimFuncs they call.
#
# This lesson follows the MLC course chapter "End-to-end model integration" with its
# two-layer MLP (784 -> 128 -> relu -> 10):
#
#   1. the reference: NumPy, and low-level NumPy where every function writes into an output
#      its caller allocated (destination passing);
#   2. the MLP as an IRModule: PrimFuncs linear0 / relu0 / linear1 and a Relax `main` that
#      calls them with `R.call_tir` inside a dataflow block;
#   3. what `call_tir` means, spelled out in NumPy;
#   4. running the module with the Relax reference interpreter;
#   5. calling library code instead: `R.call_dps_packed("env.linear", ...)` reaches functions
#      registered from Python (here PyTorch, through DLPack);
#   6. mixing both;
#   7. binding the weights into the module as constants (`BindParams`).
#
# Every result is compared with the low-level NumPy MLP.
import numpy as np
import torch

import minitvm as tvm
from minitvm import lownumpy as lnp
from minitvm import relax
from minitvm.script import ir as I
from minitvm.script import relax as R
from minitvm.script import tir as T

# The weights come from a seed (the same numbers as lesson 2 and the C++ lesson).
params = lnp.models.mlp_init_params(784, 128, 10, seed=0)
w0, b0, w1, b1 = (params[name].numpy() for name in ("w0", "b0", "w1", "b1"))
data = lnp.random_uniform((1, 784), 0.0, 1.0, seed=1).numpy()


# -----------------------------------------------------------------------------------------
# 1. The reference: low-level NumPy with destination passing
# -----------------------------------------------------------------------------------------
# Each function receives its output array and fills it; nothing is allocated inside. This
# is the calling convention of a PrimFunc.
def lnumpy_linear0(X, W, B, Z):
    Y = np.empty((1, 128), dtype="float32")
    for i in range(1):
        for j in range(128):
            Y[i, j] = np.dot(X[i, :], W[j, :])  # the k loop, as a dot product
    for i in range(1):
        for j in range(128):
            Z[i, j] = Y[i, j] + B[j]


def lnumpy_relu0(X, Y):
    for i in range(1):
        for j in range(128):
            Y[i, j] = max(X[i, j], 0.0)


def lnumpy_linear1(X, W, B, Z):
    Y = np.empty((1, 10), dtype="float32")
    for i in range(1):
        for j in range(10):
            Y[i, j] = np.dot(X[i, :], W[j, :])
    for i in range(1):
        for j in range(10):
            Z[i, j] = Y[i, j] + B[j]


def lnumpy_mlp(data, w0, b0, w1, b1):
    lv0 = np.empty((1, 128), dtype="float32")
    lnumpy_linear0(data, w0, b0, lv0)
    lv1 = np.empty((1, 128), dtype="float32")
    lnumpy_relu0(lv0, lv1)
    out = np.empty((1, 10), dtype="float32")
    lnumpy_linear1(lv1, w1, b1, out)
    return out


reference = lnumpy_mlp(data, w0, b0, w1, b1)
np.testing.assert_allclose(reference, np.maximum(data @ w0.T + b0, 0) @ w1.T + b1, rtol=1e-5)
print("low-level NumPy logits:", np.round(reference[0], 3))


# -----------------------------------------------------------------------------------------
# 2. The MLP as an IRModule
# -----------------------------------------------------------------------------------------
# The three PrimFuncs are the low-level NumPy functions above in TensorIR. `main` is a Relax
# function: its parameters carry struct info (`R.Tensor((1, 784), "float32")`: a tensor of
# that shape and dtype), and its body calls the PrimFuncs with `R.call_tir`, naming the
# output's struct info (`out_sinfo`), because a PrimFunc returns nothing — it writes into
# the output buffer it is given. `with R.dataflow()` marks a block with no side effects:
# a computational graph. Only what `R.output` names is visible after it.
@I.ir_module
class MyModule:
    @T.prim_func
    def relu0(X: T.Buffer((1, 128), "float32"), Y: T.Buffer((1, 128), "float32")):
        for i, j in T.grid(1, 128):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @T.prim_func
    def linear0(X: T.Buffer((1, 784), "float32"), W: T.Buffer((128, 784), "float32"),
                B: T.Buffer((128,), "float32"), Z: T.Buffer((1, 128), "float32")):
        Y = T.alloc_buffer((1, 128), "float32")
        for i, j, k in T.grid(1, 128, 784):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(1, 128):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @T.prim_func
    def linear1(X: T.Buffer((1, 128), "float32"), W: T.Buffer((10, 128), "float32"),
                B: T.Buffer((10,), "float32"), Z: T.Buffer((1, 10), "float32")):
        Y = T.alloc_buffer((1, 10), "float32")
        for i, j, k in T.grid(1, 10, 128):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(1, 10):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @R.function
    def main(x: R.Tensor((1, 784), "float32"), w0: R.Tensor((128, 784), "float32"),
             b0: R.Tensor((128,), "float32"), w1: R.Tensor((10, 128), "float32"),
             b1: R.Tensor((10,), "float32")):
        with R.dataflow():
            lv0 = R.call_tir(MyModule.linear0, (x, w0, b0), R.Tensor((1, 128), dtype="float32"))
            lv1 = R.call_tir(MyModule.relu0, (lv0,), R.Tensor((1, 128), dtype="float32"))
            out = R.call_tir(MyModule.linear1, (lv1, w1, b1), R.Tensor((1, 10), dtype="float32"))
            R.output(out)
        return out


# Printing shows the module in TVM's current form: the callee as `cls.linear0`, the output
# struct info as `out_sinfo=`, every binding's struct info inferred.
print(MyModule.script())
assert relax.analysis.well_formed(MyModule)


# -----------------------------------------------------------------------------------------
# 3. What call_tir means
# -----------------------------------------------------------------------------------------
# `R.call_tir(f, (x, w, b), out_sinfo)` allocates the output that `out_sinfo` describes,
# calls the PrimFunc with the inputs *and* that output, and returns the output. In NumPy:
def lnumpy_call_tir(prim_func, inputs, shape, dtype):
    res = np.empty(shape, dtype=dtype)
    prim_func(*inputs, res)
    return res


def lnumpy_mlp_with_call_tir(data, w0, b0, w1, b1):
    lv0 = lnumpy_call_tir(lnumpy_linear0, (data, w0, b0), (1, 128), dtype="float32")
    lv1 = lnumpy_call_tir(lnumpy_relu0, (lv0,), (1, 128), dtype="float32")
    return lnumpy_call_tir(lnumpy_linear1, (lv1, w1, b1), (1, 10), dtype="float32")


np.testing.assert_allclose(lnumpy_mlp_with_call_tir(data, w0, b0, w1, b1), reference, rtol=1e-6)
# So `main` is a computational graph whose nodes are calls that read their inputs and return
# a fresh output: no call changes anything another call can see. That is what lets a
# compiler reorder, fuse or replace them.


# -----------------------------------------------------------------------------------------
# 4. Running the module: the Relax reference interpreter
# -----------------------------------------------------------------------------------------
# `relax.interpret` runs a Relax function as written, binding by binding: call_tir through
# the TIR interpreter of stage 2, operators through the stage-1 reference operators. It is the
# reference that compiled code (stage 5's VM) is checked against.
out = relax.interpret(MyModule, "main", data, w0, b0, w1, b1)
np.testing.assert_allclose(out.numpy(), reference, rtol=1e-5, atol=1e-5)
print("Relax (call_tir) logits:", np.round(out.numpy()[0], 3))


# -----------------------------------------------------------------------------------------
# 5. Library functions: call_dps_packed
# -----------------------------------------------------------------------------------------
# A model need not be written in TensorIR: `R.call_dps_packed("env.linear", ...)` calls a
# function found by name in the global registry, with the same destination-passing
# convention. Any Python function registered with `tvm.register_func` qualifies; these use
# PyTorch, reaching the arrays without a copy through DLPack.
@tvm.register_func("env.linear", override=True)
def torch_linear(x, w, b, out):
    x_t, w_t, b_t = (torch.from_dlpack(a) for a in (x, w, b))
    out_t = torch.from_dlpack(out)
    torch.mm(x_t, w_t.T, out=out_t)
    torch.add(out_t, b_t, out=out_t)


@tvm.register_func("env.relu", override=True)
def torch_relu(x, out):
    x_t, out_t = torch.from_dlpack(x), torch.from_dlpack(out)
    torch.maximum(x_t, torch.Tensor([0.0]), out=out_t)


@I.ir_module
class MyModuleWithExternCall:
    @R.function
    def main(x: R.Tensor((1, 784), "float32"), w0: R.Tensor((128, 784), "float32"),
             b0: R.Tensor((128,), "float32"), w1: R.Tensor((10, 128), "float32"),
             b1: R.Tensor((10,), "float32")):
        with R.dataflow():
            lv0 = R.call_dps_packed("env.linear", (x, w0, b0), R.Tensor((1, 128), dtype="float32"))
            lv1 = R.call_dps_packed("env.relu", (lv0,), R.Tensor((1, 128), dtype="float32"))
            out = R.call_dps_packed("env.linear", (lv1, w1, b1), R.Tensor((1, 10), dtype="float32"))
            R.output(out)
        return out


print(MyModuleWithExternCall.script())
out = relax.interpret(MyModuleWithExternCall, "main", data, w0, b0, w1, b1)
np.testing.assert_allclose(out.numpy(), reference, rtol=1e-5, atol=1e-5)
print("Relax (call_dps_packed, PyTorch) logits:", np.round(out.numpy()[0], 3))


# -----------------------------------------------------------------------------------------
# 6. Mixing TensorIR and library calls
# -----------------------------------------------------------------------------------------
# linear0 stays a PrimFunc; relu and the second layer go to the library.
@I.ir_module
class MyModuleMixture:
    @T.prim_func
    def linear0(X: T.Buffer((1, 784), "float32"), W: T.Buffer((128, 784), "float32"),
                B: T.Buffer((128,), "float32"), Z: T.Buffer((1, 128), "float32")):
        Y = T.alloc_buffer((1, 128), "float32")
        for i, j, k in T.grid(1, 128, 784):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(1, 128):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @R.function
    def main(x: R.Tensor((1, 784), "float32"), w0: R.Tensor((128, 784), "float32"),
             b0: R.Tensor((128,), "float32"), w1: R.Tensor((10, 128), "float32"),
             b1: R.Tensor((10,), "float32")):
        cls = MyModuleMixture
        with R.dataflow():
            lv0 = R.call_tir(cls.linear0, (x, w0, b0), out_sinfo=R.Tensor((1, 128), dtype="float32"))
            lv1 = R.call_dps_packed("env.relu", (lv0,), out_sinfo=R.Tensor((1, 128), dtype="float32"))
            out = R.call_dps_packed("env.linear", (lv1, w1, b1), out_sinfo=R.Tensor((1, 10), dtype="float32"))
            R.output(out)
        return out


out = relax.interpret(MyModuleMixture, "main", data, w0, b0, w1, b1)
np.testing.assert_allclose(out.numpy(), reference, rtol=1e-5, atol=1e-5)
print("Relax (mixture) logits:", np.round(out.numpy()[0], 3))


# -----------------------------------------------------------------------------------------
# 7. Binding the weights: BindParams
# -----------------------------------------------------------------------------------------
# The weights need not travel with every call. `BindParams("main", {...})` replaces the named
# parameters by constants; `main` then takes only the data. Tensor constants print as
# `metadata["relax.expr.Constant"][i]`: they are stored beside the module, not in its text.
nd_params = {"w0": tvm.nd.array(w0), "b0": tvm.nd.array(b0),
             "w1": tvm.nd.array(w1), "b1": tvm.nd.array(b1)}
MyModuleWithParams = relax.transform.BindParams("main", nd_params)(MyModuleMixture)
print(MyModuleWithParams["main"].script())
out = relax.interpret(MyModuleWithParams, "main", data)
np.testing.assert_allclose(out.numpy(), reference, rtol=1e-5, atol=1e-5)
print("Relax (bound parameters) logits:", np.round(out.numpy()[0], 3))

print("OK: the MLP as a Relax IRModule (call_tir, call_dps_packed with PyTorch, a mixture, "
      "bound parameters) equals the low-level NumPy MLP")

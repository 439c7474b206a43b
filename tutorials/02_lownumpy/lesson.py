# Lesson 2 (Python): the reference — an MLP in NumPy, in low-level loops, and in lownumpy
# ======================================================================================
#
# Every later stage of minitvm (TensorIR, schedules, Relax, generated code) is checked against
# one reference: `lownumpy`, NumPy-style operators written as plain C++ loops. This lesson
# follows the MLC course's end-to-end example, a two-layer MLP
#
#     data (1, 784) -> linear0 (W0: 128 x 784) -> relu0 -> linear1 (W1: 10 x 128) -> (1, 10)
#
# and writes it three times:
#
#   1. in high-level NumPy, one line per layer;
#   2. in low-level NumPy: explicit loops over elements, each function writing into an
#      output that the caller allocated ("destination passing", what TensorIR functions do);
#   3. through the registered C++ operators "lownumpy.linear" and "lownumpy.relu", and the
#      reference model "lownumpy.models.mlp".
#
# All three must agree. Then the same model is trained on real data (scikit-learn's
# handwritten digits) and classifies them identically through NumPy and through lownumpy.
import numpy as np

import minitvm as tvm
from minitvm import lownumpy as lnp

# The weights come from a seed, so every run (and the C++ lesson) sees the same numbers.
# The parameter names are the course's: w0, b0, w1, b1.
params = lnp.models.mlp_init_params(784, 128, 10, seed=0)
w0, b0, w1, b1 = (params[name].numpy() for name in ("w0", "b0", "w1", "b1"))
data = lnp.random_uniform((1, 784), 0.0, 1.0, seed=1).numpy()
print("w0", w0.shape, "b0", b0.shape, "w1", w1.shape, "b1", b1.shape, "data", data.shape)


# -----------------------------------------------------------------------------------------
# 1. High-level NumPy
# -----------------------------------------------------------------------------------------
def numpy_mlp(data, w0, b0, w1, b1):
    lv0 = data @ w0.T + b0
    lv1 = np.maximum(lv0, 0)
    lv2 = lv1 @ w1.T + b1
    return lv2


res_numpy = numpy_mlp(data, w0, b0, w1, b1)
print("NumPy logits:", np.round(res_numpy[0], 3))


# -----------------------------------------------------------------------------------------
# 2. Low-level NumPy: every element computed by a loop we can see
# -----------------------------------------------------------------------------------------
# Each function takes its inputs *and its output* (Z, Y); it allocates nothing. The loops
# spell out what `@`, `.T`, `+` and `maximum` hide: which element is read, which written,
# and in which order. This is the shape TensorIR gives the same computation in stage 2.
def lnumpy_linear0(X, W, B, Z):
    Y = np.empty((1, 128), dtype="float32")
    for i in range(1):
        for j in range(128):
            for k in range(784):
                if k == 0:
                    Y[i, j] = 0
                Y[i, j] = Y[i, j] + X[i, k] * W[j, k]
    for i in range(1):
        for j in range(128):
            Z[i, j] = Y[i, j] + B[j]


def lnumpy_relu0(X, Y):
    for i in range(1):
        for j in range(128):
            Y[i, j] = np.maximum(X[i, j], 0)


def lnumpy_linear1(X, W, B, Z):
    Y = np.empty((1, 10), dtype="float32")
    for i in range(1):
        for j in range(10):
            for k in range(128):
                if k == 0:
                    Y[i, j] = 0
                Y[i, j] = Y[i, j] + X[i, k] * W[j, k]
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


res_lnumpy = lnumpy_mlp(data, w0, b0, w1, b1)
print("low-level loops agree with NumPy:",
      np.allclose(res_lnumpy, res_numpy, rtol=1e-5, atol=1e-5))


# Loops make fusion visible: a matmul followed by relu can write each element once, applying
# relu as soon as the sum is complete. The course calls this `lnumpy_mm_relu`; later stages
# produce exactly this loop nest from `matmul` + `relu` with FuseOps / compute_inline.
def lnumpy_mm_relu(A, B, C):
    n, k = A.shape
    m = B.shape[1]
    Y = np.empty((n, m), dtype="float32")
    for i in range(n):
        for j in range(m):
            for kk in range(k):
                if kk == 0:
                    Y[i, j] = 0
                Y[i, j] = Y[i, j] + A[i, kk] * B[kk, j]
    for i in range(n):
        for j in range(m):
            C[i, j] = max(Y[i, j], 0)


a = lnp.random_uniform((16, 16), -1, 1, seed=2).numpy()
b = lnp.random_uniform((16, 16), -1, 1, seed=3).numpy()
c = np.empty((16, 16), dtype="float32")
lnumpy_mm_relu(a, b, c)
print("lnumpy_mm_relu == maximum(a @ b, 0):",
      np.allclose(c, np.maximum(a @ b, 0), rtol=1e-5, atol=1e-6))

# -----------------------------------------------------------------------------------------
# 3. The registered C++ operators
# -----------------------------------------------------------------------------------------
# The same loops, written once in C++ (stage1_lownumpy/src/lownumpy/), are registered as
# global functions. Python finds them by name, exactly as it finds any other C++ function;
# NumPy arrays are copied into NDArrays on the way in.
linear = tvm.get_global_func("lownumpy.linear")
relu = tvm.get_global_func("lownumpy.relu")
lv0 = linear(tvm.nd.array(data), tvm.nd.array(w0), tvm.nd.array(b0))
lv1 = relu(lv0)
res_registered = linear(lv1, tvm.nd.array(w1), tvm.nd.array(b1))
print("lownumpy.linear -> lownumpy.relu -> lownumpy.linear:", res_registered.shape,
      res_registered.dtype)

# `minitvm.lownumpy` wraps every operator with NumPy-style arguments, and the reference
# model runs the same three layers from the parameter dictionary.
res_model = lnp.models.mlp(data, params)
print("lownumpy logits:", np.round(res_model.numpy()[0], 3))

diff_registered = np.abs(res_registered.numpy() - res_numpy).max()
diff_model = np.abs(res_model.numpy() - res_numpy).max()
print("max |lownumpy - NumPy| below 1e-5:", bool(max(diff_registered, diff_model) < 1e-5))
print("predicted class: NumPy", int(res_numpy.argmax()), "| low-level",
      int(res_lnumpy.argmax()), "| lownumpy", int(lnp.argmax(res_model).numpy()))

# The reference checks its inputs and names the operator and the shapes at fault:
try:
    linear(tvm.nd.array(data), tvm.nd.array(w1), tvm.nd.array(b1))
except ValueError as err:
    print("ValueError:", err)

# -----------------------------------------------------------------------------------------
# 4. Real data: handwritten digits
# -----------------------------------------------------------------------------------------
# scikit-learn ships 1797 8x8 digits. We train the same MLP shape (64 -> 128 -> 10) with
# plain NumPy SGD for a few epochs, then classify the held-out digits twice: with NumPy and
# with lownumpy. The two must agree on every digit, so their accuracy is the same.
from sklearn.datasets import load_digits  # noqa: E402

digits = load_digits()
x = (digits.data / 16.0).astype("float32")
y = digits.target
order = np.random.default_rng(0).permutation(len(x))
x_train, y_train = x[order[:1500]], y[order[:1500]]
x_test, y_test = x[order[1500:]], y[order[1500:]]

p = {k: v.numpy() for k, v in lnp.models.mlp_init_params(64, 128, 10, seed=0).items()}
rng = np.random.default_rng(1)
for epoch in range(10):
    perm = rng.permutation(1500)
    for start in range(0, 1500, 32):
        xb, yb = x_train[perm[start:start + 32]], y_train[perm[start:start + 32]]
        h = np.maximum(xb @ p["w0"].T + p["b0"], 0)  # forward: linear0, relu0
        logits = h @ p["w1"].T + p["b1"]  # linear1
        prob = np.exp(logits - logits.max(axis=1, keepdims=True))
        prob /= prob.sum(axis=1, keepdims=True)  # softmax
        grad = prob
        grad[np.arange(len(yb)), yb] -= 1  # d(cross-entropy)/d(logits)
        grad /= len(yb)
        grad_h = (grad @ p["w1"]) * (h > 0)
        p["w1"] -= 0.2 * grad.T @ h
        p["b1"] -= 0.2 * grad.sum(axis=0)
        p["w0"] -= 0.2 * grad_h.T @ xb
        p["b0"] -= 0.2 * grad_h.sum(axis=0)

numpy_pred = numpy_mlp(x_test, p["w0"], p["b0"], p["w1"], p["b1"]).argmax(axis=1)
lnp_pred = lnp.argmax(lnp.models.mlp(x_test, p), axis=1).numpy()
numpy_acc = (numpy_pred == y_test).mean()
lnp_acc = (lnp_pred == y_test).mean()
print(f"{len(y_test)} test digits; accuracy above 90%:", bool(numpy_acc > 0.9))
print("NumPy and lownumpy give the same accuracy:", bool(numpy_acc == lnp_acc))

# -----------------------------------------------------------------------------------------
# Checks
# -----------------------------------------------------------------------------------------
np.testing.assert_allclose(res_lnumpy, res_numpy, rtol=1e-5, atol=1e-5)
np.testing.assert_allclose(res_registered.numpy(), res_numpy, rtol=1e-5, atol=1e-5)
np.testing.assert_allclose(res_model.numpy(), res_numpy, rtol=1e-5, atol=1e-5)
assert numpy_acc > 0.9 and numpy_acc == lnp_acc
print("OK: the MLP in NumPy, in low-level loops and in lownumpy agree; "
      "digits accuracy identical through NumPy and lownumpy")

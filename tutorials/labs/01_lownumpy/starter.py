# Lab 01 — low-level NumPy: conv2d, softmax and layer_norm as loops
# ===================================================================
#
# Fill in the three functions below. Each one receives its inputs *and its output* and fills
# the output in place (destination passing, as the PrimFuncs of stage 2 do); none returns
# anything. Write explicit `for` loops over the elements: the grader rejects whole-array
# operators such as `np.dot`, `@`, `np.sum` or `.mean()` (scalar `math.exp`, `math.sqrt`,
# `max` are fine).
#
# Check your work with:   minitvm lab check 1 starter.py
#                  or:    python -m minitvm.labs check 1 starter.py
import math  # noqa: F401  (math.exp, math.sqrt)

import numpy as np  # noqa: F401


def lnumpy_conv2d(X, W, Y):
    """X (N, CI, H, W), W (CO, CI, KH, KW) -> Y (N, CO, H-KH+1, W-KW+1); stride 1, no padding:
    Y[n, co, i, j] = sum over ci, di, dj of X[n, ci, i+di, j+dj] * W[co, ci, di, dj]."""
    n_batch, in_ch, height, width = X.shape
    out_ch, _, kh, kw = W.shape
    # TODO(lab 01): loop over n, co, i, j and accumulate over ci, di, dj into Y[n, co, i, j].
    raise NotImplementedError("lnumpy_conv2d")


def lnumpy_softmax(X, Y):
    """X (n, m) -> Y (n, m): Y[i, j] = exp(X[i, j]) / sum_k exp(X[i, k]).
    The inputs can be large (1000 and more): subtract each row's maximum before exp."""
    rows, cols = X.shape
    for i in range(rows):
        # TODO(lab 01): the row's maximum, the exponentials, their sum, then divide.
        pass


def lnumpy_layer_norm(X, gamma, beta, Y):
    """X (n, m), gamma (m,), beta (m,) -> Y (n, m): each row normalised to mean 0 and
    variance 1, Y[i, j] = (X[i, j] - mean_i) / sqrt(var_i + 1e-5) * gamma[j] + beta[j]."""
    rows, cols = X.shape
    for i in range(rows):
        for j in range(cols):
            # TODO(lab 01): compute mean_i and var_i first (two loops over j), then this.
            Y[i, j] = X[i, j] * gamma[j] + beta[j]

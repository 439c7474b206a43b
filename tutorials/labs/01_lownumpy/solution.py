# Lab 01 — reference solution: conv2d, softmax and layer_norm as low-level NumPy loops.
import math

import numpy as np


def lnumpy_conv2d(X, W, Y):
    n_batch, in_ch, height, width = X.shape
    out_ch, _, kh, kw = W.shape
    for n in range(n_batch):
        for co in range(out_ch):
            for i in range(height - kh + 1):
                for j in range(width - kw + 1):
                    acc = np.float32(0)
                    for ci in range(in_ch):
                        for di in range(kh):
                            for dj in range(kw):
                                acc += X[n, ci, i + di, j + dj] * W[co, ci, di, dj]
                    Y[n, co, i, j] = acc


def lnumpy_softmax(X, Y):
    rows, cols = X.shape
    for i in range(rows):
        row_max = X[i, 0]
        for j in range(cols):
            row_max = max(row_max, X[i, j])
        total = 0.0
        for j in range(cols):
            Y[i, j] = math.exp(X[i, j] - row_max)
            total += Y[i, j]
        for j in range(cols):
            Y[i, j] = Y[i, j] / total


def lnumpy_layer_norm(X, gamma, beta, Y):
    rows, cols = X.shape
    for i in range(rows):
        mean = 0.0
        for j in range(cols):
            mean += X[i, j]
        mean /= cols
        var = 0.0
        for j in range(cols):
            var += (X[i, j] - mean) * (X[i, j] - mean)
        var /= cols
        for j in range(cols):
            Y[i, j] = (X[i, j] - mean) / math.sqrt(var + 1e-5) * gamma[j] + beta[j]

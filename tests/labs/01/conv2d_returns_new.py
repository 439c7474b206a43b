# Lab 01, wrong: conv2d builds a new array and rebinds Y instead of filling the output.
import os
import runpy

# The reference solution, then one function replaced by a typical mistake.
_HERE = os.path.dirname(os.path.abspath(__file__))
globals().update(runpy.run_path(
    os.path.join(_HERE, "..", "..", "..", "tutorials", "labs", "01_lownumpy", "solution.py")))


def lnumpy_conv2d(X, W, Y):
    n_batch, in_ch, height, width = X.shape
    out_ch, _, kh, kw = W.shape
    Y = np.zeros((n_batch, out_ch, height - kh + 1, width - kw + 1), dtype="float32")
    for n in range(n_batch):
        for co in range(out_ch):
            for i in range(height - kh + 1):
                for j in range(width - kw + 1):
                    for ci in range(in_ch):
                        for di in range(kh):
                            for dj in range(kw):
                                Y[n, co, i, j] += X[n, ci, i + di, j + dj] * W[co, ci, di, dj]
    return Y

# Lab 01, wrong: layer_norm divides by sqrt(var) (NaN when a row is constant).
import os
import runpy

# The reference solution, then one function replaced by a typical mistake.
_HERE = os.path.dirname(os.path.abspath(__file__))
globals().update(runpy.run_path(
    os.path.join(_HERE, "..", "..", "..", "tutorials", "labs", "01_lownumpy", "solution.py")))


def lnumpy_layer_norm(X, gamma, beta, Y):
    rows, cols = X.shape
    for i in range(rows):
        mean = 0.0
        for j in range(cols):
            mean += X[i, j]
        mean /= cols
        var = 0.0
        for j in range(cols):
            var += (X[i, j] - mean) ** 2
        var /= cols
        for j in range(cols):
            Y[i, j] = (X[i, j] - mean) / np.sqrt(var) * gamma[j] + beta[j]

# Lab 01, wrong: a loop that never ends (the index is never advanced).
import os
import runpy

# The reference solution, then one function replaced by a typical mistake.
_HERE = os.path.dirname(os.path.abspath(__file__))
globals().update(runpy.run_path(
    os.path.join(_HERE, "..", "..", "..", "tutorials", "labs", "01_lownumpy", "solution.py")))


def lnumpy_layer_norm(X, gamma, beta, Y):
    rows, cols = X.shape
    i = 0
    while i < rows:
        for j in range(cols):
            Y[i, j] = X[i, j] * gamma[j] + beta[j]

# Lab 01, wrong: softmax without subtracting the row maximum (exp overflows on large inputs).
import os
import runpy

# The reference solution, then one function replaced by a typical mistake.
_HERE = os.path.dirname(os.path.abspath(__file__))
globals().update(runpy.run_path(
    os.path.join(_HERE, "..", "..", "..", "tutorials", "labs", "01_lownumpy", "solution.py")))


def lnumpy_softmax(X, Y):
    rows, cols = X.shape
    for i in range(rows):
        total = 0.0
        for j in range(cols):
            Y[i, j] = np.exp(X[i, j])
            total += Y[i, j]
        for j in range(cols):
            Y[i, j] = Y[i, j] / total

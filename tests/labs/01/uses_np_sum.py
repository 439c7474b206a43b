# Lab 01, wrong: softmax with NumPy's whole-array operators instead of loops.
import os
import runpy

# The reference solution, then one function replaced by a typical mistake.
_HERE = os.path.dirname(os.path.abspath(__file__))
globals().update(runpy.run_path(
    os.path.join(_HERE, "..", "..", "..", "tutorials", "labs", "01_lownumpy", "solution.py")))


def lnumpy_softmax(X, Y):
    e = np.exp(X - X.max(axis=1, keepdims=True))
    Y[:] = e / np.sum(e, axis=1, keepdims=True)

# Lab 05, wrong: computes every folded call as an addition, whatever the operator.
import os
import runpy

# The reference solution, then one part replaced by a typical mistake.
_HERE = os.path.dirname(os.path.abspath(__file__))
globals().update(runpy.run_path(
    os.path.join(_HERE, "..", "..", "..", "tutorials", "labs", "05_pass", "solution.py")))


def evaluate_call(call):
    total = 0
    for arg in call.args:
        total = total + arg.data.numpy()
    return relax.const(total.astype("float32"))


# The reference fold_function calls this evaluate_call.
fold_constants.__globals__["evaluate_call"] = evaluate_call

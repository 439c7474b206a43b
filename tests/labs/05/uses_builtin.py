# Lab 05, wrong: calls the built-in pass instead of writing one.
from minitvm import relax


def fold_constants(mod):
    return relax.transform.FoldConstant()(mod)

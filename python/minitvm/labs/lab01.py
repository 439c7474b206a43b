"""Grader of lab 01 (stage 1): conv2d, softmax and layer_norm written as low-level NumPy loops,
compared with NumPy on random shapes and values, edge sizes included.

The learner's file defines, in destination-passing style (each function fills its last
argument and returns nothing):

* ``lnumpy_conv2d(X, W, Y)``: X (N, CI, H, W), W (CO, CI, KH, KW), Y (N, CO, H-KH+1, W-KW+1);
  stride 1, no padding (NCHW / OIHW, what ``lownumpy.conv2d`` computes);
* ``lnumpy_softmax(X, Y)``: X and Y (n, m), softmax along axis 1;
* ``lnumpy_layer_norm(X, gamma, beta, Y)``: X and Y (n, m), gamma and beta (m,), normalised
  along axis 1 with epsilon 1e-5.

What the lab is about is checked too: each function is written with ``for`` loops and does not
call NumPy's whole-array operators (``np.dot``, ``@``, ``np.sum``, ``.mean()``, ...).
"""
import ast

import numpy as np

from ._common import (CaseFailure, call_learner, compare, dotted_name, empty_output,
                      function_ast, get_attr)

DEFAULT_CASES = 6
TIMEOUT = 30.0
EPS = 1e-5

FUNCS = {
    "conv2d": "lnumpy_conv2d",
    "softmax": "lnumpy_softmax",
    "layer_norm": "lnumpy_layer_norm",
}

# Whole-array operators that would do the lab's work in one call.
FORBIDDEN_CALLS = {"dot", "matmul", "einsum", "tensordot", "inner", "outer", "sum", "mean",
                   "var", "std", "amax", "nanmax", "average", "convolve", "correlate", "cumsum",
                   "sliding_window_view", "as_strided", "conv2d", "softmax", "layer_norm"}
FORBIDDEN_METHODS = {"sum", "mean", "var", "std", "dot", "max", "min"}
FORBIDDEN_MODULES = ("minitvm", "scipy", "torch")

def plan(rng, n):
    """The cases: three structure checks, then ``n`` cases per function (edges first)."""
    cases = [{"name": f"{k}: written as loops", "kind": "structure", "func": k} for k in FUNCS]
    conv_edges = [(1, 1, 1, 1, 1, 1, 1), (1, 1, 5, 5, 1, 5, 5), (2, 3, 6, 7, 4, 1, 1),
                  (1, 2, 5, 4, 3, 3, 2)]
    for i in range(n):
        if i < len(conv_edges):
            shape = conv_edges[i]
        else:
            h, w = rng.randint(3, 9), rng.randint(3, 9)
            shape = (rng.randint(1, 2), rng.randint(1, 3), h, w, rng.randint(1, 4),
                     rng.randint(1, min(h, 4)), rng.randint(1, min(w, 4)))
        cases.append({"name": f"conv2d #{i + 1}", "kind": "conv2d", "shape": list(shape),
                      "seed": rng.randrange(2**31)})
    soft_edges = [((1, 1), 1.0), ((3, 5), 1000.0), ((1, 9), -50.0), ((4, 1), 1.0)]
    for i in range(n):
        if i < len(soft_edges):
            shape, scale = soft_edges[i]
        else:
            shape, scale = (rng.randint(1, 6), rng.randint(1, 12)), rng.choice([1.0, 5.0, 20.0])
        cases.append({"name": f"softmax #{i + 1}", "kind": "softmax", "shape": list(shape),
                      "scale": scale, "seed": rng.randrange(2**31)})
    norm_edges = [((1, 1), "random"), ((3, 6), "constant rows"), ((2, 16), "random")]
    for i in range(n):
        if i < len(norm_edges):
            shape, fill = norm_edges[i]
        else:
            shape, fill = (rng.randint(1, 6), rng.randint(2, 12)), "random"
        cases.append({"name": f"layer_norm #{i + 1}", "kind": "layer_norm", "shape": list(shape),
                      "fill": fill, "seed": rng.randrange(2**31)})
    return cases


def _check_structure(module, func):
    name = FUNCS[func]
    fdef = function_ast(get_attr(module, name, f"the {func} of this lab"), name)
    loops = [n for n in ast.walk(fdef) if isinstance(n, (ast.For, ast.While))]
    if not loops:
        raise CaseFailure(f"`{name}` has no for loop: this lab asks for the computation "
                          f"written as explicit loops over the elements")
    for node in ast.walk(fdef):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            raise CaseFailure(f"`{name}` uses the @ operator at line {node.lineno}: write "
                              f"the multiply-accumulate as a loop")
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mod = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
            if (mod or "").split(".")[0] in FORBIDDEN_MODULES:
                raise CaseFailure(f"`{name}` imports {mod} at line {node.lineno}: the lab is "
                                  f"to write the loops yourself")
        if isinstance(node, ast.Call):
            dotted = dotted_name(node.func) or ""
            last = node.func.attr if isinstance(node.func, ast.Attribute) else dotted
            if "." in dotted and dotted.split(".")[0] in FORBIDDEN_MODULES:
                raise CaseFailure(f"`{name}` calls {dotted} at line {node.lineno}: the lab is "
                                  f"to write the loops yourself")
            if dotted.split(".")[0] in ("np", "numpy") and last in FORBIDDEN_CALLS:
                raise CaseFailure(f"`{name}` calls {dotted}() at line {node.lineno}, which "
                                  f"does the whole reduction in one call: write it as a loop")
            if (isinstance(node.func, ast.Attribute) and last in FORBIDDEN_METHODS
                    and dotted.split(".")[0] not in ("np", "numpy", "math")
                    and (node.args or node.keywords or last in ("sum", "mean", "var", "std"))):
                raise CaseFailure(f"`{name}` calls .{last}() on an array at line "
                                  f"{node.lineno}: write the reduction as a loop")


def _conv2d_reference(x, w):
    n, ci, h, wd = x.shape
    co, _, kh, kw = w.shape
    out = np.zeros((n, co, h - kh + 1, wd - kw + 1), dtype="float64")
    for di in range(kh):
        for dj in range(kw):
            patch = x[:, :, di:di + h - kh + 1, dj:dj + wd - kw + 1].astype("float64")
            out += np.einsum("nchw,oc->nohw", patch, w[:, :, di, dj].astype("float64"))
    return out.astype("float32")


def run(module, path, case):
    """Run one case in the child process (see ``_child.py``)."""
    kind = case["kind"]
    if kind == "structure":
        _check_structure(module, case["func"])
        return None
    rng = np.random.default_rng(case["seed"])
    func = get_attr(module, FUNCS[kind], f"the {kind} of this lab")
    if kind == "conv2d":
        n, ci, h, w, co, kh, kw = case["shape"]
        x = rng.uniform(-1, 1, (n, ci, h, w)).astype("float32")
        wt = rng.uniform(-1, 1, (co, ci, kh, kw)).astype("float32")
        expected = _conv2d_reference(x, wt)
        y = empty_output(expected.shape)
        call_learner(path, func, x.copy(), wt.copy(), y)
        compare(f"Y (X {x.shape}, W {wt.shape})", expected, y)
        return None
    if kind == "softmax":
        shape = tuple(case["shape"])
        x = (rng.uniform(-1, 1, shape) * case["scale"]).astype("float32")
        if case["scale"] >= 100:
            x += np.float32(case["scale"])  # large positive logits: exp overflows unless shifted
        e = np.exp(x.astype("float64") - x.max(axis=1, keepdims=True))
        expected = (e / e.sum(axis=1, keepdims=True)).astype("float32")
        y = empty_output(shape)
        with np.errstate(all="ignore"):
            call_learner(path, func, x.copy(), y)
        hint = None
        if np.abs(x).max() > 80:
            hint = ("the inputs are large (up to %.0f): exp overflows to inf and inf/inf is NaN "
                    "unless each row's maximum is subtracted first" % np.abs(x).max())
        compare(f"Y (X {shape}, values up to {np.abs(x).max():.3g})", expected, y,
                nan_hint=hint)
        return None
    if kind == "layer_norm":
        shape = tuple(case["shape"])
        if case["fill"] == "constant rows":
            x = np.repeat(rng.uniform(-2, 2, (shape[0], 1)), shape[1], axis=1).astype("float32")
        else:
            x = rng.uniform(-2, 2, shape).astype("float32")
        gamma = rng.uniform(0.5, 1.5, shape[1:]).astype("float32")
        beta = rng.uniform(-0.5, 0.5, shape[1:]).astype("float32")
        xd = x.astype("float64")
        mean = xd.mean(axis=1, keepdims=True)
        var = ((xd - mean) ** 2).mean(axis=1, keepdims=True)
        expected = ((xd - mean) / np.sqrt(var + EPS) * gamma + beta).astype("float32")
        y = empty_output(shape)
        with np.errstate(all="ignore"):
            call_learner(path, func, x.copy(), gamma.copy(), beta.copy(), y)
        hint = None
        if case["fill"] == "constant rows" or shape[1] == 1:
            hint = ("every row is constant, so its variance is 0: divide by sqrt(var + 1e-5), "
                    "not sqrt(var)")
        compare(f"Y (X {shape}, {case['fill']})", expected, y, rtol=1e-3, atol=1e-3,
                nan_hint=hint)
        return None
    raise CaseFailure(f"unknown case kind {kind}")

"""Grader of lab 05 (stage 4): write a pass, constant folding, graded on held-out modules.

The learner's file defines ``fold_constants(mod) -> IRModule``: every call of an operator in
``main`` whose inputs are all constants (``relax.Constant``, or variables bound to constants,
possibly folded a moment before) is computed at compile time and replaced by its value.

The grader makes modules the learner has not seen, from the printed seed: random chains of
``add``, ``multiply``, ``subtract``, ``maximum``, ``minimum``, ``negative`` and ``nn.relu``
mixing constants and parameters, in dataflow blocks or plain binding blocks, plus edge cases
(nothing to fold, everything but the last step foldable, a constant used twice). For each it
checks that the result is well formed, computes what the original computes (both run on the
Relax reference interpreter, on random inputs), and that no operator call with only constant
inputs is left. The pass must be written by hand: ``relax.transform.FoldConstant`` is not
allowed.
"""
import random

import numpy as np

from ._common import CaseFailure, call_learner, compare, get_attr

DEFAULT_CASES = 6
TIMEOUT = 60.0

BINARY = ["add", "multiply", "subtract", "maximum", "minimum"]
UNARY = ["negative", "nn.relu"]
SHAPES = [(4,), (2, 3), (1, 1), (3, 1, 2), (5, 2)]
EDGES = ["nothing to fold", "all but the last step", "constant used twice",
         "plain binding block"]


def plan(rng, n):
    """The structure check, the example, then ``n`` held-out modules (edges first)."""
    cases = [{"name": "written by hand", "kind": "structure"},
             {"name": "example module", "kind": "module", "variant": "example", "seed": 0}]
    for i in range(n):
        variant = EDGES[i] if i < len(EDGES) else "random"
        cases.append({"name": f"held-out #{i + 1}", "kind": "module", "variant": variant,
                      "seed": rng.randrange(2**31)})
    return cases


def _op(name):
    from minitvm import relax  # pylint: disable=import-outside-toplevel

    obj = relax.op
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def make_module(variant, seed):
    """A held-out module: ``main(x[, y])`` mixing constants and parameters."""
    from minitvm import relax  # pylint: disable=import-outside-toplevel

    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    shape = SHAPES[rng.randrange(len(SHAPES))] if variant != "example" else (2, 3)

    def const():
        return relax.const(nprng.uniform(-2, 2, shape).astype("float32"))

    params = [relax.Var("x", relax.TensorStructInfo(shape, "float32"))]
    if variant == "random" and rng.random() < 0.5:
        params.append(relax.Var("y", relax.TensorStructInfo(shape, "float32")))
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        dataflow = variant != "plain binding block"
        scope = bb.dataflow() if dataflow else None
        if scope is not None:
            scope.__enter__()
        x = params[0]
        if variant == "example":
            c0, c1, c2 = const(), const(), const()
            lv0 = bb.emit(relax.op.add(c0, c1))
            lv1 = bb.emit(relax.op.multiply(lv0, c2))
            lv2 = bb.emit(relax.op.nn.relu(lv1))
            last = bb.emit(relax.op.add(x, lv2))
        elif variant == "nothing to fold":
            lv0 = bb.emit(relax.op.multiply(x, const()))
            last = bb.emit(relax.op.add(lv0, x))
        elif variant == "all but the last step":
            c = const()
            for _ in range(rng.randint(3, 5)):
                name = rng.choice(BINARY + UNARY)
                c = bb.emit(_op(name)(c) if name in UNARY else _op(name)(c, const()))
            last = bb.emit(relax.op.subtract(c, x))
        elif variant == "constant used twice":
            c = const()
            lv0 = bb.emit(relax.op.multiply(c, c))
            lv1 = bb.emit(relax.op.add(lv0, c))
            lv2 = bb.emit(relax.op.maximum(x, lv1))
            last = bb.emit(relax.op.minimum(lv2, lv0))
        else:
            pool_const = [const() for _ in range(rng.randint(2, 4))]
            pool_any = list(params)
            for _ in range(rng.randint(4, 8)):
                name = rng.choice(BINARY + UNARY)
                pick_const = rng.random() < 0.6
                pool = pool_const if pick_const else pool_const + pool_any
                args = [rng.choice(pool) for _ in range(1 if name in UNARY else 2)]
                var = bb.emit(_op(name)(*args))
                (pool_const if pick_const else pool_any).append(var)
            last = bb.emit(relax.op.add(pool_any[-1], pool_const[-1]))
        if scope is not None:
            last = bb.emit_output(last)
            scope.__exit__(None, None, None)
        bb.emit_func_output(last)
    return bb.get()


def constant_calls(func):
    """The bindings of ``func`` that call an operator on constants only: (var name, op)."""
    from minitvm import relax  # pylint: disable=import-outside-toplevel
    from minitvm.ir import Op  # pylint: disable=import-outside-toplevel

    const_vars = set()
    found = []
    for block in func.body.blocks:
        for binding in block.bindings:
            value = binding.value
            if isinstance(value, relax.Constant):
                const_vars.add(binding.var)
            elif isinstance(value, relax.Call) and isinstance(value.op, Op):
                if all(isinstance(a, relax.Constant) or a in const_vars for a in value.args):
                    found.append((str(binding.var.name_hint), str(value.op.name)))
                    const_vars.add(binding.var)
            elif isinstance(value, relax.Var) and value in const_vars:
                const_vars.add(binding.var)
    return found


def run(module, path, case):
    """Run one case in the child process."""
    import minitvm as tvm  # pylint: disable=import-outside-toplevel
    from minitvm import relax  # pylint: disable=import-outside-toplevel

    if case["kind"] == "structure":
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if "FoldConstant" in text:
            raise CaseFailure("the file uses relax.transform.FoldConstant: this lab is to write "
                              "the folding yourself")
        get_attr(module, "fold_constants", "the pass of this lab")
        return None
    func = get_attr(module, "fold_constants", "the pass of this lab")
    original = make_module(case["variant"], case["seed"])
    before = constant_calls(original["main"])
    folded = call_learner(path, func, original)
    if not isinstance(folded, tvm.IRModule):
        raise CaseFailure(f"fold_constants returned a {type(folded).__name__}, expected an "
                          f"IRModule")
    main = folded["main"] if "main" in [str(g.name_hint) for g in folded.functions] else None
    if not isinstance(main, relax.Function):
        raise CaseFailure("the module fold_constants returned has no Relax function main")
    if not relax.analysis.well_formed(folded):
        problems = list(relax.analysis.well_formed_violations(folded))[:2]
        raise CaseFailure("the folded module is not well formed: "
                          + "; ".join(str(p) for p in problems))
    rng = np.random.default_rng(case["seed"])
    shapes = [tuple(int(d) for d in p.struct_info.shape) for p in original["main"].params]
    for trial in range(2):
        args = [rng.uniform(-2, 2, s).astype("float32") for s in shapes]
        expected = relax.interpret(original, "main", *args).numpy()
        got = call_learner(path, relax.interpret, folded, "main", *args).numpy()
        compare(f"main's result after folding ({case['variant']}, input {trial + 1})", expected,
                got)
    left = constant_calls(main)
    if left:
        var, op = left[0]
        raise CaseFailure(f"{len(left)} of {len(before)} calls with only constant inputs are "
                          f"left, e.g. {var} = {op}(...): compute them at compile time")
    return f"folded {len(before)} calls" if before else "nothing to fold, left as it was"

"""Grader of lab 04 (stage 4): the two-layer MLP as a Relax module, with ``R.call_tir`` inside
a dataflow block.

The learner's file defines ``MLPModule``, an ``@I.ir_module`` with the PrimFuncs ``linear0``,
``relu0``, ``linear1`` and a Relax function ``main(x, w0, b0, w1, b1)``:
x (4, 64), w0 (32, 64), b0 (32,), w1 (10, 32), b1 (10,) float32 -> (4, 10) float32, computing
``relu(x @ w0.T + b0) @ w1.T + b1``.

The learner's module runs on the Relax reference interpreter (``relax.interpret``) and is
compared with a reference module written with Relax operators (``R.matmul``, ``R.nn.relu``,
...) run by the same interpreter, on random values and edge values. What the lab is about is
checked too: ``main`` has a dataflow block, calls the module's PrimFuncs with ``R.call_tir``
(no high-level Relax operators), and the module is well formed.
"""
import numpy as np

from ._common import CaseFailure, call_learner, compare, get_attr

DEFAULT_CASES = 5
TIMEOUT = 60.0

PARAMS = [("x", (4, 64)), ("w0", (32, 64)), ("b0", (32,)), ("w1", (10, 32)), ("b1", (10,))]
OUT_SHAPE = (4, 10)
FILLS = ["random", "negative hidden layer", "zero input", "large", "random"]


def plan(rng, n):
    """Structure checks, then ``n`` value cases (edge fills first)."""
    cases = [{"name": "MLPModule", "kind": "module"},
             {"name": "main: dataflow block", "kind": "dataflow"},
             {"name": "main: call_tir", "kind": "call_tir"},
             {"name": "well formed", "kind": "well_formed"}]
    for i in range(n):
        fill = FILLS[i] if i < len(FILLS) else "random"
        cases.append({"name": f"mlp #{i + 1}", "kind": "values", "fill": fill,
                      "seed": rng.randrange(2**31)})
    return cases


def reference_module():
    """The MLP written with Relax operators (the reference the learner's call_tirs match)."""
    from minitvm import relax  # pylint: disable=import-outside-toplevel

    bb = relax.BlockBuilder()
    params = [relax.Var(name, relax.TensorStructInfo(shape, "float32")) for name, shape in PARAMS]
    x, w0, b0, w1, b1 = params
    with bb.function("main", params):
        with bb.dataflow():
            lv0 = bb.emit(relax.op.add(relax.op.matmul(x, relax.op.permute_dims(w0)), b0))
            lv1 = bb.emit(relax.op.nn.relu(lv0))
            out = bb.emit_output(relax.op.add(relax.op.matmul(lv1, relax.op.permute_dims(w1)),
                                              b1))
        bb.emit_func_output(out)
    return bb.get()


def _module(module):
    import minitvm as tvm  # pylint: disable=import-outside-toplevel
    from minitvm import relax  # pylint: disable=import-outside-toplevel

    mod = get_attr(module, "MLPModule", "the @I.ir_module class of this lab")
    if not isinstance(mod, tvm.IRModule):
        raise CaseFailure(f"MLPModule is a {type(mod).__name__}, not an IRModule: decorate the "
                          f"class with @I.ir_module")
    names = sorted(str(gv.name_hint) for gv in mod.functions)
    if "main" not in names:
        raise CaseFailure(f"MLPModule has no function `main` (it has: {', '.join(names)})")
    main = mod["main"]
    if not isinstance(main, relax.Function):
        raise CaseFailure(f"MLPModule.main is a {type(main).__name__}, not an @R.function")
    params = list(main.params)
    if len(params) != len(PARAMS):
        raise CaseFailure(f"main takes {len(params)} parameters, expected {len(PARAMS)} "
                          f"({', '.join(n for n, _ in PARAMS)})")
    return mod, main


def _bindings(main):
    from minitvm import relax  # pylint: disable=import-outside-toplevel

    body = main.body
    if not isinstance(body, relax.SeqExpr):
        return []
    return [(block, b) for block in body.blocks for b in block.bindings]


def _op_name(value):
    from minitvm import relax  # pylint: disable=import-outside-toplevel
    from minitvm.ir import Op  # pylint: disable=import-outside-toplevel

    if isinstance(value, relax.Call) and isinstance(value.op, Op):
        return str(value.op.name)
    return None


def run(module, path, case):
    """Run one case in the child process."""
    from minitvm import relax  # pylint: disable=import-outside-toplevel
    from minitvm import tir  # pylint: disable=import-outside-toplevel

    mod, main = _module(module)
    kind = case["kind"]
    if kind == "module":
        return None
    if kind == "dataflow":
        blocks = list(main.body.blocks) if isinstance(main.body, relax.SeqExpr) else []
        if not any(isinstance(b, relax.DataflowBlock) for b in blocks):
            raise CaseFailure("main has no dataflow block: put the call_tir bindings inside "
                              "`with R.dataflow():` and name the result with R.output(...)")
        return None
    if kind == "call_tir":
        calls = []
        for _, binding in _bindings(main):
            name = _op_name(binding.value)
            if name is None:
                continue
            if name != "relax.call_tir":
                raise CaseFailure(f"main calls the operator {name} (binding "
                                  f"{binding.var.name_hint}): this lab computes every layer "
                                  f"with R.call_tir on a PrimFunc of the module")
            callee = binding.value.args[0]
            callee_name = str(getattr(callee, "name_hint", callee))
            if callee_name not in {str(gv.name_hint) for gv in mod.functions} or not isinstance(
                    mod[callee_name], tir.PrimFunc):
                raise CaseFailure(f"R.call_tir in binding {binding.var.name_hint} calls "
                                  f"{callee_name}, which is not a PrimFunc of MLPModule")
            calls.append(callee_name)
        if len(calls) < 3:
            raise CaseFailure(f"main has {len(calls)} R.call_tir calls, expected 3 (linear0, "
                              f"relu0, linear1)")
        return f"calls {', '.join(calls)}"
    if kind == "well_formed":
        if not relax.analysis.well_formed(mod):
            problems = relax.analysis.well_formed_violations(mod)
            raise CaseFailure("the module is not well formed: " + "; ".join(
                str(p) for p in list(problems)[:3]))
        return None
    rng = np.random.default_rng(case["seed"])
    fill = case["fill"]
    arrays = [rng.uniform(-1, 1, shape).astype("float32") for _, shape in PARAMS]
    if fill == "negative hidden layer":
        arrays[2] = np.full(arrays[2].shape, -100.0, "float32")  # b0: relu zeroes every unit
    elif fill == "zero input":
        arrays[0] = np.zeros(arrays[0].shape, "float32")
    elif fill == "large":
        arrays = [a * 100 for a in arrays]
    expected = relax.interpret(reference_module(), "main", *arrays).numpy()
    got = call_learner(path, relax.interpret, mod, "main", *arrays)
    if not hasattr(got, "numpy"):
        raise CaseFailure(f"main returns a {type(got).__name__}, expected a tensor {OUT_SHAPE}")
    tol = 1e-2 if fill == "large" else 1e-4
    compare(f"main's result ({fill})", expected, got.numpy(), rtol=tol, atol=tol)
    return None

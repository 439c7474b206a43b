"""Grader of lab 02 (stage 2): ``mm_relu`` and ``conv2d`` written in TVMScript.

The learner's file defines ``MyModule``, an ``@I.ir_module`` class with two ``@T.prim_func``:

* ``mm_relu(A, B, C)``: A, B, C float32 (128, 128); C = relu(A @ B);
* ``conv2d(X, K, Y)``: X (2, 3, 10, 10), K (4, 3, 3, 3), Y (2, 4, 8, 8) float32; stride 1, no
  padding, NCHW / OIHW.

Each function runs on the TIR interpreter (``build(target="ref")``) and is compared with the
stage-1 reference operators (``lownumpy.matmul`` + ``relu``, ``lownumpy.conv2d``) on random
values and edge values (all negative, zeros, large). What the lab is about is checked too:
each function is a ``T.prim_func`` with the signature above whose computation lives in blocks,
with a reduction block (``T.axis.reduce`` / ``"R"`` and ``T.init()``).
"""
import numpy as np

from ._common import CaseFailure, call_learner, compare, empty_output, get_attr

DEFAULT_CASES = 5
TIMEOUT = 60.0

SIGNATURES = {
    "mm_relu": [("A", (128, 128)), ("B", (128, 128)), ("C", (128, 128))],
    "conv2d": [("X", (2, 3, 10, 10)), ("K", (4, 3, 3, 3)), ("Y", (2, 4, 8, 8))],
}
FILLS = ["random", "all negative", "zero", "large", "random"]


def plan(rng, n):
    """Structure checks, then ``n`` value cases per function (edge fills first)."""
    cases = [{"name": "MyModule", "kind": "module"}]
    for func in SIGNATURES:
        cases.append({"name": f"{func}: signature", "kind": "signature", "func": func})
        cases.append({"name": f"{func}: blocks", "kind": "blocks", "func": func})
    for func in SIGNATURES:
        for i in range(n):
            fill = FILLS[i] if i < len(FILLS) else "random"
            cases.append({"name": f"{func} #{i + 1}", "kind": "values", "func": func,
                          "fill": fill, "seed": rng.randrange(2**31)})
    return cases


def _module(module):
    import minitvm as tvm  # pylint: disable=import-outside-toplevel

    mod = get_attr(module, "MyModule", "the @I.ir_module class of this lab")
    if not isinstance(mod, tvm.IRModule):
        raise CaseFailure(f"MyModule is a {type(mod).__name__}, not an IRModule: decorate the "
                          f"class with @I.ir_module")
    return mod


def _func(module, name):
    from minitvm import tir  # pylint: disable=import-outside-toplevel

    mod = _module(module)
    names = sorted(str(gv.name_hint) for gv in mod.functions)
    if name not in names:
        raise CaseFailure(f"MyModule has no function `{name}` "
                          f"(it has: {', '.join(names) or 'none'})")
    func = mod[name]
    if not isinstance(func, tir.PrimFunc):
        raise CaseFailure(f"MyModule.{name} is a {type(func).__name__}, not a T.prim_func")
    return func


def _check_signature(func, name):
    expected = SIGNATURES[name]
    params = list(func.params)
    if len(params) != len(expected):
        raise CaseFailure(f"{name} takes {len(params)} parameters, expected {len(expected)} "
                          f"({', '.join(p for p, _ in expected)}): outputs are parameters too")
    for pos, (param, (pname, shape)) in enumerate(zip(params, expected)):
        buf = func.buffer_map.get(param) if hasattr(func.buffer_map, "get") else None
        if buf is None:
            raise CaseFailure(f"{name}: parameter {pos + 1} is not a buffer: declare it as "
                              f"T.Buffer({shape}, \"float32\")")
        got = tuple(int(x) for x in buf.shape)
        if got != shape or str(buf.dtype) != "float32":
            raise CaseFailure(f"{name}: parameter {pos + 1} ({pname}) is {got} {buf.dtype}, "
                              f"expected {shape} float32")


def _check_blocks(func, name):
    text = func.script()
    if "T.block(" not in text:
        raise CaseFailure(f"{name} has no T.block: in TensorIR the computation lives in blocks "
                          f"(with T.block(\"...\"): and T.axis.* for its iterators)")
    if "T.init()" not in text or not ("T.axis.reduce" in text or '"R' in text or 'R"' in text):
        raise CaseFailure(f"{name} has no reduction block: the sum over k must be a block with a "
                          f"T.axis.reduce iterator (or \"R\" in T.axis.remap) and a T.init()")


def _inputs(name, fill, rng):
    shapes = [s for _, s in SIGNATURES[name][:-1]]
    if fill == "all negative":
        arrays = [-rng.uniform(0.1, 1, shapes[0]), rng.uniform(0.1, 1, shapes[1])]
    elif fill == "zero":
        arrays = [np.zeros(shapes[0]), rng.uniform(-1, 1, shapes[1])]
    elif fill == "large":
        arrays = [rng.uniform(-1e3, 1e3, s) for s in shapes]
    else:
        arrays = [rng.uniform(-1, 1, s) for s in shapes]
    return [a.astype("float32") for a in arrays]


def _reference(name, arrays):
    from minitvm import lownumpy as lnp  # pylint: disable=import-outside-toplevel

    if name == "mm_relu":
        return lnp.relu(lnp.matmul(arrays[0], arrays[1])).numpy()
    return lnp.conv2d(arrays[0], arrays[1]).numpy()


def run(module, path, case):
    """Run one case in the child process."""
    import minitvm as tvm  # pylint: disable=import-outside-toplevel

    kind = case["kind"]
    if kind == "module":
        _module(module)
        for name in SIGNATURES:
            _func(module, name)
        return None
    name = case["func"]
    func = _func(module, name)
    if kind == "signature":
        _check_signature(func, name)
        return None
    if kind == "blocks":
        _check_blocks(func, name)
        return None
    _check_signature(func, name)
    arrays = _inputs(name, case["fill"], np.random.default_rng(case["seed"]))
    expected = _reference(name, arrays)
    out = tvm.nd.array(empty_output(SIGNATURES[name][-1][1]))
    single = tvm.IRModule({name: func.with_attr("global_symbol", name)})
    rt_mod = call_learner(path, tvm.build, single, target="ref")
    call_learner(path, rt_mod[name], *[tvm.nd.array(a) for a in arrays], out)
    out_name = SIGNATURES[name][-1][0]
    tol = 1e-3 if case["fill"] != "large" else 1e-2
    compare(f"{out_name} ({case['fill']} inputs)", expected, out.numpy(), rtol=tol, atol=tol,
            unwritten_hint=f"no block of {name} stores to this element of {out_name}: the "
            f"loops around the block must cover every element of the output")
    return None

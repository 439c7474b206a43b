"""Stage 4: the Relax TVMScript printer from Python — ``mod.script()``, ``print(mod)``,
``mod.show()``, ``func.script()`` and the repr of Relax nodes print what TVM prints: the
course's module built with ``emit_te``, binding annotations, dataflow blocks, symbolic shapes,
constants, struct info, names."""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import relax, tir

if tvm.get_global_func("relax.Var", allow_missing=True) is None:
    pytest.skip("stage 4 (Relax) is not built", allow_module_level=True)


def T(shape, dtype="float32"):
    return relax.TensorStructInfo(list(shape), dtype)


def _main(params, bindings, result, ret, dataflow=True, attrs=None):
    block = (relax.DataflowBlock if dataflow else relax.BindingBlock)(bindings)
    func = relax.Function(params, relax.SeqExpr([block], result), ret)
    return func.with_attr(attrs or {"global_symbol": "main"})


def _add(a, b):
    return relax.Call(tvm.ir.Op.get("relax.add"), [a, b])


# ---- the course's module ----------------------------------------------------------------

def _mlp():
    from minitvm import topi  # pylint: disable=import-outside-toplevel

    bb = relax.BlockBuilder()
    x = relax.Var("x", T((1, 784)))
    w0 = relax.Var("w0", T((128, 784)))
    b0 = relax.Var("b0", T((128,)))
    with bb.function("main", [x, w0, b0]):
        with bb.dataflow():
            lv0 = bb.emit_te(topi.nn.dense, x, w0, b0, primfunc_name_hint="linear0")
            gv = bb.emit_output(bb.emit_te(topi.nn.relu, lv0))
        bb.emit_func_output(gv)
    return bb.get()


def test_course_module_built_with_emit_te():
    try:
        mod = _mlp()
    except Exception as e:  # pragma: no cover  (the builder is written in parallel)
        pytest.skip(f"BlockBuilder.emit_te not available: {e}")
    text = mod.script()
    lines = text.splitlines()
    assert lines[:4] == [
        "# from minitvm.script import ir as I",
        "# from minitvm.script import tir as T",
        "# from minitvm.script import relax as R",
        "",
    ]
    # PrimFuncs first (by name), main last; `cls = Module` before the first reference.
    assert text.index("def linear0(") < text.index("def relu(") < text.index("def main(")
    main_text = text[text.index("    @R.function"):]
    assert main_text.splitlines()[:6] == [
        "    @R.function",
        '    def main(x: R.Tensor((1, 784), dtype="float32"), '
        'w0: R.Tensor((128, 784), dtype="float32"), b0: R.Tensor((128,), dtype="float32")) '
        '-> R.Tensor((1, 128), dtype="float32"):',
        "        cls = Module",
        "        with R.dataflow():",
        '            lv = R.call_tir(cls.linear0, (x, w0, b0), '
        'out_sinfo=R.Tensor((1, 128), dtype="float32"))',
        '            lv1 = R.call_tir(cls.relu, (lv,), out_sinfo=R.Tensor((1, 128), dtype="float32"))',
    ]
    # emit_output binds a plain Var to the last result: an ordinary binding, annotated.
    assert main_text.splitlines()[6:] == [
        '            gv: R.Tensor((1, 128), dtype="float32") = lv1',
        "            R.output(gv)",
        "        return gv",
    ]
    # print(mod), str(mod) and mod.show() give the same text.
    assert repr(mod) == text and str(mod) == text


@pytest.mark.xfail(strict=False, reason="KNOWN: with IPython installed (now a test dependency "
                   "for the notebook tests) show() displays HTML instead of printing; open in "
                   "issue 29's note")
def test_show_prints_the_script(capsys):
    x = relax.Var("x", T((2, 3)))
    func = _main([x], [], x, T((2, 3)), dataflow=False)
    mod = tvm.IRModule({"main": func})
    mod.show()
    out = capsys.readouterr().out
    assert out.rstrip("\n") == mod.script().rstrip("\n")
    assert "    @R.function\n    def main(x: R.Tensor((2, 3), dtype=\"float32\"))" in out


# ---- functions alone, bindings ------------------------------------------------------------

def test_function_script_annotations_and_attrs():
    x = relax.Var("x", T((2, 3)))
    y = relax.Var("y", T((2, 3)))
    lv = relax.DataflowVar("lv", T((2, 3)))
    gv = relax.Var("gv", T((2, 3)))
    func = _main([x, y], [relax.VarBinding(lv, _add(x, y)), relax.VarBinding(gv, _add(lv, y))],
                 gv, T((2, 3)), attrs={"global_symbol": "main", "num_input": 1})
    assert func.script() == (
        "# from minitvm.script import relax as R\n"
        "\n"
        "@R.function\n"
        'def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32")) '
        '-> R.Tensor((2, 3), dtype="float32"):\n'
        '    R.func_attr({"num_input": 1})\n'
        "    with R.dataflow():\n"
        '        lv: R.Tensor((2, 3), dtype="float32") = R.add(x, y)\n'
        '        gv: R.Tensor((2, 3), dtype="float32") = R.add(lv, y)\n'
        "        R.output(gv)\n"
        "    return gv\n")
    assert repr(func) == func.script()


def test_symbolic_shape_declared_in_body_and_quoted_in_signature():
    n = tir.Var("n", "int64")
    x = relax.Var("x", T((n, 4)))
    lv = relax.Var("lv", T((n, 4)))
    func = _main([x], [relax.VarBinding(lv, _add(x, x))], lv, T((n, 4)), dataflow=False)
    text = func.script()
    assert "# from minitvm.script import tir as T\n" in text
    assert 'def main(x: R.Tensor(("n", 4), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):\n' \
        '    n = T.int64()\n' \
        '    lv: R.Tensor((n, 4), dtype="float32") = R.add(x, x)\n' in text


def test_unique_names_for_same_name_hints():
    x = relax.Var("x", T((4,)))
    a = relax.Var("lv", T((4,)))
    b = relax.Var("lv", T((4,)))
    func = _main([x], [relax.VarBinding(a, _add(x, x)), relax.VarBinding(b, _add(a, a))],
                 b, T((4,)), dataflow=False)
    text = func.script()
    assert '    lv: R.Tensor((4,), dtype="float32") = R.add(x, x)\n' in text
    assert '    lv_1: R.Tensor((4,), dtype="float32") = R.add(lv, lv)\n' in text
    assert "    return lv_1\n" in text


def test_constants_scalar_inline_tensor_metadata():
    x = relax.Var("x", T((2, 2)))
    a = relax.Var("a", T((2, 2)))
    b = relax.Var("b", T((2, 2)))
    w = relax.Constant(tvm.nd.array(np.ones((2, 2), "float32")))
    s = relax.Constant(tvm.nd.array(np.array(0.5, "float32")))
    func = _main([x], [relax.VarBinding(a, _add(x, w)), relax.VarBinding(b, _add(a, s))],
                 b, T((2, 2)), dataflow=False)
    text = tvm.IRModule({"main": func}).script()
    assert 'R.add(x, metadata["relax.expr.Constant"][0])' in text
    assert 'R.add(a, R.const(0.5, "float32"))' in text
    assert text.endswith(
        "\n\n# Metadata omitted. Use show_meta=True in script() method to show it.\n")


# ---- reprs of nodes -----------------------------------------------------------------------

def test_node_reprs():
    n = tir.Var("n", "int64")
    x = relax.Var("x", T((n, 784)))
    y = relax.Var("y", T((n, 784)))
    assert repr(x) == "x"
    assert repr(_add(x, y)) == "R.add(x, y)"
    assert repr(relax.Tuple([x, y])) == "(x, y)"
    assert repr(relax.TupleGetItem(relax.Tuple([x, y]), 0)) == "(x, y)[0]"
    assert repr(relax.ShapeExpr([n, 4])) == "R.shape([n, 4])"
    assert repr(relax.StringImm("hi")) == 'R.str("hi")'
    assert repr(relax.ExternFunc("env.relu")) == 'R.ExternFunc("env.relu")'
    # The script of a struct info through the printer (the class's own repr may differ).
    as_script = tvm.get_global_func("script.AsScript")
    assert as_script(T((n, 784))) == 'R.Tensor((n, 784), dtype="float32")'
    assert as_script(relax.TensorStructInfo(dtype="float32", ndim=2)) == \
        'R.Tensor(dtype="float32", ndim=2)'
    assert as_script(relax.ShapeStructInfo(ndim=2)) == "R.Shape(ndim=2)"
    assert as_script(relax.ObjectStructInfo()) == "R.Object"
    assert as_script(relax.TupleStructInfo([T((2,)), relax.ObjectStructInfo()])) == \
        'R.Tuple(R.Tensor((2,), dtype="float32"), R.Object)'

"""Stage 4: the Relax TVMScript parser from Python — ``@R.function`` alone and inside
``@I.ir_module`` classes, the MLC course's MLP module in its old and current spelling,
``from_source`` with a metadata table, and parse errors that point into this file."""
import os

import numpy as np
import pytest

import minitvm as tvm

pytest.importorskip("minitvm.relax")
import minitvm.relax as relax  # noqa: E402
import minitvm.script  # noqa: E402,F401
from minitvm.script import ir as I  # noqa: E402
from minitvm.script import relax as R  # noqa: E402
from minitvm.script import tir as T  # noqa: E402


def _line_of(marker):
    """The line number of the line of this file that contains `marker`."""
    with open(__file__, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if marker in line and "_line_of" not in line:
                return number
    raise AssertionError(marker)


# ---- the MLC course's module, in the course's spelling ---------------------------------------


@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def relu0(X: T.Buffer((1, 128), "float32"), Y: T.Buffer((1, 128), "float32")):
        # function attr dict
        T.func_attr({"global_symbol": "relu0", "tir.noalias": True})
        for i, j in T.grid(1, 128):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @T.prim_func
    def linear0(X: T.Buffer((1, 784), "float32"), W: T.Buffer((128, 784), "float32"),
                B: T.Buffer((128,), "float32"), Z: T.Buffer((1, 128), "float32")):
        T.func_attr({"global_symbol": "linear0", "tir.noalias": True})
        Y = T.alloc_buffer((1, 128), "float32")
        for i, j, k in T.grid(1, 128, 784):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(1, 128):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @T.prim_func
    def linear1(X: T.Buffer((1, 128), "float32"), W: T.Buffer((10, 128), "float32"),
                B: T.Buffer((10,), "float32"), Z: T.Buffer((1, 10), "float32")):
        T.func_attr({"global_symbol": "linear1", "tir.noalias": True})
        Y = T.alloc_buffer((1, 10), "float32")
        for i, j, k in T.grid(1, 10, 128):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(1, 10):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @R.function
    def main(x: R.Tensor((1, 784), "float32"), w0: R.Tensor((128, 784), "float32"),
             b0: R.Tensor((128,), "float32"), w1: R.Tensor((10, 128), "float32"),
             b1: R.Tensor((10,), "float32")):
        with R.dataflow():
            lv0 = R.call_tir(linear0, (x, w0, b0), (1, 128), dtype="float32")
            lv1 = R.call_tir(relu0, (lv0,), (1, 128), dtype="float32")
            out = R.call_tir(linear1, (lv1, w1, b1), (1, 10), dtype="float32")
            R.output(out)
        return out


@I.ir_module
class MyModuleNew:
    @R.function
    def main(x: R.Tensor((1, 784), dtype="float32"), w0: R.Tensor((128, 784), dtype="float32"),
             b0: R.Tensor((128,), dtype="float32"), w1: R.Tensor((10, 128), dtype="float32"),
             b1: R.Tensor((10,), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):
        cls = MyModuleNew
        with R.dataflow():
            lv0 = R.call_tir(cls.linear0, (x, w0, b0),
                             out_sinfo=R.Tensor((1, 128), dtype="float32"))
            lv1 = R.call_dps_packed("env.relu", (lv0,), R.Tensor((1, 128), dtype="float32"))
            out = R.call_tir(cls.linear1, (lv1, w1, b1),
                             out_sinfo=R.Tensor((1, 10), dtype="float32"))
            R.output(out)
        return out

    @T.prim_func
    def linear0(X: T.Buffer((1, 784), "float32"), W: T.Buffer((128, 784), "float32"),
                B: T.Buffer((128,), "float32"), Z: T.Buffer((1, 128), "float32")):
        for i, j, k in T.grid(1, 128, 784):
            with T.block("Z"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Z[vi, vj] = B[vj]
                Z[vi, vj] = Z[vi, vj] + X[vi, vk] * W[vj, vk]

    @T.prim_func
    def linear1(X: T.Buffer((1, 128), "float32"), W: T.Buffer((10, 128), "float32"),
                B: T.Buffer((10,), "float32"), Z: T.Buffer((1, 10), "float32")):
        for i, j, k in T.grid(1, 10, 128):
            with T.block("Z"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Z[vi, vj] = B[vj]
                Z[vi, vj] = Z[vi, vj] + X[vi, vk] * W[vj, vk]


def test_course_module_old_syntax():
    assert isinstance(MyModule, tvm.IRModule)
    main = MyModule["main"]
    assert isinstance(main, relax.Function)
    assert len(main.params) == 5
    assert [p.name_hint for p in main.params] == ["x", "w0", "b0", "w1", "b1"]
    # The result has the struct info call_tir was given.
    sinfo = main.body.struct_info
    assert isinstance(sinfo, relax.TensorStructInfo)
    assert [int(d) for d in sinfo.shape.values] == [1, 10]
    assert sinfo.dtype == "float32"


def test_course_module_new_syntax_any_order():
    main = MyModuleNew["main"]
    assert isinstance(main, relax.Function)
    block = main.body.blocks[0]
    assert isinstance(block, relax.DataflowBlock)
    assert len(block.bindings) == 3
    # lv0 and lv1 are dataflow variables; out survives the block.
    assert isinstance(block.bindings[0].var, relax.DataflowVar)
    assert not isinstance(block.bindings[2].var, relax.DataflowVar)
    call = block.bindings[1].value
    assert call.op.name == "relax.call_dps_packed"


def test_standalone_function():
    @R.function
    def f(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        y = R.add(x, x)
        return y

    assert isinstance(f, relax.Function)
    assert f.attrs["global_symbol"] == "f"
    ret = f.ret_struct_info
    assert ret.shape.values[0].dtype == "int64"


def test_from_source_with_metadata():
    text = (
        "from tvm.script import relax as R\n"
        "@R.function\n"
        "def main(x: R.Tensor((2, 3), \"float32\")):\n"
        "    c = metadata[\"relax.expr.Constant\"][0]\n"
        "    y = R.add(x, c)\n"
        "    return y\n"
    )
    with pytest.raises(tvm.error.ParseError, match="without its metadata table"):
        tvm.script.from_source(text)
    const = relax.const(np.arange(6, dtype="float32").reshape(2, 3))
    f = tvm.script.from_source(text, metadata={"relax.expr.Constant": [const]})
    assert isinstance(f, relax.Function)


def test_parse_error_points_into_this_file():
    with pytest.raises(tvm.error.ParseError) as info:

        @R.function
        def bad(x: R.Tensor((2, 3), "float32")):
            y = R.add(x, zz)  # noqa: F821  marker: undefined relax name
            return y

    message = str(info.value)
    line = _line_of("marker: undefined relax name")
    assert f"{os.path.basename(__file__)}:{line}:26" in message, message
    assert 'undefined variable "zz"' in message


def test_python_operator_is_refused():
    with pytest.raises(tvm.error.ParseError, match=r"call R.add\(a, b\)"):

        @R.function
        def bad(x: R.Tensor((2, 3), "float32")):
            y = x + x
            return y


def test_inference_error_points_at_the_call():
    with pytest.raises(tvm.error.ParseError) as info:

        @R.function
        def bad(x: R.Tensor((2, 3), "float32"), w: R.Tensor((4, 5), "float32")):
            y = R.matmul(x, w)  # marker: matmul mismatch
            return y

    line = _line_of("marker: matmul mismatch")
    assert f":{line}:17" in str(info.value), str(info.value)
    assert "ValueError" in str(info.value)


def test_annotation_mismatch_in_a_module_class():
    with pytest.raises(tvm.error.ParseError) as info:

        @I.ir_module
        class Broken:  # pylint: disable=unused-variable
            @R.function
            def main(x: R.Tensor((2, 3), "float32")):
                y: R.Tensor((3, 2), "float32") = R.exp(x)  # marker: bad annotation
                return y

    line = _line_of("marker: bad annotation")
    assert f":{line}:20" in str(info.value), str(info.value)
    assert "does not match" in str(info.value)


def test_printed_course_module_parses_back():
    text = MyModule.script()
    if "R.function" not in text:
        pytest.skip("the Relax printer has not landed")
    again = tvm.script.from_source(text)
    for gv in MyModule.get_global_vars():
        name = gv.name_hint
        assert tvm.ir.structural_equal(MyModule[name], again[name]), name
    assert again.script() == text


def test_decorator_options_are_read_from_the_source():
    @R.function(pure=False)
    def impure(x: R.Tensor((2,), "float32")):
        y = R.call_packed("my.print", x, sinfo_args=R.Object)
        return x

    assert not impure.is_pure

    @R.function(private=True)
    def hidden(x: R.Tensor((2,), "float32")):
        return x

    assert "global_symbol" not in (hidden.attrs or {})

"""Stage 4: ``relax.BlockBuilder`` from Python — scopes, names, normalisation, ``emit_te`` /
``call_te`` with TOPI (the course's MLP), ``BindParams``, and every misuse error (kind and
message)."""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import error, relax, te, tir, topi
from minitvm.ir.structural import structural_equal


def T(shape, dtype="float32"):
    return relax.TensorStructInfo(list(shape), dtype)


def _same(info, want):
    return structural_equal(info, want)


def _global_names(mod):
    return sorted(gv.name_hint for gv in mod.get_global_vars())


def _bindings(func):
    return [b for block in func.body.blocks for b in block.bindings]


# ---- the course's MLP, built with emit_te + TOPI -------------------------------------------------

def _mlp():
    bb = relax.BlockBuilder()
    x = relax.Var("x", T((1, 784)))
    w0 = relax.Var("w0", T((128, 784)))
    b0 = relax.Var("b0", T((128,)))
    w1 = relax.Var("w1", T((10, 128)))
    b1 = relax.Var("b1", T((10,)))
    with bb.function("main", [x, w0, b0, w1, b1]):
        with bb.dataflow():
            lv0 = bb.emit_te(topi.nn.dense, x, w0, b0)
            lv1 = bb.emit_te(topi.nn.relu, lv0)
            lv2 = bb.emit_te(topi.nn.dense, lv1, w1, b1, primfunc_name_hint="linear1")
            gv = bb.emit_output(lv2)
        bb.emit_func_output(gv)
    return bb.get(), (lv0, lv1, lv2, gv)


def test_mlp_with_emit_te_structure():
    mod, (lv0, lv1, lv2, gv) = _mlp()
    assert _global_names(mod) == ["dense", "linear1", "main", "relu"]
    assert isinstance(mod["dense"], tir.PrimFunc)
    assert [v.name_hint for v in (lv0, lv1, lv2, gv)] == ["lv", "lv1", "lv2", "gv"]
    assert isinstance(lv0, relax.DataflowVar) and not isinstance(gv, relax.DataflowVar)
    assert _same(lv0.struct_info, T((1, 128)))
    assert _same(lv1.struct_info, T((1, 128)))
    assert _same(gv.struct_info, T((1, 10)))
    main = mod["main"]
    assert [p.name_hint for p in main.params] == ["x", "w0", "b0", "w1", "b1"]
    assert main.attrs["global_symbol"] == "main"
    bindings = _bindings(main)
    assert len(bindings) == 4
    call = bindings[0].value
    assert call.op.same_as(tvm.ir.Op.get("relax.call_tir"))
    assert call.args[0].name_hint == "dense"
    assert [a.name_hint for a in call.args[1].fields] == ["x", "w0", "b0"]
    assert _same(call.sinfo_args[0], T((1, 128)))
    # Placeholders are named after the Relax variables.
    dense = mod["dense"]
    assert [dense.buffer_map[p].name for p in dense.params[:3]] == ["x", "w0", "b0"]
    assert relax.analysis.well_formed(mod)


def test_mlp_numerically_with_the_interpreter():
    mod, _ = _mlp()
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s).astype("float32")
            for s in [(1, 784), (128, 784), (128,), (10, 128), (10,)]]
    out = relax.interpret(mod, "main", *[tvm.nd.array(a) for a in args])
    x, w0, b0, w1, b1 = args
    want = np.maximum(x @ w0.T + b0, 0) @ w1.T + b1
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-4)

    # The same after binding the weights.
    bound = relax.transform.BindParams("main", {"w0": args[1], "b0": args[2], "w1": args[3],
                                                "b1": args[4]})(mod)
    out = relax.interpret(bound, "main", tvm.nd.array(x))
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-4)


def test_emit_te_with_lambda_symbolic_shape_and_dedup():
    n = tir.Var("n", "int64")
    x = relax.Var("x", T((n, 4)))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            add_one = lambda a: te.compute(a.shape, lambda i, j: a[i, j] + 1.0, name="B")
            lv = bb.emit_te(add_one, x, primfunc_name_hint="add_one")
            lv1 = bb.emit_te(add_one, x, primfunc_name_hint="add_one", name_hint="second")
            gv = bb.emit_output(lv1)
        bb.emit_func_output(gv)
    mod = bb.get()
    assert lv1.name_hint == "second"
    assert _same(lv.struct_info, T((n, 4)))
    # The same PrimFunc (structurally) is added once.
    assert _global_names(mod) == ["add_one", "main"]
    assert relax.analysis.well_formed(mod)


def test_call_te_returns_an_unbound_call_and_default_name():
    x = relax.Var("x", T((2, 3)))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        call = bb.call_te(topi.nn.relu, x)
        assert isinstance(call, relax.Call)
        out = bb.emit(call)
        bb.emit_func_output(out)
    assert "relu" in _global_names(bb.get())
    assert out.name_hint == "gv"


def test_emit_te_multiple_outputs_give_a_tuple():
    x = relax.Var("x", T((6,)))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        parts = bb.emit_te(topi.split, x, 2)
        bb.emit_func_output(parts)
    info = parts.struct_info
    assert isinstance(info, relax.TupleStructInfo)
    assert len(info.fields) == 2 and _same(info.fields[0], T((3,)))


def test_emit_te_refuses_non_tensor_results():
    x = relax.Var("x", T((2,)))
    bb = relax.BlockBuilder()
    with pytest.raises(error.TypeError, match="must return a te.Tensor"):
        with bb.function("main", [x]):
            bb.emit_te(lambda a: 3, x, primfunc_name_hint="bad")


# ---- normalisation through the builder ----------------------------------------------------------

def test_nested_calls_become_bindings_and_normalize():
    x = relax.Var("x", T((4,)))
    y = relax.Var("y", T((4,)))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        with bb.dataflow():
            lv = bb.emit(relax.op.add(relax.op.multiply(x, y), y))
            gv = bb.emit_output(lv)
        bb.emit_func_output(gv)
    main = bb.get()["main"]
    assert [b.var.name_hint for b in _bindings(main)] == ["lv", "lv1", "gv"]
    assert lv.name_hint == "lv1"
    norm = relax.BlockBuilder().normalize(relax.Tuple([x, y]))
    assert isinstance(norm.struct_info, relax.TupleStructInfo)


def test_params_given_to_emit_func_output_and_private_functions():
    x = relax.Var("x", T((3,)))
    bb = relax.BlockBuilder()
    with bb.function("f", private=True):
        gv = bb.emit_func_output(relax.op.add(x, x), params=[x])
    mod = bb.get()
    assert gv.name_hint == "f"
    assert [p.name_hint for p in mod["f"].params] == ["x"]
    assert "global_symbol" not in (mod["f"].attrs or {})
    assert relax.analysis.well_formed(mod)


def test_function_with_pure_false_attrs_and_match_cast():
    x = relax.Var("x", relax.ObjectStructInfo())
    bb = relax.BlockBuilder()
    with bb.function("main", [x], attrs={"num_input": 1}, pure=False):
        t = bb.emit_match_cast(x, T((2, 2)))
        bb.emit_func_output(t)
    main = bb.get()["main"]
    assert not main.is_pure
    assert int(main.attrs["num_input"]) == 1
    assert _same(t.struct_info, T((2, 2)))


def test_add_update_func_and_current_block():
    x = relax.Var("x", T((2,)))
    bb = relax.BlockBuilder()
    assert not bb.current_block_is_dataflow()
    with bb.function("f", [x]):
        with bb.dataflow():
            assert bb.current_block_is_dataflow()
            gv = bb.emit_output(x)
        assert not bb.current_block_is_dataflow()
        f = bb.emit_func_output(gv)
    func = bb.get()["f"]
    g = bb.add_func(func, "g")
    assert g.name_hint == "f"  # the same function object: reused
    bb.update_func(f, func)
    assert bb.get()["f"].same_as(func)
    bb2 = relax.BlockBuilder(bb.get())
    assert "f" in _global_names(bb2.get())


def test_bind_params_from_python():
    mod, _ = _mlp()
    rng = np.random.default_rng(1)
    params = {"w0": rng.standard_normal((128, 784)).astype("float32"),
              "b0": tvm.nd.array(rng.standard_normal((128,)).astype("float32"))}
    out = relax.transform.BindParams("main", params)(mod)
    assert [p.name_hint for p in out["main"].params] == ["x", "w1", "b1"]
    assert relax.analysis.well_formed(out)
    with pytest.raises(error.ValueError, match='no parameter named "w9"; its parameters are: x, w0'):
        relax.transform.BindParams("main", {"w9": params["w0"]})(mod)
    with pytest.raises(error.ValueError, match=r'parameter "w0".*\(2, 2\) float32'):
        relax.transform.BindParams("main", {"w0": np.zeros((2, 2), "float32")})(mod)


# ---- misuse -------------------------------------------------------------------------------------

def test_emit_output_outside_dataflow():
    x = relax.Var("x", T((2,)))
    bb = relax.BlockBuilder()
    with pytest.raises(error.ValueError, match="EmitOutput: only a dataflow block has outputs"):
        with bb.function("main", [x]):
            bb.emit_output(x)


def test_emit_func_output_inside_dataflow():
    x = relax.Var("x", T((2,)))
    bb = relax.BlockBuilder()
    # As TVM: emit_func_output inside the dataflow scope ends the block first.
    with bb.function("main", [x]):
        with bb.dataflow():
            gv = bb.emit_output(x)
            bb.emit_func_output(gv)
    assert _global_names(bb.get()) == ["main"]
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        bb.emit_func_output(x)
    assert _global_names(bb.get()) == ["main"]


def test_function_inside_function():
    x = relax.Var("x", T((2,)))
    bb = relax.BlockBuilder()
    with pytest.raises(error.ValueError, match='cannot begin function "g" inside function "f"'):
        with bb.function("f", [x]):
            with bb.function("g", [x]):
                pass


def test_dataflow_var_used_after_its_block():
    x = relax.Var("x", T((2,)))
    bb = relax.BlockBuilder()
    with pytest.raises(error.ValueError, match='DataflowVar "lv" is used in the binding of "gv"'):
        with bb.function("main", [x]):
            with bb.dataflow():
                lv = bb.emit(relax.op.add(x, x))
            bb.emit(relax.op.add(lv, x))


def test_dataflow_var_as_function_output():
    x = relax.Var("x", T((2,)))
    bb = relax.BlockBuilder()
    with pytest.raises(error.ValueError, match='DataflowVar "lv" is used in the output of function'):
        with bb.function("main", [x]):
            with bb.dataflow():
                lv = bb.emit(relax.op.add(x, x))
            bb.emit_func_output(lv)


def test_impure_call_inside_dataflow():
    x = relax.Var("x", T((2,)))
    bb = relax.BlockBuilder()
    ext = relax.ExternFunc("env.print")
    with pytest.raises(error.ValueError, match='extern function "env.print", which is impure'):
        with bb.function("main", [x]):
            with bb.dataflow():
                bb.emit(relax.Call(ext, [x], sinfo_args=[T((2,))]))


def test_params_without_struct_info():
    bb = relax.BlockBuilder()
    with pytest.raises(error.ValueError, match='parameter "x" of function "main" has no struct info'):
        with bb.function("main", [relax.Var("x")]):
            pass


def test_missing_emit_func_output_and_missing_params():
    x = relax.Var("x", T((2,)))
    bb = relax.BlockBuilder()
    with pytest.raises(error.ValueError, match="ended without emit_func_output"):
        with bb.function("main", [x]):
            bb.emit(relax.op.add(x, x))
    with pytest.raises(error.ValueError, match='function "main" has no parameters'):
        with bb.function("main"):
            bb.emit_func_output(x)
    with pytest.raises(error.TypeError, match="each parameter must be a relax.Var"):
        bb.function("main", [x, 3])


def test_inference_error_names_the_binding():
    x = relax.Var("x", T((2,)))
    y = relax.Var("y", T((3,)))
    bb = relax.BlockBuilder()
    with pytest.raises(error.TVMError, match=r'\(while normalising the binding of "sum"\)'):
        with bb.function("main", [x, y]):
            bb.emit(relax.op.add(x, y), name_hint="sum")


def test_emit_te_on_a_shape_argument_value_is_refused():
    s = relax.Var("s", relax.ShapeStructInfo(ndim=2))
    bb = relax.BlockBuilder()
    with pytest.raises(error.ValueError, match="emit_te: argument 0 must be a tensor of known shape"):
        with bb.function("main", [s]):
            bb.emit_te(topi.nn.relu, s)


# ---- random programs: nested expressions through the builder, checked against NumPy -------------

@pytest.mark.parametrize("seed", range(8))
def test_random_nested_programs_match_numpy(seed):
    rng = np.random.default_rng(seed)
    n = tir.Var("n", "int64")
    cols = int(rng.integers(1, 5))
    params = [relax.Var(f"p{i}", T((n, cols))) for i in range(3)]
    binary = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply}

    def random_expr(depth):
        # A nested Relax expression and the NumPy function computing it.
        if depth == 0 or rng.random() < 0.25:
            k = int(rng.integers(len(params)))
            return params[k], (lambda vals, k=k: vals[k])
        if rng.random() < 0.2:
            e, f = random_expr(depth - 1)
            return relax.op.nn.relu(e), (lambda vals, f=f: np.maximum(f(vals), 0))
        name = list(binary)[int(rng.integers(3))]
        (a, fa), (b, fb) = random_expr(depth - 1), random_expr(depth - 1)
        return getattr(relax.op, name)(a, b), (lambda vals, fa=fa, fb=fb, g=binary[name]:
                                                 g(fa(vals), fb(vals)))

    bb = relax.BlockBuilder()
    outs = []
    with bb.function("main", params):
        with bb.dataflow():
            for _ in range(int(rng.integers(1, 4))):
                expr, f = random_expr(3)
                outs.append((bb.emit(expr), f))
            gv = bb.emit_output(relax.Tuple([v for v, _ in outs]))
        bb.emit_func_output(gv)
    mod = bb.get()
    assert relax.analysis.well_formed(mod), relax.analysis.well_formed_violations(mod)
    for block in mod["main"].body.blocks:  # A-normal form: every call argument is a leaf
        for b in block.bindings:
            if isinstance(b.value, relax.Call):
                assert all(isinstance(a, (relax.Var, relax.Constant)) for a in b.value.args)
    rows = int(rng.integers(1, 4))
    vals = [rng.standard_normal((rows, cols)).astype("float32") for _ in params]
    got = relax.interpret(mod, "main", *[tvm.nd.array(v) for v in vals])
    for (var, f), g in zip(outs, got):
        assert _same(var.struct_info, T((n, cols)))
        np.testing.assert_allclose(g.numpy(), f(vals), rtol=1e-5, atol=1e-5)

    # Binding the first parameter specialises n everywhere.
    bound = relax.transform.BindParams("main", {"p0": vals[0]})(mod)
    assert relax.analysis.well_formed(bound)
    assert _same(bound["main"].params[0].struct_info, T((rows, cols)))
    got = relax.interpret(bound, "main", *[tvm.nd.array(v) for v in vals[1:]])
    for (_, f), g in zip(outs, got):
        np.testing.assert_allclose(g.numpy(), f(vals), rtol=1e-5, atol=1e-5)


def test_emit_te_passes_keywords_and_shape_arguments():
    x = relax.Var("x", T((2, 3)))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        sm = bb.emit_te(topi.nn.softmax, x, axis=0)
        flat = bb.emit_te(topi.reshape, sm, relax.ShapeExpr([6]))
        total = bb.emit_te(topi.sum, flat, axis=0, keepdims=True, primfunc_name_hint="total")
        bb.emit_func_output(total)
    mod = bb.get()
    assert _same(flat.struct_info, T((6,)))
    assert _same(total.struct_info, T((1,)))
    assert "total" in _global_names(mod)
    data = np.arange(6, dtype="float32").reshape(2, 3)
    out = relax.interpret(mod, "main", tvm.nd.array(data))
    e = np.exp(data - data.max(axis=0))
    np.testing.assert_allclose(out.numpy(), [(e / e.sum(axis=0)).sum()], rtol=1e-5)

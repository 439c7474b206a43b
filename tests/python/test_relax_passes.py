"""Tests of the Relax passes and pipelines of stage 4b, from Python.

Each pass runs on a small module; the module before and after is run by the Relax reference
interpreter on seeded random inputs and must give the same result; the pass's structural effect
is checked from the printed module. Also: ``relax.get_pipeline`` ("zero", "default", an unknown
name), and pass instruments printing a Relax module's per-pass diff.
"""
import re

import numpy as np
import pytest

import minitvm as tvm
from minitvm import relax

RNG = np.random.default_rng(7)


def _mlp(dataflow=True):
    """main(x: (4, 8), w: (8, 6)) with a constant subexpression, a dead binding and an alias."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((4, 8), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((8, 6), "float32"))
    c1 = relax.const(RNG.uniform(-1, 1, (6,)).astype("float32"))
    c2 = relax.const(RNG.uniform(-1, 1, (6,)).astype("float32"))

    def body():
        c = bb.emit(relax.op.add(c1, c2))
        mm = bb.emit(relax.op.matmul(x, w))
        biased = bb.emit(relax.op.add(mm, c))
        bb.emit(relax.op.exp(biased))  # dead
        alias = bb.emit(biased)
        if dataflow:
            return bb.emit_output(relax.op.nn.relu(alias))
        return bb.emit(relax.op.nn.relu(alias))

    with bb.function("main", [x, w]):
        if dataflow:
            with bb.dataflow():
                out = body()
        else:
            out = body()
        bb.emit_func_output(out)
    return bb.get()


def _same(before, after):
    assert relax.analysis.well_formed(after)
    for _ in range(3):
        x = RNG.uniform(-2, 2, (4, 8)).astype("float32")
        w = RNG.uniform(-2, 2, (8, 6)).astype("float32")
        want = relax.interpret(before, "main", tvm.nd.array(x), tvm.nd.array(w)).numpy()
        got = relax.interpret(after, "main", tvm.nd.array(x), tvm.nd.array(w)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_passes_are_exported_as_passes():
    for name in ["LegalizeOps", "AnnotateTIROpPattern", "FoldConstant", "DeadCodeElimination",
                 "CanonicalizeBindings", "ConvertToDataflow", "ToNonDataflow",
                 "DecomposeOpsForInference", "FoldBatchnormToConv2D", "AttachGlobalSymbol"]:
        assert isinstance(getattr(relax.transform, name)(), tvm.transform.Pass), name


def test_annotate_tir_op_pattern():
    before = _mlp()
    mod = relax.transform.LegalizeOps()(before)
    mod = relax.transform.AnnotateTIROpPattern()(mod)
    text = mod.script()
    assert '"op_pattern": 4' in text  # matmul
    assert '"op_pattern": 1' in text  # the broadcasting add
    assert '"op_pattern": 0' in text  # relu, exp
    _same(before, mod)


def test_fold_constant():
    before = _mlp()
    after = relax.transform.FoldConstant()(before)
    assert before.script().count("R.add(") == 2
    assert after.script().count("R.add(") == 1
    _same(before, after)
    legal = relax.transform.LegalizeOps()(before)
    folded = relax.transform.FoldConstant()(legal)
    assert folded.script().count("R.call_tir(") == legal.script().count("R.call_tir(") - 1
    _same(before, folded)


def test_dead_code_elimination():
    before = relax.transform.LegalizeOps()(_mlp())
    after = relax.transform.DeadCodeElimination(["main"])(before)
    assert "cls.exp" in before.script() and "cls.exp" not in after.script()
    assert "def exp(" not in after.script()
    _same(before, after)


def test_canonicalize_bindings():
    before = _mlp()
    after = relax.transform.CanonicalizeBindings()(before)
    assert after.script().count(" = ") == before.script().count(" = ") - 1
    _same(before, after)


def test_convert_to_dataflow_and_back():
    plain = _mlp(dataflow=False)
    assert "R.dataflow()" not in plain.script()
    df = relax.transform.ConvertToDataflow()(plain)
    assert "R.dataflow()" in df.script() and "R.output(" in df.script()
    _same(plain, df)
    back = relax.transform.ToNonDataflow()(df)
    assert "R.dataflow()" not in back.script()
    _same(plain, back)


def test_decompose_batch_norm():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((2, 3, 4, 4), "float32"))
    vecs = [relax.Var(n, relax.TensorStructInfo((3,), "float32")) for n in "gbmv"]
    with bb.function("main", [x, *vecs]):
        with bb.dataflow():
            var = bb.emit(relax.op.multiply(vecs[3], vecs[3]))
            bn = bb.emit(relax.op.nn.batch_norm(x, vecs[0], vecs[1], vecs[2], var, axis=1,
                                                training=False))
            out = bb.emit_output(relax.TupleGetItem(bn, 0))
        bb.emit_func_output(out)
    before = bb.get()
    after = relax.transform.DecomposeOpsForInference()(before)
    assert "batch_norm" not in after.script() and "R.sqrt" in after.script()
    args = [RNG.uniform(0.5, 2, s).astype("float32") for s in [(2, 3, 4, 4)] + [(3,)] * 4]
    args = [tvm.nd.array(a) for a in args]
    want = relax.interpret(before, "main", *args).numpy()
    got = relax.interpret(after, "main", *args).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_attach_global_symbol():
    mod = relax.transform.AttachGlobalSymbol()(relax.transform.LegalizeOps()(_mlp()))
    for gv in mod.get_global_vars():
        assert mod[gv].attrs["global_symbol"] == gv.name_hint


@pytest.mark.parametrize("name", ["zero", "default"])
def test_pipelines(name):
    before = _mlp()
    after = relax.get_pipeline(name)(before)
    text = after.script()
    assert "R.matmul" not in text and "R.call_tir" in text
    _same(before, after)
    passes = [p.info.name for p in relax.get_pipeline(name).passes]
    if passes[0] == "FuseTransposeMatmul":  # stage 5's rewrite runs first in "default"
        assert name == "default"
        passes = passes[1:]
    if name == "default":  # inference batch norms: folded into a constant conv kernel, else
        # arithmetic that fuses into its producer
        assert passes[0] == "FoldInferenceBatchnormToConv2D"
        passes = passes[1:]
        assert passes[:2] == ["DecomposeInferenceBatchNorm", "CanonicalizeBindings"]
        passes = passes[2:]
    assert passes[:3] == ["LegalizeOps", "AnnotateTIROpPattern", "FoldConstant"]
    if name == "default":
        assert passes[-1] == "DeadCodeElimination"


def test_unknown_pipeline_lists_known_ones():
    with pytest.raises(ValueError, match='unknown pipeline "fast".*"default", "zero"'):
        relax.get_pipeline("fast")


def test_instruments_print_relax_diff(capfd):
    with tvm.transform.PassContext(instruments=[tvm.transform.PrintDiff()]):
        relax.get_pipeline("zero")(_mlp())
    out = capfd.readouterr().out
    assert "LegalizeOps" in out
    assert "-            lv1: R.Tensor((4, 6), dtype=\"float32\") = R.matmul" in out
    assert "+            lv1 = R.call_tir(cls.matmul" in out


# The Python pass of docs/stage4_relax_passes.md ("Writing your own pass"), checked here.
@tvm.transform.module_pass(opt_level=0, name="SiluToSigmoidMultiply")
def silu_to_sigmoid_multiply(mod, ctx):
    """Rewrite every R.nn.silu(x) of `main` into R.multiply(x, R.sigmoid(x))."""
    func = mod["main"]
    bb = relax.BlockBuilder()
    remap = {}  # old variable -> new variable

    def rewrite(expr):
        # Rebuild a call on the new variables, decomposing silu.
        if isinstance(expr, relax.Var):
            return remap.get(expr, expr)
        if isinstance(expr, relax.Call) and expr.op == tvm.ir.Op.get("relax.nn.silu"):
            x = rewrite(expr.args[0])
            return relax.op.multiply(x, bb.emit(relax.op.sigmoid(x)))
        if isinstance(expr, relax.Call) and isinstance(expr.op, tvm.ir.Op):
            return relax.Call(expr.op, [rewrite(a) for a in expr.args], expr.attrs, expr.sinfo_args)
        return expr

    with bb.function("main", list(func.params)):
        for block in func.body.blocks:
            with bb.dataflow():
                for binding in block.bindings:
                    new = rewrite(binding.value)
                    is_output = not isinstance(binding.var, relax.DataflowVar)
                    emit = bb.emit_output if is_output else bb.emit
                    remap[binding.var] = emit(new, binding.var.name_hint)
        bb.emit_func_output(rewrite(func.body.body))
    out = mod.copy()
    out.update_func(out.get_global_var("main"), bb.get()["main"])
    return out



def test_python_module_pass_of_the_docs():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((2, 3), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit(relax.op.nn.silu(x))
            gv = bb.emit_output(relax.op.add(lv, x))
        bb.emit_func_output(gv)
    before = bb.get()
    after = silu_to_sigmoid_multiply(before)
    assert "R.nn.silu" not in after.script() and "R.sigmoid" in after.script()
    a = tvm.nd.array(RNG.uniform(-2, 2, (2, 3)).astype("float32"))
    np.testing.assert_allclose(relax.interpret(after, "main", a).numpy(),
                               relax.interpret(before, "main", a).numpy(), rtol=1e-6)


def test_canonicalize_bindings_reads_an_item_of_a_known_tuple():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((4,), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit(relax.op.add(x, x))
            b = bb.emit(relax.op.multiply(x, x))
            t = bb.emit(relax.Tuple([a, b]))
            y = bb.emit(relax.TupleGetItem(t, 1))
            out = bb.emit_output(relax.op.subtract(y, a))
        bb.emit_func_output(out)
    mod = relax.transform.CanonicalizeBindings()(bb.get())
    mod = relax.transform.DeadCodeElimination()(mod)
    text = mod.script()
    assert "[1]" not in text and "R.tuple" not in text, text  # the tuple is gone too
    xv = tvm.nd.array(RNG.uniform(-2, 2, (4,)).astype("float32"))
    np.testing.assert_allclose(relax.interpret(mod, "main", xv).numpy(),
                               relax.interpret(bb.get(), "main", xv).numpy(), rtol=1e-6)


@pytest.mark.parametrize("training", [False, True])
def test_default_pipeline_fuses_an_inference_batch_norm(training):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, 3, 8, 8), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((4, 3, 3, 3), "float32"))
    vecs = [relax.Var(n, relax.TensorStructInfo((4,), "float32"))
            for n in ("gamma", "beta", "mean", "var")]
    with bb.function("main", [x, w] + vecs):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, w, padding=1))
            bn = bb.emit(relax.op.nn.batch_norm(y, *vecs, axis=1, training=training))
            out = bb.emit_output(relax.op.nn.relu(bb.emit(relax.TupleGetItem(bn, 0))))
        bb.emit_func_output(out)
    before = bb.get()
    after = relax.get_pipeline("default")(before)
    kernels = [gv.name_hint for gv, f in after.functions_items() if isinstance(f, tvm.tir.PrimFunc)]
    fused = [k for k in kernels if k.startswith("fused_conv2d") and "relu" in k]
    # Inference: one kernel holds the conv, the batch-norm arithmetic and the ReLU.
    assert bool(fused) == (not training), kernels
    args = [RNG.uniform(-1, 1, (1, 3, 8, 8)), RNG.uniform(-1, 1, (4, 3, 3, 3))]
    args += [RNG.uniform(0.5, 1.5, (4,)) for _ in range(4)]
    args = [tvm.nd.array(a.astype("float32")) for a in args]
    np.testing.assert_allclose(relax.interpret(after, "main", *args).numpy(),
                               relax.interpret(before, "main", *args).numpy(),
                               rtol=1e-4, atol=1e-5)


def _conv_bn(n_in, n_out, groups, stride, *, center=True, scale=True, training=False,
             const_kernel=True, conv_used_twice=False):
    """main(x) = relu(batch_norm(conv2d(x, W))[0]) with constant W and batch-norm vectors."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, n_in, 9, 7), "float32"))
    w_np = RNG.uniform(-1, 1, (n_out, n_in // groups, 3, 3)).astype("float32")
    w = relax.const(w_np) if const_kernel else relax.Var(
        "w", relax.TensorStructInfo(w_np.shape, "float32"))
    vecs = [relax.const(RNG.uniform(lo, hi, (n_out,)).astype("float32"))
            for lo, hi in [(0.5, 1.5), (-1, 1), (-1, 1), (0.2, 2)]]
    params = [x] if const_kernel else [x, w]
    with bb.function("main", params):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, w, strides=stride, padding=1, groups=groups))
            bn = bb.emit(relax.op.nn.batch_norm(y, *vecs, axis=1, epsilon=1e-3, center=center,
                                                scale=scale, training=training))
            out = bb.emit(relax.op.nn.relu(bb.emit(relax.TupleGetItem(bn, 0))))
            if conv_used_twice:
                out = bb.emit(relax.op.add(out, y))
            out = bb.emit_output(out)
        bb.emit_func_output(out)
    return bb.get(), ([] if const_kernel else [w_np])


@pytest.mark.parametrize("n_in,n_out,groups,stride,center,scale", [
    (3, 5, 1, 1, True, True), (4, 4, 4, 2, True, True), (6, 4, 2, 1, False, True),
    (2, 7, 1, 2, True, False)])
def test_fold_batchnorm_to_conv2d(n_in, n_out, groups, stride, center, scale):
    """The folded module (kernel and bias computed by FoldConstant) computes what the batch norm
    did, on random inputs; no batch norm and no sqrt are left."""
    before, _ = _conv_bn(n_in, n_out, groups, stride, center=center, scale=scale)
    folded = relax.transform.FoldBatchnormToConv2D()(before)
    assert relax.analysis.well_formed(folded)
    assert "R.sqrt" in folded.script()  # the scale, before FoldConstant
    after = relax.transform.DeadCodeElimination()(relax.transform.FoldConstant()(
        relax.transform.CanonicalizeBindings()(folded)))
    text = after.script()
    assert "batch_norm" not in text and "R.sqrt" not in text, text
    for _ in range(2):
        x = tvm.nd.array(RNG.uniform(-1, 1, (1, n_in, 9, 7)).astype("float32"))
        np.testing.assert_allclose(relax.interpret(after, "main", x).numpy(),
                                   relax.interpret(before, "main", x).numpy(),
                                   rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", ["kernel_not_constant", "conv_used_twice"])
def test_fold_batchnorm_to_conv2d_leaves_what_it_cannot_fold(case):
    before, _ = _conv_bn(3, 4, 1, 1, const_kernel=case != "kernel_not_constant",
                         conv_used_twice=case == "conv_used_twice")
    after = relax.transform.FoldBatchnormToConv2D()(before)
    assert "batch_norm" in after.script()
    assert tvm.ir.structural_equal(after, before)


@pytest.mark.parametrize("training", [False, True])
def test_default_pipeline_folds_an_inference_batch_norm_into_a_constant_kernel(training):
    """With the weights bound, the "default" pipeline leaves one kernel conv2d + bias + ReLU: the
    batch norm's scale is inside the folded kernel (no multiply, divide or sqrt in the kernel);
    a training-mode batch norm is not folded."""
    before, _ = _conv_bn(3, 6, 1, 1, training=training)
    after = relax.get_pipeline("default")(before)
    kernels = [gv.name_hint for gv, f in after.functions_items() if isinstance(f, tvm.tir.PrimFunc)]
    if training:
        assert "batch_norm" in " ".join(kernels), kernels
        return
    # (the name may count the folded adds: fused_conv2d_add1_relu)
    assert len(kernels) == 1 and re.fullmatch(r"fused_conv2d_add\d*_relu", kernels[0]), kernels
    x = tvm.nd.array(RNG.uniform(-1, 1, (1, 3, 9, 7)).astype("float32"))
    np.testing.assert_allclose(relax.interpret(after, "main", x).numpy(),
                               relax.interpret(before, "main", x).numpy(), rtol=1e-4, atol=1e-5)

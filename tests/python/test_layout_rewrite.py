"""Weight packing at compile time (issue 18): with the weights bound as constants
(``relax.build(params=...)`` / BindParams), the ``"default"`` pipeline marks the kernels'
constant parameters layout free (``AttachAttrLayoutFreeBuffers``), the conv2d and GEMM rules mark
their weight packing as layout-rewrite preprocessing, ``SplitLayoutRewritePreproc`` moves it into
a PrimFunc of its own called on the weight, and FoldConstant runs it once. Checked: the passes'
effect on the module, the folded constant's layout, and compiled results with bound weights
against the same model with the weights as arguments and against the Relax interpreter (random
conv shapes, a ResNet-like block with batch norms, MLPs). No timings (bench/ has them)."""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import relax

TARGET = "llvm -mcpu=native"
_schedule = tvm.get_global_func("relax.transform.DefaultCPUSchedule")


def _names(mod):
    return sorted(gv.name_hint for gv in mod.functions.keys())


def _conv_mod(xs, ws, stride, pad, dil=1, bias=True):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(xs, "float32"))
    w = relax.Var("w", relax.TensorStructInfo(ws, "float32"))
    b = relax.Var("b", relax.TensorStructInfo((1, ws[0], 1, 1), "float32"))
    with bb.function("main", [x, w, b] if bias else [x, w]):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, w, strides=stride, padding=pad, dilation=dil))
            if bias:
                y = bb.emit(relax.op.nn.relu(relax.op.add(y, b)))
            o = bb.emit_output(y)
        bb.emit_func_output(o)
    return bb.get()


def _lower_steps(mod):
    """The default pipeline's steps up to the split, as relax.build runs them."""
    mod = relax.get_pipeline("default")(mod)
    mod = relax.transform.AttachAttrLayoutFreeBuffers()(mod)
    mod = _schedule(tvm.target.Target(TARGET))(mod)
    return relax.transform.SplitLayoutRewritePreproc()(mod)


def _run(mod, *args, params=None):
    ex = relax.build(mod, TARGET, params=params)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    return vm["main"](*[tvm.nd.array(a) for a in args]).numpy()


def _run_bound_unpacked(mod, inputs, params):
    """Weights bound, but the packing left in the kernels (the pipeline without the split)."""
    mod = relax.get_pipeline("default")(relax.transform.BindParams("main", params)(mod))
    mod = _schedule(tvm.target.Target(TARGET))(mod)
    ex = relax.build(mod, TARGET, relax_pipeline=None)
    return relax.VirtualMachine(ex, tvm.cpu())["main"](*[tvm.nd.array(a) for a in inputs]).numpy()


def _check_bound_vs_args(mod, inputs, params, exact=True):
    """Compiled with the weights bound and packed at compile time == the same kernels packing
    per call, and == compiled with the weights as arguments; ~ the Relax interpreter. `exact`:
    to the bit. (LLVM may contract a multiply and an add into an FMA in one kernel and not in
    another that computes the same sums, e.g. the GEMM with two k blocks; so the GEMM cases
    compare to 1e-5 and check the packed constant itself to the bit.)"""
    names = [p.name_hint for p in mod["main"].params]
    args = list(inputs) + [params[n] for n in names[len(inputs):]]
    bound = _run(mod, *inputs, params=params)
    for other in (_run_bound_unpacked(mod, inputs, params), _run(mod, *args)):
        if exact:
            np.testing.assert_array_equal(bound, other)
        else:
            np.testing.assert_allclose(bound, other, rtol=1e-5, atol=1e-5)
    ref = relax.interpreter.interpret(mod, "main", *[tvm.nd.array(a) for a in args]).numpy()
    np.testing.assert_allclose(bound, ref, rtol=2e-4, atol=2e-4)


def test_passes_split_and_fold_the_conv_packing():
    o, c, k = 37, 13, 3  # O is not a whole number of panels: the last one is zero-padded
    mod = _conv_mod((1, c, 11, 9), (o, c, k, k), 1, 1)
    rng = np.random.default_rng(0)
    w = rng.uniform(-1, 1, (o, c, k, k)).astype("float32")
    b = rng.uniform(-1, 1, (1, o, 1, 1)).astype("float32")
    bound = relax.transform.BindParams("main", {"w": w, "b": b})(mod)
    attached = relax.transform.AttachAttrLayoutFreeBuffers()(relax.get_pipeline("default")(bound))
    (fname,) = [n for n in _names(attached) if n != "main"]
    assert [int(i) for i in attached[fname].attrs["layout_free_buffers"]] == [1, 2]
    split = _lower_steps(bound)
    assert _names(split) == sorted(["main", fname + "_weight_prepack", fname + "_prepacked"])
    text = split["main"].script()
    assert fname + "_weight_prepack" in text and fname + "_prepacked" in text
    folded = relax.transform.DeadCodeElimination()(relax.transform.FoldConstant()(split))
    assert _names(folded) == sorted(["main", fname + "_prepacked"])
    # The constant the kernel now receives: packedW[O/nr][C][KH][KW][nr], zeros beyond O.
    call = folded["main"].body.blocks[0].bindings[0].value
    packed = call.args[1].fields[1].data.numpy()
    nr = packed.shape[-1]
    assert packed.shape == (-(-o // nr), c, k, k, nr)
    want = np.zeros((packed.shape[0] * nr, c, k, k), "float32")
    want[:o] = w
    want = want.reshape(packed.shape[0], nr, c, k, k).transpose(0, 2, 3, 4, 1)
    np.testing.assert_array_equal(packed, want)


def test_weights_as_arguments_keep_the_packing_in_the_kernel():
    mod = _lower_steps(_conv_mod((1, 16, 14, 14), (32, 16, 3, 3), 1, 1))
    assert not [n for n in _names(mod) if n.endswith(("_weight_prepack", "_prepacked"))]
    (kernel,) = [f for n, f in ((g.name_hint, f) for g, f in mod.functions.items()) if n != "main"]
    assert "packedW" in kernel.script()


CONV_CASES = [  # (C, H, W, O, K, stride, pad, dilation)
    (3, 17, 17, 8, 3, 2, 1, 1),
    (16, 14, 14, 32, 3, 1, 1, 1),
    (13, 11, 9, 37, 3, 1, 0, 1),
    (8, 15, 15, 64, 1, 2, 0, 1),
    (5, 23, 19, 16, 7, 2, 3, 1),
    (17, 12, 12, 33, 3, 2, 1, 1),
    (4, 12, 12, 20, 3, 1, 2, 2),
    (64, 7, 7, 96, 3, 1, 1, 1),
]


@pytest.mark.parametrize("c,h,w,o,k,stride,pad,dil", CONV_CASES)
def test_conv_bound_weights_match(c, h, w, o, k, stride, pad, dil):
    rng = np.random.default_rng(c * 131 + o)
    mod = _conv_mod((1, c, h, w), (o, c, k, k), stride, pad, dil)
    x = rng.uniform(-1, 1, (1, c, h, w)).astype("float32")
    params = {"w": rng.uniform(-1, 1, (o, c, k, k)).astype("float32"),
              "b": rng.uniform(-1, 1, (1, o, 1, 1)).astype("float32")}
    _check_bound_vs_args(mod, [x], params)


def test_same_conv_bound_once_and_passed_once():
    """One kernel called with a constant weight and with an argument weight: both right."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, 16, 10, 10), "float32"))
    w1 = relax.Var("w1", relax.TensorStructInfo((16, 16, 3, 3), "float32"))
    w2 = relax.Var("w2", relax.TensorStructInfo((16, 16, 3, 3), "float32"))
    with bb.function("main", [x, w1, w2]):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, w1, padding=1))
            z = bb.emit(relax.op.nn.conv2d(y, w2, padding=1))
            o = bb.emit_output(z)
        bb.emit_func_output(o)
    mod = bb.get()
    rng = np.random.default_rng(5)
    xv, a, b = (rng.uniform(-1, 1, s).astype("float32")
                for s in ((1, 16, 10, 10), (16, 16, 3, 3), (16, 16, 3, 3)))
    want = _run(mod, xv, a, b)
    got = _run(mod, xv, b, params={"w1": a})
    np.testing.assert_array_equal(got, want)
    split = _lower_steps(relax.transform.BindParams("main", {"w1": a})(mod))
    assert len([n for n in _names(split) if n.endswith("_weight_prepack")]) == 1


def _resnet_block_mod(c, hw):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, c, hw, hw), "float32"))
    params = [x]
    weights = {}

    def var(name, shape):
        v = relax.Var(name, relax.TensorStructInfo(shape, "float32"))
        params.append(v)
        weights[name] = shape
        return v

    w1, w2 = var("w1", (c, c, 3, 3)), var("w2", (c, c, 3, 3))
    bn = [[var(f"bn{i}_{n}", (c,)) for n in ("gamma", "beta", "mean", "var")] for i in (1, 2)]
    with bb.function("main", params):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, w1, padding=1))
            y = bb.emit(relax.TupleGetItem(bb.emit(relax.op.nn.batch_norm(y, *bn[0])), 0))
            y = bb.emit(relax.op.nn.relu(y))
            y = bb.emit(relax.op.nn.conv2d(y, w2, padding=1))
            y = bb.emit(relax.TupleGetItem(bb.emit(relax.op.nn.batch_norm(y, *bn[1])), 0))
            y = bb.emit(relax.op.nn.relu(relax.op.add(y, x)))
            o = bb.emit_output(y)
        bb.emit_func_output(o)
    return bb.get(), weights


@pytest.mark.parametrize("c,hw", [(16, 12), (40, 7)])
def test_resnet_like_block_bound_weights_match(c, hw):
    mod, shapes = _resnet_block_mod(c, hw)
    rng = np.random.default_rng(c)
    params = {}
    for name, shape in shapes.items():
        lo = 0.5 if name.endswith("var") or name.endswith("gamma") else -0.5
        params[name] = rng.uniform(lo, 1, shape).astype("float32")
    x = rng.uniform(-1, 1, (1, c, hw, hw)).astype("float32")
    # Bound batch-norm vectors are folded at compile time, so the last bits may differ.
    _check_bound_vs_args(mod, [x], params, exact=False)


def _mlp_mod(batch, k, n, transpose):
    """relu(x @ W1 (+ b1)) @ W2 + b2, with W1 given as [n, k] (transposed) or [k, n]."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((batch, k), "float32"))
    w1 = relax.Var("w1", relax.TensorStructInfo((n, k) if transpose else (k, n), "float32"))
    b1 = relax.Var("b1", relax.TensorStructInfo((n,), "float32"))
    w2 = relax.Var("w2", relax.TensorStructInfo((10, n), "float32"))
    with bb.function("main", [x, w1, b1, w2]):
        with bb.dataflow():
            wt = bb.emit(relax.op.permute_dims(w1)) if transpose else w1
            h = bb.emit(relax.op.nn.relu(relax.op.add(relax.op.matmul(x, wt), b1)))
            y = bb.emit(relax.op.matmul(h, relax.op.permute_dims(w2)))
            o = bb.emit_output(y)
        bb.emit_func_output(o)
    return bb.get()


@pytest.mark.parametrize("batch,k,n,transpose", [(64, 200, 96, True), (12, 100, 70, True),
                                                  (64, 96, 80, False), (1, 784, 256, True),
                                                  (160, 130, 96, True)])
def test_mlp_bound_weights_match(batch, k, n, transpose):  # pylint: disable=too-many-locals
    mod = _mlp_mod(batch, k, n, transpose)
    rng = np.random.default_rng(batch + k)
    params = {"w1": rng.uniform(-1, 1, (n, k) if transpose else (k, n)).astype("float32"),
              "b1": rng.uniform(-1, 1, (n,)).astype("float32"),
              "w2": rng.uniform(-1, 1, (10, n)).astype("float32")}
    x = rng.uniform(-1, 1, (batch, k)).astype("float32")
    # A bound W1 given as [k, n] through permute_dims is folded and may take another GEMM plan
    # than the transposed read of the argument: equal up to the summation order.
    _check_bound_vs_args(mod, [x], params, exact=False)
    split = _lower_steps(relax.transform.BindParams("main", params)(mod))
    prepacks = [n for n in _names(split) if n.endswith("_weight_prepack")]
    # Batch 1 reads the weights as they are (dot products): nothing to pack. A small-M dense may
    # take the swapped kernel (packs A, reads W in place) and then has nothing to prepack either.
    if batch == 1:
        assert not prepacks
    # The first layer (the call reading x), when its kernel packs W1: the packed constant is
    # packedB[N/nr][K'][nr] = W1 as [k, n], zeros beyond.
    folded = relax.transform.FoldConstant()(split)
    x_var = folded["main"].params[0]
    (call,) = [b.value for b in folded["main"].body.blocks[0].bindings
               if isinstance(b.value, relax.Call) and len(b.value.args) > 1
               and b.value.args[1].fields[0].same_as(x_var)]
    if not call.args[0].name_hint.endswith("_prepacked"):
        return
    packed = call.args[1].fields[1].data.numpy()
    # The blocked GEMM (M >= 2 row tiles) packs k block first, packedB[K'/kc][N/nr][kc][nr]:
    # viewed as [N/nr][K'][nr] like the single-row-tile kernel's panels.
    if packed.ndim == 4:
        nk, panels, kc, nr = packed.shape
        packed = packed.transpose(1, 0, 2, 3).reshape(panels, nk * kc, nr)
    panels, kp, nr = packed.shape
    b = params["w1"].T if transpose else params["w1"]
    want = np.zeros((kp, panels * nr), "float32")
    want[:k, :n] = b
    np.testing.assert_array_equal(packed, want.reshape(kp, panels, nr).transpose(1, 0, 2))

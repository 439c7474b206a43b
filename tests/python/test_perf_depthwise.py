"""Stage 5: the depthwise and 1x1 parts of the conv2d rule of the default CPU schedule
(cpu_conv.h) — depthwise conv2d (groups = channels) as vector FMAs along the output rows over a
stride-phase padded input, and 1x1 stride-1 convs as a pixel-vector GEMM on the NCHW tensors.
Checks the tile derived from the target, that the rule takes the legalized (and fused: bias,
ReLU6, residual) kernels, and compiled results against the Relax interpreter on random shapes
(primes, strides 1 and 2, padding 0..2, 3x3 and 5x5, dilation 2). No timings (bench/ has them:
bench/mobilenet_bench.py)."""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import relax

derive = tvm.get_global_func("relax.backend.DeriveDepthwisePlan")
rule = tvm.get_global_func("relax.backend.ScheduleConv2dRule")
TARGET = "llvm -mcpu=native"


def _mod(xs, ws, stride, pad, groups, epilogue, dil=1):
    """conv2d, then: nothing, bias + ReLU6 (relu, minimum 6), or bias + r (a residual of the
    output's shape, the function's last parameter)."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(xs, "float32"))
    w = relax.Var("w", relax.TensorStructInfo(ws, "float32"))
    b = relax.Var("b", relax.TensorStructInfo((1, ws[0], 1, 1), "float32"))
    oh = (xs[2] + 2 * pad - dil * (ws[2] - 1) - 1) // stride + 1
    ow = (xs[3] + 2 * pad - dil * (ws[3] - 1) - 1) // stride + 1
    r = relax.Var("r", relax.TensorStructInfo((1, ws[0], oh, ow), "float32"))
    with bb.function("main", [x, w, b, r]):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, w, strides=stride, padding=pad, dilation=dil,
                                           groups=groups))
            if epilogue == "bias_relu6":
                y = bb.emit(relax.op.add(y, b))
                y = bb.emit(relax.op.minimum(relax.op.nn.relu(y), relax.const(6.0, "float32")))
            elif epilogue == "residual":
                y = bb.emit(relax.op.add(relax.op.add(y, b), r))
            o = bb.emit_output(y)
        bb.emit_func_output(o)
    return bb.get()


def _fused_prim_funcs(mod):
    mod = relax.transform.LegalizeOps()(mod)
    mod = relax.transform.AnnotateTIROpPattern()(mod)
    mod = relax.transform.FoldConstant()(mod)
    mod = relax.transform.FuseOps()(mod)
    mod = relax.transform.FuseTIR()(mod)
    return [f for _, f in mod.functions.items() if isinstance(f, tvm.tir.PrimFunc)]


@pytest.mark.parametrize("cpu,lanes", [("znver3", 8), ("znver4", 16), ("skylake-avx512", 16)])
def test_depthwise_tile_from_target(cpu, lanes):
    t = tvm.target.Target(f"llvm -mcpu={cpu}")
    for ow in (112, 56, 28, 14, 7, 13, 1):
        p = {str(k): int(v) for k, v in derive(t, ow).items()}
        assert p["lanes"] == lanes
        # the largest divisor of OW within two machine vectors
        assert ow % p["vl"] == 0 and p["vl"] <= 2 * lanes
        assert all(ow % d for d in range(p["vl"] + 1, min(ow, 2 * lanes) + 1))
    assert int(derive(tvm.target.Target("llvm -mcpu=znver4"), 56)["vl"]) == 28
    assert int(derive(tvm.target.Target("llvm -mcpu=znver3"), 56)["vl"]) == 14


def test_derive_depthwise_plan_bad_input():
    with pytest.raises(ValueError, match="output width must be positive"):
        derive(tvm.target.Target("llvm -mcpu=znver4"), 0)


def test_rule_takes_depthwise_and_1x1():
    t = tvm.target.Target("llvm -mcpu=znver4")
    for epi in ("none", "bias_relu6", "residual"):
        funcs = _fused_prim_funcs(_mod((1, 32, 28, 28), (32, 1, 3, 3), 1, 1, 32, epi))
        assert len(funcs) == 1, epi
        out = rule(funcs[0], t)
        assert out is not None, epi
        assert 'T.block("pad")' in str(out)  # the stride-phase padded input
    # 1x1 stride 1 on rows of a whole vector: the pixel-vector GEMM (no packed weights)
    funcs = _fused_prim_funcs(_mod((1, 24, 32, 32), (48, 24, 1, 1), 1, 0, 1, "bias_relu6"))
    out = rule(funcs[0], t)
    assert out is not None and "packedW" not in str(out)
    # grouped but not depthwise (2 groups): not this rule's
    funcs = _fused_prim_funcs(_mod((1, 32, 14, 14), (32, 16, 3, 3), 1, 1, 2, "none"))
    assert rule(funcs[0], t) is None


CASES = [  # (C, H, W, K, stride, pad, dilation, epilogue)
    (32, 28, 28, 3, 1, 1, 1, "bias_relu6"),
    (24, 29, 31, 3, 2, 1, 1, "bias_relu6"),
    (16, 14, 14, 3, 1, 1, 1, "residual"),
    (7, 13, 17, 5, 2, 2, 1, "none"),
    (12, 15, 11, 3, 1, 0, 1, "none"),
    (8, 16, 16, 3, 1, 2, 2, "bias_relu6"),
    (48, 7, 7, 3, 1, 1, 1, "bias_relu6"),
]


def _run_both(mod, args):
    out_shape = [int(d) for d in mod["main"].ret_struct_info.shape]
    args = args + [np.random.default_rng(5).uniform(-1, 1, out_shape).astype("float32")]
    ex = tvm.compile(mod, TARGET)
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](*[tvm.nd.array(a) for a in args]).numpy()
    ref = relax.interpret(mod, "main", *[tvm.nd.array(a) for a in args]).numpy()
    return got, ref


@pytest.mark.parametrize("c,h,w,k,stride,pad,dil,epi", CASES)
def test_compiled_depthwise_matches_interpreter(c, h, w, k, stride, pad, dil, epi):
    mod = _mod((1, c, h, w), (c, 1, k, k), stride, pad, c, epi, dil)
    rng = np.random.default_rng(c * 31 + h)
    x = rng.uniform(-4, 4, (1, c, h, w)).astype("float32")
    wt = rng.uniform(-1, 1, (c, 1, k, k)).astype("float32")
    b = rng.uniform(-1, 1, (1, c, 1, 1)).astype("float32")
    got, ref = _run_both(mod, [x, wt, b])
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("c,hw,o,epi", [(16, 32, 96, "bias_relu6"), (13, 24, 24, "residual"),
                                        (37, 16, 20, "none"), (8, 48, 6, "bias_relu6")])
def test_compiled_1x1_matches_interpreter(c, hw, o, epi):
    mod = _mod((1, c, hw, hw), (o, c, 1, 1), 1, 0, 1, epi)
    rng = np.random.default_rng(c * 7 + o)
    x = rng.uniform(-2, 2, (1, c, hw, hw)).astype("float32")
    wt = rng.uniform(-1, 1, (o, c, 1, 1)).astype("float32")
    b = rng.uniform(-1, 1, (1, o, 1, 1)).astype("float32")
    got, ref = _run_both(mod, [x, wt, b])
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)

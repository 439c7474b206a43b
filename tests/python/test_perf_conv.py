"""Stage 5: the conv2d rule of the default CPU schedule (cpu_conv.h) — conv2d NCHW, batch 1,
as a register-tiled GEMM over an implicit im2col. Checks the tile derived for AVX2 / AVX-512,
that the rule takes the legalized (and fused: bias, ReLU, residual add) conv2d kernels and
leaves other forms to the generic rules, and that compiled results match PyTorch / NumPy on
random shapes (odd sizes, strides 1 and 2, padding, 1x1 and 3x3). No timings (bench/ has them)."""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import relax

derive = tvm.get_global_func("relax.backend.DeriveConv2dPlan")
rule = tvm.get_global_func("relax.backend.ScheduleConv2dRule")
TARGET = "llvm -mcpu=native"


def _ref_conv(x, w, stride, pad, dil=1):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - dil * (kh - 1) - 1) // stride + 1
    ow = (wd + 2 * pad - dil * (kw - 1) - 1) // stride + 1
    out = np.zeros((n, o, oh, ow), "float64")
    for ry in range(kh):
        for rx in range(kw):
            patch = xp[:, :, ry * dil:ry * dil + stride * (oh - 1) + 1:stride,
                       rx * dil:rx * dil + stride * (ow - 1) + 1:stride]
            out += np.einsum("nchw,oc->nohw", patch.astype("float64"), w[:, :, ry, rx])
    return out


def _conv_mod(xs, ws, stride, pad, epilogue, dil=1):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(xs, "float32"))
    w = relax.Var("w", relax.TensorStructInfo(ws, "float32"))
    b = relax.Var("b", relax.TensorStructInfo((1, ws[0], 1, 1), "float32"))
    params = [x, w, b]
    with bb.function("main", params):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, w, strides=stride, padding=pad, dilation=dil))
            if epilogue in ("bias_relu", "residual"):
                y = bb.emit(relax.op.nn.relu(relax.op.add(y, b)))
            if epilogue == "residual":
                y = bb.emit(relax.op.add(y, y))
            o = bb.emit_output(y)
        bb.emit_func_output(o)
    return bb.get()


def _fused_prim_funcs(mod):
    mod = relax.transform.LegalizeOps()(mod)
    mod = relax.transform.AnnotateTIROpPattern()(mod)
    mod = relax.transform.FuseOps()(mod)
    mod = relax.transform.FuseTIR()(mod)
    return [f for _, f in mod.functions.items() if isinstance(f, tvm.tir.PrimFunc)]


@pytest.mark.parametrize("cpu,nr,mr56,mr7", [("znver3", 16, 4, 6), ("znver4", 32, 8, 7),
                                             ("skylake-avx512", 32, 8, 7)])
def test_conv_tile_from_target(cpu, nr, mr56, mr7):
    t = tvm.target.Target(f"llvm -mcpu={cpu}")
    regs = t.cpu_vector_info["vector_registers"]
    for ow, mr in ((56, mr56), (7, mr7)):
        p = {str(k): int(v) for k, v in derive(t, [64, ow, ow, 64, 3, 3, 1, 1, 1, 1, ow,
                                                   ow]).items()}
        nv = p["nr"] // p["lanes"]
        assert p["nr"] == nr and p["mr"] == mr
        assert p["mr"] * nv + nv + 1 <= regs
        assert p["xp"] % p["mr"] == 0 and p["xp"] >= ow


def test_derive_conv_plan_bad_input():
    with pytest.raises(ValueError, match="12 sizes"):
        derive(tvm.target.Target("llvm -mcpu=znver4"), [1, 2, 3])


def test_rule_takes_fused_conv_and_leaves_others():
    t = tvm.target.Target("llvm -mcpu=znver4")
    for epi in ("none", "bias_relu", "residual"):
        funcs = _fused_prim_funcs(_conv_mod((1, 16, 14, 14), (32, 16, 3, 3), 1, 1, epi))
        assert len(funcs) == 1
        out = rule(funcs[0], t)
        assert out is not None, epi
        assert bool(out.attrs["tir.is_scheduled"])
    # batch 2 and a plain elementwise kernel: not this rule's
    funcs = _fused_prim_funcs(_conv_mod((2, 16, 14, 14), (32, 16, 3, 3), 1, 1, "none"))
    assert rule(funcs[0], t) is None
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((64, 64), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            o = bb.emit_output(bb.emit(relax.op.nn.relu(x)))
        bb.emit_func_output(o)
    assert rule(_fused_prim_funcs(bb.get())[0], t) is None


CASES = [  # (C, H, W, O, K, stride, pad, epilogue)
    (3, 17, 17, 8, 3, 2, 1, "bias_relu"),
    (16, 14, 14, 32, 3, 1, 1, "residual"),
    (13, 11, 9, 37, 3, 1, 0, "none"),
    (8, 15, 15, 64, 1, 2, 0, "none"),
    (32, 7, 7, 48, 1, 1, 0, "bias_relu"),
    (5, 23, 19, 16, 7, 2, 3, "bias_relu"),
    (17, 12, 12, 33, 3, 2, 1, "residual"),
]


@pytest.mark.parametrize("c,h,w,o,k,stride,pad,epi", CASES)
def test_compiled_conv_matches_reference(c, h, w, o, k, stride, pad, epi):
    mod = _conv_mod((1, c, h, w), (o, c, k, k), stride, pad, epi)
    ex = tvm.compile(mod, TARGET)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    rng = np.random.default_rng(c * 100 + o)
    x = rng.uniform(-1, 1, (1, c, h, w)).astype("float32")
    wt = rng.uniform(-1, 1, (o, c, k, k)).astype("float32")
    b = rng.uniform(-1, 1, (1, o, 1, 1)).astype("float32")
    got = vm["main"](tvm.nd.array(x), tvm.nd.array(wt), tvm.nd.array(b)).numpy()
    ref = _ref_conv(x, wt, stride, pad)
    if epi in ("bias_relu", "residual"):
        ref = np.maximum(ref + b, 0)
    if epi == "residual":
        ref = ref + ref
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


def test_compiled_conv_matches_torch():
    torch = pytest.importorskip("torch")
    mod = _conv_mod((1, 24, 28, 28), (40, 24, 3, 3), 2, 1, "bias_relu")
    ex = tvm.compile(mod, TARGET)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 24, 28, 28)).astype("float32")
    wt = rng.standard_normal((40, 24, 3, 3)).astype("float32")
    b = rng.standard_normal((1, 40, 1, 1)).astype("float32")
    got = vm["main"](tvm.nd.array(x), tvm.nd.array(wt), tvm.nd.array(b)).numpy()
    ref = torch.relu(torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(wt),
                                                stride=2, padding=1) + torch.from_numpy(b))
    np.testing.assert_allclose(got, ref.numpy(), rtol=1e-4, atol=1e-3)


def _packed_alloc_rank(func):
    """The rank of the scheduled kernel's packedW buffer (4: packed per task, 5: own pass)."""
    for line in str(func).splitlines():
        if "packedW = T.alloc_buffer((" in line:
            return line.count("T.int64(")
    return None


def test_weight_argument_packed_per_task_constant_weight_by_own_pass():
    # A weight passed per call: each task packs its panel (packedW[C][KH][KW][OP], the task's
    # columns); a layout-free (constant) weight keeps the separate packing pass that
    # SplitLayoutRewritePreproc moves out (packedW[O/nr][C][KH][KW][nr]).
    t = tvm.target.Target("llvm -mcpu=znver4")
    func = _fused_prim_funcs(_conv_mod((1, 16, 14, 14), (64, 16, 3, 3), 1, 1, "none"))[0]
    assert _packed_alloc_rank(rule(func, t)) == 4
    free = func.with_attr("layout_free_buffers", [1])
    assert _packed_alloc_rank(rule(free, t)) == 5


@pytest.mark.parametrize("cores", [1, 3, 16])
def test_weight_argument_conv_matches_interpreter_random(cores):
    # Random shapes (primes, O not a multiple of nr, OW not a multiple of the row tile, strides,
    # padding), the weight an argument, compiled for 1, 3 and 16 cores (row groups per panel:
    # 1, a few, OH), against the Relax interpreter.
    rng = np.random.default_rng(1800 + cores)
    target = f"{TARGET} -num-cores={cores}"
    for _ in range(3):
        c, o = int(rng.integers(1, 24)), int(rng.integers(5, 70))
        h, w = int(rng.integers(5, 20)), int(rng.integers(5, 20))
        k = int(rng.choice([1, 3, 5]))
        stride, pad = int(rng.integers(1, 3)), int(rng.integers(0, k // 2 + 1))
        epi = str(rng.choice(["none", "bias_relu", "residual"]))
        mod = _conv_mod((1, c, h, w), (o, c, k, k), stride, pad, epi)
        args = [rng.uniform(-1, 1, (1, c, h, w)).astype("float32"),
                rng.uniform(-1, 1, (o, c, k, k)).astype("float32"),
                rng.uniform(-1, 1, (1, o, 1, 1)).astype("float32")]
        ex = tvm.compile(mod, target)
        nd = [tvm.nd.array(a) for a in args]
        got = relax.VirtualMachine(ex, tvm.cpu())["main"](*nd).numpy()
        ref = relax.interpret(mod, "main", *nd).numpy()
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4,
                                   err_msg=f"c={c} o={o} h={h} w={w} k={k} s={stride} p={pad}")

"""Tests of the CPU default schedule (stage 5, "relax.transform.DefaultCPUSchedule"): every
legalized operator compiled with the "default" pipeline (scheduled) gives the results of the
"zero" pipeline (plain loops) on random inputs, for AVX-512, AVX2 and generic targets; the
schedule makes the kernels parallel and vectorized with the target's vector width; it is
idempotent and leaves scheduled functions alone; MLP and ResNet-18 match PyTorch."""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import relax

from conftest import requires_global

TARGETS = ["llvm -mcpu=skylake-avx512", "llvm -mcpu=haswell", "llvm"]


def _host_supports(target):
    flags = open("/proc/cpuinfo", encoding="utf-8").read()
    if "avx512" in target:
        return " avx512f" in flags
    if "haswell" in target:
        return " avx2" in flags and " fma" in flags
    return True


def _schedule_pass(target):
    return tvm.get_global_func("relax.transform.DefaultCPUSchedule")(tvm.target.Target(target))


def _module(build, shapes):
    """A Relax module `main(*params)` whose body `build(*params)` is one operator call."""
    bb = relax.BlockBuilder()
    params = [relax.Var(f"x{i}", relax.TensorStructInfo(s, "float32")) for i, s in
              enumerate(shapes)]
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(bb.emit(build(*params)))
        bb.emit_func_output(out)
    return bb.get()


OPS = {
    "matmul_1x784x256": (lambda a, b: relax.op.matmul(a, b), [(1, 784), (784, 256)]),
    "matmul_64x784x256": (lambda a, b: relax.op.matmul(a, b), [(64, 784), (784, 256)]),
    "matmul_odd": (lambda a, b: relax.op.matmul(a, b), [(7, 33), (33, 45)]),
    "matmul_batched": (lambda a, b: relax.op.matmul(a, b), [(3, 16, 24), (3, 24, 40)]),
    "dense": (lambda a, w: relax.op.matmul(a, relax.op.permute_dims(w)), [(16, 64), (96, 64)]),
    "conv2d_3x3": (lambda x, w: relax.op.nn.conv2d(x, w, padding=1), [(1, 8, 16, 16),
                                                                      (16, 8, 3, 3)]),
    "conv2d_stride2": (lambda x, w: relax.op.nn.conv2d(x, w, strides=2, padding=3),
                       [(1, 3, 32, 32), (8, 3, 7, 7)]),
    "conv2d_1x1": (lambda x, w: relax.op.nn.conv2d(x, w), [(2, 16, 7, 7), (32, 16, 1, 1)]),
    "max_pool2d": (lambda x: relax.op.nn.max_pool2d(x, pool_size=3, strides=2, padding=1),
                   [(1, 8, 32, 32)]),
    "adaptive_avg_pool2d": (lambda x: relax.op.nn.adaptive_avg_pool2d(x, output_size=1),
                            [(1, 64, 7, 7)]),
    "softmax": (lambda x: relax.op.nn.softmax(x), [(32, 100)]),
    "layer_norm": (lambda x, g, b: relax.op.nn.layer_norm(x, g, b, axes=[-1]),
                   [(8, 64), (64,), (64,)]),
    "sum": (lambda x: relax.op.sum(x, axis=[1]), [(64, 300, 8)]),
    "mean": (lambda x: relax.op.mean(x, axis=[0]), [(200, 64)]),
    "add_broadcast": (lambda a, b: relax.op.add(a, b), [(64, 256), (256,)]),
    "add_large": (lambda a, b: relax.op.add(a, b), [(512, 256), (512, 256)]),
    "relu": (lambda a: relax.op.nn.relu(a), [(4, 1000)]),
    "transpose": (lambda a: relax.op.permute_dims(a), [(784, 256)]),
    "exp_odd": (lambda a: relax.op.exp(a), [(3, 5, 7)]),
}


def _run(mod, target, pipeline, inputs):
    ex = relax.build(mod, target, relax_pipeline=pipeline)
    return relax.VirtualMachine(ex, tvm.cpu())["main"](*inputs).numpy()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", sorted(OPS))
def test_scheduled_operator_matches_plain_loops(name, target):
    requires_global("relax.transform.DefaultCPUSchedule")
    if not _host_supports(target):
        pytest.skip(f"the host cannot run {target}")
    build, shapes = OPS[name]
    mod = _module(build, shapes)
    rng = np.random.default_rng(hash(name) % 1000)
    inputs = [rng.standard_normal(s).astype("float32") for s in shapes]
    plain = _run(mod, target, "zero", inputs)
    scheduled = _run(mod, target, "default", inputs)
    # The GEMM rule sums k in blocks (another float order): 784 normal terms differ by ~1e-4.
    np.testing.assert_allclose(scheduled, plain, rtol=1e-5, atol=5e-4)


def _legalized(name):
    build, shapes = OPS[name]
    return relax.get_pipeline("default")(_module(build, shapes))


def _prim_funcs(mod):
    return {gv.name_hint: mod[gv] for gv in mod.get_global_vars()
            if hasattr(mod[gv], "buffer_map")}


def test_matmul_is_parallel_vectorized_with_a_local_tile():
    requires_global("relax.transform.DefaultCPUSchedule")
    mod = _schedule_pass("llvm -mcpu=skylake-avx512")(_legalized("matmul_64x784x256"))
    (func,) = _prim_funcs(mod).values()
    text = str(func)
    assert "T.parallel" in text and "T.vectorized(T.int64(32))" in text, text
    assert 'scope="local"' in text and "_init" in text, text
    assert "T.unroll(T.int64(8))" in text, text
    assert bool(func.attrs["tir.is_scheduled"])


def test_stride2_conv_gets_a_register_tile_over_output_channels():
    requires_global("relax.transform.DefaultCPUSchedule")
    mod = _schedule_pass("llvm -mcpu=skylake-avx512")(_legalized("conv2d_stride2"))
    conv = [f for name, f in _prim_funcs(mod).items() if "conv2d" in name][0]
    text = str(conv)
    assert "T.vectorized" in text and 'scope="local"' in text, text
    # the conv2d rule (cpu_conv.h): the vector columns are output channels from the packed
    # weights, the unrolled rows output pixels (broadcast input scalars: nothing is gathered)
    assert "packedW" in text and "T.unroll" in text, text


def test_vector_width_comes_from_the_target():
    requires_global("relax.transform.DefaultCPUSchedule")
    widths = {}
    for target in TARGETS:
        mod = _schedule_pass(target)(_legalized("matmul_64x784x256"))
        text = str(list(_prim_funcs(mod).values())[0])
        widths[target] = text
    # the column tile is two vectors: 32 floats for AVX-512, 16 for AVX2, 8 for SSE
    assert "T.vectorized(T.int64(32))" in widths[TARGETS[0]]
    assert "T.vectorized(T.int64(16))" in widths[TARGETS[1]]
    assert "T.vectorized(T.int64(32))" not in widths[TARGETS[1]]
    assert "T.vectorized(T.int64(8))" in widths[TARGETS[2]]


def test_elementwise_is_vectorized_and_small_kernels_stay_serial():
    requires_global("relax.transform.DefaultCPUSchedule")
    big = _prim_funcs(_schedule_pass("llvm -mcpu=haswell")(_legalized("add_large")))
    text = str(list(big.values())[0])
    assert "T.parallel" in text and "T.vectorized" in text, text
    small = _prim_funcs(_schedule_pass("llvm -mcpu=haswell")(_legalized("exp_odd")))
    text = str(list(small.values())[0])
    assert "T.parallel" not in text, text


def test_transpose_is_tiled_not_gathered():
    requires_global("relax.transform.DefaultCPUSchedule")
    funcs = _prim_funcs(_schedule_pass("llvm -mcpu=haswell")(_legalized("transpose")))
    text = str(list(funcs.values())[0])
    assert "T.vectorized" not in text, text
    assert "ax0_1" in text and "ax1_1" in text, text


def test_idempotent_and_scheduled_functions_are_left_alone():
    requires_global("relax.transform.DefaultCPUSchedule")
    p = _schedule_pass("llvm -mcpu=haswell")
    once = p(_legalized("conv2d_3x3"))
    twice = p(once)
    tvm.ir.assert_structural_equal(once, twice)
    mod = _legalized("relu")
    for gv in mod.get_global_vars():
        f = mod[gv]
        if hasattr(f, "buffer_map"):
            mod[gv] = f.with_attr("tir.is_scheduled", True)
    tvm.ir.assert_structural_equal(p(mod), mod)


def test_zero_pipeline_runs_the_plain_kernels():
    requires_global("relax.build")
    mod = _module(*OPS["relu"])
    ex = relax.build(mod, "llvm", relax_pipeline="zero")
    out = relax.VirtualMachine(ex, tvm.cpu())["main"](np.ones((4, 1000), "float32")).numpy()
    assert out.sum() == 4000


# ---- models against PyTorch -----------------------------------------------------------------


def _torch_or_skip():
    return pytest.importorskip("torch")


@pytest.mark.parametrize("batch", [1, 64])
def test_mlp_matches_pytorch(batch):
    requires_global("relax.build")
    torch = _torch_or_skip()
    from minitvm.relax.testing import mlp, torch_models  # pylint: disable=import-outside-toplevel

    mod, params = mlp.get_workload(batch_size=batch, hidden_units=(256,))
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm -mcpu=native"), tvm.cpu())
    x = np.random.default_rng(4).random((batch, 1, 28, 28), dtype="float32")
    out = vm["main"](x, *params.values()).numpy()
    net = torch_models.load(torch_models.mlp(784, (256,), 10), params)
    with torch.no_grad():
        ref = net(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_resnet18_matches_pytorch():
    requires_global("relax.build")
    torch = _torch_or_skip()
    from minitvm.relax.testing import (  # pylint: disable=import-outside-toplevel
        resnet,
        torch_models,
    )

    mod, params = resnet.get_workload(image_shape=(3, 32, 32), num_classes=10)
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm -mcpu=native"), tvm.cpu())
    x = np.random.default_rng(5).random((1, 3, 32, 32), dtype="float32")
    out = vm["main"](x, *params.values()).numpy()
    net = torch_models.load(torch_models.resnet(num_layers=18, num_classes=10), params)
    with torch.no_grad():
        ref = net(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)

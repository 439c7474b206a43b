#!/usr/bin/env python3
"""Stage-5 benchmark: MobileNet v2 (width 1.0, 1x3x224x224, 1000 classes, batch 1) compiled with
``tvm.compile(mod, "llvm -mcpu=native")`` and run in ``relax.VirtualMachine``, against the same
network written in ``torch.nn`` with the same random weights (eval mode, ``no_grad``), 1 thread.
Prints JSON (and writes it with ``--out``).

    MINITVM_BUILD_DIR=build python3 bench/mobilenet_bench.py [--rounds 7] [--out result.json]
                                                             [--no-bound] [--layers]

The network is written once, as a function of the framework's module classes, so that both
sides have the same structure and parameter names: the standard MobileNet v2 (inverted residual
blocks: 1x1 expand + BN + ReLU6, 3x3 depthwise + BN + ReLU6, 1x1 project + BN, residual add when
stride 1 and the channels match; then 1x1 conv to 1280, global average pool, linear).
There is no torchvision here, so the PyTorch side is this torch.nn module, not torchvision's.

Three minitvm variants are timed: weights passed as arguments (as the module exports them),
weights bound as constants (``relax.transform.BindParams``), and weights passed as arguments
but packed once (``relax.pipeline.static_shape_tuning_pipeline(0, target,
cpu_weight_prepack=True)``, then ``forward_transform_params`` once: "transformed_once"). ``--layers`` also times each
distinct depthwise and 1x1 conv2d (with its BN folded into nothing: plain conv) against
``torch.nn.functional.conv2d``. 1 thread: ``MINITVM_NUM_THREADS=1`` and
``torch.set_num_threads(1)``. The machine may be shared: each round times ours and the peer's
back to back (interleaved), and medians over the rounds are reported with the load average.
"""
import argparse
import os
import sys
import time

os.environ.setdefault("MINITVM_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, HERE)
TARGET = "llvm -mcpu=native"

# (expansion t, output channels c, repeats n, first stride s): the MobileNet v2 table.
SETTINGS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
            (6, 160, 3, 2), (6, 320, 1, 1)]


def mobilenet_v2(nn, conv, bn, relu6, pool, linear, flatten, num_classes=1000):
    """MobileNet v2 built from one framework's classes; `conv(in, out, k, stride, pad, groups)`
    makes a bias-free conv2d and `bn(c)` a batch norm. Returns the (uncalled) module."""

    def conv_bn(inp, oup, k, stride, groups=1, act=True):
        layers = [conv(inp, oup, k, stride, (k - 1) // 2, groups), bn(oup)]
        if act:
            layers.append(relu6())
        return nn.Sequential(*layers)

    class InvertedResidual(nn.Module):
        """1x1 expand, 3x3 depthwise, 1x1 linear projection (+ x when the shapes allow)."""

        def __init__(self, inp, oup, stride, t):
            super().__init__()
            hidden = inp * t
            layers = [] if t == 1 else [conv_bn(inp, hidden, 1, 1)]
            layers += [conv_bn(hidden, hidden, 3, stride, groups=hidden),
                       conv_bn(hidden, oup, 1, 1, act=False)]
            self.conv = nn.Sequential(*layers)
            self.use_res = stride == 1 and inp == oup

        def forward(self, x):
            return x + self.conv(x) if self.use_res else self.conv(x)

    class MobileNetV2(nn.Module):
        """features (conv 3->32 s2, 17 inverted residual blocks, conv 320->1280), pool, fc."""

        def __init__(self):
            super().__init__()
            blocks = [conv_bn(3, 32, 3, 2)]
            inp = 32
            for t, c, n, s in SETTINGS:
                for i in range(n):
                    blocks.append(InvertedResidual(inp, c, s if i == 0 else 1, t))
                    inp = c
            blocks.append(conv_bn(inp, 1280, 1, 1))
            self.features = nn.Sequential(*blocks)
            self.pool = pool()
            self.flatten = flatten()
            self.classifier = linear(1280, num_classes)

        def forward(self, x):
            return self.classifier(self.flatten(self.pool(self.features(x))))

    return MobileNetV2()


def torch_mobilenet_v2():
    """The network in torch.nn."""
    import torch  # pylint: disable=import-outside-toplevel

    tnn = torch.nn
    return mobilenet_v2(
        tnn, lambda i, o, k, s, p, g: tnn.Conv2d(i, o, k, s, p, groups=g, bias=False),
        tnn.BatchNorm2d, tnn.ReLU6, lambda: tnn.AdaptiveAvgPool2d(1), tnn.Linear, tnn.Flatten)


def minitvm_mobilenet_v2():
    """The network as a minitvm ``relax.frontend.nn`` module."""
    from minitvm.relax.frontend import nn as mnn  # pylint: disable=import-outside-toplevel

    class _NS:  # nn.Module / nn.Sequential with torch's `super().__init__()` accepted
        class Module(mnn.Module):
            def __init__(self):  # pylint: disable=super-init-not-called
                pass

        Sequential = mnn.Sequential

    return mobilenet_v2(
        _NS, lambda i, o, k, s, p, g: mnn.Conv2D(i, o, k, s, p, groups=g, bias=False),
        mnn.BatchNorm2d, mnn.ReLU6, lambda: mnn.AdaptiveAvgPool2d(1), mnn.Linear, mnn.Flatten)


def random_params(np, torch_net, seed=0):
    """Random weights (He-scaled convs, BN statistics near 1) for every entry of the state."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, t in torch_net.state_dict().items():
        if name.endswith("num_batches_tracked"):
            continue
        shape = tuple(t.shape)
        if name.endswith("running_var"):
            v = rng.uniform(0.5, 1.5, shape)
        elif name.endswith("running_mean") or name.endswith(".bias"):
            v = rng.uniform(-0.1, 0.1, shape)
        elif len(shape) == 1:  # BN gamma
            v = rng.uniform(0.8, 1.2, shape)
        else:
            fan_in = int(np.prod(shape[1:]))
            v = rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)
        out[name] = v.astype("float32")
    return out


def main():  # pylint: disable=too-many-locals,too-many-statements
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--min-time", type=float, default=0.3)
    parser.add_argument("--no-bound", action="store_true", help="skip the BindParams variant")
    parser.add_argument("--layers", action="store_true", help="also time the distinct convs")
    parser.add_argument("--out")
    args = parser.parse_args()

    import numpy as np  # pylint: disable=import-outside-toplevel
    import torch  # pylint: disable=import-outside-toplevel

    import minitvm as tvm  # pylint: disable=import-outside-toplevel
    from minitvm import relax  # pylint: disable=import-outside-toplevel
    from minitvm.relax.frontend import nn as mnn  # pylint: disable=import-outside-toplevel
    from conv2d_bench import (  # pylint: disable=import-outside-toplevel
        cpu_name, interleaved, write_report)

    torch.set_num_threads(1)
    out = {"cpu": cpu_name(), "threads": 1, "rounds": args.rounds,
           "load_average": os.getloadavg(), "torch": torch.__version__}
    tnet = torch_mobilenet_v2().eval()
    params = random_params(np, tnet)
    tnet.load_state_dict({k: torch.from_numpy(v) for k, v in params.items()}, strict=False)
    mod, named = minitvm_mobilenet_v2().export_tvm(
        spec={"forward": {"x": mnn.spec.Tensor((1, 3, 224, 224), "float32")}})
    missing = [n for n, _ in named if n not in params]
    if missing:
        raise RuntimeError(f"parameter names differ from torch's: {missing[:5]}")
    weights = [tvm.nd.array(params[n]) for n, _ in named]
    rng = np.random.default_rng(1)
    xn = rng.standard_normal((1, 3, 224, 224)).astype("float32")
    xa, xt = tvm.nd.array(xn), torch.from_numpy(xn)
    with torch.no_grad():
        ref = tnet(xt).numpy()

    def transformed_once(vm):
        # The weights as arguments, packed once by forward_transform_params (TVM's
        # cpu_weight_prepack); forward then takes the packed values.
        packed = vm["forward_transform_params"](weights)
        return lambda: vm["forward"](xa, *packed)

    variants = [("args", mod, lambda vm: (lambda: vm["forward"](xa, *weights)))]
    if not args.no_bound:
        bound = relax.transform.BindParams("forward", {n: params[n] for n, _ in named})(mod)
        variants.append(("bound", bound, lambda vm: (lambda: vm["forward"](xa))))
    variants.append(("transformed_once", relax.pipeline.static_shape_tuning_pipeline(
        0, TARGET, cpu_weight_prepack=True), transformed_once))
    out["model"] = {}
    for label, m, call in variants:
        t0 = time.perf_counter()
        if not isinstance(m, tvm.IRModule):
            m = m(mod)  # the pipeline
        ex = tvm.compile(m, TARGET)
        compile_s = time.perf_counter() - t0
        fn = call(relax.VirtualMachine(ex, tvm.cpu()))
        err = float(np.max(np.abs(fn().numpy() - ref)))
        with torch.no_grad():
            ours, peer = interleaved(fn, lambda: tnet(xt), args.rounds, args.min_time)
        out["model"][label] = {"minitvm_ms": ours * 1e3, "pytorch_ms": peer * 1e3,
                               "minitvm_over_pytorch": ours / peer, "max_abs_err": err,
                               "ref_max_abs": float(np.max(np.abs(ref))),
                               "compile_s": compile_s}
        print(f"mobilenet_v2 ({label}) ours {ours * 1e3:.2f} ms torch {peer * 1e3:.2f} ms "
              f"ratio {ours / peer:.2f} err {err:.1e}", file=sys.stderr)

    if args.layers:
        out["layers"] = layer_bench(np, torch, tvm, relax, args)
    write_report(out, args.out)


def distinct_convs():
    """(c_in, hw, c_out, k, stride, groups) of every distinct conv of MobileNet v2 at 224."""
    seen, hw, inp = [], 112, 32
    seen.append((3, 224, 32, 3, 2, 1))
    for t, c, n, s in SETTINGS:
        for i in range(n):
            st = s if i == 0 else 1
            hidden = inp * t
            if t != 1:
                seen.append((inp, hw, hidden, 1, 1, 1))
            seen.append((hidden, hw, hidden, 3, st, hidden))
            hw = (hw + 2 - 3) // st + 1
            seen.append((hidden, hw, c, 1, 1, 1))
            inp = c
    seen.append((inp, hw, 1280, 1, 1, 1))
    out = []
    for s in seen:
        if s not in out:
            out.append(s)
    return out


def layer_bench(np, torch, tvm, relax, args):
    """Each distinct conv (no bias, no BN) against torch.nn.functional.conv2d."""
    from conv2d_bench import interleaved  # pylint: disable=import-outside-toplevel

    rng = np.random.default_rng(2)
    rows = []
    for c, hw, o, k, s, g in distinct_convs():
        p = (k - 1) // 2
        bb = relax.BlockBuilder()
        x = relax.Var("x", relax.TensorStructInfo((1, c, hw, hw), "float32"))
        w = relax.Var("w", relax.TensorStructInfo((o, c // g, k, k), "float32"))
        with bb.function("main", [x, w]):
            with bb.dataflow():
                y = bb.emit_output(bb.emit(relax.op.nn.conv2d(x, w, strides=s, padding=p,
                                                              groups=g)))
            bb.emit_func_output(y)
        f = relax.VirtualMachine(tvm.compile(bb.get(), TARGET), tvm.cpu())["main"]
        xn = rng.standard_normal((1, c, hw, hw)).astype("float32")
        wn = rng.standard_normal((o, c // g, k, k)).astype("float32")
        xa, wa = tvm.nd.array(xn), tvm.nd.array(wn)
        xt, wt = torch.from_numpy(xn), torch.from_numpy(wn)
        with torch.no_grad():
            ref = torch.nn.functional.conv2d(xt, wt, stride=s, padding=p, groups=g).numpy()
            err = float(np.max(np.abs(f(xa, wa).numpy() - ref)))
            ours, peer = interleaved(
                lambda: f(xa, wa),
                lambda: torch.nn.functional.conv2d(xt, wt, stride=s, padding=p, groups=g),
                args.rounds, 0.05)
        name = f"{'dw' if g > 1 else 'conv'} {c}x{hw}x{hw} -> {o}, k{k} s{s}"
        rows.append({"layer": name, "minitvm_us": ours * 1e6, "pytorch_us": peer * 1e6,
                     "pytorch_over_minitvm": peer / ours, "max_abs_err": err})
        print(f"{name:34s} ours {ours * 1e6:8.1f} us torch {peer * 1e6:8.1f} us "
              f"ratio {peer / ours:5.2f} err {err:.1e}", file=sys.stderr)
    return rows


if __name__ == "__main__":
    main()

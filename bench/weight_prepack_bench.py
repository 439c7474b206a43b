#!/usr/bin/env python3
"""Stage-5 benchmark of weight packing at compile time (issue 18): each distinct conv2d layer of
ResNet-18 (bench/conv2d_bench.py's LAYERS), the MLP 784-256-10 at batch 64 and ResNet-18
1x3x224x224 and MobileNet v2 (bench/mobilenet_bench.py's model), 1 thread, each compiled for
``llvm -mcpu=native`` with the ``"default"`` pipeline three ways and timed interleaved with
PyTorch in the same process:

- ``args``: the weights passed as arguments: the kernels pack them on every call;
- ``bound_unpacked``: the weights bound as constants (BindParams), the same scheduled kernels,
  still packing per call (the pipeline without AttachAttrLayoutFreeBuffers /
  SplitLayoutRewritePreproc: what ``relax.build(params=...)`` gave before);
- ``bound``: ``relax.build(params=...)``: the packing split out of the kernels and folded into
  the constants at compile time.

    MINITVM_BUILD_DIR=build python3 bench/weight_prepack_bench.py [--rounds 7] [--clock cpu]
                                          [--only layers,mlp64,resnet18,mobilenet] [--out f]

1 thread: ``MINITVM_NUM_THREADS=1``, ``OMP_NUM_THREADS=1``, ``torch.set_num_threads(1)``.
``--clock cpu`` (the default) reports process CPU time per call, which other processes' load
does not inflate for 1-thread runs; ``--clock wall`` the wall clock. Each round times every
callable in turn (ours three ways, PyTorch); the medians over the rounds are reported, with the
outputs' largest difference from PyTorch's. Prints JSON.
"""
import argparse
import importlib.util
import json
import os
import sys
import time

os.environ.setdefault("MINITVM_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "python"))
TARGET = "llvm -mcpu=native"
CLOCK = time.process_time


def _bench_module(name):
    """Another benchmark of bench/ as a module (its LAYERS, model builders)."""
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _conv_bench():
    return _bench_module("conv2d_bench")


def _per_call(fn, min_time):
    t0 = CLOCK()
    fn()
    one = max(CLOCK() - t0, 1e-7)
    inner = max(1, int(min_time / one))
    t0 = CLOCK()
    for _ in range(inner):
        fn()
    return (CLOCK() - t0) / inner


def interleaved(fns, rounds, min_time):
    """Median seconds per call of each callable of `fns` (a dict), all timed in every round."""
    for fn in fns.values():
        fn()
    times = {k: [] for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            times[k].append(_per_call(fn, min_time))
    return {k: sorted(v)[len(v) // 2] for k, v in times.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--min-time", type=float, default=0.05)
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument("--only", default="layers,mlp64,resnet18,mobilenet")
    parser.add_argument("--out")
    args = parser.parse_args()
    global CLOCK  # pylint: disable=global-statement
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    only = set(args.only.split(","))

    import numpy as np  # pylint: disable=import-outside-toplevel
    import torch  # pylint: disable=import-outside-toplevel

    import minitvm as tvm  # pylint: disable=import-outside-toplevel
    from minitvm import relax  # pylint: disable=import-outside-toplevel
    from minitvm.relax import testing  # pylint: disable=import-outside-toplevel
    from minitvm.relax.testing import torch_models  # pylint: disable=import-outside-toplevel

    torch.set_num_threads(1)
    schedule = tvm.get_global_func("relax.transform.DefaultCPUSchedule")
    target = tvm.target.Target(TARGET)

    def build3(mod, params, fname):
        """The three builds' VM functions: args, bound_unpacked, bound (+ compile seconds)."""
        t0 = time.perf_counter()
        f_args = relax.VirtualMachine(relax.build(mod, TARGET), tvm.cpu())[fname]
        t1 = time.perf_counter()
        bound = relax.transform.BindParams(fname, params)(mod)
        unpacked = schedule(target)(relax.get_pipeline("default")(bound))
        f_unp = relax.VirtualMachine(relax.build(unpacked, TARGET, relax_pipeline=None),
                                     tvm.cpu())[fname]
        t2 = time.perf_counter()
        # What relax.build(mod, params=...) does for "main".
        f_bound = relax.VirtualMachine(relax.build(bound, TARGET), tvm.cpu())[fname]
        t3 = time.perf_counter()
        return f_args, f_unp, f_bound, {"args": t1 - t0, "bound": t3 - t2}

    def run(name, mod, params, inputs, peer, min_time, fname="main"):
        f_args, f_unp, f_bound, compile_s = build3(mod, params, fname)
        names = [p.name_hint for p in mod[fname].params]
        x_nd = [tvm.nd.array(a) for a in inputs]
        all_nd = x_nd + [tvm.nd.array(params[n]) for n in names[len(inputs):]]
        with torch.no_grad():
            ref = peer().numpy()
            errs = {k: float(np.max(np.abs(f().numpy() - ref))) for k, f in (
                ("args", lambda: f_args(*all_nd)), ("bound_unpacked", lambda: f_unp(*x_nd)),
                ("bound", lambda: f_bound(*x_nd)))}
            t = interleaved({"args": lambda: f_args(*all_nd),
                             "bound_unpacked": lambda: f_unp(*x_nd),
                             "bound": lambda: f_bound(*x_nd), "pytorch": peer},
                            args.rounds, min_time)
        entry = {"name": name, **{f"{k}_us": v * 1e6 for k, v in t.items()},
                 "bound_over_args": t["bound"] / t["args"],
                 "bound_over_bound_unpacked": t["bound"] / t["bound_unpacked"],
                 "bound_over_pytorch": t["bound"] / t["pytorch"],
                 "args_over_pytorch": t["args"] / t["pytorch"], "max_abs_err": errs,
                 "compile_s": compile_s}
        print(f"{name:18s} args {t['args'] * 1e6:9.0f}  bound_unpacked "
              f"{t['bound_unpacked'] * 1e6:9.0f}  bound {t['bound'] * 1e6:9.0f}  torch "
              f"{t['pytorch'] * 1e6:9.0f} us   bound/args {t['bound'] / t['args']:.3f}  "
              f"bound/torch {t['bound'] / t['pytorch']:.3f}", file=sys.stderr, flush=True)
        return entry

    out = {"cpu": _conv_bench().cpu_name(), "threads": 1, "rounds": args.rounds,
           "clock": args.clock, "load_average": os.getloadavg(), "torch": torch.__version__,
           "layers": []}
    rng = np.random.default_rng(0)
    if "layers" in only:
        sums = {}
        conv_bench = _conv_bench()
        for layer in conv_bench.LAYERS:
            name, s, p, count = layer[0], layer[5], layer[6], layer[7]
            xn, wn = conv_bench.layer_data(rng, layer)
            xt, wt = torch.from_numpy(xn), torch.from_numpy(wn)
            entry = run(name, conv_bench.layer_module(layer), {"w": wn}, [xn],
                        lambda xt=xt, wt=wt, s=s, p=p: torch.nn.functional.conv2d(
                            xt, wt, stride=s, padding=p), args.min_time)
            entry["count_in_resnet18"] = count
            out["layers"].append(entry)
            for key in ("args_us", "bound_unpacked_us", "bound_us", "pytorch_us"):
                sums.setdefault(key, 0.0)
                sums.setdefault("weighted_" + key, 0.0)
                sums[key] += entry[key]
                sums["weighted_" + key] += count * entry[key]
        for pre in ("", "weighted_"):
            sums[pre + "bound_over_args"] = sums[pre + "bound_us"] / sums[pre + "args_us"]
            sums[pre + "bound_over_pytorch"] = sums[pre + "bound_us"] / sums[pre + "pytorch_us"]
            sums[pre + "args_over_pytorch"] = sums[pre + "args_us"] / sums[pre + "pytorch_us"]
        out["layers_sum"] = sums
        print(json.dumps(sums), file=sys.stderr)
    if "mlp64" in only:
        mod, params = testing.mlp.get_workload(batch_size=64, hidden_units=(256,))
        p_np = {k: v.numpy() for k, v in params.items()}
        xn = rng.random((64, 1, 28, 28), dtype="float32")
        net = torch_models.mlp(784, (256,), 10)
        torch_models.load(net, params)
        xt = torch.from_numpy(xn)
        out["mlp64"] = run("MLP batch 64", mod, p_np, [xn], lambda: net(xt), args.min_time)
    if "resnet18" in only:
        mod, params = testing.resnet.get_workload(num_layers=18, image_shape=(3, 224, 224))
        p_np = {k: v.numpy() for k, v in params.items()}
        xn = rng.random((1, 3, 224, 224), dtype="float32")
        net = torch_models.resnet(18, 1000)
        torch_models.load(net, params)
        net.eval()
        xt = torch.from_numpy(xn)
        out["resnet18"] = run("ResNet-18", mod, p_np, [xn], lambda: net(xt),
                              max(args.min_time, 0.2))
    if "mobilenet" in only:
        from minitvm.relax.frontend import nn as mnn  # pylint: disable=import-outside-toplevel

        mb = _bench_module("mobilenet_bench")
        tnet = mb.torch_mobilenet_v2().eval()
        params = mb.random_params(np, tnet)
        tnet.load_state_dict({k: torch.from_numpy(v) for k, v in params.items()}, strict=False)
        mod, named = mb.minitvm_mobilenet_v2().export_tvm(
            spec={"forward": {"x": mnn.spec.Tensor((1, 3, 224, 224), "float32")}})
        xn = rng.standard_normal((1, 3, 224, 224)).astype("float32")
        xt = torch.from_numpy(xn)
        out["mobilenet_v2"] = run("MobileNet v2", mod, {n: params[n] for n, _ in named}, [xn],
                                  lambda: tnet(xt), max(args.min_time, 0.2), fname="forward")
    _conv_bench().write_report(out, args.out)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Stage-5 benchmark of the conv2d rule of the default CPU schedule (cpu_conv.h): each distinct
conv2d layer of ResNet-18 (NCHW, batch 1, no bias) and ResNet-18 end to end, compiled with
``tvm.compile(mod, "llvm -mcpu=native")`` (the "default" pipeline) and run in
``relax.VirtualMachine``, against PyTorch (``torch.nn.functional.conv2d`` / the torchvision-style
model of ``relax.testing.torch_models``, eval mode, ``no_grad``) on the same data, 1 thread.
Prints JSON (and writes it with ``--out``).

    MINITVM_BUILD_DIR=build python3 bench/conv2d_bench.py [--rounds 7] [--layers-only]
                                  [--threads 1[,2]] [--policy new[,old]] [--out result.json]

Threads: ``--threads 1,2`` times every layer (and the network) at each thread count in the
same process, interleaved round by round (``runtime.cpu.SetNumThreads`` and
``torch.set_num_threads``), and reports per count our time, PyTorch's, our process CPU time
per call, and our speedup over the first count. ``--policy new,old`` also alternates the
thread pool's policy at more than one thread: ``new`` is the default (several tasks per thread
that idle threads take over, time-bounded spinning that yields), ``old`` the one before
(``runtime.cpu.SetTasksPerThread(1)``: one static chunk per thread, and
``runtime.cpu.SetSpinWait``: a join spinning up to 5 ms and idle workers 0.5 ms on PAUSE,
which is what 200000 and 20000 PAUSEs take on Zen 4). The default is 1 thread: ``MINITVM_NUM_THREADS=1``,
``OMP_NUM_THREADS=1`` and ``torch.set_num_threads(1)`` (set before the libraries load). The
machine may be shared: each round times ours and the peer's back to back (interleaved), and
the medians over the rounds are reported. Under load, two-thread wall times mean little; the
process CPU time per call (ours) is what survives it: more CPU at 2 threads than at 1 is
spinning, waiting or overhead. The weights are passed as arguments (as PyTorch's are), so our
per-call weight packing is in the time. The outputs are compared with PyTorch's.
"""
import argparse
import json
import os
import platform
import sys
import time

os.environ.setdefault("MINITVM_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "python"))
TARGET = "llvm -mcpu=native"

# (name, C_in, H=W, C_out, kernel, stride, padding, occurrences in ResNet-18)
LAYERS = [
    ("conv1", 3, 224, 64, 7, 2, 3, 1),
    ("layer1 3x3", 64, 56, 64, 3, 1, 1, 4),
    ("layer2 3x3 s2", 64, 56, 128, 3, 2, 1, 1),
    ("layer2 3x3", 128, 28, 128, 3, 1, 1, 3),
    ("layer2 1x1 s2", 64, 56, 128, 1, 2, 0, 1),
    ("layer3 3x3 s2", 128, 28, 256, 3, 2, 1, 1),
    ("layer3 3x3", 256, 14, 256, 3, 1, 1, 3),
    ("layer3 1x1 s2", 128, 28, 256, 1, 2, 0, 1),
    ("layer4 3x3 s2", 256, 14, 512, 3, 2, 1, 1),
    ("layer4 3x3", 512, 7, 512, 3, 1, 1, 3),
    ("layer4 1x1 s2", 256, 14, 512, 1, 2, 0, 1),
]


def write_report(out, path=None):
    """Print the report `out` as JSON (with the load average after the run), and write it to
    `path` when given; shared by the benchmarks that import this module."""
    out["load_average_after"] = os.getloadavg()
    text = json.dumps(out, indent=1)
    print(text)
    if path:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)


def cpu_name():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def _per_call(fn, min_time, cpu=False):
    """Seconds per call of `fn`, calls batched to take about `min_time` (with `cpu`: the
    pair (wall, process CPU) seconds per call)."""
    t0 = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t0, 1e-7)
    inner = max(1, int(min_time / one))
    c0 = time.process_time()
    t0 = time.perf_counter()
    for _ in range(inner):
        fn()
    wall = (time.perf_counter() - t0) / inner
    return (wall, (time.process_time() - c0) / inner) if cpu else wall


def _median(values):
    values = sorted(values)
    return values[len(values) // 2]


def interleaved(ours, peer, rounds, min_time):
    """Median seconds per call of `ours` and `peer`, timed back to back in each round."""
    ours(), peer()
    a, b = [], []
    for _ in range(rounds):
        a.append(_per_call(ours, min_time))
        b.append(_per_call(peer, min_time))
    return _median(a), _median(b)


def interleaved_configs(ours, peer, configs, set_config, rounds, min_time):
    """Per configuration (thread count, tasks per thread): the medians of our wall and process
    CPU seconds per call and of the peer's wall seconds, all configurations timed in turn in
    every round (ours, peer, next configuration, ...)."""
    res = {c: ([], [], []) for c in configs}
    for c in configs:
        set_config(c)
        ours(), peer()
    for _ in range(rounds):
        for c in configs:
            set_config(c)
            wall, cpu = _per_call(ours, min_time, cpu=True)
            res[c][0].append(wall)
            res[c][1].append(cpu)
            res[c][2].append(_per_call(peer, min_time))
    return {c: tuple(_median(v) for v in r) for c, r in res.items()}


def layer_module(layer):
    """The Relax module of one LAYERS entry: ``main(x, w) = conv2d(x, w)``."""
    from minitvm import relax  # pylint: disable=import-outside-toplevel

    _, c, hw, o, k, s, p, _ = layer
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, c, hw, hw), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((o, c, k, k), "float32"))
    with bb.function("main", [x, w]):
        with bb.dataflow():
            y = bb.emit_output(bb.emit(relax.op.nn.conv2d(x, w, strides=s, padding=p)))
        bb.emit_func_output(y)
    return bb.get()


def layer_data(rng, layer):
    """Random input and weights (scaled by 1/sqrt(fan-in)) for one LAYERS entry, as NumPy."""
    import numpy as np  # pylint: disable=import-outside-toplevel

    _, c, hw, o, k, _, _, _ = layer
    xn = rng.standard_normal((1, c, hw, hw)).astype("float32")
    wn = (rng.standard_normal((o, c, k, k)) / np.sqrt(c * k * k)).astype("float32")
    return xn, wn


def _layer_case(rng, layer):
    """One LAYERS entry compiled with ``tvm.compile`` and run in the VM, with random data:
    (our call, PyTorch's call, compile seconds). Both calls return the output."""
    import torch  # pylint: disable=import-outside-toplevel

    import minitvm as tvm  # pylint: disable=import-outside-toplevel
    from minitvm import relax  # pylint: disable=import-outside-toplevel

    s, p = layer[5], layer[6]
    t0 = time.perf_counter()
    ex = tvm.compile(layer_module(layer), TARGET)
    compile_s = time.perf_counter() - t0
    f = relax.VirtualMachine(ex, tvm.cpu())["main"]
    xn, wn = layer_data(rng, layer)
    xa, wa = tvm.nd.array(xn), tvm.nd.array(wn)
    xt, wt = torch.from_numpy(xn), torch.from_numpy(wn)
    return (lambda: f(xa, wa),
            lambda: torch.nn.functional.conv2d(xt, wt, stride=s, padding=p), compile_s)


def _resnet_case(rng):
    """ResNet-18 (1x3x224x224, weights as arguments) compiled and in the VM, and the same
    network in PyTorch with the same weights: (our call, PyTorch's call, compile seconds)."""
    import torch  # pylint: disable=import-outside-toplevel

    import minitvm as tvm  # pylint: disable=import-outside-toplevel
    from minitvm import relax  # pylint: disable=import-outside-toplevel
    from minitvm.relax import testing  # pylint: disable=import-outside-toplevel
    from minitvm.relax.testing import torch_models  # pylint: disable=import-outside-toplevel

    mod, params = testing.resnet.get_workload(num_layers=18, image_shape=(3, 224, 224))
    t0 = time.perf_counter()
    ex = tvm.compile(mod, TARGET)
    compile_s = time.perf_counter() - t0
    f = relax.VirtualMachine(ex, tvm.cpu())["main"]
    xn = rng.random((1, 3, 224, 224), dtype="float32")
    args_nd = [tvm.nd.array(xn)] + list(params.values())
    net = torch_models.resnet(18, 1000)
    torch_models.load(net, params)
    net.eval()
    xt = torch.from_numpy(xn)
    return lambda: f(*args_nd), lambda: net(xt), compile_s


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--min-time", type=float, default=0.05)
    parser.add_argument("--layers-only", action="store_true")
    parser.add_argument("--threads", default="1",
                        help="thread counts, e.g. 1,2: all timed in one process, interleaved")
    parser.add_argument("--policy", default="new",
                        help="thread pool policies to alternate at > 1 thread: new, old")
    parser.add_argument("--layers", default="", help="only layers whose name contains one of "
                        "these comma-separated strings")
    parser.add_argument("--out")
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    if threads != [1]:
        # The pool is resized per configuration; PyTorch's OpenMP must be allowed the most.
        os.environ["OMP_NUM_THREADS"] = str(max(threads))
        os.environ["MINITVM_NUM_THREADS"] = str(max(threads))
        return run_threads(args, threads)

    import numpy as np  # pylint: disable=import-outside-toplevel
    import torch  # pylint: disable=import-outside-toplevel

    import minitvm as tvm  # pylint: disable=import-outside-toplevel

    torch.set_num_threads(1)
    host = tvm.target.Target(TARGET).attrs.get("mcpu", "?") if hasattr(
        tvm.target.Target(TARGET), "attrs") else "?"
    out = {"cpu": cpu_name(), "llvm_host_cpu": str(host), "threads": 1, "rounds": args.rounds,
           "load_average": os.getloadavg(), "torch": torch.__version__, "layers": []}
    rng = np.random.default_rng(0)
    tot_ours = tot_peer = w_ours = w_peer = 0.0
    for layer in LAYERS:
        name, c, hw, o, k, s, p, count = layer
        ours_fn, peer_fn, compile_s = _layer_case(rng, layer)
        with torch.no_grad():
            ref = peer_fn().numpy()
            err = float(np.max(np.abs(ours_fn().numpy() - ref)))
            ours, peer = interleaved(ours_fn, peer_fn, args.rounds, args.min_time)
        oh = (hw + 2 * p - k) // s + 1
        gflop = 2 * o * oh * oh * c * k * k / 1e9
        out["layers"].append({
            "layer": name, "shape": f"{c}x{hw}x{hw} -> {o}x{oh}x{oh}, k{k} s{s} p{p}",
            "count_in_resnet18": count, "minitvm_us": ours * 1e6, "pytorch_us": peer * 1e6,
            "pytorch_over_minitvm": peer / ours, "minitvm_gflops": gflop / ours,
            "pytorch_gflops": gflop / peer, "max_abs_err": err, "compile_s": compile_s})
        print(f"{name:16s} ours {ours * 1e6:9.1f} us  torch {peer * 1e6:9.1f} us  "
              f"ratio {peer / ours:5.2f}  err {err:.1e}", file=sys.stderr)
        tot_ours += ours
        tot_peer += peer
        w_ours += count * ours
        w_peer += count * peer
    out["sum"] = {"minitvm_us": tot_ours * 1e6, "pytorch_us": tot_peer * 1e6,
                  "pytorch_over_minitvm": tot_peer / tot_ours}
    out["sum_weighted_by_count"] = {"minitvm_us": w_ours * 1e6, "pytorch_us": w_peer * 1e6,
                                    "pytorch_over_minitvm": w_peer / w_ours}
    if not args.layers_only:
        ours_fn, peer_fn, compile_s = _resnet_case(rng)
        with torch.no_grad():
            ref = peer_fn().numpy()
            err = float(np.max(np.abs(ours_fn().numpy() - ref)))
            ours, peer = interleaved(ours_fn, peer_fn, args.rounds, max(args.min_time, 0.2))
        out["resnet18"] = {"minitvm_ms": ours * 1e3, "pytorch_ms": peer * 1e3,
                           "minitvm_over_pytorch": ours / peer, "max_abs_err": err,
                           "compile_s": compile_s}
        print(f"resnet18 ours {ours * 1e3:.2f} ms torch {peer * 1e3:.2f} ms err {err:.1e}",
              file=sys.stderr)
    write_report(out, args.out)


def run_threads(args, threads):
    """--threads: every layer and the network at each (thread count, tasks per thread)."""
    import numpy as np  # pylint: disable=import-outside-toplevel
    import torch  # pylint: disable=import-outside-toplevel

    import minitvm as tvm  # pylint: disable=import-outside-toplevel

    set_threads = tvm.get_global_func("runtime.cpu.SetNumThreads")
    set_tasks = tvm.get_global_func("runtime.cpu.SetTasksPerThread")
    set_spin = tvm.get_global_func("runtime.cpu.SetSpinWait")
    policies = args.policy.split(",")
    configs = [(t, pol) for t in threads for pol in (policies if t > 1 else ["new"])]

    def set_config(cfg):
        set_threads(cfg[0])
        if cfg[1] == "old":
            set_tasks(1)
            set_spin(5000000, 5000000, 500000, 500000)
        else:
            set_tasks(0)  # the defaults (MINITVM_TASKS_PER_THREAD, else 4)
            set_spin(-1, -1, -1, -1)
        torch.set_num_threads(cfg[0])

    def label(cfg):
        return f"{cfg[0]}t" + (f"/{cfg[1]}" if len(policies) > 1 and cfg[0] > 1 else "")

    out = {"cpu": cpu_name(), "threads": threads, "configs": [label(c) for c in configs],
           "rounds": args.rounds, "load_average": os.getloadavg(), "torch": torch.__version__,
           "layers": []}
    rng = np.random.default_rng(0)
    sel = [x for x in args.layers.split(",") if x]
    base = configs[0]

    def report(name, res, entry):
        line = f"{name:16s}"
        for cfg in configs:
            ours, cpu, peer = res[cfg]
            entry[label(cfg)] = {"minitvm_us": ours * 1e6, "minitvm_cpu_us": cpu * 1e6,
                                 "pytorch_us": peer * 1e6, "minitvm_over_pytorch": ours / peer,
                                 "minitvm_speedup": res[base][0] / ours,
                                 "minitvm_cpu_over_first": cpu / res[base][1]}
            line += (f" | {label(cfg)} ours {ours * 1e6:8.0f} cpu {cpu * 1e6:8.0f} torch "
                     f"{peer * 1e6:8.0f} x{res[base][0] / ours:4.2f}")
        print(line, file=sys.stderr, flush=True)

    def check_and_time(ours_fn, peer_fn, min_time):
        """The largest difference from PyTorch's output over the configurations, and the
        interleaved timings."""
        with torch.no_grad():
            ref = peer_fn().numpy()
            err = 0.0
            for cfg in configs:
                set_config(cfg)
                err = max(err, float(np.max(np.abs(ours_fn().numpy() - ref))))
            return err, interleaved_configs(ours_fn, peer_fn, configs, set_config, args.rounds,
                                            min_time)

    for layer in LAYERS:
        name, count = layer[0], layer[-1]
        if sel and not any(x in name for x in sel):
            continue
        err, res = check_and_time(*_layer_case(rng, layer)[:2], args.min_time)
        entry = {"layer": name, "count_in_resnet18": count, "max_abs_err": err}
        report(name, res, entry)
        out["layers"].append(entry)
    if not args.layers_only:
        err, res = check_and_time(*_resnet_case(rng)[:2], max(args.min_time, 0.2))
        entry = {"max_abs_err": err}
        report("resnet18", res, entry)
        out["resnet18"] = entry
    write_report(out, args.out)


if __name__ == "__main__":
    main()

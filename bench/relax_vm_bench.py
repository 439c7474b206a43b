#!/usr/bin/env python3
"""Stage-5 benchmark of the Relax VM: compiled models (the "default" pipeline, so with the CPU
default schedule) against NumPy and PyTorch in the same process, 1 and 2 threads. Prints JSON.

    MINITVM_BUILD_DIR=build python3 bench/relax_vm_bench.py [--threads 1,2] [--repeat 20]
                                                             [--models mlp1,mlp64,resnet18]
                                                             [--out result.json]

Workloads: the MLP 784-256-10 (``relax.testing.mlp``) at batch 1 and 64, ResNet-18
(``relax.testing.resnet``) at 1x3x224x224. Each is compiled for ``llvm -mcpu=native`` with
``relax_pipeline="default"`` (the MLP also with ``"zero"``: plain loops), and also with the
weights bound as constants (``relax.build(params=...)``: weight packing at compile time), and
with the weights as arguments transformed once (``relax.pipeline.static_shape_tuning_pipeline(0,
target, cpu_weight_prepack=True)``, then ``main_transform_params`` once: "arguments, transformed
once", ``minitvm_default_params_transformed``), run in
``relax.VirtualMachine`` with the parameters as arguments (as the quick start does), and timed
interleaved with a NumPy forward pass (matmul / im2col + matmul, i.e. OpenBLAS) and PyTorch
(``relax.testing.torch_models``, eval mode, ``no_grad``) on the same data; the outputs are
compared too. All callables of one workload are timed interleaved (round after round, one batch
of each in turn: ``_time_interleaved``), so that a shared machine's changing load reaches them
alike; best and median of the rounds are reported.

Threads: each thread count runs in a child process with ``MINITVM_NUM_THREADS`` (the minitvm
thread pool, stage5_vm_codegen/src/runtime_cpu/thread_pool.cc), ``OPENBLAS_NUM_THREADS`` /
``OMP_NUM_THREADS`` (read when the libraries load) and ``torch.set_num_threads``; and without
``OPENBLAS_CORETYPE`` (which forces OpenBLAS onto its AVX2 kernel): the report names the kernel
that ran (``openblas_get_corename``) and the environment's setting. A short SGEMM probe at 1 and
2 threads says whether both CPUs were free (two-thread numbers mean little otherwise).

The memory plan: planned peak bytes of each model's static memory plan beside the sum of all
intermediates and the largest live set ("relax.vm.PlannedMemory").
"""
import argparse
import ctypes
import ctypes.util
import glob
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
TARGET = "llvm -mcpu=native"


def cpu_name():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def openblas_corename():
    """The OpenBLAS kernel NumPy's BLAS runs (None when NumPy does not use OpenBLAS)."""
    import numpy as np  # pylint: disable=import-outside-toplevel

    candidates = []
    libs_dir = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    candidates += glob.glob(os.path.join(libs_dir, "libopenblas*.so*"))
    # Already loaded by numpy's extension: look in the process maps first.
    try:
        with open("/proc/self/maps", encoding="utf-8") as f:
            for line in f:
                path = line.split()[-1]
                if "blas" in os.path.basename(path) and path.endswith(tuple(".so" + s for s in
                                                                            ("", ".0", ".3"))):
                    candidates.insert(0, path)
    except OSError:
        pass
    found = ctypes.util.find_library("openblas")
    if found:
        candidates.append(found)
    for path in candidates:
        try:
            lib = ctypes.CDLL(path)
            fn = lib.openblas_get_corename
        except (OSError, AttributeError):
            continue
        fn.restype = ctypes.c_char_p
        config = None
        try:
            cfg = lib.openblas_get_config
            cfg.restype = ctypes.c_char_p
            config = cfg().decode()
        except AttributeError:
            pass
        return {"library": os.path.realpath(path), "corename": fn().decode(), "config": config}
    return None


# ---- NumPy references ---------------------------------------------------------------------


def numpy_mlp(x, p):
    h = x.reshape(x.shape[0], -1) @ p["fc1.weight"].T + p["fc1.bias"]
    return (h * (h > 0)) @ p["fc2.weight"].T + p["fc2.bias"]


def _conv(np, x, w, stride, pad):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    if pad:
        x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (wd + 2 * pad - kw) // stride + 1
    win = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(2, 3))
    win = win[:, :, ::stride, ::stride][:, :, :oh, :ow]  # n c oh ow kh kw
    cols = win.transpose(0, 2, 3, 1, 4, 5).reshape(n * oh * ow, c * kh * kw)
    out = cols @ w.reshape(o, -1).T  # (n oh ow, o)
    return out.reshape(n, oh, ow, o).transpose(0, 3, 1, 2)


def _bn(np, x, p, name, eps=1e-5):
    scale = p[name + ".weight"] / np.sqrt(p[name + ".running_var"] + eps)
    shift = p[name + ".bias"] - p[name + ".running_mean"] * scale
    return x * scale[None, :, None, None] + shift[None, :, None, None]


def numpy_resnet18(x, p):
    import numpy as np  # pylint: disable=import-outside-toplevel

    relu = lambda t: np.maximum(t, 0)  # noqa: E731
    y = relu(_bn(np, _conv(np, x, p["conv1.weight"], 2, 3), p, "bn1"))
    y = np.pad(y, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    win = np.lib.stride_tricks.sliding_window_view(y, (3, 3), axis=(2, 3))[:, :, ::2, ::2]
    y = win.max(axis=(4, 5))
    for layer in range(1, 5):
        for block in range(2):
            pre = f"layer{layer}.{block}."
            stride = 2 if layer > 1 and block == 0 else 1
            out = relu(_bn(np, _conv(np, y, p[pre + "conv1.weight"], stride, 1), p, pre + "bn1"))
            out = _bn(np, _conv(np, out, p[pre + "conv2.weight"], 1, 1), p, pre + "bn2")
            if pre + "downsample.0.weight" in p:
                y = _bn(np, _conv(np, y, p[pre + "downsample.0.weight"], stride, 0), p,
                        pre + "downsample.1")
            y = relu(out + y)
    y = y.mean(axis=(2, 3))
    return y @ p["fc.weight"].T + p["fc.bias"]


# ---- the child: one thread count ------------------------------------------------------------


def _time(fn, repeat, min_time=0.2):
    """Best and median seconds per call (calls batched so that each sample takes ~min_time/5)."""
    return _time_interleaved({"f": fn}, repeat, min_time)["f"]


def _time_interleaved(fns, repeat, min_time=0.2):
    """{name: (best, median)} seconds per call of each callable in `fns`, timed interleaved: each
    of the `repeat` rounds times one batch of every callable in turn, so that a change of the
    machine's load (shared machines) reaches all of them alike. A batch takes ~min_time/5."""
    inner = {}
    for name, fn in fns.items():
        fn()
        t0 = time.perf_counter()
        fn()
        inner[name] = max(1, int(min_time / 5 / max(time.perf_counter() - t0, 1e-7)))
    samples = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            n = inner[name]
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            samples[name].append((time.perf_counter() - t0) / n)
    out = {}
    for name, values in samples.items():
        values.sort()
        out[name] = (values[0], values[len(values) // 2])
    return out


def _probe(np):
    a = np.random.default_rng(0).random((1024, 1024), dtype="float32")
    best, _ = _time(lambda: a @ a, 5, 0.5)
    return 2 * 1024 ** 3 / best / 1e9


def child(args):
    sys.path.insert(0, os.path.join(REPO, "python"))
    import numpy as np  # pylint: disable=import-outside-toplevel

    import minitvm as tvm  # pylint: disable=import-outside-toplevel
    from minitvm import relax  # pylint: disable=import-outside-toplevel
    from minitvm.relax import testing  # pylint: disable=import-outside-toplevel

    try:
        import torch  # pylint: disable=import-outside-toplevel

        torch.set_num_threads(args.child_threads)
        from minitvm.relax.testing import torch_models  # pylint: disable=import-outside-toplevel
    except ImportError:
        torch = None
    out = {"threads": args.child_threads, "sgemm_probe_gflops": _probe(np), "models": []}
    for name in args.models:
        if name.startswith("mlp"):
            batch = int(name[3:])
            mod, params = testing.mlp.get_workload(batch_size=batch, hidden_units=(256,))
            shape = (batch, 1, 28, 28)
            np_fn = numpy_mlp
            torch_net = torch_models.mlp(784, (256,), 10) if torch else None
            pipelines = ["default", "zero"]
            label = f"MLP 784-256-10 batch {batch}"
        else:
            mod, params = testing.resnet.get_workload(num_layers=18, image_shape=(3, 224, 224))
            shape = (1, 3, 224, 224)
            np_fn = numpy_resnet18
            torch_net = torch_models.resnet(18, 1000) if torch else None
            pipelines = ["default"]
            label = "ResNet-18 1x3x224x224"
        x = np.random.default_rng(0).random(shape, dtype="float32")
        p_np = {k: v.numpy() for k, v in params.items()}
        ref = np_fn(x, p_np)
        entry = {"model": label, "flops_note": None}
        rep = args.repeat if name.startswith("mlp") else max(3, args.repeat // 4)
        # Compile and check everything first, then time all of it interleaved (_time_interleaved).
        fns, infos = {}, {}
        for pipeline in pipelines:
            t0 = time.perf_counter()
            ex = relax.build(mod, TARGET, relax_pipeline=pipeline)
            compile_s = time.perf_counter() - t0
            vm = relax.VirtualMachine(ex, tvm.cpu())
            f = vm["main"]
            args_nd = [tvm.nd.array(x)] + list(params.values())
            got = f(*args_nd).numpy()
            fns[f"minitvm_{pipeline}"] = lambda f=f, a=args_nd: f(*a)
            infos[f"minitvm_{pipeline}"] = {
                "compile_s": compile_s, "max_abs_err_vs_numpy": float(np.max(np.abs(got - ref))),
            }
        # The weights bound as constants (relax.build(params=...)): FoldConstant then does
        # the weight transposes at compile time, as NumPy's `x @ W.T` never does them, and
        # the GEMM and conv2d kernels get their weights packed at compile time.
        t0 = time.perf_counter()
        ex = relax.build(mod, TARGET, params=p_np)
        compile_s = time.perf_counter() - t0
        f = relax.VirtualMachine(ex, tvm.cpu())["main"]
        x_nd = tvm.nd.array(x)
        got = f(x_nd).numpy()
        fns["minitvm_default_params_bound"] = lambda f=f: f(x_nd)
        infos["minitvm_default_params_bound"] = {
            "compile_s": compile_s, "max_abs_err_vs_numpy": float(np.max(np.abs(got - ref))),
        }
        # The weights as arguments, transformed once (TVM's cpu_weight_prepack):
        # static_shape_tuning_pipeline(0 trials, cpu_weight_prepack=True) lifts the packing into
        # main_transform_params, run once here; main then takes the packed weights.
        t0 = time.perf_counter()
        lifted = relax.pipeline.static_shape_tuning_pipeline(0, TARGET, cpu_weight_prepack=True)(
            tvm.IRModule({gv: (f.with_attr("num_input", 1) if gv.name_hint == "main" else f)
                          for gv, f in mod.functions_items()}))
        vm_lifted = relax.VirtualMachine(tvm.compile(lifted, TARGET), tvm.cpu())
        compile_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        transformed = vm_lifted["main_transform_params"](list(params.values()))
        transform_s = time.perf_counter() - t0
        f = vm_lifted["main"]
        got = f(x_nd, *transformed).numpy()
        fns["minitvm_default_params_transformed"] = lambda f=f, t=transformed: f(x_nd, *t)
        infos["minitvm_default_params_transformed"] = {
            "compile_s": compile_s, "transform_params_s": transform_s,
            "max_abs_err_vs_numpy": float(np.max(np.abs(got - ref))),
        }
        fns["numpy"] = lambda: np_fn(x, p_np)
        infos["numpy"] = {}
        if torch_net is not None:
            torch_models.load(torch_net, params)
            xt = torch.from_numpy(x)
            with torch.no_grad():
                got = torch_net(xt).numpy()

            def torch_call(net=torch_net, xt=xt):
                with torch.no_grad():
                    return net(xt)

            fns["pytorch"] = torch_call
            infos["pytorch"] = {"max_abs_err_vs_numpy": float(np.max(np.abs(got - ref)))}
        for key, (best, median) in _time_interleaved(fns, rep).items():
            entry[key] = {"best_us": best * 1e6, "median_us": median * 1e6, **infos[key]}
        mine = entry["minitvm_default"]["best_us"]
        entry["numpy_over_minitvm"] = entry["numpy"]["best_us"] / mine
        if "pytorch" in entry:
            entry["pytorch_over_minitvm"] = entry["pytorch"]["best_us"] / mine
        # The goals' form (minitvm's time / the peer's), from the interleaved medians.
        for peer in ("numpy", "pytorch"):
            if peer in entry:
                entry[f"minitvm_over_{peer}_median"] = (
                    entry["minitvm_default"]["median_us"] / entry[peer]["median_us"])
        # The weights as arguments transformed once against bound and against PyTorch.
        lifted_med = entry["minitvm_default_params_transformed"]["median_us"]
        entry["transformed_over_bound_median"] = (
            lifted_med / entry["minitvm_default_params_bound"]["median_us"])
        if "pytorch" in entry:
            entry["transformed_over_pytorch_median"] = lifted_med / entry["pytorch"]["median_us"]
        del entry["flops_note"]
        out["models"].append(entry)
    print(json.dumps(out))


def memory_plan():
    sys.path.insert(0, os.path.join(REPO, "python"))
    import minitvm as tvm  # pylint: disable=import-outside-toplevel
    from minitvm import relax  # pylint: disable=import-outside-toplevel
    from minitvm.relax import testing  # pylint: disable=import-outside-toplevel

    plan = tvm.get_global_func("relax.vm.PlannedMemory")
    result = []
    for label, (mod, _) in [
        ("MLP 784-256-10 batch 1", testing.mlp.get_workload(batch_size=1, hidden_units=(256,))),
        ("MLP 784-256-10 batch 64", testing.mlp.get_workload(batch_size=64, hidden_units=(256,))),
        ("ResNet-18 1x3x224x224", testing.resnet.get_workload(image_shape=(3, 224, 224))),
    ]:
        lowered = relax.get_pipeline("default")(mod)
        figures = dict(plan(lowered))
        planned, total, live = (int(v) for v in figures["main"])
        result.append({"model": label, "planned_bytes": planned, "sum_of_intermediates": total,
                       "largest_live_set": live})
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--models", default="mlp1,mlp64,resnet18")
    parser.add_argument("--out", default="")
    parser.add_argument("--child-threads", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.models = [m for m in args.models.split(",") if m]
    if args.child_threads:
        child(args)
        return 0
    report = {
        "cpu": cpu_name(),
        "logical_cpus": os.cpu_count(),
        "target": TARGET,
        "OPENBLAS_CORETYPE_in_environment": os.environ.get("OPENBLAS_CORETYPE"),
        "OPENBLAS_THREAD_TIMEOUT": os.environ.get("OPENBLAS_THREAD_TIMEOUT", "4"),
        "runs": [],
    }
    for t in [int(x) for x in args.threads.split(",")]:
        env = dict(os.environ, MINITVM_NUM_THREADS=str(t), OPENBLAS_NUM_THREADS=str(t),
                   OMP_NUM_THREADS=str(t))
        # OpenBLAS's idle threads spin ~0.1 s after each call of the NumPy reference, which
        # took a core from the minitvm call timed next (see bench/gemm_bench.py).
        env.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
        env.pop("OPENBLAS_CORETYPE", None)
        out = subprocess.run(
            [sys.executable, __file__, "--repeat", str(args.repeat), "--models",
             ",".join(args.models), "--child-threads", str(t)],
            check=True, stdout=subprocess.PIPE, text=True, env=env,
        )
        report["runs"].append(json.loads(out.stdout.strip().splitlines()[-1]))
    probes = {r["threads"]: r["sgemm_probe_gflops"] for r in report["runs"]}
    if 1 in probes and 2 in probes:
        # Two free CPUs give ~1.6-2x the one-thread SGEMM; less means the second was busy.
        report["two_cpus_free"] = probes[2] / probes[1] > 1.5
        report["sgemm_probe_2t_over_1t"] = probes[2] / probes[1]
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    blas = subprocess.run(
        [sys.executable, "-c", "import sys, json; sys.path.insert(0, %r); import numpy; "
         "import relax_vm_bench as b; print(json.dumps(b.openblas_corename()))" % HERE],
        check=True, stdout=subprocess.PIPE, text=True, env=env,
    )
    report["openblas"] = json.loads(blas.stdout)
    report["memory_plan"] = memory_plan()
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

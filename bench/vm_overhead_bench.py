#!/usr/bin/env python3
"""Stage-5 benchmark: the Relax VM's own cost per call from Python. Prints JSON.

    MINITVM_BUILD_DIR=build python3 bench/vm_overhead_bench.py [--repeat 20000] [--out r.json]

Measured (median of batches, microseconds per call):
  - ``identity_1``: ``main(x) = x`` (one tensor argument, no kernel);
  - ``identity_10``: ``main(x0..x9) = x0`` (ten tensor arguments: the argument checks);
  - ``add_1``: ``main(x) = x + x`` on 4 floats (one kernel call, one allocation);
  - ``identity_1_packed``: the same through the VM's PackedFunc (``vm.module["main"]``), i.e.
    without the Python wrapper of ``vm["main"]``;
  - ``mlp1_call``: the MLP 784-256-10 at batch 1 (``-mcpu=native``, the "default" pipeline),
    one ``vm["main"]`` call, and ``mlp1_kernels``: the sum of its kernels, each timed alone in
    C++ (``time_evaluator`` of the kernel library) on the same tensors; ``mlp1_vm_share`` is
    the difference: what the VM and the Python call add to the kernels;
  - peers in the same process: a Python function call with 10 arguments, ``numpy.add`` on 4
    floats, and a plain minitvm global function call (``runtime.ArraySize``).

Everything is timed interleaved (each of the 7 rounds runs a batch of every case in turn) and
the median of the rounds is reported, with the minimum beside it (``*_min_us``). The clock is
the process's CPU time by default (``--clock cpu``: everything here runs on one thread, and a
shared machine's other processes then only slow it through the caches, not by taking the CPU
away in the middle of a batch); ``--clock wall`` uses ``time.perf_counter``.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))


CLOCK = time.process_time


def _per_call(cases, repeat):
    """{name: (median, min)} over 7 interleaved rounds of `repeat` calls, in us per call."""
    samples = {name: [] for name in cases}
    for _ in range(7):
        for name, fn in cases.items():
            t0 = CLOCK()
            for _ in range(repeat):
                fn()
            samples[name].append((CLOCK() - t0) / repeat * 1e6)
    out = {}
    for name, values in samples.items():
        values.sort()
        out[name] = (values[len(values) // 2], values[0])
    return out


def _mlp1(tvm, relax, np):
    """The MLP at batch 1: its VM call, and each kernel called the way the VM calls it."""
    from minitvm.relax import testing  # pylint: disable=import-outside-toplevel

    mod, params = testing.mlp.get_workload(batch_size=1, hidden_units=(256,))
    ex = tvm.compile(mod, "llvm -mcpu=native")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    f = vm["main"]
    x = tvm.nd.array(np.random.default_rng(0).random((1, 1, 28, 28), dtype="float32"))
    weights = list(params.values())
    w1, b1, w2, b2 = (params[k] for k in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"))
    lib = ex.imported_modules[0]
    flat = tvm.nd.array(np.zeros((1, 784), "float32"))
    hidden = tvm.nd.array(np.zeros((1, 256), "float32"))
    out = tvm.nd.array(np.zeros((1, 10), "float32"))
    kernels = {"reshape": (x, flat), "fused_NT_matmul_add_relu": (flat, w1, b1, hidden),
               "fused_NT_matmul1_add1": (hidden, w2, b2, out)}
    names = set(lib.function_names)
    if not set(kernels) <= names:  # another pipeline: no split into kernels to compare with
        return f, (x, *weights), None

    def kernels_us():
        total = 0.0
        for name, kargs in kernels.items():
            res = lib.time_evaluator(name, tvm.cpu(), number=200, repeat=5)(*kargs)
            total += min(res.results) * 1e6
        return total

    return f, (x, *weights), kernels_us


def _module(nargs, body):
    from minitvm import relax  # pylint: disable=import-outside-toplevel

    bb = relax.BlockBuilder()
    params = [relax.Var(f"x{i}", relax.TensorStructInfo((4,), "float32")) for i in range(nargs)]
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(body(bb, params))
        bb.emit_func_output(out)
    return bb.get()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=20000)
    parser.add_argument("--out", default="")
    parser.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    args = parser.parse_args()
    global CLOCK  # pylint: disable=global-statement
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    import numpy as np  # pylint: disable=import-outside-toplevel

    import minitvm as tvm  # pylint: disable=import-outside-toplevel
    from minitvm import relax  # pylint: disable=import-outside-toplevel

    target = "llvm -mcpu=native"
    x = [tvm.nd.array(np.full(4, i, "float32")) for i in range(10)]
    mods = {
        "identity_1": (1, lambda bb, p: p[0]),
        "identity_10": (10, lambda bb, p: p[0]),
        "add_1": (1, lambda bb, p: bb.emit(relax.op.add(p[0], p[0]))),
    }
    cases = {}
    for name, (nargs, body) in mods.items():
        ex = tvm.compile(_module(nargs, body), target)
        vm = relax.VirtualMachine(ex, tvm.cpu())
        f = vm["main"]
        call_args = x[:nargs]
        f(*call_args)
        cases[name] = lambda f=f, a=call_args: f(*a)
        if name == "identity_1":
            raw = vm.module["main"]
            cases["identity_1_packed"] = lambda f=raw, a=call_args: f(*a)
    mlp_f, mlp_args, kernels_us = _mlp1(tvm, relax, np)
    mlp_f(*mlp_args)
    cases["mlp1_call"] = lambda: mlp_f(*mlp_args)

    def py10(a, b, c, d, e, f, g, h, i, j):  # pylint: disable=unused-argument
        return a

    a_np = np.ones(4, "float32")
    cases["peer_python_call_10_args"] = lambda: py10(*x)
    cases["peer_numpy_add_4_floats"] = lambda: np.add(a_np, a_np)
    ident = tvm.get_global_func("runtime.ArraySize", allow_missing=True)
    if ident is not None:
        arr = tvm.runtime.convert([1, 2]) if hasattr(tvm.runtime, "convert") else [1, 2]
        cases["peer_packed_func_call"] = lambda: ident(arr)
    # The MLP call is ~1000x slower than the others: fewer calls per batch.
    timed = _per_call({k: v for k, v in cases.items() if k != "mlp1_call"}, args.repeat)
    timed.update(_per_call({"mlp1_call": cases["mlp1_call"]}, max(1, args.repeat // 100)))
    results = {}
    for name, (median, best) in timed.items():
        results[name + "_us"] = median
        results[name + "_min_us"] = best
    if kernels_us is not None:
        results["mlp1_kernels_us"] = kernels_us()
        results["mlp1_vm_share_us"] = results["mlp1_call_min_us"] - results["mlp1_kernels_us"]
    with open("/proc/loadavg", encoding="utf-8") as fh:
        load = fh.read().split()[0]
    report = {"benchmark": "vm_overhead", "repeat": args.repeat, "clock": args.clock,
              "load_average": float(load), "results": results}
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

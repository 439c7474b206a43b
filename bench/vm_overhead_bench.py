#!/usr/bin/env python3
"""Stage-5 benchmark: the Relax VM's own cost per call from Python. Prints JSON.

    MINITVM_BUILD_DIR=build python3 bench/vm_overhead_bench.py [--repeat 20000] [--out r.json]

Measured (median of batches, microseconds per call):
  - ``identity_1``: ``main(x) = x`` (one tensor argument, no kernel);
  - ``identity_10``: ``main(x0..x9) = x0`` (ten tensor arguments: the argument checks);
  - ``add_1``: ``main(x) = x + x`` on 4 floats (one kernel call, one allocation);
  - peers in the same process: a Python function call with 10 arguments, ``numpy.add`` on 4
    floats, and a plain minitvm global function call (``runtime.ArraySize``).
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))


def _per_call(fn, repeat):
    """Median over 7 batches of `repeat` calls, in microseconds per call."""
    samples = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(repeat):
            fn()
        samples.append((time.perf_counter() - t0) / repeat * 1e6)
    samples.sort()
    return samples[len(samples) // 2]


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
    args = parser.parse_args()
    import numpy as np  # pylint: disable=import-outside-toplevel

    import minitvm as tvm  # pylint: disable=import-outside-toplevel
    from minitvm import relax  # pylint: disable=import-outside-toplevel

    target = "llvm -mcpu=native"
    x = [tvm.nd.array(np.full(4, i, "float32")) for i in range(10)]
    results = {}
    mods = {
        "identity_1": (1, lambda bb, p: p[0]),
        "identity_10": (10, lambda bb, p: p[0]),
        "add_1": (1, lambda bb, p: bb.emit(relax.op.add(p[0], p[0]))),
    }
    for name, (nargs, body) in mods.items():
        ex = tvm.compile(_module(nargs, body), target)
        vm = relax.VirtualMachine(ex, tvm.cpu())
        f = vm["main"]
        call_args = x[:nargs]
        f(*call_args)
        results[name + "_us"] = _per_call(lambda f=f, a=call_args: f(*a), args.repeat)

    def py10(a, b, c, d, e, f, g, h, i, j):  # pylint: disable=unused-argument
        return a

    a_np = np.ones(4, "float32")
    results["peer_python_call_10_args_us"] = _per_call(lambda: py10(*x), args.repeat)
    results["peer_numpy_add_4_floats_us"] = _per_call(lambda: np.add(a_np, a_np), args.repeat)
    ident = tvm.get_global_func("runtime.ArraySize", allow_missing=True)
    if ident is not None:
        arr = tvm.runtime.convert([1, 2]) if hasattr(tvm.runtime, "convert") else [1, 2]
        results["peer_packed_func_call_us"] = _per_call(lambda: ident(arr), args.repeat)
    report = {"benchmark": "vm_overhead", "repeat": args.repeat, "results": results}
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Issue 20 benchmark, models: tuning the heaviest ResNet-18 conv2d layer, and ResNet-18 end to
end, against the ``"default"`` pipeline's rules. Prints JSON.

    MINITVM_BUILD_DIR=build python3 bench/autotune_resnet_bench.py [--layer-trials 64]
        [--model-trials 256] [--skip-model] [--rounds 5] [--confirm 4] [--out result.json]

* **layer** — the conv2d of ResNet-18's first stage (64→64 channels, 3×3, 56×56, batch 1,
  with the ReLU FuseOps puts in the same kernel), as the zero pipeline leaves it. It is tuned
  twice: by pure search (``tune_tir``, the default design space), and with the default rule
  measured as well (``measure_default_rule=True``, what ``tune_relax`` does). After the
  trials, the best ``--confirm`` records are measured again side by side (``confirm_top_k``,
  as ``tune_relax`` does: one lucky timing on a shared machine does not pick the winner). Each
  result is timed against the default rule's kernel (the hand-written schedule of issue 18).
* **model** — ``tune_relax`` on ResNet-18 (1×3×224×224, weights bound) with ``--model-trials``
  trials shared over its kernels, then ``compile_relax`` with the database, against the same
  compile with an empty database (every kernel on the default rules). The tuning time is
  reported: the goal is under 30 minutes on 2 cores.

Everything is timed in this process after tuning, interleaved round by round (``--rounds``),
medians over the rounds, with all cores (``MINITVM_NUM_THREADS`` to change). The machine may be
shared: only ratios measured side by side mean something.
"""
import argparse
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import minitvm as tvm  # noqa: E402
from minitvm import meta_schedule as ms  # noqa: E402
from minitvm import relax  # noqa: E402

from autotune_bench import cpu_name  # noqa: E402

TARGET = "llvm -mcpu=native"


def _per_call(fn, min_time=0.05):
    fn()
    calls, start = 0, time.perf_counter()
    while True:
        fn()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_time:
            return elapsed / calls


def interleaved(named, rounds, min_time=0.05):
    per = {name: [] for name in named}
    for _ in range(rounds):
        for name, fn in named.items():
            per[name].append(_per_call(fn, min_time))
    return {name: sorted(ts)[len(ts) // 2] for name, ts in per.items()}


def conv_layer_task():
    """The zero-pipeline PrimFunc of conv2d(64→64, 3×3, 56×56) + ReLU, as a task module."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, 64, 56, 56), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((64, 64, 3, 3), "float32"))
    with bb.function("main", [x, w]):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, w, strides=1, padding=1))
            out = bb.emit_output(bb.emit(relax.op.nn.relu(y)))
        bb.emit_func_output(out)
    tasks = ms.extract_tasks(bb.get())
    name, task, _ = max(tasks, key=lambda t: ms.estimate_flops(t[1]["main"]))
    return name, task


def _task_func(mod):
    lib = tvm.build(mod, target=TARGET)
    func = mod["main"]
    shapes = ms.tune.args_info(func)
    rng = np.random.default_rng(0)
    arrays = [tvm.nd.array(rng.uniform(-1, 1, s).astype(d)) for s, d in shapes]
    f = lib["main"]
    return lambda: f(*arrays), arrays


def bench_layer(trials, rounds, seed, confirm=4):
    name, task = conv_layer_task()
    flops = ms.estimate_flops(task["main"])
    default_mod = tvm.get_global_func("relax.transform.DefaultCPUSchedule")(
        tvm.target.Target(TARGET))(task)
    named = {"default_rule": _task_func(default_mod)[0]}
    out = {"task": name, "gflop": flops / 1e9, "trials": trials,
           "confirmed_top_k": confirm}
    for label, with_default in (("search_only", False), ("search_and_default_rule", True)):
        work = tempfile.mkdtemp(prefix="minitvm-autotune-conv-")
        start = time.time()
        db = ms.tune_tir(task, TARGET, work, trials, num_trials_per_iter=16, seed=seed,
                         measure_default_rule=with_default, confirm_top_k=confirm,
                         runner=ms.LocalRunner(number=1, repeat=3, min_repeat_ms=0,
                                               timeout_sec=60))
        entry = {"tuning_seconds": time.time() - start, "work_dir": work}
        sch = ms.compile_tir(db, task, TARGET)
        if sch is None:
            best = db.query_tuning_record(task)
            entry["chosen"] = "default rule" if best is not None else "nothing valid"
        else:
            entry["chosen"] = "searched schedule"
            named[label] = _task_func(sch.mod)[0]
        out[label] = entry
    times = interleaved(named, rounds)
    for label in ("search_only", "search_and_default_rule"):
        if label not in times:  # the default rule was chosen: the very same function
            times[label] = times["default_rule"]
    for label, secs in times.items():
        out.setdefault(label, {}).update({"ms": secs * 1e3, "gflops": flops / secs / 1e9})
    for label in ("search_only", "search_and_default_rule"):
        out[label]["vs_default_rule"] = times["default_rule"] / times[label]
    return out


def bench_model(trials, rounds, seed):
    from minitvm.relax import testing  # pylint: disable=import-outside-toplevel

    mod, params = testing.resnet.get_workload(num_layers=18, image_shape=(3, 224, 224))
    work = tempfile.mkdtemp(prefix="minitvm-autotune-resnet-")
    start = time.time()
    db = ms.tune_relax(mod, params, TARGET, work, trials, num_trials_per_iter=16, seed=seed,
                       runner=ms.LocalRunner(number=1, repeat=3, min_repeat_ms=0,
                                             timeout_sec=60))
    tuning_seconds = time.time() - start
    records = db.get_all_tuning_records()
    tuned_ex = ms.compile_relax(db, mod, TARGET, params=params)
    default_ex = ms.compile_relax(ms.MemoryDatabase(), mod, TARGET, params=params)
    x = tvm.nd.array(np.random.default_rng(0).random((1, 3, 224, 224), dtype="float32"))
    tuned = relax.VirtualMachine(tuned_ex, tvm.cpu())["main"]
    default = relax.VirtualMachine(default_ex, tvm.cpu())["main"]
    err = float(np.max(np.abs(tuned(x).numpy() - default(x).numpy())))
    times = interleaved({"tuned": lambda: tuned(x), "default_rules": lambda: default(x)},
                        rounds, 0.2)
    tasks = ms.extract_tasks(mod, params)
    searched = 0
    for _, task_mod, _ in tasks:
        best = db.query_tuning_record(task_mod)
        searched += int(best is not None and not best.default_rule)
    return {"trials": trials, "tuning_seconds": tuning_seconds, "work_dir": work,
            "records": len(records), "tasks": len(tasks),
            "tasks_using_a_searched_schedule": searched,
            "failed_candidates": sum(1 for r in records if not r.is_valid),
            "tuned_ms": times["tuned"] * 1e3, "default_rules_ms": times["default_rules"] * 1e3,
            "default_over_tuned": times["default_rules"] / times["tuned"],
            "max_abs_diff_tuned_vs_default": err}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--layer-trials", type=int, default=64)
    parser.add_argument("--model-trials", type=int, default=256)
    parser.add_argument("--skip-model", action="store_true")
    parser.add_argument("--skip-layer", action="store_true")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--confirm", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    report = {"benchmark": "autotune_resnet", "target": TARGET, "cpu": cpu_name(),
              "cores": os.cpu_count(), "threads": os.environ.get("MINITVM_NUM_THREADS", "all"),
              "load_average_before": os.getloadavg()}
    if not args.skip_layer:
        report["conv_layer"] = bench_layer(args.layer_trials, args.rounds, args.seed,
                                           args.confirm)
        print(f"[autotune_resnet] layer: {json.dumps(report['conv_layer'])[:400]}",
              file=sys.stderr)
    if not args.skip_model:
        report["resnet18"] = bench_model(args.model_trials, args.rounds, args.seed)
    report["load_average_after"] = os.getloadavg()
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

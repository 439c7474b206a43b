"""The worker process of the local builder and runner.

    python -m minitvm.meta_schedule.worker build JOBS.json
    python -m minitvm.meta_schedule.worker run JOBS.json

``JOBS.json`` is a list of jobs; the worker prints one JSON line per finished job,
``{"index": i, ...}``, flushing after each, so that the parent knows which jobs finished even
when a later one kills the process.

Test hook: with ``MINITVM_MS_TEST_FAULT=abort`` (or ``hang``) in the environment, a build job
whose module carries the annotation ``meta_schedule.test_fault`` calls ``os.abort()`` (or
sleeps for an hour) — so that the tests can show, without relying on a real miscompile, that a
crashing or hanging candidate is recorded as failed and tuning goes on.
"""
import json
import os
import sys
import time
import traceback

TEST_FAULT_MARK = "meta_schedule.test_fault"


def _test_fault(job):
    mode = os.environ.get("MINITVM_MS_TEST_FAULT")
    if mode and TEST_FAULT_MARK in job.get("script", ""):
        if mode == "abort":
            os.abort()
        elif mode == "hang":
            time.sleep(3600)


def _build(job):
    _test_fault(job)
    import minitvm as tvm  # pylint: disable=import-outside-toplevel
    from minitvm.script.parser import from_source  # pylint: disable=import-outside-toplevel

    mod = from_source(job["script"])
    lib = tvm.build(mod, target=job["target"])
    lib.export_library(job["out"])
    return {}


def _run(job):
    import numpy as np  # pylint: disable=import-outside-toplevel

    import minitvm as tvm  # pylint: disable=import-outside-toplevel

    lib = tvm.runtime.load_module(job["lib"])
    dev = tvm.cpu(0)
    rng = np.random.default_rng(0)
    args = []
    for shape, dtype in job["args"]:
        if dtype.startswith("float"):
            data = rng.uniform(-1, 1, size=shape).astype(dtype)
        else:
            data = rng.integers(0, 8, size=shape).astype(dtype)
        args.append(tvm.nd.array(data, dev))
    evaluator = lib.time_evaluator(job["func"], dev, number=job["number"],
                                   repeat=job["repeat"], min_repeat_ms=job["min_repeat_ms"])
    return {"run_secs": [float(x) for x in evaluator(*args).results]}


def main(argv):
    if len(argv) != 3 or argv[1] not in ("build", "run"):
        print("usage: python -m minitvm.meta_schedule.worker build|run JOBS.json",
              file=sys.stderr)
        return 2
    with open(argv[2], encoding="utf-8") as f:
        jobs = json.load(f)
    fn = _build if argv[1] == "build" else _run
    for index, job in enumerate(jobs):
        try:
            entry = fn(job)
        except Exception as exc:  # pylint: disable=broad-except
            last = traceback.format_exception_only(type(exc), exc)[-1].strip()
            entry = {"error": last[:2000]}
        entry["index"] = index
        print(json.dumps(entry), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""Building and running candidates in worker processes (build here, run there).

The interface is RPC-shaped, as TVM's: a **builder** turns scheduled modules into artifacts
(shared libraries on disk) and a **runner** times an artifact on a device with random inputs.
Both talk to workers only through files and command lines, so a runner could as well live on
another machine. The local ones start ``python -m minitvm.meta_schedule.worker`` processes:

* a candidate that crashes its worker (a segfault in generated code), hangs past the time
  limit or raises is recorded as failed with the reason; tuning goes on;
* builds run in a pool of workers sized to the machine (``os.cpu_count()``), each worker
  building a batch of candidates (one process start per batch, not per candidate; after a
  crash the rest of the batch is retried one by one);
* runs go one at a time by default (timings on a machine shared by parallel runs mean little).
"""
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

__all__ = ["BuilderInput", "BuilderResult", "RunnerInput", "RunnerResult", "LocalBuilder",
           "LocalRunner"]


class BuilderInput:
    def __init__(self, mod, target):
        self.mod = mod
        self.target = str(target)


class BuilderResult:
    def __init__(self, artifact_path=None, error_msg=None):
        self.artifact_path = artifact_path
        self.error_msg = error_msg


class RunnerInput:
    def __init__(self, artifact_path, args_info, func_name="main"):
        self.artifact_path = artifact_path
        self.args_info = args_info  # [(shape, dtype), ...]
        self.func_name = func_name


class RunnerResult:
    def __init__(self, run_secs=None, error_msg=None):
        self.run_secs = run_secs
        self.error_msg = error_msg


def _worker_env():
    env = dict(os.environ)
    pkg_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = pkg_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH")
                                    else "")
    env.setdefault("OMP_NUM_THREADS", "1")
    # The child may run in another folder: a relative build folder must not change meaning.
    if env.get("MINITVM_BUILD_DIR"):
        env["MINITVM_BUILD_DIR"] = os.path.abspath(env["MINITVM_BUILD_DIR"])
    return env


def _run_worker(command, jobs, timeout):
    """Run one worker on a list of jobs; returns {job index: result dict} for the jobs it
    finished (a crash or a time-out leaves the rest out)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(jobs, f)
        job_file = f.name
    results = {}
    try:
        proc = subprocess.run([sys.executable, "-m", "minitvm.meta_schedule.worker", command,
                               job_file], capture_output=True, text=True, timeout=timeout,
                              env=_worker_env(), check=False)
        for line in proc.stdout.splitlines():
            if line.startswith("{"):
                entry = json.loads(line)
                results[entry["index"]] = entry
        if proc.returncode != 0:
            reason = (f"worker exited with status {proc.returncode}"
                      if proc.returncode > 0 else f"worker killed by signal {-proc.returncode}")
            for i in range(len(jobs)):
                results.setdefault(i, {"error": reason + "; " + proc.stderr.strip()[-300:],
                                       "crashed": True})
    except subprocess.TimeoutExpired as exc:
        # Keep what the worker finished before it hung.
        out = exc.stdout or ""
        for line in (out.decode() if isinstance(out, bytes) else out).splitlines():
            if line.startswith("{"):
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    continue
                results[entry["index"]] = entry
        for i in range(len(jobs)):
            results.setdefault(i, {"error": f"timed out after {timeout} s", "crashed": True})
    finally:
        os.unlink(job_file)
    return results


def _batched(jobs, command, timeout_each, n_workers):
    """Run jobs in batches over `n_workers` workers; retry the jobs of a crashed batch one by
    one, so that one bad candidate fails alone."""
    if not jobs:
        return []
    n_workers = max(1, min(n_workers, len(jobs)))
    batches = [list(range(i, len(jobs), n_workers)) for i in range(n_workers)]
    results = [None] * len(jobs)

    def run_batch(indices):
        got = _run_worker(command, [jobs[i] for i in indices], timeout_each * len(indices))
        retry = []
        for pos, i in enumerate(indices):
            entry = got.get(pos)
            if entry is None or (entry.get("crashed") and len(indices) > 1):
                retry.append(i)
            else:
                results[i] = entry
        for i in retry:
            results[i] = _run_worker(command, [jobs[i]], timeout_each).get(
                0, {"error": "the worker gave no result"})

    with ThreadPoolExecutor(max_workers=n_workers) as pool:
        list(pool.map(run_batch, batches))
    return results


class LocalBuilder:
    """Builds candidates to shared libraries in worker processes."""

    def __init__(self, max_workers=None, timeout_sec=60.0, work_dir=None):
        self.max_workers = max_workers or os.cpu_count() or 1
        self.timeout_sec = timeout_sec
        self.work_dir = work_dir or tempfile.mkdtemp(prefix="minitvm_ms_build_")
        self._count = 0

    def build(self, inputs):
        jobs = []
        for inp in inputs:
            self._count += 1
            path = os.path.join(self.work_dir, f"candidate_{os.getpid()}_{self._count}.so")
            jobs.append({"script": inp.mod.script(), "target": inp.target, "out": path})
        out = []
        for job, entry in zip(jobs, _batched(jobs, "build", self.timeout_sec, self.max_workers)):
            if entry.get("error"):
                out.append(BuilderResult(None, entry["error"]))
            else:
                out.append(BuilderResult(job["out"], None))
        return out


class LocalRunner:
    """Times built candidates in worker processes (one at a time by default)."""

    def __init__(self, number=3, repeat=3, min_repeat_ms=10, timeout_sec=30.0, max_workers=1):
        self.number = number
        self.repeat = repeat
        self.min_repeat_ms = min_repeat_ms
        self.timeout_sec = timeout_sec
        self.max_workers = max_workers

    def run(self, inputs):
        jobs = [{"lib": inp.artifact_path, "func": inp.func_name,
                 "args": [[list(s), d] for s, d in inp.args_info], "number": self.number,
                 "repeat": self.repeat, "min_repeat_ms": self.min_repeat_ms} for inp in inputs]
        out = []
        for entry in _batched(jobs, "run", self.timeout_sec, self.max_workers):
            if entry.get("error"):
                out.append(RunnerResult(None, entry["error"]))
            else:
                out.append(RunnerResult(entry["run_secs"], None))
        return out

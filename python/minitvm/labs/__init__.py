"""Course labs and their graders (stages 1-4): ``minitvm.labs.check(NN, path)``.

A lab is a folder ``tutorials/labs/NN_topic/`` with a README (the task), a starter file with
marked gaps (``TODO(lab NN)``) and, under ``tests/labs/NN/``, a reference solution and typical
wrong ones. The grader of lab NN (``labNN.py`` here) makes a list of *cases* from a seed that
it prints: the checks of what the lab is about (``structure``), then many generated inputs,
edge sizes included, each compared with the reference of the stage below. Every case runs in
its own child process with a time limit, so an infinite loop or a crash of the learner's code
is reported as such and the grader carries on. The report names, per case, ``ok`` or what went
wrong (the first mismatching index with the expected and the obtained value, or the exception
with the learner's line), and ends with the score::

    import minitvm.labs
    report = minitvm.labs.check(2, "my_lab02.py")      # prints the report
    report.ok, report.passed, report.total

From a shell: ``python -m minitvm.labs check 2 my_lab02.py [--seed=S] [--cases=N]`` or
``minitvm lab check 2 my_lab02.py``. Exit status 0 when every case passes, 1 otherwise, 2 for a
usage error.
"""
import importlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

__all__ = ["check", "Report", "CaseResult", "LABS", "main"]

#: lab number -> (grader module, title)
LABS = {
    1: ("lab01", "low-level NumPy: conv2d, softmax and layer_norm as loops"),
    2: ("lab02", "TensorIR: mm_relu and conv2d in TVMScript"),
    3: ("lab03", "schedules: make matmul fast, keep it equal"),
    4: ("lab04", "Relax: the MLP with call_tir in a dataflow block"),
    5: ("lab05", "write a pass: fold constants"),
}

_PYTHON_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class CaseResult:
    """One case: ``name``, ``status`` (``pass``, ``fail``, ``error``, ``timeout``, ``crash``)
    and the ``message`` the learner reads (a note such as a measured speed-up on a pass)."""

    def __init__(self, name, status, message=""):
        self.name = name
        self.status = status
        self.message = message

    @property
    def ok(self):
        """True when the case passed."""
        return self.status == "pass"

    def __repr__(self):
        return f"CaseResult({self.name!r}, {self.status!r}, {self.message!r})"


class Report:
    """The outcome of :func:`check`: the lab, the ``seed``, the per-case ``results``."""

    def __init__(self, lab, path, seed):
        self.lab = lab
        self.path = path
        self.seed = seed
        self.results = []

    @property
    def passed(self):
        """How many cases passed."""
        return sum(1 for r in self.results if r.ok)

    @property
    def total(self):
        """How many cases ran."""
        return len(self.results)

    @property
    def ok(self):
        """True when there were cases and all of them passed."""
        return self.total > 0 and self.passed == self.total

    @property
    def score(self):
        """The fraction of cases that passed (0.0 to 1.0)."""
        return self.passed / self.total if self.total else 0.0

    def failures(self):
        """The results that did not pass."""
        return [r for r in self.results if not r.ok]

    def text(self):
        """The report as printed."""
        return "\n".join(_format_lines(self))


def _grader(lab):
    if isinstance(lab, str) and lab.isdigit():
        lab = int(lab)
    if lab not in LABS:
        raise ValueError(f"minitvm.labs: there is no lab {lab!r}; the labs are "
                         + ", ".join(f"{n:02d}" for n in sorted(LABS)))
    return lab, importlib.import_module(f"{__name__}.{LABS[lab][0]}")


def _child_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = _PYTHON_ROOT + (os.pathsep + env["PYTHONPATH"]
                                        if env.get("PYTHONPATH") else "")
    env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    # The child may run in another folder: a relative build folder must not change meaning.
    if env.get("MINITVM_BUILD_DIR"):
        env["MINITVM_BUILD_DIR"] = os.path.abspath(env["MINITVM_BUILD_DIR"])
    return env


def _crash_result(name, proc, stderr):
    if proc.returncode is not None and proc.returncode < 0:
        try:
            sig = signal.Signals(-proc.returncode).name
        except ValueError:
            sig = f"signal {-proc.returncode}"
        return CaseResult(name, "crash", f"the process crashed with {sig} while running your "
                          f"code (an out-of-bounds access in a compiled kernel?)")
    tail = stderr.strip().splitlines()[-1:] or [""]
    return CaseResult(name, "crash", f"the process exited with status {proc.returncode} before "
                      f"reporting (sys.exit or os._exit in your code?) {tail[0]}".rstrip())


def _run_cases(lab, path, cases, timeout, fixed=False):
    """Yield a CaseResult per case. The cases run in a child process, one after the other;
    each has ``timeout`` seconds (or its own ``timeout``). When a case hangs or crashes the
    child is killed, the case reported, and a fresh child goes on with the next case."""
    pending = list(cases)
    while pending:
        with tempfile.TemporaryDirectory(prefix="minitvm_lab_") as tmp:
            result_file = os.path.join(tmp, "results.jsonl")
            cases_file = os.path.join(tmp, "cases.json")
            with open(cases_file, "w", encoding="utf-8") as f:
                json.dump(pending, f)
            with open(os.path.join(tmp, "stderr"), "w+b") as err:
                proc = subprocess.Popen(  # pylint: disable=consider-using-with
                    [sys.executable, "-m", f"{__name__}._child", str(lab),
                     os.path.abspath(path), result_file, cases_file],
                    env=_child_env(), cwd=os.path.dirname(os.path.abspath(path)),
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
                done = 0
                started = time.monotonic()
                while True:
                    finished = proc.poll() is not None
                    lines = []
                    if os.path.exists(result_file):
                        with open(result_file, encoding="utf-8") as f:
                            lines = [ln for ln in f.read().split("\n") if ln.strip()]
                    # Only complete lines count (the child writes each with one call).
                    while done < len(lines):
                        try:
                            data = json.loads(lines[done])
                        except ValueError:
                            break
                        yield CaseResult(pending[done]["name"], data["status"],
                                         data.get("message", ""))
                        done += 1
                        started = time.monotonic()
                    if done == len(pending):
                        proc.wait()
                        pending = []
                        break
                    case = pending[done]
                    limit = timeout if fixed else max(timeout, case.get("timeout", 0))
                    if case["kind"] == "load":
                        # Starting Python and importing minitvm is not the learner's time.
                        limit = max(limit, 60.0)
                    if finished:
                        err.seek(0)
                        yield _crash_result(case["name"], proc,
                                            err.read().decode(errors="replace"))
                        pending = pending[done + 1:]
                        break
                    if time.monotonic() - started > limit:
                        proc.kill()
                        proc.wait()
                        yield CaseResult(case["name"], "timeout",
                                         f"did not finish within {limit:g} s (an infinite "
                                         f"loop? a loop far too slow?)")
                        pending = pending[done + 1:]
                        break
                    time.sleep(0.02)


_MAX_LINES = 10


def _result_lines(r, width, seen=None):
    """The lines of one result. A message already printed for an earlier case (``seen``:
    message -> case name) is not repeated; a long one is cut after _MAX_LINES lines."""
    head = f"  {r.name.ljust(width)}  "
    if r.ok:
        return [head + "ok" + (f"  ({r.message})" if r.message else "")]
    label = {"fail": "FAIL", "error": "ERROR", "timeout": "TIMEOUT",
             "crash": "CRASH"}.get(r.status, r.status.upper())
    if seen is not None:
        if r.message in seen:
            return [head + f"{label}: the same as {seen[r.message]}"]
        seen[r.message] = r.name
    lines = (r.message or "").splitlines() or [""]
    if len(lines) > _MAX_LINES:
        lines = lines[:_MAX_LINES] + [f"... ({len(lines) - _MAX_LINES} more lines)"]
    return [head + f"{label}: {lines[0]}"] + [" " * len(head) + extra for extra in lines[1:]]


def _header_lines(report):
    title = LABS[report.lab][1]
    return [f"minitvm lab {report.lab:02d} ({title}): checking {report.path}",
            f"seed {report.seed} (run again with --seed={report.seed} for the same cases)"]


def _score_line(report):
    verdict = "all cases pass" if report.ok else "not yet"
    return f"score: {report.passed}/{report.total} cases passed ({verdict})"


def _format_lines(report):
    width = max([len(r.name) for r in report.results] + [10])
    lines = _header_lines(report)
    seen = {}
    for r in report.results:
        lines += _result_lines(r, width, seen)
    return lines + [_score_line(report)]


def check(lab, path, cases=None, seed=None, timeout=None, out=sys.stdout):
    """Grade the learner's file ``path`` for lab ``lab`` (a number) and return a :class:`Report`.

    ``cases``: how many generated cases per function (the lab's default when None);
    ``seed``: the seed of the cases (``$MINITVM_LAB_SEED``, else random; printed either way);
    ``timeout``: the time limit of every case in seconds (when None, the lab's default, longer
    for the cases that need it, such as timing);
    ``out``: where the report is printed as it goes (None prints nothing).
    """
    lab, grader = _grader(lab)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"minitvm lab {lab:02d}: no such file: {path}")
    if seed is None:
        seed = int(os.environ.get("MINITVM_LAB_SEED") or random.SystemRandom().randrange(10**6))
    report = Report(lab, path, seed)
    plan = grader.plan(random.Random(seed), cases or grader.DEFAULT_CASES)
    limit = timeout or grader.TIMEOUT
    width = max([len(c["name"]) for c in plan] + [10])
    seen = {}

    def emit(lines):
        if out is not None:
            for line in lines:
                print(line, file=out)
            out.flush()

    emit(_header_lines(report))
    # The file is loaded first: one that does not import fails every case the same way.
    results = _run_cases(lab, path, [{"name": "load", "kind": "load"}] + plan, limit,
                         fixed=timeout is not None)
    load = next(results)
    if not load.ok:
        report.results.append(load)
        emit(_result_lines(load, width, seen))
        for case in plan:
            report.results.append(CaseResult(case["name"], "error", "not run: the file "
                                             "does not load (see above)"))
        results.close()
        emit([f"  ({len(plan)} cases not run)"])
    else:
        for result in results:
            report.results.append(result)
            emit(_result_lines(result, width, seen))
    emit([_score_line(report)])
    return report


def main(argv=None):
    """``python -m minitvm.labs check NN FILE [--seed=S] [--cases=N] [--timeout=T]`` and
    ``python -m minitvm.labs list``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    usage = ("usage: python -m minitvm.labs check NN FILE [--seed=S] [--cases=N] "
             "[--timeout=SECONDS]\n       python -m minitvm.labs list\n")
    opts = {}
    args = []
    for a in argv:
        if a.startswith("--") and "=" in a:
            key, value = a[2:].split("=", 1)
            opts[key] = value
        elif a in ("-h", "--help"):
            sys.stdout.write(usage)
            return 0
        else:
            args.append(a)
    if args[:1] == ["list"]:
        for n, (_, title) in sorted(LABS.items()):
            print(f"{n:02d}  {title}")
        return 0
    if len(args) != 3 or args[0] != "check":
        sys.stderr.write(usage)
        return 2
    try:
        ints = {k: int(v) for k, v in opts.items() if k in ("seed", "cases")}
        unknown = set(opts) - {"seed", "cases", "timeout"}
        if unknown:
            raise ValueError("unknown option --" + sorted(unknown)[0])
        timeout = float(opts["timeout"]) if "timeout" in opts else None
        report = check(args[1], args[2], cases=ints.get("cases"), seed=ints.get("seed"),
                       timeout=timeout)
    except (ValueError, FileNotFoundError) as err:
        sys.stderr.write(f"error: {err}\n")
        return 2
    return 0 if report.ok else 1

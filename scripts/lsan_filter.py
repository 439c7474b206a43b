#!/usr/bin/env python3
"""Read LeakSanitizer reports and keep the leaks minitvm's own code caused.

scripts/sanitize_test.sh --leaks runs every test process with LeakSanitizer and
LSAN_OPTIONS=log_path=<dir>/lsan:log_exe_name=1, so each process that leaked writes one
report file named ``lsan.<executable>.<pid>`` (docs/sanitizers.md). What counts depends on
the process:

- a program built in the build folder (``stage1_tests``, ``minitvm``, ``tutorial_08_vm``...):
  every leak counts. Third-party libraries that keep memory on purpose are suppressed in
  scripts/lsan_suppressions.txt, which LeakSanitizer applies before writing the report.
- the Python interpreter: a leak counts when a frame of its allocation stack lies in a minitvm
  library or the extension (a path under --build-dir) before the first frame that evaluates
  Python code. Memory that the interpreter, NumPy or LLVM keeps for the life of the process is
  theirs.
- any other program a test starts (the system linker when a library is exported, cmake, ...):
  not ours; counted and ignored.

Prints minitvm's leaks and a summary; exits 1 when there are any.

    scripts/lsan_filter.py --build-dir build-lsan build-lsan/lsan/lsan.*
"""
import argparse
import collections
import os
import re
import sys

HEADER = re.compile(r"^(Direct|Indirect) leak of (\d+) byte\(s\) in (\d+) object\(s\)")
FRAME = re.compile(r"^\s+#\d+ 0x[0-9a-f]+ (?:in (?P<func>.*?) )?\(?(?P<module>/[^ +)]*)")
PYTHON = re.compile(r"/python3(\.\d+)?$|libpython")
EVAL = re.compile(r"EvalFrame|EvalCode|PyEval_|_PyFunction_Vectorcall|PyRun_|Py_RunMain")
PYTHON_EXE = re.compile(r"^python3?(\.\d+)?$")
REPORT_NAME = re.compile(r"^[^.]+\.(?P<exe>.+)\.(?P<pid>\d+)$")


def leaks(text):
    """(header line, [(func, module)]) for each leak report in ``text``."""
    current = None
    for line in text.splitlines():
        m = HEADER.match(line)
        if m:
            if current:
                yield current
            current = (line, [])
            continue
        if current is None:
            continue
        f = FRAME.match(line)
        if f:
            current[1].append((f.group("func") or "?", f.group("module")))
        elif not line.strip():
            yield current
            current = None
    if current:
        yield current


def python_leak_is_ours(frames, build_dir):
    """A leak in the interpreter is ours when minitvm code allocated it.

    That is: a frame in a minitvm library or the extension comes before the first frame that
    evaluates Python code. Frames of the interpreter's C API in between are allowed, so a
    Python object the extension made and never released (a missing Py_DECREF) counts; memory
    that Python code (an import, NumPy) allocated while minitvm was further out does not.
    """
    for func, module in frames:
        if module.startswith(build_dir):
            return True
        if PYTHON.search(module) and EVAL.search(func):
            return False
    return False


def classify(exe, build_dir):
    """'python', 'ours' (a program of the build folder) or 'other' for an executable name."""
    if exe is None or PYTHON_EXE.match(exe):
        return "python"
    for sub in ("bin", "."):
        if os.path.isfile(os.path.join(build_dir, sub, exe)):
            return "ours"
    return "other"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("reports", nargs="*")
    args = ap.parse_args()
    build_dir = os.path.abspath(args.build_dir)
    inputs = [(None, sys.stdin.read())] if not args.reports else [
        (p, open(p, errors="replace").read()) for p in args.reports
    ]
    ours = ours_bytes = 0
    ignored = collections.Counter()
    for path, text in inputs:
        m = REPORT_NAME.match(os.path.basename(path)) if path else None
        exe = m.group("exe") if m else None
        kind = classify(exe, build_dir)
        for header, frames in leaks(text):
            mine = kind == "ours" or (kind == "python" and python_leak_is_ours(frames, build_dir))
            if not mine:
                ignored[exe or "python"] += 1
                continue
            ours += 1
            ours_bytes += int(HEADER.match(header).group(2))
            print(f"{header}   [{path or 'stdin'}]")
            for func, module in frames[:16]:
                print(f"    {func}  ({module})")
    others = ", ".join(f"{n} in {exe}" for exe, n in sorted(ignored.items())) or "none"
    print(f"lsan_filter: {ours} leak(s) from minitvm ({ours_bytes} bytes) in "
          f"{len(inputs)} report(s); ignored as third-party: {others}")
    return 1 if ours else 0


if __name__ == "__main__":
    sys.exit(main())

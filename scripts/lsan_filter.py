#!/usr/bin/env python3
"""Read LeakSanitizer reports (files or stdin) and keep the leaks minitvm's own code caused.

A leak is minitvm's when a frame of its allocation stack lies in a minitvm library or the
Python extension (a path under the build directory given with --build-dir), before the first
frame of the Python interpreter: memory the interpreter, NumPy or LLVM keeps for the life of
the process is theirs (docs/sanitizers.md). Prints minitvm's leaks and a one-line summary;
exits 1 when there are any.

    scripts/lsan_filter.py --build-dir build-asan build-asan/lsan/py.*
"""
import argparse
import re
import sys

HEADER = re.compile(r"^(Direct|Indirect) leak of (\d+) byte\(s\) in (\d+) object\(s\)")
FRAME = re.compile(r"^\s+#\d+ 0x[0-9a-f]+ (?:in (?P<func>.*?) )?\(?(?P<module>/[^ +)]*)")
PYTHON = re.compile(r"/python3(\.\d+)?$|libpython")


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


def is_ours(frames, build_dir):
    for func, module in frames:
        if PYTHON.search(module):
            return False
        if build_dir in module:
            return True
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("reports", nargs="*")
    args = ap.parse_args()
    texts = [sys.stdin.read()] if not args.reports else [
        open(p, errors="replace").read() for p in args.reports
    ]
    ours = theirs = 0
    ours_bytes = 0
    for text in texts:
        for header, frames in leaks(text):
            if is_ours(frames, args.build_dir):
                ours += 1
                ours_bytes += int(HEADER.match(header).group(2))
                print(header)
                for func, module in frames[:12]:
                    print(f"    {func}  ({module})")
            else:
                theirs += 1
    print(f"lsan_filter: {ours} leak(s) from minitvm ({ours_bytes} bytes), "
          f"{theirs} from the interpreter and other third-party code (ignored)")
    return 1 if ours else 0


if __name__ == "__main__":
    sys.exit(main())

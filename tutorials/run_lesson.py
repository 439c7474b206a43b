#!/usr/bin/env python3
"""Run one lesson and compare what it prints with its expected output (a golden file).

    run_lesson.py --expected tutorials/01_runtime/expected_py.txt -- python3 lesson.py

The lesson passes when it exits with 0, its standard output equals the expected file
(trailing spaces and trailing blank lines ignored) and it printed an ``OK: ...`` line.
With ``UPDATE_GOLDEN=1`` in the environment the expected file is rewritten instead
(``UPDATE_GOLDEN=1 ctest -L tutorial`` regenerates every lesson's output). CTest calls this
for every lesson through ``minitvm_add_lesson`` in ``tutorials/CMakeLists.txt``.
"""
import argparse
import difflib
import os
import subprocess
import sys


def normalise(text):
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--expected", required=True, help="the golden output file")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- program and arguments")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no lesson command given")

    proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    out = normalise(proc.stdout.decode("utf-8", "replace"))
    err = proc.stderr.decode("utf-8", "replace")
    if proc.returncode != 0:
        sys.stdout.write(out)
        sys.stderr.write(err)
        print(f"run_lesson: {' '.join(command)} exited with {proc.returncode}", file=sys.stderr)
        return 1
    if not any(line.startswith("OK: ") for line in out.splitlines()):
        sys.stdout.write(out)
        print("run_lesson: the lesson printed no 'OK: ...' line", file=sys.stderr)
        return 1

    if os.environ.get("UPDATE_GOLDEN") == "1":
        with open(args.expected, "w", encoding="utf-8") as f:
            f.write(out)
        print(f"run_lesson: wrote {args.expected}")
        return 0
    try:
        with open(args.expected, encoding="utf-8") as f:
            expected = normalise(f.read())
    except FileNotFoundError:
        sys.stdout.write(out)
        print(f"run_lesson: {args.expected} is missing (create it with UPDATE_GOLDEN=1)",
              file=sys.stderr)
        return 1
    if out != expected:
        diff = difflib.unified_diff(expected.splitlines(True), out.splitlines(True),
                                    fromfile=args.expected, tofile="actual output")
        sys.stdout.writelines(diff)
        sys.stderr.write(err)
        print("run_lesson: the output differs from the expected file "
              "(if the change is intended, rerun with UPDATE_GOLDEN=1)", file=sys.stderr)
        return 1
    sys.stdout.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

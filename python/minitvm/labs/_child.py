"""The cases of a lab grader, run in a child process (``minitvm.labs`` starts it).

``python -m minitvm.labs._child LAB FILE RESULTS CASES_JSON`` loads the learner's FILE,
runs the cases one by one and appends ``{"status": ..., "message": ...}`` to RESULTS, a
line per case. A crash or a time-out leaves the line of its case missing; the parent reports
it and starts a fresh child for the cases after it. Nothing here prints a traceback: a
fault of the learner's code is described by its line, one of the grader by its message.
"""
import importlib
import json
import sys


def _write(path, status, message=""):
    # One line per case, written with one call: the parent reads complete lines only.
    line = json.dumps({"status": status, "message": message}) + "\n"
    with open(path, "a", encoding="utf-8") as f:
        f.write(line)


def _run_one(grader, module_or_error, path, case):
    from ._common import CaseFailure, LearnerError

    try:
        if isinstance(module_or_error, Exception):
            raise module_or_error
        note = None if case["kind"] == "load" else grader.run(module_or_error, path, case)
        return "pass", note or ""
    except CaseFailure as err:
        return "fail", str(err)
    except LearnerError as err:
        return "error", err.message
    except Exception as err:  # pylint: disable=broad-except
        # Raised in the grader's code, usually because of what the learner's code returned.
        return "error", f"{type(err).__name__}: {err}"


def main():
    lab, path, result_file, cases_file = sys.argv[1:5]
    with open(cases_file, encoding="utf-8") as f:
        cases = json.load(f)
    # Imports inside the try: a broken build is reported like any other fault.
    try:
        from . import LABS
        from ._common import load_solution

        grader = importlib.import_module(f"minitvm.labs.{LABS[int(lab)][0]}")
    except Exception as err:  # pylint: disable=broad-except
        for _ in cases:
            _write(result_file, "error", f"the grader could not start: {type(err).__name__}: {err}")
        return
    try:
        module = load_solution(path)
    except Exception as err:  # pylint: disable=broad-except
        module = err
    for case in cases:
        status, message = _run_one(grader, module, path, case)
        _write(result_file, status, message)


if __name__ == "__main__":
    main()

"""Helpers shared by the lab graders: load a learner's file, compare arrays, describe an
exception by the learner's own line, and check the source for what a lab forbids.

Everything here runs inside the per-case child process (see ``_child.py``); a helper that
finds a fault raises :class:`CaseFailure` with the message the learner will read.
"""
import ast
import importlib.util
import inspect
import os
import sys
import textwrap
import traceback

import numpy as np


class CaseFailure(Exception):
    """A case failed for a reason the grader states (a mismatch, a missing name, ...)."""


class LearnerError(Exception):
    """The learner's code raised; ``message`` names the exception and the learner's line."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message


def load_solution(path):
    """Import the learner's file as a module named ``solution``. An exception while loading is
    a :class:`LearnerError` naming the line of the file where it happened."""
    path = os.path.abspath(path)
    spec = importlib.util.spec_from_file_location("solution", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["solution"] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as err:
        raise LearnerError(
            f"the file does not parse: SyntaxError at line {err.lineno}: {err.msg}\n"
            f"    {(err.text or '').rstrip()}") from None
    except Exception as err:  # pylint: disable=broad-except
        raise LearnerError("loading the file raised " + describe_exception(err, path)) from None
    return module


def describe_exception(err, path):
    """``Kind: message`` with, right after its first line, the last line of the learner's
    file that the traceback passed through (``at line 12 in conv2d: Y[n, co] = ...``). Never
    the grader's own frames."""
    path = os.path.abspath(path)
    lines = f"{type(err).__name__}: {err}".strip().splitlines() or [type(err).__name__]
    where = None
    for frame in traceback.extract_tb(err.__traceback__):
        if os.path.abspath(frame.filename) == path:
            where = frame
    if where is not None:
        lines.insert(1, f"    at line {where.lineno} in {where.name}: {(where.line or '').strip()}")
    return "\n".join(lines)


def call_learner(path, func, *args, **kwargs):
    """Call ``func`` (from the learner's file); an exception becomes a :class:`LearnerError`."""
    try:
        return func(*args, **kwargs)
    except (CaseFailure, LearnerError):
        raise
    except Exception as err:  # pylint: disable=broad-except
        raise LearnerError(describe_exception(err, path)) from None


def get_attr(module, name, what):
    """``module.name``, or a CaseFailure telling the learner to define it."""
    if not hasattr(module, name):
        raise CaseFailure(f"the file defines no `{name}` ({what})")
    return getattr(module, name)


def _fmt(value):
    value = float(value)
    if np.isnan(value):
        return "nan"
    return f"{value:.6g}"


#: What an output array holds before the learner's code runs: an element still equal to it
#: was never written.
SENTINEL = np.float32(-1.2345e30)


def empty_output(shape):
    """An output array filled with :data:`SENTINEL`."""
    return np.full(shape, SENTINEL, dtype="float32")


UNWRITTEN = ("this element was never written: the function must fill the output array it is "
             "given (not return a new one, not rebind the name)")


def compare(name, expected, got, rtol=1e-4, atol=1e-4, nan_hint=None, unwritten_hint=UNWRITTEN):
    """Raise a CaseFailure naming the first index where ``got`` differs from ``expected``
    (shapes first), with a hint when that element was never written (:data:`SENTINEL`) or is
    NaN (``nan_hint``)."""
    expected = np.asarray(expected)
    got = np.asarray(got)
    if expected.shape != got.shape:
        raise CaseFailure(f"{name} has shape {tuple(got.shape)}, expected {tuple(expected.shape)}")
    if expected.size == 0:
        return
    close = np.isclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    if close.all():
        return
    bad = np.argwhere(~close)
    index = tuple(int(i) for i in bad[0])
    exp_v, got_v = expected[index], got[index]
    unwritten = got_v == SENTINEL
    msg = (f"{name} differs at index {index}: expected {_fmt(exp_v)}, got "
           f"{'(not written)' if unwritten else _fmt(got_v)} "
           f"({len(bad)} of {expected.size} elements differ)")
    if unwritten:
        msg += f"\n    {unwritten_hint}"
    elif nan_hint and np.isnan(got_v):
        msg += f"\n    {nan_hint}"
    raise CaseFailure(msg)


def function_ast(func, name):
    """The AST of the learner's function ``func`` (line numbers as in its file)."""
    if not inspect.isfunction(func):
        raise CaseFailure(f"`{name}` is a {type(func).__name__}, not a function")
    try:
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError):
        raise CaseFailure(f"the source of `{name}` cannot be read") from None
    tree = ast.parse(textwrap.dedent("".join(lines)))
    ast.increment_lineno(tree, first - 1)
    return tree.body[0]


def dotted_name(node):
    """``np.dot`` for the AST of ``np.dot`` (attribute chains of names), else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None

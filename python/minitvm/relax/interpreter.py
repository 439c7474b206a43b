"""The Relax reference interpreter (stage 4), from Python.

:func:`interpret` runs a Relax function of an IRModule (or a :class:`~minitvm.relax.Function`)
directly, binding by binding, with every operator computed by the stage-1 lownumpy reference
ops, ``R.call_tir`` by the TIR interpreter and ``R.call_dps_packed`` / ``R.call_pure_packed`` by
global functions (Python functions registered with ``tvm.register_func`` receive NDArrays).
It is the reference later stages are compared with. The work is done in C++
(``"relax.Interpret"``); see ``minitvm/relax/interpreter.h``.

Values: tensors are :class:`~minitvm.nd.NDArray`, tuples come back as Python tuples, shapes
as :class:`ShapeTuple` (a sequence of ints), PrimValues as int/float/bool.
"""
from collections.abc import Sequence

import numpy as _np

from .. import nd as _nd
from .._ffi.registry import register_object
from ..runtime import Object
from ..runtime.container import Array
from . import _ffi_api

__all__ = ["interpret", "ShapeTuple"]


@register_object("runtime.ShapeTuple")
class ShapeTuple(Object, Sequence):
    """A shape as a run-time value (what ``R.shape([n, 4])`` evaluates to): a sequence of ints
    that compares equal to a tuple or list of the same ints."""

    def __init__(self, values):  # pylint: disable=super-init-not-called
        self.__init_handle_by_constructor__(_ffi_api.ShapeTuple, [int(v) for v in values])

    def _values(self):
        return tuple(int(v) for v in _ffi_api.ShapeTupleValues(self))

    def __len__(self):
        return len(self._values())

    def __getitem__(self, index):
        return self._values()[index]

    def __iter__(self):
        return iter(self._values())

    def __eq__(self, other):
        if isinstance(other, (list, tuple, ShapeTuple)):
            return self._values() == tuple(other)
        return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self._values())

    def __repr__(self):
        return f"ShapeTuple({list(self._values())})"


def _to_arg(value):
    """A Python argument as the interpreter takes it: arrays become NDArrays, lists and tuples
    Arrays (of converted values); NDArrays, numbers, strings and shapes pass through."""
    if isinstance(value, _nd.NDArray):
        return value
    if isinstance(value, _np.ndarray):
        # (not ascontiguousarray: it would turn a 0-d array into a 1-d one)
        return _nd.array(value if value.flags.c_contiguous else value.copy(order="C"))
    if isinstance(value, _np.generic):
        return value.item()
    if hasattr(value, "__dlpack__") and not isinstance(value, (Object, str)):
        # torch tensors and other DLPack producers: shares memory, no copy
        return _nd.from_dlpack(value)
    if isinstance(value, ShapeTuple):
        return value
    if isinstance(value, (list, tuple)):
        return [_to_arg(v) for v in value]
    return value


def _from_result(value):
    """Tuples (C++ Arrays) come back as Python tuples, recursively (without Python recursion,
    so deeply nested tuples do not hit the recursion limit)."""
    if not isinstance(value, Array):
        return value
    stack = [(list(value), [])]  # (fields, converted fields) of each open tuple
    while True:
        fields, out = stack[-1]
        if len(out) < len(fields):
            v = fields[len(out)]
            if isinstance(v, Array):
                stack.append((list(v), []))
            else:
                out.append(v)
            continue
        stack.pop()
        if not stack:
            return tuple(out)
        stack[-1][1].append(tuple(out))


def interpret(mod, func_name_or_function="main", *args, **kwargs):
    """Run a Relax function with the reference interpreter.

    Parameters
    ----------
    mod : IRModule or None
        The module; it supplies the function (by name) and what it calls (``R.call_tir``
        targets, other Relax functions). May be None when a Function is given.
    func_name_or_function : str or relax.Function
        The function to run: a name in ``mod`` (default ``"main"``) or a Function.
    *args
        The arguments: numpy arrays or NDArrays for tensors, tuples/lists for tuples,
        ints/floats for PrimValues, tuples of ints or :class:`ShapeTuple` for shapes.

    Returns
    -------
    NDArray, tuple, ShapeTuple, int, float or bool
        The result; a Relax tuple is returned as a Python tuple.

    Raises
    ------
    TypeError
        A wrong argument count or kind of argument.
    ValueError
        A shape or dtype that does not match a parameter or a ``match_cast``, an unknown
        packed function, ...
    """
    from .expr import Function  # pylint: disable=import-outside-toplevel
    from .. import error as _error  # pylint: disable=import-outside-toplevel

    if kwargs:
        raise _error.TypeError(
            f"relax.interpret: arguments are positional; got keyword arguments {sorted(kwargs)}")

    if isinstance(mod, Function):
        # interpret(func, x, y): the function is given in place of the module
        defaulted = isinstance(func_name_or_function, str) and func_name_or_function == "main"
        if not (defaulted and not args):
            args = (func_name_or_function,) + args
        func_name_or_function, mod = mod, None
    try:
        conv = [_to_arg(a) for a in args]
    except RecursionError:
        raise _error.ValueError("relax.interpret: an argument is nested too deeply") from None
    return _from_result(_ffi_api.Interpret(mod, func_name_or_function, *conv))

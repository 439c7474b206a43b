"""Conversions of Python values the extension does not handle itself.

The extension converts None, bool, int, float, str, minitvm objects, Devices, lists,
tuples, dicts and callables. For anything else it calls :func:`_fallback_convert`, which
turns NumPy arrays into NDArray copies and NumPy scalars into Python scalars, and returns
``NotImplemented`` for the rest (the extension then raises a TypeError naming the type).
"""
import numpy as np

from .._ffi import core
from . import _ffi_api

__all__ = ["convert"]


def convert(value):
    """The C++ value of a Python value: a list becomes an :class:`Array`, a dict a
    :class:`Map`, a callable a :class:`PackedFunc`; scalars and strings come back as they
    went in."""
    return _ffi_api.Convert(value)


def _fallback_convert(value):
    if isinstance(value, np.ndarray):
        from .ndarray import array  # pylint: disable=import-outside-toplevel

        return array(value)
    if isinstance(value, np.generic):
        return value.item()
    return NotImplemented


core.set_hooks(fallback=_fallback_convert)

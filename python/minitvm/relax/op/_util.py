"""Argument conversions shared by the ``relax.op`` modules (Python values → what C++ takes)."""
from ... import error as _error


def int_list(v, what):
    """An int, or a tuple/list of ints, as an int or a list (None stays None)."""
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        return [_int(x, what) for x in v]
    return _int(v, what)


def _int(x, what):
    if isinstance(x, bool):
        raise _error.TypeError(f"{what} must hold ints, not {x!r}")
    try:
        import numpy as _np  # pylint: disable=import-outside-toplevel

        if isinstance(x, _np.integer):
            return int(x)
    except ImportError:  # pragma: no cover
        pass
    return x


def int_arg(x, what):
    """A single integer argument (an int or a numpy integer; None stays None). Floats, bools
    and strings are refused rather than truncated."""
    if x is None:
        return None
    if isinstance(x, bool) or not _is_int(x):
        raise _error.TypeError(f"{what} must be an int, not {x!r}")
    return int(x)


def float_arg(x, what):
    """A single real-number argument, which must not be NaN."""
    if isinstance(x, bool) or not isinstance(x, (int, float)) and not _is_real(x):
        raise _error.TypeError(f"{what} must be a number, not {x!r}")
    x = float(x)
    if x != x:
        raise _error.ValueError(f"{what} must be a number, not NaN")
    return x


def _is_int(x):
    if isinstance(x, int):
        return True
    import numpy as _np  # pylint: disable=import-outside-toplevel

    return isinstance(x, _np.integer)


def _is_real(x):
    import numpy as _np  # pylint: disable=import-outside-toplevel

    return isinstance(x, (_np.integer, _np.floating))


def dtype_str(dtype):
    """A dtype as its string (None stays None)."""
    return None if dtype is None else str(dtype)


def shape_arg(shape):
    """A shape operand: an Expr as is, a tuple/list of dims as a list."""
    if isinstance(shape, tuple):
        return list(shape)
    return shape


def tensors_arg(tensors):
    """A tuple operand: an Expr as is, a tuple/list of Exprs as a list."""
    if isinstance(tensors, tuple):
        return list(tensors)
    return tensors


def sinfo_arg(sinfo):
    """One struct info or a list of them."""
    if isinstance(sinfo, tuple):
        return list(sinfo)
    return sinfo

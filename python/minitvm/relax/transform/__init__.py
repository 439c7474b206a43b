"""``relax.transform`` (stage 4): the Relax passes, as TVM's; each returns a
:class:`minitvm.transform.Pass` made in C++ (the global ``"relax.transform.<Name>"``).
"""
from ..._ffi import get_global_func as _get_global_func

__all__ = ["BindParams"]


def BindParams(func_name, params):  # noqa: N802  (TVM's name)
    """Bind the parameters of function ``func_name`` to constants.

    ``params`` maps parameter names (str) or the parameter ``relax.Var`` objects to arrays
    (NumPy arrays or NDArrays). Symbolic dimensions of the function take the arrays' sizes.
    """
    from ... import nd as _nd  # pylint: disable=import-outside-toplevel

    bound = {}
    for key, value in dict(params).items():
        if not isinstance(value, _nd.NDArray):
            value = _nd.array(value)
        bound[key] = value
    return _get_global_func("relax.transform.BindParams")(str(func_name), bound)

"""Helpers for writing tests against minitvm, under TVM's names (``tvm.testing``).

Only what test code commonly needs is here:

* :func:`main` runs pytest on the calling file (``if __name__ == "__main__": tvm.testing.main()``).
* :func:`parameter`, :func:`parameters` and :func:`fixture` declare pytest fixtures at module
  (or class) level; a test asks for them by the variable name they are assigned to.
* :func:`assert_allclose` compares arrays (NDArrays or NumPy arrays) with tolerances.
* :class:`CompareBeforeAfter` is a base class for "transform ``before``, compare with
  ``expected``" test classes.
* ``requires_*`` markers skip a test when the feature is not available; minitvm runs on the CPU
  (LLVM) only, so the GPU ones always skip.
"""
import inspect
import sys

import numpy as np

__all__ = [
    "main",
    "parameter",
    "parameters",
    "fixture",
    "assert_allclose",
    "CompareBeforeAfter",
    "requires_llvm",
    "requires_gpu",
    "requires_cuda",
    "uses_gpu",
    "skip_if_32bit",
]


def _pytest():
    import pytest  # pylint: disable=import-outside-toplevel

    return pytest


def main():
    """Run pytest on the file that calls this, passing on the command line's arguments."""
    caller = sys._getframe(1)  # pylint: disable=protected-access
    test_file = inspect.getsourcefile(caller)
    sys.exit(_pytest().main([test_file] + sys.argv[1:]))


def assert_allclose(actual, desired, rtol=1e-7, atol=1e-7):
    """Assert that two arrays have the same shape and close values.

    NDArrays are converted with ``numpy()``. Unlike ``numpy.testing.assert_allclose`` the shapes
    must match exactly (no broadcasting).
    """
    actual = _as_numpy(actual)
    desired = _as_numpy(desired)
    np.testing.assert_allclose(actual.shape, desired.shape)
    np.testing.assert_allclose(actual, desired, rtol=rtol, atol=atol, verbose=True)


def _as_numpy(value):
    if hasattr(value, "numpy") and not isinstance(value, np.ndarray):
        value = value.numpy()
    return np.asanyarray(value)


def parameter(*values, ids=None, by_dict=None):
    """A parametrized fixture: each test that uses it runs once per value.

    Assign the result to a module- or class-level name; tests take an argument of that name::

        use_block_name = tvm.testing.parameter(by_dict={"block_obj": False, "block_name": True})

    ``by_dict`` maps test ids to values (it cannot be combined with ``values`` or ``ids``).
    """
    if by_dict is not None:
        if values or ids is not None:
            raise RuntimeError("by_dict cannot be combined with positional values or ids")
        ids = [str(key) for key in by_dict.keys()]
        values = list(by_dict.values())
    values = list(values)

    # `*_cls` lets the fixture be defined in a class body too (pytest then passes `self`).
    def as_fixture(*_cls, request):
        return request.param

    result = _pytest().fixture(params=values, ids=ids)(as_fixture)
    return result


def parameters(*value_sets, ids=None):
    """Several parameters that vary together: returns one fixture per position.

    ``a, b = tvm.testing.parameters((1, 2), (3, 4))`` at module level runs each test that uses
    ``a`` or ``b`` twice, with ``(a, b) = (1, 2)`` and then ``(3, 4)``.
    """
    pytest = _pytest()
    if not value_sets:
        raise ValueError("parameters() needs at least one set of values")
    width = len(value_sets[0])
    if any(len(s) != width for s in value_sets):
        raise ValueError("all value sets given to parameters() must have the same length")

    _PARAMETER_SET_COUNTER[0] += 1
    set_name = f"_tvm_testing_parameter_set_{_PARAMETER_SET_COUNTER[0]}"

    def value_set(*_cls, request):
        return request.param

    # pytest finds fixtures by scanning the module: publish the shared one in the caller's.
    caller_globals = sys._getframe(1).f_globals  # pylint: disable=protected-access
    caller_globals[set_name] = pytest.fixture(name=set_name, params=list(value_sets), ids=ids)(
        value_set
    )
    return [_item_fixture(set_name, index) for index in range(width)]


_PARAMETER_SET_COUNTER = [0]


def _item_fixture(set_name, index):
    namespace = {}
    # The fixture's argument must be named after the shared fixture, so build it by name.
    exec(  # pylint: disable=exec-used
        f"def item(*_cls, {set_name}):\n    return {set_name}[{index}]\n", namespace
    )
    return _pytest().fixture(namespace["item"])


def fixture(func=None, *, cache_return_value=False):
    """A pytest fixture (``@tvm.testing.fixture`` or ``@tvm.testing.fixture(...)``).

    ``cache_return_value`` is accepted for TVM compatibility; minitvm does not cache.
    """

    def wrap(f):
        return _pytest().fixture(f)

    if func is not None:
        return wrap(func)
    return wrap


def _skip_marker(reason):
    return _pytest().mark.skip(reason=reason)


def _llvm_enabled():
    try:
        from .. import target as _target  # pylint: disable=import-outside-toplevel

        return hasattr(_target, "Target")
    except ImportError:  # pragma: no cover
        return False


def requires_llvm(func):
    """Run the test only where the LLVM (CPU) target is available (always, in minitvm)."""
    if _llvm_enabled():
        return func
    return _skip_marker("LLVM target not available")(func)


def requires_gpu(func):
    """Skip: minitvm has no GPU targets."""
    return _skip_marker("minitvm has no GPU targets")(func)


def requires_cuda(func):
    """Skip: minitvm has no CUDA target."""
    return _skip_marker("minitvm has no CUDA target")(func)


def uses_gpu(func):
    """Mark a test that may use a GPU; in minitvm it runs on the CPU targets only."""
    return _pytest().mark.gpu(func)


def skip_if_32bit(reason="does not run on 32-bit platforms"):
    """Skip a test on 32-bit hosts."""

    def decorator(func):
        if sys.maxsize <= 2**32:
            return _skip_marker(reason)(func)
        return func

    return decorator


class CompareBeforeAfter:
    """Base class for tests that transform ``before`` and compare the result with ``expected``.

    A subclass defines, as class attributes or methods:

    * ``transform``: a method returning the transform, a callable taking and returning an
      IRModule (or a pytest fixture giving one);
    * ``before``: a PrimFunc or IRModule, a method (first argument ``self``) returning one, or a
      plain function written in TVMScript (``@T.prim_func`` in a class body leaves the function
      unparsed; it is parsed here);
    * ``expected``: the same forms as ``before``, or an exception class that the transform
      must raise.

    The subclass then gets ``test_compare``. A PrimFunc is compared as the ``"main"`` function
    of an IRModule, with ``"main"`` as its global symbol.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        pytest = _pytest()
        for name in ("before", "expected", "transform"):
            if name not in cls.__dict__:
                continue
            value = cls.__dict__[name]
            if _is_pytest_fixture(value):
                continue
            setattr(cls, name, pytest.fixture(name=name)(_make_getter(value, name)))

    def test_compare(self, before, expected, transform):
        """Apply ``transform`` to ``before`` and compare with ``expected``."""
        from .. import ir as _ir  # pylint: disable=import-outside-toplevel

        before_mod = _as_module(before)
        if inspect.isclass(expected) and issubclass(expected, Exception):
            with _pytest().raises(expected):
                after = transform(before_mod)
                _pytest().fail(
                    f"expected {expected.__name__} from the transform, but it returned\n{after}"
                )
            return
        after = transform(before_mod)
        _ir.assert_structural_equal(_as_module(after), _as_module(expected))


def _is_pytest_fixture(value):
    return hasattr(value, "_pytestfixturefunction") or hasattr(value, "_fixture_function_marker")


def _make_getter(value, name):
    if name == "expected" and inspect.isclass(value) and issubclass(value, Exception):

        def getter(self):  # pylint: disable=unused-argument
            return value

    elif inspect.isfunction(value) and _first_param(value) == "self":

        def getter(self):
            return _normalize_ir(value(self))

    elif inspect.isfunction(value) and name != "transform":
        # A TVMScript function left unparsed by @T.prim_func in the class body.
        def getter(self):  # pylint: disable=unused-argument
            from ..script import tir as T  # pylint: disable=import-outside-toplevel,invalid-name

            return _normalize_ir(T.prim_func(value))

    else:

        def getter(self):  # pylint: disable=unused-argument
            return _normalize_ir(value) if name != "transform" else value

    return getter


def _first_param(func):
    params = list(inspect.signature(func).parameters)
    return params[0] if params else None


def _is_prim_func(value):
    from ..tir import PrimFunc  # pylint: disable=import-outside-toplevel

    return isinstance(value, PrimFunc)


def _normalize_ir(value):
    """A PrimFunc gets ``"main"`` as its global symbol (it will be the module's ``main``)."""
    if _is_prim_func(value):
        return value.with_attr("global_symbol", "main")
    return value


def _as_module(value):
    from ..ir import IRModule  # pylint: disable=import-outside-toplevel

    if _is_prim_func(value):
        return IRModule({"main": _normalize_ir(value)})
    return value

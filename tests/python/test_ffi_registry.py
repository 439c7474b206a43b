"""The global function registry from Python (stage 1)."""
import pytest

import minitvm
from minitvm._ffi import registry


@pytest.fixture
def scratch_names():
    names = []
    yield names
    for name in names:
        minitvm._ffi.remove_global_func(name)


def test_get_global_func_calls_cpp():
    add = minitvm.get_global_func("testing.ffi.AddInts")
    assert isinstance(add, minitvm.runtime.PackedFunc)
    assert add(2, 3) == 5
    assert add(-(2**40), 1) == -(2**40) + 1


def test_missing_function():
    with pytest.raises(minitvm.error.ValueError, match='no global function named "no.such.func"'):
        minitvm.get_global_func("no.such.func")
    assert minitvm.get_global_func("no.such.func", allow_missing=True) is None


def test_list_global_func_names():
    names = minitvm.list_global_func_names()
    assert names == sorted(names)
    for name in ["runtime.ObjectRepr", "runtime.NDArrayEmpty", "runtime.Array", "testing.ffi.Echo"]:
        assert name in names
    assert registry.list_global_func_names() == names
    assert minitvm._ffi.registry.list_global_func_names is registry.list_global_func_names


def test_register_as_decorator_call_and_bare(scratch_names):
    scratch_names += ["test.reg.deco", "test.reg.call", "reg_bare_name"]

    @minitvm.register_func("test.reg.deco")
    def deco(x):
        return x * 2

    assert deco(4) == 8  # the decorator returns the function itself
    minitvm.register_func("test.reg.call", lambda a, b: a - b)

    @minitvm.register_func
    def reg_bare_name():
        return "bare"

    assert minitvm.get_global_func("test.reg.deco")(21) == 42
    assert minitvm.get_global_func("test.reg.call")(5, 3) == 2
    assert minitvm.get_global_func("reg_bare_name")() == "bare"
    assert "test.reg.deco" in minitvm.list_global_func_names()


def test_register_twice_needs_override(scratch_names):
    scratch_names.append("test.reg.twice")
    minitvm.register_func("test.reg.twice", lambda: 1)
    with pytest.raises(minitvm.error.RuntimeError,
                       match='"test.reg.twice" is already registered .pass override=True'):
        minitvm.register_func("test.reg.twice", lambda: 2)
    assert minitvm.get_global_func("test.reg.twice")() == 1
    minitvm.register_func("test.reg.twice", lambda: 3, override=True)
    assert minitvm.get_global_func("test.reg.twice")() == 3


def test_register_a_packed_func_under_a_new_name(scratch_names):
    scratch_names.append("test.reg.alias")
    minitvm.register_func("test.reg.alias", minitvm.get_global_func("testing.ffi.AddInts"))
    assert minitvm.get_global_func("test.reg.alias")(1, 1) == 2


def test_register_non_callable():
    with pytest.raises(minitvm.error.TypeError, match="must be given a callable, not 'int'"):
        minitvm.register_func("test.reg.bad", 3)
    with pytest.raises(minitvm.error.TypeError, match="the name must be a str"):
        minitvm.register_func(3, lambda: 0)


def test_remove_global_func(scratch_names):
    minitvm.register_func("test.reg.remove", lambda: 0)
    assert minitvm._ffi.remove_global_func("test.reg.remove") is True
    assert minitvm.get_global_func("test.reg.remove", allow_missing=True) is None
    assert minitvm._ffi.remove_global_func("test.reg.remove") is False


def test_init_api_is_lazy(scratch_names):
    from minitvm.runtime import _ffi_api

    assert _ffi_api.NDArrayEmpty.same_as(minitvm.get_global_func("runtime.NDArrayEmpty"))
    assert "NDArrayShape" in dir(_ffi_api)
    scratch_names.append("runtime.LateAddition")
    minitvm.register_func("runtime.LateAddition", lambda: "late")
    assert _ffi_api.LateAddition() == "late"
    with pytest.raises(AttributeError, match='no global function "runtime.Nope"'):
        _ffi_api.Nope  # pylint: disable=pointless-statement

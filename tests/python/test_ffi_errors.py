"""Errors across the FFI: kinds become classes, messages name the thing at fault (stage 1)."""
import builtins
import os

import numpy as np
import pytest

import minitvm
from minitvm import error

raise_ = minitvm.get_global_func("testing.ffi.Raise")
add = minitvm.get_global_func("testing.ffi.AddInts")


def test_wrong_argument_count():
    with pytest.raises(error.TypeError,
                       match=r"^testing.ffi.AddInts: expects 2 arguments but 1 was given$"):
        add(1)
    with pytest.raises(builtins.TypeError, match="but 3 were given"):
        add(1, 2, 3)


def test_wrong_argument_type():
    with pytest.raises(error.TypeError,
                       match=r"^testing.ffi.AddInts: argument 1: expected int but got str$"):
        add(1, "2")
    with pytest.raises(error.TypeError, match="argument 0: expected runtime.NDArray but got int"):
        minitvm.runtime._ffi_api.NDArrayShape(3)


def test_keyword_arguments_are_refused():
    with pytest.raises(error.TypeError, match="positional arguments only"):
        add(1, b=2)


def test_unknown_global():
    with pytest.raises(error.ValueError, match='no global function named "nope.nothing"'):
        minitvm.get_global_func("nope.nothing")


@pytest.mark.parametrize(
    "kind, builtin",
    [
        ("ValueError", builtins.ValueError),
        ("TypeError", builtins.TypeError),
        ("IndexError", builtins.IndexError),
        ("AttributeError", builtins.AttributeError),
        ("RuntimeError", builtins.RuntimeError),
        ("InternalError", builtins.RuntimeError),
        ("ParseError", builtins.ValueError),
        ("ScheduleError", builtins.ValueError),
    ],
)
def test_kinds_become_classes(kind, builtin):
    with pytest.raises(minitvm.TVMError) as info:
        raise_(kind, f"a {kind}")
    exc = info.value
    assert type(exc) is getattr(error, kind)
    assert type(exc).__name__ == kind
    assert isinstance(exc, builtin)
    assert str(exc) == f"a {kind}"
    assert type(exc).error_kind == kind


def test_dotted_kinds_make_cached_subclasses():
    with pytest.raises(error.ScheduleError) as first:
        raise_("ScheduleError.LoopsNotAChainError", "not a chain")
    with pytest.raises(error.ScheduleError) as second:
        raise_("ScheduleError.LoopsNotAChainError", "again")
    cls = type(first.value)
    assert cls is type(second.value)
    assert cls.__name__ == "LoopsNotAChainError"
    assert issubclass(cls, error.ScheduleError) and issubclass(cls, builtins.ValueError)
    assert cls is error.get_error_class("ScheduleError.LoopsNotAChainError")
    assert cls.error_kind == "ScheduleError.LoopsNotAChainError"


def test_unknown_and_builtin_kinds():
    with pytest.raises(minitvm.TVMError) as info:
        raise_("FancyError", "fancy")
    assert type(info.value).__name__ == "FancyError"
    assert type(info.value).__bases__ == (minitvm.TVMError,)
    with pytest.raises(ZeroDivisionError):
        raise_("ZeroDivisionError", "x/0")
    with pytest.raises(NotImplementedError):
        raise_("NotImplementedError", "later")


def test_register_error():
    @error.register_error("ScheduleError.TestOnlyError")
    class TestOnlyError(error.ScheduleError):
        pass

    with pytest.raises(TestOnlyError, match="registered"):
        raise_("ScheduleError.TestOnlyError", "registered")
    with pytest.raises(error.TypeError, match="is not a subclass of TVMError"):
        error.register_error("X", builtins.ValueError)


def test_strings_that_are_not_utf8():
    # Undecodable bytes (as in file names) travel as surrogate escapes and come back intact;
    # in an error message they print as the replacement character.
    echo = minitvm.get_global_func("testing.ffi.Echo")
    assert echo("caf\udcc3") == "caf\udcc3"
    with pytest.raises(error.ValueError, match="^caf\ufffd$"):
        raise_("ValueError", "caf\udcc3")


def test_truncated_npy_file(tmp_path, require_global):
    require_global("runtime.LoadNpy")
    path = tmp_path / "weights.npy"
    np.save(path, np.arange(100, dtype="float32"))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(error.ValueError, match="weights.npy"):
        minitvm.get_global_func("runtime.LoadNpy")(str(path))


def test_load_module_without_loader(tmp_path):
    missing = tmp_path / "missing.so"
    with pytest.raises(error.ValueError, match='load_module: no such file ".*missing.so"'):
        minitvm.runtime.load_module(missing)
    present = tmp_path / "lib.so"
    present.write_bytes(b"")
    if minitvm.get_global_func("runtime.ModuleLoadFromFile", allow_missing=True) is None:
        with pytest.raises(error.RuntimeError, match="no module loader is registered"):
            minitvm.runtime.load_module(str(present))


def test_extension_missing_message(monkeypatch):
    monkeypatch.setenv("MINITVM_BUILD_DIR", os.path.join("/nonexistent", "build"))
    assert minitvm.libinfo.find_extension_dir() is None
    assert "point MINITVM_BUILD_DIR at your build folder" in minitvm.libinfo.missing_extension_message()

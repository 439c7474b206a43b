"""Runtime modules from Python: lookup, entry function, imports, timing (stage 1)."""
import numpy as np
import pytest

import minitvm
from minitvm import nd
from minitvm.runtime import Module, functions_module


def make_module():
    add = minitvm.get_global_func("testing.ffi.AddInts")
    return functions_module({"add": add, "double": lambda x: 2 * x}, entry_name="add")


def test_entry_and_lookup():
    mod = make_module()
    assert isinstance(mod, Module)
    assert mod.kind == "functions" and mod.type_key == "functions"
    assert mod.entry_name == "add"
    assert mod(2, 3) == 5
    assert mod["double"](21) == 42
    assert mod.function_names == ["add", "double"]
    assert mod.implements_function("double") and not mod.implements_function("nope")
    assert repr(mod) == "Module(kind='functions', entry_name='add', functions=['add', 'double'])"


def test_missing_function():
    mod = make_module()
    with pytest.raises(minitvm.error.AttributeError,
                       match='module of kind functions has no function "nope"'):
        mod["nope"]  # pylint: disable=pointless-statement
    with pytest.raises(AttributeError, match='has no function "nope"'):
        mod.get_function("nope")
    with pytest.raises(minitvm.error.TypeError, match="looked up by str"):
        mod[0]  # pylint: disable=pointless-statement


def test_imports_are_searched():
    mod = make_module()
    other = functions_module({"neg": lambda x: -x})
    assert mod.imported_modules == []
    mod.import_module(other)
    assert [m.same_as(other) for m in mod.imported_modules] == [True]
    assert mod["neg"](3) == -3
    with pytest.raises(AttributeError):
        mod.get_function("neg")  # query_imports=False
    assert mod.get_function("neg", query_imports=True)(1) == -1


def test_no_source_and_no_export(tmp_path):
    mod = make_module()
    with pytest.raises(minitvm.error.ValueError,
                       match='a functions module has no source in format ""'):
        mod.get_source()
    with pytest.raises(minitvm.error.ValueError, match="a functions module cannot be saved"):
        mod.export_library(tmp_path / "lib.so")


def test_time_evaluator():
    calls = []
    mod = functions_module({"work": lambda a: calls.append(1)})
    timer = mod.time_evaluator("work", minitvm.cpu(), number=3, repeat=4)
    result = timer(nd.empty((2,)))
    assert len(result.results) == 4
    assert all(r >= 0 for r in result.results)
    assert result.min <= result.median <= result.max
    assert result.mean == pytest.approx(np.mean(result.results))
    assert result.std >= 0
    assert len(calls) == 1 + 3 * 4  # one warm-up call, then number * repeat
    assert repr(result).startswith("BenchmarkResult(mean=")


def test_time_evaluator_min_repeat_ms():
    mod = functions_module({"f": lambda: None})
    result = mod.time_evaluator("f", minitvm.cpu(), number=1, repeat=1, min_repeat_ms=5)()
    assert len(result.results) == 1


def test_time_evaluator_errors():
    mod = make_module()
    with pytest.raises(minitvm.error.AttributeError, match='no function "nope"'):
        mod.time_evaluator("nope", minitvm.cpu())
    with pytest.raises(minitvm.error.ValueError, match="number and repeat must be >= 1"):
        mod.time_evaluator("add", minitvm.cpu(), number=0)(1, 2)

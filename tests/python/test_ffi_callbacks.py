"""Python callables called from C++: registered functions and callable arguments (stage 1)."""
import gc
import threading
import weakref

import numpy as np
import pytest

import minitvm
from minitvm import nd

apply = minitvm.get_global_func("testing.ffi.Apply")
call_with_array = minitvm.get_global_func("testing.ffi.CallWithArray")
use_count = minitvm.get_global_func("runtime.ObjectUseCount")


@pytest.fixture
def scratch_names():
    names = []
    yield names
    for name in names:
        minitvm._ffi.remove_global_func(name)


def test_callable_argument_is_called_back():
    assert apply(lambda x, y: x * y, 6, 7) == 42
    assert apply(lambda: None) is None
    assert apply(lambda s: s.upper(), "abc") == "ABC"
    assert apply(lambda: [1, {"k": 2}]) == [1, {"k": 2}]


def test_nested_calls_cpp_python_cpp_python():
    add = minitvm.get_global_func("testing.ffi.AddInts")
    inner = lambda x: apply(lambda y: add(y, 1), x) * 10  # noqa: E731
    assert apply(inner, 4) == 50


def test_python_func_writes_into_cpp_array_numpy_view(scratch_names):
    scratch_names.append("test.cb.fill_view")

    @minitvm.register_func("test.cb.fill_view")
    def fill(arr):
        assert isinstance(arr, nd.NDArray)
        view = arr.numpy_view()
        view[:] = np.arange(view.size, dtype=view.dtype).reshape(view.shape)

    # called from C++: C++ allocates, Python writes, C++ returns the same array
    out = call_with_array("test.cb.fill_view", [2, 3], "float32")
    np.testing.assert_array_equal(out.numpy(), np.arange(6).reshape(2, 3))
    # called from Python through the registry: the argument aliases the caller's array
    mine = nd.array(np.zeros((2, 3), "float32"))
    minitvm.get_global_func("test.cb.fill_view")(mine)
    np.testing.assert_array_equal(mine.numpy(), np.arange(6).reshape(2, 3))


def test_python_func_writes_with_copyfrom(scratch_names):
    scratch_names.append("test.cb.copyfrom")
    minitvm.register_func("test.cb.copyfrom", lambda arr: arr.copyfrom(np.full(arr.shape, 4, "int32")))
    out = call_with_array("test.cb.copyfrom", [3], "int32")
    assert out.numpy().tolist() == [4, 4, 4]


def test_python_func_writes_through_torch(scratch_names, torch):
    scratch_names.append("test.cb.torch")

    @minitvm.register_func("test.cb.torch")
    def linear(x):  # the course's "env.linear" pattern: compute in torch, write in place
        t = torch.from_dlpack(x)
        t.copy_(torch.ones_like(t) * 2)

    out = call_with_array("test.cb.torch", [4], "float32")
    assert out.numpy().tolist() == [2, 2, 2, 2]


def test_exception_in_callback_keeps_class_and_message(scratch_names):
    scratch_names.append("test.cb.raise")

    @minitvm.register_func("test.cb.raise")
    def bad(arr):
        raise ValueError(f"bad array of shape {arr.shape}")

    with pytest.raises(minitvm.error.ValueError, match=r"^bad array of shape \(2,\)$"):
        call_with_array("test.cb.raise", [2], "float32")
    with pytest.raises(ValueError):
        minitvm.get_global_func("test.cb.raise")(nd.empty((2,)))


def test_exception_classes_survive_a_round_trip():
    def key_error():
        raise KeyError("missing")

    with pytest.raises(KeyError) as info:
        apply(key_error)
    assert isinstance(info.value, minitvm.TVMError)
    assert type(info.value).__name__ == "KeyError"

    def zero():
        return 1 // 0

    with pytest.raises(ZeroDivisionError, match="integer division or modulo by zero"):
        apply(zero)

    class MyOwnError(Exception):
        pass

    def own():
        raise MyOwnError("custom")

    with pytest.raises(minitvm.TVMError, match="custom") as info:
        apply(own)
    assert type(info.value).error_kind == "MyOwnError"


def test_cpp_error_inside_callback_keeps_its_dotted_kind():
    raise_ = minitvm.get_global_func("testing.ffi.Raise")
    with pytest.raises(minitvm.error.ScheduleError) as info:
        apply(lambda: raise_("ScheduleError.LoopsNotAChainError", "loops i, j are not a chain"))
    assert type(info.value).__name__ == "LoopsNotAChainError"
    assert str(info.value) == "loops i, j are not a chain"


def test_bad_return_value_is_a_type_error():
    with pytest.raises(minitvm.error.TypeError, match="cannot convert a value of type 'set'"):
        apply(lambda: {1})


def test_numpy_return_value_becomes_ndarray():
    out = apply(lambda: np.ones(2, "int8"))
    assert isinstance(out, nd.NDArray) and out.numpy().tolist() == [1, 1]


def test_no_reference_leaks_through_callbacks():
    a = nd.empty((4,))
    base = use_count(a)
    for _ in range(10):
        assert apply(lambda x: x, a).same_as(a)
    gc.collect()
    assert use_count(a) == base


def test_callable_is_released_when_cpp_drops_it(scratch_names):
    class Callback:
        def __call__(self):
            return 1

    cb = Callback()
    ref = weakref.ref(cb)
    minitvm.register_func("test.cb.lifetime", cb)
    del cb
    gc.collect()
    assert ref() is not None  # the registry holds it
    assert minitvm.get_global_func("test.cb.lifetime")() == 1
    minitvm._ffi.remove_global_func("test.cb.lifetime")
    gc.collect()
    assert ref() is None


def test_callbacks_from_several_python_threads(scratch_names):
    scratch_names.append("test.cb.square")
    minitvm.register_func("test.cb.square", lambda x: x * x)
    f = minitvm.get_global_func("test.cb.square")
    results = {}

    def work(i):
        results[i] = sum(apply(f, j) for j in range(200))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {i: sum(j * j for j in range(200)) for i in range(4)}

"""Values crossing the FFI: scalars, strings, objects, containers (stage 1)."""
import gc

import numpy as np
import pytest

import minitvm
from minitvm.runtime import Array, Map, Object

echo = minitvm.get_global_func("testing.ffi.Echo")


@pytest.mark.parametrize("value", [None, True, False, 0, -7, 2**62, 1.5, -0.0, "", "héllo ✓"])
def test_scalars_and_strings_round_trip(value):
    out = echo(value)
    assert out == value and type(out) is type(value)


def test_int_out_of_range():
    with pytest.raises(minitvm.error.ValueError, match="integer does not fit in int64"):
        echo(2**63)


def test_string_with_nul_is_refused():
    with pytest.raises(minitvm.error.ValueError, match="cannot contain NUL"):
        echo("a\0b")


def test_numpy_scalars_become_python_scalars():
    assert echo(np.int32(3)) == 3 and type(echo(np.int32(3))) is int
    assert type(echo(np.float32(0.5))) is float
    assert echo(np.bool_(True)) is True


def test_list_becomes_array():
    arr = echo([1, 2.5, "x", None, [3, 4]])
    assert isinstance(arr, Array) and arr.type_key == "runtime.Array"
    assert len(arr) == 5
    assert arr[0] == 1 and arr[-1] == [3, 4] and arr[3] is None
    assert arr[1:3] == [2.5, "x"]
    assert list(arr)[:3] == [1, 2.5, "x"]
    assert arr == [1, 2.5, "x", None, [3, 4]]
    assert 2.5 in arr
    assert repr(arr) == "[1, 2.5, 'x', None, [3, 4]]"
    assert echo(()) == []


def test_array_index_errors():
    arr = echo([1, 2])
    with pytest.raises(minitvm.error.IndexError, match="array index 2 out of range for size 2"):
        arr[2]  # pylint: disable=pointless-statement
    with pytest.raises(IndexError):
        arr[-3]  # pylint: disable=pointless-statement
    with pytest.raises(minitvm.error.TypeError, match="Array indices must be integers"):
        arr["a"]  # pylint: disable=pointless-statement


def test_dict_becomes_map():
    m = echo({"b": 1, "a": [1, 2], 3: "three"})
    assert isinstance(m, Map) and len(m) == 3
    assert list(m.keys()) == ["b", "a", 3]  # insertion order
    assert m["a"] == [1, 2] and m[3] == "three"
    assert "b" in m and "z" not in m
    assert m.get("z", 0) == 0
    assert m == {"b": 1, "a": [1, 2], 3: "three"}
    with pytest.raises(KeyError, match="key 'z' is not in the map"):
        m["z"]  # pylint: disable=pointless-statement


def test_map_with_object_keys():
    a, b = minitvm.nd.empty((1,)), minitvm.nd.empty((1,))
    m = echo({a: "a", b: "b"})
    assert m[a] == "a" and m[b] == "b"


def test_objects_keep_identity():
    a = minitvm.nd.empty((2,))
    b = echo(a)
    assert b.same_as(a) and b.handle == a.handle
    arr = echo([a, a])
    assert arr[0].same_as(arr[1])


def test_numpy_array_argument_is_copied_to_an_ndarray():
    src = np.arange(3, dtype="float32")
    out = echo(src)
    assert isinstance(out, minitvm.nd.NDArray)
    src[0] = 9
    assert out.numpy().tolist() == [0, 1, 2]


def test_unconvertible_argument():
    with pytest.raises(minitvm.error.TypeError,
                       match="cannot convert argument 1 of type 'set' to a minitvm value"):
        minitvm.get_global_func("testing.ffi.AddInts")(1, {2})
    with pytest.raises(TypeError, match="of type 'object'"):
        echo([object()])


def test_cyclic_list_is_refused():
    cyclic = []
    cyclic.append(cyclic)
    with pytest.raises(minitvm.error.ValueError, match="nested too deeply"):
        echo(cyclic)


def test_convert():
    arr = minitvm.runtime.convert([1, 2])
    assert isinstance(arr, Array)
    assert isinstance(minitvm.runtime.convert(lambda: 1), minitvm.runtime.PackedFunc)


# ---- node objects: fields, repr, classes by type key --------------------------------------

make_node = minitvm.get_global_func("testing.ffi.MakeNode")
make_derived = minitvm.get_global_func("testing.ffi.MakeDerivedNode")


def test_unregistered_node_is_a_generic_object():
    child = make_node("leaf", 1, "int8", None)
    node = make_node("root", 7, "float32x4", child)
    assert type(node) is Object
    assert node.type_key == "testing.FfiNode"
    assert node.name == "root" and node.value == 7 and node.scale == 1.0
    assert node.dtype == "float32x4" and isinstance(node.dtype, minitvm.DataType)
    assert node.child.same_as(child) and node.child.child is None
    assert {"name", "value", "scale", "dtype", "child"} <= set(dir(node))
    assert repr(node) == (
        'testing.FfiNode(name="root", value=7, scale=1, dtype=float32x4, '
        'child=testing.FfiNode(name="leaf", value=1, scale=1, dtype=int8, child=None))'
    )
    assert str(node) == repr(node)


def test_missing_field():
    node = make_node("n", 0, "int32", None)
    with pytest.raises(minitvm.error.AttributeError, match='testing.FfiNode has no field "nope"'):
        node.nope  # pylint: disable=pointless-statement
    assert not hasattr(node, "nope")
    assert not hasattr(node, "_private")


def test_registered_class_and_derived_types():
    class_cache = minitvm._ffi.registry._CLASS_CACHE

    @minitvm.register_object("testing.FfiNode")
    class FfiNode(Object):
        def __init__(self, name, value, dtype="int32", child=None):
            self.__init_handle_by_constructor__(make_node, name, value, dtype, child)

        def describe(self):
            return f"{self.name}={self.value}"

    try:
        node = FfiNode("x", 3)
        assert isinstance(node, FfiNode) and node.describe() == "x=3"
        assert isinstance(echo(node), FfiNode)
        # testing.FfiDerivedNode has no class of its own: its parent's class is used.
        derived = make_derived("d", 4, "int32", node)
        assert type(derived) is FfiNode and derived.type_key == "testing.FfiDerivedNode"
        assert isinstance(derived.child, FfiNode)
    finally:
        del minitvm._ffi.registry._REGISTERED["testing.FfiNode"]
        class_cache.clear()
    assert type(make_node("y", 0, "int32", None)) is Object


def test_register_object_needs_an_object_class():
    with pytest.raises(minitvm.error.TypeError, match="does not derive from Object"):
        minitvm.register_object("testing.Whatever")(int)


def test_object_lifetime_follows_python():
    count = minitvm.get_global_func("runtime.ObjectUseCount")
    node = make_node("n", 0, "int32", None)
    base = count(node)
    copies = [echo(node) for _ in range(5)]
    assert count(node) == base + 5
    del copies
    gc.collect()
    assert count(node) == base

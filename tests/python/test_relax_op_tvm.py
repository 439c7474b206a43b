"""Virtual devices (tvm.ir.VDevice) on Relax tensors: construction, equality, printing,
IsBaseOf, and struct-info inference carrying the inputs' device to the result."""
import pytest

import minitvm as tvm
from minitvm import error, relax
from minitvm.ir import VDevice
from minitvm.script import relax as R


def test_vdevice_fields_and_equality():
    v = VDevice("llvm", 1, "global")
    assert str(v.target).startswith("llvm") and v.vdevice_id == 1 and v.memory_scope == "global"
    assert VDevice("llvm") == VDevice("llvm", 0, "global")
    assert VDevice("llvm") != VDevice("llvm", 1)
    assert VDevice().target is None
    with pytest.raises(error.ValueError, match="vdevice_id"):
        VDevice("llvm", -1)


def test_tensor_struct_info_vdevice_prints_and_compares():
    v = VDevice("llvm")
    s = relax.TensorStructInfo((2, 3), "float32", v)
    assert s.vdevice == v
    assert 'vdevice="llvm:0"' in str(s)
    tvm.ir.assert_structural_equal(s, relax.TensorStructInfo((2, 3), "float32", "llvm:0"))
    assert not tvm.ir.structural_equal(s, relax.TensorStructInfo((2, 3), "float32"))
    plain = relax.TensorStructInfo((2, 3), "float32")
    assert plain.is_base_of(s) and not s.is_base_of(plain)
    other = relax.TensorStructInfo((2, 3), "float32", VDevice("llvm", 1))
    assert not s.is_base_of(other)
    with pytest.raises(error.ValueError, match="vdevice"):
        relax.TensorStructInfo((2,), "float32", "llvm:x")


def test_inference_carries_the_device():
    v = VDevice("llvm")
    x = relax.Var("x", R.Tensor((2, 3), "float32", v))
    y = relax.Var("y", R.Tensor((2, 3), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        a = bb.emit(relax.op.add(x, y))
        b = bb.emit(relax.op.nn.relu(a))
        bb.emit_func_output(b)
    tvm.ir.assert_structural_equal(b.struct_info, relax.TensorStructInfo((2, 3), "float32", v))
    z = relax.Var("z", R.Tensor((2, 3), "float32", VDevice("llvm", 1)))
    bb = relax.BlockBuilder()
    with pytest.raises(error.ValueError, match="same virtual device"):
        with bb.function("f", [x, z]):
            bb.emit_func_output(bb.emit(relax.op.add(x, z)))

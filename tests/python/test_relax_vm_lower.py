"""Tests of the Relax-to-VM lowering from Python (stage 5): the passes are reachable as
``relax.transform.<Name>`` and print through the instruments, ``vm_lowering_pipeline`` lowers
the course's MLP to calls of VM builtins, ``planned_memory`` reports the plan's figures, and
``vm_codegen`` makes the bytecode."""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import relax

from conftest import requires_global


def _mlp(batch=1):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((batch, 784), "float32"))
    w0 = relax.Var("w0", relax.TensorStructInfo((784, 256), "float32"))
    b0 = relax.Var("b0", relax.TensorStructInfo((256,), "float32"))
    w1 = relax.Var("w1", relax.TensorStructInfo((256, 10), "float32"))
    b1 = relax.Var("b1", relax.TensorStructInfo((10,), "float32"))
    with bb.function("main", [x, w0, b0, w1, b1]):
        with bb.dataflow():
            lv0 = bb.emit(relax.op.matmul(x, w0))
            lv1 = bb.emit(relax.op.add(lv0, b0))
            lv2 = bb.emit(relax.op.nn.relu(lv1))
            lv3 = bb.emit(relax.op.matmul(lv2, w1))
            out = bb.emit_output(relax.op.add(lv3, b1))
        bb.emit_func_output(out)
    return relax.transform.LegalizeOps()(bb.get())


@pytest.fixture(autouse=True)
def _needs_stage5():
    requires_global("relax.vm.LoweringPipeline")


NAMES = ["RewriteDataflowReshape", "CallTIRRewrite", "StaticPlanBlockMemory", "LowerAllocTensor", "KillAfterLastUse",
         "LowerRuntimeBuiltin", "VMShapeLower", "AttachGlobalSymbol"]


def test_passes_are_in_relax_transform():
    for name in NAMES:
        p = getattr(relax.transform, name)()
        assert isinstance(p, tvm.transform.Pass)
        assert p.info.name == name


def test_each_pass_in_turn():
    mod = _mlp()
    mod = relax.transform.CallTIRRewrite()(mod)
    text = mod.script()
    assert "R.call_tir" not in text and "R.builtin.alloc_tensor" in text
    assert relax.analysis.well_formed(mod)
    mod = relax.transform.StaticPlanBlockMemory()(mod)
    assert mod["main"].attrs["relax.memory_plan_peak_bytes"] == 2048
    assert mod.script().count("R.memory.alloc_storage") == 2
    mod = relax.transform.LowerAllocTensor()(mod)
    assert "R.builtin.alloc_tensor" not in mod.script()
    mod = relax.transform.KillAfterLastUse()(mod)
    assert mod.script().count("R.memory.kill_tensor") == 4
    mod = relax.transform.LowerRuntimeBuiltin()(mod)
    assert 'R.call_builtin_with_ctx("vm.builtin.alloc_storage"' in mod.script()
    mod = relax.transform.VMShapeLower()(mod)
    assert mod.script().count('"vm.builtin.check_tensor_info"') == 5
    mod = relax.transform.AttachGlobalSymbol()(mod)
    assert mod["main"].attrs["global_symbol"] == "main"


def test_pipeline_prints_through_instruments(capfd):
    mod = _mlp()
    with tvm.transform.PassContext(instruments=[tvm.transform.PrintBeforeAfter()]):
        lowered = relax.transform.vm_lowering_pipeline()(mod)
    assert "vm.builtin.match_shape" in lowered.script()
    printed = capfd.readouterr().out
    for name in NAMES:
        assert name in printed


@pytest.mark.parametrize("batch", [1, 64])
def test_planned_memory(batch):
    figures = relax.transform.planned_memory(_mlp(batch))
    planned, total, live = figures["main"]
    assert total == batch * (3 * 256 + 10) * 4
    assert live == batch * 2 * 256 * 4
    assert live <= planned <= total


def test_codegen_text():
    lowered = relax.transform.vm_lowering_pipeline()(_mlp())
    exe = relax.transform.vm_codegen(lowered)
    text = tvm.get_global_func("relax_vm.ExecutableAsText")(exe)
    assert text.startswith("@main(x, w0, b0, w1, b1):")
    assert "call  matmul in: %0, %1" in text
    stats = tvm.get_global_func("relax_vm.ExecutableStats")(exe)
    assert "VM functions (1): main (5 args" in stats


def test_symbolic_batch_uses_the_shape_heap():
    bb = relax.BlockBuilder()
    n = tvm.tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo((n, 4), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(relax.op.nn.relu(x))
        bb.emit_func_output(out)
    lowered = relax.transform.vm_lowering_pipeline()(relax.transform.LegalizeOps()(bb.get()))
    text = lowered.script()
    assert '"vm.builtin.alloc_shape_heap"' in text
    assert '"vm.builtin.make_shape"' in text


def _reshape_chain(kind, output_view=False):
    """main(x: (2, 3, 4)) = exp(f(exp(x))) with f a reshape to (6, 4), a permute_dims (the same
    element count, other offsets) or a strided slice; legalized."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((2, 3, 4), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.exp(x))
            if kind == "reshape":
                r = relax.op.reshape(y, (6, 4))
            elif kind == "transpose":
                r = relax.op.permute_dims(y, [0, 2, 1])
            else:
                r = relax.op.strided_slice(y, [2], [0], [2])
            if output_view:
                out = bb.emit_output(r)
            else:
                r = bb.emit(r)
                # Two more intermediates: the planner may reuse y's storage unless it knows
                # that r is a view of y.
                z = bb.emit(relax.op.exp(r))
                out = bb.emit_output(relax.op.add(bb.emit(relax.op.negative(z)), r))
        bb.emit_func_output(out)
    return relax.transform.LegalizeOps()(bb.get())


@pytest.mark.parametrize("kind,output_view,rewritten", [
    ("reshape", False, True), ("reshape", True, False), ("transpose", False, False),
    ("slice", False, False)])
def test_rewrite_dataflow_reshape(kind, output_view, rewritten):
    """A reshape kernel inside a dataflow block becomes R.reshape (a view in the VM); a dataflow
    output, a transpose and a slice stay kernels; the compiled module computes what the Relax
    interpreter does (the view keeps its input's storage alive)."""
    mod = _reshape_chain(kind, output_view)
    after = relax.transform.RewriteDataflowReshape()(mod)
    assert relax.analysis.well_formed(after)
    text = after.script()
    assert ("R.reshape(" in text) == rewritten, text
    if not rewritten:
        assert tvm.ir.structural_equal(after, mod)
    lowered = relax.transform.vm_lowering_pipeline()(mod).script()
    assert ('"vm.builtin.reshape"' in lowered) == rewritten
    ex = relax.build(mod, "llvm", relax_pipeline=None)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    for seed in range(3):
        x = tvm.nd.array(np.random.default_rng(seed).uniform(-1, 1, (2, 3, 4)).astype("float32"))
        np.testing.assert_allclose(vm["main"](x).numpy(),
                                   relax.interpret(mod, "main", x).numpy(), rtol=1e-5, atol=1e-6)

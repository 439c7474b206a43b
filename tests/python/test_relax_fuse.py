"""Tests of ``relax.transform.FuseOps`` and ``relax.transform.FuseTIR`` (stage 4).

Modules are TVMScript with PrimFuncs that carry their ``"op_pattern"``; each module is run
in the Relax reference interpreter before and after each pass on random inputs (the results
must agree), and the kernels left (``call_tir`` calls) are counted. Once LegalizeOps and
AnnotateTIROpPattern are registered, the whole chain runs on an MLP built with Relax ops.
"""
import re

import numpy as np
import pytest

import minitvm as tvm
from minitvm import relax
from minitvm.script import ir as I
from minitvm.script import relax as R
from minitvm.script import tir as T

RNG = np.random.default_rng(20251125)


@I.ir_module
class MLP:
    @T.prim_func
    def matmul(var_x: T.handle, var_w: T.handle, var_y: T.handle):
        T.func_attr({"op_pattern": 4, "tir.noalias": True})
        n = T.int64()
        k = T.int64()
        m = T.int64()
        X = T.match_buffer(var_x, (n, k))
        W = T.match_buffer(var_w, (k, m))
        Y = T.match_buffer(var_y, (n, m))
        for i, j, r in T.grid(n, m, k):
            with T.block("matmul"):
                vi, vj, vr = T.axis.remap("SSR", [i, j, r])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vr] * W[vr, vj]

    @T.prim_func
    def add(var_x: T.handle, var_b: T.handle, var_y: T.handle):
        T.func_attr({"op_pattern": 0, "tir.noalias": True})
        n = T.int64()
        m = T.int64()
        X = T.match_buffer(var_x, (n, m))
        B = T.match_buffer(var_b, (m,))
        Y = T.match_buffer(var_y, (n, m))
        for i, j in T.grid(n, m):
            with T.block("T_add"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = X[vi, vj] + B[vj]

    @T.prim_func
    def relu(var_x: T.handle, var_y: T.handle):
        T.func_attr({"op_pattern": 0, "tir.noalias": True})
        n = T.int64()
        m = T.int64()
        X = T.match_buffer(var_x, (n, m))
        Y = T.match_buffer(var_y, (n, m))
        for i, j in T.grid(n, m):
            with T.block("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @T.prim_func
    def opaque_exp(var_x: T.handle, var_y: T.handle):
        T.func_attr({"op_pattern": 8, "tir.noalias": True})
        n = T.int64()
        m = T.int64()
        X = T.match_buffer(var_x, (n, m))
        Y = T.match_buffer(var_y, (n, m))
        for i, j in T.grid(n, m):
            with T.block("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.exp(X[vi, vj])

    @R.function
    def main(x: R.Tensor(("n", 16), "float32"), w0: R.Tensor((16, 32), "float32"),
             b0: R.Tensor((32,), "float32"), w1: R.Tensor((32, 8), "float32"),
             b1: R.Tensor((8,), "float32")) -> R.Tensor(("n", 8), "float32"):
        n = T.int64()
        cls = MLP
        with R.dataflow():
            lv0 = R.call_tir(cls.matmul, (x, w0), out_sinfo=R.Tensor((n, 32), "float32"))
            lv1 = R.call_tir(cls.add, (lv0, b0), out_sinfo=R.Tensor((n, 32), "float32"))
            lv2 = R.call_tir(cls.relu, (lv1,), out_sinfo=R.Tensor((n, 32), "float32"))
            lv3 = R.call_tir(cls.matmul, (lv2, w1), out_sinfo=R.Tensor((n, 8), "float32"))
            gv = R.call_tir(cls.add, (lv3, b1), out_sinfo=R.Tensor((n, 8), "float32"))
            R.output(gv)
        return gv

    @R.function
    def with_opaque(x: R.Tensor((4, 8), "float32"), b: R.Tensor((8,), "float32")) -> R.Tensor((4, 8), "float32"):
        cls = MLP
        with R.dataflow():
            lv0 = R.call_tir(cls.add, (x, b), out_sinfo=R.Tensor((4, 8), "float32"))
            lv1 = R.call_tir(cls.relu, (lv0,), out_sinfo=R.Tensor((4, 8), "float32"))
            lv2 = R.call_tir(cls.opaque_exp, (lv1,), out_sinfo=R.Tensor((4, 8), "float32"))
            lv3 = R.call_tir(cls.relu, (lv2,), out_sinfo=R.Tensor((4, 8), "float32"))
            gv = R.call_tir(cls.add, (lv3, b), out_sinfo=R.Tensor((4, 8), "float32"))
            R.output(gv)
        return gv


def _count(mod, fname):
    """(call_tir calls, calls of fused Relax functions) in function `fname`."""
    text = mod[fname].script()
    return text.count("R.call_tir("), len(re.findall(r"= (?:cls\.)?fused_\w+\(", text))


def _primitive_names(mod):
    names = []
    for gv in mod.get_global_vars():
        func = mod[gv]
        if isinstance(func, relax.Function) and func.attrs is not None and "Primitive" in func.attrs:
            names.append(gv.name_hint)
    return names


def _args(shapes):
    return [RNG.uniform(-1, 1, size=s).astype("float32") for s in shapes]


def _same(mod_a, mod_b, fname, args):
    a = relax.interpret(mod_a, fname, *args).numpy()
    b = relax.interpret(mod_b, fname, *args).numpy()
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


MLP_SHAPES = [(3, 16), (16, 32), (32,), (32, 8), (8,)]


def test_mlp_fuses_into_two_kernels():
    fused_ops = relax.transform.FuseOps()(MLP)
    # main's two groups, and with_opaque's two (the opaque kernel stays alone).
    assert _primitive_names(fused_ops) == [
        "fused_matmul_add_relu", "fused_matmul_add", "fused_add_relu", "fused_relu_add"]
    assert _count(fused_ops, "main") == (0, 2)
    fused = relax.transform.FuseTIR()(fused_ops)
    assert _primitive_names(fused) == []
    assert _count(fused, "main")[0] == 2
    assert relax.analysis.well_formed(fused_ops)
    assert relax.analysis.well_formed(fused)
    for shapes in (MLP_SHAPES, [(5, 16)] + MLP_SHAPES[1:]):
        args = _args(shapes)
        _same(MLP, fused_ops, "main", args)
        _same(MLP, fused, "main", args)


def test_fused_primfunc_shape():
    fused = relax.transform.FuseTIR()(relax.transform.FuseOps()(MLP))
    prim = fused["fused_matmul_add_relu"]
    assert isinstance(prim, tvm.tir.PrimFunc)
    assert [p.name_hint for p in prim.params] == ["p_x", "p_w0", "p_b0", "p_output0"]
    text = prim.script()
    assert "T.alloc_buffer" in text
    # The callees only the fused functions used are gone; the opaque one stays.
    names = {gv.name_hint for gv in fused.get_global_vars()}
    assert "matmul" not in names and "opaque_exp" in names


def test_opaque_op_stays_alone():
    fused = relax.transform.FuseTIR()(relax.transform.FuseOps()(MLP))
    assert _count(fused, "with_opaque")[0] == 3
    assert "R.call_tir(opaque_exp" in fused["with_opaque"].script()
    _same(MLP, fused, "with_opaque", _args([(4, 8), (8,)]))


def test_fuse_opt_level_zero_changes_nothing():
    assert tvm.ir.structural_equal(relax.transform.FuseOps(0)(MLP), MLP)
    with tvm.transform.PassContext(opt_level=0):
        assert tvm.ir.structural_equal(relax.transform.FuseOps()(MLP), MLP)
    assert tvm.ir.structural_equal(relax.transform.FuseTIR()(MLP), MLP)


def test_sequential_pipeline():
    seq = tvm.transform.Sequential([relax.transform.FuseOps(), relax.transform.FuseTIR()])
    fused = seq(MLP)
    args = _args(MLP_SHAPES)
    _same(MLP, fused, "main", args)


def test_legalize_annotate_fuse_on_relax_ops(require_global):
    require_global("relax.transform.LegalizeOps")
    require_global("relax.transform.AnnotateTIROpPattern")
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((2, 16), "float32"))
    w0 = relax.Var("w0", relax.TensorStructInfo((16, 32), "float32"))
    b0 = relax.Var("b0", relax.TensorStructInfo((32,), "float32"))
    w1 = relax.Var("w1", relax.TensorStructInfo((32, 8), "float32"))
    b1 = relax.Var("b1", relax.TensorStructInfo((8,), "float32"))
    with bb.function("main", [x, w0, b0, w1, b1]):
        with bb.dataflow():
            lv0 = bb.emit(relax.op.matmul(x, w0))
            lv1 = bb.emit(relax.op.add(lv0, b0))
            lv2 = bb.emit(relax.op.nn.relu(lv1))
            lv3 = bb.emit(relax.op.matmul(lv2, w1))
            gv = bb.emit_output(relax.op.add(lv3, b1))
        bb.emit_func_output(gv)
    mod = bb.get()
    legal = relax.transform.LegalizeOps()(mod)
    annotated = relax.transform.AnnotateTIROpPattern()(legal)
    fused_ops = relax.transform.FuseOps()(annotated)
    fused = relax.transform.FuseTIR()(fused_ops)
    assert _count(legal, "main")[0] == 5
    # The bias add is a broadcast kernel, but it reads the matmul's result at its own output
    # shape, so that edge is elementwise (TVM's rule): each matmul fuses with what follows it.
    assert _count(fused, "main")[0] == 2
    assert "fused_matmul_add_relu" in {gv.name_hint for gv in fused.get_global_vars()}
    assert relax.analysis.well_formed(fused)
    args = _args([(2, 16), (16, 32), (32,), (32, 8), (8,)])
    for m in (legal, fused_ops, fused):
        _same(mod, m, "main", args)


def test_negative_fuse_opt_level_is_refused():
    with pytest.raises(ValueError, match=r"fuse_opt_level must be -1 .* got -2"):
        relax.transform.FuseOps(-2)(MLP)

"""Stage 4: ``relax.analysis`` — ``well_formed`` on builder-made modules and on functions that
break one rule each (checked by the rule, function and variable in the violation), and
``free_vars`` / ``bound_vars`` / ``all_vars``."""
import pytest

import minitvm as tvm
from minitvm import error, relax
from minitvm.relax.analysis import (all_vars, bound_vars, free_vars, well_formed,
                                    well_formed_violations)


def T(shape, dtype="float32"):
    return relax.TensorStructInfo(list(shape), dtype)


def norm(e):
    return relax.BlockBuilder().normalize(e)


def fn(params, blocks, body, ret):
    return relax.Function(params, relax.SeqExpr(blocks, body), ret,
                          attrs={"global_symbol": "f"})


def assert_violation(obj, *parts):
    vs = well_formed_violations(obj)
    assert any(all(p in v for p in parts) for v in vs), vs
    assert not well_formed(obj)


def test_builder_module_is_well_formed():
    x = relax.Var("x", T((2, 3)))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit(relax.op.add(x, x))
            gv = bb.emit_output(relax.op.multiply(lv, x))
        bb.emit_func_output(gv)
    mod = bb.get()
    assert well_formed(mod)
    assert well_formed(mod["main"])
    assert well_formed_violations(mod) == []


def test_dataflow_var_rules():
    x = relax.Var("x", T((4,)))
    lv = relax.DataflowVar("lv", T((4,)))
    f = fn([x], [relax.BindingBlock([relax.VarBinding(lv, norm(relax.op.add(x, x)))])], lv, T((4,)))
    assert_violation(f, "[dataflow-var-outside-block]", 'function "f"', 'variable "lv"')
    gv = relax.Var("gv", T((4,)))
    g = fn([x], [relax.DataflowBlock([relax.VarBinding(lv, norm(relax.op.add(x, x)))]),
                 relax.BindingBlock([relax.VarBinding(gv, norm(relax.op.add(lv, x)))])], gv, T((4,)))
    assert_violation(g, "[dataflow-var-scope]", 'variable "lv"')


def test_impure_call_in_dataflow_block():
    x = relax.Var("x", T((4,)))
    lv = relax.DataflowVar("lv", T((4,)))
    gv = relax.Var("gv", T((4,)))
    call = norm(relax.Call(relax.ExternFunc("env.print"), [x], sinfo_args=[T((4,))]))
    f = fn([x], [relax.DataflowBlock([relax.VarBinding(lv, call), relax.VarBinding(gv, lv)])],
           gv, T((4,)))
    assert_violation(f, "[impure-in-dataflow]", 'variable "lv"', "env.print")


def test_defined_twice_and_undefined():
    x = relax.Var("x", T((4,)))
    v = relax.Var("v", T((4,)))
    value = norm(relax.op.add(x, x))
    f = fn([x], [relax.BindingBlock([relax.VarBinding(v, value), relax.VarBinding(v, value)])],
           v, T((4,)))
    assert_violation(f, "[defined-twice]", 'variable "v"')
    ghost = relax.Var("ghost", T((4,)))
    assert_violation(fn([x], [], ghost, T((4,))), "[undefined-var]", 'variable "ghost"')


def test_struct_info_rules():
    x = relax.Var("x", T((4,)))
    v = relax.Var("v", T((5,)))
    f = fn([x], [relax.BindingBlock([relax.VarBinding(v, norm(relax.op.add(x, x)))])], v, T((5,)))
    assert_violation(f, "[struct-info-mismatch]", 'variable "v"')
    p = relax.Var("p")
    g = relax.Function([x], relax.SeqExpr(
        [relax.BindingBlock([relax.VarBinding(p, norm(relax.op.add(x, x)))])], x), T((4,)),
        attrs={"global_symbol": "g"})
    assert_violation(g, "[missing-struct-info]", 'function "g"', 'variable "p"')
    assert well_formed(g, check_struct_info=False)


def test_unknown_global_var():
    x = relax.Var("x", T((4,)))
    v = relax.Var("v", relax.ObjectStructInfo())
    call = norm(relax.Call(tvm.ir.GlobalVar("ghost"), [x]))
    main = relax.Function([x], relax.SeqExpr([relax.BindingBlock([relax.VarBinding(v, call)])], v),
                          relax.ObjectStructInfo(), attrs={"global_symbol": "main"})
    mod = tvm.IRModule({"main": main})
    assert_violation(mod, "[unknown-global-var]", 'function "main"', 'variable "ghost"')


def test_well_formed_refuses_other_objects():
    with pytest.raises(error.TypeError, match="expects an IRModule or a relax.Function"):
        well_formed(relax.Var("x", T((1,))))


def test_free_bound_all_vars():
    x = relax.Var("x", T((4,)))
    y = relax.Var("y", T((4,)))
    v = relax.Var("v", T((4,)))
    seq = relax.SeqExpr([relax.BindingBlock([relax.VarBinding(v, norm(relax.op.add(x, y)))])],
                        relax.op.add(v, x))
    assert [a.name_hint for a in free_vars(seq)] == ["x", "y"]
    assert [a.name_hint for a in bound_vars(seq)] == ["v"]
    assert sorted(a.name_hint for a in all_vars(seq)) == ["v", "x", "y"]
    f = relax.Function([x], relax.SeqExpr([], relax.op.add(x, y)), T((4,)))
    assert [a.name_hint for a in free_vars(f)] == ["y"]
    assert [a.name_hint for a in bound_vars(f)] == ["x"]

"""Stage 5: the pass infrastructure and the TIR lowering passes from Python — the default
pipeline as a list, PassContext options and instruments (Python-defined and built-in), and
each pass checked on its printed output and, with the TIR interpreter (target "ref"), on
its numbers."""
import numpy as np
import pytest

import minitvm as tvm
from conftest import requires_global

pytestmark = pytest.mark.usefixtures("_needs_passes")


@pytest.fixture(name="_needs_passes")
def _needs_passes_fixture():
    requires_global("tir.transform.GetDefaultTIRPipeline")
    requires_global("script.FromSource")


def _transform():
    from minitvm import transform  # pylint: disable=import-outside-toplevel
    from minitvm.tir import transform as tir_transform  # pylint: disable=import-outside-toplevel

    return transform, tir_transform


MATMUL = """
@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16, 12), "float32"), B: T.Buffer((12, 20), "float32"), C: T.Buffer((16, 20), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(16, 20, 12):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"""

PASS_NAMES = [
    "tir.LowerInitBlock",
    "tir.PlanAndUpdateBufferAllocationLocation",
    "tir.ConvertBlocksToOpaque",
    "tir.CompactBufferAllocation",
    "tir.LowerOpaqueBlock",
    "tir.FlattenBuffer",
    "tir.Simplify",
    "tir.VectorizeLoop",
    "tir.UnrollLoop",
    "tir.Simplify",
    "tir.RemoveNoOp",
    "tir.LowerIntrin",
    "tir.MakePackedAPI",
]


def _parse(text=MATMUL):
    return tvm.get_global_func("script.FromSource")(text, "<test>", 0)


def _scheduled():
    """The matmul with a local accumulator tile, vectorized and unrolled (the GEMM shape)."""
    pytest.importorskip("minitvm.tir.schedule")
    from minitvm.tir import Schedule  # pylint: disable=import-outside-toplevel

    sch = Schedule(_parse())
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    i0, i1 = sch.split(i, factors=[None, 4])
    j0, j1 = sch.split(j, factors=[None, 4])
    sch.reorder(i0, j0, k, i1, j1)
    local = sch.cache_write(block, 0, "local")
    sch.reverse_compute_at(local, j0)
    sch.vectorize(j1)  # loop kinds before decompose_reduction, as TVM requires
    sch.parallel(i0)
    sch.decompose_reduction(block, k)
    sch.unroll(i1)
    return sch.mod


def _run_ref(mod, seed=0):
    """Run mod["main"] with the TIR interpreter; returns C."""
    from minitvm import driver  # pylint: disable=import-outside-toplevel

    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (16, 12)).astype("float32")
    b = rng.uniform(-1, 1, (12, 20)).astype("float32")
    c = tvm.nd.array(np.zeros((16, 20), "float32"))
    driver.build(mod, target="ref")["main"](tvm.nd.array(a), tvm.nd.array(b), c)
    return c.numpy(), a @ b


def test_default_pipeline_is_a_printable_list():
    transform, tir_transform = _transform()
    pipeline = tir_transform.get_default_tir_pipeline()
    assert isinstance(pipeline, transform.Sequential)
    assert [str(p.info.name) for p in pipeline.passes] == PASS_NAMES
    assert "tir.FlattenBuffer" in repr(pipeline)
    assert [str(p.info.name) for p in tir_transform.default_tir_pipeline_passes()] == PASS_NAMES


def test_each_pass_keeps_the_numbers_and_does_its_job():
    _, tt = _transform()
    mod = _scheduled()
    want = _run_ref(mod)[1]
    checks = {
        "tir.LowerInitBlock": lambda text: "T.init()" not in text,
        "tir.PlanAndUpdateBufferAllocationLocation": lambda text: "alloc_buffer((16, 20), scope=\"local\")" in text,
        "tir.CompactBufferAllocation": lambda text: "alloc_buffer((4, 4), scope=\"local\")" in text,
        "tir.LowerOpaqueBlock": lambda text: "T.block" not in text,
        "tir.FlattenBuffer": lambda text: "T.Buffer((320,)" in text,
        "tir.VectorizeLoop": lambda text: "T.Ramp" in text and "T.vectorized" not in text,
        "tir.UnrollLoop": lambda text: "T.unroll" not in text,
        "tir.MakePackedAPI": lambda text: "compute_scope" in text and "num_args" in text,
    }
    for p in tt.default_tir_pipeline_passes():
        name = str(p.info.name)
        mod = p(mod)
        text = mod.script()
        if name in checks:
            assert checks[name](text), f"{name} did not do its job:\n{text}"
        if name != "tir.MakePackedAPI":
            got, _ = _run_ref(mod)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=f"after {name}")


def test_python_instrument_sees_every_pass_and_can_skip():
    transform, tt = _transform()

    class Recorder(transform.PassInstrument):
        def __init__(self):
            self.before, self.after = [], []
            super().__init__()

        def should_run(self, mod, info):
            return str(info.name) != "tir.Simplify"

        def run_before_pass(self, mod, info):
            self.before.append(str(info.name))

        def run_after_pass(self, mod, info):
            self.after.append(str(info.name))

    rec = Recorder()
    with transform.PassContext(instruments=[rec]):
        tt.get_default_tir_pipeline()(_parse())
    # As in TVM, the Sequential itself is a pass the instruments see (first before, last after).
    expected = [n for n in PASS_NAMES if n != "tir.Simplify"]
    assert rec.before == ["tir.default_pipeline"] + expected
    assert rec.after == expected + ["tir.default_pipeline"]


def test_print_diff_instrument_prints_what_changed(capfd):
    transform, tt = _transform()
    with transform.PassContext(instruments=[transform.PrintDiff()]):
        tt.LowerInitBlock()(_parse())
    out = capfd.readouterr().out
    assert "# tir.LowerInitBlock" in out
    assert "-                 with T.init():" in out or "- " in out
    assert "+ " in out


def test_disabled_and_required_passes_and_config():
    transform, tt = _transform()
    mod = _parse()
    with transform.PassContext(disabled_pass=["tir.LowerInitBlock"]):
        assert "T.init()" in tt.LowerInitBlock()(mod).script()
    assert "T.init()" not in tt.LowerInitBlock()(mod).script()
    # opt_level: a pass above the context's level does not run unless required.
    counting = transform.module_pass(lambda m, ctx: m, opt_level=3, name="Level3")
    seen = []

    class Seen(transform.PassInstrument):
        def run_before_pass(self, m, info):
            seen.append(str(info.name))

    with transform.PassContext(opt_level=2, instruments=[Seen()]):
        counting(mod)
    assert seen == []
    with transform.PassContext(opt_level=2, required_pass=["Level3"], instruments=[Seen()]):
        counting(mod)
    assert seen == ["Level3"]
    # "tir.disable_vectorize" keeps vectorized loops as loops.
    sched = _scheduled()
    lower = transform.Sequential(tt.default_tir_pipeline_passes()[:8])
    with transform.PassContext(config={"tir.disable_vectorize": True}):
        assert "T.Ramp" not in lower(sched).script()
    assert "T.Ramp" in lower(sched).script()


def test_python_defined_passes():
    transform, tt = _transform()
    calls = []

    @transform.module_pass(opt_level=0, name="Count")
    def count(mod, ctx):
        calls.append(ctx.opt_level)
        return mod

    @tt.prim_func_pass(opt_level=0)
    def rename_attr(func, mod, ctx):
        return func.with_attr("lowered_by", "python")

    with transform.PassContext(opt_level=3):
        out = transform.Sequential([count, rename_attr])(_parse())
    assert calls == [3]
    assert "lowered_by" in out.script()


def test_print_ir_pass(capfd):
    transform, _ = _transform()
    transform.PrintIR("here")(_parse())
    assert "# PrintIR here" in capfd.readouterr().out

"""Stage 2: the pass infrastructure from Python (``minitvm.transform``, also reachable as
``minitvm.ir.transform``) with passes written in Python — it needs no lowering pass, so it
runs in every build from stage 2 up. The TIR lowering passes are tested in
test_lower_passes.py; the C++ side in tests/stage2/pass_infra_test.cc."""
import pytest

import minitvm as tvm
from conftest import requires_global

pytestmark = pytest.mark.usefixtures("_needs_transform")

MODULE = """
@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = T.float32(0)
"""


@pytest.fixture(name="_needs_transform")
def _needs_transform_fixture():
    requires_global("transform.Sequential")
    requires_global("script.FromSource")


def _parse():
    return tvm.script.from_source(MODULE)


def _mark(name, opt_level=0, required=None):
    """A module pass that appends its name to the module attribute "trail"."""
    transform = tvm.transform

    def run(mod, ctx):
        trail = str(mod.attrs["trail"]) if "trail" in mod.attrs else ""
        return mod.with_attr("trail", trail + name + ";")

    return transform.module_pass(run, opt_level=opt_level, name=name, required=required)


def _trail(mod):
    return str(mod.attrs["trail"]) if "trail" in mod.attrs else ""


def test_ir_transform_is_the_pass_infrastructure():
    assert tvm.ir.transform is tvm.transform
    assert isinstance(tvm.transform.Sequential([]), tvm.transform.Pass)


def test_sequential_levels_required_and_disabled():
    transform = tvm.transform
    mod = _parse()
    seq = transform.Sequential([_mark("cheap", 1), _mark("costly", 3), _mark("always")])
    with transform.PassContext(opt_level=2):
        assert _trail(seq(mod)) == "cheap;always;"
    with transform.PassContext(opt_level=2, required_pass=["costly"], disabled_pass=["always"]):
        assert _trail(seq(mod)) == "cheap;costly;"
    assert _trail(mod) == ""  # the input module is never changed


def test_contexts_nest_and_config_is_visible_to_passes():
    transform = tvm.transform
    seen = []

    @transform.module_pass(opt_level=0, name="ReadConfig")
    def read_config(mod, ctx):
        seen.append((ctx.opt_level, dict(ctx.config)))
        return mod

    transform.register_config_option("demo.flag", bool)  # a context refuses undeclared keys
    with transform.PassContext(opt_level=3, config={"demo.flag": True}):
        with transform.PassContext(opt_level=1):
            read_config(_parse())
        read_config(_parse())
    assert seen[0][0] == 1 and seen[1][0] == 3
    assert seen[1][1].get("demo.flag") in (True, 1)


def test_a_required_pass_that_does_not_exist_is_a_value_error():
    with pytest.raises(tvm.error.ValueError, match="requires the pass NoSuchPass"):
        tvm.transform.Sequential([_mark("main", required=["NoSuchPass"])])(_parse())


def test_an_exception_in_a_python_pass_or_instrument_propagates():
    transform = tvm.transform

    @transform.module_pass(opt_level=0, name="Broken")
    def broken(mod, ctx):
        raise RuntimeError("broken on purpose")

    mod = _parse()
    with pytest.raises(RuntimeError, match="broken on purpose"):
        transform.Sequential([_mark("a"), broken])(mod)
    assert _trail(mod) == ""

    class Raising(transform.PassInstrument):
        def run_before_pass(self, mod, info):
            raise ValueError("instrument says no")

    with pytest.raises(ValueError, match="instrument says no"):
        with transform.PassContext(instruments=[Raising()]):
            _mark("a")(mod)
    # The context stack is intact afterwards: a fresh pass runs without the instrument.
    assert _trail(_mark("b")(mod)) == "b;"


def test_print_diff_shows_a_unified_diff(capfd):
    transform = tvm.transform
    with transform.PassContext(instruments=[transform.PrintDiff()]):
        _mark("a")(_parse())
    out = capfd.readouterr().out
    assert out.startswith("# a\n--- before a\n+++ after a\n@@ "), out
    assert '+    I.module_attrs({"trail": "a;"})' in out, out
    assert transform.line_diff("x\ny\n", "x\nz\n") == "--- before\n+++ after\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n"
    assert transform.line_diff("same\n", "same\n") == ""

"""Course code typed into a Jupyter kernel (issue "TVM's contract").

Course labs run TVM code as notebooks. In a kernel, a cell is not a file on disk: a
`@tvm.script.ir_module` class must still find its source (minitvm reads it through the cell's
text in `linecache`, found from the class's methods), module-level Python names must resolve,
and the course's other TVM idioms must work there as they do in a script. Each case below runs
twice: as plain Python here, and as a notebook cell executed by nbclient in a real ipykernel; both
must print the same checked lines.
"""
import os
import subprocess
import sys
import textwrap

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SETUP = """
import numpy as np
import minitvm as tvm
from minitvm import te, relax, tir
from minitvm.script import ir as I, tir as T, relax as R
"""

# Each cell prints "CHECK <name> <value>" lines that must be the same in both runs.
CELLS = [
    ("ir_module_class", """
@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] * T.float32(2)

a = tvm.nd.array(np.arange(8, dtype="float32"))
b = tvm.nd.empty((8,), "float32")
tvm.build(MyModule, "llvm")(a, b)          # the target in second place, as TVM v0.20
print("CHECK ir_module", np.allclose(b.numpy(), np.arange(8) * 2))
"""),
    ("relax_module_class", """
@I.ir_module
class MLP:
    @T.prim_func
    def relu(X: T.Buffer((2, 4), "float32"), Y: T.Buffer((2, 4), "float32")):
        for i, j in T.grid(2, 4):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @R.function
    def main(x: R.Tensor((2, 4), "float32")):
        cls = MLP
        with R.dataflow():
            y = R.call_tir(cls.relu, (x,), out_sinfo=R.Tensor((2, 4), "float32"))
            R.output(y)
        return y

ex = tvm.compile(MLP, "llvm")
vm = relax.VirtualMachine(ex, tvm.cpu())
x = np.random.default_rng(0).standard_normal((2, 4)).astype("float32")
print("CHECK relax_module", np.allclose(vm["main"](tvm.nd.array(x)).numpy(), np.maximum(x, 0)))
"""),
    ("schedule_in_cell", """
sch = tvm.tir.Schedule(MyModule)
i, = sch.get_loops(sch.get_block("B"))
i0, i1 = sch.split(i, factors=[None, 4])
sch.vectorize(i1)
b2 = tvm.nd.empty((8,), "float32")
tvm.build(sch.mod, target="llvm")(a, b2)
print("CHECK schedule", np.allclose(b2.numpy(), np.arange(8) * 2), len(sch.trace.insts))
"""),
    ("compile_mod_time_evaluator", """
ex = tvm.compile(MyModule, target="llvm")
timer = ex.mod.time_evaluator("main", tvm.cpu(), number=3)
print("CHECK time_evaluator", timer(a, b).mean > 0)
"""),
    ("targets", """
p100 = tvm.target.Target("nvidia/tesla-p100")
print("CHECK tag", p100.kind.name, p100.attrs["arch"], p100.attrs["max_shared_memory_per_block"])
metal = tvm.target.Target("metal")
print("CHECK metal", metal.kind.name, "gpu" in metal.keys, metal.attrs["thread_warp_size"])
"""),
    ("block_builder", """
bb = relax.BlockBuilder()
xv = relax.Var("x", relax.TensorStructInfo((3, 4), "float32"))
with bb.function("main", [xv]):
    with bb.dataflow():
        lv = bb.emit_te(lambda t: te.compute(t.shape, lambda i, j: t[i, j] + 1.0), xv)
        gv = bb.emit_output(lv)
    bb.emit_func_output(gv)
mod = bb.get()
ex = tvm.compile(mod, "llvm")
x = np.ones((3, 4), "float32")
print("CHECK block_builder", np.allclose(relax.VirtualMachine(ex, tvm.cpu())["main"](
    tvm.nd.array(x)).numpy(), x + 1))
"""),
]


def _script():
    return SETUP + "".join(textwrap.dedent(code) for _, code in CELLS)


def _checks(text):
    return [ln for ln in text.splitlines() if ln.startswith("CHECK ")]


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(REPO, "python") + os.pathsep + env.get("PYTHONPATH", "")
    return env


@pytest.fixture(scope="module")
def script_checks(tmp_path_factory):
    path = tmp_path_factory.mktemp("course") / "course.py"
    path.write_text(_script())
    out = subprocess.run([sys.executable, str(path)], env=_env(), capture_output=True, text=True,
                         timeout=300, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    return _checks(out.stdout)


def test_course_code_as_a_script(script_checks):
    assert len(script_checks) == 7
    assert all(" False" not in ln for ln in script_checks), script_checks
    assert "CHECK tag cuda sm_60 49152" in script_checks
    assert "CHECK metal metal True 16" in script_checks


def test_course_code_in_a_jupyter_kernel(script_checks, tmp_path):
    nbformat = pytest.importorskip("nbformat")
    try:
        from jupyter_client.kernelspec import KernelSpecManager  # pylint: disable=C0415
        from nbclient import NotebookClient  # pylint: disable=import-outside-toplevel
    except ImportError:
        pytest.skip("no Jupyter kernel machinery (Debian: python3-nbclient, python3-ipykernel; "
                    "scripts/install_deps.sh installs them)")
    if "python3" not in KernelSpecManager().find_kernel_specs():
        pytest.skip("no python3 Jupyter kernel installed")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        f"import sys; sys.path.insert(0, {os.path.join(REPO, 'python')!r})\n" + SETUP)]
    nb.cells += [nbformat.v4.new_code_cell(textwrap.dedent(code).strip()) for _, code in CELLS]
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    text = "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", [])
                   if o.get("output_type") == "stream")
    assert _checks(text) == script_checks


def test_class_typed_twice_in_a_kernel_takes_the_newer_cell(tmp_path):
    """A cell run again defines the class anew: the parser must read the newer text."""
    nbformat = pytest.importorskip("nbformat")
    try:
        from nbclient import NotebookClient  # pylint: disable=import-outside-toplevel
    except ImportError:
        pytest.skip("no Jupyter kernel machinery installed")
    cell = textwrap.dedent("""
        @tvm.script.ir_module
        class Twice:
            @T.prim_func
            def main(A: T.Buffer((4,), "float32")):
                for i in range(4):
                    with T.block("A"):
                        vi = T.axis.spatial(4, i)
                        A[vi] = T.float32({value})
        print("CHECK twice", "T.float32({value}.0)" in Twice.script())
    """)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        f"import sys; sys.path.insert(0, {os.path.join(REPO, 'python')!r})\n" + SETUP),
        nbformat.v4.new_code_cell(cell.format(value=1)),
        nbformat.v4.new_code_cell(cell.format(value=2))]
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    text = "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", [])
                   if o.get("output_type") == "stream")
    assert _checks(text) == ["CHECK twice True", "CHECK twice True"]

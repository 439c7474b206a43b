"""Adversarial inputs for the front end (issue 16, stages 1-3, the Python IR API, the CLI).

Every risky case runs in a child process with a timeout, so that a crash or a hang is a
failed test and not a dead test run. A child prints ``OK`` after its own checks; the parent
asserts on the exit status and the output. See docs/hardening.md for the policies tested.
"""
import os
import subprocess
import sys
import textwrap

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD_DIR = os.environ.get("MINITVM_BUILD_DIR", os.path.join(REPO_ROOT, "build"))
CLI = os.path.join(BUILD_DIR, "bin", "minitvm")

PRELUDE = """
import sys
import minitvm as tvm
from minitvm import tir, te
from minitvm.script import tir as T

def expect(exc_type, fragment, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc_type as err:
        assert fragment in str(err), f"{fragment!r} not in {str(err)!r}"
        return err
    raise AssertionError(f"no {exc_type.__name__} raised")
"""


def run_child(body, timeout=120):
    """Run ``PRELUDE + body`` in a fresh interpreter; returns the completed process."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(REPO_ROOT, "python") + os.pathsep + env.get("PYTHONPATH", "")
    env["MINITVM_BUILD_DIR"] = BUILD_DIR
    code = PRELUDE + textwrap.dedent(body)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=timeout, env=env, check=False)


def check_child(body, timeout=120):
    proc = run_child(body, timeout)
    assert proc.returncode == 0, (
        f"child exited with {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr[-3000:]}")
    assert proc.stdout.strip().endswith("OK"), proc.stdout + proc.stderr[-2000:]
    return proc


# ---- 1. deep recursion: one depth policy -----------------------------------------------------

DEEP_EXPR = """
x = tir.Var("x", "int32")
deep = x
for _ in range(20000):
    deep = deep + 1
"""


def test_deep_python_expression_repr_is_cut_short():
    # repr/str never raise: when the script printer refuses the tree, the generic repr (with
    # its own depth cut) is used.
    check_child(DEEP_EXPR + """
text = str(deep)
assert text.startswith("tir.Add(") and len(text) < 10000, text[:200]
print("OK")
""")


@pytest.mark.parametrize("use", [
    "tvm.ir.structural_hash(deep)",
    "tvm.ir.structural_equal(deep, deep)",
    "tvm.arith.Analyzer().simplify(deep)",
    "tvm.script.as_script(deep)",
])
def test_deep_python_expression_is_refused(use):
    check_child(DEEP_EXPR + f"""
err = expect(ValueError, "nested", lambda: {use})
assert "NestingTooDeepError" in type(err).__name__, type(err)
print("OK")
""")


def test_moderate_depth_still_works():
    check_child("""
x = tir.Var("x", "int32")
e = x
for _ in range(1000):
    e = e + 1
assert "x + 1" in str(e)
assert tvm.ir.structural_equal(e, e)
print("OK")
""")


def test_deep_te_compute_is_refused():
    check_child("""
A = te.placeholder((4,), name="A")
def body(i):
    e = A[i]
    for _ in range(20000):
        e = e * 1.0001
    return e
expect(ValueError, "nested", lambda: te.create_prim_func([A, te.compute((4,), body, name="B")]))
print("OK")
""")


def test_small_thread_stack_raises_instead_of_crashing():
    # A thread with a 512 KiB stack: the stack check fires before the depth limit does.
    check_child("""
import threading
x = tir.Var("x", "int32")
e = x
for _ in range(3500):
    e = e + 1
result = []
def work():
    try:
        str(e)
        result.append("printed")
    except ValueError as err:
        result.append(str(err))
threading.stack_size(512 * 1024)
t = threading.Thread(target=work)
t.start()
t.join()
assert result and (result[0] == "printed" or "stack" in result[0] or "nested" in result[0]), result
print("OK")
""")


@pytest.mark.parametrize("expr", [
    "' and '.join(['a > 0'] * 3000)",
    "' or '.join(['a > 0'] * 3000)",
    "' < '.join(['a'] * 3000)",
    "'not ' * 3000 + 'True'",
    "'-' * 3000 + 'a'",
    "'T.max(' * 3000 + 'a' + ', 1)' * 3000",
    "'A[' * 3000 + '0' + ']' * 3000",
])
def test_deep_script_is_a_parse_error(expr):
    check_child(f"""
e = {expr}
src = f'''
@T.prim_func
def main(A: T.Buffer((16,), "int32"), a: T.int32):
    A[0] = T.Select({{e}}, 1, 0)
'''
expect(tvm.error.ParseError, "nested too deeply", tvm.script.from_source, src)
print("OK")
""")


# ---- 2. objects without a handle --------------------------------------------------------------


@pytest.mark.parametrize("use", [
    "tvm.runtime.Module()()",
    "tvm.tir.Schedule.__new__(tvm.tir.Schedule).get_block('B')",
    "tir.Var.__new__(tir.Var) + 1",
    "tvm.ir.structural_equal(tir.Var.__new__(tir.Var), tir.Var('x'))",
    "tvm.runtime.Module().get_source()",
])
def test_object_without_handle_is_refused(use):
    check_child(f"""
expect(TypeError, "not initialised", lambda: {use})
print("OK")
""")


def test_field_of_object_without_handle():
    check_child("""
expect(AttributeError, "not initialised", lambda: tir.Var.__new__(tir.Var).dtype)
print("OK")
""")


# ---- 3. the CLI -----------------------------------------------------------------------------

SCRIPT = """\
from minitvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi] * T.float32(2)
"""


def run_cli(*args, timeout=60, stdin=None):
    if not os.path.exists(CLI):
        pytest.skip("the minitvm CLI is not built")
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=timeout,
                          input=stdin, check=False)


def test_cli_bad_seed(tmp_path):
    src = tmp_path / "f.py"
    src.write_text(SCRIPT)
    trace = tmp_path / "t.py"
    trace.write_text('b = sch.get_block("B")\n')
    proc = run_cli("schedule", str(src), f"--trace={trace}", "--seed=abc")
    assert proc.returncode == 1, proc
    assert "--seed=abc" in proc.stderr and "unsigned integer" in proc.stderr


@pytest.mark.parametrize("path,fragment", [
    ("/dev/zero", "not a regular file"),
    ("/", "a directory"),
    ("/nonexistent/file.py", "cannot read"),
])
def test_cli_refuses_unreadable_inputs(path, fragment):
    proc = run_cli("show", path)
    assert proc.returncode == 1, proc
    assert fragment in proc.stderr, proc.stderr


def test_cli_refuses_a_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    proc = run_cli("show", str(fifo), timeout=30)
    assert proc.returncode == 1 and "not a regular file" in proc.stderr, proc


def test_cli_still_shows_a_good_file(tmp_path):
    src = tmp_path / "f.py"
    src.write_text(SCRIPT)
    proc = run_cli("show", str(src))
    assert proc.returncode == 0, proc.stderr
    assert 'T.block("B")' in proc.stdout


# ---- 4. script text -------------------------------------------------------------------------


def test_lone_surrogate_is_a_parse_error():
    check_child(r"""
src = 'from minitvm.script import tir as T\n@T.prim_func\ndef main(A: T.Buffer((4,), "float32")):\n    A[0] = T.float32(1)  # \ud800\n'
err = expect(tvm.error.ParseError, "lone surrogate", tvm.script.from_source, src, "s.py")
assert "s.py:4:" in str(err), str(err)
print("OK")
""")


def test_nul_is_a_parse_error():
    check_child(r"""
src = 'from minitvm.script import tir as T\n@T.prim_func\ndef main(A: T.Buffer((4,), "float32")):\n    A[0] = \x00T.float32(1)\n'
err = expect(tvm.error.ParseError, "NUL character", tvm.script.from_source, src, "s.py")
assert "s.py:4:12" in str(err), str(err)
print("OK")
""")


def test_bare_carriage_returns_are_line_ends():
    check_child(r"""
src = 'from minitvm.script import tir as T\r@T.prim_func\rdef main(A: T.Buffer((4,), "float32")):\r    A[0] = T.float32(1)\r'
f = tvm.script.from_source(src)
g = tvm.script.from_source(src.replace("\r", "\n"))
assert tvm.ir.structural_equal(f, g)
bad = 'from minitvm.script import tir as T\r@T.prim_func\rdef main(A: T.Buffer((4,), "float32")):\r    A[0] = T.float32(1) +\r'
err = expect(tvm.error.ParseError, "", tvm.script.from_source, bad, "cr.py")
assert "cr.py:4:" in str(err), str(err)
print("OK")
""")


def test_tab_space_mixture_is_refused():
    check_child(r"""
src = ('from minitvm.script import tir as T\n@T.prim_func\n'
       'def main(A: T.Buffer((4,), "float32")):\n'
       '        for i in range(4):\n'
       '\t    A[i] = T.float32(1)\n')
try:
    compile(src, "x", "exec")
    raise AssertionError("Python accepted it")
except TabError:
    pass
err = expect(tvm.error.ParseError, "inconsistent use of tabs and spaces", tvm.script.from_source, src, "t.py")
assert "t.py:5:" in str(err), str(err)
tvm.script.from_source(src.replace("        for", "\tfor").replace("\t    A", "\t\tA"))
print("OK")
""")


# ---- 5. silent wrong results in schedules ------------------------------------------------------

SUM_INIT = """
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 16):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(INIT)
            B[vi] = B[vi] + A[vi, vk]
"""


def test_rfactor_refuses_an_init_that_is_not_the_identity():
    check_child(f"""
src = {SUM_INIT!r}
def rf(init):
    sch = tvm.tir.Schedule(tvm.script.from_source("from minitvm.script import tir as T\\n" + src.replace("INIT", init)))
    _, k = sch.get_loops(sch.get_block("B"))
    ko, ki = sch.split(k, [4, 4])
    return sch.rfactor(ki, 0)
err = expect(tvm.error.ScheduleError, "identity", rf, "1")
assert "InitNotIdentityError" in type(err).__name__, type(err)
rf("0")
print("OK")
""")


NARROW_READS = """from minitvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,), "float32")
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            T.reads(A[vi])
            T.writes(B[vi])
            B[vi] = A[vi] * T.float32(2)
    for i in range(15):
        with T.block("C"):
            vi = T.axis.spatial(15, i)
            T.reads(B[vi])
            T.writes(C[vi])
            C[vi] = B[vi] + B[vi + 1]
"""


def test_narrow_declared_reads_are_refused():
    check_child(f"""
f = tvm.script.from_source({NARROW_READS!r})
err = expect(tvm.error.ScheduleError, "narrower", tvm.tir.Schedule, f)
assert "RegionNotCoveredError" in type(err).__name__, type(err)
assert "B[vi:vi + 2]" in str(err) or "B[" in str(err), str(err)
# With the correct region it schedules, and compute_at keeps the values.
import numpy as np
good = tvm.script.from_source({NARROW_READS!r}.replace("T.reads(B[vi])", "T.reads(B[vi:vi + 2])"))
sch = tvm.tir.Schedule(good)
sch.compute_at(sch.get_block("B"), sch.get_loops(sch.get_block("C"))[0])
from minitvm.driver import build
a = tvm.nd.array(np.arange(16, dtype="float32"))
c1 = tvm.nd.array(np.zeros(16, "float32"))
c2 = tvm.nd.array(np.zeros(16, "float32"))
build(good, target="ref")(a, c1)
build(sch.mod["main"], target="ref")(a, c2)
np.testing.assert_array_equal(c1.numpy(), c2.numpy())
assert c1.numpy()[3] == 2 * 3 + 2 * 4
print("OK")
""")


MATMUL = """from minitvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    for i, j, k in T.grid(8, 8, 8):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("KINDS", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"""


@pytest.mark.parametrize("kinds,rule", [
    ("SRR", "ReductionIterInWriteIndexError"),
    ("SSS", "SpatialIterNotInWriteIndexError"),
])
def test_iterator_kinds_that_contradict_the_body(kinds, rule):
    check_child(f"""
f = tvm.script.from_source({MATMUL!r}.replace("KINDS", {kinds!r}))
err = expect(tvm.error.ScheduleError, "iterator", tvm.tir.Schedule, f)
assert {rule!r} in type(err).__name__, (type(err), str(err))
tvm.tir.Schedule(tvm.script.from_source({MATMUL!r}.replace("KINDS", "SSR")))
print("OK")
""")


# ---- 6. messages ------------------------------------------------------------------------------


def test_keyword_arguments_name_the_function():
    check_child("""
f = tvm.get_global_func("runtime.GetDeviceAttr", allow_missing=True) or tvm.get_global_func(
    tvm._ffi.registry.list_global_func_names()[0])
name = f._name
expect(TypeError, f'packed function "{name}" takes positional arguments only', lambda: f(x=1))
from minitvm.driver import build
A = te.placeholder((4,), name="A")
rt = build(te.create_prim_func([A, te.compute((4,), lambda i: A[i] * 2, name="B")]), target="ref")
expect(TypeError, 'function "main" of this module takes positional arguments only, got keyword '
       'argument(s) A', lambda: rt(A=1))
expect(TypeError, 'packed function "main" takes positional arguments only, got keyword '
       'argument(s) A, B', lambda: rt["main"](A=1, B=2))
print("OK")
""")


def test_int32_argument_out_of_range():
    check_child("""
import numpy as np
main = tvm.script.from_source('''
@T.prim_func
def main(A: T.Buffer((4,), "int32"), n: T.int32):
    for i in range(4):
        with T.block("A"):
            vi = T.axis.spatial(4, i)
            A[vi] = n
''')
from minitvm.driver import build
a = tvm.nd.array(np.zeros(4, "int32"))
f = build(main, target="ref")
expect(ValueError, "value 2147483648 out of range for int32", f, a, 2**31)
f(a, 2**31 - 1)
assert a.numpy()[0] == 2**31 - 1
print("OK")
""")

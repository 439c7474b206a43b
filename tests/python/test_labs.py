"""The course labs' graders (python/minitvm/labs/, tutorials/labs/, tests/labs/): each grader
passes its reference solution, catches every typical wrong solution with the message that
names the mistake, fails the starter with clear messages, and never shows its own traceback.
The `minitvm lab` command and `python -m minitvm.labs` give the same verdict. The lab 02
transcripts quoted by docs/labs.md are compared with a fresh run (UPDATE_GOLDEN=1 rewrites
them). Few cases per lab (``cases=``) keep this file fast.
"""
import io
import os
import subprocess
import sys

import pytest

import minitvm.labs

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAB_DIRS = {1: "01_lownumpy", 2: "02_tensorir", 3: "03_schedule", 4: "04_relax", 5: "05_pass"}
SEED = 7


def lab_file(lab, name):
    return os.path.join(REPO, "tutorials", "labs", LAB_DIRS[lab], name)


def wrong_file(lab, name):
    return os.path.join(REPO, "tests", "labs", f"{lab:02d}", name)


def grade(lab, path, cases=1, timeout=None):
    out = io.StringIO()
    report = minitvm.labs.check(lab, path, cases=cases, seed=SEED, timeout=timeout, out=out)
    return report, out.getvalue()


def assert_no_grader_traceback(text):
    assert "Traceback" not in text
    assert "minitvm/labs/" not in text, text


@pytest.fixture(autouse=True)
def no_timing(monkeypatch):
    """No timed assertions in the tests: lab 03's speed bar is off unless a test sets it."""
    monkeypatch.setenv("MINITVM_LAB_MIN_SPEEDUP", "0")


@pytest.mark.parametrize("lab", sorted(LAB_DIRS))
def test_reference_solution_passes(lab):
    report, text = grade(lab, lab_file(lab, "solution.py"))
    assert report.ok, text
    assert report.passed == report.total and report.score == 1.0
    assert f"seed {SEED}" in text and "all cases pass" in text
    assert_no_grader_traceback(text)


# (lab, file, case that must fail, status, words of its message)
WRONG = [
    (1, "softmax_no_max.py", "softmax #2", "fail", "subtracted first"),
    (1, "layer_norm_no_eps.py", "layer_norm #2", "fail", "sqrt(var + 1e-5)"),
    (1, "conv2d_returns_new.py", "conv2d #1", "fail", "never written"),
    (1, "conv2d_swapped_kernel.py", "conv2d #2", "fail", "differs at index (0, 0, 0, 0)"),
    (1, "uses_np_sum.py", "softmax: written as loops", "fail", "has no for loop"),
    (1, "infinite_loop.py", "layer_norm #1", "timeout", "did not finish within"),
    (2, "mm_relu_no_init.py", "mm_relu: blocks", "fail", "T.init()"),
    (2, "mm_relu_b_transposed.py", "mm_relu #1", "fail", "C (random inputs) differs at index"),
    (2, "conv2d_partial_loops.py", "conv2d #1", "fail", "no block of conv2d stores"),
    (2, "conv2d_wrong_shape.py", "conv2d: signature", "fail", "(2, 4, 10, 10) float32, expected"),
    (2, "not_a_module.py", "MyModule", "fail", "decorate the class with @I.ir_module"),
    (2, "script_error.py", "load", "error", "script_error.py:13"),
    (3, "parallel_reduction.py", "256 x 256 x 256", "error", "at line 8 in schedule_matmul"),
    (3, "vectorize_reduction.py", "256 x 256 x 256", "error", "sch.vectorize(k_inner)"),
    (3, "infinite_loop.py", "256 x 256 x 256", "timeout", "did not finish within"),
    (3, "crash.py", "256 x 256 x 256", "crash", "SIGSEGV"),
    (4, "no_dataflow.py", "main: dataflow block", "fail", "with R.dataflow()"),
    (4, "relax_ops.py", "main: call_tir", "fail", "calls the operator relax."),
    (4, "skips_relu.py", "mlp #1", "fail", "main's result (random) differs"),
    (4, "wrong_weights.py", "mlp #1", "error", "argument W: expected shape (10, 32)"),
    (5, "uses_builtin.py", "written by hand", "fail", "FoldConstant"),
    (5, "one_level.py", "example module", "fail", "calls with only constant inputs are left"),
    (5, "drops_bindings.py", "example module", "fail", "not well formed"),
    (5, "wrong_value.py", "example module", "fail", "after folding (example, input 1) differs"),
    (5, "returns_none.py", "example module", "fail", "returned a NoneType"),
]


@pytest.mark.parametrize("lab,name,case,status,words", WRONG,
                         ids=[f"{w[0]:02d}-{w[1][:-3]}" for w in WRONG])
def test_wrong_solution_is_caught(lab, name, case, status, words):
    # The hanging solutions get a short limit; the others the lab's default.
    timeout = 2 if status == "timeout" else None
    # Enough generated cases to reach the one named (the edge cases come first).
    cases = int(case.split("#")[1]) if "#" in case else 1
    report, text = grade(lab, wrong_file(lab, name), cases=cases, timeout=timeout)
    assert not report.ok, text
    results = {r.name: r for r in report.results}
    assert case in results, text
    assert results[case].status == status, text
    assert words in results[case].message, text
    assert "not yet" in text
    assert_no_grader_traceback(text)


def test_slow_schedule_fails_the_speed_bar(monkeypatch):
    # Only the failing direction is asserted: an unscheduled loop is never 5x itself.
    monkeypatch.setenv("MINITVM_LAB_MIN_SPEEDUP", "5")
    if minitvm.get_global_func("target.build.llvm", allow_missing=True) is None:
        pytest.skip("this build has no LLVM (stage 5): the speed case is skipped")
    report, text = grade(3, wrong_file(3, "no_schedule.py"), cases=1)
    speed = {r.name: r for r in report.results}["speed"]
    assert speed.status == "fail", text
    assert "it must be at least 5x faster" in speed.message
    assert "MINITVM_LAB_MIN_SPEEDUP=2" in speed.message


# (lab, a case the starter fails, words of its message)
STARTER = [
    (1, "conv2d #1", "NotImplementedError: lnumpy_conv2d"),
    (2, "conv2d: blocks", "conv2d has no T.block"),
    (4, "main: dataflow block", "main has no dataflow block"),
    (5, "example module", "calls with only constant inputs are left"),
]


@pytest.mark.parametrize("lab,case,words", STARTER)
def test_starter_fails_clearly(lab, case, words):
    report, text = grade(lab, lab_file(lab, "starter.py"))
    assert not report.ok
    results = {r.name: r for r in report.results}
    assert words in results[case].message, text
    assert_no_grader_traceback(text)


def test_starter_of_lab01_points_at_its_line():
    report, _ = grade(1, lab_file(1, "starter.py"))
    conv = {r.name: r for r in report.results}["conv2d #1"]
    assert conv.status == "error"
    with open(lab_file(1, "starter.py"), encoding="utf-8") as f:
        line = next(i for i, text in enumerate(f, 1) if "raise NotImplementedError" in text)
    assert f"at line {line} in lnumpy_conv2d" in conv.message


def test_lab02_transcripts_match_the_grader(monkeypatch):
    """The reports that docs/labs.md shows are what the grader prints now."""
    monkeypatch.chdir(os.path.join(REPO, "tutorials", "labs", "02_tensorir"))
    for name in ("starter", "solution"):
        out = io.StringIO()
        minitvm.labs.check(2, f"{name}.py", cases=2, seed=2026, out=out)
        golden = f"expected_{name}.txt"
        if os.environ.get("UPDATE_GOLDEN"):
            with open(golden, "w", encoding="utf-8") as f:
                f.write(out.getvalue())
        with open(golden, encoding="utf-8") as f:
            assert out.getvalue() == f.read(), f"{golden} differs (UPDATE_GOLDEN=1 rewrites it)"


def test_python_api_example():
    path = lab_file(2, "solution.py")
    # [api]
    import minitvm.labs

    # path: your solution file, e.g. "my_lab02.py"

    report = minitvm.labs.check(2, path, cases=1, seed=1)  # prints the report
    print(report.passed, "of", report.total, "cases pass; score", report.score)
    assert report.ok
    # [/api]


def test_module_command_line(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
    run = subprocess.run([sys.executable, "-m", "minitvm.labs", "check", "5",
                          lab_file(5, "starter.py"), "--seed=3", "--cases=1"],
                         capture_output=True, text=True, env=env, check=False)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "seed 3" in run.stdout and "score:" in run.stdout
    bad = subprocess.run([sys.executable, "-m", "minitvm.labs", "check", "9", "x.py"],
                         capture_output=True, text=True, env=env, check=False)
    assert bad.returncode == 2 and "there is no lab 9" in bad.stderr
    missing = subprocess.run([sys.executable, "-m", "minitvm.labs", "check", "1",
                              str(tmp_path / "none.py")],
                             capture_output=True, text=True, env=env, check=False)
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_minitvm_lab_command():
    build = os.environ.get("MINITVM_BUILD_DIR", os.path.join(REPO, "build"))
    tool = os.path.join(build, "bin", "minitvm")
    if not os.path.exists(tool):
        pytest.skip(f"{tool} is not built")
    ok = subprocess.run([tool, "lab", "check", "1", lab_file(1, "solution.py"), "--seed=5",
                         "--cases=1"], capture_output=True, text=True, check=False)
    if "unknown command" in ok.stderr:
        pytest.skip("this minitvm was built before the lab command")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "seed 5" in ok.stdout and "all cases pass" in ok.stdout
    bad = subprocess.run([tool, "lab", "check", "1", wrong_file(1, "uses_np_sum.py"),
                          "--seed=5", "--cases=1"], capture_output=True, text=True, check=False)
    assert bad.returncode == 1 and "has no for loop" in bad.stdout
    usage = subprocess.run([tool, "lab"], capture_output=True, text=True, check=False)
    assert usage.returncode == 2 and "minitvm lab check NN FILE" in usage.stderr

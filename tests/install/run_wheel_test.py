#!/usr/bin/env python3
"""The install test of the Python side: a wheel of a build, installed into a fresh venv.

    run_wheel_test.py --build-dir BUILD [--keep]

1. ``pip wheel <repo> --no-build-isolation --no-index`` with ``MINITVM_BUILD_DIR=BUILD``: the
   in-tree PEP 517 backend packages that build as it is (nothing is recompiled);
2. ``python -m venv --system-site-packages`` (NumPy and PyTorch come from the system) and
   ``pip install --no-index --no-build-isolation`` of the wheel into it;
3. with no PYTHONPATH and no MINITVM_BUILD_DIR, from a folder outside the repository: lesson 01
   (its output must equal tutorials/01_runtime/expected_py.txt), a ``tvm.build`` (LLVM when the
   build has stage 5, else the TIR interpreter) checked against NumPy, ``support.libinfo()``,
   and the CLI through the ``minitvm`` console script and ``python -m minitvm``.

Prints ``OK: ...`` and exits with 0 when every step passed. The temporary folder is removed
unless --keep is given or a step failed.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

CHECK_SCRIPT = r"""
import os, sys
import numpy as np
import minitvm as tvm
from minitvm import te

venv = sys.argv[1]
assert os.path.realpath(tvm.__file__).startswith(os.path.realpath(venv)), tvm.__file__
info = tvm.support.libinfo()
assert info["INSTALLED"] == "ON", info
assert info["VERSION"] == tvm.__version__, (info["VERSION"], tvm.__version__)
for key in ("USE_LLVM", "LLVM_VERSION", "USE_CUDA", "GIT_COMMIT_HASH", "STAGES"):
    assert key in info, key
target = "llvm" if info["USE_LLVM"] == "ON" else "ref"

A = te.placeholder((64,), "float32", name="A")
B = te.compute((64,), lambda i: A[i] * 2.0 + 1.0, name="B")
f = tvm.build(te.create_prim_func([A, B]), target=target)
a = tvm.nd.array(np.arange(64, dtype="float32"))
b = tvm.nd.empty((64,), "float32")
f(a, b)
np.testing.assert_allclose(b.numpy(), np.arange(64, dtype="float32") * 2 + 1)
print(f"tvm.build for {target}: OK (minitvm {tvm.__version__}, LLVM {info['LLVM_VERSION']}, "
      f"CUDA {info['USE_CUDA']})")
"""


class Failure(Exception):
    """A step of the test failed."""


def run(cmd, env, cwd=None):
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, check=False)
    if proc.returncode != 0:
        raise Failure(f"{' '.join(cmd)} exited with {proc.returncode}:\n{proc.stdout}")
    return proc.stdout


def clean_env():
    env = dict(os.environ)
    for var in ("PYTHONPATH", "MINITVM_BUILD_DIR", "MINITVM_SOURCE_DIR", "LD_LIBRARY_PATH",
                "PIP_REQUIRE_VIRTUALENV", "PYTHONHOME"):
        env.pop(var, None)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def build_wheel(build_dir, dist, env):
    """Step 1; returns the wheel's path."""
    wheel_env = dict(env, MINITVM_BUILD_DIR=build_dir)
    run([sys.executable, "-m", "pip", "wheel", REPO, "--no-deps", "--no-build-isolation",
         "--no-index", "-w", dist], wheel_env)
    wheels = glob.glob(os.path.join(dist, "minitvm-*.whl"))
    if len(wheels) != 1:
        raise Failure(f"expected one wheel in {dist}, found {wheels}")
    with zipfile.ZipFile(wheels[0]) as zf:
        names = zf.namelist()
        bad = zf.testzip()
    if bad:
        raise Failure(f"{wheels[0]}: corrupt member {bad}")
    wanted = ["minitvm/__init__.py", "minitvm/_build_info.py", "minitvm/lib/libminitvm_lownumpy.so"]
    missing = [w for w in wanted if w not in names]
    if not any(n.startswith("minitvm/_ffi_core") for n in names):
        missing.append("minitvm/_ffi_core*.so")
    if not any(n.endswith(".dist-info/RECORD") for n in names):
        missing.append("*.dist-info/RECORD")
    if missing:
        raise Failure(f"{os.path.basename(wheels[0])} lacks {', '.join(missing)}")
    print(f"built {os.path.basename(wheels[0])} ({len(names)} files, "
          f"{os.path.getsize(wheels[0]) // 1024} KiB)")
    return wheels[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    build_dir = os.path.abspath(args.build_dir)
    env = clean_env()

    tmp = tempfile.mkdtemp(prefix="minitvm-wheel-test-")
    ok = False
    try:
        wheel = build_wheel(build_dir, os.path.join(tmp, "dist"), env)

        venv = os.path.join(tmp, "venv")
        run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", venv], env)
        py = os.path.join(venv, "bin", "python")
        # The system's pip (visible through --system-site-packages) installs into the venv.
        run([py, "-m", "pip", "install", "--no-index", "--no-build-isolation", wheel], env)
        print("installed the wheel into a fresh venv")

        work = os.path.join(tmp, "work")
        os.makedirs(work)
        lesson = os.path.join(REPO, "tutorials", "01_runtime")
        run([py, os.path.join(REPO, "tutorials", "run_lesson.py"), "--expected",
             os.path.join(lesson, "expected_py.txt"), "--", py, os.path.join(lesson, "lesson.py")],
            env, cwd=work)
        print("lesson 01 (runtime) prints its expected output")
        sys.stdout.write(run([py, "-c", CHECK_SCRIPT, venv], env, cwd=work))

        script = os.path.join(REPO, "tests", "stage2", "ir_text", "course_vector_add_old.tvms")
        console = os.path.join(venv, "bin", "minitvm")
        if not os.path.exists(console):
            raise Failure("the wheel installed no `minitvm` console script")
        with zipfile.ZipFile(wheel) as zf:
            has_cli = "minitvm/bin/minitvm" in zf.namelist()
        if has_cli:
            out1 = run([console, "show", script], env, cwd=work)
            out2 = run([py, "-m", "minitvm", "show", script], env, cwd=work)
            if "T.prim_func" not in out1 or out1 != out2:
                raise Failure(f"`minitvm show` printed:\n{out1}\n`python -m minitvm show`:\n{out2}")
            print("the console script and python -m minitvm run the CLI")
        else:  # a stage-1 build has no CLI: the script says so
            proc = subprocess.run([console, "show", script], env=env, capture_output=True,
                                  text=True, check=False)
            if proc.returncode != 2 or "not in" not in proc.stderr:
                raise Failure(f"console script without a CLI: {proc.returncode} {proc.stderr}")
        ok = True
    except Failure as err:
        print(f"FAILED: {err}", file=sys.stderr)
    finally:
        if ok and not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"(temporary files kept in {tmp})", file=sys.stderr)
    if ok:
        print("OK: the wheel installs into a fresh venv and works without environment variables")
        return 0
    return 1


if __name__ == "__main__":
    sys.exit(main())

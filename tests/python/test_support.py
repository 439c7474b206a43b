"""Build facts and the CLI entry from Python (issue 22): ``minitvm.__version__``,
``minitvm.support.libinfo()`` / ``describe()``, ``python -m minitvm`` in the source tree, and
the version agreeing everywhere it is written (the wheel test, tests/install, covers the
installed package)."""
import os
import re
import subprocess
import sys

import pytest

import minitvm as tvm
from minitvm import libinfo as _libinfo

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_libinfo_has_tvm_keys():
    info = tvm.support.libinfo()
    for key in ("VERSION", "GIT_COMMIT_HASH", "USE_LLVM", "LLVM_VERSION", "USE_CUDA",
                "CUDA_VERSION", "CMAKE_BUILD_TYPE", "MAX_STAGE", "STAGES", "INSTALLED"):
        assert key in info, key
    assert all(isinstance(v, str) for v in info.values())
    assert info["VERSION"] == tvm.__version__
    assert info["INSTALLED"] == "OFF"  # the tests run from the source tree
    stages = info["STAGES"].split(",")
    assert stages[0] == "lownumpy" and len(stages) == int(info["MAX_STAGE"])
    if "vm_codegen" in stages:
        assert info["USE_LLVM"] == "ON" and re.match(r"^\d+\.\d+", info["LLVM_VERSION"])
    else:
        assert info["USE_LLVM"] == "OFF" and info["LLVM_VERSION"] == "NOT-FOUND"
    if info["USE_CUDA"] == "OFF":
        assert info["CUDA_VERSION"] == "NOT-FOUND"


def test_describe_prints_versions(capsys):
    tvm.support.describe()
    out = capsys.readouterr().out
    assert f"minitvm version = {tvm.__version__}" in out and '"USE_LLVM"' in out


def test_version_is_one_version():
    with open(os.path.join(REPO, "pyproject.toml"), encoding="utf-8") as f:
        assert 'dynamic = ["version"]' in f.read()  # the backend reads __version__
    assert re.match(r"^\d+\.\d+\.\d+$", tvm.__version__)


def test_python_m_minitvm_runs_the_cli():
    cli = _libinfo.find_cli()
    if cli is None:
        pytest.skip("the minitvm CLI is not built")
    script = os.path.join(REPO, "tests", "stage2", "ir_text", "course_vector_add_old.tvms")
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-m", "minitvm", "show", script], capture_output=True,
                       text=True, env=env, timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    direct = subprocess.run([cli, "show", script], capture_output=True, text=True, timeout=120,
                            check=False)
    assert r.stdout == direct.stdout and "T.prim_func" in r.stdout
    # the CLI's own errors and exit status come through unchanged
    bad = subprocess.run([sys.executable, "-m", "minitvm", "show", "/no/such/file.py"],
                         capture_output=True, text=True, env=env, timeout=120, check=False)
    assert bad.returncode != 0 and "/no/such/file.py" in bad.stderr


def test_missing_cli_is_reported(monkeypatch, capsys):
    from minitvm import __main__ as entry  # pylint: disable=import-outside-toplevel

    monkeypatch.setattr(_libinfo, "find_cli", lambda: None)
    assert entry.main(["show", "x.py"]) == 2
    assert "command-line program is not in" in capsys.readouterr().err

"""pytest setup for the Python tests: find the package and the build.

``pytest tests/python`` from the repository root imports ``minitvm`` from ``<repo>/python``
and its extension from ``$MINITVM_BUILD_DIR`` (default ``<repo>/build``).
"""
import os
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "python"))
os.environ.setdefault("MINITVM_BUILD_DIR", os.path.join(REPO_ROOT, "build"))


def requires_global(name):
    """Skip a test when the global function ``name`` is not registered in this build."""
    import minitvm  # pylint: disable=import-outside-toplevel

    if minitvm.get_global_func(name, allow_missing=True) is None:
        pytest.skip(f'global function "{name}" is not registered in this build')


@pytest.fixture
def torch():
    """The torch module, or skip the test when PyTorch is not installed."""
    return pytest.importorskip("torch")


@pytest.fixture
def require_global():
    """A function that skips the test when a global function is not registered."""
    return requires_global

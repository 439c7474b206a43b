"""Showing IR to a person (issue 22): ``show()`` highlights TVMScript with Pygments in a
terminal and prints plain text elsewhere; ``_repr_html_`` renders IRModule, PrimFunc, Relax
Function, Schedule and NDArray in a notebook."""
import io
import re
import sys
import types

import numpy as np
import pytest

import minitvm as tvm
from minitvm import te
from minitvm.script import highlight

ANSI = re.compile(r"\x1b\[[0-9;]*m")


class FakeTerminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self):
        return True


@pytest.fixture(name="mod")
def fixture_mod():
    A = te.placeholder((16,), "float32", name="A")
    B = te.compute((16,), lambda i: A[i] * 2.0, name="B")
    return tvm.IRModule({"main": te.create_prim_func([A, B])})


@pytest.fixture(autouse=True)
def _no_env_style(monkeypatch):
    for var in ("NO_COLOR", "MINITVM_PYGMENTIZE_STYLE", "TVM_PYGMENTIZE_STYLE",
                "MINITVM_BLACK_FORMAT", "TVM_BLACK_FORMAT"):
        monkeypatch.delenv(var, raising=False)
    highlight._WARNED.clear()  # pylint: disable=protected-access


def _without_pygments(monkeypatch):
    for name in list(sys.modules):
        if name == "pygments" or name.startswith("pygments."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pygments", None)  # `import pygments` raises ImportError


def test_show_is_plain_when_not_a_terminal(mod, capsys):
    mod.show()
    assert capsys.readouterr().out == mod.script() + "\n"
    mod["main"].show(style="dark")
    assert capsys.readouterr().out == mod["main"].script() + "\n"


@pytest.mark.parametrize("style", [None, "ansi", "light", "dark", "monokai"])
def test_show_highlights_in_a_terminal(mod, monkeypatch, style):
    term = FakeTerminal()
    monkeypatch.setattr(sys, "stdout", term)
    mod.show(style=style)
    out = term.getvalue()
    assert "\x1b[" in out, "no colour codes"
    assert ANSI.sub("", out) == mod.script() + "\n"  # the same text, only coloured


def test_style_from_environment(mod, monkeypatch):
    monkeypatch.setenv("MINITVM_PYGMENTIZE_STYLE", "dark")
    assert highlight.resolve_style().__name__ == "Dark"
    monkeypatch.setenv("MINITVM_PYGMENTIZE_STYLE", "no-such-style")
    with pytest.raises(ValueError, match="unknown style 'no-such-style'"):
        highlight.cprint(mod, file=FakeTerminal())


def test_unknown_style_is_an_error_even_when_plain(mod, capsys):
    with pytest.raises(ValueError, match="unknown style 'purple-rain'.*Pygments style name"):
        mod.show(style="purple-rain")
    assert capsys.readouterr().out == ""


def test_no_color_and_missing_pygments_print_plain_text(mod, monkeypatch):
    term = FakeTerminal()
    monkeypatch.setattr(sys, "stdout", term)
    monkeypatch.setenv("NO_COLOR", "1")
    mod.show()
    assert term.getvalue() == mod.script() + "\n"

    monkeypatch.delenv("NO_COLOR")
    _without_pygments(monkeypatch)
    term2 = FakeTerminal()
    monkeypatch.setattr(sys, "stdout", term2)
    with pytest.warns(UserWarning, match="Pygments is not installed"):
        mod.show()
    assert term2.getvalue() == mod.script() + "\n"
    # HTML falls back to an escaped <pre>
    html = mod._repr_html_()  # pylint: disable=protected-access
    assert html.startswith('<pre class="minitvm-script">')
    assert "&quot;" in html or "&#x27;" in html  # the dtype strings' quotes, escaped


def test_black_format_without_a_formatter_warns_and_keeps_the_text(mod, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "black", None)
    monkeypatch.setattr(highlight.shutil, "which", lambda name: None)
    with pytest.warns(UserWarning, match="neither Black nor ruff"):
        mod.show(black_format=True)
    assert capsys.readouterr().out == mod.script() + "\n"
    monkeypatch.setenv("MINITVM_BLACK_FORMAT", "1")  # None reads the environment
    assert highlight._black_default(None)  # pylint: disable=protected-access
    assert not highlight._black_default(False)  # pylint: disable=protected-access


def test_black_format_uses_black_when_present(mod, monkeypatch, capsys):
    fake = types.SimpleNamespace(FileMode=lambda: None,
                                 format_str=lambda text, mode: "# formatted\n" + text)
    monkeypatch.setitem(sys.modules, "black", fake)
    mod.show(black_format=True)
    assert capsys.readouterr().out == "# formatted\n" + mod.script() + "\n"


def test_notebook_show_displays_html(mod, monkeypatch):
    shown = []
    display = types.SimpleNamespace(HTML=lambda text: ("HTML", text), display=shown.append)
    ipython = types.ModuleType("IPython")
    ipython.display = display
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    mod.show()
    assert len(shown) == 1 and shown[0][0] == "HTML"
    assert "minitvm-script" in shown[0][1] and "style=" in shown[0][1]


def _visible_text(html_text):
    import html as html_lib  # pylint: disable=import-outside-toplevel

    return html_lib.unescape(re.sub(r"<[^>]+>", "", html_text))


def test_repr_html_of_module_and_prim_func(mod):
    for obj in (mod, mod["main"]):
        out = obj._repr_html_()  # pylint: disable=protected-access
        assert "minitvm-script" in out and "style=" in out  # inline colours: no CSS needed
        assert _visible_text(out).strip() == obj.script().strip()


def test_repr_html_of_schedule_shows_module_and_trace(mod):
    sch = tvm.tir.Schedule(mod)
    (i,) = sch.get_loops(sch.get_block("B"))
    sch.split(i, factors=[None, 4])
    out = sch._repr_html_()  # pylint: disable=protected-access
    text = _visible_text(out)
    assert sch.mod.script().strip() in text
    assert "sch.split" in text and "<details>" in out


def test_trace_show_plain_and_highlighted(mod, capsys, monkeypatch):
    sch = tvm.tir.Schedule(mod)
    sch.split(sch.get_loops(sch.get_block("B"))[0], factors=[None, 4])
    sch.trace.show()
    assert capsys.readouterr().out == str(sch.trace)  # as before highlighting existed
    term = FakeTerminal()
    monkeypatch.setattr(sys, "stdout", term)
    sch.trace.show(style="light")
    assert "\x1b[" in term.getvalue()
    assert ANSI.sub("", term.getvalue()) == str(sch.trace)


def test_repr_html_of_ndarray():
    a = tvm.nd.array(np.arange(6, dtype="float32").reshape(2, 3))
    out = a._repr_html_()  # pylint: disable=protected-access
    assert "shape=(2, 3)" in out and "float32" in out
    assert "array([[0., 1., 2.]," in _visible_text(out)
    big = tvm.nd.array(np.zeros((100, 100), dtype="int32"))
    assert "..." in big._repr_html_()  # pylint: disable=protected-access


def test_repr_html_of_relax_function():
    if not hasattr(tvm, "relax"):
        pytest.skip("stage 4 (Relax) is not built")
    from minitvm.script import ir as I, relax as R  # pylint: disable=import-outside-toplevel

    @I.ir_module
    class Module:  # pylint: disable=too-few-public-methods
        @R.function
        def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            y = R.add(x, x)
            return y

    func = Module["main"]
    out = func._repr_html_()  # pylint: disable=protected-access
    assert _visible_text(out).strip() == func.script().strip()
    assert "R.add" in _visible_text(out)

"""Showing TVMScript to a person: colours in a terminal, HTML in a notebook.

``mod.show()``, ``func.show()``, ``sch.show()`` and ``sch.trace.show()`` call :func:`cprint`;
the ``_repr_html_`` methods (IRModule, PrimFunc, Relax Function, Schedule, NDArray) call
:func:`to_html`. Both use Pygments' Python lexer when Pygments is installed (Debian:
python3-pygments) and fall back to plain text otherwise.

:func:`cprint` colours only what goes to a terminal: when standard output is not a tty (a pipe,
a file, pytest's capture), or ``NO_COLOR`` is set, the text is printed as it is, so
``python lesson.py > out.txt`` stays plain. In a Jupyter kernel it displays highlighted HTML.

Styles (``style=``): ``"ansi"`` (the terminal default: the terminal's own 16 colours),
``"light"`` (the notebook default), ``"dark"``, or the name of any Pygments style
(``"monokai"``, ``"solarized-light"``, ...). ``MINITVM_PYGMENTIZE_STYLE`` (or TVM's
``TVM_PYGMENTIZE_STYLE``) sets the default. ``black_format=True`` reformats the text with Black
(or ``ruff format``) first when one of them is installed; ``None`` reads ``MINITVM_BLACK_FORMAT``
/ ``TVM_BLACK_FORMAT`` ("1" to enable), as TVM does.
"""
import html
import os
import shutil
import subprocess
import sys
import warnings

__all__ = ["cprint", "to_html", "highlight_terminal", "resolve_style"]

_WARNED = set()


def _warn_once(key, message):
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(message, UserWarning, stacklevel=3)


def _pygments():
    """The pygments module, or None when it is not installed."""
    try:
        import pygments  # pylint: disable=import-outside-toplevel
    except ImportError:
        return None
    return pygments


def _text_of(printable):
    if isinstance(printable, str):
        return printable
    script = getattr(printable, "script", None)
    if callable(script):
        return script()
    raise TypeError(
        "cprint prints a string or an object with a script() method, not "
        f"{type(printable).__name__}"
    )


def _styles():
    """The three named styles of minitvm, as Pygments Style classes."""
    # pylint: disable=import-outside-toplevel
    from pygments.style import Style
    from pygments.token import Comment, Keyword, Name, Number, Operator, String

    class Ansi(Style):
        """The terminal's own palette (works on light and dark backgrounds)."""

        background_color = ""
        styles = {
            Keyword: "bold ansimagenta",
            Keyword.Constant: "ansicyan",
            Name.Builtin: "ansicyan",
            Name.Function: "bold ansiblue",
            Name.Class: "bold ansiblue",
            Name.Decorator: "ansicyan",
            String: "ansiyellow",
            Number: "ansigreen",
            Operator.Word: "bold ansimagenta",
            Comment: "italic ansibrightblack",
        }

    class Light(Style):
        """For a white page (the notebook default)."""

        background_color = "#ffffff"
        styles = {
            Keyword: "bold #7928a1",
            Keyword.Constant: "#0e6f89",
            Name.Builtin: "#0e6f89",
            Name.Function: "#1a4fb5",
            Name.Class: "bold #1a4fb5",
            Name.Decorator: "#8b4a00",
            String: "#a31515",
            Number: "#107a10",
            Operator.Word: "bold #7928a1",
            Comment: "italic #6a737d",
        }

    class Dark(Style):
        """For a dark page."""

        background_color = "#1e1e1e"
        styles = {
            Keyword: "bold #d7a6f5",
            Keyword.Constant: "#63c5da",
            Name.Builtin: "#63c5da",
            Name.Function: "#86b7ff",
            Name.Class: "bold #86b7ff",
            Name.Decorator: "#f0b070",
            String: "#f09a8a",
            Number: "#9ad79a",
            Operator.Word: "bold #d7a6f5",
            Comment: "italic #8b949e",
        }

    return {"ansi": Ansi, "light": Light, "dark": Dark}


def resolve_style(style=None, notebook=False):
    """The Pygments style for `style` (a name, a Style class, or None for the default: the
    environment's MINITVM_/TVM_PYGMENTIZE_STYLE, else "light" in a notebook and "ansi" in a
    terminal). None when Pygments is not installed. ValueError for an unknown style name."""
    if _pygments() is None:
        return None
    if style is None:
        style = (
            os.environ.get("MINITVM_PYGMENTIZE_STYLE", "").strip()
            or os.environ.get("TVM_PYGMENTIZE_STYLE", "").strip()
            or ("light" if notebook else "ansi")
        )
    if not isinstance(style, str):
        return style  # a Style class
    named = _styles()
    if style in named:
        return named[style]
    from pygments.styles import get_style_by_name  # pylint: disable=import-outside-toplevel
    from pygments.util import ClassNotFound  # pylint: disable=import-outside-toplevel

    try:
        return get_style_by_name(style)
    except ClassNotFound:
        raise ValueError(
            f"unknown style {style!r}: use 'ansi', 'light', 'dark' or a Pygments style name"
        ) from None


def _black_format(text):
    """`text` formatted by Black (or ruff), or unchanged with a warning when neither exists."""
    try:
        import black  # pylint: disable=import-outside-toplevel

        return black.format_str(text, mode=black.FileMode())
    except ImportError:
        pass
    ruff = shutil.which("ruff")
    if ruff:
        proc = subprocess.run(
            [ruff, "format", "--stdin-filename=script.py", "-"],
            input=text, capture_output=True, text=True, check=False,
        )
        if proc.returncode == 0:
            return proc.stdout
    _warn_once(
        "black",
        "black_format=True: neither Black nor ruff is installed, the text is printed unformatted "
        f"(install one with: {sys.executable} -m pip install black)",
    )
    return text


def _black_default(black_format):
    if black_format is not None:
        return bool(black_format)
    env = os.environ.get("MINITVM_BLACK_FORMAT") or os.environ.get("TVM_BLACK_FORMAT") or "0"
    try:
        return bool(int(env))
    except ValueError:
        return False


def _in_notebook():
    """True inside a Jupyter (IPython kernel) session."""
    return "ipykernel" in sys.modules


def _stdout_is_terminal(stream):
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def highlight_terminal(text, style=None):
    """`text` with ANSI colour codes (256-colour), or unchanged without Pygments."""
    style = resolve_style(style)
    if style is None:
        return text
    # pylint: disable=import-outside-toplevel
    from pygments import highlight
    from pygments.formatters import Terminal256Formatter
    from pygments.lexers import PythonLexer

    return highlight(text, PythonLexer(stripnl=False), Terminal256Formatter(style=style))


def to_html(text, style="light"):
    """`text` as an HTML ``<div>`` with inline colours (Pygments), else an escaped ``<pre>``."""
    resolved = resolve_style(style, notebook=True)
    if resolved is None:
        return f'<pre class="minitvm-script">{html.escape(text)}</pre>'
    # pylint: disable=import-outside-toplevel
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    return highlight(
        text,
        PythonLexer(stripnl=False),
        HtmlFormatter(style=resolved, noclasses=True, cssclass="minitvm-script"),
    )


def cprint(printable, style=None, black_format=None, file=None):
    """Print TVMScript (a string or anything with ``script()``) for a person to read.

    Highlighted with Pygments when writing to a terminal (or as HTML in a notebook); plain
    text when Pygments is missing, the output is not a terminal, or ``NO_COLOR`` is set.
    ``style`` and ``black_format``: see the module docstring.
    """
    text = _text_of(printable)
    if _black_default(black_format):
        text = _black_format(text)
    out = sys.stdout if file is None else file
    if file is None and _in_notebook():
        resolved = resolve_style(style, notebook=True)
        if resolved is not None:
            from IPython import display  # pylint: disable=import-outside-toplevel

            display.display(display.HTML(to_html(text, resolved)))
            return
    if _stdout_is_terminal(out):
        if _pygments() is None:
            _warn_once(
                "pygments",
                "Pygments is not installed: TVMScript is shown without colours (install it with "
                f"apt install python3-pygments or {sys.executable} -m pip install Pygments)",
            )
        else:
            resolve_style(style)  # an unknown name fails before anything is printed
            # Pygments ends the text with one newline; print() would add one to the text's own.
            out.write(highlight_terminal(text, style) + ("\n" if text.endswith("\n") else ""))
            return
    elif style is not None:
        resolve_style(style)  # an unknown name is an error even when nothing is coloured
    print(text, file=out)

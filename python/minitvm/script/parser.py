"""The Python side of the TVMScript parser: source lookup for the decorators (stage 2).

The parsing itself is C++ (``"script.FromSource"``); this module finds the text of a
decorated class or function with :mod:`inspect` and passes it on with the file name and the
number of lines before it, so that errors name the right line of the user's file.
"""
import inspect
import re
import sys

from .. import error as _error
from . import _ffi_api

__all__ = ["from_source", "ir_module", "prim_func", "as_script"]


_BAD_CHAR = re.compile("[\x00\ud800-\udfff]")


def _check_script_text(text, file_name, line_offset):
    """ParseError (with file, line, column and a caret) for characters no script may hold.

    A NUL cannot cross into C++ and a lone surrogate has no UTF-8 form; Python's own parser
    refuses both, so these are refused here, before the text leaves Python, in the layout of
    the C++ diagnostics.
    """
    bad = _BAD_CHAR.search(text)
    if bad is None:
        return
    pos = bad.start()
    lines = re.split("\r\n|\r|\n", text[:pos])
    line, col = len(lines), len(lines[-1]) + 1
    line_text = re.split("\r\n|\r|\n", text[pos - len(lines[-1]):], maxsplit=1)[0]
    char = bad.group()
    what = "a NUL character" if char == "\x00" else f"a lone surrogate (U+{ord(char):04X})"
    shown = _BAD_CHAR.sub(lambda m: " ", line_text)
    number = str(line + line_offset)
    gutter = " " * (len(number) + 1)
    caret = "".join("\t" if c == "\t" else " " for c in line_text[: col - 1]) + "^"
    raise _error.ParseError(
        f"error: {what} in the script (Python source cannot contain it)\n"
        f" --> {file_name}:{number}:{col}\n{gutter}|\n{number} | {shown}\n{gutter}| {caret}"
    )


def from_source(text, file_name="<string>", line_offset=0, metadata=None,
                check_well_formed=True):  # pylint: disable=unused-argument
    """Parse TVMScript text: an ``@I.ir_module`` class gives an ``IRModule``, a
    ``@T.prim_func`` function a ``PrimFunc``, an ``@R.function`` a ``relax.Function``.

    Parameters
    ----------
    text : str
        The script.
    file_name : str
        The name diagnostics show.
    line_offset : int
        Added to line numbers in diagnostics (the lines of the file before ``text``).
    metadata : dict, optional
        The constants a printed Relax script refers to as ``metadata["relax.expr.Constant"][i]``
        when it was printed without them: ``{"relax.expr.Constant": [c0, c1, ...]}`` (Relax
        ``Constant``s or NDArrays). Without it such a reference is a ParseError.
    """
    if not isinstance(text, str):
        raise _error.TypeError(f"from_source expects a str, got {type(text).__name__}")
    if not isinstance(file_name, str):
        raise _error.TypeError(f"from_source: file_name must be a str, not {file_name!r}")
    if isinstance(line_offset, bool) or not isinstance(line_offset, int) or line_offset < 0:
        raise _error.TypeError(
            f"from_source: line_offset must be a non-negative int, not {line_offset!r}")
    _check_script_text(text, file_name, line_offset)
    if metadata is not None:
        if not isinstance(metadata, dict):
            raise _error.TypeError(
                f"from_source: metadata must be a dict of lists, not {type(metadata).__name__}")
        table = {str(k): list(v) for k, v in metadata.items()}
        return _ffi_api.FromSourceWithMetadata(text, table, file_name, line_offset)
    return _ffi_api.FromSource(text, file_name, line_offset)


def as_script(node):
    """The TVMScript text of an IRModule, PrimFunc, statement or expression."""
    return _ffi_api.AsScript(node)


def _code_of_members(cls):
    """The code objects of the functions defined in a class body (decorated ones included)."""
    for value in vars(cls).values():
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        value = inspect.unwrap(value) if callable(value) else value
        code = getattr(value, "__code__", None)
        if code is not None:
            yield code


def _class_source_from_members(cls):
    """``(lines, first_line, file_name)`` of a class found through its methods' code objects.

    ``inspect`` finds a class's file through its module's ``__file__``. A class typed into a
    Jupyter cell (or an IPython prompt) lives in ``__main__``, which has no file, so
    ``inspect.getsourcelines`` raises, although the cell's text is in ``linecache`` under the
    file name its functions were compiled with. That name is taken from the functions the class
    defines; the class is then the ``class`` statement of that text with the class's name that
    encloses their first lines (a cell run twice is a new file name each time).
    """
    import ast  # pylint: disable=import-outside-toplevel
    import linecache  # pylint: disable=import-outside-toplevel

    codes = list(_code_of_members(cls))
    if not codes:
        return None
    file_name = codes[0].co_filename
    lines = linecache.getlines(file_name)
    if not lines:
        return None
    try:
        tree = ast.parse("".join(lines))
    except SyntaxError:
        return None
    first_lines = [c.co_firstlineno for c in codes if c.co_filename == file_name]
    best = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef) or node.name != cls.__name__:
            continue
        start = min([node.lineno] + [d.lineno for d in node.decorator_list])
        if all(start <= line <= node.end_lineno for line in first_lines):
            if best is None or start > best[0]:  # the innermost enclosing one
                best = (start, node.end_lineno)
    if best is None:
        return None
    start, end = best
    return lines[start - 1:end], start, file_name


def _source_of(obj):
    """``(text, file_name, line_offset)`` of a decorated class or function."""
    try:
        lines, start = inspect.getsourcelines(obj)
        file_name = inspect.getsourcefile(obj) or inspect.getfile(obj)
    except (OSError, TypeError) as err:
        found = _class_source_from_members(obj) if inspect.isclass(obj) else None
        if found is None:
            # An OSError as inspect raises, and a minitvm error.
            raise _error.get_error_class("OSError")(
                f"cannot find the source of {getattr(obj, '__qualname__', obj)!r} "
                "(the TVMScript decorators read the source file; for code typed into an "
                "interpreter use minitvm.script.from_source(text))"
            ) from err
        lines, start, file_name = found
    # Lines are passed as they are, indentation included: the C++ lexer takes the first
    # line's indentation as the base level, so columns match the file.
    return "".join(lines), file_name, start - 1


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _with_captured_constants(text, offset, scope):
    """The source with the Python constants it names prepended as assignments.

    Scripts use constants defined elsewhere in the Python file (``M = N = K = 128`` above the
    decorated class, or a variable of the function that defines it). The decorators see only
    the class or function text, so, as TVM does with the values around the decorated code,
    every name in the text that ``scope`` binds to a number, bool or string becomes a
    ``NAME = value`` line in front of it (the parser reads module-level constants). The line
    offset moves up by as many lines, so diagnostics still point at the file's lines.
    """
    indent = text[: len(text) - len(text.lstrip(" "))]
    lines = []
    for name in sorted(set(_NAME.findall(text))):
        value = scope.get(name, None)
        if isinstance(value, (bool, int, float, str)) and not name.startswith("__"):
            if isinstance(value, float) and value != value:  # NaN has no literal
                continue
            lines.append(f"{indent}{name} = {value!r}\n")
    return "".join(lines) + text, offset - len(lines)


def _caller_scope(depth):
    """The globals and locals of the frame `depth` levels up (where the decorator is used)."""
    frame = sys._getframe(depth + 1)  # pylint: disable=protected-access
    scope = dict(frame.f_globals)
    scope.update(frame.f_locals)
    return scope


def _parse_decorated(obj, depth):
    text, file_name, offset = _source_of(obj)
    scope = _caller_scope(depth + 1)
    text, offset = _with_captured_constants(text, offset, scope)
    _check_script_text(text, file_name, int(offset))
    closure = _captured_objects(text, scope)
    if closure:
        return _ffi_api.FromSourceWithClosure(text, closure, file_name, int(offset))
    return _ffi_api.FromSource(text, file_name, int(offset))


def _script_helper(func):
    """`func` as the parser calls it: the keywords come as a last dict argument, and a
    ``T.`` call it returns (``T.decl_buffer(...)`` of ``minitvm.script.tir``) goes back as a
    record the parser runs."""

    def record(value):
        from .tir import _ScriptCall  # pylint: disable=import-outside-toplevel

        if isinstance(value, _ScriptCall):
            return ["__minitvm_script_call__", value._name,  # pylint: disable=protected-access
                    [record(a) for a in value.args],
                    {str(k): record(v) for k, v in value.kwargs.items()}]
        if isinstance(value, (list, tuple)):
            return [record(v) for v in value]
        return value

    def call(*args):
        *positional, keywords = args
        kwargs = {str(k): v for k, v in keywords.items()} if keywords is not None else {}
        return record(func(*positional, **kwargs))

    call.__name__ = getattr(func, "__name__", "helper")
    return call


def _captured_objects(text, scope):
    """The IR objects (expressions, buffers, lists of them) the script names from the Python
    scope around it, as TVM's parser sees the decorated function's closure variables."""
    from ..runtime.object import Object  # pylint: disable=import-outside-toplevel

    def usable(value, depth=0):
        if isinstance(value, Object):
            return True
        if isinstance(value, (list, tuple)) and depth < 4:
            return all(usable(v, depth + 1) or isinstance(v, (int, float, str)) for v in value)
        return False

    import types  # pylint: disable=import-outside-toplevel

    from ..ir.module import IRModule  # pylint: disable=import-outside-toplevel
    from ..tir.function import PrimFunc  # pylint: disable=import-outside-toplevel

    defined = set(re.findall(r"\bdef\s+([A-Za-z_][A-Za-z0-9_]*)", text))
    defined |= set(re.findall(r"\bclass\s+([A-Za-z_][A-Za-z0-9_]*)", text))
    out = {}
    for name in set(_NAME.findall(text)) - defined:
        value = scope.get(name, None)
        if name.startswith("__") or isinstance(value, (IRModule, PrimFunc)):
            continue
        if isinstance(value, types.ModuleType) and value.__name__ == "minitvm.tir":
            out[name] = "__minitvm_module__:tvm.tir"  # `from tvm import tir`: tir.call_tir, ...
            continue
        if isinstance(value, types.FunctionType) and value.__module__ != __name__ and \
                not getattr(value, "__module__", "").startswith("minitvm"):
            out[name] = _script_helper(value)  # a Python helper the script calls at parse time
        elif usable(value):
            out[name] = list(value) if isinstance(value, tuple) else value
    return out


def _called_in_class_body(depth):
    """True when the frame `depth` levels up is executing a class body."""
    frame = sys._getframe(depth + 1)  # pylint: disable=protected-access
    return "__module__" in frame.f_locals and "__qualname__" in frame.f_locals


def prim_func(func=None, private=False, check_well_formed=True,  # pylint: disable=unused-argument
              s_tir=False):
    """Decorator: the decorated function's TVMScript source becomes a ``PrimFunc``.

    Inside an ``@I.ir_module`` class the function is left alone: the module decorator parses
    the whole class. ``@T.prim_func(private=True)`` makes a function without a global symbol.
    ``s_tir=True`` (TVM 0.22's mark of a function with schedulable blocks) changes nothing.
    """

    def decorate(f):
        if _called_in_class_body(1):
            f.__minitvm_prim_func__ = True
            return f
        return _parse_decorated(f, 1)

    if func is None:
        return decorate
    if not callable(func):
        raise _error.TypeError(f"T.prim_func decorates a function, not {func!r}")
    if _called_in_class_body(1):
        func.__minitvm_prim_func__ = True
        return func
    return _parse_decorated(func, 1)


def ir_module(cls=None, check_well_formed=True):  # pylint: disable=unused-argument
    """Decorator: the decorated class's TVMScript source becomes an ``IRModule``."""

    def decorate(c):
        if not inspect.isclass(c):
            raise _error.TypeError(f"I.ir_module decorates a class, not {c!r}")
        return _parse_decorated(c, depth)

    if cls is None:
        depth = 1  # @I.ir_module(): the class statement calls decorate itself
        return decorate
    depth = 2
    return decorate(cls)


class _ParserRelaxModule(__import__("types").ModuleType):
    """``tvm.script.parser.relax``: the ``R`` namespace, with TVM's ``entry`` submodule (where
    TVM keeps the Relax annotation classes) beside it."""

    def __getattr__(self, name):
        from . import relax as _relax  # pylint: disable=import-outside-toplevel

        if name == "entry":
            return _relax
        return getattr(_relax, name)


def __getattr__(name):
    """``tvm.script.parser.ir`` / ``.tir`` / ``.relax`` (TVM's parser package holds the script
    namespaces: ``from tvm.script.parser import relax as R``)."""
    if name in ("ir", "tir"):
        import importlib  # pylint: disable=import-outside-toplevel

        return importlib.import_module(f"{__package__}.{name}")
    if name == "relax":
        return _ParserRelaxModule(f"{__name__}.relax")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

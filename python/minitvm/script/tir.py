"""``from minitvm.script import tir as T``: the ``T.`` names of TVMScript (stage 2).

``T.prim_func`` is the decorator that parses a function. Every other ``T.`` name used in a
script (``T.Buffer``, ``T.handle``, ``T.float32``, ``T.grid``, ``T.block``, ...) is read by the
C++ parser from the source text and never executed; here they only have to be harmless Python
objects, because parameter annotations such as ``A: T.Buffer((8,), "float32")`` and
``T.Buffer[8, "float32"]`` are evaluated when Python runs the ``def``.
"""
from .parser import prim_func

__all__ = ["prim_func"]


class _ScriptName:
    """A placeholder for a ``T.`` name: callable and subscriptable, returning itself."""

    def __init__(self, name):
        self._name = name

    def __call__(self, *args, **kwargs):
        return self

    def __getitem__(self, item):
        return self

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _ScriptName(f"{self._name}.{name}")

    def __repr__(self):
        return f"T.{self._name}"


_DTYPES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "bfloat16", "handle", "void",
]
_FUNCTIONS = [
    # buffers and types
    "Buffer", "match_buffer", "alloc_buffer", "decl_buffer", "allocate", "buffer", "Ptr",
    # loops and blocks
    "serial", "parallel", "vectorized", "unroll", "thread_binding", "grid", "block", "axis",
    "init", "where", "reads", "writes", "block_attr", "func_attr", "launch_thread",
    "env_thread", "attr", "LetStmt", "Assert", "evaluate",
    # expressions
    "Cast", "cast", "Select", "if_then_else", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid",
    "erf", "fabs", "floor", "ceil", "round", "abs", "pow", "max", "min", "floordiv",
    "floormod", "truncdiv", "truncmod", "likely", "Ramp", "Broadcast", "Let", "call_extern",
    "call_intrin", "reinterpret", "min_value", "max_value", "iter_var", "Add", "Sub", "Mul",
    "Div", "Mod", "FloorDiv", "FloorMod", "Min", "Max", "EQ", "NE", "LT", "LE", "GT", "GE",
    "And", "Or", "Not",
]

for _name in _DTYPES + _FUNCTIONS:
    globals()[_name] = _ScriptName(_name)
del _name


def __getattr__(name):
    """Vector dtypes (``T.float32x4``) and other dtype spellings are placeholders too."""
    base = name.rstrip("0123456789x")
    if base in ("int", "uint", "float", "bfloat") or any(name.startswith(d) for d in _DTYPES):
        return _ScriptName(name)
    raise AttributeError(f"module 'minitvm.script.tir' has no attribute {name!r}")

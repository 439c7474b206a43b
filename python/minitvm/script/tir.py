"""``from minitvm.script import tir as T``: the ``T.`` names of TVMScript (stage 2).

``T.prim_func`` is the decorator that parses a function. Every other ``T.`` name used in a
script (``T.Buffer``, ``T.handle``, ``T.float32``, ``T.grid``, ``T.block``, ...) is read by the
C++ parser from the source text and never executed; here they only have to be harmless Python
objects, because parameter annotations such as ``A: T.Buffer((8,), "float32")`` and
``T.Buffer[8, "float32"]`` are evaluated when Python runs the ``def``.
"""
import builtins as _builtins

from .parser import prim_func

__all__ = ["prim_func"]


class _ScriptName:
    """A placeholder for a ``T.`` name: callable and subscriptable, returning itself."""

    def __init__(self, name):
        self._name = name

    def __call__(self, *args, **kwargs):
        return _ScriptCall(self._name, args, kwargs)

    def __getitem__(self, item):
        return self

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _ScriptName(f"{self._name}.{name}")

    def __repr__(self):
        return f"T.{self._name}"


class _ScriptCall(_ScriptName):
    """``T.name(*args, **kwargs)`` called from Python: the call, recorded. A Python helper a
    script calls (``def make(*a, **k): return T.decl_buffer(*a, **k)``) returns it, and the
    parser runs it as if the script had written the call."""

    def __init__(self, name, args, kwargs):
        super().__init__(name)
        self.args = args
        self.kwargs = kwargs


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
    "sblock", "sblock_alloc_buffer", "sblock_attr",  # TVM 0.22's names of block, ...
    "env_thread", "attr", "LetStmt", "Assert", "evaluate",
    # expressions
    "Cast", "cast", "Select", "if_then_else", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid",
    "erf", "fabs", "floor", "ceil", "round", "abs", "pow", "max", "min", "floordiv",
    "floormod", "truncdiv", "truncmod", "likely", "Ramp", "Broadcast", "Let", "call_extern",
    "call_intrin", "reinterpret", "min_value", "max_value", "iter_var", "Add", "Sub", "Mul",
    "Div", "Mod", "FloorDiv", "FloorMod", "Min", "Max", "EQ", "NE", "LT", "LE", "GT", "GE",
    "And", "Or", "Not",
]

class _DTypeName(_ScriptName):
    """``T.int32(16)`` called from Python is the constant, as in TVM (``tir.const(16, "int32")``;
    a PrimExpr argument is cast); other uses stay script calls the parser runs."""

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and self._name not in ("handle", "void"):
            from .. import tir as _tir  # pylint: disable=import-outside-toplevel

            value = args[0]
            if isinstance(value, (_builtins.bool, _builtins.int, _builtins.float)):
                return _tir.const(value, self._name)
            if isinstance(value, _tir.PrimExpr):
                return _tir.Cast(self._name, value) if value.dtype != self._name else value
        return super().__call__(*args, **kwargs)


for _name in _DTYPES:
    globals()[_name] = _DTypeName(_name)
for _name in _FUNCTIONS:
    globals()[_name] = _ScriptName(_name)
del _name


# T.<intrinsic> called from Python (outside a parsed function) builds the expression, as in
# TVM: `e = T.exp2(x)` and then `T.evaluate(e)` inside a script that names `e`. A `dtype=`
# keyword is accepted and ignored, as TVM's builders do, except where it is the result dtype.
_INTRINSICS = [
    "exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "tanh", "sigmoid",
    "erf", "fabs", "floor", "ceil", "round", "trunc", "nearbyint", "sin", "cos", "tan", "sinh",
    "cosh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "pow", "atan2", "fmod", "hypot",
    "copysign", "nextafter", "popcount", "clz", "isnullptr", "address_of", "tvm_access_ptr",
    "tvm_struct_get", "tvm_struct_set", "tvm_tuple", "tvm_throw_last_error", "tvm_stack_alloca",
    "tvm_stack_make_shape", "tvm_stack_make_array", "tvm_fill_fragment", "tvm_load_matrix_sync",
    "tvm_store_matrix_sync", "tvm_mma_sync", "tvm_bmma_sync", "tvm_storage_sync",
    "tvm_warp_shuffle", "tvm_warp_shuffle_up", "tvm_warp_shuffle_down", "tvm_warp_activemask",
    "tvm_thread_allreduce", "vscale", "ret", "undef", "lookup_param", "TVMBackendAllocWorkspace",
    "TVMBackendFreeWorkspace", "tvm_check_return", "tvm_call_packed_lowered",
    "tvm_call_cpacked_lowered",
]


def _make_intrinsic(name):
    def intrinsic(*args, dtype=None, span=None):  # pylint: disable=unused-argument
        from .. import tir as _tir  # pylint: disable=import-outside-toplevel
        from .._ffi import get_global_func  # pylint: disable=import-outside-toplevel

        # (`bool`, `int`, `float` of this module are the T.bool, ... dtype names)
        exprs = [_tir.const(a) if isinstance(a, (_builtins.bool, _builtins.int, _builtins.float))
                 else a for a in args]
        if name == "tvm_struct_get" and dtype is None and len(exprs) == 4:
            dtype = exprs.pop()
        keep = name in ("tvm_struct_get", "call_llvm_pure_intrin")
        return get_global_func("tir.op.CallIntrinsic")(
            name, exprs, str(dtype) if keep and dtype is not None else "")

    intrinsic.__name__ = intrinsic.__qualname__ = name
    intrinsic.__doc__ = f"T.{name}: builds the intrinsic call tir.{name}."
    return intrinsic


for _name in _INTRINSICS:
    globals()[_name] = _make_intrinsic(_name)
del _name


def __getattr__(name):
    """Vector dtypes (``T.float32x4``) and other dtype spellings are placeholders too."""
    base = name.rstrip("0123456789x")
    if base in ("int", "uint", "float", "bfloat") or any(name.startswith(d) for d in _DTYPES):
        return _DTypeName(name)
    raise AttributeError(f"module 'minitvm.script.tir' has no attribute {name!r}")

"""The ``T.`` functions of the IRBuilder (stage 2), as ``tvm.script.ir_builder.tir``.

Unlike ``minitvm.script.tir`` (whose names the TVMScript parser reads from source text), these
functions *run*: called inside ``with IRBuilder() as ib:`` they build TensorIR with minitvm's
node constructors. Three kinds of names:

- frames, used with ``with``: :func:`prim_func`, :func:`block`, :func:`init`, the loops
  (:func:`serial`, :func:`parallel`, :func:`vectorized`, :func:`unroll`,
  :func:`thread_binding`, :func:`grid`), :func:`Assert`, :func:`LetStmt`, :func:`allocate`,
  :func:`allocate_const`, :func:`decl_buffer`, :func:`attr`, :func:`launch_thread`,
  :func:`realize`, :func:`While`, :func:`If` / :func:`Then` / :func:`Else`;
- statements and facts recorded in the innermost frame: :func:`evaluate`,
  :func:`buffer_store`, :func:`arg`, :func:`func_name`, :func:`func_attr`, :func:`func_ret`,
  :func:`match_buffer`, :func:`alloc_buffer`, :func:`reads`, :func:`writes`,
  :func:`block_attr`, :func:`where`, the block axes (``T.axis.spatial`` ...),
  :func:`env_thread`;
- plain builders that need no builder: dtypes (``T.int32()`` is a new variable,
  ``T.int32(5)`` a constant, ``T.float32(x)`` a cast), :func:`buffer` (``T.Buffer``),
  :func:`handle`, :func:`ptr`, :func:`meta_var`, :func:`comm_reducer`, and the expression
  builders (``T.exp``, ``T.if_then_else``, ``T.floordiv``, ``T.Ramp``, ...).
"""
# pylint: disable=redefined-builtin,invalid-name
import builtins as _builtins
from numbers import Integral

from .... import error as _error
from .... import tir as _tir
from ...._ffi import get_global_func
from ....arith import Analyzer as _Analyzer
from ....ir.expr import PrimExpr, Range as _Range
from ....tir import op as _op
from ....tir.buffer import Buffer, BufferRegion, MatchBufferRegion
from ....tir.expr import (  # noqa: F401  (re-exported as T.<name>, as in TVM)
    EQ, GE, GT, LE, LT, NE, Add, And, Broadcast, BufferLoad, Call, Cast, CommReducer, Div,
    FloatImm, FloorDiv, FloorMod, IntImm, IterVar, Max, Min, Mod, Mul, Not, Or, Ramp, Reduce,
    Select, SizeVar, StringImm, Sub, Var,
)
from ..base import IRBuilder
from . import frame
from .frame import add_to_parent, find_block_frame, find_prim_func_frame

# ---- conversions ---------------------------------------------------------------------------


def _expr(x):
    """A PrimExpr for a Python number or an expression."""
    if isinstance(x, IterVar):
        return x.var
    if isinstance(x, (_builtins.bool, Integral, _builtins.float)):
        return _op.const(x)
    return x


def _shape(shape):
    if isinstance(shape, (PrimExpr, Integral)):
        return [shape]
    return list(shape)


def _strides(strides):
    if strides is None:
        return None
    return [Var(s, "int32") if isinstance(s, str) else s for s in strides]


def _dtype_of(x):
    return str(x.dtype) if hasattr(x, "dtype") else "int32"


def _bits(dtype):
    digits = "".join(c for c in str(dtype).split("x")[0] if c.isdigit())
    return int(digits) if digits else 32


def _widest(*dtypes):
    """The int dtype of the widest of ``dtypes`` (TVM picks the loop variable's bits so)."""
    base = str(dtypes[0])
    code = "uint" if base.startswith("uint") else "int"
    return f"{code}{_builtins.max(_bits(d) for d in dtypes)}"


def _buffer_decl(shape, dtype, name, data, strides, elem_offset, scope, offset_factor):
    shape = [_expr(s) for s in _shape(shape)]
    if elem_offset is None and offset_factor:
        elem_offset = Var("elem_offset", _dtype_of(shape[0]) if shape else "int32")
    return _tir.decl_buffer(shape, dtype, name=name, data=data, strides=_strides(strides),
                            elem_offset=elem_offset, scope=scope or "global")


# ---- buffers and variables -----------------------------------------------------------------


def buffer(shape, dtype="float32", data=None, strides=None, elem_offset=None, scope="global",
           align=0, offset_factor=0, buffer_type="", axis_separators=None):
    """``T.Buffer(shape, dtype)``: a new buffer (name it with ``IRBuilder.name``)."""
    return _buffer_decl(shape, dtype, "", data, strides, elem_offset, scope, offset_factor)


def buffer_decl(*args, **kwargs):
    """The old spelling of :func:`buffer`."""
    return buffer(*args, **kwargs)


def handle(dtype=None, storage_scope="global", *, is_size_var=False):
    """A new handle (pointer) variable. minitvm's handles carry no element type."""
    return (SizeVar if is_size_var else Var)("", "handle")


def ptr(dtype, storage_scope="global", is_size_var=False):
    """A new pointer variable (``T.ptr("float32")``)."""
    return handle(dtype, storage_scope, is_size_var=is_size_var)


def buffer_var(dtype, storage_scope="global"):
    """The old spelling of :func:`ptr`."""
    return ptr(dtype, storage_scope)


def var(dtype, name=""):
    """A new variable of ``dtype``."""
    return Var(name, dtype)


def _dtype_func(dtype):
    def func(expr=None, *, is_size_var=False):
        if expr is None:
            return (SizeVar if is_size_var else Var)("", dtype)
        if isinstance(expr, str):
            expr = _builtins.float(expr)
        if isinstance(expr, (_builtins.bool, Integral, _builtins.float)):
            return _op.const(expr, dtype)
        expr = _expr(expr)
        return expr if str(expr.dtype) == dtype else _op.cast(expr, dtype)

    func.__name__ = func.__qualname__ = dtype
    func.__doc__ = (f"T.{dtype}(): a new {dtype} variable; T.{dtype}(value): a constant, or an "
                    f"expression cast to {dtype}.")
    return func


_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
           "float32", "float64", "bfloat16"]
for _d in _DTYPES:
    globals()[_d] = _dtype_func(_d)
    for _lanes in (4, 8, 16, 32, 64):
        globals()[f"{_d}x{_lanes}"] = _dtype_func(f"{_d}x{_lanes}")
del _d, _lanes
boolean = _dtype_func("bool")


def void(expr=None, *, is_size_var=False):
    """A new void variable."""
    return (SizeVar if is_size_var else Var)("", "void") if expr is None else expr


# ---- functions -----------------------------------------------------------------------------


def prim_func(is_private=False):
    """``with T.prim_func():`` — a PrimFunc (the builder's result, or a function of the
    enclosing ``I.ir_module()``)."""
    return frame.PrimFuncFrame(is_private)


def arg(name, obj):
    """Add a parameter: a Var, or a Buffer (then a handle ``<name>_handle`` is the parameter and
    the buffer its ``buffer_map`` entry). Names ``obj`` and returns it."""
    f = find_prim_func_frame("T.arg")
    IRBuilder.name(name, obj)
    if isinstance(obj, Buffer):
        handle_var = Var(f"{name}_handle", "handle")
        f.args.append(handle_var)
        f.buffer_map[handle_var] = obj
    elif isinstance(obj, Var):
        f.args.append(obj)
    else:
        raise _error.ValueError(
            f"T.arg: a parameter is a Var or a Buffer, not {type(obj).__name__}")
    return obj


def func_name(name):
    """The function's name (its ``global_symbol`` unless private)."""
    f = find_prim_func_frame("T.func_name")
    if f.name is not None:
        raise _error.ValueError(f"T.func_name: duplicate name, previous one is {f.name!r}")
    f.name = str(name)


def func_attr(attrs):
    """Function attributes (a dict)."""
    f = find_prim_func_frame("T.func_attr")
    for key, value in dict(attrs).items():
        if key == "global_symbol" and f.is_private:
            raise _error.ValueError(
                f"T.func_attr: a private function may not have the global_symbol attribute "
                f"(got {value!r})")
        if key in f.attrs:
            raise _error.ValueError(
                f"T.func_attr: duplicate attribute {key!r}: {f.attrs[key]!r} then {value!r}")
        f.attrs[key] = value


def func_ret(ret_type):
    """The function's return type (a dtype string, or a type with a ``dtype``)."""
    f = find_prim_func_frame("T.func_ret")
    if f.ret_type is not None:
        raise _error.ValueError(f"T.func_ret: duplicate return type, previous one is "
                                f"{f.ret_type}")
    f.ret_type = str(getattr(ret_type, "dtype", ret_type))
    return ret_type


def _region_of_load(load):
    return BufferRegion(load.buffer, [_Range.from_min_extent(i, _tir.IntImm(str(i.dtype), 1))
                                      for i in load.indices])


def _as_region(obj, what):
    if isinstance(obj, BufferRegion):
        return obj
    if isinstance(obj, BufferLoad):
        return _region_of_load(obj)
    if isinstance(obj, Buffer):
        return BufferRegion.full_region(obj)
    raise _error.TypeError(f"{what}: expected a buffer region such as A[0:16, i], not "
                           f"{type(obj).__name__}")


def match_buffer(param, shape=None, dtype="float32", data=None, strides=None, elem_offset=None,
                 scope="global", align=-1, offset_factor=0, buffer_type="default",
                 axis_separators=None):
    """A buffer over a function parameter (in a T.prim_func) or over a region of another
    buffer (in a T.block, a MatchBufferRegion)."""
    if shape is None:
        if not isinstance(param, (BufferRegion, BufferLoad)):
            raise _error.ValueError("T.match_buffer: the shape is needed unless the source is a "
                                    "buffer region")
        region = _as_region(param, "T.match_buffer")
        shape = [r.extent for r in region.region]
        dtype = str(region.buffer.dtype)
    buf = _buffer_decl(shape, dtype, "", data, strides, elem_offset, scope, offset_factor)
    if isinstance(param, Var):
        f = find_prim_func_frame("T.match_buffer")
        if not any(param.same_as(a) for a in f.args):
            raise _error.ValueError(
                f"T.match_buffer: {param.name_hint!r} is not a parameter of the function "
                "(add it with T.arg first)")
        f.buffer_map[param] = buf
        return buf
    if isinstance(param, (BufferRegion, BufferLoad)):
        blk = find_block_frame("T.match_buffer")
        blk.match_buffers.append(MatchBufferRegion(buf, _as_region(param, "T.match_buffer")))
        return buf
    raise _error.TypeError(f"T.match_buffer: the source is a parameter Var or a buffer region, "
                           f"not {type(param).__name__}")


# ---- blocks --------------------------------------------------------------------------------


def block(name="", no_realize=False):
    """``with T.block(name):`` — a block (with its BlockRealize unless ``no_realize``)."""
    return frame.BlockFrame(name, no_realize)


def init():
    """``with T.init():`` — the enclosing block's init statement."""
    return frame.BlockInitFrame()


def where(predicate):
    """The enclosing block's predicate."""
    blk = find_block_frame("T.where")
    if blk.predicate is not None:
        raise _error.ValueError(f"T.where: {blk.describe} already has a predicate")
    if isinstance(predicate, (_builtins.bool, Integral)):
        predicate = _tir.IntImm("bool", _builtins.bool(predicate))
    blk.predicate = predicate


def _regions(what, buffer_slices):
    if len(buffer_slices) == 1 and isinstance(buffer_slices[0], (list, tuple)):
        buffer_slices = buffer_slices[0]
    return [_as_region(s, what) for s in buffer_slices]


def reads(*buffer_slices):
    """The regions the enclosing block reads (``T.reads(A[0:16, k], B[k])``)."""
    blk = find_block_frame("T.reads")
    if blk.reads is not None:
        raise _error.ValueError(f"T.reads: {blk.describe} already has its read regions")
    blk.reads = _regions("T.reads", buffer_slices)


def writes(*buffer_slices):
    """The regions the enclosing block writes."""
    blk = find_block_frame("T.writes")
    if blk.writes is not None:
        raise _error.ValueError(f"T.writes: {blk.describe} already has its write regions")
    blk.writes = _regions("T.writes", buffer_slices)


def block_attr(attrs):
    """The enclosing block's annotations (a dict)."""
    blk = find_block_frame("T.block_attr")
    if blk.annotations is not None:
        raise _error.ValueError(f"T.block_attr: {blk.describe} already has annotations")
    blk.annotations = dict(attrs)


def alloc_buffer(shape, dtype="float32", data=None, strides=None, elem_offset=None,
                 scope="global", align=-1, offset_factor=0, buffer_type="default",
                 axis_separators=None):
    """A buffer allocated by the enclosing block (or the function's root block)."""
    buf = _buffer_decl(shape, dtype, "", data, strides, elem_offset, scope, offset_factor)
    builder = IRBuilder.current("T.alloc_buffer")
    blk = builder.last_frame(frame.BlockFrame)
    if blk is not None:
        blk.alloc_buffers.append(buf)
        return buf
    func = builder.last_frame(frame.PrimFuncFrame)
    if func is not None:
        func.root_alloc_buffers.append(buf)
        return buf
    raise _error.ValueError("T.alloc_buffer must be called directly inside `with T.block(...):` "
                            "or `with T.prim_func():`")


def _as_range(dom):
    if isinstance(dom, _Range):
        return dom
    if isinstance(dom, (list, tuple)):
        lo, hi = _expr(dom[0]), _expr(dom[1])
        extent = _Analyzer().simplify(hi - lo)
        if isinstance(extent, IntImm):
            return _Range.from_min_extent(lo, extent)
        return _Range(lo, hi)
    if hasattr(dom, "dtype"):
        return _Range(_tir.IntImm(str(dom.dtype), 0), dom)
    return _Range(0, dom)


def _push_block_var(iter_var, binding, what):
    builder = IRBuilder.current(what)
    blk = builder.last_frame(frame.BlockFrame)
    if blk is None:
        raise _error.ValueError(f"{what} must be called directly inside `with T.block(...):`")
    blk.iter_vars.append(iter_var)
    blk.iter_values.append(_expr(binding))
    return iter_var.var


def _axis(kind, what):
    def make(dom, binding, dtype="int32"):
        rng = _as_range(dom)
        bits = _builtins.max(_bits(rng.min.dtype), _bits(rng.extent.dtype), _bits(dtype))
        v = Var("", f"int{bits}")
        return _push_block_var(IterVar(rng, v, kind), binding, what)

    make.__name__ = what.split(".")[-1]
    make.__doc__ = f"{what}(dom, binding): a block iterator over ``dom`` bound to ``binding``."
    return staticmethod(make)


class axis:  # pylint: disable=too-few-public-methods
    """The block iterators: ``T.axis.spatial``, ``reduce``, ``scan``, ``opaque``, ``remap``."""

    spatial = _axis(IterVar.DataPar, "T.axis.spatial")
    reduce = _axis(IterVar.CommReduce, "T.axis.reduce")
    scan = _axis(IterVar.Ordered, "T.axis.scan")
    opaque = _axis(IterVar.Opaque, "T.axis.opaque")
    S = spatial
    R = reduce

    @staticmethod
    def remap(kinds, bindings, dtype="int32"):
        """One iterator per letter of ``kinds`` ("S" spatial, "R" reduce), over the domain of
        the loop whose variable is the matching binding."""
        if len(kinds) != len(bindings):
            raise _error.ValueError(f"T.axis.remap: {len(kinds)} kinds for {len(bindings)} "
                                    "bindings")
        builder = IRBuilder.current("T.axis.remap")
        results = []
        for kind, binding in zip(kinds, bindings):
            binding = _expr(binding)
            if not isinstance(binding, Var):
                raise _error.TypeError("T.axis.remap: only loop variables can be remapped, got "
                                       f"{binding}")
            dom = None
            for f in builder._frames:  # pylint: disable=protected-access
                if isinstance(f, frame.ForFrame):
                    for v, d in zip(f.vars, f.doms):
                        if v.same_as(binding):
                            dom = d
            if dom is None:
                raise _error.ValueError(f"T.axis.remap: {binding.name_hint!r} is not the "
                                        "variable of an enclosing loop")
            if kind not in "SR":
                raise _error.ValueError(f"T.axis.remap: unknown axis kind {kind!r} (S or R)")
            it = IterVar(dom, Var("", str(binding.dtype)),
                         IterVar.DataPar if kind == "S" else IterVar.CommReduce)
            results.append(_push_block_var(it, binding, "T.axis.remap"))
        return results[0] if len(results) == 1 else results


# ---- loops ---------------------------------------------------------------------------------


def _loop(kind, name):
    def make(start, stop=None, *, annotations=None):
        if stop is None:
            stop = start
            start = _tir.IntImm(str(stop.dtype), 0) if hasattr(stop, "dtype") else 0
        start, stop = _expr(start), _expr(stop)
        extent = _Analyzer().simplify(stop - start)
        v = Var("v", _widest(start.dtype, extent.dtype))

        def build(vs, doms, body):
            return _tir.For(vs[0], doms[0].min, doms[0].extent, kind, body,
                            annotations=annotations)

        args = f"{start}, {stop}"
        return frame.ForFrame([v], [_Range.from_min_extent(start, extent)], build,
                              f"T.{name}({args})")

    make.__name__ = name
    make.__doc__ = (f"``with T.{name}(extent) as i:`` (or ``T.{name}(start, stop)``): a "
                    f"{name} loop.")
    return make


serial = _loop(_tir.ForKind.SERIAL, "serial")
parallel = _loop(_tir.ForKind.PARALLEL, "parallel")
vectorized = _loop(_tir.ForKind.VECTORIZED, "vectorized")
unroll = _loop(_tir.ForKind.UNROLLED, "unroll")


def thread_binding(start, stop=None, thread=None, *, annotations=None):
    """``with T.thread_binding(extent, thread="threadIdx.x") as i:`` a loop bound to a
    thread axis."""
    if thread is None:
        if not isinstance(stop, str):
            raise _error.ValueError("T.thread_binding: the thread tag is missing")
        thread, stop = stop, start
        start = 0
    elif stop is None:
        stop, start = start, 0
    if stop is None or isinstance(stop, str):
        raise _error.ValueError("T.thread_binding: the extent is missing")
    if isinstance(start, Integral) and hasattr(stop, "dtype"):
        start = _tir.IntImm(str(stop.dtype), start)
    start, stop = _expr(start), _expr(stop)
    extent = _Analyzer().simplify(stop - start)
    dtype = _widest(start.dtype, extent.dtype)
    v = Var("v", dtype)

    def build(vs, doms, body):
        binding = IterVar(None, Var(thread, dtype), IterVar.ThreadIndex, thread)
        return _tir.For(vs[0], doms[0].min, doms[0].extent, _tir.ForKind.THREAD_BINDING, body,
                        thread_binding=binding, annotations=annotations)

    return frame.ForFrame([v], [_Range.from_min_extent(start, extent)], build,
                          f'T.thread_binding({stop}, thread="{thread}")')


def grid(*extents):
    """``with T.grid(4, 8) as (i, j):`` nested serial loops."""
    exts = [_expr(e) for e in extents]
    vs = [Var("v", str(e.dtype)) for e in exts]
    doms = [_Range(_tir.IntImm(str(e.dtype), 0), e) for e in exts]

    def build(loop_vars, loop_doms, body):
        for v, d in reversed(list(zip(loop_vars, loop_doms))):
            body = _tir.For(v, d.min, d.extent, _tir.ForKind.SERIAL, body)
        return body

    return frame.ForFrame(vs, doms, build, f"T.grid({', '.join(str(e) for e in exts)})")


# ---- scoped statements ---------------------------------------------------------------------


def _bool(cond):
    return _tir.IntImm("bool", cond) if isinstance(cond, _builtins.bool) else _expr(cond)


def Assert(condition, message):
    """``with T.Assert(cond, "message"):``."""
    condition = _bool(condition)
    return frame.AssertFrame(lambda body: _tir.AssertStmt(condition, StringImm(message), body),
                             "T.Assert(...)")


assert_ = Assert


def LetStmt(value, type_annotation=None, *, var=None):
    """``with T.LetStmt(value) as v:`` binds a new variable (or ``var``) to ``value``."""
    value = _expr(value)
    if var is None:
        dtype = str(getattr(type_annotation, "dtype", type_annotation or value.dtype))
        var = Var("v", dtype)
    return frame.LetFrame(lambda body: _tir.LetStmt(var, value, body), "T.LetStmt(...)", var)


def Let(expr, where):  # pylint: disable=redefined-outer-name
    """The Let expression ``T.Let(body, where={v: value})``."""
    if len(where) != 1:
        raise _error.ValueError("T.Let: `where` must have exactly one binding")
    (v, value), = where.items()
    return _tir.Let(v, _expr(value), expr)


def let(v, value, body=None):
    """The old spelling: ``T.let(v, value, body)`` is a Let expression; without ``body`` a
    LetStmt frame binding ``v``."""
    if body is not None:
        return _tir.Let(v, _expr(value), body)
    return LetStmt(value, var=v)


def realize(buffer_slice, storage_scope, condition=True):
    """``with T.realize(A[0:8], "global"):`` (a pre-lowering buffer realization)."""
    region = _as_region(buffer_slice, "T.realize")
    cond = _bool(condition)

    def build(body):
        inner = _tir.AttrStmt(region, "buffer_realize", cond, body)
        return _tir.AttrStmt(region.buffer, "realize_scope", StringImm(storage_scope), inner)

    return frame.RealizeFrame(build, "T.realize(...)")


def allocate(extents, dtype, scope="global", condition=None, annotations=None):
    """``with T.allocate([128], "float32", "shared") as data:`` an allocation."""
    data = Var("", "handle")
    cond = None if condition is None else _bool(condition)
    extents = [_expr(e) for e in _shape(extents)]
    return frame.AllocateFrame(
        lambda body: _tir.Allocate(data, dtype, extents, cond, body, annotations, scope),
        f'T.allocate({extents}, "{dtype}")', data)


def allocate_const(data, dtype, extents, annotations=None):
    """``with T.allocate_const([1, 2, 3], "int32", [3]) as data:`` an allocation holding
    constants."""
    import numpy as np  # pylint: disable=import-outside-toplevel

    values = np.asarray(data, dtype=dtype).reshape(-1).tolist()
    consts = [_op.const(x, dtype) for x in values]
    buffer_var_ = Var("", "handle")
    extents = [_expr(e) for e in _shape(extents)]
    make = get_global_func("script.ir_builder.tir.AllocateConst")
    return frame.AllocateConstFrame(
        lambda body: make(buffer_var_, dtype, extents, consts, body, dict(annotations or {})),
        "T.allocate_const(...)", buffer_var_)


def decl_buffer(shape, dtype="float32", data=None, strides=None, elem_offset=None,
                scope="global", align=0, offset_factor=0, buffer_type="", axis_separators=None):
    """``with T.decl_buffer((8, 8), "float32") as B:`` a buffer for the body: over ``data``
    when given (a DeclBuffer), else over a new allocation (Allocate + DeclBuffer)."""
    buf = _buffer_decl(shape, dtype, "", data, strides, elem_offset, scope, offset_factor)

    def build(body):
        stmt = _tir.DeclBuffer(buf, body)
        if data is not None:
            return stmt
        return _tir.Allocate(buf.data, dtype, list(buf.shape), None, stmt, None,
                             scope or "global")

    return frame.DeclBufferFrame(build, "T.decl_buffer(...)", buf)


def attr(node, attr_key, value):
    """``with T.attr(node, "key", value):`` an attribute statement."""
    value = StringImm(value) if isinstance(value, str) else _expr(value)
    if isinstance(node, str):
        node = StringImm(node)
    return frame.AttrFrame(lambda body: _tir.AttrStmt(node, attr_key, value, body),
                           f'T.attr(..., "{attr_key}", ...)')


def While(condition):
    """``with T.While(cond):`` a while loop."""
    condition = _bool(condition)
    return frame.WhileFrame(lambda body: _tir.While(condition, body), "T.While(...)")


while_ = While


def If(condition):
    """``with T.If(cond):`` holding ``with T.Then():`` and optionally ``with T.Else():``."""
    return frame.IfFrame(_bool(condition))


def Then():
    """``with T.Then():`` the branch taken when the enclosing ``T.If`` holds."""
    return frame.ThenFrame()


def Else():
    """``with T.Else():`` the other branch."""
    return frame.ElseFrame()


if_ = If
then_ = Then
else_ = Else


def env_thread(thread_tag, dtype="int32"):
    """A variable for the thread axis ``thread_tag``; launch it with :func:`launch_thread`."""
    f = IRBuilder.current("T.env_thread").find_frame(frame.PrimFuncFrame)
    if f is None:
        raise _error.ValueError("T.env_thread must be called inside `with T.prim_func():`")
    v = Var("", dtype)
    f.env_threads[v] = [thread_tag, None]
    return v


def launch_thread(thread, extent):
    """``with T.launch_thread(v, 4):`` (``v`` from :func:`env_thread`, or a thread tag) — the
    body runs on ``extent`` threads of that axis."""
    f = IRBuilder.current("T.launch_thread").find_frame(frame.PrimFuncFrame)
    if f is None:
        raise _error.ValueError("T.launch_thread must be called inside `with T.prim_func():`")
    extent = _expr(extent)
    if isinstance(thread, str):
        thread = env_thread(thread, str(extent.dtype))
    entry = f.env_threads.get(thread)
    if entry is None:
        raise _error.ValueError(f"T.launch_thread: {thread} is not a variable made by "
                                "T.env_thread")
    tag, iv = entry
    if iv is None:
        iv = IterVar(_Range(_tir.IntImm(str(extent.dtype), 0), extent), thread,
                     IterVar.ThreadIndex, tag)
        entry[1] = iv
    elif not _Analyzer().can_prove_equal(iv.dom.extent, extent):
        raise _error.ValueError(f"T.launch_thread: inconsistent extents of thread {tag}: "
                                f"{iv.dom.extent} vs {extent}")
    key = "virtual_thread" if tag.startswith("vthread") else "thread_extent"
    return frame.LaunchThreadFrame(lambda body: _tir.AttrStmt(iv, key, extent, body),
                                   f'T.launch_thread("{tag}", {extent})', thread)


# ---- plain statements ----------------------------------------------------------------------


def buffer_store(buffer, value, indices, predicate=None):  # pylint: disable=redefined-outer-name
    """``buffer[indices] = value`` (a slice index stores a vector)."""
    if predicate is not None:
        raise _error.ValueError("T.buffer_store: predicated stores are not supported by minitvm")
    if not isinstance(indices, (list, tuple)):
        indices = [indices]
    exprs = []
    for index in indices:
        if isinstance(index, slice):
            step = 1 if index.step is None else index.step
            lanes = _Analyzer().simplify((_expr(index.stop) - _expr(index.start)) // step)
            exprs.append(_tir.Ramp(_expr(index.start), _expr(step), int(lanes)))
        else:
            exprs.append(_expr(index))
    dtype = str(buffer.dtype)
    lanes = 1
    for e in exprs:
        s = str(e.dtype)
        if "x" in s:
            lanes *= int(s.split("x")[-1])
    target = dtype if lanes == 1 else f"{dtype}x{lanes}"
    if isinstance(value, (_builtins.bool, Integral, _builtins.float)):
        value = _op.const(value, dtype)
        if lanes > 1:
            value = _tir.Broadcast(value, lanes)
    elif str(value.dtype) != target:
        value = _op.cast(value, target)
    add_to_parent(_tir.BufferStore(buffer, value, exprs), "T.buffer_store")


def prefetch(buffer, bounds):  # pylint: disable=redefined-outer-name
    """TVM's prefetch hint; minitvm has no Prefetch statement."""
    raise _error.ValueError("T.prefetch: minitvm has no Prefetch statement")


def evaluate(value):
    """Evaluate an expression for its effect (``T.evaluate(0)``, ``T.evaluate(call)``)."""
    if isinstance(value, str):
        value = StringImm(value)
    elif isinstance(value, _builtins.bool):
        value = _tir.IntImm("bool", value)
    add_to_parent(_tir.Evaluate(_expr(value)), "T.evaluate")


# ---- expressions ---------------------------------------------------------------------------


def iter_var(v, dom, iter_type, thread_tag):
    """An IterVar (``iter_type`` "DataPar", "ThreadIndex", "CommReduce", "Ordered",
    "Opaque")."""
    kinds = {"DataPar": 0, "ThreadIndex": 1, "CommReduce": 2, "Ordered": 3, "Opaque": 4}
    if isinstance(v, str):
        v = Var(v, "int32")
    return IterVar(_as_range(dom), v, kinds[iter_type], thread_tag)


def comm_reducer(combiner, identity):
    """A commutative reducer from ``combiner(x, y)`` (a lambda) and identity values."""
    import inspect  # pylint: disable=import-outside-toplevel

    identity = [_expr(i) for i in identity]
    n = len(identity)
    names = list(inspect.signature(combiner).parameters)
    if len(names) != 2 * n:
        raise _error.ValueError(f"T.comm_reducer: the combiner takes {len(names)} arguments "
                                f"for {n} identity values")
    lhs = [Var(names[i], str(identity[i].dtype)) for i in range(n)]
    rhs = [Var(names[n + i], str(identity[i].dtype)) for i in range(n)]
    result = combiner(*lhs, *rhs)
    result = list(result) if isinstance(result, (list, tuple)) else [result]
    return CommReducer(lhs, rhs, result, identity)


def Range(begin, end):  # pylint: disable=redefined-outer-name
    """The range [begin, end)."""
    return _Range(begin, end)


class meta_var:  # pylint: disable=too-few-public-methods
    """A value that stays in Python (``m = T.meta_var(3)``; ``m.value``)."""

    def __init__(self, value):
        self.value = value

    def __iter__(self):
        return iter(meta_var(v) for v in self.value)


def broadcast(value, lanes):
    """``value`` repeated over ``lanes``."""
    return _tir.Broadcast(_expr(value), lanes)


def ramp(base, stride, lanes):
    """The vector [base, base + stride, ...] of ``lanes``."""
    return _tir.Ramp(_expr(base), _expr(stride), lanes)


def min(a, b):
    """The smaller of two expressions."""
    return _op.min(a, b)


def max(a, b):
    """The larger of two expressions."""
    return _op.max(a, b)


def cast(value, dtype):
    """``value`` converted to ``dtype``."""
    return _op.cast(_expr(value), dtype)


def type_annotation(dtype):
    """A variable standing for the type ``dtype`` (TVM's type annotation)."""
    return Var("", dtype)


def _install_ops():
    """The expression builders of ``minitvm.tir`` and the intrinsics of the parser's ``T``."""
    names = [
        "abs", "fabs", "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "cos",
        "cosh", "erf", "exp", "exp2", "exp10", "floor", "floordiv", "floormod", "if_then_else",
        "isfinite", "isinf", "isnan", "likely", "log", "log1p", "log2", "log10", "max_value",
        "min_value", "nearbyint", "pow", "reinterpret", "round", "rsqrt", "sigmoid", "sin",
        "sinh", "sqrt", "tan", "tanh", "trunc", "truncdiv", "truncmod", "call_extern",
        "call_pure_extern", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
        "shift_left", "shift_right",
    ]
    out = {}
    for name in names:
        if hasattr(_op, name):
            out[name] = getattr(_op, name)
    from ... import tir as _script_tir  # pylint: disable=import-outside-toplevel

    for name in getattr(_script_tir, "_INTRINSICS", []):
        if name not in out and hasattr(_script_tir, name):
            out[name] = getattr(_script_tir, name)
    return out


globals().update(_install_ops())

# TVM 0.22's names (the `s_tir` split): the same frames and calls.
sblock = block
sblock_alloc_buffer = alloc_buffer
sblock_attr = block_attr

# Every public name above except the helpers imported for this file's own use.
__all__ = sorted(
    n for n in list(globals())
    if not n.startswith("_") and n not in (
        "Integral", "PrimExpr", "IRBuilder", "frame", "get_global_func", "add_to_parent",
        "find_block_frame", "find_prim_func_frame", "Buffer",
    ))

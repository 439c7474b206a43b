"""The TensorIR frames of the IRBuilder (stage 2), as ``tvm.script.ir_builder.tir.frame``.

Each frame collects the statements made inside its ``with`` and, when left, builds one node
from them (a For, a BlockRealize, an Allocate, a PrimFunc, ...) that it adds to the frame
below it, or makes the builder's result when it is the outermost frame.
"""
from .... import error as _error
from .... import tir as _tir
from ...._ffi import get_global_func
from ..base import IRBuilder, IRBuilderFrame

__all__ = [
    "TIRFrame", "PrimFuncFrame", "BlockFrame", "BlockInitFrame", "ForFrame", "AssertFrame",
    "LetFrame", "RealizeFrame", "LaunchThreadFrame", "AllocateFrame", "AllocateConstFrame",
    "AttrFrame", "WhileFrame", "IfFrame", "ThenFrame", "ElseFrame", "DeclBufferFrame",
]

#: The block annotation TVM's builder leaves on a block whose reads (1) and/or writes (2) were
#: not given, when the block is not built inside a T.prim_func() that completes them.
DETECT_ACCESS = "tir.script_parsing_detect_access"


def as_stmt(stmts):
    """One statement for a list of them: nested sequences are flattened, a single statement
    stands alone and an empty list is ``T.evaluate(0)``."""
    flat = []
    for s in stmts:
        if isinstance(s, _tir.SeqStmt):
            flat.extend(s.seq)
        else:
            flat.append(s)
    if not flat:
        return _tir.Evaluate(_tir.const(0, "int32"))
    if len(flat) == 1:
        return flat[0]
    return _tir.SeqStmt(flat)


def add_to_parent(stmt, what="a statement"):
    """Add ``stmt`` to the innermost open frame, or make it the builder's result."""
    builder = IRBuilder.current(what)
    if not builder._frames:  # pylint: disable=protected-access
        builder._set_result(stmt)  # pylint: disable=protected-access
        return
    top = builder._frames[-1]  # pylint: disable=protected-access
    if not isinstance(top, TIRFrame):
        raise _error.TypeError(
            f"{what} cannot be made directly in {top.describe}: open a T.prim_func() first")
    top.stmts.append(stmt)


def _contains_block_realize(stmt):
    found = []

    def visit(node):
        if isinstance(node, _tir.BlockRealize):
            found.append(node)

    _post_order(stmt, visit)
    return bool(found)


def _post_order(stmt, visit):
    """A small walker over statement fields (enough to find BlockRealize nodes)."""
    from ....runtime import Object  # pylint: disable=import-outside-toplevel

    stack = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, _tir.BlockRealize):
            visit(node)
            continue
        if isinstance(node, _tir.SeqStmt):
            stack.extend(node.seq)
            continue
        if isinstance(node, _tir.IfThenElse):
            stack.append(node.then_case)
            if node.else_case is not None:
                stack.append(node.else_case)
            continue
        if isinstance(node, _tir.Stmt) and isinstance(getattr(node, "body", None), Object):
            stack.append(node.body)


class TIRFrame(IRBuilderFrame):
    """A frame that collects statements (``stmts``)."""

    def __init__(self):
        super().__init__()
        self.stmts = []


class PrimFuncFrame(TIRFrame):
    """``with T.prim_func():`` builds a PrimFunc from ``T.func_name``, ``T.arg``,
    ``T.func_attr``, ``T.func_ret``, ``T.match_buffer`` and the body."""

    describe = "T.prim_func()"

    def __init__(self, is_private=False):
        super().__init__()
        self.name = None
        self.is_private = bool(is_private)
        self.args = []
        self.ret_type = None
        self.buffer_map = {}  # handle Var -> Buffer
        self.attrs = {}
        self.env_threads = {}  # Var -> [thread tag, IterVar or None]
        self.root_alloc_buffers = []

    def exit_with_scope(self):
        attrs = dict(self.attrs)
        if not self.is_private and self.name is not None and "global_symbol" not in attrs:
            attrs["global_symbol"] = self.name
        body = as_stmt(self.stmts)
        explicit_root = (isinstance(body, _tir.BlockRealize) and not body.block.iter_vars
                         and not self.root_alloc_buffers)
        if not explicit_root and (self.root_alloc_buffers or _contains_block_realize(body)):
            body = _tir.BlockRealize([], True, _tir.Block(
                [], [], [], "root", body, alloc_buffers=self.root_alloc_buffers))
        buffer_map = {p: self.buffer_map[p] for p in self.args if p in self.buffer_map}
        func = _tir.PrimFunc(self.args, body, ret_type=self.ret_type, buffer_map=buffer_map,
                             attrs=attrs)
        builder = self._builder
        if not builder._frames:  # pylint: disable=protected-access
            builder._set_result(func)  # pylint: disable=protected-access
            return
        from ..ir.frame import IRModuleFrame  # pylint: disable=import-outside-toplevel
        from ..ir import ir as _ir_ir  # pylint: disable=import-outside-toplevel

        module = builder.find_frame(IRModuleFrame)
        if module is None:
            raise _error.ValueError(
                f"T.prim_func() cannot be nested in {builder._frames[-1].describe}: "  # pylint: disable=protected-access
                "a function goes directly under the builder or in an I.ir_module()")
        if self.name is None:
            raise _error.ValueError(
                "T.prim_func() inside an I.ir_module() needs a name: call T.func_name(...) "
                "before leaving the function")
        if self.name not in module.global_var_map:
            _ir_ir.decl_function(self.name, func)
        _ir_ir.def_function(self.name, func)


class BlockFrame(TIRFrame):
    """``with T.block(name):`` builds a BlockRealize (a Block when ``no_realize``)."""

    def __init__(self, name="", no_realize=False):
        super().__init__()
        self.name = name
        self.no_realize = bool(no_realize)
        self.iter_vars = []
        self.iter_values = []
        self.reads = None
        self.writes = None
        self.init = None
        self.alloc_buffers = []
        self.match_buffers = []
        self.annotations = None
        self.predicate = None

    @property
    def describe(self):
        return f'T.block("{self.name}")'

    def exit_with_scope(self):
        annotations = dict(self.annotations or {})
        detect = (1 if self.reads is None else 0) | (2 if self.writes is None else 0)
        block = _tir.Block(self.iter_vars, self.reads or [], self.writes or [], self.name,
                           as_stmt(self.stmts), self.init, self.alloc_buffers,
                           self.match_buffers, annotations)
        if detect:
            if self._builder.find_frame(PrimFuncFrame) is not None:
                # Inside a function the regions are completed now, as TVM completes them when
                # the function is finished (and as the TVMScript parser does).
                reads, writes = _block_access(block)
                block = _tir.Block(self.iter_vars, reads if self.reads is None else self.reads,
                                   writes if self.writes is None else self.writes, self.name,
                                   block.body, self.init, self.alloc_buffers,
                                   self.match_buffers, annotations)
            else:
                annotations[DETECT_ACCESS] = _tir.IntImm("int64", detect)
                block = _tir.Block(self.iter_vars, self.reads or [], self.writes or [],
                                   self.name, block.body, self.init, self.alloc_buffers,
                                   self.match_buffers, annotations)
        if self.no_realize:
            if self.iter_values:
                raise _error.ValueError(
                    f"{self.describe}: block bindings (T.axis.*) are not allowed when "
                    "no_realize=True")
            if self.predicate is not None:
                raise _error.ValueError(
                    f"{self.describe}: T.where is not allowed when no_realize=True")
            add_to_parent(block, self.describe)
        else:
            predicate = True if self.predicate is None else self.predicate
            add_to_parent(_tir.BlockRealize(self.iter_values, predicate, block), self.describe)


def _block_access(block):
    reads, writes = get_global_func("tir.analysis.GetBlockAccessRegion")(block)
    return list(reads), list(writes)


class BlockInitFrame(TIRFrame):
    """``with T.init():`` the init statement of the enclosing block."""

    describe = "T.init()"

    def enter_with_scope(self):
        block = find_block_frame("T.init()")
        if block.init is not None:
            raise _error.ValueError(f"{block.describe}: duplicate T.init()")

    def exit_with_scope(self):
        find_block_frame("T.init()").init = as_stmt(self.stmts)


class ForFrame(TIRFrame):
    """A loop nest (``T.serial``, ``T.grid``, ...); ``with ... as i`` binds its variable(s)."""

    def __init__(self, loop_vars, doms, make, describe):
        super().__init__()
        self.vars = list(loop_vars)
        self.doms = list(doms)
        self._make = make
        self.describe = describe

    def enter_value(self):
        return self.vars if len(self.vars) > 1 else self.vars[0]

    def exit_with_scope(self):
        add_to_parent(self._make(self.vars, self.doms, as_stmt(self.stmts)), self.describe)


class _SimpleFrame(TIRFrame):
    """A frame whose node is ``make(body)``."""

    def __init__(self, make, describe, value=None):
        super().__init__()
        self._make = make
        self.describe = describe
        self._value = value

    def enter_value(self):
        return self if self._value is None else self._value

    def exit_with_scope(self):
        add_to_parent(self._make(as_stmt(self.stmts)), self.describe)


class AssertFrame(_SimpleFrame):
    """``with T.Assert(cond, msg):``."""


class LetFrame(_SimpleFrame):
    """``with T.LetStmt(value) as v:``."""

    @property
    def var(self):
        """The bound variable."""
        return self._value


class RealizeFrame(_SimpleFrame):
    """``with T.realize(region, scope):``."""


class LaunchThreadFrame(_SimpleFrame):
    """``with T.launch_thread(thread, extent) as v:``."""


class AllocateFrame(_SimpleFrame):
    """``with T.allocate(extents, dtype) as data:``."""

    @property
    def buffer_var(self):
        """The data variable."""
        return self._value


class AllocateConstFrame(AllocateFrame):
    """``with T.allocate_const(data, dtype, extents) as data:``."""


class AttrFrame(_SimpleFrame):
    """``with T.attr(node, key, value):``."""


class WhileFrame(_SimpleFrame):
    """``with T.While(cond):``."""


class DeclBufferFrame(_SimpleFrame):
    """``with T.decl_buffer(shape, dtype) as buf:``."""

    @property
    def buffer(self):
        """The declared buffer."""
        return self._value


class IfFrame(TIRFrame):
    """``with T.If(cond):`` holding ``with T.Then():`` and optionally ``with T.Else():``."""

    describe = "T.If(...)"

    def __init__(self, condition):
        super().__init__()
        self.condition = condition
        self.then_stmts = None
        self.else_stmts = None

    def exit_with_scope(self):
        if self.stmts:
            raise _error.ValueError(
                "T.If(...): statements must be inside `with T.Then():` or `with T.Else():`")
        if self.then_stmts is None:
            raise _error.ValueError("T.If(...): there is no `with T.Then():` branch")
        else_case = None if self.else_stmts is None else as_stmt(self.else_stmts)
        add_to_parent(_tir.IfThenElse(self.condition, as_stmt(self.then_stmts), else_case),
                      self.describe)


def _last_if_frame(what):
    builder = IRBuilder.current(what)
    frame = builder.last_frame(IfFrame)
    if frame is None:
        raise _error.ValueError(f"{what} must be directly inside `with T.If(cond):`")
    return frame


class ThenFrame(TIRFrame):
    """``with T.Then():`` the true branch of the enclosing ``T.If``."""

    describe = "T.Then()"

    def enter_with_scope(self):
        if _last_if_frame(self.describe).then_stmts is not None:
            raise _error.ValueError("T.Then(): duplicate then branch")

    def exit_with_scope(self):
        _last_if_frame(self.describe).then_stmts = list(self.stmts)


class ElseFrame(TIRFrame):
    """``with T.Else():`` the false branch of the enclosing ``T.If``."""

    describe = "T.Else()"

    def enter_with_scope(self):
        frame = _last_if_frame(self.describe)
        if frame.then_stmts is None:
            raise _error.ValueError("T.Else(): the else branch must follow a T.Then() branch")
        if frame.else_stmts is not None:
            raise _error.ValueError("T.Else(): duplicate else branch")

    def exit_with_scope(self):
        _last_if_frame(self.describe).else_stmts = list(self.stmts)


def find_prim_func_frame(what):
    """The PrimFuncFrame that must be the innermost open frame for ``what``."""
    builder = IRBuilder.current(what)
    frame = builder.last_frame(PrimFuncFrame)
    if frame is not None:
        return frame
    if builder.find_frame(PrimFuncFrame) is not None:
        raise _error.ValueError(
            f"{what} must be called at the top of a T.prim_func(), not inside "
            f"{builder._frames[-1].describe}")  # pylint: disable=protected-access
    raise _error.ValueError(f"{what} must be called inside `with T.prim_func():`")


def find_block_frame(what):
    """The innermost open BlockFrame; a ValueError when there is none."""
    builder = IRBuilder.current(what)
    frame = builder.find_frame(BlockFrame)
    if frame is None:
        raise _error.ValueError(f"{what} must be called inside `with T.block(...):`")
    return frame

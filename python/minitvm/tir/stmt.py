"""TensorIR statement nodes (stage 2), as ``tvm.tir.stmt``: stores, loops (with
:class:`ForKind`), control flow, allocation and ``Block``/``BlockRealize``.

Each class's constructor builds the node (``For(i, 0, 8, ForKind.SERIAL, body)``); fields are
readable (``loop.loop_var``, ``loop.extent``, ``block.iter_vars``, ``block.reads``).
"""
import enum

from .._ffi import register_object
from ..runtime import Object
from . import _ffi_api

__all__ = [
    "Stmt", "BufferStore", "ForKind", "For", "While", "IfThenElse", "SeqStmt", "Evaluate",
    "LetStmt", "AssertStmt", "Allocate", "DeclBuffer", "AttrStmt", "Block", "BlockRealize",
]


@register_object("tir.Stmt")
class Stmt(Object):
    """Base of statements."""


@register_object("tir.BufferStore")
class BufferStore(Stmt):
    """``buffer[indices] = value``."""

    def __init__(self, buffer, value, indices):
        self.__init_handle_by_constructor__(_ffi_api.BufferStore, buffer, value, list(indices))


class ForKind(enum.IntEnum):
    """How a loop runs (TVM's numbering)."""

    SERIAL = 0
    PARALLEL = 1
    VECTORIZED = 2
    UNROLLED = 3
    THREAD_BINDING = 4

    def __str__(self):
        return ["serial", "parallel", "vectorized", "unroll", "thread_binding"][int(self)]


@register_object("tir.For")
class For(Stmt):
    """``for loop_var in range(min, min + extent)`` of a :class:`ForKind`."""

    def __init__(self, loop_var, min, extent, kind, body, thread_binding=None,  # noqa: A002
                 annotations=None):
        self.__init_handle_by_constructor__(
            _ffi_api.For, loop_var, min, extent, int(kind), body, thread_binding,
            dict(annotations or {}),
        )

    @property
    def kind(self):
        """The loop's :class:`ForKind`."""
        from ..runtime import _ffi_api as _rt  # pylint: disable=import-outside-toplevel

        return ForKind(int(_rt.ObjectGetField(self, "kind")))


@register_object("tir.While")
class While(Stmt):
    """``while condition: body``."""

    def __init__(self, condition, body):
        self.__init_handle_by_constructor__(_ffi_api.While, condition, body)


@register_object("tir.IfThenElse")
class IfThenElse(Stmt):
    """``if condition: then_case else: else_case`` (else_case may be None)."""

    def __init__(self, condition, then_case, else_case=None):
        self.__init_handle_by_constructor__(_ffi_api.IfThenElse, condition, then_case, else_case)


@register_object("tir.SeqStmt")
class SeqStmt(Stmt):
    """A sequence of statements; ``len`` and indexing reach them. Every element must be a
    Stmt: an expression is a TypeError, not wrapped silently (write ``Evaluate(expr)``)."""

    def __init__(self, seq):
        self.__init_handle_by_constructor__(_ffi_api.SeqStmt, list(seq))

    def __getitem__(self, i):
        return self.seq[i]

    def __len__(self):
        return len(self.seq)


@register_object("tir.Evaluate")
class Evaluate(Stmt):
    """Evaluate ``value`` for its effect."""

    def __init__(self, value):
        self.__init_handle_by_constructor__(_ffi_api.Evaluate, value)


@register_object("tir.LetStmt")
class LetStmt(Stmt):
    """``var = value`` for the scope of ``body``."""

    def __init__(self, var, value, body):
        self.__init_handle_by_constructor__(_ffi_api.LetStmt, var, value, body)


@register_object("tir.AssertStmt")
class AssertStmt(Stmt):
    """Check ``condition`` (failing with ``message``), then run ``body``."""

    def __init__(self, condition, message, body):
        from .expr import StringImm  # pylint: disable=import-outside-toplevel

        if isinstance(message, str):
            message = StringImm(message)
        self.__init_handle_by_constructor__(_ffi_api.AssertStmt, condition, message, body)


@register_object("tir.Allocate")
class Allocate(Stmt):
    """Allocate memory bound to ``buffer_var`` for the scope of ``body``."""

    def __init__(self, buffer_var, dtype, extents, condition, body, annotations=None,
                 scope="global"):
        self.__init_handle_by_constructor__(
            _ffi_api.Allocate, buffer_var, str(dtype), list(extents), condition, body, scope,
            dict(annotations or {}),
        )


@register_object("tir.DeclBuffer")
class DeclBuffer(Stmt):
    """Declare ``buffer`` for the scope of ``body``."""

    def __init__(self, buffer, body):
        self.__init_handle_by_constructor__(_ffi_api.DeclBuffer, buffer, body)


@register_object("tir.AttrStmt")
class AttrStmt(Stmt):
    """An attribute (``attr_key`` = ``value`` on ``node``) for the scope of ``body``."""

    def __init__(self, node, attr_key, value, body):
        self.__init_handle_by_constructor__(_ffi_api.AttrStmt, node, attr_key, value, body)


@register_object("tir.Block")
class Block(Stmt):
    """A block: ``iter_vars``, ``reads``, ``writes``, ``name_hint``, ``body``, ``init``,
    ``alloc_buffers``, ``match_buffers``, ``annotations``."""

    def __init__(self, iter_vars, reads, writes, name_hint, body, init=None, alloc_buffers=None,
                 match_buffers=None, annotations=None):
        self.__init_handle_by_constructor__(
            _ffi_api.Block, list(iter_vars), list(reads), list(writes), name_hint, body, init,
            list(alloc_buffers or []), list(match_buffers or []), dict(annotations or {}),
        )


@register_object("tir.BlockRealize")
class BlockRealize(Stmt):
    """Run ``block`` with its iterators bound to ``iter_values`` when ``predicate`` holds."""

    def __init__(self, iter_values, predicate, block):
        if isinstance(predicate, bool):
            from .op import const  # pylint: disable=import-outside-toplevel

            predicate = const(predicate, "bool")
        self.__init_handle_by_constructor__(_ffi_api.BlockRealize, list(iter_values), predicate,
                                            block)

"""Structural equality and hashing of IR (stage 2), as in ``tvm.ir``.

Two IR trees are structurally equal when they have the same node types and equal fields,
where bound variables (loop variables, let variables, block iterators, parameters, buffers
of a buffer_map or alloc_buffers) are matched with their counterparts — so two independent
parses of the same TVMScript are equal. Names of variables and buffers do not matter; block
names and attributes do. Free variables compare by identity unless ``map_free_vars=True``.
The comparison is driven by each C++ node's field list; see ``docs/arith.md``.
"""
from .._ffi import get_global_func

__all__ = ["structural_equal", "structural_hash", "assert_structural_equal"]


def structural_equal(lhs, rhs, map_free_vars=False):
    """True when ``lhs`` and ``rhs`` are structurally equal (alpha-equivalent)."""
    return bool(get_global_func("ir.StructuralEqual")(lhs, rhs, bool(map_free_vars)))


def structural_hash(node, map_free_vars=False):
    """A hash consistent with :func:`structural_equal` (equal trees hash equal)."""
    return int(get_global_func("ir.StructuralHash")(node, bool(map_free_vars)))


def assert_structural_equal(lhs, rhs, map_free_vars=False):
    """Raise :class:`minitvm.error.ValueError` unless ``lhs`` and ``rhs`` are structurally
    equal; the message names the first differing path, e.g.
    ``root.body.body.block.body.value.b.value: 1.0 vs 2.0``, and shows both sides."""
    get_global_func("ir.AssertStructuralEqual")(lhs, rhs, bool(map_free_vars))

"""Tensors and operations of tensor expressions (stage 2), as ``tvm.te.Tensor``.

``A[i, j]`` (or ``A(i, j)``) is the load of element (i, j), a TIR expression to use inside
another compute. ``A.shape``, ``A.dtype``, ``A.op``, ``A.name``, ``A.ndim``. Arithmetic on
tensors (``A + B``, ``A * 2``) applies the TOPI broadcast operators, as in TVM.
"""
from .._ffi import register_object
from ..ir.expr import as_expr
from ..runtime import Object
from . import _ffi_api

__all__ = ["Tensor", "Operation", "PlaceholderOp", "ComputeOp"]


def _topi():
    from .. import topi  # pylint: disable=import-outside-toplevel

    return topi


@register_object("te.Tensor")
class Tensor(Object):
    """One output of an operation."""

    def __getitem__(self, indices):
        if not isinstance(indices, tuple):
            indices = (indices,)
        return _ffi_api.TensorLoad(self, [as_expr(i) for i in indices])

    def __call__(self, *indices):
        if len(indices) == 1 and isinstance(indices[0], (list, tuple)):
            indices = tuple(indices[0])
        return _ffi_api.TensorLoad(self, [as_expr(i) for i in indices])

    @property
    def ndim(self):
        """The rank."""
        return len(self.shape)

    @property
    def name(self):
        """The operation's name (``name_v<i>`` for an output of a multi-output op)."""
        return _ffi_api.TensorName(self)

    def __eq__(self, other):
        return isinstance(other, Tensor) and bool(_ffi_api.TensorEqual(self, other))

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self.op.handle, int(self.value_index)))

    def __repr__(self):
        return f"Tensor(shape={list(self.shape)}, op.name={self.op.name})"

    # Arithmetic through TOPI, as TVM's te.Tensor offers.
    def __add__(self, other):
        return _topi().add(self, other)

    def __radd__(self, other):
        return _topi().add(other, self)

    def __sub__(self, other):
        return _topi().subtract(self, other)

    def __rsub__(self, other):
        return _topi().subtract(other, self)

    def __mul__(self, other):
        return _topi().multiply(self, other)

    def __rmul__(self, other):
        return _topi().multiply(other, self)

    def __truediv__(self, other):
        return _topi().divide(self, other)

    def __rtruediv__(self, other):
        return _topi().divide(other, self)

    def __neg__(self):
        return _topi().negative(self)


@register_object("te.Operation")
class Operation(Object):
    """A producer of tensors (``name``, ``tag``, ``attrs``)."""

    def output(self, index):
        """Output ``index`` as a Tensor."""
        return _ffi_api.OpOutput(self, index)

    @property
    def num_outputs(self):
        """How many tensors the operation produces."""
        return int(_ffi_api.OpNumOutputs(self))

    @property
    def input_tensors(self):
        """The tensors the operation reads."""
        return list(_ffi_api.OpInputTensors(self))


@register_object("te.PlaceholderOp")
class PlaceholderOp(Operation):
    """An input tensor's operation."""


@register_object("te.ComputeOp")
class ComputeOp(Operation):
    """A compute: ``axis``, ``reduce_axis``, ``body``."""


@register_object("te.TensorBuffer")
class _TensorBuffer(Object):
    """The buffer loads of a tensor refer to inside TE bodies (an implementation detail)."""

"""``minitvm.ir.base``, as ``tvm.ir.base``: where TVM code imports the structural comparisons
from (``from tvm.ir.base import assert_structural_equal``), and ``Node``, the base of IR nodes
(minitvm's :class:`~minitvm.runtime.Object`)."""
from ..runtime import Object as Node
from .structural import assert_structural_equal, structural_equal, structural_hash

__all__ = ["Node", "assert_structural_equal", "structural_equal", "structural_hash"]

"""``from minitvm.script.ir_builder import tir as T``: TensorIR built by running Python
(stage 2), as ``tvm.script.ir_builder.tir``; see :mod:`.ir` for the names."""
from . import frame, ir
from .ir import *  # noqa: F401,F403  pylint: disable=wildcard-import,redefined-builtin
from .ir import boolean as bool  # noqa: F401  pylint: disable=redefined-builtin
from .ir import buffer as Buffer  # noqa: F401

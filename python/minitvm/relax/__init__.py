"""``minitvm.relax``: the graph-level IR of stage 4, as ``tvm.relax``.

Expressions and bindings (:mod:`.expr`), struct info (:mod:`.struct_info`), the operators
(:mod:`.op`), :class:`BlockBuilder`, well-formedness (:mod:`.analysis`), passes
(:mod:`.transform`) and the reference interpreter (:func:`interpret`). Everything here calls
C++ functions registered as ``"relax.*"``.
"""
from .expr import *  # noqa: F401,F403
from .struct_info import *  # noqa: F401,F403
from . import op  # noqa: E402
from .op import *  # noqa: F401,F403  (TVM re-exports the operators at relax.*: relax.add)
from .block_builder import BlockBuilder  # noqa: E402
from . import analysis, transform  # noqa: E402
from .interpreter import interpret  # noqa: E402
from . import frontend, testing  # noqa: E402,F401
try:  # the VM and relax.build come with stage 5
    from .vm import VirtualMachine, Executable  # noqa: E402,F401
    from .vm_build import build  # noqa: E402,F401
    from .vm_transform import vm_lowering_pipeline  # noqa: E402,F401
except ImportError:  # pragma: no cover
    pass
from .pipeline import get_pipeline  # noqa: E402

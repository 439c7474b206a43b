"""``minitvm.gpu_check``: run CUDA kernels on the CPU with GPU semantics (stage 5).

``check(mod, *arrays, target="cuda")`` lowers ``mod`` (a scheduled IRModule or PrimFunc whose
loops are bound to ``blockIdx``/``threadIdx``) with the CUDA TIR pipeline — the same kernels
``tvm.build(mod, target="cuda")`` hands to CodeGenCUDA — and runs every launch in a SIMT
interpreter: all threads of a block, barriers (``__syncthreads()``) as phases. The CPU
``arrays`` receive what the GPU would compute. It raises :class:`minitvm.error.RuntimeError`
naming the buffer, the element and the threads for

* a data race on shared memory (two threads touch one element between the same barriers, one
  of them writing: "missing __syncthreads()"),
* a race on global memory (two threads write one element, or one reads what another writes),
* an out-of-bounds access (with the thread and block index),
* a read of shared memory that no thread wrote,
* a ``__syncthreads()`` that only some threads reach,
* a launch larger than the target allows (``max_threads_per_block``,
  ``max_shared_memory_per_block``; e.g. ``target="cuda -max_threads_per_block=64"``).

The name is ``gpu_check`` rather than ``minitvm.cuda.check`` because ``minitvm.cuda`` is the
device constructor ``tvm.cuda(0)``.
"""
from ._ffi import get_global_func

__all__ = ["check"]


def check(mod, *arrays, target="cuda", func_name="main"):
    """Run ``mod``'s host function ``func_name`` on the CPU NDArrays ``arrays`` with GPU
    semantics; returns the number of kernel launches it checked."""
    from .target import Target  # pylint: disable=import-outside-toplevel

    if isinstance(target, str):
        target = Target(target)
    return get_global_func("gpu_check.Check")(mod, target, func_name, *arrays)

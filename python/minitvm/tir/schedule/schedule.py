"""``tir.Schedule``: transform a PrimFunc one primitive at a time (stage 3).

The schedule keeps the module (``sch.mod``, always valid IR), the handles it gave out
(:class:`BlockRV` for blocks, :class:`LoopRV` for loops; they keep pointing at the same
block or loop across later primitives) and the trace of everything applied
(``sch.trace``). Each method below is TVM's method of the same name; the C++ primitive
checks its preconditions and raises a :class:`ScheduleError` subclass naming the broken rule,
with the IR and the offending loop or block marked in the message. After an error the
schedule is exactly as before.
"""
import functools

from ..._ffi import register_object
from ... import error as _error
from ...runtime import Object
from . import _ffi_api
from .index_map import IndexMap

__all__ = ["BlockRV", "LoopRV", "Schedule", "ScheduleError"]

ScheduleError = _error.ScheduleError


@register_object("tir.BlockRV")
class BlockRV(Object):
    """A handle to a block of the scheduled module."""


@register_object("tir.LoopRV")
class LoopRV(Object):
    """A handle to a loop of the scheduled module."""


def _debug_mask(mask):
    if isinstance(mask, str):
        if mask == "all":
            return 1
        if mask == "none":
            return 0
        raise _error.ValueError(f'debug_mask must be "all", "none" or an int, not {mask!r}')
    return _int(mask, "debug_mask")


def _int(value, what, expected="an integer"):
    """An integer argument (an int or an integer constant such as T.int32(4)); TypeError
    otherwise, saying "<what> must be <expected>"."""
    if isinstance(value, bool) or isinstance(value, float) or not hasattr(value, "__int__"):
        raise _error.TypeError(f"{what} must be {expected}, not {value!r}")
    return int(value)


def _loops(args):
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return list(args[0])
    return list(args)


def _accepts_block_name(method):
    """Let ``method`` take a block's name where it takes a BlockRV, as TVM's schedules do."""

    @functools.wraps(method)
    def wrapper(self, block, *args, **kwargs):
        if isinstance(block, str):
            block = self.get_block(block)
        return method(self, block, *args, **kwargs)

    return wrapper


@register_object("tir.Schedule")
class Schedule(Object):
    """A schedule of an IRModule (or of a single PrimFunc, which becomes ``main``).

    Parameters
    ----------
    mod : IRModule or PrimFunc
        What to schedule.
    debug_mask : "all", "none" or int
        "all" checks the IR after every primitive (a failure is a minitvm bug).
    error_render_level : "detail", "fast" or "none"
        How much an error shows: the IR with the error marked, only the preconditions,
        or only one line.
    """

    def __init__(self, mod, *, seed=None, debug_mask="all", error_render_level="detail",
                 enable_check=True):
        self.__init_handle_by_constructor__(
            _ffi_api.Schedule, mod, _debug_mask(debug_mask), str(error_render_level)
        )

    # ---- state ------------------------------------------------------------------------------
    @property
    def mod(self):
        """The module as scheduled so far."""
        return _ffi_api.ScheduleGetMod(self)

    @property
    def trace(self):
        """The trace of the primitives applied so far."""
        return _ffi_api.ScheduleGetTrace(self)

    @property
    def func_working_on(self):
        """The function get_block looks in by default."""
        return "main"

    def copy(self):
        """An independent copy with the same module, handles and trace."""
        return _ffi_api.ScheduleCopy(self)

    def get(self, rv):
        """The Block or For a handle refers to now."""
        return _ffi_api.ScheduleGet(self, rv)

    def show(self, *args, **kwargs):
        """Print the module as TVMScript."""
        print(self.mod.script() if hasattr(self.mod, "script") else self.mod)

    def show_steps(self, func_name="main", seed=0, print_output=True):
        """The step-by-step view: each primitive of the trace with the IR diff it made and a
        check on random inputs that the function still computes what the original did.
        Prints it (unless ``print_output=False``) and returns it as text."""
        original = _ffi_api.ScheduleOriginalMod(self)
        report = _ffi_api.ShowSteps(original, self.trace, func_name, _int(seed, "seed"))
        text = str(report["text"])
        if print_output:
            print(text, end="")
        return text

    # ---- getters ----------------------------------------------------------------------------
    def get_block(self, name, func_name="main"):
        """The block named ``name``."""
        return _ffi_api.GetBlock(self, name, func_name)

    @_accepts_block_name
    def get_loops(self, block):
        """The loops above ``block``, outermost first."""
        return list(_ffi_api.GetLoops(self, block))

    def get_child_blocks(self, block_or_loop):
        """The blocks directly under a block or loop."""
        return list(_ffi_api.GetChildBlocks(self, [block_or_loop]))

    @_accepts_block_name
    def get_producers(self, block):
        """The blocks of the same scope that write what ``block`` reads."""
        return list(_ffi_api.GetProducers(self, block))

    @_accepts_block_name
    def get_consumers(self, block):
        """The blocks of the same scope that read what ``block`` writes."""
        return list(_ffi_api.GetConsumers(self, block))

    # ---- loops ------------------------------------------------------------------------------
    def split(self, loop, factors, preserve_unit_iters=True, disable_predication=False):
        """Split ``loop`` into nested loops of the given extents (one may be None)."""
        if isinstance(factors, (str, bytes)) or not hasattr(factors, "__iter__"):
            raise _error.TypeError(
                f"split: factors must be a list of ints (one may be None), not {factors!r}")
        fs = [None if f is None else _int(f, "split factors", "integers or None") for f in factors]
        return list(_ffi_api.Split(self, loop, fs, bool(preserve_unit_iters),
                                   bool(disable_predication)))

    def fuse(self, *loops, preserve_unit_iters=True):
        """Fuse a chain of perfectly nested loops into one."""
        return _ffi_api.Fuse(self, _loops(loops), bool(preserve_unit_iters))

    def reorder(self, *ordered_loops):
        """Reorder loops of one chain into the given order."""
        _ffi_api.Reorder(self, _loops(ordered_loops))

    def parallel(self, loop):
        """Run the loop's iterations in parallel."""
        _ffi_api.Parallel(self, loop)

    def vectorize(self, loop):
        """Run the loop as vector lanes."""
        _ffi_api.Vectorize(self, loop)

    def unroll(self, loop):
        """Unroll the loop."""
        _ffi_api.Unroll(self, loop)

    def bind(self, loop, thread_axis):
        """Bind the loop to a thread axis: blockIdx.x/y/z, threadIdx.x/y/z or vthread."""
        _ffi_api.Bind(self, loop, str(thread_axis))

    def add_unit_loop(self, block_or_loop):
        """Wrap a block or loop in a new loop of extent 1."""
        return _ffi_api.AddUnitLoop(self, block_or_loop)

    # ---- compute location -------------------------------------------------------------------
    @_accepts_block_name
    def compute_at(self, block, loop, preserve_unit_loops=False, index=-1):
        """Move a producer block under ``loop``, computing only what its consumers there
        need. ``index`` places it in the loop body: -1 the last valid position, -2 the first,
        or a valid position (after its producers, before its consumers)."""
        _ffi_api.ComputeAt(self, block, loop, bool(preserve_unit_loops), _int(index, "index"))

    @_accepts_block_name
    def reverse_compute_at(self, block, loop, preserve_unit_loops=False, index=-1):
        """Move a consumer block under ``loop``, consuming what its producers there write.
        ``index`` as for :meth:`compute_at`."""
        _ffi_api.ReverseComputeAt(self, block, loop, bool(preserve_unit_loops), _int(index, "index"))

    @_accepts_block_name
    def compute_inline(self, block):
        """Inline the block into its consumers."""
        _ffi_api.ComputeInline(self, block)

    @_accepts_block_name
    def reverse_compute_inline(self, block):
        """Inline the block into its single producer."""
        _ffi_api.ReverseComputeInline(self, block)

    # ---- buffers ----------------------------------------------------------------------------
    @_accepts_block_name
    def cache_read(self, block, read_buffer_index, storage_scope, consumer_blocks=None):
        """Read a buffer through a copy in ``storage_scope``; returns the copy block."""
        return _ffi_api.CacheRead(self, block, list(consumer_blocks or []),
                                  _int(read_buffer_index, "read_buffer_index"), str(storage_scope))

    @_accepts_block_name
    def cache_write(self, block, write_buffer_index, storage_scope, consumer_blocks=None):
        """Write a buffer through a copy in ``storage_scope``; returns the copy block."""
        return _ffi_api.CacheWrite(self, block, list(consumer_blocks or []),
                                   _int(write_buffer_index, "write_buffer_index"), str(storage_scope))

    @_accepts_block_name
    def set_scope(self, block, buffer_index, storage_scope):
        """Set the storage scope of a buffer the block writes."""
        _ffi_api.SetScope(self, block, _int(buffer_index, "buffer_index"), str(storage_scope))

    @_accepts_block_name
    def storage_align(self, block, buffer_index, axis, factor, offset):
        """Pad the stride of ``axis`` of a written buffer to ``factor * k + offset``."""
        _ffi_api.StorageAlign(self, block, _int(buffer_index, "buffer_index"), _int(axis, "axis"),
                              _int(factor, "factor"), _int(offset, "offset"))

    @_accepts_block_name
    def transform_layout(self, block, buffer, index_map, pad_value=None,
                         assume_injective_transform=False):
        """Change the layout of one of the block's buffers through ``index_map`` (an
        IndexMap or a function of the old indices returning the new ones).

        ``buffer`` is ``("read", i)``, ``("write", i)`` or the buffer's name.
        """
        if not isinstance(block, BlockRV):
            raise _error.TypeError(
                f"transform_layout: expected a block but got {type(block).__name__}")
        kind, index = self._buffer_index(block, buffer)
        block_obj = self.get(block)
        regions = block_obj.writes if kind == 1 else block_obj.reads
        if not 0 <= index < len(regions):
            raise _error.IndexError(
                f"transform_layout: block {block_obj.name_hint} has {len(regions)} "
                f"{'written' if kind == 1 else 'read'} buffer(s); index {index} is out of range")
        ndim = len(regions[index].buffer.shape)
        imap = IndexMap.from_func(index_map, ndim=ndim)
        _ffi_api.TransformLayout(self, block, kind, index, imap, pad_value)

    def _buffer_index(self, block, buffer):
        if isinstance(buffer, tuple):
            if len(buffer) != 2 or buffer[0] not in ("read", "write"):
                raise _error.ValueError(f'buffer must be ("read", i) or ("write", i), not {buffer!r}')
            kind, index = buffer
            return (1 if kind == "write" else 0), _int(index, "the buffer index")
        if not isinstance(buffer, str) and not hasattr(buffer, "name"):
            raise _error.TypeError(
                f'buffer must be ("read", i), ("write", i), a buffer name or a Buffer, not {buffer!r}')
        block_obj = self.get(block)
        name = buffer if isinstance(buffer, str) else str(buffer.name)
        for kind, regions in ((1, block_obj.writes), (0, block_obj.reads)):
            for i, region in enumerate(regions):
                if str(region.buffer.name) == name:
                    return kind, i
        raise _error.ValueError(f"block {block_obj.name_hint} does not access a buffer named {name}")

    # ---- reductions -------------------------------------------------------------------------
    @_accepts_block_name
    def decompose_reduction(self, block, loop):
        """Move the block's init into a block of its own before ``loop``; returns it."""
        return _ffi_api.DecomposeReduction(self, block, loop)

    def rfactor(self, loop, factor_axis):
        """Factor the reduction over ``loop`` into partial results; returns the rfactor
        block."""
        return _ffi_api.RFactor(self, loop, _int(factor_axis, "factor_axis"))

    # ---- annotations, blockize, tensorize ---------------------------------------------------
    def annotate(self, block_or_loop, ann_key, ann_val):
        """Set an annotation on a block or loop."""
        _ffi_api.Annotate(self, block_or_loop, str(ann_key), ann_val)

    def unannotate(self, block_or_loop, ann_key):
        """Remove an annotation from a block or loop."""
        _ffi_api.Unannotate(self, block_or_loop, str(ann_key))

    def blockize(self, target, preserve_unit_iters=True):
        """Make the loop and what is under it the body of a new block; returns it."""
        return _ffi_api.Blockize(self, target, bool(preserve_unit_iters))

    def tensorize(self, block_or_loop, tensor_intrin, preserve_unit_iters=True):
        """Replace the computation under a loop (or a block) by a registered intrinsic."""
        _ffi_api.Tensorize(self, block_or_loop, str(tensor_intrin), bool(preserve_unit_iters))

    def enter_postproc(self):
        """Mark the start of post-processing in the trace."""
        _ffi_api.EnterPostproc(self)

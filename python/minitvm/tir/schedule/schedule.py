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

__all__ = ["BlockRV", "ExprRV", "LoopRV", "Schedule", "ScheduleError"]

ScheduleError = _error.ScheduleError


@register_object("tir.BlockRV")
class BlockRV(Object):
    """A handle to a block of the scheduled module."""


@register_object("tir.LoopRV")
class LoopRV(Object):
    """A handle to a loop of the scheduled module."""


@register_object("tir.ExprRV")
class ExprRV(Object):
    """A handle to an integer a sampling primitive chose (``sch.get(v)`` gives the value).

    It can be used wherever the value is expected: as a ``split`` factor, or ``int(v)``.
    """

    @property
    def value(self):
        return int(self.__getattr__("value"))

    def __int__(self):
        return self.value

    def __index__(self):
        return self.value


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


def _decision(decision):
    if decision is None:
        return None
    if isinstance(decision, (list, tuple)):
        return [_int(d, "decision", "integers") for d in decision]
    return _int(decision, "decision", "an integer or a list of integers")


def _loops(args):
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return list(args[0])
    return list(args)


# Python-side schedule state, keyed by the C++ schedule's address: the function `work_on`
# chose, and the handles `remove_rv` forgot. (A schedule's C++ node has no field for them.)
_WORKING_ON = {}
_REMOVED_RVS = {}


def _check_not_removed(sch, rv):
    if isinstance(rv, Object) and rv.handle in _REMOVED_RVS.get(sch.handle, ()):
        raise _error.ValueError(
            f"this {type(rv).__name__} was removed from the schedule (remove_rv)")


def _block_index_dtype(block):
    """The index type of a block: its first iterator's, else its first region's, else int64."""
    for iv in block.iter_vars:
        return str(iv.var.dtype)
    for region in list(block.reads) + list(block.writes):
        for rng in region.region:
            return str(rng.min.dtype)
    return "int64"


def _accepts_block_name(method):
    """Let ``method`` take a block's name where it takes a BlockRV, as TVM's schedules do."""

    @functools.wraps(method)
    def wrapper(self, block, *args, **kwargs):
        if isinstance(block, str):
            block = self.get_block(block)
        _check_not_removed(self, block)
        return method(self, block, *args, **kwargs)

    return wrapper


@register_object("tir.Schedule")
class Schedule(Object):
    """A schedule of an IRModule (or of a single PrimFunc, which becomes ``main``).

    Parameters
    ----------
    mod : IRModule or PrimFunc
        What to schedule.
    seed : None or int
        Seeds the random state of the sampling primitives (``sample_perfect_tile``, ...):
        the same seed and the same calls give the same decisions. None or -1 seed from the
        clock.
    debug_mask : "all", "none" or int
        "all" checks the IR after every primitive (a failure is a minitvm bug).
    error_render_level : "detail", "fast" or "none"
        How much an error shows: the IR with the error marked, only the preconditions,
        or only one line.
    enable_check : bool
        Must be True: minitvm always checks a primitive's preconditions (False, TVM's
        "trust me", is refused with a ValueError).

    Example
    -------
    .. code-block:: python

        sch = tvm.tir.Schedule(MyModule)
        block = sch.get_block("C")
        i, j, k = sch.get_loops(block)
        sch.reorder(k, i)
        print(sch.mod.script())
    """

    def __init__(self, mod, *, seed=None, debug_mask="all", error_render_level="detail",
                 enable_check=True):
        seed = -1 if seed is None else _int(seed, "seed")
        if enable_check is not True:
            raise _error.ValueError(
                f"Schedule: enable_check={enable_check!r} is not supported: minitvm always "
                "checks the preconditions of every primitive")
        self.__init_handle_by_constructor__(
            _ffi_api.Schedule, mod, _debug_mask(debug_mask), str(error_render_level)
        )
        _ffi_api.ScheduleSeed(self, seed)
        # A new C++ schedule may reuse a freed one's address: start with no Python-side state.
        _WORKING_ON.pop(self.handle, None)
        _REMOVED_RVS.pop(self.handle, None)

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
        """The GlobalVar of the function ``get_block`` looks in by default (``work_on`` sets
        it; at first ``main``, or the module's only function), or None when there is none."""
        name = self._working_on_name()
        if name is None:
            return None
        return self.mod.get_global_var(name)

    def _working_on_name(self):
        name = _WORKING_ON.get(self.handle)
        if name is not None:
            return name
        names = [gv.name_hint for gv in self.mod.get_global_vars()]
        if "main" in names or not names:
            return "main"
        return names[0] if len(names) == 1 else None

    def work_on(self, func_name):
        """Make ``func_name`` the function that ``get_block`` (and ``get_sblock``) look in when
        no ``func_name`` is given (TVM's ``Schedule.work_on``)."""
        names = [gv.name_hint for gv in self.mod.get_global_vars()]
        if func_name not in names:
            raise _error.ValueError(
                f"work_on: the module has no function {func_name!r}; it has {sorted(names)}")
        _WORKING_ON[self.handle] = str(func_name)

    @property
    def state(self):
        """A read-only view of the schedule's state: ``state.mod``, ``state.get_sref(stmt)``
        (see :class:`minitvm.tir.schedule.state.ScheduleState`)."""
        from .state import ScheduleState  # pylint: disable=import-outside-toplevel

        return ScheduleState(self)

    def get_sref(self, rv_or_stmt):
        """Where a block or loop (a handle, or a Block/For node of ``sch.mod``) sits: a
        :class:`~minitvm.tir.schedule.state.StmtSRef` (``.stmt``, ``.parent``), or None when
        the node is not in the scheduled module."""
        from .state import _sref  # pylint: disable=import-outside-toplevel

        _check_not_removed(self, rv_or_stmt)
        return _sref(self, rv_or_stmt)

    def remove_rv(self, rand_var):
        """Forget a handle (BlockRV, LoopRV or ExprRV): later ``get``/``get_sref`` of it raise
        ValueError. The block or loop itself is not touched."""
        if not isinstance(rand_var, (BlockRV, LoopRV, ExprRV)):
            raise _error.TypeError(
                f"remove_rv expects a BlockRV, LoopRV or ExprRV, not {type(rand_var).__name__}")
        _REMOVED_RVS.setdefault(self.handle, set()).add(rand_var.handle)

    def copy(self):
        """An independent copy with the same module, handles and trace."""
        new = _ffi_api.ScheduleCopy(self)
        _WORKING_ON.pop(new.handle, None)
        _REMOVED_RVS.pop(new.handle, None)
        if self.handle in _WORKING_ON:
            _WORKING_ON[new.handle] = _WORKING_ON[self.handle]
        if self.handle in _REMOVED_RVS:
            _REMOVED_RVS[new.handle] = set(_REMOVED_RVS[self.handle])
        return new

    def get(self, rv):
        """The Block or For a handle refers to now, or the int an ExprRV holds."""
        _check_not_removed(self, rv)
        result = _ffi_api.ScheduleGet(self, rv)
        if isinstance(rv, ExprRV):
            return int(result)
        return result

    def seed(self, seed):
        """Re-seed the random state of the sampling primitives (-1: from the clock)."""
        _ffi_api.ScheduleSeed(self, _int(seed, "seed"))

    def fork_seed(self):
        """A new seed drawn from this schedule's random state (to seed a forked schedule)."""
        return int(_ffi_api.ScheduleForkSeed(self))

    # ---- sampling -----------------------------------------------------------------------------
    def sample_perfect_tile(self, loop, n, max_innermost_factor=16, decision=None):
        """Sample ``n`` tile sizes whose product is the extent of ``loop``.

        Parameters
        ----------
        loop : LoopRV
            A loop of constant extent.
        n : int
            How many factors (the split's depth).
        max_innermost_factor : int
            The innermost factor is at most this (-1: no limit).
        decision : list of int or None
            Replay this choice instead of drawing one (it must be a perfect tiling).

        Returns
        -------
        factors : list of ExprRV
            The factors, outermost first; pass them to :meth:`split`.

        Example
        -------
        .. code-block:: python

            i, j, k = sch.get_loops(sch.get_block("C"))
            j0, j1 = sch.split(j, factors=sch.sample_perfect_tile(j, n=2))
            # the trace records the choice:
            #   v3, v4 = sch.sample_perfect_tile(loop=l1, n=2, max_innermost_factor=16,
            #                                    decision=[8, 16])
        """
        return list(_ffi_api.SamplePerfectTile(self, loop, _int(n, "n"),
                                               _int(max_innermost_factor, "max_innermost_factor"),
                                               _decision(decision)))

    def sample_categorical(self, candidates, probs, decision=None):
        """Sample one of the integer ``candidates`` with probabilities ``probs``.

        The trace records the chosen index as ``decision``. Returns an ExprRV.

        Example
        -------
        .. code-block:: python

            unroll = sch.sample_categorical([0, 16, 64, 512], [0.25, 0.25, 0.25, 0.25])
            sch.annotate(block, "meta_schedule.unroll_explicit", unroll)
        """
        cands = [_int(c, "sample_categorical candidates", "integers") for c in candidates]
        ps = [float(p) for p in probs]
        return _ffi_api.SampleCategorical(self, cands, ps, _decision(decision))

    def sample_compute_location(self, block, decision=None):
        """Sample a loop under which ``compute_at(block, loop)`` is legal.

        The candidates are the loops outside ``block`` for which ``compute_at`` succeeds, each
        loop listed before the loops inside it; the trace records the chosen index as
        ``decision``. Returns a LoopRV.
        """
        if isinstance(block, str):
            block = self.get_block(block)
        return _ffi_api.SampleComputeLocation(self, block, _decision(decision))

    def show(self, style=None, black_format=None, **kwargs):
        """Print the module as TVMScript, highlighted in a terminal or a notebook (``style``,
        ``black_format``: see :func:`minitvm.script.highlight.cprint`). ``sch.trace.show()``
        prints the trace."""
        from ...script.highlight import cprint  # pylint: disable=import-outside-toplevel

        mod = self.mod
        cprint(mod.script() if hasattr(mod, "script") else str(mod), style, black_format)

    def _repr_html_(self):
        """The scheduled module and the trace so far, highlighted (Jupyter's rich display)."""
        from ...script.highlight import to_html  # pylint: disable=import-outside-toplevel

        return (
            to_html(self.mod.script())
            + "<details><summary>trace</summary>"
            + to_html(str(self.trace))
            + "</details>"
        )

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
    def get_block(self, name, func_name=None):
        """The block named ``name`` in function ``func_name``.

        Parameters
        ----------
        name : str
            The block's name (``T.block("C")`` is named ``"C"``).
        func_name : str
            The function to look in.

        Returns
        -------
        block : BlockRV
            A handle to the block; it follows the block through later primitives.

        Example
        -------
        .. code-block:: python

            block_c = sch.get_block("C")   # BlockNotFoundError when there is none
        """
        if func_name is None:
            func_name = self._working_on_name() or "main"
        return _ffi_api.GetBlock(self, name, func_name)

    def get_sblock(self, name, func_name=None):
        """TVM 0.22's name for :meth:`get_block` (blocks became "sblocks")."""
        return self.get_block(name, func_name)

    @_accepts_block_name
    def get_output_blocks(self, scope_block):
        """The blocks under ``scope_block`` (at any depth) that write a buffer not allocated in
        their own scope: the function's outputs, as TVM's ``get_output_blocks``."""
        from .state import _output_blocks  # pylint: disable=import-outside-toplevel

        func_name = _ffi_api.ScheduleGetSRef(self, scope_block)[0]
        return [self.get_block(str(b.name_hint), str(func_name))
                for b in _output_blocks(self.get(scope_block))]

    @_accepts_block_name
    def get_loops(self, block):
        """The loops above ``block`` (up to its enclosing block), outermost first.

        Example
        -------
        With ``for i, j in T.grid(128, 128): with T.block("C"): ...``::

            i, j = sch.get_loops(sch.get_block("C"))
        """
        return list(_ffi_api.GetLoops(self, block))

    def get_child_blocks(self, block_or_loop):
        """The blocks directly under a block or a loop (not inside a nested block).

        Example
        -------
        .. code-block:: python

            root = sch.get_block("root")
            b_c, b_d = sch.get_child_blocks(root)
        """
        return list(_ffi_api.GetChildBlocks(self, [block_or_loop]))

    @_accepts_block_name
    def get_producers(self, block):
        """The blocks of the same scope that write what ``block`` reads.

        Example
        -------
        With ``B = A * 2`` then ``C = B + 1``: ``sch.get_producers(sch.get_block("C"))``
        is ``[<block B>]``.
        """
        return list(_ffi_api.GetProducers(self, block))

    @_accepts_block_name
    def get_consumers(self, block):
        """The blocks of the same scope that read what ``block`` writes.

        Example
        -------
        With ``B = A * 2`` then ``C = B + 1``: ``sch.get_consumers(sch.get_block("B"))``
        is ``[<block C>]``.
        """
        return list(_ffi_api.GetConsumers(self, block))

    # ---- loops ------------------------------------------------------------------------------
    def split(self, loop, factors, preserve_unit_iters=True, disable_predication=False):
        """Split ``loop`` into nested loops whose extents are ``factors``.

        Parameters
        ----------
        loop : LoopRV
            A serial loop starting at 0 without annotations.
        factors : list of int or None
            The extents, outermost first; one may be None (inferred). When their product
            exceeds the extent, the blocks get a ``T.where`` predicate.
        preserve_unit_iters : bool
            Keep loops of extent 1 in the block bindings.
        disable_predication : bool
            Do not add the ``T.where`` predicate (the caller knows it is not needed).

        Returns
        -------
        loops : list of LoopRV
            The new loops, outermost first.

        Example
        -------
        Before::

            for i in range(128):
                with T.block("B"):
                    vi = T.axis.spatial(128, i)
                    B[vi] = A[vi] * 2.0

        After ``i0, i1 = sch.split(i, factors=[None, 32])``::

            for i_0, i_1 in T.grid(4, 32):
                with T.block("B"):
                    vi = T.axis.spatial(128, i_0 * 32 + i_1)
                    B[vi] = A[vi] * 2.0
        """
        if isinstance(factors, (str, bytes)) or not hasattr(factors, "__iter__"):
            raise _error.TypeError(
                f"split: factors must be a list of ints (one may be None), not {factors!r}")
        fs = [None if f is None else f if isinstance(f, ExprRV)
              else _int(f, "split factors", "integers or None") for f in factors]
        return list(_ffi_api.Split(self, loop, fs, bool(preserve_unit_iters),
                                   bool(disable_predication)))

    def fuse(self, *loops, preserve_unit_iters=True):
        """Fuse a chain of perfectly nested loops into one loop ``a_b_fused``.

        Example
        -------
        Before::

            for i, j in T.grid(128, 64):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, j])

        After ``ij = sch.fuse(i, j)``::

            for i_j_fused in range(8192):
                with T.block("B"):
                    vi = T.axis.spatial(128, i_j_fused // 64)
                    vj = T.axis.spatial(64, i_j_fused % 64)
        """
        return _ffi_api.Fuse(self, _loops(loops), bool(preserve_unit_iters))

    def reorder(self, *ordered_loops):
        """Reorder loops of one chain (they need not be adjacent) into the given order.

        Example
        -------
        Before ``for i, j, k in T.grid(16, 16, 16): ...``, after ``sch.reorder(k, i)``::

            for k, j, i in T.grid(16, 16, 16): ...
        """
        _ffi_api.Reorder(self, _loops(ordered_loops))

    def parallel(self, loop):
        """Run the loop's iterations in parallel threads (its blocks bind it to data-parallel
        iterators only).

        Example
        -------
        Before ``for i in range(128):``, after ``sch.parallel(i)``::

            for i in T.parallel(128): ...
        """
        _ffi_api.Parallel(self, loop)

    def vectorize(self, loop):
        """Run the loop as vector lanes.

        Example
        -------
        Before ``for j in range(8):``, after ``sch.vectorize(j)``::

            for j in T.vectorized(8): ...
        """
        _ffi_api.Vectorize(self, loop)

    def unroll(self, loop):
        """Unroll the loop.

        Example
        -------
        Before ``for k in range(4):``, after ``sch.unroll(k)``::

            for k in T.unroll(4): ...
        """
        _ffi_api.Unroll(self, loop)

    def bind(self, loop, thread_axis):
        """Bind the loop to a thread axis: blockIdx.x/y/z, threadIdx.x/y/z or vthread.

        Example
        -------
        Before ``for i in range(128):``, after ``sch.bind(i, "threadIdx.x")``::

            for i in T.thread_binding(128, thread="threadIdx.x"): ...
        """
        _ffi_api.Bind(self, loop, str(thread_axis))

    def add_unit_loop(self, block_or_loop):
        """Wrap a block or loop in a new loop of extent 1; returns the new loop.

        Example
        -------
        Before ``with T.block("B"): ...``, after ``u = sch.add_unit_loop(block_b)``::

            for u in range(1):
                with T.block("B"): ...
        """
        return _ffi_api.AddUnitLoop(self, block_or_loop)

    # ---- compute location -------------------------------------------------------------------
    @_accepts_block_name
    def compute_at(self, block, loop, preserve_unit_loops=False, index=-1):
        """Move a producer block under ``loop``, computing only what its consumers there
        need. ``index`` places it in the loop body: -1 the last valid position, -2 the first,
        or a valid position (after its producers, before its consumers).

        Example
        -------
        Before::

            for i in range(128):
                with T.block("B"):
                    vi = T.axis.spatial(128, i)
                    B[vi] = A[vi] * 2.0
            for i in range(128):
                with T.block("C"):
                    vi = T.axis.spatial(128, i)
                    C[vi] = B[vi] + 1.0

        After ``sch.compute_at(sch.get_block("B"), sch.get_loops(sch.get_block("C"))[0])``::

            for i in range(128):
                with T.block("B"):
                    vi = T.axis.spatial(128, i)
                    B[vi] = A[vi] * 2.0
                with T.block("C"):
                    vi = T.axis.spatial(128, i)
                    C[vi] = B[vi] + 1.0
        """
        _ffi_api.ComputeAt(self, block, loop, bool(preserve_unit_loops), _int(index, "index"))

    @_accepts_block_name
    def reverse_compute_at(self, block, loop, preserve_unit_loops=False, index=-1):
        """Move a consumer block under ``loop``, consuming what its producers there write.
        ``index`` as for :meth:`compute_at`.

        Example
        -------
        With the "Before" of :meth:`compute_at`,
        ``sch.reverse_compute_at(sch.get_block("C"), sch.get_loops(sch.get_block("B"))[0])``
        gives the same "After": C runs inside B's loop.
        """
        _ffi_api.ReverseComputeAt(self, block, loop, bool(preserve_unit_loops), _int(index, "index"))

    @_accepts_block_name
    def compute_inline(self, block):
        """Inline the block into its consumers (its buffer disappears when nothing else
        uses it).

        Example
        -------
        Before::

            with T.block("B"):
                B[vi] = A[vi] * 2.0
            with T.block("C"):
                C[vi] = B[vi] + 1.0

        After ``sch.compute_inline(sch.get_block("B"))``::

            with T.block("C"):
                C[vi] = A[vi] * 2.0 + 1.0
        """
        _ffi_api.ComputeInline(self, block)

    @_accepts_block_name
    def reverse_compute_inline(self, block):
        """Inline the block into its single producer.

        Example
        -------
        With the "Before" of :meth:`compute_inline`,
        ``sch.reverse_compute_inline(sch.get_block("C"))`` gives::

            with T.block("B"):
                C[vi] = A[vi] * 2.0 + 1.0
        """
        _ffi_api.ReverseComputeInline(self, block)

    # ---- buffers ----------------------------------------------------------------------------
    @_accepts_block_name
    def cache_read(self, block, read_buffer_index, storage_scope, consumer_blocks=None):
        """Read the block's ``read_buffer_index``-th buffer (an int, or the buffer's name or
        the Buffer) through a copy in ``storage_scope``; returns the copy block.
        ``consumer_blocks`` (BlockRVs or names) are the readers that use the copy (default:
        all of them).

        Example
        -------
        Before::

            with T.block("B"):
                B[vi] = A[vi] * 2.0

        After ``sch.cache_read(block_b, 0, "shared")``::

            A_shared = T.alloc_buffer((128,), scope="shared")
            for ax0 in range(128):
                with T.block("A_shared"):
                    v0 = T.axis.spatial(128, ax0)
                    A_shared[v0] = A[v0]
            for i in range(128):
                with T.block("B"):
                    B[vi] = A_shared[vi] * 2.0
        """
        index = self._access_index(block, read_buffer_index, False, "read_buffer_index")
        return _ffi_api.CacheRead(self, block, index, str(storage_scope),
                                  self._blocks(consumer_blocks))

    @_accepts_block_name
    def cache_write(self, block, write_buffer_index, storage_scope, consumer_blocks=None):
        """Write the block's ``write_buffer_index``-th buffer (an int, a name or a Buffer)
        through a copy in ``storage_scope``, copied back before the first reader; returns the
        copy block. ``consumer_blocks`` (BlockRVs or names) read the copy instead.

        Example
        -------
        Before ``with T.block("B"): B[vi] = A[vi] * 2.0``, after
        ``sch.cache_write(block_b, 0, "local")``::

            B_local = T.alloc_buffer((128,), scope="local")
            for i in range(128):
                with T.block("B"):
                    B_local[vi] = A[vi] * 2.0
            for ax0 in range(128):
                with T.block("B_local"):
                    v0 = T.axis.spatial(128, ax0)
                    B[v0] = B_local[v0]
        """
        index = self._access_index(block, write_buffer_index, True, "write_buffer_index")
        return _ffi_api.CacheWrite(self, block, index, str(storage_scope),
                                   self._blocks(consumer_blocks))

    @_accepts_block_name
    def cache_inplace(self, block, read_buffer_index, storage_scope):
        """Let a block that reads and writes a buffer (its ``read_buffer_index``-th read, an
        int, a name or a Buffer) work on a copy in ``storage_scope``: the copy is made right
        before the block and written back right after it. Returns ``[copy_in, copy_out]``.

        Example
        -------
        Before::

            for i in range(1):
                with T.block("ext_call"):
                    T.reads(A[0:64])
                    T.writes(A[0:64])
                    T.evaluate(T.call_extern("call_impl", A.data, dtype=""))

        After ``sch.cache_inplace("ext_call", 0, "local")``::

            A_local = T.alloc_buffer((64,), scope="local")
            for i in range(1):
                for ax0 in range(64):
                    with T.block("A_local"):
                        v0 = T.axis.spatial(64, ax0)
                        A_local[v0] = A[v0]
                with T.block("ext_call"):
                    T.reads(A_local[0:64])
                    T.writes(A_local[0:64])
                    T.evaluate(T.call_extern("call_impl", A_local.data, dtype=""))
                for ax0 in range(64):
                    with T.block("A_local_1"):
                        v0 = T.axis.spatial(64, ax0)
                        A[v0] = A_local[v0]
        """
        index = self._access_index(block, read_buffer_index, False, "read_buffer_index")
        return list(_ffi_api.CacheInplace(self, block, index, str(storage_scope)))

    def _blocks(self, blocks):
        """A list of blocks given as BlockRVs or block names."""
        return [self.get_block(b) if isinstance(b, str) else b for b in (blocks or [])]

    def _access_index(self, block, buffer, write, what):
        """The index among the block's reads (``write`` False) or writes of ``buffer``: an int,
        or a buffer's name or a Buffer, which the block must read (write)."""
        if isinstance(buffer, int) or not isinstance(buffer, str) and not hasattr(buffer, "name"):
            return _int(buffer, what, "an integer, a buffer name or a Buffer")
        block_obj = self.get(block)
        regions = block_obj.writes if write else block_obj.reads
        name = buffer if isinstance(buffer, str) else None
        found = [i for i, r in enumerate(regions)
                 if (r.buffer.name == name if name is not None else r.buffer.same_as(buffer))]
        kind = "write" if write else "read"
        shown = name if name is not None else str(buffer.name)
        if not found:
            raise _error.ValueError(
                f"{what}: block {block_obj.name_hint} does not {kind} a buffer {shown!r}")
        if len(found) > 1:
            raise _error.ValueError(
                f"{what}: block {block_obj.name_hint} {kind}s several buffers named {shown!r}")
        return found[0]

    @_accepts_block_name
    def reindex_cache_read(self, block, read_buffer_index, storage_scope, index_map):
        """Read the block's ``read_buffer_index``-th buffer through a cache in
        ``storage_scope`` laid out by ``index_map``, a function of the block's iterators (or
        an IndexMap) giving the cache's indices; returns the copy block. The block must read
        the buffer at a single point; the copy block runs over the block's own iterators.

        Example
        -------
        Before::

            for i, j in T.grid(128, 128):
                with T.block("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    C[vi, vj] = B[vi, vj] + 1.0

        After ``sch.reindex_cache_read("C", 0, "shared", lambda i, j: (j, i))``::

            B_shared = T.alloc_buffer((128, 128), scope="shared")
            for i, j in T.grid(128, 128):
                with T.block("B_shared"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B_shared[vj, vi] = B[vi, vj]
            for i, j in T.grid(128, 128):
                with T.block("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    C[vi, vj] = B_shared[vj, vi] + 1.0
        """
        imap = IndexMap.from_func(index_map, ndim=len(self.get(block).iter_vars))
        return _ffi_api.ReindexCacheRead(self, block, _int(read_buffer_index, "read_buffer_index"),
                                         str(storage_scope), imap)

    @_accepts_block_name
    def reindex_cache_write(self, block, write_buffer_index, storage_scope, index_map):
        """Write the block's ``write_buffer_index``-th buffer through a cache in
        ``storage_scope`` laid out by ``index_map`` (a function of the block's iterators, or an
        IndexMap), copied back after it; returns the copy block. The block must write the
        buffer at a single point.

        Example
        -------
        Before ``with T.block("B"): B[vi, vj] = A[vi, vj] * 2.0``, after
        ``sch.reindex_cache_write("B", 0, "shared", lambda i, j: (j, i))``::

            B_shared = T.alloc_buffer((128, 128), scope="shared")
            for i, j in T.grid(128, 128):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B_shared[vj, vi] = A[vi, vj] * 2.0
            for i, j in T.grid(128, 128):
                with T.block("B_shared"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vi, vj] = B_shared[vj, vi]
        """
        imap = IndexMap.from_func(index_map, ndim=len(self.get(block).iter_vars))
        return _ffi_api.ReindexCacheWrite(self, block,
                                          _int(write_buffer_index, "write_buffer_index"),
                                          str(storage_scope), imap)

    @_accepts_block_name
    def reindex(self, block, buffer):
        """Give the block's access to ``buffer`` a buffer of its own, indexed by the block's
        iterators, and copy between the two in a new block; returns that block.

        ``buffer`` is ``("read", i)``, ``("write", i)``, the buffer's name or the Buffer. Every
        load and store of the buffer in the (leaf) block must use the same indices. The new
        buffer ``<name>_reindex`` has one dimension per block iterator those indices use.

        Example
        -------
        Block ``B`` computes ``B[vi, vj] = A[vj, vi] * 2.0``; after
        ``sch.reindex("B", ("read", 0))``::

            for ax0, ax1 in T.grid(128, 128):
                with T.block("A_reindex_reindex"):
                    v0, v1 = T.axis.remap("SS", [ax0, ax1])
                    A_reindex[v0, v1] = A[v1, v0]
            for i, j in T.grid(128, 128):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vi, vj] = A_reindex[vi, vj] * T.float32(2.0)
        """
        if not isinstance(block, BlockRV):
            raise _error.TypeError(f"reindex: expected a block but got {type(block).__name__}")
        kind, index = self._buffer_index(block, buffer)
        return _ffi_api.ReIndex(self, block, index, kind)

    @_accepts_block_name
    def set_scope(self, block, buffer_index, storage_scope):
        """Set the storage scope of the ``buffer_index``-th buffer the block writes (a buffer
        allocated in the function).

        Example
        -------
        Before ``B = T.alloc_buffer((128,))``, after ``sch.set_scope(block_b, 0, "shared")``::

            B = T.alloc_buffer((128,), scope="shared")
        """
        _ffi_api.SetScope(self, block, _int(buffer_index, "buffer_index"), str(storage_scope))

    @_accepts_block_name
    def storage_align(self, block, buffer_index, axis, factor, offset):
        """Pad the stride of ``axis`` of a written (allocated) buffer to
        ``factor * k + offset``.

        Example
        -------
        ``sch.storage_align(block_b, 0, axis=0, factor=32, offset=1)`` records on block B::

            T.block_attr({"buffer_dim_align": [[0, 0, 32, 1]]})
        """
        _ffi_api.StorageAlign(self, block, _int(buffer_index, "buffer_index"), _int(axis, "axis"),
                              _int(factor, "factor"), _int(offset, "offset"))

    @_accepts_block_name
    def transform_layout(self, block, buffer, index_map, pad_value=None,
                         assume_injective_transform=False):
        """Change the layout of one of the block's buffers through ``index_map`` (an
        IndexMap or a function of the old indices returning the new ones); every access to
        the buffer is rewritten.

        ``buffer`` is ``("read", i)``, ``("write", i)`` or the buffer's name.

        Example
        -------
        Before ``B = T.alloc_buffer((128, 64))`` written as ``B[vi, vj]``, after
        ``sch.transform_layout(block_b, ("write", 0), lambda i, j: (j, i))``::

            B = T.alloc_buffer((64, 128))
            ...
            B[vj, vi] = A[vi, vj] * 2.0
        """
        if not isinstance(block, BlockRV):
            raise _error.TypeError(
                f"transform_layout: expected a block but got {type(block).__name__}")
        kind, index = self._buffer_index(block, buffer)
        # The one buffer-index check of the C++ primitives (IndexOutOfRangeError).
        buf = _ffi_api.ScheduleBlockBuffer(self, block, kind, index, "transform_layout")
        # The map's variables take the block's index type, as in TVM: a map over int64
        # indices keeps them int64 (no int32 casts that hide a vector ramp from codegen).
        imap = IndexMap.from_func(index_map, ndim=len(buf.shape),
                                  index_dtype=_block_index_dtype(self.get(block)))
        _ffi_api.TransformLayout(self, block, kind, index, imap, pad_value)

    @_accepts_block_name
    def transform_block_layout(self, block, index_map):
        """Give ``block`` the iteration space ``index_map`` makes of its iterators, with one new
        loop per new iterator (TVM's ``transform_block_layout``). The loops above the block
        must bind its iterators one to one, and the map must be a bijection that minitvm can
        invert: permutations, splits ``i // c, i % c``, fuses and reshapes.

        Example
        -------
        With ``for i, j in T.grid(16, 16)`` binding ``vi, vj`` of block ``B``,
        ``sch.transform_block_layout("B", lambda i, j: (i * 16 + j,))`` gives::

            for ax0 in range(256):
                with T.block("B"):
                    v0 = T.axis.spatial(256, ax0)
                    B[v0 // 16, v0 % 16] = A[v0 // 16, v0 % 16] * T.float32(2.0)
        """
        iters = self.get(block).iter_vars
        dtypes = {str(iv.var.dtype) for iv in iters}
        imap = IndexMap.from_func(index_map, ndim=len(iters),
                                  index_dtype=dtypes.pop() if len(dtypes) == 1 else "int32")
        _ffi_api.TransformBlockLayout(self, block, imap)

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
        """Move the block's init into a block of its own before ``loop``; returns it.

        Example
        -------
        Before::

            for i, k in T.grid(128, 128):
                with T.block("C"):
                    vi, vk = T.axis.remap("SR", [i, k])
                    with T.init():
                        C[vi] = 0.0
                    C[vi] = C[vi] + A[vi, vk]

        After ``sch.decompose_reduction(block_c, k)``::

            for i in range(128):
                with T.block("C_init"):
                    vi = T.axis.spatial(128, i)
                    C[vi] = 0.0
                for k in range(128):
                    with T.block("C_update"):
                        vi, vk = T.axis.remap("SR", [i, k])
                        C[vi] = C[vi] + A[vi, vk]
        """
        return _ffi_api.DecomposeReduction(self, block, loop)

    def rfactor(self, loop, factor_axis):
        """Factor the reduction over ``loop`` into partial results (a new buffer with the
        loop's axis at ``factor_axis``) and a final reduction; returns the rfactor block.

        Example
        -------
        Before ``for k in range(128): C[()] += A[k]`` split into ``k_0, k_1``, after
        ``sch.rfactor(k_1, 0)``::

            for k_0, k_1 in T.grid(4, 32):
                with T.block("C_rf"):
                    C_rf[vk_1] = C_rf[vk_1] + A[vk_0 * 32 + vk_1]
            for k_1 in range(32):
                with T.block("C"):
                    C[()] = C[()] + C_rf[vk_1]
        """
        return _ffi_api.RFactor(self, loop, _int(factor_axis, "factor_axis"))

    # ---- annotations, blockize, tensorize ---------------------------------------------------
    def annotate(self, block_or_loop, ann_key, ann_val):
        """Set an annotation on a block or loop.

        Example
        -------
        After ``sch.annotate(i, "pragma_unroll", 1)``::

            for i in T.serial(128, annotations={"pragma_unroll": 1}): ...

        A sampled value (an ``ExprRV``) is annotated, and recorded in the trace, as its integer.
        """
        if isinstance(ann_val, ExprRV):
            ann_val = self.get(ann_val)
        _ffi_api.Annotate(self, block_or_loop, str(ann_key), ann_val)

    def unannotate(self, block_or_loop, ann_key):
        """Remove an annotation from a block or loop (the reverse of :meth:`annotate`).

        Example
        -------
        Before ``for i in T.serial(128, annotations={"pragma_unroll": 1}):``, after
        ``sch.unannotate(i, "pragma_unroll")``::

            for i in range(128): ...
        """
        _ffi_api.Unannotate(self, block_or_loop, str(ann_key))

    def blockize(self, target, preserve_unit_iters=True):
        """Make the loop and what is under it the body of a new block; returns it.

        Example
        -------
        Before ``for i_0, i_1 in T.grid(8, 16): with T.block("B"): ...``, after
        ``sch.blockize(i_1)``::

            for i_0 in range(8):
                with T.block("B_o"):
                    vi_o = T.axis.spatial(8, i_0)
                    for i_1 in range(16):
                        with T.block("B"): ...
        """
        return _ffi_api.Blockize(self, target, bool(preserve_unit_iters))

    def tensorize(self, block_or_loop, tensor_intrin, preserve_unit_iters=True):
        """Replace the computation under a loop (or a block) by a registered tensor
        intrinsic whose description it matches.

        Example
        -------
        With ``k_1`` a loop of 16 over ``C[vi] += A[vi, vk] * B[vk]``,
        ``sch.tensorize(k_1, "dot_16_f32")`` replaces the loop by the intrinsic's
        implementation, applied to the matching buffer regions.
        """
        _ffi_api.Tensorize(self, block_or_loop, str(tensor_intrin), bool(preserve_unit_iters))

    def enter_postproc(self):
        """Mark the start of post-processing in the trace (``remove_postproc`` drops what
        follows).

        Example
        -------
        ``sch.enter_postproc()`` adds ``sch.enter_postproc()`` to ``sch.trace``.
        """
        _ffi_api.EnterPostproc(self)

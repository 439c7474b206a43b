"""Design spaces: schedules with random decisions in them.

A design space is a function ``space(sch) -> None`` that transforms a ``tir.Schedule`` using
sampling primitives where it has a choice (``sample_perfect_tile`` for tile sizes,
``sample_categorical`` for on/off and unroll depths). Running it once gives one point of the
space; its trace, with the decisions recorded, is what the search stores, mutates and replays.

``default_space(target)`` is the CPU space built from the rules below, applied to every block:

* **auto-inline** — an elementwise block whose output is read by other blocks is computed
  inline into them (when ``compute_inline`` allows it);
* **multi-level tiling "SSRSRS"** — a block with spatial and reduction iterators gets each
  spatial loop split in 4 and each reduction loop in 2, ordered
  ``S0 S1 R0 S2 R1 S3`` (outer spatial tiles for threads and cache, the innermost spatial
  tile for vector lanes); its outer spatial loops are fused and made parallel, the innermost
  loop is vectorized when that is legal, and, on a sampled choice, the result goes through a
  local write cache computed at the ``S1`` level. With the cache, the reduction is decomposed
  at ``R0`` (the accumulator tile is zeroed once, then lives in registers through the
  reduction, as in the hand-written GEMM) and the zeroing and write-back loops are
  vectorized too. ``parallel``/``vectorize`` come before ``decompose_reduction``, the order
  TVM's compact-dataflow rule accepts;
* **layout rewrite of the streamed operand ("pack B")** — on a sampled choice, an input read
  as ``X[r, s]`` (``r`` the block's reduction iterator, ``s`` its innermost spatial one, the
  vector lanes) is copied once per call into panels ``X_global[s // w, r, s % w]`` where
  ``w`` is the sampled ``S3`` tile: each step of the inner reduction loop then loads ``w``
  contiguous values instead of striding a whole row of ``X``. The copy is parallel over
  panels and vectorized. This is TVM's "RewriteLayout" idea done inside the schedule (the
  copy runs in the kernel, not at compile time);
* **unroll** — a sampled ``pragma_auto_unroll_max_step`` (0, 16, 64 or 512) on the outermost
  loop.

User spaces are plain Python functions taking the schedule (the course writes them this
way); ``tune_tir(..., space=my_space)`` searches them.
"""
from ..tir import stmt as _stmt

__all__ = ["default_space", "auto_inline", "multi_level_tiling", "block_names"]


def block_names(sch, func_name="main"):
    """The names of the blocks of ``func_name`` (the root block excluded), in program order."""
    return [name for name, _ in _blocks(sch, func_name)]


def _blocks(sch, func_name):
    names = []

    def visit(node):
        if isinstance(node, _stmt.Block):
            if node.name_hint != "root":
                names.append((str(node.name_hint), node))
            visit(node.body)
        elif isinstance(node, _stmt.BlockRealize):
            visit(node.block)
        elif isinstance(node, _stmt.SeqStmt):
            for s in node.seq:
                visit(s)
        elif isinstance(node, _stmt.IfThenElse):
            visit(node.then_case)
            if node.else_case is not None:
                visit(node.else_case)
        elif isinstance(node, _stmt.Stmt) and isinstance(getattr(node, "body", None), _stmt.Stmt):
            visit(node.body)

    visit(sch.mod[func_name].body)
    return names


def _iter_kinds(block):
    """'S'/'R'/'O' per block iterator (spatial, reduction, other)."""
    kinds = []
    for iv in block.iter_vars:
        t = int(iv.iter_type)
        kinds.append("S" if t == 0 else "R" if t == 2 else "O")
    return "".join(kinds)


def auto_inline(sch, func_name="main"):
    """Inline every block that ``compute_inline`` accepts, except the last writer of each
    output (which has no consumer to go into)."""
    for name, node in _blocks(sch, func_name):
        if "R" in _iter_kinds(node):
            continue
        block = sch.get_block(name, func_name)
        if not sch.get_consumers(block):
            continue
        try:
            sch.compute_inline(block)
        except Exception:  # pylint: disable=broad-except
            pass  # not inlinable (e.g. a non-trivial read pattern): keep the block


def multi_level_tiling(sch, block, max_innermost_factor=64, vector_lanes=None):
    """Tile ``block`` as "SSRSRS" with sampled tile sizes (see the module comment).

    Does nothing when the block's loops do not map one to one onto its iterators (after
    inlining or a reshape), which keeps the rule safe on any block.
    """
    loops = sch.get_loops(block)
    node = sch.get(block)
    kinds = _iter_kinds(node)
    if len(loops) != len(kinds) or "O" in kinds or len(loops) == 0:
        return
    spatial = [l for l, k in zip(loops, kinds) if k == "S"]
    reduce = [l for l, k in zip(loops, kinds) if k == "R"]
    if not reduce or not spatial:
        return
    s_tiles = []
    s_tile_factors = []
    for i, loop in enumerate(spatial):
        limit = max_innermost_factor if i == len(spatial) - 1 else 16
        factors = sch.sample_perfect_tile(loop, n=4, max_innermost_factor=limit)
        s_tile_factors.append(factors)
        s_tiles.append(sch.split(loop, factors=factors))
    r_tiles = []
    for loop in reduce:
        factors = sch.sample_perfect_tile(loop, n=2, max_innermost_factor=16)
        r_tiles.append(sch.split(loop, factors=factors))
    order = ([t[0] for t in s_tiles] + [t[1] for t in s_tiles] + [t[0] for t in r_tiles]
             + [t[2] for t in s_tiles] + [t[1] for t in r_tiles] + [t[3] for t in s_tiles])
    sch.reorder(*order)
    # Pack the streamed operand into panels of the vector tile's width.
    if len(reduce) == 1:
        packable = _streamed_operand(node)
        if packable is not None:
            pack = sch.sample_categorical([0, 1], [0.5, 0.5])
            if sch.get(pack) == 1:
                _pack_panels(sch, block, packable, int(sch.get(s_tile_factors[-1][3])))
    # The write cache: compute the block into a local buffer per S1 tile, then copy out.
    use_cache = sch.sample_categorical([0, 1], [0.5, 0.5])
    cache = None
    if sch.get(use_cache) == 1:
        try:
            cache = sch.cache_write(block, 0, "local")
            sch.reverse_compute_at(cache, s_tiles[-1][1])
        except Exception:  # pylint: disable=broad-except
            cache = None
    # Threads over the fused outer spatial tiles; vector lanes on the innermost tile.
    outer = [t[0] for t in s_tiles]
    fused = sch.fuse(*outer) if len(outer) > 1 else outer[0]
    try:
        sch.parallel(fused)
    except Exception:  # pylint: disable=broad-except
        pass
    try:
        sch.vectorize(s_tiles[-1][3])
    except Exception:  # pylint: disable=broad-except
        pass
    unroll = sch.sample_categorical([0, 16, 64, 512], [0.25, 0.25, 0.25, 0.25])
    sch.annotate(fused, "pragma_auto_unroll_max_step", sch.get(unroll))
    sch.annotate(fused, "pragma_unroll_explicit", 1)
    if cache is not None:
        # Zero the accumulator tile once before the reduction, then vectorize the zeroing and
        # the write-back along the same lanes as the update.
        try:
            init = sch.decompose_reduction(block, r_tiles[0][0])
        except Exception:  # pylint: disable=broad-except
            return
        for b in (init, cache):
            try:
                sch.vectorize(sch.get_loops(b)[-1])
            except Exception:  # pylint: disable=broad-except
                pass


def _streamed_operand(node):
    """The read-buffer index of an input accessed as ``X[r, s]`` — ``r`` the block's only
    reduction iterator, ``s`` its last spatial one — or None."""
    iters = list(node.iter_vars)
    spatial = [iv.var for iv in iters if int(iv.iter_type) == 0]
    reduce = [iv.var for iv in iters if int(iv.iter_type) == 2]
    if len(reduce) != 1 or not spatial:
        return None
    for idx, region in enumerate(node.reads):
        if any(region.buffer.same_as(w.buffer) for w in node.writes):
            continue
        mins = [r.min for r in region.region]
        if (len(mins) == 2 and all(int(getattr(r.extent, "value", 0)) == 1 for r in region.region)
                and mins[0].same_as(reduce[0]) and mins[1].same_as(spatial[-1])):
            return idx
    return None


def _pack_panels(sch, block, read_index, width):
    """Copy read buffer ``read_index`` of ``block`` into ``[s // width, r, s % width]`` panels
    (see the module comment). Leaves the schedule unchanged when a step does not apply."""
    if width <= 1:
        return
    try:
        copy = sch.cache_read(block, read_index, "global")
    except Exception:  # pylint: disable=broad-except
        return
    sch.transform_layout(copy, ("write", 0), lambda r, s: (s // width, r, s % width))
    rows, cols = sch.get_loops(copy)
    panel, lane = sch.split(cols, [None, width])
    sch.reorder(panel, rows, lane)
    sch.parallel(panel)
    sch.vectorize(lane)


def default_space(target=None, max_innermost_factor=64):
    """The CPU design space: auto-inline, then multi-level tiling of every reduction block.

    ``max_innermost_factor`` bounds the innermost spatial tile (the vector loop).
    """

    def space(sch):
        for func_name in [gv.name_hint for gv in sch.mod.get_global_vars()]:
            auto_inline(sch, func_name)
            for name in block_names(sch, func_name):
                multi_level_tiling(sch, sch.get_block(name, func_name), max_innermost_factor)

    return space

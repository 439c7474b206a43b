"""Design spaces: schedules with random decisions in them.

A design space is a function ``space(sch) -> None`` that transforms a ``tir.Schedule`` using
sampling primitives where it has a choice (``sample_perfect_tile`` for tile sizes,
``sample_categorical`` for on/off and unroll depths). Running it once gives one point of the
space; its trace, with the decisions recorded, is what the search stores, mutates and replays.

``default_space(target)`` is the CPU space built from the rules below, applied to every block:

* **auto-inline** — an elementwise block whose output is read by other blocks is computed
  inline into them (when ``compute_inline`` allows it). A padding block (an ``if_then_else``)
  is inlined on a sampled choice only; kept, it is one parallel pass before its consumer;
* **multi-level tiling "SSRSRS"** — a block with spatial and reduction iterators gets each
  spatial loop split in 4 and each reduction loop in 2, ordered ``S0 S1 R0 S2 R1 S3``
  (outer spatial tiles for threads and cache, the innermost spatial tile for vector lanes).
  Which spatial iterator carries the lanes is sampled: the last one, or one that is a lone
  index of a point-read input (a conv's output channel, through its weights). With a CPU
  target, the lanes' tile is a sampled number of whole vectors (1, 2 or 4), and the
  **register tile** — the spatial tiles inside the reduction, ``S2·S3`` — is sampled among
  divisors that fit the target's vector registers (accumulators ≤ registers − streamed
  vectors), so no trial is spent on a tile that spills. The outer spatial loops are fused and
  made parallel, the innermost loop is vectorized when legal, and, on a sampled choice, the
  result goes through a local write cache computed at the ``S1`` level. The cache is laid out
  with the lanes' iterator last (contiguous accumulator vectors), its write-back loops put
  that iterator innermost, and elementwise consumers (bias, ReLU) are inlined into the
  write-back. With the cache, the reduction is decomposed at ``R0`` (the accumulator tile is
  zeroed once, then lives in registers through the reduction, as in the hand-written GEMM)
  and the zeroing and write-back loops are vectorized too. ``parallel``/``vectorize`` come
  before ``decompose_reduction``, the order TVM's compact-dataflow rule accepts;
* **layout rewrite of the streamed operand ("pack")** — on a sampled choice, an input read at
  points with the lanes' iterator ``s`` and a reduction iterator among its indices (``B[k, j]``
  of a GEMM, ``W[o, c, ky, kx]`` of a conv) is copied once per call into panels: ``s``'s
  index becomes ``(s // w, ..., s % w)`` with the other indices in between, ``w`` the lanes'
  tile. Each step of the inner reduction loop then loads ``w`` contiguous values. The copy is
  parallel over panels and vectorized. This is TVM's "RewriteLayout" idea done inside the
  schedule (the copy runs in the kernel, not at compile time);
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


def _is_padding(node):
    """Whether a block's value selects with ``if_then_else`` (a padding or boundary block)."""
    return "if_then_else" in str(node.body)


def auto_inline(sch, func_name="main"):
    """Inline every block that ``compute_inline`` accepts, except the last writer of each
    output (which has no consumer to go into).

    A padding block (its value is an ``if_then_else``) is inlined on a sampled choice only:
    inlined, its bounds test runs in the consumer's innermost loop; kept, it is one parallel
    pass over the padded input before the consumer runs.
    """
    for name, node in _blocks(sch, func_name):
        if "R" in _iter_kinds(node):
            continue
        block = sch.get_block(name, func_name)
        if not sch.get_consumers(block):
            continue
        if _is_padding(node):
            keep = sch.sample_categorical([0, 1], [0.5, 0.5])
            if sch.get(keep) == 1:
                _parallel_outer(sch, block)
                continue
        try:
            sch.compute_inline(block)
        except Exception:  # pylint: disable=broad-except
            pass  # not inlinable (e.g. a non-trivial read pattern): keep the block


def _parallel_outer(sch, block):
    """Make the outer loops of a kept block parallel (fusing loops of extent below 8 with the
    next one, so that a leading batch loop of extent 1 does not leave one task)."""
    loops = sch.get_loops(block)
    outer = [loops[0]]
    extent = _extent(sch, loops[0])
    for loop in loops[1:]:
        if extent >= 8:
            break
        outer.append(loop)
        extent *= _extent(sch, loop)
    try:
        sch.parallel(sch.fuse(*outer) if len(outer) > 1 else outer[0])
    except Exception:  # pylint: disable=broad-except
        pass


def _extent(sch, loop):
    return int(getattr(sch.get(loop).extent, "value", 1))


def _plain_index(region, var):
    """The position of ``var`` among a buffer region's indices when every index is a lone
    block iterator (point accesses), else None."""
    pos = None
    for i, rng in enumerate(region.region):
        if int(getattr(rng.extent, "value", 0)) != 1 or not hasattr(rng.min, "name"):
            return None
        if rng.min.same_as(var):
            pos = i
    return pos


def _vector_candidates(node, spatial):
    """Spatial iterators (positions in ``node.iter_vars``) that may carry the vector lanes:
    the last one, then each that is a lone index of an input read at points (an operand
    whose panels can be packed along it — the output channels of a conv, through its
    weights)."""
    iters = list(node.iter_vars)
    out = [spatial[-1]]
    for i in spatial[:-1]:
        var = iters[i].var
        for region in node.reads:
            if any(region.buffer.same_as(w.buffer) for w in node.writes):
                continue
            if _plain_index(region, var) is not None:
                out.append(i)
                break
    return out


def _register_bounded_tiles(sch, loop, budget, lanes_loop):
    """Split ``loop`` into (S0, S1, S2, S3) whose register part (S2·S3, or S2 when
    ``lanes_loop`` is the vector loop and becomes S3) is a sampled divisor of the extent of at
    most ``budget``: the register tile then always fits the target's vector registers, and
    the search spends no trials on tiles that spill."""
    extent = _extent(sch, loop)
    divisors = [d for d in range(1, min(extent, budget) + 1) if extent % d == 0]
    reg = divisors[0]
    if len(divisors) > 1:
        reg = int(sch.get(sch.sample_categorical(divisors, [1.0 / len(divisors)] * len(divisors))))
    outer, inner = sch.split(loop, factors=[None, reg])
    top = list(sch.split(outer, factors=sch.sample_perfect_tile(
        outer, n=2, max_innermost_factor=max(1, extent // reg))))
    if lanes_loop is not None:
        return top + [inner, lanes_loop]
    return top + list(sch.split(inner, factors=sch.sample_perfect_tile(
        inner, n=2, max_innermost_factor=max(1, reg))))


def multi_level_tiling(sch, block, max_innermost_factor=64, vector_lanes=None,
                       vector_registers=None):
    """Tile ``block`` as "SSRSRS" with sampled tile sizes (see the module comment).

    ``vector_lanes`` (from the target) lets the vector loop's tile be sampled among whole
    vectors (1, 2 or 4 of them) instead of any divisor; with ``vector_registers`` too, the
    register tile (the spatial tiles inside the reduction) is sampled within the registers. Does nothing when the block's loops
    do not map one to one onto its iterators (after inlining or a reshape), which keeps the
    rule safe on any block.
    """
    loops = sch.get_loops(block)
    node = sch.get(block)
    kinds = _iter_kinds(node)
    if len(loops) != len(kinds) or "O" in kinds or len(loops) == 0:
        return
    spatial = [i for i, k in enumerate(kinds) if k == "S"]
    reduce = [i for i, k in enumerate(kinds) if k == "R"]
    if not reduce or not spatial:
        return
    # Which spatial iterator carries the vector lanes (innermost): the last one, or an
    # output channel whose weights can be packed along it.
    candidates = _vector_candidates(node, spatial)
    vec = candidates[0]
    if len(candidates) > 1:
        probs = [0.5] + [0.5 / (len(candidates) - 1)] * (len(candidates) - 1)
        vec = candidates[int(sch.get(sch.sample_categorical(list(range(len(candidates))),
                                                               probs)))]
    order = [i for i in spatial if i != vec] + [vec]
    # The vector tile: a sampled number of whole vectors, split off first.
    vec_extent = _extent(sch, loops[vec])
    widths = [k * vector_lanes for k in (1, 2, 4) if vector_lanes
              and vec_extent % (k * vector_lanes) == 0 and k * vector_lanes <= max_innermost_factor]
    width, vec_outer, vec_lanes, budget = None, loops[vec], None, None
    if widths:
        width = int(sch.get(sch.sample_categorical(widths, [1.0 / len(widths)] * len(widths))))
        vec_outer, vec_lanes = sch.split(loops[vec], factors=[None, width])
        if vector_registers:
            # Accumulators the register tile may hold: the registers left after the streamed
            # vectors (a broadcast scalar folds into the FMA's memory operand).
            vectors = width // vector_lanes
            budget = max(1, (vector_registers - vectors) // vectors)
    s_tiles = []
    for i in order:
        loop = vec_outer if i == vec else loops[i]
        if budget is not None:
            s_tiles.append(_register_bounded_tiles(sch, loop, budget, vec_lanes if i == vec
                                                   else None))
            budget //= _extent(sch, s_tiles[-1][2]) * (
                1 if i == vec else _extent(sch, s_tiles[-1][3]))
            continue
        if i == vec and vec_lanes is not None:
            factors = sch.sample_perfect_tile(vec_outer, n=3, max_innermost_factor=16)
            s_tiles.append(list(sch.split(vec_outer, factors=factors)) + [vec_lanes])
            continue
        limit = max_innermost_factor if i == vec else 16
        factors = sch.sample_perfect_tile(loop, n=4, max_innermost_factor=limit)
        if i == vec:
            width = int(sch.get(factors[3]))
        s_tiles.append(sch.split(loop, factors=factors))
    r_tiles = []
    for i in reduce:
        factors = sch.sample_perfect_tile(loops[i], n=2, max_innermost_factor=16)
        r_tiles.append(sch.split(loops[i], factors=factors))
    sch.reorder(*([t[0] for t in s_tiles] + [t[1] for t in s_tiles] + [t[0] for t in r_tiles]
                  + [t[2] for t in s_tiles] + [t[1] for t in r_tiles]
                  + [t[3] for t in s_tiles]))
    # Pack the streamed operand into panels of the vector tile's width.
    vec_var = node.iter_vars[vec].var
    packable = _streamed_operand(node, vec_var)
    if packable is not None:
        pack = sch.sample_categorical([0, 1], [0.5, 0.5])
        if sch.get(pack) == 1:
            _pack_panels(sch, block, packable[0], packable[1], width)
    # The write cache: compute the block into a local buffer per S1 tile, then copy out.
    use_cache = sch.sample_categorical([0, 1], [0.5, 0.5])
    cache = None
    if sch.get(use_cache) == 1:
        try:
            cache = sch.cache_write(block, 0, "local")
            sch.reverse_compute_at(cache, s_tiles[-1][1])
        except Exception:  # pylint: disable=broad-except
            cache = None
    if cache is not None:
        _vector_last_in_cache(sch, block, cache, vec_var)
        # Elementwise consumers of the result (bias, ReLU) go into the write-back.
        for consumer in sch.get_consumers(cache):
            try:
                sch.reverse_compute_inline(consumer)
            except Exception:  # pylint: disable=broad-except
                pass
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


def _vector_last_in_cache(sch, block, cache, vec_var):
    """When the vector iterator is not the last index of the written buffer (a conv's output
    channel in NCHW), give the local accumulator tile a layout with it last, so that the
    tile's vectors are contiguous, and put the write-back's loop over it innermost (its
    stores then scatter into the output, its loads are whole vectors)."""
    written = sch.get(block).writes[0]
    pos = _plain_index(written, vec_var)
    ndim = len(written.region)
    if pos is None or pos == ndim - 1:
        return
    try:
        sch.transform_layout(block, ("write", 0),
                             lambda *idx: tuple(idx[:pos]) + tuple(idx[pos + 1:]) + (idx[pos],))
        loops = sch.get_loops(cache)[-ndim:]
        sch.reorder(*(loops[:pos] + loops[pos + 1:] + [loops[pos]]))
    except Exception:  # pylint: disable=broad-except
        pass


def _streamed_operand(node, vec_var):
    """``(read index, position of the vector iterator)`` of an input read at points whose
    indices include the vector iterator and a reduction iterator (``B[k, j]`` of a GEMM, a
    conv's weights ``W[o, c, ky, kx]`` with the lanes on ``o``), or None."""
    reduce = [iv.var for iv in node.iter_vars if int(iv.iter_type) == 2]
    for idx, region in enumerate(node.reads):
        if any(region.buffer.same_as(w.buffer) for w in node.writes):
            continue
        pos = _plain_index(region, vec_var)
        if pos is None:
            continue
        if any(_plain_index(region, r) is not None for r in reduce):
            return idx, pos
    return None


def _pack_panels(sch, block, read_index, pos, width):
    """Copy read buffer ``read_index`` of ``block`` into panels: index ``pos`` (the vector
    iterator's) becomes ``(i // width, ..., i % width)`` with the other indices in between
    (see the module comment). Leaves the schedule unchanged when a step does not apply."""
    if not width or width <= 1:
        return
    weight = sch.get(block).reads[read_index].buffer
    try:
        copy = sch.cache_read(block, read_index, "global")
    except Exception:  # pylint: disable=broad-except
        return
    if _is_layout_free(sch, weight):
        # A bound weight: the copy becomes a function of its own that runs once, at compile
        # time (SplitLayoutRewritePreproc + FoldConstant, as for the default rules' packing).
        sch.annotate(copy, "meta_schedule.layout_rewrite_preproc", 1)
    sch.transform_layout(
        copy, ("write", 0),
        lambda *idx: ((idx[pos] // width,) + tuple(idx[:pos]) + tuple(idx[pos + 1:])
                      + (idx[pos] % width,)))
    loops = sch.get_loops(copy)
    panel, lane = sch.split(loops[pos], [None, width])
    sch.reorder(*([panel] + loops[:pos] + loops[pos + 1:] + [lane]))
    sch.parallel(panel)
    sch.vectorize(lane)


def _is_layout_free(sch, buffer):
    """Whether ``buffer`` is a parameter listed in its function's "layout_free_buffers" (a
    weight bound as a constant: AttachAttrLayoutFreeBuffers)."""
    for _, func in sch.mod.functions_items():
        attrs = getattr(func, "attrs", None)
        if attrs is None or "layout_free_buffers" not in attrs:
            continue
        params = list(func.params)
        for index in attrs["layout_free_buffers"]:
            index = int(index)
            if index < len(params) and func.buffer_map[params[index]].same_as(buffer):
                return True
    return False


def default_space(target=None, max_innermost_factor=64):
    """The CPU design space: auto-inline, then multi-level tiling of every reduction block.

    ``max_innermost_factor`` bounds the innermost spatial tile (the vector loop). With a CPU
    target, the vector loop's tile is sampled among whole vectors of its float32 lanes.
    """
    lanes, registers = _float32_vectors(target)

    def space(sch):
        for func_name in [gv.name_hint for gv in sch.mod.get_global_vars()]:
            auto_inline(sch, func_name)
            for name in block_names(sch, func_name):
                if name not in block_names(sch, func_name):
                    continue  # inlined into an earlier block's write-back
                multi_level_tiling(sch, sch.get_block(name, func_name), max_innermost_factor,
                                   lanes, registers)

    return space


def _float32_vectors(target):
    """(float32 lanes per vector, vector registers) of a CPU target, or (None, None)."""
    if target is None:
        return None, None
    try:
        from ..target import Target  # pylint: disable=import-outside-toplevel

        target = target if isinstance(target, Target) else Target(str(target))
        info = target.cpu_vector_info
        return max(1, int(info["vector_bits"]) // 32), int(info["vector_registers"])
    except Exception:  # pylint: disable=broad-except
        return None, None

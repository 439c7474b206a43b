"""``tune_tir`` and ``tune_relax``: search schedules, keep the measurements in a database, and
apply the best ones when compiling (``compile_tir``, ``compile_relax``, the
``MetaScheduleApplyDatabase`` pass)."""
import os
import sys

from .. import ir as _ir
from ..target import Target
from ..tir import stmt as _stmt
from ..tir import expr as _expr
from ..tir.function import PrimFunc
from .database import (FAILED_RUN_SECS, Database, JSONDatabase, MemoryDatabase, TuningRecord,
                       Workload)
from .measure import BuilderInput, LocalBuilder, LocalRunner, RunnerInput
from .search import EvolutionarySearch
from .space import default_space

__all__ = ["tune_tir", "tune_relax", "compile_tir", "compile_relax", "apply_database",
           "estimate_flops", "extract_tasks", "MetaScheduleApplyDatabase"]


# ---- facts about a workload ---------------------------------------------------------------------

def args_info(func):
    """[(shape, dtype)] of a PrimFunc's buffer parameters (shapes must be constant)."""
    out = []
    for param in func.params:
        buf = func.buffer_map.get(param) if func.buffer_map is not None else None
        if buf is None:
            raise ValueError(f"tuning needs buffer parameters; {param} is a scalar")
        shape = []
        for dim in buf.shape:
            if not isinstance(dim, _expr.IntImm):
                raise ValueError(f"tuning needs constant shapes; {buf.name} has {list(buf.shape)}")
            shape.append(int(dim.value))
        out.append((shape, str(buf.dtype)))
    return out


_ARITH = tuple(getattr(_expr, n) for n in ("Add", "Sub", "Mul", "Div", "FloorDiv", "Max", "Min")
               if hasattr(_expr, n))


def _count_ops(expr):
    count = 0
    stack = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, _ARITH):
            count += 1
        for field in ("a", "b", "value", "condition", "true_value", "false_value"):
            child = getattr(e, field, None)
            if isinstance(child, _expr.PrimExpr) and not isinstance(child, (_expr.IntImm,
                                                                              _expr.FloatImm)):
                stack.append(child)
        if isinstance(e, _expr.Call):
            stack.extend(a for a in e.args if isinstance(a, _expr.PrimExpr))
    return count


def estimate_flops(func):
    """Floating-point operations of one call: for every store, the arithmetic operations of its
    value times the iterations of the loops around it (an estimate: no data-dependent
    control flow is counted)."""
    total = 0

    def walk(stmt, trips):
        nonlocal total
        if isinstance(stmt, _stmt.For):
            ext = stmt.extent
            walk(stmt.body, trips * (int(ext.value) if isinstance(ext, _expr.IntImm) else 1))
        elif isinstance(stmt, _stmt.SeqStmt):
            for s in stmt.seq:
                walk(s, trips)
        elif isinstance(stmt, _stmt.BlockRealize):
            walk(stmt.block, trips)
        elif isinstance(stmt, _stmt.Block):
            walk(stmt.body, trips)
        elif isinstance(stmt, _stmt.BufferStore):
            if str(stmt.buffer.dtype).startswith("float"):
                total += trips * _count_ops(stmt.value)
        elif isinstance(stmt, _stmt.IfThenElse):
            walk(stmt.then_case, trips)
            if stmt.else_case is not None:
                walk(stmt.else_case, trips)
        elif hasattr(stmt, "body") and isinstance(getattr(stmt, "body", None), _stmt.Stmt):
            walk(stmt.body, trips)

    walk(func.body, 1)
    return total


def _single_func(mod):
    if isinstance(mod, PrimFunc):
        mod = _ir.IRModule({"main": mod.with_attr("global_symbol", "main")})
    funcs = [(gv.name_hint, f) for gv, f in mod.functions_items()]
    if len(funcs) != 1 or not isinstance(funcs[0][1], PrimFunc):
        raise ValueError("tune_tir tunes a module of exactly one PrimFunc; got "
                         f"{[name for name, _ in funcs]}")
    return mod, funcs[0][0], funcs[0][1]


def _timed_form(mod):
    """``mod`` as it is timed: without the packing of bound weights (TVM's builder applies
    RemoveWeightLayoutRewriteBlock too), since tvm.compile runs that once at compile time."""
    from .._ffi import get_global_func  # pylint: disable=import-outside-toplevel

    remove = get_global_func("tir.transform.RemoveWeightLayoutRewriteBlockFunc",
                             allow_missing=True)
    if remove is None:
        return mod
    return _ir.IRModule({gv: remove(f) if isinstance(f, PrimFunc) else f
                         for gv, f in mod.functions_items()}, mod.attrs)


def _measurer(target, func_name, func, builder, runner):
    # The built library exports the function under its global symbol.
    if func.attrs is not None and "global_symbol" in func.attrs:
        func_name = str(func.attrs["global_symbol"])

    def measure(mods, rounds=1):
        """(run_secs or None, error or None) per module. With rounds > 1 every module is built
        once and run `rounds` times, the modules one after the other in each round, and its
        run_secs are the per-round means (so a change of machine load hits them all alike)."""
        mods = [_timed_form(m) for m in mods]
        # A removed packing changes the kernel's parameters: each module's own argument list.
        infos = [args_info(next(f for _, f in m.functions_items() if isinstance(f, PrimFunc)))
                 for m in mods]
        built = builder.build([BuilderInput(m, target) for m in mods])
        to_run = [(i, b) for i, b in enumerate(built) if b.artifact_path]
        inputs = [RunnerInput(b.artifact_path, infos[i], func_name) for i, b in to_run]
        per_round = [runner.run(inputs) for _ in range(max(1, rounds))] if inputs else []
        results = [(None, "build: " + (b.error_msg or "")) for b in built]
        for n, (i, b) in enumerate(to_run):
            runs = [r[n] for r in per_round]
            if rounds <= 1:
                r = runs[0]
                results[i] = (r.run_secs, None if r.run_secs else "run: " + (r.error_msg or ""))
            else:
                bad = [r for r in runs if not r.run_secs]
                results[i] = ((None, "run: " + (bad[0].error_msg or "")) if bad else
                              ([sum(r.run_secs) / len(r.run_secs) for r in runs], None))
            try:
                os.unlink(b.artifact_path)
            except OSError:
                pass
        return results

    return measure


# ---- tune_tir -----------------------------------------------------------------------------------

def tune_tir(mod, target, work_dir=None, max_trials_global=64, *, num_trials_per_iter=16,
             space=None, seed=None, database=None, builder=None, runner=None,
             task_name="main", measure_default_rule=False, confirm_top_k=0):
    """Search schedules of a one-PrimFunc module and return the database of measurements.

    Parameters
    ----------
    mod : IRModule or PrimFunc
        The workload (constant shapes).
    target : str or Target
        Where candidates are built and run (``"llvm -mcpu=native"``, ...).
    work_dir : str or None
        Where the JSON database lives (``database_workload.json``,
        ``database_tuning_record.json``); None keeps it in memory.
    max_trials_global : int
        How many candidates are measured in all.
    space : callable or None
        A design space ``space(sch)`` (see :mod:`minitvm.meta_schedule.space`); None uses
        :func:`default_space`.
    seed : int or None
        Seeds the search (with the same seed, the same candidates are drawn).
    measure_default_rule : bool
        Also measure what the ``"default"`` pipeline's CPU rule makes of the function, once
        (not counted in ``max_trials_global``), and record it with ``default_rule=True``. When
        that record is the best, ``compile_tir`` returns None and ``compile_relax`` leaves the
        function to the rule: tuning is then never slower than not tuning. ``tune_relax`` turns
        it on.
    confirm_top_k : int
        After the search, measure the best ``confirm_top_k`` schedules and the default rule's
        (when measured) again, side by side, three rounds each, and record the results as
        confirmed (``"confirmed": true``); from then on the choice is made among the confirmed
        records only. ``tune_relax`` uses 3.
    """
    mod, func_name, func = _single_func(mod)
    target = Target(target) if not isinstance(target, Target) else target
    if database is None:
        database = JSONDatabase(work_dir=work_dir) if work_dir else MemoryDatabase()
    builder = builder or LocalBuilder(work_dir=os.path.join(work_dir, "builds") if work_dir
                                      else None)
    runner = runner or LocalRunner()
    if work_dir:
        os.makedirs(os.path.join(work_dir, "builds"), exist_ok=True)
    measure = _measurer(str(target), func_name, func, builder, runner)
    if measure_default_rule:
        _measure_default_rule(mod, target, database, measure, task_name)
    search = EvolutionarySearch(
        mod, space or default_space(target), database, measure, str(target), seed=seed,
        num_trials_per_iter=num_trials_per_iter, flop_count=estimate_flops(func),
        log_prefix=f"tune {task_name}")
    search.run(max_trials_global)
    if confirm_top_k:
        _confirm(mod, target, database, measure, confirm_top_k, task_name)
    return database


def _confirm(mod, target, database, measure, top_k, task_name, rounds=3):
    """Measure the `top_k` best records of the search, and the default rule's, again, side by
    side in `rounds` rounds, and record the results as confirmed: the best of many noisy
    measurements is often a lucky one, so the final choice between a searched schedule and the
    default rule is made on these (see Database.get_top_k)."""
    from .._ffi import get_global_func  # pylint: disable=import-outside-toplevel
    from ..tir.schedule import Schedule  # pylint: disable=import-outside-toplevel

    workload = database.commit_workload(mod)
    mine = [r for r in database.get_all_tuning_records()
            if r.workload.shash == workload.shash and r.is_valid and not r.confirmed]
    searched = sorted((r for r in mine if not r.default_rule), key=lambda r: r.mean_secs)
    # One record per distinct schedule (a resumed run may hold the same trace twice).
    picked, seen = [], set()
    for rec in searched:
        sch = Schedule(mod, seed=0)
        try:
            rec.trace.apply_to_schedule(sch, remove_postproc=False)
        except Exception:  # pylint: disable=broad-except
            continue
        key = str(_ir.structural_hash(sch.mod))
        if key in seen:
            continue
        seen.add(key)
        picked.append((rec, sch.mod))
        if len(picked) == top_k:
            break
    default = [r for r in mine if r.default_rule]
    rule = get_global_func("relax.transform.DefaultCPUSchedule", allow_missing=True)
    if default and rule is not None:
        picked.append((default[0], rule(target)(mod)))
    if len(picked) < 2:
        return  # nothing to choose between
    results = measure([m for _, m in picked], rounds=rounds)
    for (rec, _), (run_secs, err) in zip(picked, results):
        database.commit_tuning_record(TuningRecord(
            rec.trace, workload, run_secs or [FAILED_RUN_SECS], str(target), err,
            default_rule=rec.default_rule, confirmed=True))
    best = database.get_top_k(workload, 1)
    if best:
        what = "the default rule" if best[0].default_rule else "a searched schedule"
        print(f"[{task_name}] confirmed: {what}, {best[0].mean_secs * 1e3:.3f} ms",
              file=sys.stderr, flush=True)


def _measure_default_rule(mod, target, database, measure, task_name):
    """Measure the default CPU rule's version of ``mod`` once per database (see tune_tir)."""
    from .._ffi import get_global_func  # pylint: disable=import-outside-toplevel
    from ..tir.schedule import Schedule  # pylint: disable=import-outside-toplevel

    workload = database.commit_workload(mod)
    if any(r.default_rule for r in database.get_all_tuning_records()
           if r.workload.shash == workload.shash):
        return
    rule = get_global_func("relax.transform.DefaultCPUSchedule", allow_missing=True)
    if rule is None:
        return
    scheduled = rule(target)(mod)
    run_secs, err = measure([scheduled])[0]
    record = TuningRecord(Schedule(mod).trace, workload, run_secs or [FAILED_RUN_SECS],
                          str(target), err, default_rule=True)
    database.commit_tuning_record(record)
    if record.is_valid:
        print(f"[{task_name}] default rule: {record.mean_secs * 1e3:.3f} ms", file=sys.stderr,
              flush=True)


def compile_tir(database, mod, target):
    """The best schedule the database holds for ``mod`` (a tir.Schedule), or None (no record,
    or the default rule's measurement is the best: see ``tune_tir``)."""
    mod, _, _ = _single_func(mod)
    return database.query_schedule(mod, target)


# ---- Relax -------------------------------------------------------------------------------------

def _task_key_module(func):
    """The module a PrimFunc is tuned and looked up as: the function alone, named main."""
    return _ir.IRModule({"main": func.with_attr("global_symbol", "main")})


def _lowered(mod, params):
    from .. import relax  # pylint: disable=import-outside-toplevel

    if params:
        mod = relax.transform.BindParams("main", params)(mod)
    # The Relax passes of the "default" pipeline (legalize, fuse, and its rewrites such as the
    # inference batch norm fused into the conv): the kernels tvm.compile would schedule. The
    # kernels' parameters that receive bound weights are marked "layout_free_buffers" as
    # tvm.compile marks them (constants only), so a packing of such a weight — by the default
    # rule or by a searched schedule's pack step — is split off and folded at compile time
    # (compile_relax).
    from .._ffi import get_global_func  # pylint: disable=import-outside-toplevel

    mark = get_global_func("relax.transform.AttachAttrLayoutFreeBuffers")
    return mark(False)(relax.get_pipeline("default")(mod))


def extract_tasks(mod, params=None):
    """The distinct PrimFuncs of a Relax module after the "default" pipeline's Relax passes
    (legalized and fused),
    as a list of (name, task module, weight) — weight is how many times it is called."""
    return _tasks_of(_lowered(mod, params))


def _tasks_of(lowered):
    """extract_tasks of a module whose Relax passes have run (legalized and fused)."""
    from .. import relax  # pylint: disable=import-outside-toplevel

    calls = {}

    def count(expr):
        # call_tir(gv, args, ...) and direct calls of a PrimFunc name a GlobalVar.
        if isinstance(expr, relax.Call):
            for arg in list(expr.args) + [expr.op]:
                if isinstance(arg, _ir.GlobalVar):
                    calls[arg.name_hint] = calls.get(arg.name_hint, 0) + 1
        for block in getattr(expr, "blocks", None) or []:
            for binding in block.bindings:
                count(binding.value)
        body = getattr(expr, "body", None)
        if body is not None and not isinstance(expr, PrimFunc):
            count(body)

    for _, f in lowered.functions_items():
        if isinstance(f, relax.Function):
            count(f)
    tasks = {}
    for gv, f in lowered.functions_items():
        if not isinstance(f, PrimFunc):
            continue
        key_mod = _task_key_module(f)
        key = Workload(key_mod).shash
        weight = calls.get(gv.name_hint, 1)
        if key in tasks:
            tasks[key] = (tasks[key][0], key_mod, tasks[key][2] + weight)
        else:
            tasks[key] = (gv.name_hint, key_mod, weight)
    return list(tasks.values())


def tune_relax(mod, params, target, work_dir=None, max_trials_global=64, *,
               num_trials_per_iter=16, seed=None, database=None, builder=None, runner=None,
               measure_default_rule=True, confirm_top_k=3):
    """Tune every distinct kernel of a Relax module; returns the database.

    The trials are shared out over the kernels in proportion to (estimated FLOPs × number of
    calls), each kernel getting at least ``num_trials_per_iter // 2`` when the budget allows.
    With ``measure_default_rule`` (the default) each kernel's default-rule version is measured
    too, and compiling keeps it where no searched schedule beats it (see ``tune_tir``); with
    ``confirm_top_k`` the winner is decided by a side-by-side re-measurement.
    """
    if database is None:
        database = JSONDatabase(work_dir=work_dir) if work_dir else MemoryDatabase()
    return _tune_tasks(extract_tasks(mod, params), target, database, max_trials_global,
                       num_trials_per_iter=num_trials_per_iter, seed=seed, builder=builder,
                       runner=runner, measure_default_rule=measure_default_rule,
                       confirm_top_k=confirm_top_k)


def _tune_tasks(tasks, target, database, max_trials_global, *, num_trials_per_iter=16, seed=None,
                builder=None, runner=None, measure_default_rule=True, confirm_top_k=3):
    """tune_relax's search over `tasks` (extract_tasks' list); returns the database."""
    tunable = []
    for name, task_mod, weight in tasks:
        func = task_mod["main"]
        try:
            args_info(func)
        except ValueError:
            continue  # symbolic shapes: left to the default schedule
        tunable.append((name, task_mod, weight * max(1, estimate_flops(func))))
    if not tunable:
        return database
    total = sum(w for _, _, w in tunable)
    floor = max(1, num_trials_per_iter // 2)
    for i, (name, task_mod, w) in enumerate(tunable):
        share = max(floor, int(round(max_trials_global * w / total)))
        tune_tir(task_mod, target, None, share, num_trials_per_iter=num_trials_per_iter,
                 seed=None if seed is None else seed + i, database=database, builder=builder,
                 runner=runner, task_name=name, measure_default_rule=measure_default_rule,
                 confirm_top_k=confirm_top_k)
    return database


def apply_database(mod, database, target=None):
    """Replace every PrimFunc of ``mod`` that the database has a record for with its best
    schedule (marked ``tir.is_scheduled`` so that the default schedule leaves it alone)."""
    out = {}
    changed = False
    for gv, f in mod.functions_items():
        if isinstance(f, PrimFunc):
            sch = database.query_schedule(_task_key_module(f), target)
            if sch is not None:
                new = sch.mod["main"]
                symbol = f.attrs["global_symbol"] if f.attrs is not None and \
                    "global_symbol" in f.attrs else gv.name_hint
                out[gv] = new.with_attr("global_symbol", symbol).with_attr(
                    "tir.is_scheduled", True)
                changed = True
                continue
        out[gv] = f
    if not changed:
        return mod
    # A new module (the caller's is left as it was), with the same GlobalVars and attributes.
    return _ir.IRModule(out, mod.attrs)


def MetaScheduleApplyDatabase(database=None, target=None):  # noqa: N802 - TVM's name
    """A module pass that applies ``database`` (default: the one of the innermost
    ``with database:`` block) as :func:`apply_database` does."""
    from ..transform import module_pass  # pylint: disable=import-outside-toplevel

    def apply(mod, _ctx):
        db = database if database is not None else Database.current()
        if db is None:
            raise ValueError("MetaScheduleApplyDatabase: no database given and none is "
                             "current (use `with database:`)")
        return apply_database(mod, db, target)

    return module_pass(apply, opt_level=0, name="MetaScheduleApplyDatabase")


def compile_relax(database, mod, target, params=None):
    """Compile a Relax module with the database's best schedules: the "default" pipeline's Relax
    passes (legalize, fuse), the database applied, the default schedule for kernels without a
    record (or whose best record is the default rule), the packing of bound weights folded
    into constants (as tvm.compile does), the VM."""
    from .. import relax  # pylint: disable=import-outside-toplevel

    from .._ffi import get_global_func  # pylint: disable=import-outside-toplevel

    target = Target(target) if not isinstance(target, Target) else target
    lowered = _lowered(mod, params)
    applied = apply_database(lowered, database, target)
    scheduled = get_global_func("relax.transform.DefaultCPUSchedule")(target)(applied)
    # Packings of bound weights (marked as layout-rewrite preprocessing) run once, here, as
    # tvm.compile's "default" pipeline does.
    split = relax.transform.SplitLayoutRewritePreproc()(scheduled)
    if not split.same_as(scheduled):
        scheduled = relax.transform.DeadCodeElimination()(relax.transform.FoldConstant()(split))
    return relax.build(scheduled, target=target, relax_pipeline=None)

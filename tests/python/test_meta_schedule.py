"""meta_schedule: the tuner, its database and its workers (issue 20).

Most tests measure in this process with a fake builder/runner pair (RPC-shaped like the local
ones: the builder leaves an artifact on disk, the runner reads it back and returns a run time
derived from the candidate's text), so that the search is deterministic and fast. One test
uses the real worker processes, with a test hook that makes some candidates abort or hang.
"""
import json
import os
import zlib

import numpy as np
import pytest

import minitvm as tvm
from minitvm import meta_schedule as ms
from minitvm import tir
from minitvm.meta_schedule.measure import BuilderResult, RunnerResult
from minitvm.script import tir as T


def _requires(name):
    if tvm.get_global_func(name, allow_missing=True) is None:
        pytest.skip(f"{name} is not built")


@T.prim_func
def matmul64(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"),
             C: T.Buffer((64, 64), "float32")):
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


@T.prim_func
def matmul_relu(A: T.Buffer((32, 48), "float32"), B: T.Buffer((48, 40), "float32"),
                D: T.Buffer((32, 40), "float32")):
    C = T.alloc_buffer((32, 40), "float32")
    for i, j, k in T.grid(32, 40, 48):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(32, 40):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = T.max(C[vi, vj], T.float32(0))


def _mod(func):
    return tvm.IRModule({"main": func})


class FakeBuilder:
    """Writes each candidate's TVMScript where a library would go."""

    def __init__(self, work_dir):
        self.work_dir = work_dir
        self.count = 0

    def build(self, inputs):
        out = []
        for inp in inputs:
            self.count += 1
            path = os.path.join(self.work_dir, f"fake_{self.count}.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write(inp.mod.script())
            out.append(BuilderResult(path, None))
        return out


class FakeRunner:
    """A deterministic "run time" per candidate: a hash of its text."""

    def __init__(self):
        self.calls = 0

    def run(self, inputs):
        out = []
        for inp in inputs:
            self.calls += 1
            with open(inp.artifact_path, encoding="utf-8") as f:
                text = f.read()
            out.append(RunnerResult([(zlib.crc32(text.encode()) % 997 + 1) * 1e-6], None))
        return out


def _fake_tune(mod, tmp_path, trials, seed, **kwargs):
    builds = tmp_path / "fake_builds"
    builds.mkdir(exist_ok=True)
    return ms.tune_tir(mod, "llvm", None, trials, seed=seed, num_trials_per_iter=4,
                       builder=FakeBuilder(str(builds)), runner=FakeRunner(), **kwargs)


def _trace_texts(database):
    return [json.dumps(r.trace.as_json()) for r in database.get_all_tuning_records()]


def _run_func(mod, arrays, target="llvm"):
    f = tvm.build(mod, target=target)
    nd = [tvm.nd.array(a) for a in arrays]
    f(*nd)
    return [a.numpy() for a in nd]


# ---- reproducibility ----------------------------------------------------------------------------

def test_same_seed_same_candidates(tmp_path):
    a = _fake_tune(_mod(matmul64), tmp_path, 8, seed=5)
    b = _fake_tune(_mod(matmul64), tmp_path, 8, seed=5)
    c = _fake_tune(_mod(matmul64), tmp_path, 8, seed=6)
    assert len(a) == len(b) == 8
    assert _trace_texts(a) == _trace_texts(b)
    assert _trace_texts(a) != _trace_texts(c)
    # Each candidate is distinct, and its decisions are perfect tilings of (parts of) the
    # loops: k whole, i in its outer and register parts, j after its vectors were split off.
    assert len({r.workload.shash for r in a.get_all_tuning_records()}) == 1  # one workload
    for rec in a.get_all_tuning_records():
        tiles = [d for d in rec.trace.decisions.values() if isinstance(d, list)]
        assert tiles and all(64 % int(np.prod(t)) == 0 for t in tiles)


def test_replaying_a_record_gives_the_same_module(tmp_path):
    db = _fake_tune(_mod(matmul64), tmp_path, 4, seed=1)
    for rec in db.get_all_tuning_records():
        s1, s2 = tir.Schedule(_mod(matmul64), seed=0), tir.Schedule(_mod(matmul64), seed=99)
        rec.trace.apply_to_schedule(s1)
        rec.trace.apply_to_schedule(s2)
        tvm.ir.assert_structural_equal(s1.mod, s2.mod)
        assert list(s1.trace.decisions.values()) == list(rec.trace.decisions.values())


# ---- the database -------------------------------------------------------------------------------

def _some_records(db, n=3):
    mod = _mod(matmul64)
    workload = db.commit_workload(mod)
    for seed in range(n):
        sch = tir.Schedule(mod, seed=seed)
        (i, _, _) = sch.get_loops(sch.get_block("C"))
        sch.split(i, factors=sch.sample_perfect_tile(i, n=2, max_innermost_factor=8))
        db.commit_tuning_record(ms.TuningRecord(sch.trace, workload, [1e-3 * (seed + 1)],
                                                "llvm"))
    db.commit_tuning_record(ms.TuningRecord(tir.Schedule(mod).trace, workload, [1e10], "llvm",
                                            error="run: worker killed by signal 6"))
    return mod


def test_json_database_format_and_reload(tmp_path):
    db = ms.JSONDatabase(work_dir=str(tmp_path))
    mod = _some_records(db)
    files = sorted(os.listdir(tmp_path))
    assert files == ["database_tuning_record.json", "database_workload.json"]
    workloads = (tmp_path / "database_workload.json").read_text().splitlines()
    records = (tmp_path / "database_tuning_record.json").read_text().splitlines()
    assert len(workloads) == 1 and len(records) == 4
    shash, text = json.loads(workloads[0])
    assert shash == str(tvm.ir.structural_hash(mod)) and "T.prim_func" in text
    index, body = json.loads(records[0])
    assert index == 0 and set(body) >= {"trace", "run_secs", "target"}
    assert json.loads(records[-1])[1]["error"].startswith("run:")
    again = ms.JSONDatabase(work_dir=str(tmp_path))
    assert len(again) == 4
    for r1, r2 in zip(db.get_all_tuning_records(), again.get_all_tuning_records()):
        assert r1.trace.as_json() == r2.trace.as_json()
        assert r1.run_secs == r2.run_secs and r1.error == r2.error
    best = again.query_tuning_record(mod)
    assert best.mean_secs == pytest.approx(1e-3) and not again.get_top_k(
        again.commit_workload(mod), 10)[-1].error  # failed records are never "best"
    assert len(again.get_top_k(again.commit_workload(mod), 10)) == 3


def test_json_database_is_append_only_and_skips_a_torn_line(tmp_path, capfd):
    db = ms.JSONDatabase(work_dir=str(tmp_path))
    _some_records(db, n=2)
    path = tmp_path / "database_tuning_record.json"
    before = path.read_text()
    # An interrupted run: half a line at the end.
    with open(path, "a", encoding="utf-8") as f:
        f.write('[0,{"trace":[[["GetBlock"')
    again = ms.JSONDatabase(work_dir=str(tmp_path))
    assert len(again) == 3
    assert "incomplete line" in capfd.readouterr().err
    # New records are appended after what was there; nothing earlier is rewritten.
    _some_records(again, n=1)
    after = path.read_text()
    assert after.startswith(before)
    third = ms.JSONDatabase(work_dir=str(tmp_path))
    assert len(third) == 5


def test_memory_database_and_missing_paths(tmp_path):
    db = ms.MemoryDatabase()
    mod = _some_records(db)
    assert db.has_workload(mod) and len(db) == 4
    assert db.query_ir_module(_mod(matmul_relu)) is None
    with pytest.raises(ValueError, match="work_dir"):
        ms.JSONDatabase()
    with pytest.raises(FileNotFoundError, match="does not exist"):
        ms.JSONDatabase(str(tmp_path / "w.json"), str(tmp_path / "r.json"), allow_missing=False)


# ---- real workers: crashes and hangs are survived --------------------------------------------------

def _faulty_space(sch):
    """The course's style of design space, plus a sampled "fault" mark on the block."""
    block = sch.get_block("C", "main")
    i, j, k = sch.get_loops(block)
    i0, i1 = sch.split(i, factors=sch.sample_perfect_tile(i, n=2, max_innermost_factor=16))
    j0, j1 = sch.split(j, factors=sch.sample_perfect_tile(j, n=2, max_innermost_factor=16))
    sch.reorder(i0, j0, i1, k, j1)
    if sch.get(sch.sample_categorical([0, 1], [0.5, 0.5])) == 1:
        sch.annotate(block, "meta_schedule.test_fault", 1)


def test_crashing_candidates_are_recorded_as_failed(tmp_path, monkeypatch):
    _requires("target.build.llvm")
    monkeypatch.setenv("MINITVM_MS_TEST_FAULT", "abort")
    work = tmp_path / "tune"
    db = ms.tune_tir(_mod(matmul64), "llvm", str(work), 6, seed=3, num_trials_per_iter=6,
                     space=_faulty_space, builder=ms.LocalBuilder(max_workers=2))
    records = db.get_all_tuning_records()
    assert len(records) == 6
    marked = [r for r in records if list(r.trace.decisions.values())[-1] == 1]
    clean = [r for r in records if list(r.trace.decisions.values())[-1] == 0]
    assert marked and clean  # the seed gives both kinds
    for r in marked:
        assert not r.is_valid and "signal" in r.error and r.error.startswith("build:")
    assert all(r.is_valid for r in clean)
    # The failures are on disk too, and the best record is a correct schedule.
    lines = (work / "database_tuning_record.json").read_text().splitlines()
    assert sum("error" in json.loads(l)[1] for l in lines) == len(marked)
    sch = ms.compile_tir(ms.JSONDatabase(work_dir=str(work)), _mod(matmul64), "llvm")
    assert "meta_schedule.test_fault" not in sch.mod.script()
    rng = np.random.default_rng(0)
    a, b = rng.random((64, 64), "float32"), rng.random((64, 64), "float32")
    c = _run_func(sch.mod, [a, b, np.zeros((64, 64), "float32")])[2]
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_hanging_candidates_time_out(tmp_path, monkeypatch):
    monkeypatch.setenv("MINITVM_MS_TEST_FAULT", "hang")

    def always_hangs(sch):
        block = sch.get_block("C", "main")
        i = sch.get_loops(block)[0]
        sch.split(i, factors=sch.sample_perfect_tile(i, n=2, max_innermost_factor=64))
        sch.annotate(block, "meta_schedule.test_fault", 1)

    db = ms.tune_tir(_mod(matmul64), "llvm", None, 2, seed=0, num_trials_per_iter=2,
                     space=always_hangs,
                     builder=ms.LocalBuilder(max_workers=1, timeout_sec=1.5))
    records = db.get_all_tuning_records()
    assert len(records) == 2
    assert all(not r.is_valid and "timed out after 1.5 s" in r.error for r in records)
    assert ms.compile_tir(db, _mod(matmul64), "llvm") is None


# ---- design spaces and applying the best record ---------------------------------------------------

def test_user_space_in_the_course_style_is_searched(tmp_path):
    def stochastic_schedule_mm(sch):
        block_c = sch.get_block("C", "main")
        i, j, k = sch.get_loops(block=block_c)
        j_factors = sch.sample_perfect_tile(loop=j, n=2)
        j_0, j_1 = sch.split(loop=j, factors=j_factors)
        sch.reorder(i, j_0, k, j_1)
        sch.decompose_reduction(block_c, k)

    db = _fake_tune(_mod(matmul64), tmp_path, 4, seed=2,
                    space=ms.space_generator.ScheduleFn(stochastic_schedule_mm))
    records = db.get_all_tuning_records()
    assert len(records) == 4
    inner = sorted(list(r.trace.decisions.values())[0][1] for r in records)
    assert len(set(inner)) == 4 and all(f <= 16 and 64 % f == 0 for f in inner)
    sch = ms.compile_tir(db, _mod(matmul64), "llvm")
    assert "C_init" in sch.mod.script()
    with pytest.raises(TypeError, match="ScheduleFn needs a function"):
        ms.space_generator.ScheduleFn(3)


def test_default_space_tiles_and_inlines(tmp_path):
    db = _fake_tune(_mod(matmul_relu), tmp_path, 4, seed=4)
    sch = ms.compile_tir(db, _mod(matmul_relu), "llvm")
    text = sch.mod.script()
    assert "T.parallel" in text and "pragma_auto_unroll_max_step" in text
    lines = sch.trace.as_python()
    # i: its outer part (S0, S1) and its register part (S2, S3); j: the part outside its
    # sampled whole vectors (S0, S1, S2); k: (R0, R1).
    assert sum("sample_perfect_tile" in l for l in lines) == 4
    if tvm.get_global_func("target.build.llvm", allow_missing=True) is not None:
        rng = np.random.default_rng(1)
        a, b = rng.random((32, 48), "float32") - 0.5, rng.random((48, 40), "float32") - 0.5
        d = _run_func(sch.mod, [a, b, np.zeros((32, 40), "float32")])[2]
        np.testing.assert_allclose(d, np.maximum(a @ b, 0), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("pack,cache", [(1, 1), (1, 0), (0, 1)])
def test_default_space_packs_the_streamed_operand(pack, cache):
    """The pack-B choice copies B[k, j] into [j // w, k, j % w] panels (w = the vector tile);
    the write-cache choice decomposes the reduction; both keep the result exact."""
    from minitvm.meta_schedule.search import _ForcedDecisions

    sch = tir.Schedule(_mod(matmul64), seed=0)
    # The first decision keeps the vector lanes on j (the alternative is i: A[i, k]).
    decisions = [0, [2, 2, 2, 8], [1, 2, 2, 16], [8, 8], pack, cache, 16]
    ms.default_space()(_ForcedDecisions(sch, decisions))
    text = sch.mod.script()
    assert list(sch.trace.decisions.values())[4:6] == [pack, cache]
    assert ("B_global = T.alloc_buffer((4, 64, 16))" in text) == bool(pack)
    assert ("C_init" in text) == bool(cache)  # decompose_reduction ran
    if tvm.get_global_func("target.build.llvm", allow_missing=True) is not None:
        rng = np.random.default_rng(2)
        a, b = rng.random((64, 64), "float32") - 0.5, rng.random((64, 64), "float32") - 0.5
        c = _run_func(sch.mod, [a, b, np.zeros((64, 64), "float32")])[2]
        np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


@T.prim_func
def conv_relu(x: T.Buffer((1, 8, 10, 10), "float32"), w: T.Buffer((16, 8, 3, 3), "float32"),
              out: T.Buffer((1, 16, 10, 10), "float32")):
    pad = T.alloc_buffer((1, 8, 12, 12), "float32")
    conv = T.alloc_buffer((1, 16, 10, 10), "float32")
    for n, c, h, ww in T.grid(1, 8, 12, 12):
        with T.block("pad_temp"):
            vn, vc, vh, vw = T.axis.remap("SSSS", [n, c, h, ww])
            pad[vn, vc, vh, vw] = T.if_then_else(
                1 <= vh and vh < 11 and 1 <= vw and vw < 11, x[vn, vc, vh - 1, vw - 1],
                T.float32(0))
    for n, o, y, xx, rc, ry, rx in T.grid(1, 16, 10, 10, 8, 3, 3):
        with T.block("conv"):
            vn, vo, vy, vx, vc, vky, vkx = T.axis.remap("SSSSRRR", [n, o, y, xx, rc, ry, rx])
            with T.init():
                conv[vn, vo, vy, vx] = T.float32(0)
            conv[vn, vo, vy, vx] = conv[vn, vo, vy, vx] + pad[vn, vc, vy + vky, vx + vkx] * w[
                vo, vc, vky, vkx]
    for n, o, y, xx in T.grid(1, 16, 10, 10):
        with T.block("relu"):
            vn, vo, vy, vx = T.axis.remap("SSSS", [n, o, y, xx])
            out[vn, vo, vy, vx] = T.max(conv[vn, vo, vy, vx], T.float32(0))


def _conv_relu_ref(x, w):
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((1, 16, 10, 10), "float32")
    for ky in range(3):
        for kx in range(3):
            out[0] += np.einsum("oc,chw->ohw", w[:, :, ky, kx], xp[0, :, ky:ky + 10, kx:kx + 10])
    return np.maximum(out, 0)


class _AllOn:
    """A schedule that takes every on/off choice of the space (keep the pad, lanes on the
    output channel, pack, cache) and draws the rest."""

    def __init__(self, sch):
        self._sch = sch

    def sample_categorical(self, candidates, probs, decision=None):
        if list(candidates) == [0, 1]:
            decision = 1
        return self._sch.sample_categorical(candidates, probs, decision=decision)

    def __getattr__(self, name):
        return getattr(self._sch, name)


def test_default_space_conv_vectors_over_output_channels():
    """For a conv the space may put the vector lanes on the output channel (the weights are a
    point-read operand along it): the weights are then packed into [o // w, c, ky, kx, o % w]
    panels, the accumulator tile is kept channels-last, the ReLU goes into the write-back,
    and the padding stays a parallel stage of its own on a sampled choice."""
    sch = tir.Schedule(_mod(conv_relu), seed=0)
    ms.default_space("llvm")(_AllOn(sch))
    text = sch.mod.script()
    assert 'T.block("pad_temp")' in text and "T.parallel" in text
    assert any(f"w_global = T.alloc_buffer(({16 // w}, 8, 3, 3, {w}))" in text
               for w in (4, 8, 16))
    assert "conv_local = T.alloc_buffer((1, 10, 10, 16), scope=\"local\")" in text
    assert 'T.block("relu")' not in text  # inlined into the write-back
    if tvm.get_global_func("target.build.llvm", allow_missing=True) is not None:
        rng = np.random.default_rng(3)
        x, w = rng.random((1, 8, 10, 10), "float32") - 0.5, rng.random((16, 8, 3, 3),
                                                                       "float32") - 0.5
        ref = _conv_relu_ref(x, w)
        out = _run_func(sch.mod, [x, w, np.zeros((1, 16, 10, 10), "float32")])[2]
        np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)
        # Any point of the space computes the same.
        for seed in range(6):
            sch = tir.Schedule(_mod(conv_relu), seed=seed)
            ms.default_space("llvm")(sch)
            out = _run_func(sch.mod, [x, w, np.zeros((1, 16, 10, 10), "float32")])[2]
            np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_searched_pack_of_a_bound_weight_is_folded_at_compile_time():
    """With the weights bound, extract_tasks marks the conv's weight parameter layout free (as
    tvm.compile does); the space's pack step then marks its copy as layout-rewrite
    preprocessing, and compile_relax splits it off and folds it: the compiled model has a
    "_prepacked" kernel and computes what the Relax interpreter does."""
    _requires("target.build.llvm")
    from minitvm import relax
    from minitvm.meta_schedule.database import TuningRecord

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, 8, 10, 10), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((16, 8, 3, 3), "float32"))
    with bb.function("main", [x, w]):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.relu(relax.op.nn.conv2d(x, w, strides=1, padding=1)))
            out = bb.emit_output(y)
        bb.emit_func_output(out)
    mod = bb.get()
    rng = np.random.default_rng(4)
    xv = rng.random((1, 8, 10, 10), "float32") - 0.5
    wv = rng.random((16, 8, 3, 3), "float32") - 0.5
    params = {"w": tvm.nd.array(wv)}
    tasks = ms.extract_tasks(mod, params)
    name, task, _ = max(tasks, key=lambda t: ms.estimate_flops(t[1]["main"]))
    assert [int(i) for i in task["main"].attrs["layout_free_buffers"]] == [1]

    sch = tir.Schedule(task, seed=0)
    ms.default_space("llvm")(_AllOn(sch))
    assert '"meta_schedule.layout_rewrite_preproc": 1' in sch.mod.script()
    db = ms.MemoryDatabase()
    db.commit_tuning_record(TuningRecord(sch.trace, db.commit_workload(task), [1e-3], "llvm"))
    ex = ms.compile_relax(db, mod, "llvm", params=params)
    text = ex.as_text()
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(xv)).numpy()
    ref = relax.interpreter.interpret(mod, "main", tvm.nd.array(xv), tvm.nd.array(wv)).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
    assert f"{name}_prepacked" in text and "weight_prepack" not in text


class _ByOrderRunner:
    """Run times by call order: the first candidate measured gets ``first`` seconds, every
    later one ``rest`` seconds (the default rule's record is always measured first)."""

    def __init__(self, first, rest):
        self.first, self.rest, self.calls = first, rest, 0

    def run(self, inputs):
        out = []
        for _ in inputs:
            self.calls += 1
            out.append(RunnerResult([self.first if self.calls == 1 else self.rest], None))
        return out


@pytest.mark.parametrize("default_fastest", [True, False])
def test_default_rule_is_measured_and_wins_when_fastest(tmp_path, default_fastest):
    _requires("relax.transform.DefaultCPUSchedule")
    builds = tmp_path / "b"
    builds.mkdir()
    runner = _ByOrderRunner(1e-6, 1e-3) if default_fastest else _ByOrderRunner(1.0, 1e-3)
    db = ms.tune_tir(_mod(matmul64), "llvm", str(tmp_path / "db"), 4, seed=0,
                     num_trials_per_iter=4, builder=FakeBuilder(str(builds)), runner=runner,
                     measure_default_rule=True)
    defaults = [r for r in db.get_all_tuning_records() if r.default_rule]
    assert len(defaults) == 1 and len(defaults[0].trace.insts) == 0
    assert runner.calls == 5  # the rule once, then the 4 trials
    # The flag survives the JSON files, and decides what compiling does.
    db2 = ms.JSONDatabase(work_dir=str(tmp_path / "db"))
    assert [r.default_rule for r in db2.get_all_tuning_records()].count(True) == 1
    sch = ms.compile_tir(db2, _mod(matmul64), "llvm")
    assert (sch is None) == default_fastest
    # Tuning again with the same database does not measure the rule a second time.
    ms.tune_tir(_mod(matmul64), "llvm", None, 4, seed=1, num_trials_per_iter=4, database=db2,
                builder=FakeBuilder(str(builds)), runner=runner, measure_default_rule=True)
    assert [r.default_rule for r in db2.get_all_tuning_records()].count(True) == 1


def test_confirmation_remeasures_the_finalists(tmp_path):
    _requires("relax.transform.DefaultCPUSchedule")
    builds = tmp_path / "b"
    builds.mkdir()
    runner = FakeRunner()
    db = ms.tune_tir(_mod(matmul64), "llvm", str(tmp_path / "db"), 8, seed=0,
                     num_trials_per_iter=4, builder=FakeBuilder(str(builds)), runner=runner,
                     measure_default_rule=True, confirm_top_k=2)
    records = db.get_all_tuning_records()
    confirmed = [r for r in records if r.confirmed]
    assert len(confirmed) == 3 and sum(r.default_rule for r in confirmed) == 1
    assert runner.calls == 1 + 8 + 3 * 3  # rule, trials, 3 finalists x 3 rounds
    # From now on the choice is among the confirmed records only, and survives a reload.
    db2 = ms.JSONDatabase(work_dir=str(tmp_path / "db"))
    best = db2.get_top_k(db2.commit_workload(_mod(matmul64)), 5)
    assert len(best) == 3 and all(r.confirmed for r in best)


def test_resumed_tuning_does_not_measure_a_point_again(tmp_path):
    work = str(tmp_path / "db")
    builds = tmp_path / "b"
    builds.mkdir()
    for seed in (0, 0):  # the same seed twice: the second run would redraw the same points
        ms.tune_tir(_mod(matmul64), "llvm", work, 8, seed=seed, num_trials_per_iter=4,
                    builder=FakeBuilder(str(builds)), runner=FakeRunner())
    db = ms.JSONDatabase(work_dir=work)
    records = db.get_all_tuning_records()
    assert len(records) == 16
    hashes = set()
    for rec in records:
        sch = tir.Schedule(_mod(matmul64), seed=0)
        rec.trace.apply_to_schedule(sch)
        hashes.add(tvm.ir.structural_hash(sch.mod))
    assert len(hashes) == 16


def test_tune_tir_refuses_bad_modules():
    with pytest.raises(ValueError, match="exactly one PrimFunc"):
        ms.tune_tir(tvm.IRModule({"a": matmul64, "b": matmul_relu}), "llvm", None, 1)


# ---- Relax -------------------------------------------------------------------------------------

def _mlp():
    from minitvm.relax.testing import mlp  # pylint: disable=import-outside-toplevel

    return mlp.get_workload(batch_size=4, hidden_units=(32, 32, 32))


def test_extract_tasks_are_distinct_with_weights():
    mod, params = _mlp()
    tasks = ms.extract_tasks(mod, params)
    hashes = [tvm.ir.structural_hash(m) for _, m, _ in tasks]
    assert len(set(hashes)) == len(tasks) >= 3
    assert all(w >= 1 for _, _, w in tasks)
    # The two hidden layers 32 -> 32 share one kernel, called twice.
    assert sorted(w for _, _, w in tasks)[-1] == 2


def test_compile_relax_applies_the_database(tmp_path):
    _requires("relax.build")
    from minitvm import relax  # pylint: disable=import-outside-toplevel

    mod, params = _mlp()
    builds = tmp_path / "b"
    builds.mkdir()
    db = ms.tune_relax(mod, params, "llvm", None, 8, num_trials_per_iter=2, seed=0,
                       builder=FakeBuilder(str(builds)), runner=FakeRunner())
    tasks = ms.extract_tasks(mod, params)
    assert len(db) >= len(tasks)
    # Every task with a record is replaced by its scheduled form.
    from minitvm.meta_schedule.tune import _lowered  # pylint: disable=import-outside-toplevel

    applied = ms.apply_database(_lowered(mod, params), db)
    scheduled = [gv.name_hint for gv, f in applied.functions_items()
                 if isinstance(f, tir.PrimFunc) and f.attrs is not None
                 and "tir.is_scheduled" in f.attrs]
    assert scheduled
    # The same through the pass, with the database of a `with` block.
    with db:
        by_pass = ms.MetaScheduleApplyDatabase()(_lowered(mod, params))
    tvm.ir.assert_structural_equal(by_pass, applied)
    with pytest.raises(ValueError, match="no database given"):
        ms.MetaScheduleApplyDatabase()(_lowered(mod, params))
    ex = ms.compile_relax(db, mod, "llvm", params)
    x = np.random.default_rng(3).random((4, 1, 28, 28), dtype="float32")
    out = relax.VirtualMachine(ex, tvm.cpu())["main"](x).numpy()
    ref_mod = relax.transform.BindParams("main", params)(mod)
    ref = relax.VirtualMachine(tvm.compile(ref_mod, "llvm"), tvm.cpu())["main"](x).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_annotate_takes_a_sampled_value():
    sch = tir.Schedule(_mod(matmul64), seed=1)
    v = sch.sample_categorical([0, 16, 64], [0.2, 0.3, 0.5])
    i = sch.get_loops(sch.get_block("C"))[0]
    sch.annotate(i, "pragma_auto_unroll_max_step", v)
    line = sch.trace.as_python()[-1]
    assert line.endswith(f"ann_val={sch.get(v)})")
    replay = tir.Schedule(_mod(matmul64), seed=5)
    sch.trace.apply_to_schedule(replay)
    tvm.ir.assert_structural_equal(replay.mod, sch.mod)


def test_candidates_are_timed_without_the_packing_of_a_bound_weight():
    """A kernel whose weight packing is marked layout-rewrite preprocessing is timed as TVM's
    builder times it: RemoveWeightLayoutRewriteBlock drops the packing, and the packed buffer
    becomes the parameter (so the runner's arrays have the packed shape)."""
    from minitvm.meta_schedule.tune import _timed_form
    from minitvm.tir.transform import RemoveWeightLayoutRewriteBlock

    sch = tir.Schedule(_mod(matmul64), seed=0)
    copy = sch.cache_read(sch.get_block("C"), 1, "global")
    sch.transform_layout(copy, ("write", 0), lambda k, j: (j // 16, k, j % 16))
    sch.annotate(copy, "meta_schedule.layout_rewrite_preproc", 1)
    for removed in (_timed_form(sch.mod), RemoveWeightLayoutRewriteBlock()(sch.mod)):
        func = removed["main"]
        assert [tuple(int(d) for d in func.buffer_map[p].shape) for p in func.params] == [
            (64, 64), (4, 64, 16), (64, 64)]
        assert 'T.block("B_global")' not in removed.script()
    # Nothing marked: the module is timed as it is.
    plain = tir.Schedule(_mod(matmul64), seed=0).mod
    assert tvm.ir.structural_equal(_timed_form(plain), plain)

"""The tuning database: which schedules were measured for which workloads, and how fast.

Two JSON-lines files, as in TVM's ``JSONDatabase``:

* ``database_workload.json`` — one line per workload: ``[hash, module as TVMScript]``;
* ``database_tuning_record.json`` — one line per measured candidate:
  ``[workload index, {"trace": <trace JSON>, "run_secs": [...], "target": "...", ...}]``.

Both files are only ever appended to, one complete line per write, flushed and synced, so a
tuning run that is killed loses at most the line being written; a truncated last line is
skipped (with a warning) when the database is read again, and ended with a newline so
that new records do not run into it. A failed candidate is recorded with
``run_secs`` of ``1e10`` and its error, so that the search does not retry it.
"""
import json
import os
import sys

from .. import ir as _ir

__all__ = ["Workload", "TuningRecord", "Database", "JSONDatabase", "MemoryDatabase"]

FAILED_RUN_SECS = 1e10


def workload_hash(mod):
    """The key of a workload: the structural hash of the module (as a decimal string)."""
    return str(_ir.structural_hash(mod))


class Workload:
    """A module being tuned, keyed by its structural hash."""

    def __init__(self, mod, shash=None):
        self.mod = mod
        self.shash = shash if shash is not None else workload_hash(mod)

    def __repr__(self):
        return f"Workload(shash={self.shash})"


class TuningRecord:
    """One measured schedule of a workload: its trace and its run times (seconds)."""

    def __init__(self, trace, workload, run_secs=None, target=None, error=None,
                 default_rule=False, confirmed=False):
        self.trace = trace
        self.workload = workload
        self.run_secs = list(run_secs) if run_secs is not None else None
        self.target = str(target) if target is not None else None
        self.error = error
        # True for the measurement of the "default" pipeline's own schedule rule (its trace
        # is empty: the rule rebuilds the function, so it is no trace of schedule steps).
        # When such a record is the best, compiling leaves the function to that rule.
        self.default_rule = bool(default_rule)
        # True for a re-measurement taken side by side with the other finalists (tune_tir's
        # confirm_top_k): when a workload has confirmed records, the best is chosen among them.
        self.confirmed = bool(confirmed)

    @property
    def is_valid(self):
        return self.run_secs is not None and self.mean_secs < FAILED_RUN_SECS

    @property
    def mean_secs(self):
        if not self.run_secs:
            return FAILED_RUN_SECS
        return sum(self.run_secs) / len(self.run_secs)

    def as_json(self):
        out = {"trace": self.trace.as_json(), "run_secs": self.run_secs, "target": self.target}
        if self.error:
            out["error"] = self.error
        if self.default_rule:
            out["default_rule"] = True
        if self.confirmed:
            out["confirmed"] = True
        return out

    def __repr__(self):
        return f"TuningRecord(mean_secs={self.mean_secs:.3g}, valid={self.is_valid})"


class Database:
    """The interface every database offers (TVM's method names)."""

    def has_workload(self, mod):
        raise NotImplementedError

    def commit_workload(self, mod):
        raise NotImplementedError

    def commit_tuning_record(self, record):
        raise NotImplementedError

    def get_all_tuning_records(self):
        raise NotImplementedError

    def get_top_k(self, workload, top_k):
        """The ``top_k`` fastest valid records of ``workload``, fastest first."""
        key = workload.shash if isinstance(workload, Workload) else workload_hash(workload)
        recs = [r for r in self.get_all_tuning_records()
                if r.workload.shash == key and r.is_valid]
        if any(r.confirmed for r in recs):
            recs = [r for r in recs if r.confirmed]
        recs.sort(key=lambda r: r.mean_secs)
        return recs[:top_k]

    def __len__(self):
        return len(self.get_all_tuning_records())

    # ---- queries used when compiling ------------------------------------------------------------
    def query_tuning_record(self, mod, target=None, workload_name="main"):
        """The best valid record for ``mod`` (or its function ``workload_name``), or None."""
        mod = _as_module(mod, workload_name)
        best = self.get_top_k(Workload(mod), 1)
        return best[0] if best else None

    def query_schedule(self, mod, target=None, workload_name="main"):
        """The best schedule for ``mod`` replayed from its record, or None — also when the best
        record is the default rule's (``record.default_rule``): the caller then leaves the
        function to that rule, as ``compile_relax`` does."""
        from ..tir.schedule import Schedule  # pylint: disable=import-outside-toplevel

        mod = _as_module(mod, workload_name)
        record = self.query_tuning_record(mod, target, workload_name)
        if record is None or record.default_rule:
            return None
        sch = Schedule(mod, seed=0)
        record.trace.apply_to_schedule(sch, remove_postproc=False)
        return sch

    def query_ir_module(self, mod, target=None, workload_name="main"):
        """The best scheduled module for ``mod``, or None."""
        sch = self.query_schedule(mod, target, workload_name)
        return None if sch is None else sch.mod

    def __enter__(self):
        _DATABASE_STACK.append(self)
        return self

    def __exit__(self, *exc):
        _DATABASE_STACK.pop()

    @staticmethod
    def current():
        """The database of the innermost ``with database:`` block, or None."""
        return _DATABASE_STACK[-1] if _DATABASE_STACK else None


_DATABASE_STACK = []


def _as_module(mod, workload_name):
    from ..tir.function import PrimFunc  # pylint: disable=import-outside-toplevel

    if isinstance(mod, PrimFunc):
        return _ir.IRModule({workload_name: mod})
    return mod


class MemoryDatabase(Database):
    """A database in memory (nothing is written)."""

    def __init__(self):
        self._workloads = {}
        self._records = []

    def has_workload(self, mod):
        return workload_hash(mod) in self._workloads

    def commit_workload(self, mod):
        key = workload_hash(mod)
        if key not in self._workloads:
            self._workloads[key] = Workload(mod, key)
        return self._workloads[key]

    def commit_tuning_record(self, record):
        self._records.append(record)

    def get_all_tuning_records(self):
        return list(self._records)


class JSONDatabase(Database):
    """The database as two append-only JSON-lines files (see the module comment).

    ``JSONDatabase(work_dir=d)`` uses ``d/database_workload.json`` and
    ``d/database_tuning_record.json``; the two paths can also be given one by one.
    """

    def __init__(self, path_workload=None, path_tuning_record=None, work_dir=None,
                 allow_missing=True):
        if work_dir is not None:
            os.makedirs(work_dir, exist_ok=True)
            path_workload = path_workload or os.path.join(work_dir, "database_workload.json")
            path_tuning_record = path_tuning_record or os.path.join(
                work_dir, "database_tuning_record.json")
        if path_workload is None or path_tuning_record is None:
            raise ValueError("JSONDatabase needs work_dir or both path_workload and "
                             "path_tuning_record")
        self.path_workload = path_workload
        self.path_tuning_record = path_tuning_record
        for path in (path_workload, path_tuning_record):
            if not os.path.exists(path):
                if not allow_missing:
                    raise FileNotFoundError(f"JSONDatabase: {path} does not exist")
                open(path, "a", encoding="utf-8").close()
        self._workloads = []  # index -> Workload
        self._index = {}  # shash -> index
        self._records = []
        self._load()
        for path in (path_workload, path_tuning_record):
            self._end_torn_line(path)

    # ---- reading ------------------------------------------------------------------------------
    def _lines(self, path):
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        out = []
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                # A line cut short by an interrupted run: skip it (the rest is intact).
                print(f"[meta_schedule] {path}:{number}: skipping an incomplete line",
                      file=sys.stderr)
        return out

    def _load(self):
        from ..script import from_source  # pylint: disable=import-outside-toplevel
        from ..tir.schedule import Trace  # pylint: disable=import-outside-toplevel

        for entry in self._lines(self.path_workload):
            shash, text = entry
            mod = from_source(text)
            self._index[shash] = len(self._workloads)
            self._workloads.append(Workload(mod, shash))
        for entry in self._lines(self.path_tuning_record):
            index, body = entry
            if not 0 <= index < len(self._workloads):
                continue
            self._records.append(TuningRecord(Trace.from_json(body["trace"]),
                                              self._workloads[index], body.get("run_secs"),
                                              body.get("target"), body.get("error"),
                                              bool(body.get("default_rule", False)),
                                              bool(body.get("confirmed", False))))

    # ---- writing ------------------------------------------------------------------------------
    @staticmethod
    def _end_torn_line(path):
        """End a torn last line (an interrupted write) so that the next record starts a line
        of its own; the torn line stays, and is skipped whenever the file is read."""
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            if f.tell() == 0:
                return
            f.seek(-1, os.SEEK_END)
            last = f.read(1)
        if last != b"\n":
            with open(path, "ab") as f:
                f.write(b"\n")

    @staticmethod
    def _append(path, obj):
        line = json.dumps(obj, separators=(",", ":")) + "\n"
        with open(path, "a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())

    def has_workload(self, mod):
        return workload_hash(mod) in self._index

    def commit_workload(self, mod):
        key = workload_hash(mod)
        if key not in self._index:
            self._append(self.path_workload, [key, mod.script()])
            self._index[key] = len(self._workloads)
            self._workloads.append(Workload(mod, key))
        return self._workloads[self._index[key]]

    def commit_tuning_record(self, record):
        index = self._index.get(record.workload.shash)
        if index is None:
            index = self._index[self.commit_workload(record.workload.mod).shash]
        self._append(self.path_tuning_record, [index, record.as_json()])
        self._records.append(record)

    def get_all_tuning_records(self):
        return list(self._records)

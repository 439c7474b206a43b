"""Evolutionary search over the decisions of a design space, guided by a cost model.

One point of the space is the list of decisions its sampling calls made. The search:

1. draws ``init`` random points (the design space run with a fresh seed each), plus the best
   traces already in the database for this workload;
2. each round, makes candidates by **mutation** — take one of the best measured points and
   draw one of its decisions again — and by fresh random draws; candidates whose scheduled
   module was seen before are dropped;
3. ranks candidates with the cost model and measures the best ``num_trials_per_iter`` of them
   (a quarter of each batch is picked at random instead, so a wrong model cannot trap the
   search);
4. commits every measurement (failed ones too) to the database and refits the model.

**The cost model** is ridge regression from features of the decisions to the logarithm of the
run time. The features are log2 of every tile factor and a one-hot code of every categorical
choice, in the order the design space samples them. Why this model: it needs no third-party
package, fits in microseconds, and within one design space the run time does depend smoothly
on the logarithms of tile sizes (cache and register fit), which a linear model in those
features captures well enough to rank candidates. It is refitted after every round; until it
has seen a few points it ranks at random.
"""
import math
import random
import sys
import time

import numpy as np

from ..tir.schedule import Schedule
from .database import FAILED_RUN_SECS, TuningRecord, workload_hash

__all__ = ["RidgeCostModel", "EvolutionarySearch"]


class _ForcedDecisions:
    """A Schedule proxy that replays given decisions (by order of the sampling calls) and
    draws where the given decision is None or no longer fits."""

    def __init__(self, sch, decisions):
        self._sch = sch
        self._decisions = list(decisions)
        self._next = 0

    def _take(self):
        d = self._decisions[self._next] if self._next < len(self._decisions) else None
        self._next += 1
        return d

    def _sample(self, method, *args, **kwargs):
        decision = self._take()
        if decision is not None:
            try:
                return getattr(self._sch, method)(*args, decision=decision, **kwargs)
            except Exception:  # pylint: disable=broad-except
                pass  # the decision does not fit any more: draw
        return getattr(self._sch, method)(*args, **kwargs)

    def sample_perfect_tile(self, *args, **kwargs):
        return self._sample("sample_perfect_tile", *args, **kwargs)

    def sample_categorical(self, *args, **kwargs):
        return self._sample("sample_categorical", *args, **kwargs)

    def sample_compute_location(self, *args, **kwargs):
        return self._sample("sample_compute_location", *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._sch, name)


def decisions_of(trace):
    """The decisions of a trace in sampling order."""
    return list(trace.decisions.values())


def features_of(decisions):
    out = []
    for d in decisions:
        if isinstance(d, list):
            out.extend(math.log2(max(1, int(x))) for x in d)
        elif d is not None:
            one_hot = [0.0] * 4
            one_hot[min(int(d), 3)] = 1.0
            out.extend(one_hot)
    return out


class RidgeCostModel:
    """Predicts log(run time) from decision features by ridge regression (see the module
    comment for why)."""

    def __init__(self, alpha=1.0, min_samples=4, rng=None):
        self.alpha = alpha
        self.rng = rng or random.Random(0)  # ranks at random (seeded) until fitted
        self.min_samples = min_samples
        self._x = []
        self._y = []
        self._w = None
        self._dim = 0

    def _pad(self, f):
        return (f + [0.0] * self._dim)[: self._dim] + [1.0]

    def update(self, feature_rows, run_secs):
        for f, secs in zip(feature_rows, run_secs):
            if secs < FAILED_RUN_SECS:
                self._x.append(f)
                self._y.append(math.log(secs))
        if len(self._x) < self.min_samples:
            self._w = None
            return
        self._dim = max(len(f) for f in self._x)
        x = np.array([self._pad(f) for f in self._x])
        y = np.array(self._y)
        reg = self.alpha * np.eye(x.shape[1])
        reg[-1, -1] = 0.0  # no penalty on the bias
        self._w = np.linalg.solve(x.T @ x + reg, x.T @ y)

    def predict(self, feature_rows):
        if self._w is None:
            return [self.rng.random() for _ in feature_rows]
        return [float(np.dot(self._pad(f), self._w)) for f in feature_rows]


class EvolutionarySearch:
    """Searches one workload (see the module comment). ``measure(mods)`` returns, for each
    scheduled module, (run_secs list or None, error or None)."""

    def __init__(self, mod, space, database, measure, target, seed=None, init=32,
                 num_trials_per_iter=16, top_k=4, flop_count=None, log_prefix="tune"):
        self.mod = mod
        self.space = space
        self.database = database
        self.measure = measure
        self.target = target
        self.rng = random.Random(seed)
        self.init = init
        self.num_trials_per_iter = num_trials_per_iter
        self.top_k = top_k
        self.flop_count = flop_count
        self.log_prefix = log_prefix
        self.model = RidgeCostModel(rng=random.Random(self.rng.randrange(1 << 30)))
        self.workload = database.commit_workload(mod)
        self.seen = set()
        self.measured = []  # (decisions, mean secs)

    def _point(self, decisions=()):
        """Run the design space with `decisions` forced (None entries drawn)."""
        sch = Schedule(self.mod, seed=self.rng.randrange(1 << 30))
        try:
            self.space(_ForcedDecisions(sch, decisions))
        except Exception:  # pylint: disable=broad-except
            return None
        return sch

    def _mutate(self, decisions):
        if not decisions:
            return self._point()
        i = self.rng.randrange(len(decisions))
        changed = list(decisions)
        changed[i] = None
        return self._point(changed)

    def _candidates(self, count):
        out = []
        best = sorted(self.measured, key=lambda m: m[1])[: self.top_k]
        attempts = 0
        while len(out) < count and attempts < count * 8:
            attempts += 1
            if best and self.rng.random() < 0.7:
                sch = self._mutate(self.rng.choice(best)[0])
            else:
                sch = self._point()
            if sch is None:
                continue
            key = workload_hash(sch.mod)
            if key in self.seen:
                continue
            self.seen.add(key)
            out.append(sch)
        return out

    def run(self, max_trials):
        """Measure up to `max_trials` candidates; returns the number measured."""
        trials = 0
        # Records already in the database seed the search (an interrupted run goes on): the
        # best ones become parents, and every measured point is marked seen so that it is not
        # measured again.
        self._seed_from_database()
        start = time.time()
        while trials < max_trials:
            batch = min(self.num_trials_per_iter, max_trials - trials)
            pool = self._candidates(max(batch * 4, self.init if trials == 0 else batch * 2))
            if not pool:
                break
            feats = [features_of(decisions_of(s.trace)) for s in pool]
            scores = self.model.predict(feats)
            order = sorted(range(len(pool)), key=lambda i: scores[i])
            n_random = batch // 4
            chosen = order[: batch - n_random]
            rest = order[batch - n_random:]
            self.rng.shuffle(rest)
            chosen += rest[:n_random]
            schs = [pool[i] for i in chosen]
            results = self.measure([s.mod for s in schs])
            secs = []
            for sch, (run_secs, err) in zip(schs, results):
                rec = TuningRecord(sch.trace, self.workload,
                                   run_secs if run_secs else [FAILED_RUN_SECS], self.target, err)
                self.database.commit_tuning_record(rec)
                secs.append(rec.mean_secs)
                self.measured.append((decisions_of(sch.trace), rec.mean_secs))
            self.model.update([feats[i] for i in chosen], secs)
            trials += len(schs)
            self._progress(trials, max_trials, start)
        return trials

    def _seed_from_database(self):
        key = self.workload.shash
        mine = [r for r in self.database.get_all_tuning_records()
                if r.workload.shash == key and not r.default_rule]
        for rec in mine:
            sch = Schedule(self.mod, seed=0)
            try:
                rec.trace.apply_to_schedule(sch, remove_postproc=False)
            except Exception:  # pylint: disable=broad-except
                continue  # a record of an older design space that no longer replays
            self.seen.add(workload_hash(sch.mod))
        for rec in sorted((r for r in mine if r.is_valid), key=lambda r: r.mean_secs)[
                : self.top_k]:
            self.measured.append((decisions_of(rec.trace), rec.mean_secs))

    def _progress(self, trials, max_trials, start):
        valid = [m[1] for m in self.measured if m[1] < FAILED_RUN_SECS]
        failed = sum(1 for m in self.measured if m[1] >= FAILED_RUN_SECS)
        if valid:
            best = min(valid)
            gflops = f", {self.flop_count / best / 1e9:.2f} GFLOP/s" if self.flop_count else ""
            best_text = f"best {best * 1e3:.3f} ms{gflops}"
        else:
            best_text = "no valid candidate yet"
        width = 20
        done = int(width * trials / max(1, max_trials))
        bar = "#" * done + "." * (width - done)
        print(f"[{self.log_prefix}] [{bar}] {trials}/{max_trials} trials, {best_text}, "
              f"{failed} failed, {time.time() - start:.1f} s", file=sys.stderr, flush=True)

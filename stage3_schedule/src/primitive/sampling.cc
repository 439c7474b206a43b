/*!
 * \file primitive/sampling.cc
 * \brief The sampling primitives (stage 3): `sample_perfect_tile`, `sample_categorical` and
 * `sample_compute_location` — the random choices a search space is made of.
 *
 * A sampling primitive does not change the module. It draws from the schedule's random state
 * (seeded by `Schedule(mod, seed=...)`, so the same seed gives the same choices), returns
 * handles to what it chose, and records the choice as its `decision` attribute:
 *
 *     v2, v3 = sch.sample_perfect_tile(loop=l1, n=2, max_innermost_factor=16, decision=[8, 16])
 *     l4, l5 = sch.split(loop=l1, factors=[v2, v3])
 *
 * Replaying a trace gives each sampling instruction its recorded decision back, so the replay
 * makes the same module; a search changes a decision and replays to get a neighbouring
 * schedule. A decision that does not fit the loop (wrong product, too large innermost factor,
 * index out of range) is refused with a named schedule error.
 */
#include <algorithm>
#include <chrono>
#include <cmath>

#include "../instruction.h"
#include "../utils.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace tir {

// ---- the random state -----------------------------------------------------------------------

void ScheduleNode::Seed(int64_t seed) {
  if (seed == -1) {
    seed = static_cast<int64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }
  // Mix the seed so that nearby seeds start far apart.
  rand_state_ = static_cast<uint64_t>(seed) * 0x9e3779b97f4a7c15ULL + 0x6a09e667f3bcc909ULL;
}

uint64_t ScheduleNode::NextRandom() {
  // splitmix64: small, fast, and the same on every platform.
  uint64_t z = (rand_state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

int64_t ScheduleNode::ForkSeed() {
  // Positive and below 2^31, like TVM's forked seeds, so that it round-trips through Python.
  return static_cast<int64_t>(NextRandom() % 2147483647ULL);
}

namespace {

using namespace sched;

/*! \brief A uniform double in [0, 1). */
double Uniform(ScheduleNode* self) {
  return static_cast<double>(self->NextRandom() >> 11) * (1.0 / 9007199254740992.0);
}

std::vector<int64_t> PrimeFactors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t p = 2; p * p <= n; ++p) {
    while (n % p == 0) {
      out.push_back(p);
      n /= p;
    }
  }
  if (n > 1) out.push_back(n);
  return out;
}

std::vector<int64_t> IntsOf(const Any& decision, const std::string& what) {
  std::vector<int64_t> out;
  if (auto* arr = decision.as<runtime::ArrayNode>()) {
    for (const Any& v : arr->data) {
      if (!v.is_int()) {
        MINITVM_THROW(TypeError) << what << ": decision must be a list of ints, got "
                                 << decision.ToString();
      }
      out.push_back(v.cast<int64_t>());
    }
    return out;
  }
  MINITVM_THROW(TypeError) << what << ": decision must be a list of ints, got "
                           << decision.ToString();
}

// ---- sample_perfect_tile ----------------------------------------------------------------------

Array<ObjectRef> SamplePerfectTile(ScheduleNode* self, const LoopRV& loop_rv, int64_t n,
                                   int64_t max_innermost_factor, const Any& decision) {
  // Step 1: the loop and its constant extent.
  auto [func, stmt] = self->Resolve(loop_rv);
  const ForNode* loop = AsLoop(stmt);
  std::optional<int64_t> extent = AsConstInt(loop->extent);
  if (!extent) {
    ScheduleError err("NotConstantExtentError",
                      "sample_perfect_tile needs a loop of constant extent");
    err.Subject("loop " + LoopName(loop))
        .Check("the loop's extent is a constant", false)
        .At(GetRef<ObjectRef>(loop), "extent " + ExprStr(loop->extent));
    throw err;
  }
  if (n < 1) {
    MINITVM_THROW(ValueError) << "sample_perfect_tile: n must be at least 1, got " << n;
  }
  if (max_innermost_factor < 1 && max_innermost_factor != -1) {
    MINITVM_THROW(ValueError)
        << "sample_perfect_tile: max_innermost_factor must be positive (or -1 for no limit), got "
        << max_innermost_factor;
  }
  // With n = 1 the only tiling is the extent itself, so the limit cannot apply.
  int64_t limit = max_innermost_factor == -1 || n == 1 ? *extent : max_innermost_factor;

  // Step 2: a recorded decision is checked and reused; otherwise one is drawn.
  std::vector<int64_t> factors;
  if (!decision.is_null()) {
    factors = IntsOf(decision, "sample_perfect_tile");
    int64_t product = 1;
    for (int64_t f : factors) product *= f;
    bool ok = static_cast<int64_t>(factors.size()) == n && product == *extent &&
              std::all_of(factors.begin(), factors.end(), [](int64_t f) { return f >= 1; }) &&
              factors.back() <= limit;
    if (!ok) {
      std::string shown = "[";
      for (size_t i = 0; i < factors.size(); ++i) {
        shown += (i ? ", " : "") + std::to_string(factors[i]);
      }
      shown += "]";
      ScheduleError err("WrongDecisionError",
                        "the decision " + shown + " is not a perfect tiling of loop " +
                            LoopName(loop) + " into " + std::to_string(n) + " factors");
      err.Subject("loop " + LoopName(loop))
          .Check("there are n = " + std::to_string(n) + " positive factors", true)
          .Check("their product is the extent " + std::to_string(*extent), false)
          .Check("the innermost factor is at most " + std::to_string(limit), false)
          .Detail("decision: " + shown);
      throw err;
    }
  } else {
    // Each prime factor of the extent goes to a random position; draws whose innermost factor
    // is too large are redrawn. After many failures the innermost factor is 1, which is
    // always allowed.
    std::vector<int64_t> primes = PrimeFactors(*extent);
    bool found = false;
    for (int attempt = 0; attempt < 64 && !found; ++attempt) {
      factors.assign(n, 1);
      for (int64_t p : primes) factors[self->NextRandom() % n] *= p;
      found = factors.back() <= limit;
    }
    if (!found) {
      factors.assign(n, 1);
      factors[0] = *extent;
    }
  }

  // Step 3: one handle per factor; the decision goes into the trace.
  Array<ObjectRef> out;
  Array<Any> recorded;
  for (int64_t f : factors) {
    out.push_back(ExprRV::New(f));
    recorded.push_back(Any(f));
  }
  self->SetDecision(Any(recorded));
  return out;
}

// ---- sample_categorical -----------------------------------------------------------------------

Array<ObjectRef> SampleCategorical(ScheduleNode* self, const Array<Any>& candidates,
                                   const Array<Any>& probs, const Any& decision) {
  // Step 1: the candidates and their probabilities.
  if (candidates.empty() || candidates.size() != probs.size()) {
    MINITVM_THROW(ValueError) << "sample_categorical: needs as many probabilities as candidates "
                              << "(at least one), got " << candidates.size() << " candidates and "
                              << probs.size() << " probabilities";
  }
  std::vector<double> p;
  double total = 0;
  for (size_t i = 0; i < probs.size(); ++i) {
    double v = probs[i].is_float() ? probs[i].cast<double>()
                                   : static_cast<double>(probs[i].cast<int64_t>());
    if (!(v >= 0) || !std::isfinite(v)) {
      MINITVM_THROW(ValueError) << "sample_categorical: probability " << i << " is " << v
                                << "; probabilities must be finite and non-negative";
    }
    p.push_back(v);
    total += v;
  }
  if (!(total > 0)) {
    MINITVM_THROW(ValueError) << "sample_categorical: the probabilities sum to 0";
  }
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!candidates[i].is_int()) {
      MINITVM_THROW(TypeError) << "sample_categorical: candidate " << i << " must be an int, got "
                               << candidates[i].ToString();
    }
  }

  // Step 2: the index, recorded or drawn.
  int64_t index = 0;
  if (!decision.is_null()) {
    index = decision.cast<int64_t>();
    if (index < 0 || index >= static_cast<int64_t>(candidates.size())) {
      ScheduleError err("WrongDecisionError",
                        "the decision " + std::to_string(index) + " is not an index of the " +
                            std::to_string(candidates.size()) + " candidates");
      err.Check("the decision indexes the candidates", false);
      throw err;
    }
  } else {
    double r = Uniform(self) * total;
    index = static_cast<int64_t>(p.size()) - 1;
    for (size_t i = 0; i < p.size(); ++i) {
      if (r < p[i]) {
        index = static_cast<int64_t>(i);
        break;
      }
      r -= p[i];
    }
  }
  self->SetDecision(Any(index));
  return {ExprRV::New(candidates[index].cast<int64_t>())};
}

// ---- sample_compute_location ------------------------------------------------------------------

Array<ObjectRef> SampleComputeLocation(ScheduleNode* self, const BlockRV& block_rv,
                                       const Any& decision) {
  // Step 1: the candidates — every loop of the function, outermost first, that does not
  // enclose the block and under which `compute_at(block, loop)` succeeds (tried on a copy).
  auto [func, stmt] = self->Resolve(block_rv);
  const FuncIndex& index = self->state().Index(func);
  std::vector<const ForNode*> loops;
  PrimFunc f = self->state().Func(func);
  std::vector<const ForNode*> all;
  PostOrderVisit(f->body, [&](const ObjectRef& n) {
    if (auto* loop = n.as<ForNode>()) all.push_back(loop);
  });
  // PostOrderVisit gives inner loops first; reversed, every loop comes before the loops
  // inside it.
  std::reverse(all.begin(), all.end());
  for (const ForNode* loop : all) {
    if (index.IsAncestor(loop, stmt)) continue;
    Schedule trial = self->Copy();
    ObjectRef block_in_trial = block_rv;
    ObjectRef loop_in_trial = trial->NewRV(func, loop);
    try {
      trial->Apply("ComputeAt", {Any(block_in_trial), Any(loop_in_trial)}, {Any(true), Any(-1)});
      loops.push_back(loop);
    } catch (const Error&) {
      // Not a legal location: skip it.
    }
  }
  if (loops.empty()) {
    ScheduleError err("NoComputeLocationError", "no loop is a legal compute-at location of block " +
                                                    BlockName(AsBlock(stmt)));
    err.Subject("block " + BlockName(AsBlock(stmt)))
        .Check("some loop outside the block accepts compute_at(block, loop)", false);
    throw err;
  }

  // Step 2: the index, recorded or drawn uniformly.
  int64_t choice = 0;
  if (!decision.is_null()) {
    choice = decision.cast<int64_t>();
    if (choice < 0 || choice >= static_cast<int64_t>(loops.size())) {
      ScheduleError err("WrongDecisionError",
                        "the decision " + std::to_string(choice) + " is not an index of the " +
                            std::to_string(loops.size()) + " legal compute-at locations");
      err.Check("the decision indexes the legal locations", false);
      throw err;
    }
  } else {
    choice = static_cast<int64_t>(self->NextRandom() % loops.size());
  }
  self->SetDecision(Any(choice));
  return {self->NewRV(func, loops[choice])};
}

}  // namespace

// ---- typed methods ----------------------------------------------------------------------------

Array<ExprRV> ScheduleNode::SamplePerfectTile(const LoopRV& loop, int n, int max_innermost_factor,
                                              const Any& decision) {
  Array<ExprRV> out;
  for (const ObjectRef& o : Apply("SamplePerfectTile", {Any(loop)},
                                  {Any(static_cast<int64_t>(n)),
                                   Any(static_cast<int64_t>(max_innermost_factor)), decision})) {
    out.push_back(Downcast<ExprRV>(o));
  }
  return out;
}

ExprRV ScheduleNode::SampleCategorical(const Array<Any>& candidates, const Array<Any>& probs,
                                       const Any& decision) {
  return Downcast<ExprRV>(
      Apply("SampleCategorical", {}, {Any(candidates), Any(probs), decision})[0]);
}

LoopRV ScheduleNode::SampleComputeLocation(const BlockRV& block, const Any& decision) {
  return Downcast<LoopRV>(Apply("SampleComputeLocation", {Any(block)}, {decision})[0]);
}

namespace {

MINITVM_REGISTER_INST_KIND([] {
  auto k = MakeInstructionKind("SamplePerfectTile", "sample_perfect_tile", {"loop"},
                               {"n", "max_innermost_factor", "decision"}, SamplePerfectTile);
  k.output_kind = 'v';
  k.returns_list = true;
  k.defaults = {{"max_innermost_factor", Any(static_cast<int64_t>(16))}, {"decision", Any()}};
  return k;
}());

MINITVM_REGISTER_INST_KIND([] {
  // No handle inputs (all three are attributes), so the apply is written out rather than
  // derived from the signature (a leading list would read as a list of handles).
  InstructionKindInfo k;
  k.name = "SampleCategorical";
  k.method = "sample_categorical";
  k.attr_names = {"candidates", "probs", "decision"};
  k.apply = [](ScheduleNode* self, const Array<Any>& inputs, const Array<Any>& attrs) {
    if (!inputs.empty() || attrs.size() != 3) {
      MINITVM_THROW(TypeError) << "sample_categorical takes candidates, probs and decision";
    }
    auto list = [](const Any& v, const char* what) {
      if (!v.as<runtime::ArrayNode>()) {
        MINITVM_THROW(TypeError) << "sample_categorical: " << what << " must be a list, got "
                                 << v.ToString();
      }
      return v.cast<Array<Any>>();
    };
    return SampleCategorical(self, list(attrs[0], "candidates"), list(attrs[1], "probs"), attrs[2]);
  };
  k.output_kind = 'v';
  k.defaults = {{"decision", Any()}};
  return k;
}());

MINITVM_REGISTER_INST_KIND([] {
  auto k = MakeInstructionKind("SampleComputeLocation", "sample_compute_location", {"block"},
                               {"decision"}, SampleComputeLocation);
  k.output_kind = 'l';
  k.defaults = {{"decision", Any()}};
  return k;
}());

}  // namespace

namespace {
/*! \brief The position of the `decision` attribute of a kind, or -1 when it has none. */
int DecisionSlot(const std::string& kind) {
  const InstructionKindInfo& info = GetInstructionKind(kind);
  for (size_t i = 0; i < info.attr_names.size(); ++i) {
    if (info.attr_names[i] == "decision") return static_cast<int>(i);
  }
  return -1;
}
}  // namespace

// The decisions of a trace as [instruction index, decision] pairs (sampling instructions only).
MINITVM_REGISTER_GLOBAL("tir.schedule.TraceDecisions").set_body_typed([](Trace trace) {
  Array<Any> out;
  for (size_t i = 0; i < trace->insts.size(); ++i) {
    const Instruction& inst = trace->insts[i];
    int slot = DecisionSlot(inst->kind);
    if (slot < 0) continue;
    Any d = slot < static_cast<int>(inst->attrs.size()) ? inst->attrs[slot] : Any();
    out.push_back(Array<Any>{Any(static_cast<int64_t>(i)), d});
  }
  return out;
});

// A copy of the trace whose instruction `index` has `decision` (None: draw again on replay).
MINITVM_REGISTER_GLOBAL("tir.schedule.TraceWithDecision")
    .set_body_typed([](Trace trace, int64_t index, Any decision) {
      if (index < 0 || index >= static_cast<int64_t>(trace->insts.size())) {
        MINITVM_THROW(IndexError) << "with_decision: instruction " << index
                                  << " is not in a trace of " << trace->insts.size();
      }
      const Instruction& inst = trace->insts[index];
      int slot = DecisionSlot(inst->kind);
      if (slot < 0) {
        MINITVM_THROW(ValueError) << "with_decision: instruction " << index << " (" << inst->kind
                                  << ") is not a sampling instruction and has no decision";
      }
      Array<Any> attrs = inst->attrs;
      while (static_cast<int>(attrs.size()) <= slot) attrs.push_back(Any());
      attrs.Set(slot, decision);
      Array<Instruction> insts = trace->insts;
      insts.Set(index, Instruction(inst->kind, inst->inputs, attrs, inst->outputs));
      return Trace(insts);
    });

MINITVM_REGISTER_GLOBAL("tir.schedule.ScheduleSeed").set_body_typed([](Schedule sch, int64_t s) {
  sch->Seed(s);
});
MINITVM_REGISTER_GLOBAL("tir.schedule.ScheduleForkSeed").set_body_typed([](Schedule sch) {
  return sch->ForkSeed();
});

}  // namespace tir
}  // namespace minitvm

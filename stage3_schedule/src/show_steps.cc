/*!
 * \file show_steps.cc
 * \brief The step-by-step view of a schedule (stage 3): equivalence checking with the TIR
 * interpreter on random inputs, a line diff, and the replay that records each step.
 */
#include "minitvm/tir/schedule/show_steps.h"

#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <unordered_map>

#include "minitvm/runtime/ndarray.h"
#include "minitvm/script/tir_printer.h"
#include "minitvm/tir/interpreter.h"
#include "minitvm/tir/schedule/schedule.h"

namespace minitvm {
namespace tir {

namespace {

using runtime::NDArray;

/*! \brief Element i of a compact CPU array as a double. */
double ReadElement(const NDArray& a, int64_t i) {
  DataType t = a.dtype();
  const char* p = static_cast<const char*>(a.data()) + i * t.bytes();
  if (t.is_float() && t.bits() == 32) return *reinterpret_cast<const float*>(p);
  if (t.is_float() && t.bits() == 64) return *reinterpret_cast<const double*>(p);
  if (t.is_bool() || (t.is_uint() && t.bits() == 8)) return *reinterpret_cast<const uint8_t*>(p);
  if (t.is_int() && t.bits() == 8) return *reinterpret_cast<const int8_t*>(p);
  if (t.is_int() && t.bits() == 16) return *reinterpret_cast<const int16_t*>(p);
  if (t.is_int() && t.bits() == 32) return *reinterpret_cast<const int32_t*>(p);
  if (t.is_int() && t.bits() == 64)
    return static_cast<double>(*reinterpret_cast<const int64_t*>(p));
  if (t.is_uint() && t.bits() == 16) return *reinterpret_cast<const uint16_t*>(p);
  if (t.is_uint() && t.bits() == 32) return *reinterpret_cast<const uint32_t*>(p);
  if (t.is_uint() && t.bits() == 64)
    return static_cast<double>(*reinterpret_cast<const uint64_t*>(p));
  // Anything else (float16, bfloat16) compares bit for bit.
  uint64_t bits = 0;
  std::memcpy(&bits, p, std::min<size_t>(sizeof(bits), t.bytes()));
  return static_cast<double>(bits);
}

void WriteRandom(const NDArray& a, std::mt19937_64* rng) {
  DataType t = a.dtype();
  char* base = static_cast<char*>(a.data());
  int64_t n = a.NumElements();
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> small(-8, 8);
  for (int64_t i = 0; i < n; ++i) {
    char* p = base + i * t.bytes();
    if (t.is_float() && t.bits() == 32) {
      *reinterpret_cast<float*>(p) = static_cast<float>(real(*rng));
    } else if (t.is_float() && t.bits() == 64) {
      *reinterpret_cast<double*>(p) = real(*rng);
    } else if (t.is_bool()) {
      *reinterpret_cast<uint8_t*>(p) = static_cast<uint8_t>((*rng)() & 1);
    } else if (t.is_int() || t.is_uint()) {
      int64_t v = t.is_uint() ? std::abs(small(*rng)) : small(*rng);
      std::memcpy(p, &v, t.bytes());  // little endian: the low bytes hold the value
    } else {
      for (int b = 0; b < t.bytes(); ++b) p[b] = static_cast<char>((*rng)() & 0x3f);
    }
  }
}

struct Signature {
  std::vector<std::vector<int64_t>> shapes;
  std::vector<DataType> dtypes;
  std::string problem;
};

Signature SignatureOf(const PrimFunc& f) {
  Signature s;
  for (const Var& p : f->params) {
    auto b = f->buffer_map.Get(p);
    if (!b) {
      s.problem = "the function has the scalar parameter " + p->name_hint.str();
      return s;
    }
    std::vector<int64_t> shape;
    for (const PrimExpr& e : (*b)->shape) {
      auto v = AsConstInt(e);
      if (!v) {
        s.problem = "buffer " + (*b)->name.str() + " has a symbolic shape";
        return s;
      }
      shape.push_back(*v);
    }
    s.shapes.push_back(shape);
    s.dtypes.push_back((*b)->dtype);
  }
  return s;
}

std::vector<NDArray> Run(const PrimFunc& f, const std::string& name,
                         const std::vector<NDArray>& inputs) {
  std::vector<NDArray> args;
  std::vector<Any> packed;
  for (const NDArray& a : inputs) {
    NDArray c = NDArray::Empty(std::vector<int64_t>(a->shape.begin(), a->shape.end()), a.dtype());
    c.CopyFrom(a);
    args.push_back(c);
    packed.push_back(Any(c));
  }
  Interpreter interp(f, name);
  interp.Run(runtime::PackedArgs(packed.data(), static_cast<int>(packed.size())));
  return args;
}

}  // namespace

EquivalenceResult CheckEquivalence(const PrimFunc& reference, const PrimFunc& candidate,
                                   uint64_t seed, double rtol, double atol) {
  EquivalenceResult r;
  Signature sr = SignatureOf(reference), sc = SignatureOf(candidate);
  if (!sr.problem.empty() || !sc.problem.empty()) {
    r.message = "not checked: " + (sr.problem.empty() ? sc.problem : sr.problem);
    return r;
  }
  if (sr.shapes != sc.shapes || sr.dtypes != sc.dtypes) {
    r.message = "not checked: the function's buffer parameters changed shape or dtype";
    return r;
  }
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + 1);
  std::vector<NDArray> inputs;
  for (size_t i = 0; i < sr.shapes.size(); ++i) {
    NDArray a = NDArray::Empty(sr.shapes[i], sr.dtypes[i]);
    WriteRandom(a, &rng);
    inputs.push_back(a);
  }
  std::vector<NDArray> expected, got;
  try {
    expected = Run(reference, "reference", inputs);
  } catch (const Error& e) {
    r.message = std::string("not checked: the reference failed: ") + e.what();
    return r;
  }
  r.checked = true;
  try {
    got = Run(candidate, "scheduled", inputs);
  } catch (const Error& e) {
    r.equal = false;
    r.message = std::string("the scheduled function failed: ") + e.kind() + ": " + e.what();
    return r;
  }
  r.equal = true;
  for (size_t b = 0; b < expected.size(); ++b) {
    int64_t n = expected[b].NumElements();
    for (int64_t i = 0; i < n; ++i) {
      double x = ReadElement(got[b], i), y = ReadElement(expected[b], i);
      double d = std::fabs(x - y);
      if (std::isnan(x) != std::isnan(y)) d = INFINITY;
      if (std::isnan(x) && std::isnan(y)) d = 0;
      r.max_abs_diff = std::max(r.max_abs_diff, d);
      if (d > atol + rtol * std::fabs(y) && r.equal) {
        r.equal = false;
        std::ostringstream os;
        os << "buffer " << reference->buffer_map.Get(reference->params[b]).value()->name
           << " differs at flat index " << i << ": " << x << " instead of " << y;
        r.message = os.str();
      }
    }
  }
  if (r.equal) {
    std::ostringstream os;
    os << "same results on random inputs (max |diff| " << r.max_abs_diff << ")";
    r.message = os.str();
  }
  return r;
}

ScheduleSteps ShowSteps(const IRModule& mod, const Trace& trace, const std::string& func_name,
                        uint64_t seed) {
  ScheduleSteps out;
  Schedule sch = Schedule::Create(mod);
  PrimFunc original = sch->state().Func(func_name);
  std::vector<std::string> lines = trace.AsPythonLines();
  std::unordered_map<const Object*, ObjectRef> rv_map;
  std::function<Any(const Any&)> map_input = [&](const Any& v) -> Any {
    if (IsScheduleRV(v)) return Any(rv_map.at(v.as_object()));
    if (auto* arr = v.as<runtime::ArrayNode>()) {
      Array<Any> mapped;
      for (const Any& x : arr->data) mapped.push_back(map_input(x));
      return mapped;
    }
    return v;
  };
  Array<Instruction> insts = trace.Instructions();
  for (size_t i = 0; i < insts.size(); ++i) {
    const Instruction& inst = insts[i];
    ScheduleStep step;
    step.index = static_cast<int>(i + 1);
    step.python = i < lines.size() ? lines[i] : inst->kind.str();
    PrimFunc before = sch->state().Func(func_name);
    step.before = script::AsScript(before);
    try {
      Array<Any> inputs;
      for (const Any& v : inst->inputs) inputs.push_back(map_input(v));
      Array<ObjectRef> outs = sch->Apply(inst->kind, inputs, inst->attrs);
      for (size_t k = 0; k < outs.size() && k < inst->outputs.size(); ++k) {
        rv_map[inst->outputs[k].get()] = outs[k];
      }
    } catch (const Error& e) {
      step.error = e.kind() + ": " + e.what();
      out.steps.push_back(step);
      break;
    }
    PrimFunc after = sch->state().Func(func_name);
    step.after = script::AsScript(after);
    if (!after.same_as(before)) {
      step.diff = UnifiedDiff(step.before, step.after, "before step " + std::to_string(step.index),
                              "after step " + std::to_string(step.index));
      step.check = CheckEquivalence(original, after, seed);
      if (step.check.checked && !step.check.equal && out.first_bad_step == 0) {
        out.first_bad_step = step.index;
      }
    }
    out.steps.push_back(step);
  }
  return out;
}

ScheduleSteps ShowSteps(const Schedule& sch, const std::string& func_name, uint64_t seed) {
  return ShowSteps(sch->original_mod(), sch->trace(), func_name, seed);
}

std::string ScheduleSteps::ToString() const {
  std::ostringstream os;
  for (const ScheduleStep& s : steps) {
    os << "step " << s.index << ": " << s.python << "\n";
    if (!s.error.empty()) {
      os << "  failed: " << s.error << "\n";
      continue;
    }
    if (s.diff.empty()) {
      os << "  (the IR does not change)\n";
      continue;
    }
    os << s.diff;
    if (!s.check.checked) {
      os << "  check: " << s.check.message << "\n";
    } else {
      os << "  check: " << (s.check.equal ? "OK, " : "MISMATCH, ") << s.check.message << "\n";
    }
  }
  if (first_bad_step > 0) {
    os << "first step that changed the results: step " << first_bad_step << " ("
       << steps[first_bad_step - 1].python << ")\n";
  } else {
    os << "every step kept the results of the original function\n";
  }
  return os.str();
}

}  // namespace tir
}  // namespace minitvm

/*!
 * \file api_schedule.cc
 * \brief The global functions of stage 3 (what Python's `minitvm.tir.schedule` calls):
 * `"tir.schedule.<Primitive>"` for every primitive (made from its instruction kind, see
 * RegisterScheduleGlobal), the schedule's state and trace, the step-by-step view, IndexMap and
 * tensor intrinsics.
 */
#include <algorithm>

#include "instruction.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/schedule/schedule.h"
#include "minitvm/tir/schedule/show_steps.h"
#include "minitvm/tir/schedule/tensor_intrin.h"
#include "utils.h"

namespace minitvm {
namespace tir {
namespace {

Schedule ToSchedule(const Any& mod_or_func, int64_t debug_mask, const std::string& level) {
  ErrorRenderLevel l = ParseErrorRenderLevel(level);
  if (auto* f = mod_or_func.as<PrimFuncNode>()) {
    return Schedule::Create(GetRef<PrimFunc>(f), static_cast<int>(debug_mask), l);
  }
  if (auto* m = mod_or_func.as<IRModuleNode>()) {
    return Schedule::Create(GetRef<IRModule>(m), static_cast<int>(debug_mask), l);
  }
  mod_or_func.ThrowTypeMismatch("IRModule or tir.PrimFunc");
}

}  // namespace

void RegisterScheduleGlobal(const InstructionKindInfo& info) {
  // The parameters in the Python method's order, each marked as an input or an attribute.
  std::vector<std::string> params = info.python_params;
  if (params.empty()) {
    params = info.variadic ? std::vector<std::string>{"*inputs"} : info.input_names;
    params.insert(params.end(), info.attr_names.begin(), info.attr_names.end());
  }
  std::string global = "tir.schedule." + info.name;
  runtime::Registry::Register(global, true)
      .set_body([info, params, global](runtime::PackedArgs args, Any* rv) {
        if (args.size() < 1 || args.size() - 1 > static_cast<int>(params.size())) {
          MINITVM_THROW(TypeError) << global << " takes a schedule and " << params.size()
                                   << " argument(s), but got " << args.size();
        }
        Schedule sch = args[0].cast<Schedule>();
        // Step 1: each argument by name, defaults for the trailing ones left out.
        std::unordered_map<std::string, Any> by_name;
        for (size_t i = 0; i < params.size(); ++i) {
          if (static_cast<int>(i) + 1 < args.size()) {
            by_name[params[i]] = args[static_cast<int>(i) + 1];
            continue;
          }
          auto d = std::find_if(info.defaults.begin(), info.defaults.end(),
                                [&](const auto& kv) { return kv.first == params[i]; });
          if (d == info.defaults.end()) {
            MINITVM_THROW(TypeError) << global << ": missing argument " << params[i];
          }
          by_name[params[i]] = d->second;
        }
        // Step 2: the instruction's inputs and attributes.
        Array<Any> inputs, attrs;
        if (info.variadic) {
          inputs = by_name.at("*inputs").cast<Array<Any>>();
        } else {
          for (const std::string& n : info.input_names) inputs.push_back(by_name.at(n));
        }
        for (const std::string& n : info.attr_names) attrs.push_back(by_name.at(n));
        // Step 3: apply, and return what the Python method returns.
        Array<ObjectRef> outs = sch->Apply(info.name, inputs, attrs);
        if (info.returns_list) {
          *rv = Any(outs);
        } else if (!outs.empty()) {
          *rv = Any(outs[0]);
        }
      });
}

MINITVM_REGISTER_GLOBAL("tir.schedule.Schedule").set_body_typed(ToSchedule);
MINITVM_REGISTER_GLOBAL("tir.schedule.ScheduleGetMod").set_body_typed([](Schedule sch) {
  return sch->mod();
});
MINITVM_REGISTER_GLOBAL("tir.schedule.ScheduleGetTrace").set_body_typed([](Schedule sch) {
  return sch->trace();
});
MINITVM_REGISTER_GLOBAL("tir.schedule.ScheduleCopy").set_body_typed([](Schedule sch) {
  return sch->Copy();
});
MINITVM_REGISTER_GLOBAL("tir.schedule.ScheduleGet").set_body_typed([](Schedule sch, ObjectRef rv) {
  if (auto* b = rv.as<BlockRVNode>()) return ObjectRef(sch->Get(GetRef<BlockRV>(b)));
  if (auto* l = rv.as<LoopRVNode>()) return ObjectRef(sch->Get(GetRef<LoopRV>(l)));
  if (auto* e = rv.as<ExprRVNode>()) return ObjectRef(IntImm(DataType::Int(64), e->value));
  MINITVM_THROW(TypeError) << "sch.get expects a BlockRV, LoopRV or ExprRV, not "
                           << (rv.defined() ? rv->GetTypeKey() : std::string("None"));
});
// sch.get_sref / sch.state.get_sref: [function name, the node, its parent node or None], or None
// when the node is not in the scheduled module (a handle is resolved first).
MINITVM_REGISTER_GLOBAL("tir.schedule.ScheduleGetSRef")
    .set_body_typed([](Schedule sch, ObjectRef rv_or_stmt) -> ObjectRef {
      auto entry = [&](const std::string& func, const StmtNode* stmt) -> ObjectRef {
        const StmtSRef* s = sch->state().Index(func).Find(stmt);
        if (s == nullptr) return ObjectRef();
        ObjectRef parent = s->parent ? GetRef<ObjectRef>(s->parent) : ObjectRef();
        return Array<ObjectRef>{String(func), GetRef<ObjectRef>(s->stmt), parent};
      };
      if (rv_or_stmt.as<BlockRVNode>() || rv_or_stmt.as<LoopRVNode>()) {
        auto [func, stmt] = sch->Resolve(rv_or_stmt);
        return entry(func, stmt);
      }
      const auto* stmt = rv_or_stmt.as<StmtNode>();
      if (stmt == nullptr || !(rv_or_stmt.as<BlockNode>() || rv_or_stmt.as<ForNode>())) {
        MINITVM_THROW(TypeError) << "get_sref expects a BlockRV, LoopRV, Block or For, not "
                                 << (rv_or_stmt.defined() ? rv_or_stmt->GetTypeKey()
                                                          : std::string("None"));
      }
      for (const std::string& func : sch->state().FuncNames()) {
        ObjectRef found = entry(func, stmt);
        if (found.defined()) return found;
      }
      return ObjectRef();
    });
MINITVM_REGISTER_GLOBAL("tir.schedule.ScheduleNameOf")
    .set_body_typed([](Schedule sch, ObjectRef rv) { return sch->NameOf(rv); });
MINITVM_REGISTER_GLOBAL("tir.schedule.ScheduleErrorRenderLevel").set_body_typed([](Schedule sch) {
  switch (sch->error_render_level()) {
    case ErrorRenderLevel::kDetail:
      return std::string("detail");
    case ErrorRenderLevel::kFast:
      return std::string("fast");
    default:
      return std::string("none");
  }
});
MINITVM_REGISTER_GLOBAL("tir.schedule.ScheduleBlockBuffer")
    .set_body_typed([](Schedule sch, BlockRV block, int64_t buffer_index_type, int64_t index,
                       std::string primitive) {
      // The buffer-index check the primitives use, for the Python front (transform_layout
      // needs the buffer's rank before it can build the index map).
      Block b = sch->Get(block);
      bool write = buffer_index_type == static_cast<int64_t>(BufferIndexType::kWrite);
      try {
        return sched::BlockBuffer(b.get(), index, write, primitive);
      } catch (const ScheduleError& e) {
        throw Error("ScheduleError." + e.rule(),
                    e.Render(sch->error_render_level(), "sch." + primitive + "(...)", sch->mod(),
                             sch->FuncNameOf(block)));
      }
    });
MINITVM_REGISTER_GLOBAL("tir.schedule.Apply")
    .set_body_typed([](Schedule sch, std::string kind, Array<Any> inputs, Array<Any> attrs) {
      return sch->Apply(kind, inputs, attrs);
    });
MINITVM_REGISTER_GLOBAL("tir.schedule.ListInstructionKinds").set_body_typed([]() {
  Array<String> out;
  for (const std::string& k : InstructionKindNames()) out.push_back(String(k));
  return out;
});

// ---- traces -----------------------------------------------------------------------------

MINITVM_REGISTER_GLOBAL("tir.schedule.Trace").set_body_typed([](Array<Instruction> insts) {
  return Trace(insts);
});
MINITVM_REGISTER_GLOBAL("tir.schedule.TraceShow").set_body_typed([](Trace t, bool remove_postproc) {
  return t.Show(remove_postproc);
});
MINITVM_REGISTER_GLOBAL("tir.schedule.TraceAsPython")
    .set_body_typed([](Trace t, bool remove_postproc) {
      Array<String> out;
      for (const std::string& l : t.AsPythonLines(remove_postproc)) out.push_back(String(l));
      return out;
    });
MINITVM_REGISTER_GLOBAL("tir.schedule.TraceAsJSON")
    .set_body_typed([](Trace t, bool remove_postproc) { return t.AsJSON(remove_postproc); });
MINITVM_REGISTER_GLOBAL("tir.schedule.TraceFromJSON").set_body_typed([](std::string json) {
  return Trace::FromJSON(json);
});
MINITVM_REGISTER_GLOBAL("tir.schedule.TraceFromPython").set_body_typed([](std::string text) {
  return Trace::FromPython(text);
});
MINITVM_REGISTER_GLOBAL("tir.schedule.TraceApplyToSchedule")
    .set_body_typed([](Trace t, Schedule sch, bool remove_postproc) {
      t.ApplyToSchedule(sch, remove_postproc);
    });

// ---- step-by-step view and equivalence ---------------------------------------------------

MINITVM_REGISTER_GLOBAL("tir.schedule.ShowSteps")
    .set_body_typed([](IRModule mod, Trace trace, std::string func_name, int64_t seed) {
      ScheduleSteps steps = ShowSteps(mod, trace, func_name, static_cast<uint64_t>(seed));
      Map<String, Any> out;
      out.Set(String("text"), Any(steps.ToString()));
      out.Set(String("first_bad_step"), Any(static_cast<int64_t>(steps.first_bad_step)));
      Array<Any> diffs;
      for (const ScheduleStep& s : steps.steps) diffs.push_back(Any(s.diff));
      out.Set(String("diffs"), Any(diffs));
      return out;
    });
MINITVM_REGISTER_GLOBAL("tir.schedule.ScheduleOriginalMod").set_body_typed([](Schedule sch) {
  return sch->original_mod();
});
MINITVM_REGISTER_GLOBAL("tir.schedule.CheckEquivalence")
    .set_body_typed([](PrimFunc a, PrimFunc b, int64_t seed, double rtol, double atol) {
      EquivalenceResult r = CheckEquivalence(a, b, static_cast<uint64_t>(seed), rtol, atol);
      Map<String, Any> out;
      out.Set(String("checked"), Any(r.checked));
      out.Set(String("equal"), Any(r.equal));
      out.Set(String("max_abs_diff"), Any(r.max_abs_diff));
      out.Set(String("message"), Any(r.message));
      return out;
    });
MINITVM_REGISTER_GLOBAL("tir.schedule.UnifiedDiff")
    .set_body_typed([](std::string a, std::string b) { return UnifiedDiff(a, b); });

// ---- index maps and tensor intrinsics ----------------------------------------------------

MINITVM_REGISTER_GLOBAL("tir.IndexMap")
    .set_body_typed([](Array<Var> initial_indices, Array<PrimExpr> final_indices) {
      return IndexMap(initial_indices, final_indices);
    });
MINITVM_REGISTER_GLOBAL("tir.IndexMapToPython").set_body_typed([](IndexMap m) {
  return m.ToPythonLambda();
});
MINITVM_REGISTER_GLOBAL("tir.IndexMapMapIndices")
    .set_body_typed([](IndexMap m, Array<PrimExpr> indices) { return m.MapIndices(indices); });
MINITVM_REGISTER_GLOBAL("tir.TensorIntrin").set_body_typed([](PrimFunc desc, PrimFunc impl) {
  return TensorIntrin(desc, impl);
});
MINITVM_REGISTER_GLOBAL("tir.TensorIntrinRegister")
    .set_body_typed([](std::string name, TensorIntrin intrin, bool override_existing) {
      TensorIntrin::Register(name, intrin, override_existing);
    });
MINITVM_REGISTER_GLOBAL("tir.TensorIntrinGet")
    .set_body_typed([](std::string name, bool allow_missing) {
      if (allow_missing) {
        auto t = TensorIntrin::TryGet(name);
        return t ? ObjectRef(*t) : ObjectRef();
      }
      return ObjectRef(TensorIntrin::Get(name));
    });
MINITVM_REGISTER_GLOBAL("tir.TensorIntrinListNames").set_body_typed([]() {
  Array<String> out;
  for (const std::string& n : TensorIntrin::ListNames()) out.push_back(String(n));
  return out;
});
MINITVM_REGISTER_GLOBAL("tir.TensorIntrinBuiltinScripts").set_body_typed([]() {
  Map<String, Any> out;
  out.Set(String("dot_16_f32_desc"), Any(Dot16DescScript()));
  out.Set(String("dot_16_f32_impl"), Any(Dot16ImplScript()));
  return out;
});
MINITVM_REGISTER_GLOBAL("tir.RegisterBuiltinTensorIntrins").set_body_typed([]() {
  RegisterBuiltinTensorIntrins();
});

}  // namespace tir
}  // namespace minitvm

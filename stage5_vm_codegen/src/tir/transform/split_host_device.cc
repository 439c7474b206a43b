/*!
 * \file split_host_device.cc
 * \brief SplitHostDevice and LowerDeviceKernelLaunch (stage 5): the two steps that turn a
 * thread-bound PrimFunc into a host function plus device kernels, as in TVM.
 *
 * SplitHostDevice: every outermost thread-bound loop nest becomes a device PrimFunc named
 * `<function>_kernel` (then `_kernel_1`, `_kernel_2`, ... when a function has several). Its
 * parameters are the nest's free variables — buffer data pointers first, then scalars (shape
 * variables, host loop variables) — and the host calls it with
 * `T.call_extern("main_kernel", args...)`. What is left on the host may only allocate global
 * memory, bind scalars and sequence launches: a store outside every thread-bound loop would
 * run on the CPU with device pointers, so it is a ValueError that names the buffer ("did you
 * forget to bind a loop?"). A global-scope allocation inside a nest (an intermediate buffer
 * used only there) moves to the host, around the launch.
 *
 * LowerDeviceKernelLaunch: reads each kernel's launch extents from its thread-bound loops,
 * writes them after the arguments of the host call, which becomes
 * `T.tvm_call_packed("main_kernel", args..., extents...)`, and records the extents' thread tags
 * in the kernel's "tir.kernel_launch_params" attribute.
 */
#include <sstream>

#include "ir_utils.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/transform/gpu.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace tir {
namespace transform {

using minitvm::transform::CreateModulePass;

namespace {

class HostDeviceSplitter : public StmtMutator {
 public:
  HostDeviceSplitter(std::string name, std::vector<Var> defined)
      : name_(std::move(name)), defined_(std::move(defined)) {}

  Stmt VisitStmt_(const ForNode* op) override {
    if (op->kind != ForKind::kThreadBinding) {
      defined_.push_back(op->loop_var);
      return StmtMutator::VisitStmt_(op);
    }
    // Global memory cannot be allocated inside a kernel: an intermediate buffer whose uses
    // all lie in this nest (so the planner put its allocation here) is allocated by the host
    // around the launch and passed to the kernel.
    class GlobalAllocHoister : public StmtMutator {
     public:
      Stmt VisitStmt_(const AllocateNode* op) override {
        if (op->scope != "global") return StmtMutator::VisitStmt_(op);
        hoisted.push_back(op);
        return VisitStmt(op->body);
      }
      std::vector<const AllocateNode*> hoisted;
    };
    GlobalAllocHoister hoister;
    Stmt body = hoister.VisitStmt(GetRef<Stmt>(op));
    std::vector<Var> free = UndefinedVars(body);
    std::vector<Var> handles, scalars;
    for (const Var& v : free) (v.dtype().is_handle() ? handles : scalars).push_back(v);
    Array<Var> params;
    Array<PrimExpr> args;
    for (const auto* group : {&handles, &scalars}) {
      for (const Var& v : *group) {
        params.push_back(v);
        args.push_back(v);
      }
    }
    std::string kname =
        name_ + "_kernel" + (kernels.empty() ? "" : "_" + std::to_string(kernels.size()));
    Map<String, Any> attrs;
    attrs.Set(String("global_symbol"), String(kname));
    attrs.Set(String("target"), String("cuda"));
    attrs.Set(String("calling_conv"), int64_t(kDeviceKernelLaunch));
    attrs.Set(String("tir.noalias"), true);
    attrs.Set(String("tir.is_global_func"), true);
    kernels.emplace_back(kname, PrimFunc(params, body, {}, attrs));
    Array<PrimExpr> call_args{StringImm(kname)};
    for (const PrimExpr& a : args) call_args.push_back(a);
    Stmt call = Evaluate(Call(DataType::Int(32), "tir.call_extern", call_args));
    for (auto it = hoister.hoisted.rbegin(); it != hoister.hoisted.rend(); ++it) {
      const AllocateNode* a = *it;
      call = Allocate(a->buffer_var, a->dtype, a->extents, a->condition, call, a->scope,
                      a->annotations);
    }
    return call;
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    MINITVM_THROW(ValueError) << "SplitHostDevice: the store to " << op->buffer->name
                              << " is outside every thread-bound loop, so it would run on the "
                                 "host with device memory (did you forget to bind a loop to "
                                 "blockIdx/threadIdx?)";
  }
  Stmt VisitStmt_(const LetStmtNode* op) override {
    defined_.push_back(op->var);
    return StmtMutator::VisitStmt_(op);
  }

  std::vector<std::pair<std::string, PrimFunc>> kernels;

 private:
  std::string name_;
  std::vector<Var> defined_;
};

}  // namespace

Pass SplitHostDevice() {
  return CreateModulePass(
      [](IRModule mod, PassContext) {
        IRModule result(mod->functions, mod->attrs);
        for (const GlobalVar& gv : mod->GetGlobalVars()) {
          auto* f = mod->Lookup(gv).as<PrimFuncNode>();
          if (!f || f->GetAttr<int64_t>("calling_conv").value_or(0) == kDeviceKernelLaunch) {
            continue;
          }
          std::string name = f->GetAttr<std::string>("global_symbol").value_or(gv->name_hint.str());
          HostDeviceSplitter splitter(name, {});
          Stmt body = splitter.VisitStmt(f->body);
          if (splitter.kernels.empty()) continue;
          PrimFunc host = GetRef<PrimFunc>(f);
          host.CopyOnWrite()->body = body;
          result.Add(gv, host);
          for (auto& [kname, kfunc] : splitter.kernels) result.Add(GlobalVar(kname), kfunc);
        }
        return result;
      },
      0, "tir.SplitHostDevice");
}

Pass LowerDeviceKernelLaunch() {
  return CreateModulePass(
      [](IRModule mod, PassContext) {
        IRModule result(mod->functions, mod->attrs);
        std::map<std::string, GlobalVar> kernels;
        for (const GlobalVar& gv : mod->GetGlobalVars()) {
          auto* f = mod->Lookup(gv).as<PrimFuncNode>();
          if (f && f->GetAttr<int64_t>("calling_conv").value_or(0) == kDeviceKernelLaunch) {
            kernels[gv->name_hint.str()] = gv;
          }
        }
        class Rewriter : public StmtMutator {
         public:
          Rewriter(IRModule* result, const std::map<std::string, GlobalVar>& kernels)
              : result_(result), kernels_(kernels) {}
          Stmt VisitStmt_(const EvaluateNode* op) override {
            auto* call = op->value.as<CallNode>();
            if (!call || call->op != "tir.call_extern" || call->args.empty()) {
              return GetRef<Stmt>(op);
            }
            auto* name = call->args[0].as<StringImmNode>();
            auto it = name ? kernels_.find(name->value.str()) : kernels_.end();
            if (it == kernels_.end()) return GetRef<Stmt>(op);
            PrimFunc kernel = Downcast<PrimFunc>((*result_)->Lookup(it->second));
            LaunchDims dims = CollectLaunchDims(kernel->body);
            Map<Var, PrimExpr> bind;
            for (size_t i = 0; i < kernel->params.size(); ++i) {
              bind.Set(kernel->params[i], call->args[i + 1]);
            }
            Array<PrimExpr> args = call->args;
            Array<String> tags;
            for (auto& [tag, extent] : dims.extents) {
              args.push_back(Substitute(extent, bind));
              tags.push_back(String(tag));
            }
            kernel.CopyOnWrite()->attrs.Set(String(kKernelLaunchParams), tags);
            result_->Add(it->second, kernel);
            return Evaluate(Call(DataType::Int(32), kCallPackedOp, args));
          }
          IRModule* result_;
          const std::map<std::string, GlobalVar>& kernels_;
        };
        Rewriter rewriter(&result, kernels);
        for (const GlobalVar& gv : mod->GetGlobalVars()) {
          auto* f = mod->Lookup(gv).as<PrimFuncNode>();
          if (!f || kernels.count(gv->name_hint.str())) continue;
          Stmt body = rewriter.VisitStmt(f->body);
          if (body.same_as(f->body)) continue;
          PrimFunc host = GetRef<PrimFunc>(f);
          host.CopyOnWrite()->body = body;
          result.Add(gv, host);
        }
        return result;
      },
      0, "tir.LowerDeviceKernelLaunch");
}

}  // namespace transform

MINITVM_REGISTER_GLOBAL("tir.transform.SplitHostDevice").set_body_typed(transform::SplitHostDevice);
MINITVM_REGISTER_GLOBAL("tir.transform.LowerDeviceKernelLaunch")
    .set_body_typed(transform::LowerDeviceKernelLaunch);
}  // namespace tir
}  // namespace minitvm

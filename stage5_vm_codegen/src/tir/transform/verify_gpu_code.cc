/*!
 * \file verify_gpu_code.cc
 * \brief VerifyGPUCode (stage 5): checks a thread-bound PrimFunc against a GPU's limits before
 * any code is generated — threads per block, shared memory per block, and that every loop bound
 * to one thread axis inside a kernel has the same extent (the hardware has one `threadIdx.x`
 * per thread, so two loops bound to it must agree). Also CollectLaunchDims, which reads the
 * launch geometry of a kernel from its thread-bound loops.
 */
#include <map>
#include <sstream>

#include "ir_utils.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/schedule/index_map.h"
#include "minitvm/tir/transform/gpu.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace tir {

GPULimits GPULimits::FromTarget(const target::Target& target) {
  GPULimits l;
  if (!target.defined()) return l;
  l.max_threads_per_block =
      target->GetAttr<int64_t>("max_threads_per_block").value_or(l.max_threads_per_block);
  l.max_shared_memory_per_block = target->GetAttr<int64_t>("max_shared_memory_per_block")
                                      .value_or(l.max_shared_memory_per_block);
  return l;
}

namespace {

const char* kTagOrder[] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z",
                           "threadIdx.x", "threadIdx.y", "threadIdx.z"};

/*! \brief Walks one kernel (an outermost thread-bound loop nest) and records what it uses. */
class KernelInfo : public StmtVisitor {
 public:
  struct Binding {
    PrimExpr extent;
    std::string loop;
  };
  std::map<std::string, Binding> bindings;
  std::vector<std::string> errors;
  int64_t shared_bytes = 0;
  std::vector<std::string> shared_names;

  void VisitStmt_(const ForNode* op) override {
    if (op->kind != ForKind::kThreadBinding) return StmtVisitor::VisitStmt_(op);
    std::string tag = op->thread_binding->thread_tag.str();
    std::string loop = op->loop_var->name_hint.str();
    if (active_.count(tag)) {
      errors.push_back("loop " + loop + " is bound to " + tag + " inside loop " + active_[tag] +
                       ", which is bound to it too");
    }
    auto it = bindings.find(tag);
    if (it == bindings.end()) {
      bindings[tag] = {op->extent, loop};
    } else {
      auto a = AsConstInt(it->second.extent), b = AsConstInt(op->extent);
      bool same = (a && b) ? *a == *b : it->second.extent.same_as(op->extent);
      if (!same) {
        std::ostringstream os;
        os << tag << " is bound to loops of different extents: " << it->second.loop << " ("
           << PrintPythonExpr(it->second.extent) << ") and " << loop << " ("
           << PrintPythonExpr(op->extent)
           << "); every loop bound to one thread axis in a kernel must have the same extent";
        errors.push_back(os.str());
      }
    }
    active_[tag] = loop;
    StmtVisitor::VisitStmt_(op);
    active_.erase(tag);
  }
  void VisitStmt_(const AllocateNode* op) override {
    if (op->scope == "shared") {
      int64_t n = op->dtype.bytes();
      bool constant = true;
      for (const PrimExpr& e : op->extents) {
        auto v = AsConstInt(e);
        if (!v) constant = false;
        n *= v.value_or(1);
      }
      if (!constant) {
        errors.push_back("shared buffer " + op->buffer_var->name_hint.str() +
                         " has a non-constant size; shared memory must be sized at compile time");
      }
      shared_bytes += n;
      shared_names.push_back(op->buffer_var->name_hint.str());
    }
    StmtVisitor::VisitStmt_(op);
  }

 private:
  std::map<std::string, std::string> active_;
};

/*! \brief Finds the outermost thread-bound loops of a function (one per kernel). */
void ForEachKernel(const Stmt& body, const std::function<void(const ForNode*)>& f) {
  class Finder : public StmtVisitor {
   public:
    explicit Finder(const std::function<void(const ForNode*)>& f) : f_(f) {}
    void VisitStmt_(const ForNode* op) override {
      if (op->kind == ForKind::kThreadBinding) return f_(op);
      StmtVisitor::VisitStmt_(op);
    }
    const std::function<void(const ForNode*)>& f_;
  };
  Finder(f).VisitStmt(body);
}

}  // namespace

LaunchDims CollectLaunchDims(const Stmt& kernel_body) {
  KernelInfo info;
  info.VisitStmt(kernel_body);
  LaunchDims dims;
  for (const char* tag : kTagOrder) {
    auto it = info.bindings.find(tag);
    if (it != info.bindings.end()) dims.extents.emplace_back(tag, it->second.extent);
  }
  return dims;
}

std::vector<std::string> VerifyGPUCodeErrors(const PrimFunc& func, const GPULimits& limits) {
  std::vector<std::string> errors;
  ForEachKernel(func->body, [&](const ForNode* kernel) {
    KernelInfo info;
    info.VisitStmt(GetRef<Stmt>(kernel));
    errors.insert(errors.end(), info.errors.begin(), info.errors.end());
    int64_t threads = 1;
    std::ostringstream dims;
    for (const char* tag : {"threadIdx.x", "threadIdx.y", "threadIdx.z"}) {
      auto it = info.bindings.find(tag);
      if (it == info.bindings.end()) continue;
      auto v = AsConstInt(it->second.extent);
      if (!v) {
        errors.push_back(std::string(tag) + " is bound to loop " + it->second.loop +
                         " of non-constant extent; the block size must be known at compile time");
        continue;
      }
      threads *= *v;
      dims << (dims.tellp() ? " x " : "") << *v << " (" << tag << ")";
    }
    auto z = info.bindings.find("threadIdx.z");
    if (z != info.bindings.end() && AsConstInt(z->second.extent).value_or(0) > 64) {
      errors.push_back("threadIdx.z has extent " + std::to_string(*AsConstInt(z->second.extent)) +
                       ", more than the 64 a block allows");
    }
    if (threads > limits.max_threads_per_block) {
      errors.push_back(
          "the kernel launches " + std::to_string(threads) + " threads per block (" + dims.str() +
          "), more than max_threads_per_block = " + std::to_string(limits.max_threads_per_block));
    }
    if (info.shared_bytes > limits.max_shared_memory_per_block) {
      std::ostringstream os;
      os << "the kernel uses " << info.shared_bytes << " bytes of shared memory (";
      for (size_t i = 0; i < info.shared_names.size(); ++i) {
        os << (i ? ", " : "") << info.shared_names[i];
      }
      os << "), more than max_shared_memory_per_block = " << limits.max_shared_memory_per_block;
      errors.push_back(os.str());
    }
  });
  return errors;
}

namespace transform {

Pass VerifyGPUCode(GPULimits limits) {
  return CreatePrimFuncPass(
      [limits](PrimFunc f, IRModule, PassContext) {
        std::vector<std::string> errors = VerifyGPUCodeErrors(f, limits);
        if (!errors.empty()) {
          std::ostringstream os;
          std::string name = f->GetAttr<std::string>("global_symbol").value_or("the function");
          os << "VerifyGPUCode: " << name << " is not valid GPU code:";
          for (const std::string& e : errors) os << "\n  - " << e;
          MINITVM_THROW(ValueError) << os.str();
        }
        return f;
      },
      0, "tir.VerifyGPUCode");
}

}  // namespace transform

MINITVM_REGISTER_GLOBAL("tir.transform.VerifyGPUCode").set_body_typed([](Any target) {
  target::Target t = target.is_string() ? target::Target(target.cast<std::string>())
                                        : target.cast<target::Target>();
  return transform::VerifyGPUCode(GPULimits::FromTarget(t));
});
MINITVM_REGISTER_GLOBAL("tir.analysis.verify_gpu_code_errors")
    .set_body_typed([](PrimFunc f, int64_t max_threads, int64_t max_shared) {
      GPULimits l{max_threads, max_shared};
      Array<String> out;
      for (const std::string& e : VerifyGPUCodeErrors(f, l)) out.push_back(String(e));
      return out;
    });

}  // namespace tir
}  // namespace minitvm

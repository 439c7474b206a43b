/*!
 * \file cuda_module.cc
 * \brief NVRTC compilation, the CUDA runtime modules and "target.build.cuda" (stage 5).
 *
 * `BuildCUDA` gives a module of kind "cuda_host" (the host functions: check and bind the
 * NDArray arguments, allocate intermediates, launch) that imports a module of kind "cuda"
 * (the CUDA C source, its PTX and the kernels). A kernel function of the "cuda" module takes
 * the kernel's arguments followed by its launch extents, as in TVM. Launching loads the PTX
 * through the driver API (cuda_driver.h); with no driver it raises "no CUDA driver ...".
 */
#include <mutex>
#include <sstream>

#include "../../runtime_cuda/cuda_driver.h"
#include "host_launch.h"
#include "minitvm/codegen/cuda.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/stmt_functor.h"
#include "minitvm/tir/transform/gpu.h"

#ifdef MINITVM_USE_CUDA
#include <nvrtc.h>
#endif

namespace minitvm {
namespace codegen {

using runtime::Any;
using runtime::PackedArgs;
using runtime::PackedFunc;

bool NVRTCAvailable() {
#ifdef MINITVM_USE_CUDA
  return true;
#else
  return false;
#endif
}

std::string NVRTCCompile(const std::string& source, const std::string& arch) {
#ifdef MINITVM_USE_CUDA
  if (arch.rfind("sm_", 0) != 0) {
    MINITVM_THROW(ValueError) << "cuda target: arch must look like \"sm_80\", not \"" << arch
                              << "\"";
  }
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, source.c_str(), "minitvm_kernels.cu", 0, nullptr, nullptr) !=
      NVRTC_SUCCESS) {
    MINITVM_THROW(RuntimeError) << "NVRTC: nvrtcCreateProgram failed";
  }
  std::string gpu_arch = "--gpu-architecture=compute_" + arch.substr(3);
  const char* opts[] = {gpu_arch.c_str(), "--std=c++17"};
  nvrtcResult r = nvrtcCompileProgram(prog, 2, opts);
  size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  std::string log(log_size, '\0');
  if (log_size > 1) nvrtcGetProgramLog(prog, log.data());
  if (r != NVRTC_SUCCESS) {
    nvrtcDestroyProgram(&prog);
    MINITVM_THROW(ValueError) << "NVRTC could not compile the generated CUDA C ("
                              << nvrtcGetErrorString(r) << "):\n"
                              << log << "\n--- source ---\n"
                              << source;
  }
  size_t ptx_size = 0;
  nvrtcGetPTXSize(prog, &ptx_size);
  std::string ptx(ptx_size, '\0');
  nvrtcGetPTX(prog, ptx.data());
  nvrtcDestroyProgram(&prog);
  if (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  return ptx;
#else
  (void)source;
  (void)arch;
  MINITVM_THROW(ValueError) << "target cuda is not available: minitvm was built without the "
                               "CUDA toolkit (NVRTC); reconfigure with CUDA installed";
#endif
}

namespace {

/*! \brief One kernel: its parameter kinds and its launch tags. */
struct KernelInfo {
  std::vector<DataType> param_types;
  std::vector<std::string> tags;
};

/*! \brief The module of kind "cuda": source, PTX and the kernels. */
class CUDAModuleNode : public runtime::ModuleNode {
 public:
  std::string source, ptx, arch;
  std::map<std::string, KernelInfo> kernels;

  std::string kind() const override { return "cuda"; }
  std::vector<std::string> FunctionNames() const override {
    std::vector<std::string> names;
    for (auto& [k, v] : kernels) names.push_back(k);
    return names;
  }
  std::string GetSource(const std::string& format) override {
    if (format == "" || format == "cu" || format == "cuda") return source;
    if (format == "ptx") return ptx;
    MINITVM_THROW(ValueError) << "a cuda module has no source in format \"" << format
                              << "\" (use \"cu\" or \"ptx\")";
  }
  void SaveToFile(const std::string& path, const std::string& format) override {
    std::string fmt = format;
    if (fmt.empty()) fmt = path.substr(path.rfind('.') + 1);
    std::string text = GetSource(fmt == "ptx" ? "ptx" : "cu");
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) MINITVM_THROW(ValueError) << "cannot write " << path;
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  std::optional<PackedFunc> GetFunction(const std::string& name) override {
    auto it = kernels.find(name);
    if (it == kernels.end()) return std::nullopt;
    runtime::Module self = runtime::GetRef<runtime::Module>(this);
    return PackedFunc(
        [self, this, name](PackedArgs args, Any*) {
          const KernelInfo& k = kernels.at(name);
          size_t n = k.param_types.size();
          if (static_cast<size_t>(args.size()) != n + k.tags.size()) {
            MINITVM_THROW(TypeError)
                << "cuda kernel " << name << ": expected " << n << " arguments and "
                << k.tags.size() << " launch extents, got " << args.size();
          }
          KernelLaunch l;
          l.kernel = name;
          for (size_t i = 0; i < n; ++i) {
            HostValue v;
            const Any& a = args[static_cast<int>(i)];
            if (k.param_types[i].is_handle()) {
              v.is_handle = true;
              if (auto* arr = a.as<runtime::NDArrayNode>()) {
                v.ptr = static_cast<char*>(arr->data) + arr->byte_offset;
              } else {
                v.ptr = reinterpret_cast<void*>(a.raw_int());
              }
            } else if (k.param_types[i].is_float()) {
              v.is_float = true;
              v.f = a.is_float() ? a.raw_float() : static_cast<double>(a.raw_int());
            } else {
              v.i = a.raw_int();
            }
            l.args.push_back(v);
          }
          for (size_t t = 0; t < k.tags.size(); ++t) {
            int axis = k.tags[t].back() - 'x';
            (k.tags[t].rfind("blockIdx", 0) == 0 ? l.grid : l.block)[axis] =
                args[static_cast<int>(n + t)].raw_int();
          }
          Launch(l, 0);
        },
        name);
  }

  /*! \brief Launch on device `dev_id` through the driver. */
  void Launch(const KernelLaunch& l, int dev_id) {
    using namespace runtime_cuda;  // NOLINT
    const DriverAPI& api = Driver();
    SetDevice(dev_id);
    CUfunction fn = GetKernel(l.kernel);
    const KernelInfo& k = kernels.at(l.kernel);
    std::vector<unsigned long long> storage(l.args.size());
    std::vector<void*> ptrs(l.args.size());
    for (size_t i = 0; i < l.args.size(); ++i) {
      const HostValue& v = l.args[i];
      DataType t = k.param_types[i];
      void* slot = &storage[i];
      if (v.is_handle) {
        *static_cast<void**>(slot) = v.ptr;
      } else if (t.is_float() && t.bits() == 32) {
        *static_cast<float*>(slot) = static_cast<float>(v.is_float ? v.f : v.i);
      } else if (t.is_float()) {
        *static_cast<double*>(slot) = v.is_float ? v.f : v.i;
      } else if (t.bits() == 64) {
        *static_cast<long long*>(slot) = v.i;
      } else {
        *static_cast<int*>(slot) = static_cast<int>(v.i);
      }
      ptrs[i] = slot;
    }
    Check(api.cuLaunchKernel(fn, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
                             l.block[2], 0, nullptr, ptrs.data(), nullptr),
          ("cuLaunchKernel of " + l.kernel).c_str());
  }

 private:
  runtime_cuda::CUfunction GetKernel(const std::string& name) {
    using namespace runtime_cuda;  // NOLINT
    std::lock_guard<std::mutex> lock(mutex_);
    if (!module_) Check(Driver().cuModuleLoadData(&module_, ptx.c_str()), "cuModuleLoadData");
    auto it = functions_.find(name);
    if (it != functions_.end()) return it->second;
    CUfunction fn;
    Check(Driver().cuModuleGetFunction(&fn, module_, name.c_str()), "cuModuleGetFunction");
    functions_[name] = fn;
    return fn;
  }
  std::mutex mutex_;
  runtime_cuda::CUmodule module_ = nullptr;
  std::map<std::string, runtime_cuda::CUfunction> functions_;
};

/*! \brief The module of kind "cuda_host": the host functions of a CUDA build. */
class CUDAHostModuleNode : public runtime::ModuleNode {
 public:
  IRModule lowered;
  std::map<std::string, tir::PrimFunc> hosts;
  std::map<std::string, std::vector<std::string>> tags;

  std::string kind() const override { return "cuda_host"; }
  std::vector<std::string> FunctionNames() const override {
    std::vector<std::string> names;
    for (auto& [k, v] : hosts) names.push_back(k);
    return names;
  }
  std::string GetSource(const std::string& format) override {
    if (format == "" || format == "tir") return runtime::Repr(lowered);
    MINITVM_THROW(ValueError) << "a cuda_host module has no source in format \"" << format
                              << "\" (use \"tir\"; the kernels are in imported_modules[0])";
  }
  std::optional<PackedFunc> GetFunction(const std::string& name) override {
    auto it = hosts.find(name);
    if (it == hosts.end()) return std::nullopt;
    runtime::Module self = runtime::GetRef<runtime::Module>(this);
    tir::PrimFunc host = it->second;
    return PackedFunc(
        [self, this, host, name](PackedArgs args, Any*) {
          auto* cuda = static_cast<CUDAModuleNode*>(imports.at(0).mutable_node());
          // The device of the first array argument (all must agree; the walker checks).
          runtime::Device dev{kDLCUDA, 0};
          for (int i = 0; i < args.size(); ++i) {
            if (auto* arr = args[i].as<runtime::NDArrayNode>()) {
              dev = arr->device;
              break;
            }
          }
          if (dev.device_type != kDLCUDA) {
            MINITVM_THROW(ValueError) << name << ": the arguments are on " << dev
                                      << "; CUDA kernels need arrays on tvm.cuda() (to run the "
                                         "kernels here without a GPU, use minitvm.gpu_check.check)";
          }
          runtime_cuda::Driver();
          HostCallbacks cb;
          cb.launch = [&](const KernelLaunch& l) { cuda->Launch(l, dev.device_id); };
          cb.alloc = [&](const std::string&, int64_t nbytes) {
            return runtime::DeviceAPI::Get(dev)->Alloc(dev, nbytes, runtime::kAllocAlignment);
          };
          cb.free = [&](void* p) { runtime::DeviceAPI::Get(dev)->Free(dev, p); };
          RunHostFunction(host, name, args, dev, tags, cb);
        },
        name);
  }
};

}  // namespace

runtime::Module BuildCUDA(const IRModule& mod, const target::Target& target) {
  // Check against the actual target's limits (the pipeline used the defaults).
  tir::GPULimits limits = tir::GPULimits::FromTarget(target);
  auto cuda = runtime::make_object<CUDAModuleNode>();
  auto host = runtime::make_object<CUDAHostModuleNode>();
  host->lowered = mod;
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    auto* f = mod->Lookup(gv).as<tir::PrimFuncNode>();
    if (!f) continue;
    tir::PrimFunc func = runtime::GetRef<tir::PrimFunc>(f);
    std::string name = f->GetAttr<std::string>("global_symbol").value_or(gv->name_hint.str());
    if (f->GetAttr<int64_t>("calling_conv").value_or(0) == tir::kDeviceKernelLaunch) {
      std::vector<std::string> errors = tir::VerifyGPUCodeErrors(func, limits);
      if (!errors.empty()) {
        std::ostringstream os;
        for (const std::string& e : errors) os << "\n  - " << e;
        MINITVM_THROW(ValueError) << "VerifyGPUCode: kernel " << name << " does not fit target "
                                  << target.str() << ":" << os.str();
      }
      KernelInfo info;
      for (const tir::Var& p : f->params) info.param_types.push_back(p.dtype());
      if (auto t = f->GetAttr<Array<String>>(tir::kKernelLaunchParams)) {
        for (const String& s : *t) info.tags.push_back(s.str());
      }
      host->tags[name] = info.tags;
      cuda->kernels[name] = info;
    } else {
      bool has_launch = false;
      tir::PostOrderVisit(f->body, [&](const ObjectRef& n) {
        auto* c = n.as<tir::CallNode>();
        has_launch = has_launch || (c && c->op == tir::kCallPackedOp);
      });
      if (!has_launch && !tir::VerifyGPUCodeErrors(func, limits).empty()) continue;
      if (!has_launch) {
        MINITVM_THROW(ValueError)
            << "build for cuda: function " << name
            << " launches no kernel: bind its loops to blockIdx/threadIdx (sch.bind) or run the "
               "CUDA TIR pipeline (the build's pipeline=\"default\") first";
      }
      host->hosts[name] = func;
    }
  }
  std::string arch = target->GetAttr<std::string>("arch").value_or("sm_80");
  cuda->arch = arch;
  cuda->source = CodeGenCUDA(mod, target);
  cuda->ptx = NVRTCCompile(cuda->source, arch);
  std::string entry =
      host->hosts.count("main") || host->hosts.empty() ? "main" : host->hosts.begin()->first;
  host->entry_name = entry;
  runtime::Module result(std::move(host));
  result.Import(runtime::Module(std::move(cuda)));
  return result;
}

MINITVM_REGISTER_GLOBAL("target.build.cuda").set_body_typed([](IRModule mod, target::Target t) {
  return BuildCUDA(mod, t);
});
MINITVM_REGISTER_GLOBAL("codegen.CodeGenCUDA").set_body_typed([](IRModule mod, Any target) {
  target::Target t = target.is_null()     ? target::Target("cuda")
                     : target.is_string() ? target::Target(target.cast<std::string>())
                                          : target.cast<target::Target>();
  return CodeGenCUDA(mod, t);
});
MINITVM_REGISTER_GLOBAL("codegen.NVRTCCompile").set_body_typed(NVRTCCompile);
MINITVM_REGISTER_GLOBAL("codegen.NVRTCAvailable").set_body_typed(NVRTCAvailable);

}  // namespace codegen
}  // namespace minitvm

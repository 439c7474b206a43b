/*!
 * \file tag.cc
 * \brief The target tag registry and its built-in tags (TVM v0.20's CUDA device table and the
 * Apple GPU tags) (stage 2).
 */
#include "minitvm/target/tag.h"

#include <map>
#include <mutex>

#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace target {

namespace {

/*! \brief One CUDA device of the table: its compute capability and per-block limits. */
struct CudaDevice {
  const char* name;
  const char* arch;
  int64_t shared_memory_per_block;
  int64_t registers_per_block;
};

// The device names and figures are TVM v0.20's (src/target/tag.cc), which take them from
// NVIDIA's CUDA GPU list and the compute-capability tables.
const CudaDevice kCudaDevices[] = {
    {"nvidia/geforce-410m", "sm_21", 49152, 32768},
    {"nvidia/geforce-610m", "sm_21", 49152, 32768},
    {"nvidia/geforce-705m", "sm_21", 49152, 32768},
    {"nvidia/geforce-710m", "sm_21", 49152, 32768},
    {"nvidia/geforce-800m", "sm_21", 49152, 32768},
    {"nvidia/geforce-820m", "sm_21", 49152, 32768},
    {"nvidia/geforce-830m", "sm_50", 49152, 65536},
    {"nvidia/geforce-840m", "sm_50", 49152, 65536},
    {"nvidia/geforce-910m", "sm_52", 49152, 65536},
    {"nvidia/geforce-920m", "sm_35", 49152, 65536},
    {"nvidia/geforce-930m", "sm_50", 49152, 65536},
    {"nvidia/geforce-940m", "sm_50", 49152, 65536},
    {"nvidia/geforce-gt-415m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-420m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-430", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-435m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-440", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-445m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-520", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-520m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-520mx", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-525m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-540m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-550m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-555m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-610", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-620", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-620m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-625m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-630", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-630m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-635m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-640-gddr3", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-640-gddr5", "sm_35", 49152, 65536},
    {"nvidia/geforce-gt-640m", "sm_30", 49152, 65536},
    {"nvidia/geforce-gt-640m-le", "sm_30", 49152, 65536},
    {"nvidia/geforce-gt-645m", "sm_30", 49152, 65536},
    {"nvidia/geforce-gt-650m", "sm_30", 49152, 65536},
    {"nvidia/geforce-gt-705", "sm_35", 49152, 65536},
    {"nvidia/geforce-gt-720", "sm_35", 49152, 65536},
    {"nvidia/geforce-gt-720m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-730", "sm_35", 49152, 65536},
    {"nvidia/geforce-gt-730-ddr3,128bit", "sm_21", 49152, 32768},
    {"nvidia/geforce-gt-730m", "sm_30", 49152, 65536},
    {"nvidia/geforce-gt-735m", "sm_30", 49152, 65536},
    {"nvidia/geforce-gt-740", "sm_30", 49152, 65536},
    {"nvidia/geforce-gt-740m", "sm_30", 49152, 65536},
    {"nvidia/geforce-gt-745m", "sm_30", 49152, 65536},
    {"nvidia/geforce-gt-750m", "sm_30", 49152, 65536},
    {"nvidia/geforce-gt-755m", "sm_30", 49152, 65536},
    {"nvidia/geforce-gts-450", "sm_21", 49152, 32768},
    {"nvidia/geforce-gtx-1050", "sm_61", 49152, 65536},
    {"nvidia/geforce-gtx-1060", "sm_61", 49152, 65536},
    {"nvidia/geforce-gtx-1070", "sm_61", 49152, 65536},
    {"nvidia/geforce-gtx-1070-ti", "sm_61", 49152, 65536},
    {"nvidia/geforce-gtx-1080", "sm_61", 49152, 65536},
    {"nvidia/geforce-gtx-1080-ti", "sm_61", 49152, 65536},
    {"nvidia/geforce-gtx-460", "sm_21", 49152, 32768},
    {"nvidia/geforce-gtx-460m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gtx-465", "sm_20", 49152, 32768},
    {"nvidia/geforce-gtx-470", "sm_20", 49152, 32768},
    {"nvidia/geforce-gtx-470m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gtx-480", "sm_20", 49152, 32768},
    {"nvidia/geforce-gtx-480m", "sm_20", 49152, 32768},
    {"nvidia/geforce-gtx-485m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gtx-550-ti", "sm_21", 49152, 32768},
    {"nvidia/geforce-gtx-560-ti", "sm_21", 49152, 32768},
    {"nvidia/geforce-gtx-560m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gtx-570", "sm_20", 49152, 32768},
    {"nvidia/geforce-gtx-570m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gtx-580", "sm_20", 49152, 32768},
    {"nvidia/geforce-gtx-580m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gtx-590", "sm_20", 49152, 32768},
    {"nvidia/geforce-gtx-650", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-650-ti", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-650-ti-boost", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-660", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-660-ti", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-660m", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-670", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-670m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gtx-670mx", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-675m", "sm_21", 49152, 32768},
    {"nvidia/geforce-gtx-675mx", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-680", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-680m", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-680mx", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-690", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-750", "sm_50", 49152, 65536},
    {"nvidia/geforce-gtx-750-ti", "sm_50", 49152, 65536},
    {"nvidia/geforce-gtx-760", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-760m", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-765m", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-770", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-770m", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-780", "sm_35", 49152, 65536},
    {"nvidia/geforce-gtx-780-ti", "sm_35", 49152, 65536},
    {"nvidia/geforce-gtx-780m", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-850m", "sm_50", 49152, 65536},
    {"nvidia/geforce-gtx-860m-sm-30", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-860m-sm-50", "sm_50", 49152, 65536},
    {"nvidia/geforce-gtx-870m", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-880m", "sm_30", 49152, 65536},
    {"nvidia/geforce-gtx-950", "sm_52", 49152, 65536},
    {"nvidia/geforce-gtx-950m", "sm_50", 49152, 65536},
    {"nvidia/geforce-gtx-960", "sm_52", 49152, 65536},
    {"nvidia/geforce-gtx-960m", "sm_50", 49152, 65536},
    {"nvidia/geforce-gtx-965m", "sm_52", 49152, 65536},
    {"nvidia/geforce-gtx-970", "sm_52", 49152, 65536},
    {"nvidia/geforce-gtx-970m", "sm_52", 49152, 65536},
    {"nvidia/geforce-gtx-980", "sm_52", 49152, 65536},
    {"nvidia/geforce-gtx-980-ti", "sm_52", 49152, 65536},
    {"nvidia/geforce-gtx-980m", "sm_52", 49152, 65536},
    {"nvidia/geforce-gtx-titan", "sm_35", 49152, 65536},
    {"nvidia/geforce-gtx-titan-black", "sm_35", 49152, 65536},
    {"nvidia/geforce-gtx-titan-x", "sm_52", 49152, 65536},
    {"nvidia/geforce-gtx-titan-z", "sm_35", 49152, 65536},
    {"nvidia/geforce-rtx-2060", "sm_75", 49152, 65536},
    {"nvidia/geforce-rtx-2070", "sm_75", 49152, 65536},
    {"nvidia/geforce-rtx-2080", "sm_75", 49152, 65536},
    {"nvidia/geforce-rtx-2080-ti", "sm_75", 49152, 65536},
    {"nvidia/geforce-rtx-3060", "sm_86", 49152, 65536},
    {"nvidia/geforce-rtx-3070", "sm_86", 49152, 65536},
    {"nvidia/geforce-rtx-3070-ti", "sm_86", 49152, 65536},
    {"nvidia/geforce-rtx-3080", "sm_86", 49152, 65536},
    {"nvidia/geforce-rtx-3080-ti", "sm_86", 49152, 65536},
    {"nvidia/geforce-rtx-3090", "sm_86", 49152, 65536},
    {"nvidia/geforce-rtx-3090-ti", "sm_86", 49152, 65536},
    {"nvidia/geforce-rtx-4090", "sm_89", 49152, 65536},
    {"nvidia/jetson-nano", "sm_53", 49152, 32768},
    {"nvidia/jetson-tx1", "sm_53", 49152, 32768},
    {"nvidia/jetson-tx2", "sm_62", 49152, 32768},
    {"nvidia/nvidia-a10", "sm_86", 49152, 65536},
    {"nvidia/nvidia-a100", "sm_80", 49152, 65536},
    {"nvidia/nvidia-a10g", "sm_86", 49152, 65536},
    {"nvidia/nvidia-a16", "sm_86", 49152, 65536},
    {"nvidia/nvidia-a2", "sm_86", 49152, 65536},
    {"nvidia/nvidia-a30", "sm_80", 49152, 65536},
    {"nvidia/nvidia-a40", "sm_86", 49152, 65536},
    {"nvidia/nvidia-h100", "sm_90a", 49152, 65536},
    {"nvidia/nvidia-nvs-310", "sm_21", 49152, 32768},
    {"nvidia/nvidia-nvs-315", "sm_21", 49152, 32768},
    {"nvidia/nvidia-nvs-510", "sm_30", 49152, 65536},
    {"nvidia/nvidia-nvs-810", "sm_50", 49152, 65536},
    {"nvidia/nvidia-t4", "sm_75", 49152, 65536},
    {"nvidia/nvidia-titan-rtx", "sm_75", 49152, 65536},
    {"nvidia/nvidia-titan-v", "sm_70", 49152, 65536},
    {"nvidia/nvidia-titan-x", "sm_61", 49152, 65536},
    {"nvidia/nvidia-titan-xp", "sm_61", 49152, 65536},
    {"nvidia/nvidia-v100", "sm_70", 49152, 65536},
    {"nvidia/nvs-4200m", "sm_21", 49152, 32768},
    {"nvidia/nvs-5200m", "sm_21", 49152, 32768},
    {"nvidia/nvs-5400m", "sm_21", 49152, 32768},
    {"nvidia/p520", "sm_61", 49152, 65536},
    {"nvidia/p620", "sm_61", 49152, 65536},
    {"nvidia/quadro-410", "sm_30", 49152, 65536},
    {"nvidia/quadro-gp100", "sm_60", 49152, 65536},
    {"nvidia/quadro-gv100", "sm_70", 49152, 65536},
    {"nvidia/quadro-k1100m", "sm_30", 49152, 65536},
    {"nvidia/quadro-k1200", "sm_50", 49152, 65536},
    {"nvidia/quadro-k2000", "sm_30", 49152, 65536},
    {"nvidia/quadro-k2000d", "sm_30", 49152, 65536},
    {"nvidia/quadro-k2100m", "sm_30", 49152, 65536},
    {"nvidia/quadro-k2200", "sm_50", 49152, 65536},
    {"nvidia/quadro-k2200m", "sm_30", 49152, 65536},
    {"nvidia/quadro-k3100m", "sm_30", 49152, 65536},
    {"nvidia/quadro-k4000", "sm_30", 49152, 65536},
    {"nvidia/quadro-k4100m", "sm_30", 49152, 65536},
    {"nvidia/quadro-k420", "sm_30", 49152, 65536},
    {"nvidia/quadro-k4200", "sm_30", 49152, 65536},
    {"nvidia/quadro-k4200m", "sm_30", 49152, 65536},
    {"nvidia/quadro-k5000", "sm_30", 49152, 65536},
    {"nvidia/quadro-k500m", "sm_30", 49152, 65536},
    {"nvidia/quadro-k5100m", "sm_30", 49152, 65536},
    {"nvidia/quadro-k510m", "sm_35", 49152, 65536},
    {"nvidia/quadro-k5200", "sm_35", 49152, 65536},
    {"nvidia/quadro-k5200m", "sm_30", 49152, 65536},
    {"nvidia/quadro-k600", "sm_30", 49152, 65536},
    {"nvidia/quadro-k6000", "sm_35", 49152, 65536},
    {"nvidia/quadro-k6000m", "sm_30", 49152, 65536},
    {"nvidia/quadro-k610m", "sm_35", 49152, 65536},
    {"nvidia/quadro-k620", "sm_50", 49152, 65536},
    {"nvidia/quadro-k620m", "sm_50", 49152, 65536},
    {"nvidia/quadro-m1000m", "sm_50", 49152, 65536},
    {"nvidia/quadro-m1200", "sm_50", 49152, 65536},
    {"nvidia/quadro-m2000", "sm_52", 49152, 65536},
    {"nvidia/quadro-m2000m", "sm_50", 49152, 65536},
    {"nvidia/quadro-m2200", "sm_52", 49152, 65536},
    {"nvidia/quadro-m3000m", "sm_50", 49152, 65536},
    {"nvidia/quadro-m4000", "sm_52", 49152, 65536},
    {"nvidia/quadro-m4000m", "sm_50", 49152, 65536},
    {"nvidia/quadro-m5000", "sm_52", 49152, 65536},
    {"nvidia/quadro-m5000m", "sm_50", 49152, 65536},
    {"nvidia/quadro-m500m", "sm_50", 49152, 65536},
    {"nvidia/quadro-m520", "sm_50", 49152, 65536},
    {"nvidia/quadro-m5500m", "sm_52", 49152, 65536},
    {"nvidia/quadro-m6000", "sm_52", 49152, 65536},
    {"nvidia/quadro-m6000-24gb", "sm_52", 49152, 65536},
    {"nvidia/quadro-m600m", "sm_50", 49152, 65536},
    {"nvidia/quadro-m620", "sm_52", 49152, 65536},
    {"nvidia/quadro-p1000", "sm_61", 49152, 65536},
    {"nvidia/quadro-p2000", "sm_61", 49152, 65536},
    {"nvidia/quadro-p2200", "sm_61", 49152, 65536},
    {"nvidia/quadro-p3000", "sm_61", 49152, 65536},
    {"nvidia/quadro-p3200", "sm_61", 49152, 65536},
    {"nvidia/quadro-p400", "sm_61", 49152, 65536},
    {"nvidia/quadro-p4000", "sm_61", 49152, 65536},
    {"nvidia/quadro-p4200", "sm_61", 49152, 65536},
    {"nvidia/quadro-p500", "sm_61", 49152, 65536},
    {"nvidia/quadro-p5000", "sm_61", 49152, 65536},
    {"nvidia/quadro-p5200", "sm_61", 49152, 65536},
    {"nvidia/quadro-p600", "sm_61", 49152, 65536},
    {"nvidia/quadro-p6000", "sm_61", 49152, 65536},
    {"nvidia/quadro-p620", "sm_61", 49152, 65536},
    {"nvidia/quadro-plex-7000", "sm_20", 49152, 32768},
    {"nvidia/quadro-rtx-4000", "sm_75", 49152, 65536},
    {"nvidia/quadro-rtx-5000", "sm_75", 49152, 65536},
    {"nvidia/quadro-rtx-6000", "sm_75", 49152, 65536},
    {"nvidia/quadro-rtx-8000", "sm_75", 49152, 65536},
    {"nvidia/rtx-3000", "sm_75", 49152, 65536},
    {"nvidia/rtx-4000", "sm_75", 49152, 65536},
    {"nvidia/rtx-5000", "sm_75", 49152, 65536},
    {"nvidia/rtx-a6000", "sm_86", 49152, 65536},
    {"nvidia/t1000", "sm_75", 49152, 65536},
    {"nvidia/t2000", "sm_75", 49152, 65536},
    {"nvidia/tegra-x1", "sm_53", 49152, 32768},
    {"nvidia/tesla-c2050", "sm_20", 49152, 32768},
    {"nvidia/tesla-c2070", "sm_20", 49152, 32768},
    {"nvidia/tesla-c2075", "sm_20", 49152, 32768},
    {"nvidia/tesla-k10", "sm_30", 49152, 65536},
    {"nvidia/tesla-k20", "sm_35", 49152, 65536},
    {"nvidia/tesla-k40", "sm_35", 49152, 65536},
    {"nvidia/tesla-k80", "sm_37", 49152, 65536},
    {"nvidia/tesla-m40", "sm_52", 49152, 65536},
    {"nvidia/tesla-m60", "sm_52", 49152, 65536},
    {"nvidia/tesla-p100", "sm_60", 49152, 65536},
    {"nvidia/tesla-p4", "sm_61", 49152, 65536},
    {"nvidia/tesla-p40", "sm_61", 49152, 65536},
};

/*! \brief Apple GPUs: threads per block, shared memory per block, SIMD-group width. */
struct MetalDevice {
  const char* name;
  int64_t threads_per_block;
  int64_t shared_memory_per_block;
  int64_t warp_size;
};

const MetalDevice kMetalDevices[] = {
    {"apple/m1-gpu", 1024, 32768, 32},
    {"apple/m1-gpu-restricted", 256, 32768, 32},
    {"apple/m2-gpu", 1024, 32768, 32},
};

Map<String, Any> CudaConfig(const CudaDevice& d) {
  Map<String, Any> m;
  m.Set(String("kind"), String("cuda"));
  m.Set(String("arch"), String(d.arch));
  m.Set(String("max_shared_memory_per_block"), d.shared_memory_per_block);
  m.Set(String("max_threads_per_block"), int64_t(1024));
  m.Set(String("thread_warp_size"), int64_t(32));
  m.Set(String("registers_per_block"), d.registers_per_block);
  return m;
}

Map<String, Any> MetalConfig(const MetalDevice& d) {
  Map<String, Any> host;
  host.Set(String("kind"), String("llvm"));
  host.Set(String("mtriple"), String("arm64-apple-macos"));
  host.Set(String("mcpu"), String("apple-latest"));
  Map<String, Any> m;
  m.Set(String("kind"), String("metal"));
  m.Set(String("max_threads_per_block"), d.threads_per_block);
  m.Set(String("max_shared_memory_per_block"), d.shared_memory_per_block);
  m.Set(String("thread_warp_size"), d.warp_size);
  m.Set(String("host"), host);
  return m;
}

struct Registry {
  std::mutex mutex;
  std::map<std::string, Map<String, Any>> tags;
};

Registry& GetRegistry() {
  static Registry* registry = [] {
    auto* r = new Registry();
    for (const CudaDevice& d : kCudaDevices) r->tags[d.name] = CudaConfig(d);
    for (const MetalDevice& d : kMetalDevices) r->tags[d.name] = MetalConfig(d);
    return r;
  }();
  return *registry;
}

}  // namespace

std::optional<Map<String, Any>> TargetTag::Get(const std::string& name) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.tags.find(name);
  if (it == r.tags.end()) return std::nullopt;
  return it->second;
}

Map<String, Target> TargetTag::ListTags() {
  std::map<std::string, Map<String, Any>> copy;
  {
    Registry& r = GetRegistry();
    std::lock_guard<std::mutex> lock(r.mutex);
    copy = r.tags;
  }
  Map<String, Target> out;
  for (const auto& [name, config] : copy) out.Set(String(name), Target(name));
  return out;
}

Target TargetTag::AddTag(const std::string& name, const Map<String, Any>& config, bool override) {
  Target made = Target::FromMap(config);  // validate before registering
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!override && r.tags.count(name)) {
    MINITVM_THROW(ValueError) << "target tag \"" << name
                              << "\" is already defined (pass override=True to replace it)";
  }
  r.tags[name] = config;
  return made;
}

MINITVM_REGISTER_GLOBAL("target.TargetTagListTags").set_body_typed([]() {
  return TargetTag::ListTags();
});
MINITVM_REGISTER_GLOBAL("target.TargetTagAddTag")
    .set_body_typed([](std::string name, Map<String, Any> config, bool override) {
      return TargetTag::AddTag(name, config, override);
    });

}  // namespace target
}  // namespace minitvm

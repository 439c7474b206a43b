/*!
 * \file target.cc
 * \brief Target kinds with their attribute schemas, parsing of target strings and maps, and
 * the derived properties (vector width) (stage 2).
 */
#include "minitvm/target/target.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <sstream>

#include "minitvm/runtime/registry.h"
#include "minitvm/target/tag.h"

namespace minitvm {
namespace target {

namespace {

enum class AttrType { kStr, kInt, kBool, kList };

/*! \brief One kind and the attributes it accepts, with defaults. */
struct KindInfo {
  TargetKind kind;
  std::vector<std::pair<std::string, AttrType>> schema;
  std::vector<std::pair<std::string, Any>> defaults;
};

std::vector<std::pair<std::string, AttrType>> CpuSchema() {
  return {{"mcpu", AttrType::kStr},
          {"mtriple", AttrType::kStr},
          {"mattr", AttrType::kList},
          {"mabi", AttrType::kStr},
          {"num-cores", AttrType::kInt},
          {"opt-level", AttrType::kInt},
          {"vector-width", AttrType::kInt},
          {"libs", AttrType::kList},
          {"model", AttrType::kStr},
          {"tag", AttrType::kStr},
          {"fast-math", AttrType::kBool},
          {"link-params", AttrType::kBool},
          {"device", AttrType::kStr},
          {"num-vector-registers", AttrType::kInt},
          {"l1d-cache-size-bytes", AttrType::kInt},
          {"l2-cache-size-bytes", AttrType::kInt}};
}

const std::map<std::string, KindInfo>& Kinds() {
  static const std::map<std::string, KindInfo> kinds = [] {
    std::map<std::string, KindInfo> m;
    auto make = [&](const std::string& name, int device_type, Array<String> keys,
                    std::vector<std::pair<std::string, AttrType>> schema,
                    std::vector<std::pair<std::string, Any>> defaults) {
      auto n = runtime::make_object<TargetKindNode>();
      n->name = name;
      n->device_type = device_type;
      n->default_keys = keys;
      m[name] = KindInfo{TargetKind(runtime::ObjectPtr<Object>(std::move(n))), std::move(schema),
                         std::move(defaults)};
    };
    make("llvm", kDLCPU, {"cpu"}, CpuSchema(), {});
    make("c", kDLCPU, {"cpu"}, CpuSchema(), {});
    auto ref_schema = CpuSchema();
    ref_schema.emplace_back("check-uninitialized", AttrType::kBool);
    make("ref", kDLCPU, {"cpu"}, ref_schema, {});
    make("cuda", kDLCUDA, {"cuda", "gpu"},
         {{"arch", AttrType::kStr},
          {"mcpu", AttrType::kStr},
          {"max_num_threads", AttrType::kInt},
          {"max_threads_per_block", AttrType::kInt},
          {"thread_warp_size", AttrType::kInt},
          {"max_shared_memory_per_block", AttrType::kInt},
          {"registers_per_block", AttrType::kInt},
          {"libs", AttrType::kList},
          {"model", AttrType::kStr},
          {"tag", AttrType::kStr}},
         {{"arch", String("sm_80")},
          {"max_num_threads", int64_t(1024)},
          {"max_threads_per_block", int64_t(1024)},
          {"thread_warp_size", int64_t(32)},
          {"max_shared_memory_per_block", int64_t(49152)}});
    // GPU kinds minitvm has no code generator for: the targets exist (course code names them,
    // schedules read their limits), and building for them says there is no builder. The
    // defaults are TVM v0.20's.
    auto gpu_schema = [](std::vector<std::pair<std::string, AttrType>> extra) {
      std::vector<std::pair<std::string, AttrType>> s = {
          {"max_num_threads", AttrType::kInt},
          {"max_threads_per_block", AttrType::kInt},
          {"thread_warp_size", AttrType::kInt},
          {"max_shared_memory_per_block", AttrType::kInt},
          {"max_function_args", AttrType::kInt},
          {"libs", AttrType::kList},
          {"model", AttrType::kStr},
          {"tag", AttrType::kStr}};
      s.insert(s.end(), extra.begin(), extra.end());
      return s;
    };
    make("metal", /*kDLMetal=*/8, {"metal", "gpu"}, gpu_schema({}),
         {{"max_num_threads", int64_t(256)},
          {"max_threads_per_block", int64_t(256)},
          {"thread_warp_size", int64_t(16)},
          {"max_shared_memory_per_block", int64_t(32768)},
          {"max_function_args", int64_t(31)}});
    make("rocm", /*kDLROCM=*/10, {"rocm", "gpu"},
         gpu_schema(
             {{"mcpu", AttrType::kStr}, {"mtriple", AttrType::kStr}, {"mattr", AttrType::kList}}),
         {{"mtriple", String("amdgcn-amd-amdhsa-hcc")},
          {"max_num_threads", int64_t(256)},
          {"max_threads_per_block", int64_t(256)},
          {"thread_warp_size", int64_t(64)},
          {"max_shared_memory_per_block", int64_t(65536)}});
    make("vulkan", /*kDLVulkan=*/7, {"vulkan", "gpu"},
         gpu_schema({{"supports_float16", AttrType::kBool},
                     {"supports_int8", AttrType::kBool},
                     {"supports_int64", AttrType::kBool}}),
         {{"max_num_threads", int64_t(256)},
          {"max_threads_per_block", int64_t(256)},
          {"thread_warp_size", int64_t(1)},
          {"max_shared_memory_per_block", int64_t(32768)}});
    make("opencl", /*kDLOpenCL=*/4, {"opencl", "gpu"}, gpu_schema({}),
         {{"max_num_threads", int64_t(256)},
          {"max_threads_per_block", int64_t(256)},
          {"thread_warp_size", int64_t(1)},
          {"max_shared_memory_per_block", int64_t(16384)}});
    return m;
  }();
  return kinds;
}

const KindInfo& GetKindInfo(const std::string& name) {
  auto it = Kinds().find(name);
  if (it == Kinds().end()) {
    std::ostringstream os;
    for (const auto& [k, info] : Kinds()) os << (os.tellp() ? ", " : "") << k;
    MINITVM_THROW(ValueError) << "unknown target kind \"" << name << "\" (known: " << os.str()
                              << "; target tags such as \"nvidia/tesla-p100\" are listed by "
                                 "tvm.target.list_tags())";
  }
  return it->second;
}

Array<String> SplitList(const std::string& text) {
  Array<String> out;
  std::string item;
  std::istringstream is(text);
  while (std::getline(is, item, ',')) {
    if (!item.empty()) out.push_back(String(item));
  }
  return out;
}

/*! \brief Convert a textual or FFI value to the attribute's type. */
Any ConvertAttr(const std::string& kind, const std::string& key, AttrType type, const Any& v) {
  auto bad = [&](const std::string& want) {
    MINITVM_THROW(ValueError) << "target " << kind << ": attribute -" << key << " expects " << want
                              << " but got " << v.ToString();
  };
  switch (type) {
    case AttrType::kStr:
      if (!v.is_string()) bad("a string");
      return v;
    case AttrType::kInt:
      if (v.is_int()) return v;
      if (v.is_string()) {
        const std::string& s = v.cast<std::string>();
        try {
          size_t pos = 0;
          int64_t x = std::stoll(s, &pos);
          if (pos == s.size()) return Any(x);
        } catch (const std::exception&) {
        }
      }
      bad("an integer");
      return Any();
    case AttrType::kBool:
      if (v.is_bool()) return v;
      if (v.is_int()) return Any(v.raw_int() != 0);
      if (v.is_string()) {
        const std::string& s = v.cast<std::string>();
        if (s == "true" || s == "1" || s.empty()) return Any(true);
        if (s == "false" || s == "0") return Any(false);
      }
      bad("true or false");
      return Any();
    case AttrType::kList:
      if (v.is_string()) return SplitList(v.cast<std::string>());
      if (v.as<runtime::ArrayNode>()) return v;
      bad("a comma-separated list");
      return Any();
  }
  return v;
}

/*! \brief Resolve -mcpu=native through the stage 5 hook when it is registered. */
void ResolveNative(TargetNode* n) {
  auto mcpu = n->GetAttr<std::string>("mcpu");
  if (!mcpu || *mcpu != "native") return;
  if (auto f = runtime::Registry::Get("target.llvm.ResolveHostCPU")) {
    std::string cpu = (*f)().cast<std::string>();
    if (!cpu.empty()) n->attrs.Set(String("mcpu"), Any(cpu));
  }
}

Target Finish(runtime::ObjectPtr<TargetNode> n) {
  ResolveNative(n.get());
  return Target(runtime::ObjectPtr<Object>(std::move(n)));
}

runtime::ObjectPtr<TargetNode> NewTarget(const std::string& kind) {
  const KindInfo& info = GetKindInfo(kind);
  auto n = runtime::make_object<TargetNode>();
  n->kind = info.kind;
  n->keys = info.kind->default_keys;
  for (const auto& [k, v] : info.defaults) n->attrs.Set(String(k), v);
  return n;
}

void SetAttr(TargetNode* n, const std::string& key, const Any& value) {
  const std::string kind = n->kind->name.str();
  if (key == "keys") {
    Array<String> keys =
        value.is_string() ? SplitList(value.cast<std::string>()) : value.cast<Array<String>>();
    for (const String& k : n->kind->default_keys) {
      bool found = false;
      for (const String& x : keys) found = found || x == k;
      if (!found) keys.push_back(k);
    }
    n->keys = keys;
    return;
  }
  const KindInfo& info = GetKindInfo(kind);
  for (const auto& [name, type] : info.schema) {
    if (name == key) {
      n->attrs.Set(String(key), ConvertAttr(kind, key, type, value));
      return;
    }
  }
  std::ostringstream os;
  for (const auto& [name, type] : info.schema) os << (os.tellp() ? ", " : "") << "-" << name;
  MINITVM_THROW(ValueError) << "target " << kind << " has no attribute -" << key
                            << " (it has: -keys, " << os.str() << ")";
}

std::string AttrToString(const Any& v) {
  if (auto* arr = v.as<runtime::ArrayNode>()) {
    std::ostringstream os;
    for (size_t i = 0; i < arr->data.size(); ++i) {
      os << (i ? "," : "")
         << (arr->data[i].is_string() ? arr->data[i].cast<std::string>() : arr->data[i].ToString());
    }
    return os.str();
  }
  if (v.is_string()) return v.cast<std::string>();
  if (v.is_bool()) return v.raw_int() ? "true" : "false";
  return v.ToString();
}

bool IsAvx512Cpu(const std::string& cpu) {
  static const char* names[] = {"znver4",
                                "znver5",
                                "skylake-avx512",
                                "cascadelake",
                                "cooperlake",
                                "cannonlake",
                                "icelake-client",
                                "icelake-server",
                                "tigerlake",
                                "sapphirerapids",
                                "graniterapids",
                                "emeraldrapids",
                                "rocketlake",
                                "x86-64-v4",
                                "knl",
                                "knm"};
  return std::find(std::begin(names), std::end(names), cpu) != std::end(names);
}
bool IsAvx2Cpu(const std::string& cpu) {
  static const char* names[] = {"haswell",    "broadwell",  "skylake", "alderlake",
                                "raptorlake", "meteorlake", "znver1",  "znver2",
                                "znver3",     "x86-64-v3",  "bdver4",  "core-avx2"};
  return std::find(std::begin(names), std::end(names), cpu) != std::end(names);
}

}  // namespace

TargetKind TargetKind::Get(const std::string& name) { return GetKindInfo(name).kind; }

std::vector<std::string> TargetKind::ListNames() {
  std::vector<std::string> names;
  for (const auto& [k, info] : Kinds()) names.push_back(k);
  return names;
}

Target::Target(const std::string& spec) {
  std::istringstream is(spec);
  std::string token;
  std::vector<std::string> tokens;
  while (is >> token) tokens.push_back(token);
  if (tokens.empty()) MINITVM_THROW(ValueError) << "Target: empty target string";
  runtime::ObjectPtr<TargetNode> n;
  if (auto config = TargetTag::Get(tokens[0])) {
    // A tag ("nvidia/tesla-p100"): its configuration, then the attributes after it on top.
    n = runtime::make_object<TargetNode>(*Target::FromMap(*config).get());
    SetAttr(n.get(), "tag", Any(tokens[0]));
  } else {
    n = NewTarget(tokens[0]);
  }
  for (size_t i = 1; i < tokens.size(); ++i) {
    std::string t = tokens[i];
    if (t.rfind("--", 0) == 0) {
      t = t.substr(2);
    } else if (t.rfind("-", 0) == 0) {
      t = t.substr(1);
    } else {
      MINITVM_THROW(ValueError) << "Target \"" << spec << "\": expected -attr=value but got \""
                                << tokens[i] << "\"";
    }
    size_t eq = t.find('=');
    std::string key = t.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : t.substr(eq + 1);
    if (key.empty()) MINITVM_THROW(ValueError) << "Target \"" << spec << "\": empty attribute";
    if (eq == std::string::npos) {
      // A flag: only boolean attributes may omit the value.
      SetAttr(n.get(), key, Any(std::string("true")));
    } else {
      SetAttr(n.get(), key, Any(value));
    }
  }
  data_ = Finish(std::move(n)).data_;
}

Target::Target(const Target& target, const Target& host) {
  auto n = runtime::make_object<TargetNode>(*target.get());
  n->host = host;
  data_ = std::move(n);
}

Target Target::FromMap(const Map<String, Any>& config) {
  auto kind = config.Get(String("kind"));
  if (!kind || !kind->is_string()) {
    MINITVM_THROW(ValueError) << "Target: a target map needs a string \"kind\"";
  }
  auto n = NewTarget(kind->cast<std::string>());
  for (const auto& [key, value] : config.items()) {
    if (key == "kind") continue;
    if (key == "host") {
      if (value.is_string()) {
        n->host = Target(value.cast<std::string>());
      } else if (auto* t = value.as<TargetNode>()) {
        n->host = runtime::GetRef<Target>(t);
      } else {
        n->host = Target::FromMap(value.cast<Map<String, Any>>());
      }
      continue;
    }
    SetAttr(n.get(), key.str(), value);
  }
  return Finish(std::move(n));
}

std::string TargetNode::str() const {
  std::ostringstream os;
  os << kind->name.str();
  if (!keys.empty()) {
    os << " -keys=";
    for (size_t i = 0; i < keys.size(); ++i) os << (i ? "," : "") << keys[i].str();
  }
  for (const auto& [k, v] : attrs.items()) os << " -" << k.str() << "=" << AttrToString(v);
  return os.str();
}

int64_t TargetNode::VectorWidthBits() const {
  if (auto w = GetAttr<int64_t>("vector-width")) return *w;
  if (auto mattr = attrs.Get(String("mattr"))) {
    auto list = mattr->cast<Array<String>>();
    for (const String& a : list) {
      if (a.str() == "+avx512f") return 512;
    }
    for (const String& a : list) {
      if (a.str() == "+avx2" || a.str() == "+avx") return 256;
    }
  }
  std::string cpu = GetAttr<std::string>("mcpu").value_or("");
  if (IsAvx512Cpu(cpu)) return 512;
  if (IsAvx2Cpu(cpu)) return 256;
  if (cpu == "native") {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (__builtin_cpu_supports("avx512f")) return 512;
    if (__builtin_cpu_supports("avx2")) return 256;
#endif
  }
  return 128;
}

MINITVM_REGISTER_GLOBAL("target.Target").set_body([](runtime::PackedArgs args, Any* rv) {
  if (args.size() < 1 || args.size() > 2) {
    MINITVM_THROW(TypeError) << "target.Target: expects (target[, host])";
  }
  auto make = [](const Any& a) -> Target {
    if (a.is_string()) return Target(a.cast<std::string>());
    if (auto* t = a.as<TargetNode>()) return runtime::GetRef<Target>(t);
    if (a.as<runtime::MapNode>()) return Target::FromMap(a.cast<Map<String, Any>>());
    MINITVM_THROW(TypeError) << "Target: expected a string, a dict or a Target but got "
                             << a.type_name();
  };
  Target t = make(args[0]);
  if (args.size() == 2 && !args[1].is_null()) t = Target(t, make(args[1]));
  *rv = t;
});
MINITVM_REGISTER_GLOBAL("target.TargetStr").set_body_typed([](Target t) { return t.str(); });
MINITVM_REGISTER_GLOBAL("target.TargetVectorWidthBits").set_body_typed([](Target t) {
  return t->VectorWidthBits();
});
MINITVM_REGISTER_GLOBAL("target.TargetKindGet").set_body_typed([](std::string name) {
  return TargetKind::Get(name);
});
MINITVM_REGISTER_GLOBAL("target.ListTargetKinds").set_body_typed([]() {
  Array<String> names;
  for (const std::string& n : TargetKind::ListNames()) names.push_back(String(n));
  return names;
});

}  // namespace target
}  // namespace minitvm

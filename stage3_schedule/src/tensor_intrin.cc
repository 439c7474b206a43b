/*!
 * \file tensor_intrin.cc
 * \brief The tensor intrinsic registry (stage 3) and the shipped CPU example "dot_16_f32":
 * a 16-element float32 dot product `C[0] += A[k] * B[k]`, described as a reduction block and
 * implemented as an unrolled loop, both written in TVMScript.
 */
#include "minitvm/tir/schedule/tensor_intrin.h"

#include <map>
#include <mutex>
#include <sstream>

#include "minitvm/ir/module.h"
#include "minitvm/script/tir_parser.h"

namespace minitvm {
namespace tir {

namespace {
std::map<std::string, TensorIntrin>& Table() {
  static std::map<std::string, TensorIntrin> table;
  return table;
}
std::mutex& TableMutex() {
  static std::mutex m;
  return m;
}

std::vector<Buffer> ParamBuffersInOrder(const PrimFunc& f) {
  std::vector<Buffer> out;
  for (const Var& p : f->params) {
    if (auto b = f->buffer_map.Get(p)) out.push_back(*b);
  }
  return out;
}
}  // namespace

TensorIntrin::TensorIntrin(PrimFunc desc, PrimFunc impl) {
  std::vector<Buffer> d = ParamBuffersInOrder(desc), i = ParamBuffersInOrder(impl);
  if (d.size() != i.size()) {
    MINITVM_THROW(ValueError) << "TensorIntrin: the description takes " << d.size()
                              << " buffers but the implementation takes " << i.size();
  }
  for (size_t k = 0; k < d.size(); ++k) {
    if (d[k]->dtype != i[k]->dtype || d[k]->shape.size() != i[k]->shape.size()) {
      MINITVM_THROW(ValueError) << "TensorIntrin: buffer " << k << " is " << d[k]->name << " ("
                                << d[k]->dtype << ", " << d[k]->shape.size()
                                << "-d) in the description but " << i[k]->name << " ("
                                << i[k]->dtype << ", " << i[k]->shape.size()
                                << "-d) in the implementation";
    }
  }
  auto n = make_object<TensorIntrinNode>();
  n->desc = std::move(desc);
  n->impl = std::move(impl);
  data_ = std::move(n);
}

void TensorIntrin::Register(const std::string& name, const TensorIntrin& intrin,
                            bool override_existing) {
  std::lock_guard<std::mutex> lock(TableMutex());
  if (Table().count(name) && !override_existing) {
    MINITVM_THROW(ValueError) << "tensor intrinsic \"" << name << "\" is already registered";
  }
  Table()[name] = intrin;
}

std::optional<TensorIntrin> TensorIntrin::TryGet(const std::string& name) {
  {
    std::lock_guard<std::mutex> lock(TableMutex());
    auto it = Table().find(name);
    if (it != Table().end()) return it->second;
  }
  if (name == "dot_16_f32") {
    RegisterBuiltinTensorIntrins();
    std::lock_guard<std::mutex> lock(TableMutex());
    auto it = Table().find(name);
    if (it != Table().end()) return it->second;
  }
  return std::nullopt;
}

TensorIntrin TensorIntrin::Get(const std::string& name) {
  if (auto t = TryGet(name)) return *t;
  std::ostringstream os;
  for (const std::string& n : ListNames()) os << " " << n;
  MINITVM_THROW(ValueError) << "no tensor intrinsic named \"" << name
                            << "\"; registered:" << (os.str().empty() ? " (none)" : os.str());
}

std::vector<std::string> TensorIntrin::ListNames() {
  std::lock_guard<std::mutex> lock(TableMutex());
  std::vector<std::string> out;
  for (const auto& [k, v] : Table()) out.push_back(k);
  return out;
}

std::string Dot16DescScript() {
  return R"(# from minitvm.script import tir as T

@T.prim_func
def dot_16_f32_desc(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((1,), "float32")):
    with T.block("root"):
        T.reads(C[0], A[0:16], B[0:16])
        T.writes(C[0])
        for k in range(16):
            with T.block("update"):
                vk = T.axis.reduce(16, k)
                T.reads(C[0], A[vk], B[vk])
                T.writes(C[0])
                C[0] = C[0] + A[vk] * B[vk]
)";
}

std::string Dot16ImplScript() {
  return R"(# from minitvm.script import tir as T

@T.prim_func
def dot_16_f32_impl(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((1,), "float32")):
    with T.block("root"):
        T.reads(C[0], A[0:16], B[0:16])
        T.writes(C[0])
        for k in T.unroll(16):
            C[0] = C[0] + A[k] * B[k]
)";
}

void RegisterBuiltinTensorIntrins() {
  {
    std::lock_guard<std::mutex> lock(TableMutex());
    if (Table().count("dot_16_f32")) return;
  }
  auto as_func = [](const std::string& text) {
    return script::ParsePrimFunc(text, "<dot_16_f32>");
  };
  TensorIntrin intrin(as_func(Dot16DescScript()), as_func(Dot16ImplScript()));
  std::lock_guard<std::mutex> lock(TableMutex());
  if (!Table().count("dot_16_f32")) Table()["dot_16_f32"] = intrin;
}

}  // namespace tir
}  // namespace minitvm

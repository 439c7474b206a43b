/*!
 * \file transform/legalize/legalize_common.cc
 * \brief The helpers of the Relax operator legalizers (stage 4): attribute readers that accept
 * every form the op convention allows (int64, IntImm, lists, None) and the CallTE wrapper.
 */
#include "transform/legalize/legalize_common.h"

#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace relax {
namespace legalize {

std::string OpName(const Call& call) {
  if (const auto* op = call->op.as<OpNode>()) return op->name;
  return "a call";
}

const TensorStructInfoNode* ArgTensor(const Call& call, size_t i) {
  if (i >= call->args.size()) {
    MINITVM_THROW(ValueError) << "LegalizeOps: " << OpName(call) << " has " << call->args.size()
                              << " argument(s), argument " << i << " is missing";
  }
  const auto* t = GetStructInfoAs<TensorStructInfoNode>(call->args[i]);
  if (!t) {
    MINITVM_THROW(ValueError) << "LegalizeOps: argument " << i << " of " << OpName(call)
                              << " must be a tensor, not "
                              << StructInfoToString(GetStructInfo(call->args[i]));
  }
  return t;
}

namespace {
const TensorStructInfoNode* OutTensor(const Call& call) {
  const auto* t = GetStructInfoAs<TensorStructInfoNode>(call);
  if (!t) {
    MINITVM_THROW(ValueError) << "LegalizeOps: the result of " << OpName(call)
                              << " must be a tensor to legalize, not "
                              << (call->struct_info_.defined()
                                      ? StructInfoToString(GetStructInfo(call))
                                      : std::string("unknown"));
  }
  return t;
}
}  // namespace

Array<PrimExpr> OutShape(const Call& call) {
  auto shape = OutTensor(call)->GetShape();
  if (!shape) {
    MINITVM_THROW(ValueError) << "LegalizeOps: cannot legalize " << OpName(call)
                              << ": its result shape is unknown ("
                              << StructInfoToString(GetStructInfo(call)) << ")";
  }
  return *shape;
}

DataType OutDType(const Call& call) {
  const auto* t = OutTensor(call);
  if (t->IsUnknownDtype()) {
    MINITVM_THROW(ValueError) << "LegalizeOps: cannot legalize " << OpName(call)
                              << ": its result dtype is unknown";
  }
  return t->dtype;
}

namespace {
std::optional<Any> Attr(const Call& call, const std::string& key) {
  auto v = call->attrs.Get(key);
  if (!v || v->is_null()) return std::nullopt;
  return *v;
}
int64_t AsInt(const Call& call, const std::string& key, const Any& v) {
  if (v.is_int()) return v.cast<int64_t>();
  if (v.is_bool()) return v.cast<bool>() ? 1 : 0;
  if (const auto* imm = v.as<IntImmNode>()) return imm->value;
  MINITVM_THROW(TypeError) << "LegalizeOps: attribute " << key << " of " << OpName(call)
                           << " must be an int, not " << v.ToString();
}
}  // namespace

int64_t AttrInt(const Call& call, const std::string& key, int64_t fallback) {
  auto v = Attr(call, key);
  return v ? AsInt(call, key, *v) : fallback;
}

double AttrFloat(const Call& call, const std::string& key, double fallback) {
  auto v = Attr(call, key);
  if (!v) return fallback;
  if (v->is_float()) return v->cast<double>();
  if (const auto* imm = v->as<FloatImmNode>()) return imm->value;
  return static_cast<double>(AsInt(call, key, *v));
}

bool AttrBool(const Call& call, const std::string& key, bool fallback) {
  auto v = Attr(call, key);
  if (!v) return fallback;
  if (v->is_bool()) return v->cast<bool>();
  return AsInt(call, key, *v) != 0;
}

std::string AttrStr(const Call& call, const std::string& key, const std::string& fallback) {
  auto v = Attr(call, key);
  if (!v) return fallback;
  return v->cast<String>();
}

std::optional<std::vector<int64_t>> AttrInts(const Call& call, const std::string& key) {
  auto v = Attr(call, key);
  if (!v) return std::nullopt;
  if (const auto* arr = v->as<runtime::ArrayNode>()) {
    std::vector<int64_t> out;
    for (const Any& e : arr->data) out.push_back(AsInt(call, key, e));
    return out;
  }
  return std::vector<int64_t>{AsInt(call, key, *v)};
}

DataType AttrDType(const Call& call, const std::string& key) {
  auto v = Attr(call, key);
  if (!v) return DataType::Void();
  if (v->is_string()) {
    std::string s = v->cast<String>();
    if (s.empty() || s == "void") return DataType::Void();
    return DataType(s);
  }
  return v->cast<DataType>();
}

Expr CallTE(BlockBuilder bb, const std::string& name, const Array<Expr>& args, const TEFunc& f) {
  return bb.CallTE(f, args, name);
}

Expr CallTE1(BlockBuilder bb, const std::string& name, const Array<Expr>& args,
             const std::function<te::Tensor(const Array<te::Tensor>&)>& f) {
  return bb.CallTE([&](const Array<te::Tensor>& ts) { return Array<te::Tensor>{f(ts)}; }, args,
                   name);
}

int64_t NormAxis(const Call& call, int64_t axis, int64_t ndim) {
  int64_t a = axis < 0 ? axis + ndim : axis;
  if (a < 0 || a >= ndim) {
    MINITVM_THROW(ValueError) << "LegalizeOps: " << OpName(call) << ": axis " << axis
                              << " is out of range for a tensor of rank " << ndim;
  }
  return a;
}

}  // namespace legalize
}  // namespace relax
}  // namespace minitvm

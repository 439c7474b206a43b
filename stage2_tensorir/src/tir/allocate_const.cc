/*!
 * \file allocate_const.cc
 * \brief Stage 2: constant allocations (`T.allocate_const`) as annotated `tir.Allocate`s.
 */
#include "minitvm/tir/allocate_const.h"

#include <string>

#include "minitvm/runtime/reflection.h"

namespace minitvm {
namespace tir {

Array<PrimExpr> AllocateConstData(const AllocateNode* op) {
  std::optional<Any> v = op->annotations.Get(String(kAllocateConstData));
  if (!v) return {};
  return v->try_cast<Array<PrimExpr>>().value_or(Array<PrimExpr>());
}

Map<String, Any> AllocateConstUserAnnotations(const AllocateNode* op) {
  Map<String, Any> out = op->annotations;
  out.erase(String(kAllocateConstData));
  return out;
}

Allocate MakeAllocateConst(Var buffer_var, DataType dtype, Array<PrimExpr> extents,
                           Array<PrimExpr> data, Stmt body, Map<String, Any> annotations) {
  std::string name = buffer_var.defined() ? buffer_var->name_hint.str() : std::string("?");
  int64_t count = 1;
  for (const PrimExpr& e : extents) {
    const auto* imm = e.as<IntImmNode>();
    if (imm == nullptr || imm->value < 0) {
      MINITVM_THROW(ValueError) << "allocate_const " << name
                                << ": extents must be non-negative integer constants, got "
                                << runtime::Repr(e);
    }
    count *= imm->value;
  }
  if (static_cast<int64_t>(data.size()) != count || count == 0) {
    MINITVM_THROW(ValueError) << "allocate_const " << name << ": " << data.size()
                              << " values for extents of " << count << " elements";
  }
  for (size_t i = 0; i < data.size(); ++i) {
    const PrimExpr& x = data[i];
    bool is_imm = x.as<IntImmNode>() != nullptr || x.as<FloatImmNode>() != nullptr;
    if (!is_imm || x.dtype() != dtype) {
      MINITVM_THROW(TypeError) << "allocate_const " << name << ": value [" << i << "] "
                               << runtime::Repr(x) << " is not a constant of dtype " << dtype;
    }
  }
  annotations.Set(String(kAllocateConstData), data);
  return Allocate(std::move(buffer_var), dtype, std::move(extents), PrimExpr(), std::move(body),
                  "global", std::move(annotations));
}

}  // namespace tir
}  // namespace minitvm

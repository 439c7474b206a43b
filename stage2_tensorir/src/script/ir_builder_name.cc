/*!
 * \file ir_builder_name.cc
 * \brief What the Python IRBuilder needs from C++ (stage 2, script): "script.ir_builder.Name"
 * (naming nodes in place) and "script.ir_builder.tir.AllocateConst".
 *
 * The Python IRBuilder (`minitvm.script.ir_builder`) creates loop variables, block iterators and
 * buffers before the program that builds them knows their names; `IRBuilder.name("i", v)`
 * names them afterwards, in place, as TVM's IRBuilder does. Names are for printing only
 * (structural equality and hashing ignore them), so renaming a node that is already part of
 * some IR changes how that IR prints and nothing else.
 */
#include <string>

#include "minitvm/runtime/registry.h"
#include "minitvm/tir/allocate_const.h"
#include "minitvm/tir/buffer.h"
#include "minitvm/tir/var.h"

namespace minitvm {
namespace script {
namespace {

using tir::Buffer;
using tir::BufferNode;
using tir::IterVarNode;
using tir::Var;
using tir::VarNode;

/*! \brief Give `node` (a Var, IterVar or Buffer) the name `name`; other nodes are left alone. */
void NameNode(const ObjectRef& node, const std::string& name) {
  if (const auto* var = node.as<VarNode>()) {
    const_cast<VarNode*>(var)->name_hint = name;
  } else if (const auto* iter = node.as<IterVarNode>()) {
    NameNode(iter->var, name);
  } else if (const auto* buffer = node.as<BufferNode>()) {
    auto* b = const_cast<BufferNode*>(buffer);
    b->name = name;
    NameNode(b->data, name);
    for (size_t i = 0; i < b->strides.size(); ++i) {
      if (b->strides[i].as<VarNode>()) NameNode(b->strides[i], name + "_s" + std::to_string(i));
    }
  }
}

}  // namespace

MINITVM_REGISTER_GLOBAL("script.ir_builder.Name")
    .set_body_typed([](std::string name, Any node) -> Any {
      if (node.is_object()) NameNode(node.cast<ObjectRef>(), name);
      return node;
    });

/*!
 * \brief `T.allocate_const(...)` of the IRBuilder: the constant allocation the parser makes for
 * the same call (values checked against dtype and extents).
 */
MINITVM_REGISTER_GLOBAL("script.ir_builder.tir.AllocateConst")
    .set_body_typed([](Var buffer_var, DataType dtype, Array<PrimExpr> extents,
                       Array<PrimExpr> data, tir::Stmt body, Map<String, Any> annotations) {
      return tir::MakeAllocateConst(buffer_var, dtype, extents, data, body, annotations);
    });

}  // namespace script
}  // namespace minitvm

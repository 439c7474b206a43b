/*!
 * \file minitvm/ir/node_functor.h
 * \brief `NodeFunctor` (stage 2): dispatch on a node's dynamic type through a table indexed
 * by type index. The IR functors (ExprFunctor, StmtFunctor) are built on it.
 */
#ifndef MINITVM_IR_NODE_FUNCTOR_H_
#define MINITVM_IR_NODE_FUNCTOR_H_

#include <vector>

#include "minitvm/runtime/object.h"

namespace minitvm {

template <typename FType>
class NodeFunctor;

/*! \brief A table from type index to function; `set_dispatch<TNode>` fills one entry. */
template <typename R, typename... Args>
class NodeFunctor<R(const runtime::ObjectRef& n, Args...)> {
 public:
  using FPointer = R (*)(const runtime::ObjectRef& n, Args...);
  bool can_dispatch(const runtime::ObjectRef& n) const {
    uint32_t i = n->type_index();
    return i < table_.size() && table_[i] != nullptr;
  }
  R operator()(const runtime::ObjectRef& n, Args... args) const {
    if (!can_dispatch(n)) {
      MINITVM_THROW(InternalError) << "no dispatch entry for node type " << n->GetTypeKey();
    }
    return (*table_[n->type_index()])(n, std::forward<Args>(args)...);
  }
  template <typename TNode>
  NodeFunctor& set_dispatch(FPointer f) {
    uint32_t i = TNode::RuntimeTypeIndex();
    if (table_.size() <= i) table_.resize(i + 1, nullptr);
    table_[i] = f;
    return *this;
  }

 private:
  /*! \brief The function of each type index (null where none is set). */
  std::vector<FPointer> table_;
};

}  // namespace minitvm

#endif  // MINITVM_IR_NODE_FUNCTOR_H_

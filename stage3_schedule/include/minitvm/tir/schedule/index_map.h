/*!
 * \file minitvm/tir/schedule/index_map.h
 * \brief `IndexMap` (stage 3): a function from buffer indices to new buffer indices, e.g.
 * `lambda i, j: (j // 16, i, j % 16)`, used by `transform_layout`.
 *
 * It is written as a list of variables and the expressions of the new indices in those
 * variables. From Python it comes from a lambda called with fresh variables; from C++ from a
 * callable (`IndexMap::FromFunc`). It prints as a Python lambda for traces and serialises to
 * JSON without needing a parser.
 */
#ifndef MINITVM_TIR_SCHEDULE_INDEX_MAP_H_
#define MINITVM_TIR_SCHEDULE_INDEX_MAP_H_

#include <functional>
#include <string>

#include "minitvm/tir/var.h"

namespace minitvm {
namespace arith {
class Analyzer;
}
namespace tir {

/*! \brief The node of an IndexMap. */
class IndexMapNode : public Object {
 public:
  /*! \brief The variables standing for the old indices. */
  Array<Var> initial_indices;
  /*! \brief The new indices, in terms of `initial_indices`. */
  Array<PrimExpr> final_indices;
  void VisitAttrs(AttrVisitor* v) override {
    v->VisitBinding("initial_indices", &initial_indices);
    v->Visit("final_indices", &final_indices);
  }
  MINITVM_DECLARE_OBJECT_INFO(IndexMapNode, Object, "tir.IndexMap");
};

/*! \brief Handle to an index map. */
class IndexMap : public ObjectRef {
 public:
  IndexMap(Array<Var> initial_indices, Array<PrimExpr> final_indices);
  /*!
   * \brief An index map from a C++ callable of `ndim` variables (named i0, i1, ... unless
   * `names` is given).
   */
  static IndexMap FromFunc(int ndim, const std::function<Array<PrimExpr>(Array<Var>)>& func,
                           const std::vector<std::string>& names = {});
  /*! \brief The new indices for concrete old indices (substituted, not simplified). */
  Array<PrimExpr> MapIndices(const Array<PrimExpr>& indices) const;
  /*!
   * \brief The shape of the transformed buffer: for each new index, 1 + its largest value when
   * each old index ranges over [0, shape[k]). ValueError when a bound cannot be found.
   */
  Array<PrimExpr> MapShape(const Array<PrimExpr>& shape, arith::Analyzer* analyzer) const;
  /*! \brief The map as Python source: `lambda i, j: (j // 16, i, j % 16)`. */
  std::string ToPythonLambda() const;
  /*!
   * \brief The map as a JSON-able value (for traces): the node graph written through the
   * nodes' VisitAttrs field lists, `{"root": i, "nodes": [...]}`.
   */
  Any ToJSONValue() const;
  /*! \brief Inverse of ToJSONValue (ValueError on malformed input). */
  static IndexMap FromJSONValue(const Any& value);
  MINITVM_DEFINE_OBJECT_REF_METHODS(IndexMap, ObjectRef, IndexMapNode);
};

/*!
 * \brief Print an integer index expression as Python (`i * 4 + j`, `i // 16`, `T.min(a, b)`):
 * `script::AsScript` with `plain_literals`. Used for index maps and for trace arguments.
 */
std::string PrintPythonExpr(const PrimExpr& e);

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_SCHEDULE_INDEX_MAP_H_

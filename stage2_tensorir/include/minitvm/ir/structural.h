/*!
 * \file minitvm/ir/structural.h
 * \brief Structural equality and hashing of IR (stage 2), driven by each node's reflected field
 * list (`VisitAttrs`), with alpha-equivalence of bound variables.
 *
 * Two IR trees are structurally equal when they have the same node types and equal fields,
 * where variables that are *bound* (fields listed with `VisitBinding`: loop variables, let
 * variables, block iterators, function parameters, buffers of a buffer_map or alloc_buffers, a
 * buffer's data variable) are matched with their counterpart at the binding site and later
 * uses compare through that match. Free variables compare by identity unless `map_free_vars`.
 * Names of variables and buffers are not part of equality; block names and attributes are.
 * `StructuralHash` is consistent with `StructuralEqual`: equal trees hash equal.
 */
#ifndef MINITVM_IR_STRUCTURAL_H_
#define MINITVM_IR_STRUCTURAL_H_

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "minitvm/runtime/any.h"
#include "minitvm/runtime/object.h"

namespace minitvm {

using runtime::ObjectRef;

/*!
 * \brief True when `a` and `b` are structurally equal (alpha-equivalent).
 * \param map_free_vars Also match free variables with each other on first sight (both sides
 *        consistently), instead of comparing them by identity.
 */
bool StructuralEqual(const ObjectRef& a, const ObjectRef& b, bool map_free_vars = false);

/*! \brief Structural equality of two Any values (ints, floats, strings, objects, ...). */
bool StructuralEqual(const runtime::Any& a, const runtime::Any& b, bool map_free_vars = false);

/*!
 * \brief A hash consistent with StructuralEqual: bound variables hash by the order in which
 * they are bound, free variables by identity (or by first-sight order with `map_free_vars`).
 *
 * Free variables hashed by identity make the hash of free-standing expressions differ between
 * runs; hashes of closed functions (all variables bound) are stable.
 */
size_t StructuralHash(const ObjectRef& node, bool map_free_vars = false);

/*!
 * \brief Throw ValueError unless `a` and `b` are structurally equal. The message names the
 * first differing path from the root (e.g. `root.body.body.block.body.value.b.value`), both
 * values there and the repr of the innermost node on each side that holds them.
 */
void AssertStructuralEqual(const ObjectRef& a, const ObjectRef& b, bool map_free_vars = false);

/*!
 * \brief The first difference between `a` and `b` as text (path, values, reprs), or an empty
 * string when they are structurally equal. This is what AssertStructuralEqual reports.
 */
std::string StructuralDiff(const ObjectRef& a, const ObjectRef& b, bool map_free_vars = false);

/*!
 * \brief Equality in which variables and buffers compare by identity (no renaming, no matching
 * on first sight): "the very same expression", as the simplifier needs to recognise a term it
 * has seen before. Numbers, dtypes and node structure compare as in StructuralEqual.
 */
bool ExprDeepEqual(const ObjectRef& a, const ObjectRef& b);

/*!
 * \brief How structural equality treats the nodes of one type (and of types derived from it).
 *
 * The generic rule — same type, then every reflected field equal — serves most nodes. A few
 * types need more, declared here once instead of in a per-node switch:
 *  - `is_var`: the node is a variable. At a binding site it is matched with its counterpart;
 *    elsewhere it compares through that match (free ones by identity / map_free_vars).
 *  - `is_def`: the node is a definition that may be referenced from many places (a Buffer): on
 *    first sight it is compared field by field, with free variables inside it matched rather
 *    than compared by identity, and from then on it compares through the match.
 *  - `defines_vars`: where the node stands at a binding site (a `VisitBinding` field), the
 *    free variables inside it are matched on first sight instead of compared by identity, as
 *    inside an `is_def` node: a Relax parameter annotated `R.Tensor(("n", 4))` defines `n`.
 *  - `ignored_fields`: fields that do not take part (names of variables and buffers).
 *  - `equal` / `hash`: a custom comparison for leaf types with no useful field list (NDArray).
 */
struct StructuralTraits {
  /*! \brief The node is a variable: matched at its binding site, compared through the match. */
  bool is_var = false;
  /*! \brief A definition referenced from many places (a Buffer): compared once, then matched. */
  bool is_def = false;
  /*! \brief At a binding site, the free variables inside it are matched (defined) there. */
  bool defines_vars = false;
  /*! \brief Fields that do not take part (names of variables and buffers). */
  std::vector<std::string> ignored_fields;
  /*! \brief A custom comparison for leaf types with no useful field list (NDArray). */
  std::function<bool(const runtime::Object*, const runtime::Object*)> equal;
  /*! \brief The matching custom hash. */
  std::function<size_t(const runtime::Object*)> hash;
};

/*!
 * \brief Declare the traits of `type_key` (and its subtypes, unless they declare their own).
 * Later stages register theirs (e.g. Relax variables) at load time.
 */
void RegisterStructuralTraits(const std::string& type_key, StructuralTraits traits);

}  // namespace minitvm

#endif  // MINITVM_IR_STRUCTURAL_H_

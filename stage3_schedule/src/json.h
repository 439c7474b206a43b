/*!
 * \file json.h
 * \brief A small JSON reader and writer over `Any` (stage 3, internal), used for traces, and
 * the node serialiser that writes any node through its `VisitAttrs` field list.
 *
 * JSON arrays are `Array<Any>`, objects `Map<String, Any>`, strings `String`, integers int64,
 * other numbers double, true/false bool and null the null Any.
 *
 * Nodes: `NodeToJSON` writes a node and everything it refers to as
 * `{"root": i, "nodes": [...]}`, each node once (shared nodes — a variable used twice — stay
 * shared), children before parents. A node is `{"type": <type key>, "fields": {...}}` with
 * the fields its VisitAttrs lists (the same list that drives structural equality and
 * hashing): a node field is the index of the node, an `Any` field holding a node is
 * `{"ref": i}`; strings and arrays are `{"type": "runtime.String", "value": s}` and
 * `{"type": "runtime.Array", "items": [...]}`. `NodeFromJSON` reads it back, creating each
 * node with the creator registered for its type key.
 */
#ifndef MINITVM_STAGE3_SRC_JSON_H_
#define MINITVM_STAGE3_SRC_JSON_H_

#include <functional>
#include <string>

#include "minitvm/runtime/container.h"
#include "minitvm/runtime/reflection.h"

namespace minitvm {
namespace tir {
namespace json {

/*! \brief Write a value as compact JSON (TypeError for values JSON cannot hold). */
std::string Write(const runtime::Any& value);
/*! \brief Parse JSON text (ValueError naming the offset on malformed input). */
runtime::Any Read(const std::string& text);

/*! \brief A node graph as a JSON value (see the file comment). */
runtime::Any NodeToJSON(const runtime::ObjectRef& node);
/*! \brief The node graph `NodeToJSON` wrote (ValueError on a malformed value or unknown type). */
runtime::ObjectRef NodeFromJSON(const runtime::Any& value);
/*! \brief Make `NodeFromJSON` able to create nodes of `type_key` (an empty node to fill). */
bool RegisterNodeCreator(const std::string& type_key,
                         std::function<runtime::ObjectPtr<runtime::Object>()> create);

}  // namespace json
}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_STAGE3_SRC_JSON_H_

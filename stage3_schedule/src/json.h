/*!
 * \file json.h
 * \brief A small JSON reader and writer over `Any` (stage 3, internal), used for traces.
 *
 * JSON arrays are `Array<Any>`, objects `Map<String, Any>`, strings `String`, integers int64,
 * other numbers double, true/false bool and null the null Any.
 */
#ifndef MINITVM_STAGE3_SRC_JSON_H_
#define MINITVM_STAGE3_SRC_JSON_H_

#include <string>

#include "minitvm/runtime/container.h"

namespace minitvm {
namespace tir {
namespace json {

/*! \brief Write a value as compact JSON (TypeError for values JSON cannot hold). */
std::string Write(const runtime::Any& value);
/*! \brief Parse JSON text (ValueError naming the offset on malformed input). */
runtime::Any Read(const std::string& text);

}  // namespace json
}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_STAGE3_SRC_JSON_H_

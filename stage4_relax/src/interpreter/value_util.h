/*!
 * \file interpreter/value_util.h
 * \brief Private helpers of the Relax reference interpreter (stage 4): converting run-time
 * values and call attributes (ints, int lists, shapes, dtypes) to what the lownumpy reference
 * ops take, with errors that name the op and the attribute.
 */
#ifndef MINITVM_RELAX_INTERPRETER_VALUE_UTIL_H_
#define MINITVM_RELAX_INTERPRETER_VALUE_UTIL_H_

#include <optional>
#include <string>
#include <vector>

#include "minitvm/relax/expr.h"
#include "minitvm/relax/interpreter.h"
#include "minitvm/runtime/container.h"
#include "minitvm/runtime/ndarray.h"

namespace minitvm {
namespace relax {
namespace interp {

using runtime::Any;
using runtime::NDArray;
using Shape = std::vector<int64_t>;

/*! \brief The op's name for messages ("relax.add"), or "call" when the callee is no Op. */
std::string CallName(const Call& call);

/*!
 * \brief A keyword parameter of `call`: the attribute `name` when set, else the evaluated
 * argument at `arg_index` when there is one (some ops take shapes or scalars as Relax
 * arguments, some as attributes), else a null Any.
 */
Any Param(const Call& call, const Array<Any>& args, const std::string& name, int arg_index = -1);

/*! \brief Argument `i` as an NDArray; TypeError naming the op when it is something else. */
NDArray TensorArg(const Call& call, const Array<Any>& args, int i);

/*! \brief Whether the value is null (an absent optional attribute). */
inline bool IsNone(const Any& v) { return v.is_null(); }

/*! \brief An int (int, bool, 0-d integer NDArray, PrimValue); ValueError naming `what`. */
int64_t ToInt(const Any& v, const std::string& what);
/*! \brief A float (int, float, 0-d NDArray). */
double ToFloat(const Any& v, const std::string& what);
/*! \brief A bool (bool, int). */
bool ToBool(const Any& v, const std::string& what);
/*! \brief A string. */
std::string ToStr(const Any& v, const std::string& what);
/*! \brief A list of ints from an int (one element), an Array of ints or a ShapeTuple. */
Shape ToInts(const Any& v, const std::string& what);
/*! \brief A dtype from a DataType or a string; nullopt for null, "" or void. */
std::optional<DataType> ToDType(const Any& v, const std::string& what);

/*! \brief Read element 0 of a 0-d (or one-element) tensor as a double. */
double ScalarOf(const NDArray& a);

}  // namespace interp
}  // namespace relax
}  // namespace minitvm

#endif  // MINITVM_RELAX_INTERPRETER_VALUE_UTIL_H_

/*!
 * \file minitvm/script/tir_parser.h
 * \brief The TVMScript parser for TensorIR (stage 2): text to IRModule or PrimFunc.
 *
 * Reads what `tir_printer.h` prints and the older spellings found in course material:
 * `T.Buffer[(8,), "float32"]`, `T.handle` parameters with `T.match_buffer`, `T.serial`,
 * `T.func_attr({"global_symbol": ..., "tir.noalias": True})`, `@tvm.script.ir_module`,
 * `-> None`. Blocks written without `T.reads`/`T.writes` get them inferred; the root block
 * is added when the body has blocks. Every error is a ParseError that shows the file, line,
 * column, the source line and a caret under the offending text.
 *
 * Later stages plug their own function decorators into the same entry points through
 * `parser_ext.h`: with stage 4 linked, `@R.function` definitions (alone or in an `@I.ir_module`
 * class next to `@T.prim_func`s) parse to Relax functions, and `FromSourceWithMetadata` supplies
 * the constants a printed Relax script refers to as `metadata["relax.expr.Constant"][i]`.
 */
#ifndef MINITVM_SCRIPT_TIR_PARSER_H_
#define MINITVM_SCRIPT_TIR_PARSER_H_

#include <string>

#include "minitvm/ir/module.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace script {

/*!
 * \brief Parse a script: an `@I.ir_module class` gives an IRModule, a `@T.prim_func def` a
 * PrimFunc (a `def` with a registered decorator, e.g. `@R.function`, that stage's function).
 * `file_name` and `line_offset` (added to line numbers) place diagnostics in the file the text came
 * from, e.g. the `.py` file of a decorated function.
 */
ObjectRef FromSource(const std::string& text, const std::string& file_name = "<string>",
                     int line_offset = 0);

/*! \brief Parse a script that must define an IRModule (a lone PrimFunc becomes `main`). */
IRModule ParseModule(const std::string& text, const std::string& file_name = "<string>",
                     int line_offset = 0);

/*! \brief Parse a script that must define one PrimFunc. */
tir::PrimFunc ParsePrimFunc(const std::string& text, const std::string& file_name = "<string>",
                            int line_offset = 0);

}  // namespace script
}  // namespace minitvm

#endif  // MINITVM_SCRIPT_TIR_PARSER_H_

/*!
 * \file minitvm/script/tir_printer.h
 * \brief The TVMScript printer for TensorIR (stage 2): IRModules, PrimFuncs, statements and
 * expressions to the text format of TVM v0.20+ (`@I.ir_module`, `@T.prim_func`,
 * `T.Buffer((8,), "float32")`, `for i, j in T.grid(...)`, `with T.block("B"):`,
 * `vi, vj = T.axis.remap("SS", [i, j])`, ...).
 *
 * The printed text parses back (`tir_parser.h`) to a structurally equal IR, and printing that
 * again gives the same text. Registered as `"script.AsScript"` and as the repr of TIR nodes.
 */
#ifndef MINITVM_SCRIPT_TIR_PRINTER_H_
#define MINITVM_SCRIPT_TIR_PRINTER_H_

#include <string>

#include "minitvm/ir/module.h"

namespace minitvm {
namespace script {

/*! \brief Options of the TVMScript printer. */
struct ScriptOptions {
  /*! \brief The module the header comments import from (`# from <prefix> import tir as T`). */
  std::string module_prefix = "minitvm.script";
  /*! \brief Print the `# from ... import ...` header lines before a module or function. */
  bool print_header = true;
  /*! \brief Spaces per indentation level. */
  int indent_spaces = 4;
};

/*!
 * \brief Print `node` as TVMScript: an IRModule, a PrimFunc, any TIR statement or expression,
 * a Buffer, BufferRegion, IterVar or Range. TypeError for anything else.
 */
std::string AsScript(const ObjectRef& node, const ScriptOptions& options = {});

/*! \brief True when `AsScript` can print `node`. */
bool CanPrintAsScript(const ObjectRef& node);

}  // namespace script
}  // namespace minitvm

#endif  // MINITVM_SCRIPT_TIR_PRINTER_H_

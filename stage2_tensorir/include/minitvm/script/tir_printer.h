/*!
 * \file minitvm/script/tir_printer.h
 * \brief The TVMScript printer for TensorIR (stage 2): IRModules, PrimFuncs, statements and
 * expressions to the text format of TVM v0.20+ (`@I.ir_module`, `@T.prim_func`,
 * `T.Buffer((8,), "float32")`, `for i, j in T.grid(...)`, `with T.block("B"):`,
 * `vi, vj = T.axis.remap("SS", [i, j])`, ...).
 *
 * The printed text parses back (`tir_parser.h`) to a structurally equal IR, and printing that
 * again gives the same text. Registered as `"script.AsScript"` and as the repr of TIR nodes.
 *
 * Extension point for later stages (stage 2 knows nothing of them): a stage registers a
 * *function printer* per function type key (`RegisterFunctionPrinter("relax.expr.Function",
 * ...)`), which the module printer calls for every function of that type, and a *node printer*
 * (`RegisterNodePrinter`) that `AsScript` and the repr use for the nodes TIR does not print
 * (Relax expressions, bindings, struct info, a Relax function alone).
 */
#ifndef MINITVM_SCRIPT_TIR_PRINTER_H_
#define MINITVM_SCRIPT_TIR_PRINTER_H_

#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "minitvm/ir/module.h"
#include "minitvm/script/doc.h"

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
  /*!
   * \brief Readable mode, for messages, index maps and traces: integer immediates of every dtype
   * print as bare Python ints (`5`, not `T.int64(5)`), floats as Python floats (`0.5`), and
   * arithmetic, comparisons and intrinsic calls always in their Python spelling (`a + b`, `a / b`,
   * `T.exp(x)`). The text reads like the Python that built it but does not keep dtypes, so it is
   * not for parsing back.
   */
  bool plain_literals = false;
};

/*!
 * \brief Print `node` as TVMScript: an IRModule, a PrimFunc, any TIR statement or expression,
 * a Buffer, BufferRegion, IterVar or Range, or a node a registered node printer takes (Relax
 * nodes, once stage 4 is loaded). TypeError for anything else.
 */
std::string AsScript(const ObjectRef& node, const ScriptOptions& options = {});

/*! \brief True when `AsScript` can print `node`. */
bool CanPrintAsScript(const ObjectRef& node);

// ---- extension point for the printers of later stages --------------------------------------

/*!
 * \brief What the module printer tells a function printer, and what the function printer
 * reports back. One context serves all functions of one module (or one function printed alone).
 */
struct FunctionPrintContext {
  /*! \brief The name the function prints under (`def <name>` / `<name> = ...`). */
  std::string name;
  /*! \brief The class name of the module being printed (`Module`); empty for a function alone. */
  std::string module_name;
  /*!
   * \brief Inside a module: the printed name of each of its functions, by GlobalVar node (a
   * reference to one prints as `cls.<name>`).
   */
  std::unordered_map<const Object*, std::string> global_var_names;
  /*! \brief The options of the whole print. */
  ScriptOptions options;
  /*! \brief Filled by the printers: the dialects used ("ir", "tir", "relax") for the header. */
  std::set<std::string> used_dialects;
  /*!
   * \brief Filled by the printers: objects printed as `metadata["<type key>"][i]` (constant
   * tensors), per type key in order of first use. When not empty, the printed text ends with
   * `# Metadata omitted. Use show_meta=True in script() method to show it.`
   */
  std::map<std::string, std::vector<ObjectRef>> metadata;
};

/*!
 * \brief Prints one function of a module as a statement doc: a `def` (decorators included) or
 * an assignment (`f = R.ExternFunc("f")`).
 */
using FunctionPrinter =
    std::function<printer::StmtDoc(const BaseFunc& func, FunctionPrintContext* ctx)>;

/*!
 * \brief Register the printer of functions of type `type_key` ("relax.expr.Function"); a second
 * registration of one key replaces the first. Thread-safe; meant for static initialisers.
 */
void RegisterFunctionPrinter(const std::string& type_key, FunctionPrinter printer);

/*! \brief The printer registered for `type_key`, or an empty function. */
FunctionPrinter GetFunctionPrinter(const std::string& type_key);

/*!
 * \brief A printer of non-TIR nodes for `AsScript` and the repr: `can_print` says whether it
 * takes the node; `print` returns the whole text (header included where TVM prints one).
 */
struct NodePrinter {
  std::function<bool(const ObjectRef& node)> can_print;
  std::function<std::string(const ObjectRef& node, const ScriptOptions& options)> print;
};

/*! \brief Register a node printer under `name` (a second one of that name replaces it). */
void RegisterNodePrinter(const std::string& name, NodePrinter printer);

/*!
 * \brief The header comment lines for the dialects used (`# from <prefix> import ir as I`, then
 * tir as T, then relax as R) and a blank line; empty when `options.print_header` is off or
 * `dialects` is empty.
 */
std::string ScriptHeader(const ScriptOptions& options, const std::set<std::string>& dialects);

/*! \brief The comment line closing a print that put objects in `metadata`. */
constexpr const char* kMetadataOmittedComment =
    "Metadata omitted. Use show_meta=True in script() method to show it.";

}  // namespace script
}  // namespace minitvm

#endif  // MINITVM_SCRIPT_TIR_PRINTER_H_

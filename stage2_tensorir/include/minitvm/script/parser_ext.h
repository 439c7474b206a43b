/*!
 * \file minitvm/script/parser_ext.h
 * \brief The extension point of the TVMScript parser (stage 2, core): later stages register
 * parsers for their own function decorators and script namespaces here, so the stage-2
 * parser reads `@R.function` (stage 4, Relax) without depending on it.
 *
 * A stage registers, at static-initialisation time:
 * \code
 *   RegisterScriptNamespace("relax", "R");            // `from tvm.script import relax as R`
 *   RegisterFunctionParser("R.function", {signature, parse});
 * \endcode
 * The module parser (`@I.ir_module` classes) first declares one GlobalVar per function, asks
 * every registered parser for the struct info of its function from the signature alone (so
 * functions may call each other in any order), then parses the functions in order, handing each
 * hook the `def` statement, the source, the module's name → GlobalVar table and the functions
 * parsed so far. A lone decorated `def` at the top level of a script is handed over the same way
 * with an empty table.
 */
#ifndef MINITVM_SCRIPT_PARSER_EXT_H_
#define MINITVM_SCRIPT_PARSER_EXT_H_

#include <functional>
#include <map>
#include <string>

#include "minitvm/ir/module.h"
#include "minitvm/script/ast.h"
#include "minitvm/script/diagnostic.h"

namespace minitvm {
namespace script {

/*! \brief What a function parser hook is given. */
struct FunctionParseContext {
  /*! \brief The script (for diagnostics: use ThrowParseError(*source, span, ...)). */
  const SourceFile* source = nullptr;
  /*! \brief The `def` statement, decorators included. */
  const ast::Stmt* def = nullptr;
  /*! \brief The `@I.ir_module` class name (`MyModule.f` refers to a function), or empty. */
  std::string module_name;
  /*! \brief Every function of the module by name (empty for a lone function). */
  Map<String, GlobalVar> global_vars;
  /*! \brief The functions parsed before this one (for callee lookup). */
  IRModule module;
  /*! \brief Names the script imported: alias → canonical namespace ("R", "T", "I", "tvm"). */
  std::map<std::string, std::string> namespaces;
  /*! \brief Module-level Python constants of the script (`M = 128`), as Any (int64, double,
   * bool, String). */
  std::map<std::string, Any> constants;
  /*!
   * \brief The metadata table that `metadata["relax.expr.Constant"][0]` indexes (given to
   * FromSourceWithMetadata); undefined when the script was parsed without one.
   */
  Map<String, Array<Any>> metadata;
  /*! \brief Whether `metadata` was given. */
  bool has_metadata = false;
};

/*! \brief The two hooks of a function parser. */
struct FunctionParserHooks {
  /*!
   * \brief Optional: the struct info of the function from its signature only (an undefined
   * ObjectRef when unknown). The module parser sets it on the function's GlobalVar before
   * any function is parsed.
   */
  std::function<ObjectRef(const FunctionParseContext&)> signature;
  /*! \brief Parse the function. Errors are ParseErrors (ThrowParseError). */
  std::function<BaseFunc(const FunctionParseContext&)> parse;
};

/*! \brief Register the parser of functions decorated with `decorator` ("R.function"). */
void RegisterFunctionParser(const std::string& decorator, FunctionParserHooks hooks);
/*! \brief The parser registered for `decorator`, or null. */
const FunctionParserHooks* FindFunctionParser(const std::string& decorator);

/*!
 * \brief Make `from tvm.script import <module> as X` (and `minitvm.script.<module>`) bind X to
 * the script namespace `canonical` ("R"), and `canonical` a known namespace name by default.
 */
void RegisterScriptNamespace(const std::string& module, const std::string& canonical);
/*! \brief The canonical namespace of script module `module` ("relax" → "R"), or empty. */
std::string FindScriptNamespace(const std::string& module);
/*! \brief Every registered canonical namespace name ("R", ...). */
std::vector<std::string> ListScriptNamespaces();

/*!
 * \brief Parse a script whose constants are given in a metadata table (`metadata[kind][i]`):
 * what TVM's printer emits when it leaves the metadata section out.
 */
ObjectRef FromSourceWithMetadata(const std::string& text, Map<String, Array<Any>> metadata,
                                 const std::string& file_name = "<string>", int line_offset = 0);

}  // namespace script
}  // namespace minitvm

#endif  // MINITVM_SCRIPT_PARSER_EXT_H_

/*!
 * \file relax_parser_impl.h
 * \brief The evaluator that turns the body of an `@R.function` into Relax (stage 4, private).
 * relax_parser.cc holds values, names, expressions and struct info; relax_parser_stmt.cc the
 * statements, functions and the registration with the stage-2 parser (parser_ext.h).
 *
 * Script expressions evaluate to `RValue`s: Python numbers, strings, tuples and dicts stay
 * Python values until their use decides (a shape, an attribute, a Relax tuple), Relax
 * expressions are `relax::Expr`, symbolic dimensions are PrimExprs, struct info annotations
 * are StructInfo, and `R.*` names are builtins by dotted name.
 */
#ifndef MINITVM_RELAX_SCRIPT_RELAX_PARSER_IMPL_H_
#define MINITVM_RELAX_SCRIPT_RELAX_PARSER_IMPL_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "minitvm/relax/block_builder.h"
#include "minitvm/relax/expr.h"
#include "minitvm/relax/struct_info.h"
#include "minitvm/script/ast.h"
#include "minitvm/script/parser_ext.h"

namespace minitvm {
namespace relax {
namespace parser {

namespace ast = ::minitvm::script::ast;
using script::FunctionParseContext;
using script::Span;

/*! \brief The value of a script expression. */
struct RValue {
  enum class Kind {
    kNone,
    kBool,
    kInt,
    kFloat,
    kStr,
    kExpr,       ///< a Relax expression (Var, GlobalVar, Call, Constant, ...)
    kPrim,       ///< a TIR expression (a symbolic dimension)
    kSInfo,      ///< a struct info (R.Tensor(...))
    kTuple,      ///< a Python tuple
    kList,       ///< a Python list
    kDict,       ///< items: keys, values: values
    kNamespace,  ///< R, R.nn, T, I, tvm: by canonical name in `str`
    kBuiltin,    ///< R.call_tir, T.int64, ...: by canonical name in `str`
    kModule,     ///< the module class (`cls`, `MyModule`)
    kMetadata,   ///< `metadata`, or `metadata["kind"]` (kind in `str`)
  };
  Kind kind = Kind::kNone;
  Span span;
  int64_t i = 0;
  double f = 0;
  std::string str;
  Expr expr;
  PrimExpr prim;
  StructInfo sinfo;
  std::vector<RValue> items;
  std::vector<RValue> values;
  /*! \brief Python's name for the value's kind, for messages. */
  std::string TypeName() const;
};

/*! \brief Parses one Relax function (and its signature for the module's declarations). */
class RelaxEvaluator {
 public:
  explicit RelaxEvaluator(const FunctionParseContext& ctx);

  /*! \brief The FuncStructInfo from the parameters and the return annotation. */
  StructInfo Signature();
  /*! \brief The whole function, normalised and checked. */
  Function ParseFunction();

  [[noreturn]] void Error(const Span& span, const std::string& message) const;

  // ---- expressions (relax_parser.cc) ----
  RValue Eval(const ast::Expr& e);
  RValue Attribute(const RValue& base, const std::string& attr, const Span& span);
  RValue Subscript(const RValue& base, const ast::Expr& index, const Span& span);
  RValue Call(const ast::Expr& e);
  RValue CallBuiltin(const std::string& name, const ast::Expr& call);
  RValue BinaryOp(const std::string& op, const RValue& a, const RValue& b, const Span& span);
  /*! \brief A struct info annotation. */
  StructInfo AsSInfo(const RValue& v, const Span& span);
  /*! \brief One dimension: an int, a "name" (a symbolic int64 variable) or a PrimExpr. */
  PrimExpr AsDim(const RValue& v, const Span& span);
  Array<PrimExpr> AsDims(const RValue& v, const Span& span);
  /*! \brief A dimension written as a string: a name ("n") or an expression ("w - kw + 1"). */
  PrimExpr DimFromString(const std::string& text, const Span& span);
  /*! \brief A Relax argument: tuples become Relax tuples (or shapes when all integers). */
  Expr AsExpr(const RValue& v, const Span& span);
  /*! \brief A keyword attribute value (op_attr.h convention). */
  Any AsAttr(const RValue& v, const Span& span, int depth = 0);
  std::string AsStr(const RValue& v, const Span& span, const char* what) const;
  DataType AsDType(const RValue& v, const Span& span) const;
  /*! \brief The symbolic variable `name` of this function (made on first use, int64). */
  tir::Var SymVar(const std::string& name);

  // ---- statements (relax_parser_stmt.cc) ----
  void ParseBody(const std::vector<ast::StmtPtr>& body, bool is_function_body);
  void ParseStmt(const ast::Stmt& s, bool last, bool is_function_body);
  void ParseWithDataflow(const ast::Stmt& s);
  void ParseIf(const ast::Stmt& s);
  void ParseAssign(const ast::Stmt& s);
  /*! \brief Normalise `value` and bind it to `name`; `ann` is the annotation, if any. */
  Var EmitBinding(const std::string& name, const Expr& value, const StructInfo& ann,
                  const Span& value_span, const Span& ann_span);
  /*! \brief A non-leaf expression bound to a fresh variable; leaves unchanged. */
  Expr Leaf(const Expr& e, const Span& span);
  Expr Normalize(const Expr& e, const Span& span);
  void FlushBlock();
  void Bind(const std::string& name, RValue v);
  const RValue* Lookup(const std::string& name) const;

 private:
  friend struct DepthGuard;
  const FunctionParseContext& ctx_;
  BlockBuilder bb_;
  std::vector<std::map<std::string, RValue>> scopes_;
  std::map<std::string, tir::Var> sym_;
  /*! \brief The blocks made so far, and the bindings of the block being made. */
  Array<BindingBlock> blocks_;
  std::vector<Binding> cur_;
  bool in_dataflow_ = false;
  std::set<std::string> dataflow_outputs_;
  bool output_seen_ = false;
  /*! \brief The function result once `return` was seen. */
  std::optional<Expr> ret_;
  Span ret_span_;
  Map<String, Any> attrs_;
  bool attrs_set_ = false;
  bool is_pure_ = true;
  bool is_private_ = false;
  int fresh_ = 0;
  int depth_ = 0;
  /*! \brief The most recent binding's name and var (an if-branch's result). */
  std::string last_name_;
  Var last_var_;
  Span stmt_span_;
  /*! \brief The name the statement just parsed bound (an if-branch must end with one). */
  std::string stmt_binding_;
  /*! \brief Dataflow variables of closed blocks, not in R.output (for a clear message). */
  std::set<std::string> expired_dataflow_;
};

}  // namespace parser
}  // namespace relax
}  // namespace minitvm

#endif  // MINITVM_RELAX_SCRIPT_RELAX_PARSER_IMPL_H_

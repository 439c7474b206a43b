/*!
 * \file minitvm/script/ast.h
 * \brief The syntax tree of the Python subset TVMScript is written in (stage 2, core): what
 * `ParsePython` produces and what the IR builders (TensorIR now, Relax in stage 4) evaluate.
 *
 * The tree is plain C++ (owned by unique_ptr), not IR objects: it lives only while a script
 * is parsed. Every node carries the Span of its source text for diagnostics.
 */
#ifndef MINITVM_SCRIPT_AST_H_
#define MINITVM_SCRIPT_AST_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "minitvm/script/diagnostic.h"

namespace minitvm {
namespace script {
namespace ast {

struct Expr;
/*! \brief An owned expression. */
using ExprPtr = std::unique_ptr<Expr>;

/*! \brief `name=value` in a call. */
struct Keyword {
  std::string name;
  ExprPtr value;
  Span span;
};

/*! \brief An expression node; `kind` says which fields are used. */
struct Expr {
  /*! \brief The expression forms of the subset. */
  enum class Kind {
    kName,       ///< id
    kConstant,   ///< constant
    kAttribute,  ///< children[0].id
    kCall,       ///< children[0](children[1:], keywords)
    kSubscript,  ///< children[0][children[1]] (a Tuple index for `A[i, j]`)
    kSlice,      ///< children = {lower, upper, step}, each may be null
    kTuple,      ///< (children...)
    kList,       ///< [children...]
    kDict,       ///< {children[i]: values[i]}
    kBinOp,      ///< children[0] id children[1]; id is "+", "-", "*", "/", "//", "%", "**", ...
    kUnaryOp,    ///< id children[0]; id is "-", "+", "~", "not"
    kBoolOp,     ///< children joined by id ("and" / "or")
    kCompare,    ///< children[0] ops[0] children[1] ops[1] children[2] ...
    kIfExp,      ///< children[1] if children[0] else children[2]
    kStarred,    ///< *children[0]
    kLambda,     ///< lambda children[0..n-2] (kName parameters): children[n-1] (the body)
  };
  /*! \brief The constant kinds. */
  enum class ConstKind { kNone, kBool, kInt, kFloat, kStr, kEllipsis };

  Kind kind = Kind::kName;
  Span span;
  /*! \brief Name, attribute name, or operator. */
  std::string id;
  std::vector<ExprPtr> children;
  /*! \brief kDict: the values. */
  std::vector<ExprPtr> values;
  /*! \brief kCall: keyword arguments. */
  std::vector<Keyword> keywords;
  /*! \brief kCompare: the operators ("<", "<=", "==", "!=", ">", ">=", "in", "not in", "is", ...).
   */
  std::vector<std::string> ops;
  /*! \brief kConstant. */
  ConstKind const_kind = ConstKind::kNone;
  int64_t int_value = 0;
  double float_value = 0;
  std::string str_value;
  /*! \brief kTuple: written with parentheses (a bare `i, j` is not). */
  bool parenthesized = false;
  /*! \brief Height of the tree below (1 for a leaf): the parser bounds it. */
  int depth = 1;
};

/*! \brief A function parameter: `name[: annotation][ = default]`. */
struct Arg {
  std::string name;
  ExprPtr annotation;
  ExprPtr default_value;
  Span span;
};

struct Stmt;
/*! \brief An owned statement. */
using StmtPtr = std::unique_ptr<Stmt>;

/*! \brief One `ctx [as target]` of a `with`. */
struct WithItem {
  ExprPtr context;
  ExprPtr target;
};

/*! \brief A statement node; `kind` says which fields are used. */
struct Stmt {
  /*! \brief The statement forms of the subset. */
  enum class Kind {
    kExpr,         ///< value
    kAssign,       ///< targets[0] = targets[1] = ... = value
    kAnnAssign,    ///< targets[0]: annotation [= value]
    kAugAssign,    ///< targets[0] op= value
    kFor,          ///< for targets[0] in value: body else: orelse
    kWhile,        ///< while value: body
    kIf,           ///< if value: body else: orelse
    kWith,         ///< with items: body
    kFunctionDef,  ///< decorators, def name(args) -> annotation: body
    kClassDef,     ///< decorators, class name(bases=targets): body
    kReturn,       ///< return [value]
    kPass,         ///< pass
    kAssert,       ///< assert value[, annotation]
    kImport,       ///< import / from ... import ... (names: aliases)
    kBreak,        ///< break
    kContinue,     ///< continue
  };
  Kind kind = Kind::kPass;
  Span span;
  std::vector<ExprPtr> targets;
  ExprPtr value;
  ExprPtr annotation;
  /*! \brief kAugAssign: the operator without '=' ("+", "-", ...). */
  std::string op;
  std::vector<StmtPtr> body;
  std::vector<StmtPtr> orelse;
  std::vector<WithItem> items;
  /*! \brief kFunctionDef / kClassDef: the name; kImport: the module imported from. */
  std::string name;
  std::vector<ExprPtr> decorators;
  std::vector<Arg> args;
  /*! \brief kImport: (imported name, alias) pairs. */
  std::vector<std::pair<std::string, std::string>> aliases;
};

/*! \brief A parsed source file: its top-level statements. */
struct Module {
  std::vector<StmtPtr> body;
};

}  // namespace ast

/*!
 * \brief Parse `source` as the Python subset of TVMScript. ParseError with the source line and
 * a caret for a syntax error, a bad indentation, an unsupported construct (`lambda`, `try`,
 * comprehensions, `global`, ...) or nesting deeper than the parser allows.
 */
ast::Module ParsePython(const SourceFile& source);

}  // namespace script
}  // namespace minitvm

#endif  // MINITVM_SCRIPT_AST_H_

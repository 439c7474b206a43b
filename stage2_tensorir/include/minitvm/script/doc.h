/*!
 * \file minitvm/script/doc.h
 * \brief The printer's document model (stage 2, core): a small tree of Python expressions and
 * statements (`ExprDoc`, `StmtDoc`) that an IR printer builds and `DocToPythonScript` renders
 * as text with Python's layout rules — indentation, minimal parentheses by precedence, and
 * blank lines between functions.
 *
 * The model knows nothing of TensorIR: the TIR printer (`tir_printer.h`) builds docs from IR
 * nodes, and the Relax printer of stage 4 reuses the same docs and renderer.
 */
#ifndef MINITVM_SCRIPT_DOC_H_
#define MINITVM_SCRIPT_DOC_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace minitvm {
namespace script {
namespace printer {

/*! \brief The operators an `OperationDoc` can hold, with Python's spelling. */
enum class OpKind {
  kAdd,       ///< a + b
  kSub,       ///< a - b
  kMul,       ///< a * b
  kDiv,       ///< a / b
  kFloorDiv,  ///< a // b
  kMod,       ///< a % b
  kPow,       ///< a ** b
  kLt,        ///< a < b
  kLtE,       ///< a <= b
  kGt,        ///< a > b
  kGtE,       ///< a >= b
  kEq,        ///< a == b
  kNotEq,     ///< a != b
  kAnd,       ///< a and b
  kOr,        ///< a or b
  kNot,       ///< not a
  kUSub,      ///< -a
  kBitAnd,    ///< a & b
  kBitOr,     ///< a | b
  kBitXor,    ///< a ^ b
  kInvert,    ///< ~a
  kLShift,    ///< a << b
  kRShift,    ///< a >> b
};

struct ExprDocNode;
/*! \brief A Python expression in the document (immutable, shared). */
using ExprDoc = std::shared_ptr<const ExprDocNode>;

/*! \brief The node behind an ExprDoc; one struct for all kinds, the kind says which fields count.
 */
struct ExprDocNode {
  /*! \brief What the expression is. */
  enum class Kind {
    kId,
    kLiteral,
    kAttr,
    kCall,
    kIndex,
    kSlice,
    kOperation,
    kTuple,
    kList,
    kDict,
    kLambda  ///< `lambda items...: value`
  };
  Kind kind = Kind::kId;
  /*! \brief kId: the name; kLiteral: the Python source of the literal; kAttr: the attribute. */
  std::string text;
  /*! \brief kLiteral: whether the literal is a negative number (it then binds like `-x`). */
  bool negative_literal = false;
  /*! \brief kAttr / kCall / kIndex: the object, callee or indexed value. */
  ExprDoc value;
  /*!
   * \brief kCall: positional arguments; kIndex: indices; kTuple / kList: elements; kDict: keys;
   * kOperation: operands; kSlice: [start, stop] (either may be null).
   */
  std::vector<ExprDoc> items;
  /*! \brief kCall: keyword names. */
  std::vector<std::string> kw_keys;
  /*! \brief kCall: keyword values; kDict: values. */
  std::vector<ExprDoc> kw_values;
  /*! \brief kOperation: the operator. */
  OpKind op = OpKind::kAdd;
};

/*! \brief `name` */
ExprDoc IdDoc(std::string name);
/*! \brief An integer literal. */
ExprDoc IntDoc(int64_t value);
/*!
 * \brief A float literal that reads back as the same number: integral values print as `1.0`,
 * others with the fewest digits that round-trip (for float32 when `is_float32`), infinities
 * and NaN as the strings `"inf"`, `"-inf"`, `"nan"`.
 */
ExprDoc FloatDoc(double value, bool is_float32 = false);
/*! \brief A string literal in double quotes. */
ExprDoc StrDoc(const std::string& value);
/*! \brief `True` / `False`. */
ExprDoc BoolDoc(bool value);
/*! \brief `None`. */
ExprDoc NoneDoc();
/*! \brief `value.name` */
ExprDoc AttrDoc(ExprDoc value, std::string name);
/*! \brief `callee(args..., key=value...)` */
ExprDoc CallDoc(ExprDoc callee, std::vector<ExprDoc> args = {},
                std::vector<std::pair<std::string, ExprDoc>> kwargs = {});
/*! \brief `value[indices...]`; with no index `value[()]`. */
ExprDoc IndexDoc(ExprDoc value, std::vector<ExprDoc> indices);
/*! \brief `start:stop` (inside an index). */
ExprDoc SliceDoc(ExprDoc start, ExprDoc stop);
/*! \brief An operator applied to one or two operands. */
ExprDoc OperationDoc(OpKind op, std::vector<ExprDoc> operands);
/*! \brief `(a, b)`, `(a,)` or `()`. */
ExprDoc TupleDoc(std::vector<ExprDoc> elements);
/*! \brief `[a, b]` */
ExprDoc ListDoc(std::vector<ExprDoc> elements);
/*! \brief `{k: v, ...}` */
ExprDoc DictDoc(std::vector<std::pair<ExprDoc, ExprDoc>> items);
/*! \brief `lambda a, b: body` */
ExprDoc LambdaDoc(std::vector<ExprDoc> params, ExprDoc body);

struct StmtDocNode;
/*! \brief A Python statement in the document (immutable once built, shared). */
using StmtDoc = std::shared_ptr<StmtDocNode>;

/*! \brief The node behind a StmtDoc. */
struct StmtDocNode {
  /*! \brief What the statement is. */
  enum class Kind {
    kExpr,      ///< an expression statement: rhs
    kAssign,    ///< lhs[: annotation][ = rhs]
    kFor,       ///< for lhs in rhs: body
    kWhile,     ///< while rhs: body
    kIf,        ///< if rhs: body else: else_body
    kScope,     ///< with rhs[ as lhs]: body
    kAssert,    ///< assert rhs[, annotation]
    kReturn,    ///< return [rhs]
    kFunction,  ///< decorators, def name(args) [-> annotation]: body
    kClass,     ///< decorators, class name: body
    kComment,   ///< # text
    kBlock,     ///< body, spliced into the enclosing list
  };
  Kind kind = Kind::kExpr;
  ExprDoc lhs;
  ExprDoc rhs;
  /*! \brief kAssign: the annotation; kFunction: the return type; kAssert: the message. */
  ExprDoc annotation;
  std::vector<StmtDoc> body;
  std::vector<StmtDoc> else_body;
  /*! \brief kFunction / kClass: the name; kComment: the text. */
  std::string name;
  /*! \brief kFunction / kClass. */
  std::vector<ExprDoc> decorators;
  /*! \brief kFunction: parameters as kAssign docs (`A: T.Buffer(...)`). */
  std::vector<StmtDoc> args;
};

/*! \brief `expr` as a statement. */
StmtDoc ExprStmtDoc(ExprDoc expr);
/*! \brief `lhs[: annotation][ = rhs]`; rhs or annotation may be null. */
StmtDoc AssignDoc(ExprDoc lhs, ExprDoc rhs, ExprDoc annotation = nullptr);
/*! \brief `for lhs in rhs:` */
StmtDoc ForDoc(ExprDoc lhs, ExprDoc rhs, std::vector<StmtDoc> body);
/*! \brief `while cond:` */
StmtDoc WhileDoc(ExprDoc cond, std::vector<StmtDoc> body);
/*! \brief `if cond:` with an optional else branch. */
StmtDoc IfDoc(ExprDoc cond, std::vector<StmtDoc> then_body, std::vector<StmtDoc> else_body);
/*! \brief `with rhs as lhs:` (lhs may be null). */
StmtDoc ScopeDoc(ExprDoc lhs, ExprDoc rhs, std::vector<StmtDoc> body);
/*! \brief `assert cond, msg` (msg may be null). */
StmtDoc AssertDoc(ExprDoc cond, ExprDoc msg);
/*! \brief `return value` (value may be null). */
StmtDoc ReturnDoc(ExprDoc value);
/*! \brief A function definition. */
StmtDoc FunctionDoc(std::string name, std::vector<StmtDoc> args, std::vector<ExprDoc> decorators,
                    ExprDoc return_type, std::vector<StmtDoc> body);
/*! \brief A class definition. */
StmtDoc ClassDoc(std::string name, std::vector<ExprDoc> decorators, std::vector<StmtDoc> body);
/*! \brief `# text` (one comment line per line of text). */
StmtDoc CommentDoc(std::string text);
/*! \brief Several statements that print as if they were in the enclosing list. */
StmtDoc StmtBlockDoc(std::vector<StmtDoc> stmts);

/*! \brief Options of the renderer. */
struct PrintOptions {
  /*! \brief Spaces per indentation level. */
  int indent_spaces = 4;
};

/*! \brief Render an expression as Python source. */
std::string DocToPythonScript(const ExprDoc& doc, const PrintOptions& options = {});
/*! \brief Render statements as Python source, one per line, ending with a newline. */
std::string DocToPythonScript(const std::vector<StmtDoc>& docs, const PrintOptions& options = {});

}  // namespace printer
}  // namespace script
}  // namespace minitvm

#endif  // MINITVM_SCRIPT_DOC_H_

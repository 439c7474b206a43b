/*!
 * \file minitvm/script/lexer.h
 * \brief The tokenizer of the Python subset TVMScript is written in (stage 2, core): names,
 * numbers, strings, operators, and Python's layout tokens (NEWLINE, INDENT, DEDENT).
 *
 * Layout follows Python: a logical line ends at a newline outside brackets; a backslash joins
 * lines; blank and comment-only lines are ignored; indentation opens and closes blocks, and
 * an unindent to a level never opened is a "bad indentation" ParseError. The first line's
 * indentation is the base level, so a method cut out of a class (with `inspect`) tokenizes
 * as it is and keeps its original columns.
 */
#ifndef MINITVM_SCRIPT_LEXER_H_
#define MINITVM_SCRIPT_LEXER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "minitvm/script/diagnostic.h"

namespace minitvm {
namespace script {

/*! \brief One token. */
struct Token {
  /*! \brief The token classes. */
  enum class Kind { kName, kInt, kFloat, kString, kOp, kNewline, kIndent, kDedent, kEnd };
  Kind kind = Kind::kEnd;
  /*! \brief kName: the name; kOp: the operator text; kString: the decoded value. */
  std::string text;
  /*! \brief kInt: the value. */
  int64_t int_value = 0;
  /*! \brief kFloat: the value. */
  double float_value = 0;
  Span span;
  /*! \brief True for `op` tokens spelled `text`. */
  bool Is(Kind k, const char* t) const { return kind == k && text == t; }
  bool IsOp(const char* t) const { return Is(Kind::kOp, t); }
  bool IsName(const char* t) const { return Is(Kind::kName, t); }
};

/*! \brief Tokenize `source`; ParseError (with the source line and a caret) on bad input. */
std::vector<Token> Tokenize(const SourceFile& source);

}  // namespace script
}  // namespace minitvm

#endif  // MINITVM_SCRIPT_LEXER_H_

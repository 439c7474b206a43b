/*!
 * \file tir_utils.cc
 * \brief Range extents and Python names for the script printer and parser (stage 2).
 */
#include "tir_utils.h"

#include <cctype>
#include <set>

#include "minitvm/tir/op.h"

namespace minitvm {
namespace script {

bool IsConstInt(const PrimExpr& e, int64_t value) {
  auto v = AsConstInt(e);
  return v && *v == value;
}

PrimExpr RangeExtent(const PrimExpr& start, const PrimExpr& stop) {
  auto a = AsConstInt(start), b = AsConstInt(stop);
  if (a && b && start.dtype() == stop.dtype()) return IntImm(stop.dtype(), *b - *a);
  if (auto* add = stop.as<tir::AddNode>()) {
    if (ExprDeepEqual(add->a, start)) return add->b;
    if (ExprDeepEqual(add->b, start)) return add->a;
  }
  return stop - start;
}

bool IsPythonKeyword(const std::string& name) {
  static const std::set<std::string> keywords = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  return keywords.count(name) > 0;
}

bool IsPythonIdentifier(const std::string& name) {
  if (name.empty() || IsPythonKeyword(name)) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    // Bytes of non-ASCII characters count as letters, as Python 3 and the lexer allow.
    bool ok = c >= 128 || std::isalpha(c) || c == '_' || (i > 0 && std::isdigit(c));
    if (!ok) return false;
  }
  return true;
}

}  // namespace script
}  // namespace minitvm

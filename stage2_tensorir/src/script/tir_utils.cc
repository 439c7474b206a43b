/*!
 * \file tir_utils.cc
 * \brief Expression deep equality and range extents for the script printer and parser
 * (stage 2). Deep equality walks the node's field list (VisitAttrs), so it follows every
 * expression node without a per-node switch.
 */
#include "tir_utils.h"

#include <cctype>
#include <set>
#include <vector>

#include "minitvm/tir/op.h"
#include "minitvm/tir/var.h"

namespace minitvm {
namespace script {
namespace {

/*! \brief Collects a node's fields as Any values, in order. */
class FieldCollector : public AttrVisitor {
 public:
  std::vector<Any> values;
  void Visit(const char*, int64_t* v) override { values.emplace_back(*v); }
  void Visit(const char*, double* v) override { values.emplace_back(*v); }
  void Visit(const char*, bool* v) override { values.emplace_back(*v); }
  void Visit(const char*, std::string* v) override { values.emplace_back(*v); }
  void Visit(const char*, DataType* v) override { values.emplace_back(*v); }
  void Visit(const char*, ObjectRef* v) override { values.emplace_back(*v); }
  void Visit(const char*, Any* v) override { values.push_back(*v); }
};

bool AnyDeepEqual(const Any& a, const Any& b, int depth);

bool ObjectDeepEqual(const Object* a, const Object* b, int depth) {
  if (a == b) return true;
  if (a == nullptr || b == nullptr) return false;
  if (a->type_index() != b->type_index()) return false;
  // Variables and buffers are compared by identity: two `i`s are different variables.
  if (a->IsInstance<tir::VarNode>() || a->IsInstance<tir::BufferNode>()) return false;
  if (depth > 512) return false;
  if (auto* sa = dynamic_cast<const runtime::StringObj*>(a)) {
    return sa->data == static_cast<const runtime::StringObj*>(b)->data;
  }
  if (auto* arr = dynamic_cast<const runtime::ArrayNode*>(a)) {
    auto* brr = static_cast<const runtime::ArrayNode*>(b);
    if (arr->data.size() != brr->data.size()) return false;
    for (size_t i = 0; i < arr->data.size(); ++i) {
      if (!AnyDeepEqual(arr->data[i], brr->data[i], depth + 1)) return false;
    }
    return true;
  }
  FieldCollector fa, fb;
  const_cast<Object*>(a)->VisitAttrs(&fa);
  const_cast<Object*>(b)->VisitAttrs(&fb);
  if (fa.values.size() != fb.values.size()) return false;
  for (size_t i = 0; i < fa.values.size(); ++i) {
    if (!AnyDeepEqual(fa.values[i], fb.values[i], depth + 1)) return false;
  }
  return true;
}

bool AnyDeepEqual(const Any& a, const Any& b, int depth) {
  if (a.tag() != b.tag()) return false;
  if (a.is_object()) return ObjectDeepEqual(a.as_object(), b.as_object(), depth);
  if (a.tag() == Any::kDataType) return a.raw_dtype() == b.raw_dtype();
  return a == b;
}

}  // namespace

bool ExprDeepEqual(const PrimExpr& a, const PrimExpr& b) {
  return ObjectDeepEqual(a.get(), b.get(), 0);
}

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

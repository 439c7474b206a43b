/*!
 * \file minitvm/script/diagnostic.h
 * \brief Source text and diagnostics for TVMScript (stage 2, core): a `SourceFile` that knows
 * its file name and where it sits in that file, a `Span` (line and column range), and the
 * `ParseError` formatter that prints the message, the location, the source line and a caret.
 *
 * This file is part of the language-independent core of the script front end: the TensorIR
 * parser uses it now and the Relax parser (stage 4) reuses it.
 */
#ifndef MINITVM_SCRIPT_DIAGNOSTIC_H_
#define MINITVM_SCRIPT_DIAGNOSTIC_H_

#include <string>
#include <string_view>
#include <vector>

namespace minitvm {
namespace script {

/*!
 * \brief A region of source text. Lines are 1-based and relative to the parsed text; columns
 * are 1-based byte offsets in the line; the end is exclusive. A default Span is "unknown".
 */
struct Span {
  int line = 0;
  int col = 0;
  int end_line = 0;
  int end_col = 0;
  /*! \brief False for the unknown span. */
  bool defined() const { return line > 0; }
  /*! \brief The smallest span covering both (an undefined side is ignored). */
  static Span Merge(const Span& a, const Span& b);
};

/*!
 * \brief A source text together with the file it came from. `line_offset` is added to every
 * reported line number, so a function taken out of a larger Python file (by `inspect`) reports
 * the line numbers of that file.
 */
class SourceFile {
 public:
  explicit SourceFile(std::string text, std::string file_name = "<string>", int line_offset = 0);
  /*! \brief The whole text. */
  const std::string& text() const { return text_; }
  /*! \brief The file name used in messages. */
  const std::string& file_name() const { return file_name_; }
  /*! \brief Added to line numbers in messages. */
  int line_offset() const { return line_offset_; }
  /*! \brief Number of lines in the text. */
  int num_lines() const { return static_cast<int>(line_starts_.size()); }
  /*! \brief Line `line` (1-based) without its newline; empty when out of range. */
  std::string_view Line(int line) const;

 private:
  std::string text_;
  std::string file_name_;
  int line_offset_;
  std::vector<size_t> line_starts_;
};

/*!
 * \brief Render a diagnostic in the rustc-like layout used by every minitvm parse error:
 *
 *     error: unknown name "T.foo"
 *      --> my_kernel.py:12:17
 *        |
 *     12 |         B[vi] = T.foo(A[vi])
 *        |                 ^^^^^
 *
 * Without a span only the first line is printed.
 */
std::string FormatDiagnostic(const SourceFile& source, const Span& span, const std::string& message,
                             const std::string& level = "error");

/*!
 * \brief Throw a minitvm::Error of kind "ParseError" whose message is the formatted
 * diagnostic for `span`.
 */
[[noreturn]] void ThrowParseError(const SourceFile& source, const Span& span,
                                  const std::string& message);

/*! \brief Quote a string for messages and for Python source: `"a\"b"`. */
std::string QuoteString(std::string_view s);

}  // namespace script
}  // namespace minitvm

#endif  // MINITVM_SCRIPT_DIAGNOSTIC_H_

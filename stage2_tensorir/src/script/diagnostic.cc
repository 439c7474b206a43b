/*!
 * \file diagnostic.cc
 * \brief Source files, spans and the ParseError layout shared by the script front ends
 * (stage 2, core).
 */
#include "minitvm/script/diagnostic.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "minitvm/runtime/error.h"

namespace minitvm {
namespace script {

Span Span::Merge(const Span& a, const Span& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  Span s;
  if (a.line < b.line || (a.line == b.line && a.col <= b.col)) {
    s.line = a.line;
    s.col = a.col;
  } else {
    s.line = b.line;
    s.col = b.col;
  }
  if (a.end_line > b.end_line || (a.end_line == b.end_line && a.end_col >= b.end_col)) {
    s.end_line = a.end_line;
    s.end_col = a.end_col;
  } else {
    s.end_line = b.end_line;
    s.end_col = b.end_col;
  }
  return s;
}

SourceFile::SourceFile(std::string text, std::string file_name, int line_offset)
    : text_(std::move(text)), file_name_(std::move(file_name)), line_offset_(line_offset) {
  // Python reads "\r\n" and a bare "\r" as line ends: normalise both to "\n" once, here, so
  // that the lexer, the line numbers and the diagnostics agree on where lines end.
  if (text_.find('\r') != std::string::npos) {
    std::string normal;
    normal.reserve(text_.size());
    for (size_t i = 0; i < text_.size(); ++i) {
      if (text_[i] != '\r') {
        normal += text_[i];
      } else if (i + 1 >= text_.size() || text_[i + 1] != '\n') {
        normal += '\n';
      }
    }
    text_ = std::move(normal);
  }
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n' && i + 1 < text_.size()) line_starts_.push_back(i + 1);
  }
}

std::string_view SourceFile::Line(int line) const {
  if (line < 1 || line > num_lines()) return {};
  size_t begin = line_starts_[line - 1];
  size_t end = text_.find('\n', begin);
  if (end == std::string::npos) end = text_.size();
  if (end > begin && text_[end - 1] == '\r') --end;
  return std::string_view(text_).substr(begin, end - begin);
}

namespace {

/*! \brief True for the bytes that continue a UTF-8 sequence (they take no column). */
bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

/*! \brief The visible column (1-based, in characters) of byte column `col` in `line`. */
int DisplayColumn(std::string_view line, int col) {
  int display = 1;
  for (int i = 0; i + 1 < col && i < static_cast<int>(line.size()); ++i) {
    if (!IsContinuationByte(line[i])) ++display;
  }
  return display;
}

}  // namespace

std::string FormatDiagnostic(const SourceFile& source, const Span& span, const std::string& message,
                             const std::string& level) {
  std::ostringstream os;
  os << level << ": " << message;
  if (!span.defined()) {
    os << "\n --> " << source.file_name();
    return os.str();
  }
  int shown_line = span.line + source.line_offset();
  std::string_view line = source.Line(span.line);
  os << "\n --> " << source.file_name() << ":" << shown_line << ":"
     << DisplayColumn(line, span.col);
  std::string number = std::to_string(shown_line);
  std::string gutter(number.size() + 1, ' ');
  os << "\n" << gutter << "|";
  os << "\n" << number << " | " << line;
  // The caret line repeats the tabs of the source so that it lines up in any terminal.
  std::string prefix;
  int col = std::max(1, span.col);
  for (int i = 0; i + 1 < col && i < static_cast<int>(line.size()); ++i) {
    if (line[i] == '\t') {
      prefix += '\t';
    } else if (!IsContinuationByte(line[i])) {
      prefix += ' ';
    }
  }
  int end_col = span.end_line == span.line ? span.end_col : static_cast<int>(line.size()) + 1;
  int width = 0;
  for (int i = col - 1; i + 1 < end_col && i < static_cast<int>(line.size()); ++i) {
    if (!IsContinuationByte(line[i])) ++width;
  }
  os << "\n" << gutter << "| " << prefix << std::string(std::max(1, width), '^');
  return os.str();
}

void ThrowParseError(const SourceFile& source, const Span& span, const std::string& message) {
  throw Error("ParseError", FormatDiagnostic(source, span, message));
}

std::string QuoteString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += "\"";
  return out;
}

}  // namespace script
}  // namespace minitvm

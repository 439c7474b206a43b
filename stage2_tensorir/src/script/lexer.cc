/*!
 * \file lexer.cc
 * \brief The tokenizer of the script front end (stage 2, core). It never reads past the end
 * of the text and reports every malformed token as a ParseError pointing at it.
 */
#include "minitvm/script/lexer.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace minitvm {
namespace script {
namespace {

/*! \brief Operators, longest first so that the first match is the longest. */
const char* const kOperators[] = {"**=", "//=", ">>=", "<<=", "...", "->", "**", "//", "==", "!=",
                                  "<=",  ">=",  "<<",  ">>",  "+=",  "-=", "*=", "/=", "%=", "&=",
                                  "|=",  "^=",  ":=",  "@=",  "+",   "-",  "*",  "/",  "%",  "@",
                                  "&",   "|",   "^",   "~",   "<",   ">",  "(",  ")",  "[",  "]",
                                  "{",   "}",   ",",   ":",   ".",   ";",  "=",  "!"};

constexpr int kMaxIndentLevels = 100;

bool IsIdentStart(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return std::isalpha(u) || c == '_' || u >= 0x80;
}
bool IsIdentChar(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return std::isalnum(u) || c == '_' || u >= 0x80;
}

class Lexer {
 public:
  explicit Lexer(const SourceFile& source) : src_(source), text_(source.text()) {}

  std::vector<Token> Run() {
    while (pos_ < text_.size()) {
      if (at_line_start_ && brackets_.empty()) {
        if (!LineStart()) continue;
      }
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\f') {
        ++pos_;
      } else if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (c == '\\') {
        size_t next = pos_ + 1;
        if (next < text_.size() && text_[next] == '\r') ++next;
        if (next >= text_.size() || text_[next] != '\n') {
          Error(SpanAt(pos_, pos_ + 1), "unexpected character after line continuation '\\'");
        }
        pos_ = next + 1;
        NewLine(pos_);
      } else if (c == '\r' || c == '\n') {
        if (c == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') ++pos_;
        if (brackets_.empty() && !tokens_.empty() && tokens_.back().kind != Token::Kind::kNewline &&
            tokens_.back().kind != Token::Kind::kIndent &&
            tokens_.back().kind != Token::Kind::kDedent) {
          Push(Token::Kind::kNewline, "", SpanAt(pos_, pos_ + 1));
        }
        ++pos_;
        NewLine(pos_);
        if (brackets_.empty()) at_line_start_ = true;
      } else if (IsIdentStart(c)) {
        Name();
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && pos_ + 1 < text_.size() &&
                  std::isdigit(static_cast<unsigned char>(text_[pos_ + 1])))) {
        Number();
      } else if (c == '"' || c == '\'') {
        String(pos_, pos_);
      } else {
        Operator();
      }
    }
    if (!brackets_.empty()) {
      Error(brackets_.back().span,
            "'" + brackets_.back().text + "' was never closed (unexpected end of input)");
    }
    Span end = SpanAt(text_.size(), text_.size() + 1);
    if (!tokens_.empty() && tokens_.back().kind != Token::Kind::kNewline &&
        tokens_.back().kind != Token::Kind::kDedent) {
      Push(Token::Kind::kNewline, "", end);
    }
    while (indents_.size() > 1) {
      indents_.pop_back();
      Push(Token::Kind::kDedent, "", end);
    }
    Push(Token::Kind::kEnd, "", end);
    return std::move(tokens_);
  }

 private:
  [[noreturn]] void Error(const Span& span, const std::string& message) {
    ThrowParseError(src_, span, message);
  }

  Span SpanAt(size_t begin, size_t end) const {
    Span s;
    s.line = line_;
    s.col = static_cast<int>(begin - line_start_) + 1;
    s.end_line = line_;
    s.end_col = static_cast<int>(end - line_start_) + 1;
    return s;
  }

  void NewLine(size_t start) {
    ++line_;
    line_start_ = start;
  }

  void Push(Token::Kind kind, std::string text, Span span) {
    Token t;
    t.kind = kind;
    t.text = std::move(text);
    t.span = span;
    tokens_.push_back(std::move(t));
  }

  /*! \brief Handle indentation; false when the line was blank (and was skipped). */
  bool LineStart() {
    int width = 0;
    int alt_width = 0;  // the width with tabs of size 1: Python's test for tab/space mixtures
    size_t p = pos_;
    while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t' || text_[p] == '\f')) {
      width = text_[p] == '\t' ? (width / 8 + 1) * 8 : width + (text_[p] == ' ' ? 1 : 0);
      alt_width += text_[p] == '\f' ? 0 : 1;
      ++p;
    }
    if (p >= text_.size() || text_[p] == '#' || text_[p] == '\n' || text_[p] == '\r') {
      // Blank or comment-only line: no layout tokens.
      while (p < text_.size() && text_[p] != '\n') ++p;
      if (p < text_.size()) {
        pos_ = p + 1;
        NewLine(pos_);
      } else {
        pos_ = p;
      }
      return false;
    }
    Span span = SpanAt(pos_, p);
    span.col = 1;
    span.end_col = static_cast<int>(p - line_start_) + 1;
    pos_ = p;
    at_line_start_ = false;
    // As Python: the indentation must compare the same with tabs of 8 and of 1 columns.
    const char* kTabError = "inconsistent use of tabs and spaces in indentation";
    if (indents_.empty()) {
      indents_.push_back(width);  // the base level of the whole text
      alt_indents_.push_back(alt_width);
    } else if (width == indents_.back()) {
      if (alt_width != alt_indents_.back()) Error(span, kTabError);
    } else if (width > indents_.back()) {
      if (alt_width <= alt_indents_.back()) Error(span, kTabError);
      if (tokens_.empty() || tokens_.back().kind != Token::Kind::kNewline) {
        Error(span, "bad indentation: unexpected indent");
      }
      if (static_cast<int>(indents_.size()) >= kMaxIndentLevels) {
        Error(span, "bad indentation: blocks are nested too deeply");
      }
      indents_.push_back(width);
      alt_indents_.push_back(alt_width);
      Push(Token::Kind::kIndent, "", span);
    } else if (width < indents_.back()) {
      while (!indents_.empty() && width < indents_.back()) {
        indents_.pop_back();
        alt_indents_.pop_back();
        Push(Token::Kind::kDedent, "", span);
      }
      if (indents_.empty()) {
        Error(span, "bad indentation: the line is indented less than the first line");
      }
      if (width != indents_.back()) {
        Error(span, "bad indentation: unindent does not match any outer indentation level");
      }
      if (alt_width != alt_indents_.back()) Error(span, kTabError);
    }
    return true;
  }

  void Name() {
    size_t begin = pos_;
    while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
    std::string name = text_.substr(begin, pos_ - begin);
    // A string prefix: r"...", b'...', f"..." (f-strings are not part of the subset).
    if (pos_ < text_.size() && (text_[pos_] == '"' || text_[pos_] == '\'') && name.size() <= 2) {
      std::string lower;
      for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower.find('f') != std::string::npos &&
          lower.find_first_not_of("rbuf") == std::string::npos) {
        Error(SpanAt(begin, pos_ + 1), "unsupported Python construct: f-string");
      }
      if (lower == "r" || lower == "b" || lower == "u" || lower == "rb" || lower == "br") {
        String(begin, pos_, lower.find('r') != std::string::npos);
        return;
      }
    }
    Push(Token::Kind::kName, std::move(name), SpanAt(begin, pos_));
  }

  void Number() {
    size_t begin = pos_;
    auto span = [&]() { return SpanAt(begin, pos_); };
    if (text_[pos_] == '0' && pos_ + 1 < text_.size() &&
        std::strchr("xXoObB", text_[pos_ + 1]) != nullptr && text_[pos_ + 1] != '\0') {
      char base_char = static_cast<char>(std::tolower(static_cast<unsigned char>(text_[pos_ + 1])));
      int base = base_char == 'x' ? 16 : base_char == 'o' ? 8 : 2;
      pos_ += 2;
      std::string digits;
      while (pos_ < text_.size() &&
             (std::isxdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
        if (text_[pos_] != '_') digits += text_[pos_];
        ++pos_;
      }
      if (digits.empty()) Error(span(), "invalid integer literal");
      errno = 0;
      char* end = nullptr;
      unsigned long long v = std::strtoull(digits.c_str(), &end, base);
      if (*end != '\0') Error(span(), "invalid integer literal");
      if (errno == ERANGE || v > static_cast<unsigned long long>(INT64_MAX)) {
        Error(span(), "integer literal is too large (the limit is 2**63 - 1)");
      }
      Token t;
      t.kind = Token::Kind::kInt;
      t.int_value = static_cast<int64_t>(v);
      t.text = text_.substr(begin, pos_ - begin);
      t.span = span();
      tokens_.push_back(t);
      return;
    }
    std::string digits;
    bool is_float = false;
    auto take_digits = [&]() {
      while (pos_ < text_.size() &&
             (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
        if (text_[pos_] != '_') digits += text_[pos_];
        ++pos_;
      }
    };
    take_digits();
    if (pos_ < text_.size() && text_[pos_] == '.') {
      is_float = true;
      digits += '.';
      ++pos_;
      take_digits();
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      size_t save = pos_;
      std::string exp = "e";
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) exp += text_[pos_++];
      if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        is_float = true;
        digits += exp;
        take_digits();
      } else {
        pos_ = save;
      }
    }
    if (pos_ < text_.size() && (text_[pos_] == 'j' || text_[pos_] == 'J')) {
      ++pos_;
      Error(span(), "unsupported Python construct: complex number");
    }
    if (pos_ < text_.size() && IsIdentStart(text_[pos_])) {
      while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
      Error(span(), "invalid number literal");
    }
    Token t;
    t.text = text_.substr(begin, pos_ - begin);
    t.span = span();
    if (is_float) {
      t.kind = Token::Kind::kFloat;
      t.float_value = std::strtod(digits.c_str(), nullptr);
    } else {
      errno = 0;
      char* end = nullptr;
      unsigned long long v = std::strtoull(digits.c_str(), &end, 10);
      if (errno == ERANGE || v > static_cast<unsigned long long>(INT64_MAX)) {
        Error(span(), "integer literal is too large (the limit is 2**63 - 1)");
      }
      t.kind = Token::Kind::kInt;
      t.int_value = static_cast<int64_t>(v);
    }
    tokens_.push_back(std::move(t));
  }

  static void AppendUtf8(std::string* out, uint32_t cp) {
    if (cp < 0x80) {
      *out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      *out += static_cast<char>(0xC0 | (cp >> 6));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      *out += static_cast<char>(0xE0 | (cp >> 12));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      *out += static_cast<char>(0xF0 | ((cp >> 18) & 0x07));
      *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  /*! \brief A string literal whose prefix starts at `begin` and quote at `quote_pos`. */
  void String(size_t begin, size_t quote_pos, bool raw = false) {
    int start_line = line_;
    size_t start_line_start = line_start_;
    char q = text_[quote_pos];
    bool triple =
        quote_pos + 2 < text_.size() && text_[quote_pos + 1] == q && text_[quote_pos + 2] == q;
    pos_ = quote_pos + (triple ? 3 : 1);
    std::string value;
    Span start_span;
    start_span.line = start_line;
    start_span.col = static_cast<int>(begin - start_line_start) + 1;
    start_span.end_line = start_line;
    start_span.end_col = static_cast<int>(pos_ - start_line_start) + 1;
    while (true) {
      if (pos_ >= text_.size()) Error(start_span, "unterminated string literal");
      char c = text_[pos_];
      if (!triple && (c == '\n' || c == '\r')) Error(start_span, "unterminated string literal");
      if (c == q) {
        if (!triple) {
          ++pos_;
          break;
        }
        if (pos_ + 2 < text_.size() && text_[pos_ + 1] == q && text_[pos_ + 2] == q) {
          pos_ += 3;
          break;
        }
      }
      if (c == '\n') {
        value += c;
        ++pos_;
        NewLine(pos_);
        continue;
      }
      if (c == '\\' && pos_ + 1 < text_.size()) {
        char e = text_[pos_ + 1];
        if (raw) {
          value += c;
          value += e;
          pos_ += 2;
          if (e == '\n') NewLine(pos_);
          continue;
        }
        pos_ += 2;
        switch (e) {
          case 'n':
            value += '\n';
            break;
          case 't':
            value += '\t';
            break;
          case 'r':
            value += '\r';
            break;
          case '0':
            value += '\0';
            break;
          case '\\':
          case '\'':
          case '"':
            value += e;
            break;
          case '\n':
            NewLine(pos_);
            break;
          case 'x':
          case 'u':
          case 'U': {
            int n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
            uint32_t cp = 0;
            for (int i = 0; i < n; ++i) {
              if (pos_ >= text_.size() || !std::isxdigit(static_cast<unsigned char>(text_[pos_]))) {
                Error(SpanAt(pos_ - 2, pos_), "invalid escape sequence in string literal");
              }
              char h = text_[pos_++];
              cp = cp * 16 + static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(h))
                                                       ? h - '0'
                                                       : std::tolower(h) - 'a' + 10);
            }
            if (cp > 0x10FFFF) Error(SpanAt(pos_ - n - 2, pos_), "invalid unicode escape");
            AppendUtf8(&value, cp);
            break;
          }
          default:
            value += '\\';
            value += e;
        }
        continue;
      }
      value += c;
      ++pos_;
    }
    Token t;
    t.kind = Token::Kind::kString;
    t.text = std::move(value);
    t.span = start_span;
    if (line_ == start_line) t.span.end_col = static_cast<int>(pos_ - line_start_) + 1;
    tokens_.push_back(std::move(t));
  }

  void Operator() {
    std::string_view rest(text_.data() + pos_, text_.size() - pos_);
    for (const char* op : kOperators) {
      std::string_view o(op);
      if (rest.substr(0, o.size()) != o) continue;
      Span span = SpanAt(pos_, pos_ + o.size());
      if (o == "(" || o == "[" || o == "{") {
        if (brackets_.size() >= 500) Error(span, "brackets are nested too deeply");
        Token open;
        open.text = std::string(o);
        open.span = span;
        brackets_.push_back(open);
      } else if (o == ")" || o == "]" || o == "}") {
        static const std::string pairs[][2] = {{"(", ")"}, {"[", "]"}, {"{", "}"}};
        if (brackets_.empty()) Error(span, "unmatched '" + std::string(o) + "'");
        std::string expected;
        for (const auto& pr : pairs) {
          if (pr[0] == brackets_.back().text) expected = pr[1];
        }
        if (expected != o) {
          Error(span, "closing '" + std::string(o) + "' does not match opening '" +
                          brackets_.back().text + "'");
        }
        brackets_.pop_back();
      }
      pos_ += o.size();
      Push(Token::Kind::kOp, std::string(o), span);
      return;
    }
    // One UTF-8 character (or one byte) is invalid here.
    size_t end = pos_ + 1;
    while (end < text_.size() && (static_cast<unsigned char>(text_[end]) & 0xC0) == 0x80) ++end;
    Error(SpanAt(pos_, end), "invalid character in script");
  }

  const SourceFile& src_;
  const std::string& text_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
  bool at_line_start_ = true;
  std::vector<int> indents_;
  std::vector<int> alt_indents_;  // indents_ measured with tabs of 1 column
  std::vector<Token> brackets_;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> Tokenize(const SourceFile& source) { return Lexer(source).Run(); }

}  // namespace script
}  // namespace minitvm

/*!
 * \file json.cc
 * \brief A small JSON reader and writer over `Any` (stage 3, internal), used for traces.
 */
#include "json.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace minitvm {
namespace tir {
namespace json {

using runtime::Any;
using runtime::Array;
using runtime::ArrayNode;
using runtime::Map;
using runtime::MapNode;
using runtime::String;
using runtime::StringObj;

namespace {

void WriteString(const std::string& s, std::ostringstream& os) {
  os << '"';
  for (char c : s) {
    switch (c) {
      case '"':
        os << "\\\"";
        break;
      case '\\':
        os << "\\\\";
        break;
      case '\n':
        os << "\\n";
        break;
      case '\t':
        os << "\\t";
        break;
      case '\r':
        os << "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          os << buf;
        } else {
          os << c;
        }
    }
  }
  os << '"';
}

void WriteValue(const Any& v, std::ostringstream& os) {
  if (v.is_null()) {
    os << "null";
  } else if (v.is_bool()) {
    os << (v.raw_int() ? "true" : "false");
  } else if (v.is_int()) {
    os << v.raw_int();
  } else if (v.is_float()) {
    double d = v.raw_float();
    if (!std::isfinite(d)) MINITVM_THROW(ValueError) << "JSON cannot hold the number " << d;
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.17g", d);
    std::string s = buf;
    if (s.find_first_of(".eE") == std::string::npos) s += ".0";
    os << s;
  } else if (v.is_string()) {
    WriteString(v.cast<std::string>(), os);
  } else if (auto* arr = v.as<ArrayNode>()) {
    os << '[';
    for (size_t i = 0; i < arr->data.size(); ++i) {
      if (i) os << ", ";
      WriteValue(arr->data[i], os);
    }
    os << ']';
  } else if (auto* map = v.as<MapNode>()) {
    os << '{';
    for (size_t i = 0; i < map->data.size(); ++i) {
      if (i) os << ", ";
      WriteString(map->data[i].first.cast<std::string>(), os);
      os << ": ";
      WriteValue(map->data[i].second, os);
    }
    os << '}';
  } else {
    MINITVM_THROW(TypeError) << "JSON cannot hold a value of type " << v.type_name();
  }
}

class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}
  Any ParseAll() {
    Any v = Value();
    Skip();
    if (pos_ != s_.size()) Fail("unexpected text after the value");
    return v;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) {
    MINITVM_THROW(ValueError) << "malformed JSON at offset " << pos_ << ": " << what;
  }
  void Skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Eat(char c) {
    Skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void Expect(char c) {
    if (!Eat(c)) Fail(std::string("expected '") + c + "'");
  }
  Any Value() {
    Skip();
    if (pos_ >= s_.size()) Fail("unexpected end of input");
    char c = s_[pos_];
    if (c == '[') {
      ++pos_;
      Array<Any> arr;
      if (Eat(']')) return arr;
      do {
        arr.push_back(Value());
      } while (Eat(','));
      Expect(']');
      return arr;
    }
    if (c == '{') {
      ++pos_;
      Map<String, Any> map;
      if (Eat('}')) return map;
      do {
        Skip();
        std::string key = Str();
        Expect(':');
        map.Set(String(key), Value());
      } while (Eat(','));
      Expect('}');
      return map;
    }
    if (c == '"') return Any(String(Str()));
    if (s_.compare(pos_, 4, "null") == 0) {
      pos_ += 4;
      return Any();
    }
    if (s_.compare(pos_, 4, "true") == 0) {
      pos_ += 4;
      return Any(true);
    }
    if (s_.compare(pos_, 5, "false") == 0) {
      pos_ += 5;
      return Any(false);
    }
    return Number();
  }
  std::string Str() {
    if (pos_ >= s_.size() || s_[pos_] != '"') Fail("expected a string");
    ++pos_;
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) Fail("unfinished escape");
      char e = s_[pos_++];
      switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'u': {
          if (pos_ + 4 > s_.size()) Fail("short \\u escape");
          int code = std::stoi(s_.substr(pos_, 4), nullptr, 16);
          pos_ += 4;
          if (code < 0x80) {
            out += static_cast<char>(code);
          } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
          } else {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
          }
          break;
        }
        default:
          out += e;
      }
    }
    if (pos_ >= s_.size()) Fail("unterminated string");
    ++pos_;
    return out;
  }
  Any Number() {
    size_t start = pos_;
    if (pos_ < s_.size() && (s_[pos_] == '-' || s_[pos_] == '+')) ++pos_;
    bool is_float = false;
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (std::isdigit(static_cast<unsigned char>(c))) {
        ++pos_;
      } else if (c == '.' || c == 'e' || c == 'E' || ((c == '-' || c == '+') && is_float)) {
        is_float = true;
        ++pos_;
      } else {
        break;
      }
    }
    std::string num = s_.substr(start, pos_ - start);
    if (num.empty() || num == "-" || num == "+") Fail("expected a value");
    try {
      if (is_float) return Any(std::stod(num));
      return Any(static_cast<int64_t>(std::stoll(num)));
    } catch (const std::exception&) {
      Fail("bad number " + num);
    }
  }

  const std::string& s_;
  size_t pos_ = 0;
};

}  // namespace

std::string Write(const Any& value) {
  std::ostringstream os;
  WriteValue(value, os);
  return os.str();
}

Any Read(const std::string& text) { return Parser(text).ParseAll(); }

}  // namespace json
}  // namespace tir
}  // namespace minitvm

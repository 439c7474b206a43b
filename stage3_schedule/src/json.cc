/*!
 * \file json.cc
 * \brief A small JSON reader and writer over `Any` (stage 3, internal), used for traces, and
 * the reflection-driven node serialiser (see json.h).
 */
#include "json.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>
#include <unordered_map>

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

// ---- nodes through their field lists ----------------------------------------------------------

namespace {

using runtime::AttrVisitor;
using runtime::DataType;
using runtime::Object;
using runtime::ObjectPtr;
using runtime::ObjectRef;

std::map<std::string, std::function<ObjectPtr<Object>()>>& Creators() {
  static std::map<std::string, std::function<ObjectPtr<Object>()>> table;
  return table;
}
std::mutex& CreatorsMutex() {
  static std::mutex m;
  return m;
}

/*! \brief Writes the node table: each node once, children first. */
class NodeWriter : public AttrVisitor {
 public:
  /*! \brief The index of `node` in the table (written now if it is new); null for none. */
  Any Index(const ObjectRef& node) {
    if (!node.defined()) return Any();
    auto it = index_.find(node.get());
    if (it != index_.end()) return Any(it->second);
    Map<String, Any> entry;
    entry.Set(String("type"), Any(String(node->GetTypeKey())));
    if (auto* s = dynamic_cast<const StringObj*>(node.get())) {
      entry.Set(String("value"), Any(String(s->data)));
    } else if (auto* a = dynamic_cast<const ArrayNode*>(node.get())) {
      Array<Any> items;
      for (const Any& v : a->data) items.push_back(Value(v));
      entry.Set(String("items"), Any(items));
    } else if (dynamic_cast<const MapNode*>(node.get()) != nullptr) {
      MINITVM_THROW(TypeError) << "NodeToJSON: maps are not supported yet";
    } else {
      // The node's own fields, as VisitAttrs lists them.
      Map<String, Any> saved = fields_;
      fields_ = Map<String, Any>();
      const_cast<Object*>(node.get())->VisitAttrs(this);
      entry.Set(String("fields"), Any(fields_));
      fields_ = saved;
    }
    int64_t i = static_cast<int64_t>(nodes_.size());
    nodes_.push_back(Any(entry));
    index_[node.get()] = i;
    return Any(i);
  }
  /*! \brief An Any: a node as {"ref": i}, anything else as itself. */
  Any Value(const Any& v) {
    if (v.as_object() == nullptr) {
      if (v.tag() == Any::kDataType) return Any(String(runtime::DataTypeToString(v.raw_dtype())));
      return v;
    }
    Map<String, Any> ref;
    ref.Set(String("ref"), Index(v.cast<ObjectRef>()));
    return Any(ref);
  }
  const Array<Any>& nodes() const { return nodes_; }

  void Visit(const char* key, int64_t* value) override { Set(key, Any(*value)); }
  void Visit(const char* key, double* value) override { Set(key, Any(*value)); }
  void Visit(const char* key, bool* value) override { Set(key, Any(*value)); }
  void Visit(const char* key, std::string* value) override { Set(key, Any(String(*value))); }
  void Visit(const char* key, DataType* value) override {
    Set(key, Any(String(runtime::DataTypeToString(*value))));
  }
  void Visit(const char* key, ObjectRef* value) override { Set(key, Index(*value)); }
  void Visit(const char* key, Any* value) override { Set(key, Value(*value)); }

 private:
  void Set(const char* key, Any v) { fields_.Set(String(key), std::move(v)); }
  std::unordered_map<const Object*, int64_t> index_;
  Array<Any> nodes_;
  Map<String, Any> fields_;
};

/*! \brief Reads the node table back, filling each node's fields through VisitAttrs. */
class NodeReader : public AttrVisitor {
 public:
  explicit NodeReader(Array<Any> nodes) : nodes_(std::move(nodes)) {
    for (size_t i = 0; i < nodes_.size(); ++i) made_.push_back(Make(static_cast<int64_t>(i)));
  }
  ObjectRef At(const Any& index) const {
    if (index.is_null()) return ObjectRef();
    int64_t i = index.cast<int64_t>();
    if (i < 0 || i >= static_cast<int64_t>(made_.size())) {
      MINITVM_THROW(ValueError) << "node JSON refers to node " << i << " of " << made_.size();
    }
    return made_[i];
  }

  void Visit(const char* key, int64_t* value) override { *value = Field(key).cast<int64_t>(); }
  void Visit(const char* key, double* value) override { *value = Field(key).cast<double>(); }
  void Visit(const char* key, bool* value) override { *value = Field(key).cast<bool>(); }
  void Visit(const char* key, std::string* value) override {
    *value = Field(key).cast<std::string>();
  }
  void Visit(const char* key, DataType* value) override {
    *value = DataType(Field(key).cast<std::string>());
  }
  void Visit(const char* key, ObjectRef* value) override { *value = At(Field(key)); }
  void Visit(const char* key, Any* value) override { *value = Value(Field(key)); }

 private:
  Any Value(const Any& v) const {
    if (auto* m = v.as<MapNode>()) {
      Map<String, Any> ref(ObjectPtr<Object>(const_cast<MapNode*>(m)));
      if (auto i = ref.Get(String("ref"))) return Any(At(*i));
    }
    return v;
  }
  Any Field(const char* key) const {
    auto v = fields_.Get(String(key));
    if (!v) MINITVM_THROW(ValueError) << "node JSON: a " << type_ << " without field " << key;
    return *v;
  }
  ObjectRef Make(int64_t i) {
    auto* m = nodes_[i].as<MapNode>();
    if (m == nullptr) MINITVM_THROW(ValueError) << "node JSON: node " << i << " is not an object";
    Map<String, Any> entry(ObjectPtr<Object>(const_cast<MapNode*>(m)));
    auto type = entry.Get(String("type"));
    if (!type) MINITVM_THROW(ValueError) << "node JSON: node " << i << " has no type";
    type_ = type->cast<std::string>();
    if (type_ == ArrayNode::_type_key) {
      Array<Any> out;
      for (const Any& v : entry.at(String("items")).cast<Array<Any>>()) out.push_back(Value(v));
      return out;
    }
    if (type_ == StringObj::_type_key) return String(entry.at(String("value")).cast<std::string>());
    std::function<ObjectPtr<Object>()> create;
    {
      std::lock_guard<std::mutex> lock(CreatorsMutex());
      auto it = Creators().find(type_);
      if (it != Creators().end()) create = it->second;
    }
    if (!create) MINITVM_THROW(ValueError) << "node JSON: cannot create a node of type " << type_;
    ObjectPtr<Object> node = create();
    fields_ = entry.at(String("fields")).cast<Map<String, Any>>();
    node->VisitAttrs(this);
    return ObjectRef(node);
  }
  Array<Any> nodes_;
  std::vector<ObjectRef> made_;
  Map<String, Any> fields_;
  std::string type_;
};

}  // namespace

bool RegisterNodeCreator(const std::string& type_key, std::function<ObjectPtr<Object>()> create) {
  std::lock_guard<std::mutex> lock(CreatorsMutex());
  Creators()[type_key] = std::move(create);
  return true;
}

Any NodeToJSON(const ObjectRef& node) {
  NodeWriter writer;
  Any root = writer.Index(node);
  Map<String, Any> out;
  out.Set(String("root"), root);
  out.Set(String("nodes"), Any(writer.nodes()));
  return Any(out);
}

ObjectRef NodeFromJSON(const Any& value) {
  auto* m = value.as<MapNode>();
  if (m == nullptr) MINITVM_THROW(ValueError) << "node JSON must be an object";
  Map<String, Any> map(ObjectPtr<Object>(const_cast<MapNode*>(m)));
  auto nodes = map.Get(String("nodes"));
  auto root = map.Get(String("root"));
  if (!nodes || !root) MINITVM_THROW(ValueError) << "node JSON needs \"root\" and \"nodes\"";
  return NodeReader(nodes->cast<Array<Any>>()).At(*root);
}

}  // namespace json
}  // namespace tir
}  // namespace minitvm

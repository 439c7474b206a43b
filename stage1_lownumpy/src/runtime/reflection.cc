/*!
 * \file reflection.cc
 * \brief Field lookup, field names and the generic repr, all driven by VisitAttrs (stage 1).
 */
#include "minitvm/runtime/reflection.h"

#include <sstream>

#include "minitvm/runtime/container.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace runtime {
namespace {

/*! \brief Calls `fn(key, Any)` for every field. */
template <typename F>
class AnyFieldVisitor : public AttrVisitor {
 public:
  explicit AnyFieldVisitor(F fn) : fn_(std::move(fn)) {}
  void Visit(const char* key, int64_t* v) override { fn_(key, Any(*v)); }
  void Visit(const char* key, double* v) override { fn_(key, Any(*v)); }
  void Visit(const char* key, bool* v) override { fn_(key, Any(*v)); }
  void Visit(const char* key, std::string* v) override { fn_(key, Any(*v)); }
  void Visit(const char* key, DataType* v) override { fn_(key, Any(*v)); }
  void Visit(const char* key, Device* v) override { fn_(key, Any(*v)); }
  void Visit(const char* key, ObjectRef* v) override { fn_(key, Any(*v)); }
  void Visit(const char* key, Any* v) override { fn_(key, *v); }

 private:
  F fn_;
};

template <typename F>
void ForEachField(const Object* node, F fn) {
  AnyFieldVisitor<F> visitor(std::move(fn));
  const_cast<Object*>(node)->VisitAttrs(&visitor);
}

void ReprAny(const Any& value, std::ostream& os, int depth);

void ReprObject(const Object* node, std::ostream& os, int depth) {
  if (depth > 8) {
    os << "...";
    return;
  }
  if (auto* s = dynamic_cast<const StringObj*>(node)) {
    os << '"' << s->data << '"';
    return;
  }
  if (auto* a = dynamic_cast<const ArrayNode*>(node)) {
    os << "[";
    for (size_t i = 0; i < a->data.size(); ++i) {
      if (i) os << ", ";
      ReprAny(a->data[i], os, depth + 1);
    }
    os << "]";
    return;
  }
  if (auto* m = dynamic_cast<const MapNode*>(node)) {
    os << "{";
    for (size_t i = 0; i < m->data.size(); ++i) {
      if (i) os << ", ";
      ReprAny(m->data[i].first, os, depth + 1);
      os << ": ";
      ReprAny(m->data[i].second, os, depth + 1);
    }
    os << "}";
    return;
  }
  os << node->GetTypeKey() << "(";
  bool first = true;
  ForEachField(node, [&](const char* key, const Any& v) {
    if (!first) os << ", ";
    first = false;
    os << key << "=";
    ReprAny(v, os, depth + 1);
  });
  os << ")";
}

void ReprAny(const Any& value, std::ostream& os, int depth) {
  if (const Object* obj = value.as_object()) {
    ReprObject(obj, os, depth);
  } else {
    os << value.ToString();
  }
}

}  // namespace

std::vector<std::string> ListFieldNames(const Object* node) {
  std::vector<std::string> names;
  if (node) ForEachField(node, [&](const char* key, const Any&) { names.emplace_back(key); });
  return names;
}

Any GetField(const Object* node, const std::string& name) {
  if (!node) MINITVM_THROW(AttributeError) << "None has no field \"" << name << "\"";
  Any result;
  bool found = false;
  ForEachField(node, [&](const char* key, const Any& v) {
    if (!found && name == key) {
      result = v;
      found = true;
    }
  });
  if (!found) {
    MINITVM_THROW(AttributeError) << node->GetTypeKey() << " has no field \"" << name << "\"";
  }
  return result;
}

std::string Repr(const ObjectRef& node) {
  if (!node.defined()) return "None";
  if (auto printer = Registry::Get("node.Repr." + node->GetTypeKey())) {
    return (*printer)(node).cast<std::string>();
  }
  if (auto printer = Registry::Get("node.ReprFallback")) {
    Any text = (*printer)(node);
    if (!text.is_null()) return text.cast<std::string>();
  }
  std::ostringstream os;
  ReprObject(node.get(), os, 0);
  return os.str();
}

MINITVM_REGISTER_GLOBAL("runtime.ObjectGetField")
    .set_body_typed([](ObjectRef node, std::string name) { return GetField(node.get(), name); });
MINITVM_REGISTER_GLOBAL("runtime.ObjectListFields").set_body_typed([](ObjectRef node) {
  std::vector<std::string> names = ListFieldNames(node.get());
  return Array<String>(std::vector<String>(names.begin(), names.end()));
});
MINITVM_REGISTER_GLOBAL("runtime.ObjectRepr").set_body_typed([](ObjectRef node) {
  return Repr(node);
});
MINITVM_REGISTER_GLOBAL("runtime.ObjectTypeKey").set_body_typed([](ObjectRef node) {
  return node.defined() ? node->GetTypeKey() : std::string("None");
});
MINITVM_REGISTER_GLOBAL("runtime.ObjectSameAs").set_body_typed([](ObjectRef a, ObjectRef b) {
  return a.same_as(b);
});
MINITVM_REGISTER_GLOBAL("runtime.ObjectHandleAddress").set_body_typed([](ObjectRef a) {
  return static_cast<int64_t>(reinterpret_cast<intptr_t>(a.get()));
});

}  // namespace runtime
}  // namespace minitvm

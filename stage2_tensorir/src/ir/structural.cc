/*!
 * \file structural.cc
 * \brief Structural equality, hashing and the first-difference report (stage 2), all driven by
 * the reflected field list of each node (`VisitAttrs`) plus a small table of per-type traits
 * (variables, buffers, ignored name fields).
 *
 * Both the equality checker and the hasher walk the trees in the same order — fields in
 * declaration order — so that "bound variable number k" means the same variable on both
 * sides. That shared order is what makes the hash consistent with alpha-equivalence.
 */
#include "minitvm/ir/structural.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "minitvm/ir/function.h"
#include "minitvm/runtime/container.h"
#include "minitvm/runtime/depth_guard.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/reflection.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {

using runtime::Any;
using runtime::ArrayNode;
using runtime::AttrVisitor;
using runtime::DataType;
using runtime::Device;
using runtime::MapNode;
using runtime::Object;
using runtime::StringObj;
using runtime::TypeRegistry;

// ---- traits registry ---------------------------------------------------------------------

namespace {

/*! \brief What equality and hashing need to know about one node type, resolved once. */
struct TypeInfo {
  const StructuralTraits* traits = nullptr;  ///< null: the plain field-by-field rule
  bool opaque = false;                       ///< a runtime object compared by identity
};

/*!
 * \brief The registered traits, resolved per type index (the most derived registration wins).
 * Resolutions are cached per thread and invalidated when a registration changes the table.
 */
class TraitsRegistry {
 public:
  static TraitsRegistry* Global() {
    static TraitsRegistry* inst = [] {
      auto* r = new TraitsRegistry();
      r->RegisterBuiltins();
      return r;
    }();
    return inst;
  }

  void Register(const std::string& key, StructuralTraits traits) {
    std::lock_guard<std::mutex> lock(mu_);
    // Older traits stay alive: a thread may still hold a pointer resolved before.
    owned_.push_back(std::make_unique<StructuralTraits>(std::move(traits)));
    entries_[key] = owned_.back().get();
    generation_.fetch_add(1);
  }

  /*! \brief The resolved information of a node's type. */
  const TypeInfo& Resolve(const Object* node) {
    thread_local uint64_t cached_generation = ~uint64_t(0);
    thread_local std::vector<std::optional<TypeInfo>> cache;
    uint64_t generation = generation_.load();
    if (cached_generation != generation) {
      cache.clear();
      cached_generation = generation;
    }
    uint32_t index = node->type_index();
    if (index < cache.size() && cache[index]) return *cache[index];
    TypeInfo info = Compute(node);
    if (cache.size() <= index) cache.resize(index + 1);
    cache[index] = info;
    return *cache[index];
  }

 private:
  TypeInfo Compute(const Object* node) {
    TypeInfo info;
    uint32_t type_index = node->type_index();
    if (!node->IsInstance<StringObj>() && !node->IsInstance<ArrayNode>() &&
        !node->IsInstance<MapNode>()) {
      info.opaque = node->GetTypeKey().rfind("runtime.", 0) == 0;
    }
    std::lock_guard<std::mutex> lock(mu_);
    uint32_t best_index = 0;
    for (const auto& entry : entries_) {
      uint32_t index;
      try {
        index = TypeRegistry::TypeKey2Index(entry.first);
      } catch (const Error&) {
        continue;  // the type is not loaded (e.g. a later stage's node)
      }
      if (!TypeRegistry::IsDerivedFrom(type_index, index)) continue;
      if (!info.traits || TypeRegistry::IsDerivedFrom(index, best_index)) {
        info.traits = entry.second;
        best_index = index;
      }
    }
    // A custom comparison makes the type a leaf, not an identity-compared object.
    if (info.traits && info.traits->equal) info.opaque = false;
    return info;
  }

  void RegisterBuiltins() {
    StructuralTraits var;
    var.is_var = true;
    var.ignored_fields = {"name_hint"};
    Add("tir.Var", var);
    StructuralTraits buffer;
    buffer.is_def = true;
    buffer.ignored_fields = {"name"};
    Add("tir.Buffer", buffer);
    // As in TVM, a block's name is a label for get_block and printing, not part of its meaning:
    // two blocks that differ only in name are structurally equal.
    StructuralTraits block;
    block.ignored_fields = {"name_hint"};
    Add("tir.Block", block);
    StructuralTraits ndarray;
    ndarray.equal = [](const Object* a, const Object* b) {
      runtime::NDArray x =
          GetRef<runtime::NDArray>(static_cast<const runtime::NDArray::ContainerType*>(a));
      runtime::NDArray y =
          GetRef<runtime::NDArray>(static_cast<const runtime::NDArray::ContainerType*>(b));
      if (x.Shape() != y.Shape() || x.dtype() != y.dtype()) return false;
      std::vector<char> bx(x.NBytes()), by(y.NBytes());
      if (!bx.empty()) x.CopyToBytes(bx.data(), bx.size());
      if (!by.empty()) y.CopyToBytes(by.data(), by.size());
      return bx == by;
    };
    ndarray.hash = [](const Object* a) {
      runtime::NDArray x =
          GetRef<runtime::NDArray>(static_cast<const runtime::NDArray::ContainerType*>(a));
      std::vector<char> bytes(x.NBytes());
      if (!bytes.empty()) x.CopyToBytes(bytes.data(), bytes.size());
      size_t h = std::hash<std::string_view>()(std::string_view(bytes.data(), bytes.size()));
      for (int64_t d : x.Shape()) h = h * 1000003u + static_cast<size_t>(d);
      return h;
    };
    Add(runtime::NDArray::ContainerType::_type_key, ndarray);
  }

  void Add(const std::string& key, const StructuralTraits& traits) {
    owned_.push_back(std::make_unique<StructuralTraits>(traits));
    entries_[key] = owned_.back().get();
  }

  std::mutex mu_;
  std::atomic<uint64_t> generation_{0};
  std::vector<std::unique_ptr<StructuralTraits>> owned_;
  std::unordered_map<std::string, const StructuralTraits*> entries_;
};

// ---- field listing -----------------------------------------------------------------------

/*! \brief One reflected field: its name, its value and whether it binds variables. */
struct Field {
  const char* key;
  Any value;
  bool binding;
};

/*! \brief Collects the fields a node lists in VisitAttrs. */
class FieldCollector : public AttrVisitor {
 public:
  explicit FieldCollector(const StructuralTraits* traits) : traits_(traits) {}
  void Visit(const char* key, int64_t* v) override { Add(key, Any(*v)); }
  void Visit(const char* key, double* v) override { Add(key, Any(*v)); }
  void Visit(const char* key, bool* v) override { Add(key, Any(*v)); }
  void Visit(const char* key, std::string* v) override { Add(key, Any(*v)); }
  void Visit(const char* key, DataType* v) override { Add(key, Any(*v)); }
  void Visit(const char* key, Device* v) override { Add(key, Any(*v)); }
  void Visit(const char* key, ObjectRef* v) override { Add(key, Any(*v)); }
  void Visit(const char* key, Any* v) override { Add(key, *v); }
  void VisitBinding(const char* key, ObjectRef* v) override { Add(key, Any(*v), true); }
  std::vector<Field> fields;

 private:
  void Add(const char* key, Any value, bool binding = false) {
    if (traits_) {
      for (const std::string& ignored : traits_->ignored_fields) {
        if (ignored == key) return;
      }
    }
    fields.push_back(Field{key, std::move(value), binding});
  }
  const StructuralTraits* traits_;
};

std::vector<Field> ListFields(const Object* node, const StructuralTraits* traits) {
  FieldCollector collector(traits);
  const_cast<Object*>(node)->VisitAttrs(&collector);
  return std::move(collector.fields);
}

/*!
 * \brief Runtime objects other than String/Array/Map that have no field list (PackedFunc,
 * Module, ...) compare by identity: comparing their (empty) field lists would call any two equal.
 */
bool IsOpaqueRuntimeObject(const Object* node) {
  return TraitsRegistry::Global()->Resolve(node).opaque;
}

/*!
 * \brief Entries of a map whose keys are all strings, sorted by key (attribute maps compare
 * regardless of insertion order); nullopt when some key is not a string.
 */
std::optional<std::vector<std::pair<std::string, const Any*>>> SortedStringEntries(
    const MapNode* m) {
  std::vector<std::pair<std::string, const Any*>> out;
  for (const auto& kv : m->data) {
    if (!kv.first.is_string()) return std::nullopt;
    out.emplace_back(kv.first.as<StringObj>()->data, &kv.second);
  }
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  return out;
}

/*!
 * \brief Entries of a map whose keys are all GlobalVars (an IRModule's functions), sorted by
 * name: as in TVM, two modules are equal when they define the same names with equal functions,
 * in whatever order they were added. Nullopt when some key is not a GlobalVar.
 */
std::optional<std::vector<std::pair<std::string, const Any*>>> SortedGlobalVarEntries(
    const MapNode* m) {
  std::vector<std::pair<std::string, const Any*>> out;
  for (const auto& kv : m->data) {
    const GlobalVarNode* gv = kv.first.as<GlobalVarNode>();
    if (!gv) return std::nullopt;
    out.emplace_back(gv->name_hint.str(), &kv.second);
  }
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  return out;
}

/*! \brief The entries of a string- or GlobalVar-keyed map sorted by name, else nullopt. */
std::optional<std::vector<std::pair<std::string, const Any*>>> SortedNamedEntries(
    const MapNode* m) {
  if (auto s = SortedStringEntries(m)) return s;
  return SortedGlobalVarEntries(m);
}

/*! \brief A float printed so that it reads back to the same value ("1.0", "0.1"). */
std::string FloatToString(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  for (int precision = 1; precision <= 17; ++precision) {
    std::ostringstream os;
    os.precision(precision);
    os << v;
    if (std::stod(os.str()) == v) {
      std::string s = os.str();
      if (s.find_first_of(".eE") == std::string::npos) s += ".0";
      return s;
    }
  }
  return std::to_string(v);
}

/*! \brief A short text for a value in a difference report; objects use their repr. */
std::string DisplayAny(const Any& v) {
  if (v.is_float()) return FloatToString(v.raw_float());
  if (const Object* obj = v.as_object()) {
    std::string text = runtime::Repr(GetRef<ObjectRef>(obj));
    constexpr size_t kMaxLen = 600;
    if (text.size() > kMaxLen) text = text.substr(0, kMaxLen) + " ...";
    return text;
  }
  return v.ToString();
}

/*! \brief The value of a plain bool or of a scalar bool IntImm; nullopt for anything else. */
std::optional<int64_t> BoolValue(const Any& v) {
  if (v.tag() == Any::kBool) return v.raw_int();
  if (auto* imm = dynamic_cast<const IntImmNode*>(v.as_object())) {
    if (imm->dtype == DataType::Bool()) return imm->value;
  }
  return std::nullopt;
}

bool FloatEqual(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// ---- equality ----------------------------------------------------------------------------

/*!
 * \brief Compares two trees in lockstep, matching bound variables. On the first difference it
 * records the path (built while the recursion unwinds) and the values on both sides.
 */
class EqualChecker {
 public:
  /*!
   * \param map_free_vars Match free variables on first sight.
   * \param record Build the difference report (reprs are costly; only StructuralDiff wants it).
   * \param identity_vars Variables and buffers compare by identity only (ExprDeepEqual).
   */
  EqualChecker(bool map_free_vars, bool record, bool identity_vars = false)
      : map_free_vars_(map_free_vars), record_(record), identity_vars_(identity_vars) {}

  bool EqualAny(const Any& a, const Any& b, bool binding) {
    if (a.tag() != b.tag()) {
      // As TVM: a Python `True` in attributes (a boxed bool) equals `T.bool(True)`.
      std::optional<int64_t> x = BoolValue(a), y = BoolValue(b);
      if (x && y) return *x == *y || Fail(a, b);
      return Fail(a, b, "different kinds of value");
    }
    switch (a.tag()) {
      case Any::kNull:
        return true;
      case Any::kInt:
      case Any::kBool:
        return a.raw_int() == b.raw_int() || Fail(a, b);
      case Any::kFloat:
        return FloatEqual(a.raw_float(), b.raw_float()) || Fail(a, b);
      case Any::kDataType:
        return a.raw_dtype() == b.raw_dtype() || Fail(a, b);
      case Any::kDevice:
        return a.raw_device() == b.raw_device() || Fail(a, b);
      case Any::kObject:
        return EqualObject(a.as_object(), b.as_object(), binding);
    }
    return Fail(a, b);
  }

  /*! \brief The report of the first difference (empty when none was recorded). */
  std::string Report() const {
    if (!failed_) return "";
    std::string path = "root";
    std::vector<std::string> segments(path_.rbegin(), path_.rend());
    std::string node_path = "root";
    size_t node_depth = segments.size() >= node_levels_ ? segments.size() - node_levels_ : 0;
    for (size_t i = 0; i < segments.size(); ++i) {
      path += segments[i];
      if (i < node_depth) node_path += segments[i];
    }
    std::ostringstream os;
    os << "StructuralEqual check failed at " << path << ": " << lhs_text_ << " vs " << rhs_text_;
    if (!reason_.empty()) os << " (" << reason_ << ")";
    if (lhs_node_.defined()) {
      os << "\n  lhs " << node_path << ": " << DisplayAny(Any(lhs_node_));
      os << "\n  rhs " << node_path << ": " << DisplayAny(Any(rhs_node_));
    }
    return os.str();
  }

 private:
  int depth_ = 0;  // nesting of EqualObject now (the depth policy, depth_guard.h)
  bool Fail(const Any& a, const Any& b, const std::string& reason = "") {
    if (record_ && !failed_) {
      failed_ = true;
      lhs_text_ = DisplayAny(a);
      rhs_text_ = DisplayAny(b);
      reason_ = reason;
    }
    return false;
  }
  /*! \brief Record one path segment while unwinding a failure. */
  bool Unwind(std::string segment) {
    if (record_) path_.push_back(std::move(segment));
    return false;
  }
  /*! \brief Remember the innermost node holding the difference (first call while unwinding). */
  void NoteNode(const Object* a, const Object* b) {
    if (record_ && !node_noted_) {
      node_noted_ = true;
      lhs_node_ = GetRef<ObjectRef>(a);
      rhs_node_ = GetRef<ObjectRef>(b);
      node_levels_ = path_.size();
    }
  }

  bool EqualObject(const Object* a, const Object* b, bool binding) {
    DepthGuard guard(&depth_, "IR tree (in structural equality)");
    if (a->type_index() != b->type_index()) {
      return Fail(Any(GetRef<ObjectRef>(a)), Any(GetRef<ObjectRef>(b)), "different node types");
    }
    const StructuralTraits* traits = TraitsRegistry::Global()->Resolve(a).traits;
    if (traits && traits->equal) {
      return traits->equal(a, b) || Fail(Any(GetRef<ObjectRef>(a)), Any(GetRef<ObjectRef>(b)));
    }
    if (auto* sa = dynamic_cast<const StringObj*>(a)) {
      auto* sb = static_cast<const StringObj*>(b);
      return sa->data == sb->data || Fail(Any(GetRef<ObjectRef>(a)), Any(GetRef<ObjectRef>(b)));
    }
    if (auto* aa = dynamic_cast<const ArrayNode*>(a)) {
      return EqualArray(aa, static_cast<const ArrayNode*>(b), binding);
    }
    if (auto* ma = dynamic_cast<const MapNode*>(a)) {
      return EqualMap(ma, static_cast<const MapNode*>(b), binding);
    }
    if (IsOpaqueRuntimeObject(a)) {
      return a == b ||
             Fail(Any(GetRef<ObjectRef>(a)), Any(GetRef<ObjectRef>(b)), "different objects");
    }
    if (identity_vars_ && traits && (traits->is_var || traits->is_def)) {
      return a == b || Fail(Any(GetRef<ObjectRef>(a)), Any(GetRef<ObjectRef>(b)));
    }
    if (traits && traits->is_var) return EqualVar(a, b, binding, traits);
    if (traits && traits->is_def) return EqualDef(a, b, binding, traits);
    if (binding && traits && traits->defines_vars) {
      ++def_depth_;
      bool equal = EqualFields(a, b, traits);
      --def_depth_;
      return equal;
    }
    return EqualFields(a, b, traits);
  }

  bool EqualFields(const Object* a, const Object* b, const StructuralTraits* traits) {
    std::vector<Field> fa = ListFields(a, traits);
    std::vector<Field> fb = ListFields(b, traits);
    for (size_t i = 0; i < fa.size() && i < fb.size(); ++i) {
      if (!EqualAny(fa[i].value, fb[i].value, fa[i].binding)) {
        Unwind(std::string(".") + fa[i].key);
        NoteNode(a, b);
        return false;
      }
    }
    return true;
  }

  bool EqualArray(const ArrayNode* a, const ArrayNode* b, bool binding) {
    if (a->data.size() != b->data.size()) {
      Fail(Any(GetRef<ObjectRef>(a)), Any(GetRef<ObjectRef>(b)),
           "array sizes " + std::to_string(a->data.size()) + " and " +
               std::to_string(b->data.size()));
      return false;
    }
    for (size_t i = 0; i < a->data.size(); ++i) {
      if (!EqualAny(a->data[i], b->data[i], binding)) {
        return Unwind("[" + std::to_string(i) + "]");
      }
    }
    return true;
  }

  bool EqualMap(const MapNode* a, const MapNode* b, bool binding) {
    Any ra(GetRef<ObjectRef>(a)), rb(GetRef<ObjectRef>(b));
    if (a->data.size() != b->data.size()) {
      return Fail(
          ra, rb,
          "map sizes " + std::to_string(a->data.size()) + " and " + std::to_string(b->data.size()));
    }
    // String keys (attributes) and GlobalVar keys (a module's functions) match by name.
    auto sa = SortedNamedEntries(a);
    auto sb = SortedNamedEntries(b);
    if (sa && sb) {
      for (size_t i = 0; i < sa->size(); ++i) {
        if ((*sa)[i].first != (*sb)[i].first) {
          return Fail(Any((*sa)[i].first), Any((*sb)[i].first), "different keys");
        }
        if (!EqualAny(*(*sa)[i].second, *(*sb)[i].second, binding)) {
          return Unwind("[\"" + (*sa)[i].first + "\"]");
        }
      }
      return true;
    }
    // Maps keyed by objects (a buffer_map keyed by parameters) compare entry by entry in order.
    for (size_t i = 0; i < a->data.size(); ++i) {
      if (!EqualAny(a->data[i].first, b->data[i].first, binding)) {
        return Unwind("[" + std::to_string(i) + "].key");
      }
      if (!EqualAny(a->data[i].second, b->data[i].second, binding)) {
        return Unwind("[" + std::to_string(i) + "].value");
      }
    }
    return true;
  }

  /*! \brief Match a with b, replacing any older match of either (a rebinding in a new scope). */
  void Rebind(const Object* a, const Object* b) {
    auto it = lhs_to_rhs_.find(a);
    if (it != lhs_to_rhs_.end()) rhs_to_lhs_.erase(it->second);
    auto jt = rhs_to_lhs_.find(b);
    if (jt != rhs_to_lhs_.end()) lhs_to_rhs_.erase(jt->second);
    lhs_to_rhs_[a] = b;
    rhs_to_lhs_[b] = a;
  }

  /*!
   * \brief Compare through an existing match. Returns 1 (equal), 0 (different) or -1 (neither
   * side has been matched yet).
   */
  int CompareMatched(const Object* a, const Object* b) {
    auto it = lhs_to_rhs_.find(a);
    if (it != lhs_to_rhs_.end()) return it->second == b ? 1 : 0;
    if (rhs_to_lhs_.count(b)) return 0;
    return -1;
  }

  bool EqualVar(const Object* a, const Object* b, bool binding, const StructuralTraits* traits) {
    Any ra(GetRef<ObjectRef>(a)), rb(GetRef<ObjectRef>(b));
    if (!binding) {
      int matched = CompareMatched(a, b);
      if (matched == 1) return true;
      if (matched == 0) return Fail(ra, rb, "variables bound at different places");
      if (!map_free_vars_ && def_depth_ == 0) {
        return a == b ||
               Fail(ra, rb, "different free variables; map_free_vars=True would match them");
      }
    }
    bool defines = binding && traits->defines_vars;
    if (defines) ++def_depth_;
    bool equal = EqualFields(a, b, traits);
    if (defines) --def_depth_;
    if (!equal) return false;
    Rebind(a, b);
    return true;
  }

  bool EqualDef(const Object* a, const Object* b, bool binding, const StructuralTraits* traits) {
    if (!binding) {
      int matched = CompareMatched(a, b);
      if (matched == 1) return true;
      if (matched == 0) {
        return Fail(Any(GetRef<ObjectRef>(a)), Any(GetRef<ObjectRef>(b)),
                    "refers to a different definition");
      }
    }
    ++def_depth_;
    bool equal = EqualFields(a, b, traits);
    --def_depth_;
    if (!equal) return false;
    Rebind(a, b);
    return true;
  }

  bool map_free_vars_;
  bool record_;
  bool identity_vars_;
  int def_depth_ = 0;
  std::unordered_map<const Object*, const Object*> lhs_to_rhs_;
  std::unordered_map<const Object*, const Object*> rhs_to_lhs_;
  // The first difference.
  bool failed_ = false;
  bool node_noted_ = false;
  size_t node_levels_ = 0;
  std::vector<std::string> path_;
  std::string lhs_text_, rhs_text_, reason_;
  ObjectRef lhs_node_, rhs_node_;
};

// ---- hashing -----------------------------------------------------------------------------

size_t HashCombine(size_t seed, size_t value) {
  // The 64-bit golden-ratio mix; spreads small integers across the word.
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 12) + (seed >> 4));
}
size_t HashString(const std::string& s) { return std::hash<std::string>()(s); }

/*!
 * \brief Hashes a tree in the same order EqualChecker walks it: bound variables and buffers
 * by the index of their binding, free ones by identity (or first-sight order).
 */
class Hasher {
 public:
  explicit Hasher(bool map_free_vars) : map_free_vars_(map_free_vars) {}

  size_t HashAny(const Any& v, bool binding) {
    // A bool IntImm hashes as the plain bool it equals (EqualAny).
    if (std::optional<int64_t> b = BoolValue(v); b && v.tag() == Any::kObject) {
      return HashAny(Any(static_cast<bool>(*b)), binding);
    }
    size_t h = static_cast<size_t>(v.tag()) * 0x100000001b3ULL;
    switch (v.tag()) {
      case Any::kNull:
        return h;
      case Any::kInt:
      case Any::kBool:
        return HashCombine(h, std::hash<int64_t>()(v.raw_int()));
      case Any::kFloat: {
        double f = v.raw_float();
        if (f == 0) f = 0;  // -0.0 and 0.0 are equal
        if (std::isnan(f)) return HashCombine(h, 0x7ff8);
        uint64_t bits;
        std::memcpy(&bits, &f, sizeof(bits));
        return HashCombine(h, std::hash<uint64_t>()(bits));
      }
      case Any::kDataType: {
        DataType t = v.raw_dtype();
        return HashCombine(h, (t.code() << 24) ^ (t.bits() << 16) ^ t.lanes());
      }
      case Any::kDevice: {
        Device d = v.raw_device();
        return HashCombine(h, (static_cast<size_t>(d.device_type) << 32) ^ d.device_id);
      }
      case Any::kObject:
        return HashCombine(h, HashObject(v.as_object(), binding));
    }
    return h;
  }

 private:
  int depth_ = 0;  // nesting of HashObject now (the depth policy, depth_guard.h)
  size_t HashObject(const Object* node, bool binding) {
    DepthGuard guard(&depth_, "IR tree (in structural hash)");
    size_t h = TypeHash(node);
    const StructuralTraits* traits = TraitsRegistry::Global()->Resolve(node).traits;
    if (traits && traits->hash) return HashCombine(h, traits->hash(node));
    if (auto* s = dynamic_cast<const StringObj*>(node)) return HashCombine(h, HashString(s->data));
    if (auto* a = dynamic_cast<const ArrayNode*>(node)) {
      h = HashCombine(h, a->data.size());
      for (const Any& e : a->data) h = HashCombine(h, HashAny(e, binding));
      return h;
    }
    if (auto* m = dynamic_cast<const MapNode*>(node)) {
      h = HashCombine(h, m->data.size());
      if (auto sorted = SortedNamedEntries(m)) {
        for (const auto& kv : *sorted) {
          h = HashCombine(h, HashString(kv.first));
          h = HashCombine(h, HashAny(*kv.second, binding));
        }
        return h;
      }
      for (const auto& kv : m->data) {
        h = HashCombine(h, HashAny(kv.first, binding));
        h = HashCombine(h, HashAny(kv.second, binding));
      }
      return h;
    }
    if (IsOpaqueRuntimeObject(node)) return HashCombine(h, std::hash<const void*>()(node));
    if (traits && (traits->is_var || traits->is_def)) {
      if (!binding) {
        auto it = index_.find(node);
        if (it != index_.end()) return HashCombine(h, HashCombine(0xb0b0, it->second));
        if (traits->is_var && !map_free_vars_ && def_depth_ == 0) {
          return HashCombine(h, std::hash<const void*>()(node));
        }
      }
      bool defines = traits->is_def || (binding && traits->defines_vars);
      if (defines) ++def_depth_;
      size_t fields = HashFields(node, traits);
      if (defines) --def_depth_;
      index_[node] = next_index_++;
      return HashCombine(h, fields);
    }
    if (binding && traits && traits->defines_vars) {
      ++def_depth_;
      size_t fields = HashFields(node, traits);
      --def_depth_;
      return HashCombine(h, fields);
    }
    return HashCombine(h, HashFields(node, traits));
  }

  size_t HashFields(const Object* node, const StructuralTraits* traits) {
    size_t h = 0;
    for (const Field& f : ListFields(node, traits)) h = HashCombine(h, HashAny(f.value, f.binding));
    return h;
  }

  size_t TypeHash(const Object* node) {
    auto it = type_hash_.find(node->type_index());
    if (it != type_hash_.end()) return it->second;
    size_t h = HashString(node->GetTypeKey());
    type_hash_[node->type_index()] = h;
    return h;
  }

  bool map_free_vars_;
  int def_depth_ = 0;
  size_t next_index_ = 0;
  std::unordered_map<const Object*, size_t> index_;
  std::unordered_map<uint32_t, size_t> type_hash_;
};

}  // namespace

// ---- public API --------------------------------------------------------------------------

void RegisterStructuralTraits(const std::string& type_key, StructuralTraits traits) {
  TraitsRegistry::Global()->Register(type_key, std::move(traits));
}

bool StructuralEqual(const Any& a, const Any& b, bool map_free_vars) {
  return EqualChecker(map_free_vars, false).EqualAny(a, b, false);
}

bool ExprDeepEqual(const ObjectRef& a, const ObjectRef& b) {
  if (a.same_as(b)) return true;
  if (!a.defined() || !b.defined()) return false;
  if (a->type_index() != b->type_index()) return false;
  return EqualChecker(false, false, true).EqualAny(Any(a), Any(b), false);
}

bool StructuralEqual(const ObjectRef& a, const ObjectRef& b, bool map_free_vars) {
  return StructuralEqual(Any(a), Any(b), map_free_vars);
}

size_t StructuralHash(const ObjectRef& node, bool map_free_vars) {
  return Hasher(map_free_vars).HashAny(Any(node), false);
}

std::string StructuralDiff(const ObjectRef& a, const ObjectRef& b, bool map_free_vars) {
  EqualChecker checker(map_free_vars, true);
  if (checker.EqualAny(Any(a), Any(b), false)) return "";
  return checker.Report();
}

void AssertStructuralEqual(const ObjectRef& a, const ObjectRef& b, bool map_free_vars) {
  std::string diff = StructuralDiff(a, b, map_free_vars);
  if (!diff.empty()) MINITVM_THROW(ValueError) << diff;
}

MINITVM_REGISTER_GLOBAL("ir.StructuralEqual").set_body_typed([](Any a, Any b, bool map_free_vars) {
  return StructuralEqual(a, b, map_free_vars);
});
MINITVM_REGISTER_GLOBAL("ir.StructuralHash").set_body_typed([](Any a, bool map_free_vars) {
  size_t h = a.is_object() ? StructuralHash(GetRef<ObjectRef>(a.as_object()), map_free_vars)
                           : Hasher(map_free_vars).HashAny(a, false);
  // Python ints are arbitrary precision; keep the value non-negative and within int64.
  return static_cast<int64_t>(h & 0x7fffffffffffffffULL);
});
MINITVM_REGISTER_GLOBAL("ir.AssertStructuralEqual")
    .set_body_typed([](Any a, Any b, bool map_free_vars) {
      if (a.is_object() && b.is_object()) {
        AssertStructuralEqual(GetRef<ObjectRef>(a.as_object()), GetRef<ObjectRef>(b.as_object()),
                              map_free_vars);
      } else if (!StructuralEqual(a, b, map_free_vars)) {
        MINITVM_THROW(ValueError) << "StructuralEqual check failed at root: " << DisplayAny(a)
                                  << " vs " << DisplayAny(b);
      }
    });
MINITVM_REGISTER_GLOBAL("ir.StructuralDiff")
    .set_body_typed([](ObjectRef a, ObjectRef b, bool map_free_vars) {
      return StructuralDiff(a, b, map_free_vars);
    });

}  // namespace minitvm

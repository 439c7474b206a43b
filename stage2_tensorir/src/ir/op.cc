/*!
 * \file op.cc
 * \brief The operator registry of `ir/op.h` (stage 2, used from stage 4 on): one interned `Op`
 * per name and one attribute table per key, both behind a lock so that registration at load
 * time and lookups from several threads do not race.
 *
 * An attribute is stored with the priority level it was set at: a higher level replaces a lower
 * one (a later layer overriding a default), a lower one is ignored, and the same level twice is
 * a conflict between two layers and an error. The global functions "ir.GetOp", "ir.OpGetAttr",
 * "ir.OpSetAttr", ... give Python the same view (`tvm.ir.Op.get`, `op.get_attr`).
 */
#include "minitvm/ir/op.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "minitvm/runtime/registry.h"

namespace minitvm {

using runtime::Any;

/*! \brief The registry behind Op and OpRegEntry (a friend of OpRegEntry). */
class OpRegistryImpl {
 public:
  static OpRegistryImpl* Global() {
    static OpRegistryImpl* inst = new OpRegistryImpl();
    return inst;
  }

  OpRegEntry& RegisterOrGet(const std::string& name) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    auto it = entries_.find(name);
    if (it != entries_.end()) return *it->second;
    if (name.empty()) MINITVM_THROW(ValueError) << "an operator needs a non-empty name";
    auto node = make_object<OpNode>();
    node->name = name;
    node->index = static_cast<int64_t>(ops_.size());
    Op op(ObjectPtr<Object>(std::move(node)));
    ops_.push_back(op);
    std::unique_ptr<OpRegEntry> entry(new OpRegEntry(name, op));
    OpRegEntry& ref = *entry;
    entries_.emplace(name, std::move(entry));
    return ref;
  }

  std::optional<Op> Find(const std::string& name) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    auto it = entries_.find(name);
    if (it == entries_.end()) return std::nullopt;
    return it->second->op();
  }

  std::vector<std::string> ListNames() {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    std::vector<std::string> names;
    names.reserve(entries_.size());
    for (const auto& kv : entries_) names.push_back(kv.first);  // std::map: already sorted
    return names;
  }

  /*! \brief The node of a registered op, for the documentation setters (under the lock). */
  template <typename F>
  void MutateNode(const Op& op, F f) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    f(const_cast<OpNode*>(op.get()));
  }

  void SetAttr(const Op& op, const std::string& key, Any value, int plevel) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    std::vector<Slot>& table = attrs_[key];
    size_t index = static_cast<size_t>(op->index);
    if (table.size() <= index) table.resize(ops_.size() > index ? ops_.size() : index + 1);
    Slot& slot = table[index];
    if (slot.set) {
      if (plevel == slot.plevel) {
        MINITVM_THROW(ValueError) << "attribute " << key << " of operator " << op->name
                                  << " is already set at plevel " << plevel
                                  << "; set it with a higher plevel to override";
      }
      if (plevel < slot.plevel) return;  // a more specific layer already decided
    }
    slot.set = true;
    slot.plevel = plevel;
    slot.value = std::move(value);
  }

  Any GetAttr(const Op& op, const std::string& key) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    const Slot* slot = Lookup(op, key);
    return slot ? slot->value : Any();
  }

  bool HasAttr(const Op& op, const std::string& key) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    return Lookup(op, key) != nullptr;
  }

  std::vector<std::string> ListAttrKeys(const Op& op) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    std::vector<std::string> keys;
    for (const auto& kv : attrs_) {
      size_t index = static_cast<size_t>(op->index);
      if (index < kv.second.size() && kv.second[index].set) keys.push_back(kv.first);
    }
    return keys;  // std::map: sorted
  }

 private:
  struct Slot {
    bool set = false;
    int plevel = 0;
    Any value;
  };

  const Slot* Lookup(const Op& op, const std::string& key) {
    auto it = attrs_.find(key);
    if (it == attrs_.end()) return nullptr;
    size_t index = static_cast<size_t>(op->index);
    if (index >= it->second.size() || !it->second[index].set) return nullptr;
    return &it->second[index];
  }

  // Recursive: a PackedFunc attribute could in principle register while being stored.
  std::recursive_mutex mu_;
  std::map<std::string, std::unique_ptr<OpRegEntry>> entries_;
  std::vector<Op> ops_;
  std::map<std::string, std::vector<Slot>> attrs_;
};

namespace {

/*! \brief Levenshtein distance, to suggest the names closest to a misspelled one. */
size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

/*! \brief Up to five registered names close to `name` (by edit distance or shared suffix). */
std::vector<std::string> CloseNames(const std::string& name) {
  std::vector<std::pair<size_t, std::string>> scored;
  std::string tail = name.substr(name.rfind('.') == std::string::npos ? 0 : name.rfind('.') + 1);
  for (const std::string& cand : OpRegistryImpl::Global()->ListNames()) {
    size_t d = EditDistance(name, cand);
    std::string ctail = cand.substr(cand.rfind('.') == std::string::npos ? 0 : cand.rfind('.') + 1);
    bool same_tail = !tail.empty() && ctail == tail;
    if (d <= std::max<size_t>(2, name.size() / 4) || same_tail) {
      scored.emplace_back(same_tail ? 0 : d, cand);
    }
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < 5; ++i) out.push_back(scored[i].second);
  return out;
}

}  // namespace

// ---- Op ------------------------------------------------------------------------------------

Op Op::Get(const std::string& name) {
  if (auto op = OpRegistryImpl::Global()->Find(name)) return *op;
  std::ostringstream os;
  os << "no operator named \"" << name << "\" is registered";
  std::vector<std::string> close = CloseNames(name);
  if (!close.empty()) {
    os << "; did you mean ";
    for (size_t i = 0; i < close.size(); ++i) os << (i ? ", " : "") << '"' << close[i] << '"';
    os << "?";
  }
  MINITVM_THROW(ValueError) << os.str();
}

bool Op::Has(const std::string& name) { return OpRegistryImpl::Global()->Find(name).has_value(); }

std::vector<std::string> Op::ListNames() { return OpRegistryImpl::Global()->ListNames(); }

Any Op::GetAttr(const std::string& key) const {
  return OpRegistryImpl::Global()->GetAttr(*this, key);
}

bool Op::HasAttr(const std::string& key) const {
  return OpRegistryImpl::Global()->HasAttr(*this, key);
}

std::vector<std::string> Op::ListAttrKeys() const {
  return OpRegistryImpl::Global()->ListAttrKeys(*this);
}

// ---- OpRegEntry ----------------------------------------------------------------------------

OpRegEntry& OpRegEntry::RegisterOrGet(const std::string& name) {
  return OpRegistryImpl::Global()->RegisterOrGet(name);
}

OpRegEntry& OpRegEntry::describe(const std::string& text) {
  OpRegistryImpl::Global()->MutateNode(op_, [&](OpNode* n) { n->description = text; });
  return *this;
}

OpRegEntry& OpRegEntry::set_num_inputs(int64_t n) {
  if (n < -1) MINITVM_THROW(ValueError) << "operator " << name_ << ": num_inputs " << n << " < -1";
  OpRegistryImpl::Global()->MutateNode(op_, [&](OpNode* node) { node->num_inputs = n; });
  return *this;
}

OpRegEntry& OpRegEntry::add_argument(const std::string& name, const std::string& type_info,
                                     const std::string& description) {
  OpRegistryImpl::Global()->MutateNode(op_, [&](OpNode* node) {
    node->arguments.push_back(OpArgumentInfo{name, type_info, description});
  });
  return *this;
}

OpRegEntry& OpRegEntry::set_attr(const std::string& key, Any value, int plevel) {
  if (key.empty()) MINITVM_THROW(ValueError) << "operator " << name_ << ": empty attribute key";
  OpRegistryImpl::Global()->SetAttr(op_, key, std::move(value), plevel);
  return *this;
}

// ---- FFI -----------------------------------------------------------------------------------

MINITVM_REGISTER_GLOBAL("ir.GetOp").set_body_typed([](std::string name) { return Op::Get(name); });
MINITVM_REGISTER_GLOBAL("ir.OpExists").set_body_typed([](std::string name) {
  return Op::Has(name);
});
MINITVM_REGISTER_GLOBAL("ir.ListOpNames").set_body_typed([]() {
  std::vector<std::string> names = Op::ListNames();
  return Array<String>(std::vector<String>(names.begin(), names.end()));
});
MINITVM_REGISTER_GLOBAL("ir.OpGetAttr").set_body_typed([](Op op, std::string key) {
  return op.GetAttr(key);
});
MINITVM_REGISTER_GLOBAL("ir.OpHasAttr").set_body_typed([](Op op, std::string key) {
  return op.HasAttr(key);
});
MINITVM_REGISTER_GLOBAL("ir.OpListAttrKeys").set_body_typed([](Op op) {
  std::vector<std::string> keys = op.ListAttrKeys();
  return Array<String>(std::vector<String>(keys.begin(), keys.end()));
});
MINITVM_REGISTER_GLOBAL("ir.OpSetAttr")
    .set_body_typed([](Op op, std::string key, Any value, int64_t plevel) {
      OpRegEntry::RegisterOrGet(op->name).set_attr(key, value, static_cast<int>(plevel));
    });
MINITVM_REGISTER_GLOBAL("ir.OpGetDescription").set_body_typed([](Op op) {
  return op->description.str();
});
/*! Each argument as [name, type_info, description]. */
MINITVM_REGISTER_GLOBAL("ir.OpGetArguments").set_body_typed([](Op op) {
  Array<Array<String>> out;
  for (const OpArgumentInfo& a : op->arguments) {
    out.push_back(Array<String>({String(a.name), String(a.type_info), String(a.description)}));
  }
  return out;
});
// `repr(Op.get("relax.add"))` is `Op(relax.add)`, as in TVM.
MINITVM_REGISTER_GLOBAL("node.Repr.ir.Op").set_body_typed([](Op op) {
  return "Op(" + op->name.str() + ")";
});

}  // namespace minitvm

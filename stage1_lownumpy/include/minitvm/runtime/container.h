/*!
 * \file minitvm/runtime/container.h
 * \brief `Array<T>` and `Map<K, V>` (stage 1): immutable, copy-on-write containers of `Any`
 * used for IR fields and for values that cross the FFI.
 *
 * Elements are stored as Any and converted (checked) to T when read. `Map` keeps insertion
 * order so that printing is deterministic; keys compare by value for ints and strings and by
 * identity for other objects.
 */
#ifndef MINITVM_RUNTIME_CONTAINER_H_
#define MINITVM_RUNTIME_CONTAINER_H_

#include <initializer_list>
#include <optional>
#include <utility>
#include <vector>

#include "minitvm/runtime/any.h"

namespace minitvm {
namespace runtime {

/*! \brief The node of an Array. */
class ArrayNode : public Object {
 public:
  std::vector<Any> data;
  MINITVM_DECLARE_OBJECT_INFO(ArrayNode, Object, "runtime.Array");
};

/*! \brief An immutable array of T; `push_back` and `Set` copy when shared. */
template <typename T = Any>
class Array : public ObjectRef {
 public:
  Array() : ObjectRef(make_object<ArrayNode>()) {}
  Array(std::initializer_list<T> init) : Array(std::vector<T>(init)) {}
  template <typename U = T>
  Array(const std::vector<U>& values) : Array() {  // NOLINT(*)
    for (const auto& v : values) node()->data.emplace_back(T(v));
  }
  template <typename Iter>
  Array(Iter begin, Iter end) : Array() {
    for (; begin != end; ++begin) node()->data.emplace_back(T(*begin));
  }
  explicit Array(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}

  size_t size() const { return get() ? get()->data.size() : 0; }
  bool empty() const { return size() == 0; }
  /*! \brief Element i; IndexError when out of range. */
  T operator[](int64_t i) const {
    if (i < 0 || i >= static_cast<int64_t>(size())) {
      MINITVM_THROW(IndexError) << "array index " << i << " out of range for size " << size();
    }
    return get()->data[i].template cast<T>();
  }
  T front() const { return (*this)[0]; }
  T back() const { return (*this)[static_cast<int64_t>(size()) - 1]; }
  void push_back(const T& value) { CopyOnWrite()->data.emplace_back(value); }
  void Set(int64_t i, const T& value) {
    (void)(*this)[i];
    CopyOnWrite()->data[i] = Any(value);
  }
  void insert_at(int64_t i, const T& value) {
    auto* n = CopyOnWrite();
    n->data.insert(n->data.begin() + i, Any(value));
  }
  void erase_at(int64_t i) {
    auto* n = CopyOnWrite();
    n->data.erase(n->data.begin() + i);
  }
  void clear() { CopyOnWrite()->data.clear(); }
  std::vector<T> to_vector() const {
    std::vector<T> out;
    out.reserve(size());
    for (size_t i = 0; i < size(); ++i) out.push_back((*this)[i]);
    return out;
  }

  /*! \brief Forward iterator yielding converted T values. */
  class iterator {
   public:
    iterator(const Array* a, size_t i) : a_(a), i_(i) {}
    T operator*() const { return (*a_)[i_]; }
    iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator!=(const iterator& o) const { return i_ != o.i_; }
    bool operator==(const iterator& o) const { return i_ == o.i_; }

   private:
    const Array* a_;
    size_t i_;
  };
  iterator begin() const { return iterator(this, 0); }
  iterator end() const { return iterator(this, size()); }

  const ArrayNode* get() const { return static_cast<const ArrayNode*>(data_.get()); }
  const ArrayNode* operator->() const { return get(); }
  ArrayNode* CopyOnWrite() {
    if (!data_) {
      data_ = make_object<ArrayNode>();
    } else if (!data_.unique()) {
      data_ = make_object<ArrayNode>(*get());
    }
    return node();
  }
  using ContainerType = ArrayNode;
  static constexpr bool _type_is_nullable = true;

 private:
  ArrayNode* node() { return static_cast<ArrayNode*>(data_.get()); }
};

/*!
 * \brief Any → Array<T>. Elements that are not yet in T's stored form (a Python list of ints
 * arriving where an Array<PrimExpr> is expected) are converted once, into a new array, so that
 * the array holds the same objects as one built in C++.
 */
template <typename T>
struct AnyConverter<Array<T>> {
  static bool Check(const Any& a) { return a.is_null() || a.as<ArrayNode>() != nullptr; }
  static Array<T> Convert(const Any& a) {
    if (a.is_null()) return Array<T>(ObjectPtr<Object>(nullptr));
    const auto* node = a.as<ArrayNode>();
    if (!node) a.ThrowTypeMismatch("Array");
    Array<T> arr(ObjectPtr<Object>(const_cast<ArrayNode*>(node)));
    if constexpr (std::is_base_of_v<ObjectRef, T>) {
      bool stored_form = true;
      for (const Any& e : node->data) stored_form = stored_form && (e.is_object() || e.is_null());
      if (!stored_form) {
        Array<T> converted;
        for (const Any& e : node->data) converted.push_back(e.cast<T>());
        return converted;
      }
    }
    return arr;
  }
};

/*! \brief Hash and equality of Any keys: by value for scalars and strings, else identity. */
struct AnyKeyEqual {
  bool operator()(const Any& a, const Any& b) const { return a == b; }
};

/*! \brief The node of a Map: insertion-ordered entries. */
class MapNode : public Object {
 public:
  std::vector<std::pair<Any, Any>> data;
  /*! \brief Index of `key` in data, or -1. */
  int64_t Find(const Any& key) const {
    for (size_t i = 0; i < data.size(); ++i) {
      if (data[i].first == key) return static_cast<int64_t>(i);
    }
    return -1;
  }
  MINITVM_DECLARE_OBJECT_INFO(MapNode, Object, "runtime.Map");
};

/*! \brief An immutable, insertion-ordered map; `Set` copies when shared. */
template <typename K = Any, typename V = Any>
class Map : public ObjectRef {
 public:
  Map() : ObjectRef(make_object<MapNode>()) {}
  Map(std::initializer_list<std::pair<K, V>> init) : Map() {
    for (const auto& kv : init) Set(kv.first, kv.second);
  }
  explicit Map(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}

  size_t size() const { return get() ? get()->data.size() : 0; }
  bool empty() const { return size() == 0; }
  size_t count(const K& key) const { return get() && get()->Find(Any(key)) >= 0 ? 1 : 0; }
  /*! \brief The value at key; IndexError when the key is missing. */
  V at(const K& key) const {
    int64_t i = get() ? get()->Find(Any(key)) : -1;
    if (i < 0) MINITVM_THROW(IndexError) << "key " << Any(key).ToString() << " is not in the map";
    return get()->data[i].second.template cast<V>();
  }
  V operator[](const K& key) const { return at(key); }
  std::optional<V> Get(const K& key) const {
    int64_t i = get() ? get()->Find(Any(key)) : -1;
    if (i < 0) return std::nullopt;
    return get()->data[i].second.template cast<V>();
  }
  void Set(const K& key, const V& value) {
    MapNode* n = CopyOnWrite();
    int64_t i = n->Find(Any(key));
    if (i >= 0) {
      n->data[i].second = Any(value);
    } else {
      n->data.emplace_back(Any(key), Any(value));
    }
  }
  void erase(const K& key) {
    MapNode* n = CopyOnWrite();
    int64_t i = n->Find(Any(key));
    if (i >= 0) n->data.erase(n->data.begin() + i);
  }
  /*! \brief The entries in insertion order, converted. */
  std::vector<std::pair<K, V>> items() const {
    std::vector<std::pair<K, V>> out;
    if (!get()) return out;
    for (const auto& kv : get()->data) {
      out.emplace_back(kv.first.template cast<K>(), kv.second.template cast<V>());
    }
    return out;
  }

  const MapNode* get() const { return static_cast<const MapNode*>(data_.get()); }
  const MapNode* operator->() const { return get(); }
  MapNode* CopyOnWrite() {
    if (!data_) {
      data_ = make_object<MapNode>();
    } else if (!data_.unique()) {
      data_ = make_object<MapNode>(*get());
    }
    return static_cast<MapNode*>(data_.get());
  }
  using ContainerType = MapNode;
  static constexpr bool _type_is_nullable = true;
};

}  // namespace runtime
}  // namespace minitvm

#endif  // MINITVM_RUNTIME_CONTAINER_H_

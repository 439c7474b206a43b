/*!
 * \file minitvm/runtime/object.h
 * \brief The object system of minitvm (stage 1): reference-counted nodes with a type key,
 * handles (`ObjectRef`) and reflection through one field list per node.
 *
 * Every IR node, NDArray, PackedFunc and Module is an `Object`. A node class lists its fields
 * once in `VisitAttrs`; that list drives `repr`, field access from Python, structural
 * equality and hashing (stage 2) and serialisation.
 */
#ifndef MINITVM_RUNTIME_OBJECT_H_
#define MINITVM_RUNTIME_OBJECT_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>

#include "minitvm/runtime/error.h"

namespace minitvm {
namespace runtime {

class AttrVisitor;
class ObjectRef;

/*!
 * \brief Type registry: maps type keys to dense type indices and records each parent.
 *
 * Thread-safe; indices are allocated the first time a class asks for its own index.
 */
class TypeRegistry {
 public:
  /*! \brief Allocate (or look up) the index for `key`, whose parent has `parent_index`. */
  static uint32_t Register(const char* key, uint32_t parent_index);
  /*! \brief The key of a type index, e.g. "tir.For". */
  static std::string TypeIndex2Key(uint32_t index);
  /*! \brief The index of a key; throws ValueError when the key is unknown. */
  static uint32_t TypeKey2Index(const std::string& key);
  /*! \brief True when `child` is `parent` or derives from it. */
  static bool IsDerivedFrom(uint32_t child, uint32_t parent);
};

/*!
 * \brief Base class of every reference-counted node.
 *
 * Nodes are created by `make_object<T>()` and held by `ObjectRef` handles; the counter is
 * intrusive and atomic. Copying a node (for copy-on-write) gives a fresh count.
 */
class Object {
 public:
  Object() = default;
  Object(const Object& other) : type_index_(other.type_index_) {}
  Object& operator=(const Object&) = delete;
  virtual ~Object() = default;

  /*! \brief The dense index of the dynamic type. */
  uint32_t type_index() const { return type_index_; }
  /*! \brief The type key of the dynamic type, e.g. "runtime.NDArray". */
  std::string GetTypeKey() const { return TypeRegistry::TypeIndex2Key(type_index_); }
  /*! \brief True when this node is a T (or derives from it). */
  template <typename T>
  bool IsInstance() const {
    return dynamic_cast<const T*>(this) != nullptr;
  }
  /*! \brief The number of handles holding this node. */
  int use_count() const { return ref_counter_.load(std::memory_order_relaxed); }

  /*!
   * \brief List the fields of this node to a visitor: the single field list.
   *
   * Fields that *bind* a variable (a loop variable, a function parameter) are visited with
   * `VisitBinding` so that structural equality can map them (alpha-equivalence).
   */
  virtual void VisitAttrs(AttrVisitor* visitor) {}

  static constexpr const char* _type_key = "runtime.Object";
  static uint32_t RuntimeTypeIndex() { return 0; }
  /*! \brief Set by make_object only. */
  void InitTypeIndex(uint32_t index) { type_index_ = index; }

  // Intrusive reference counting, used by ObjectPtr and by the C ABI.
  void IncRef() { ref_counter_.fetch_add(1, std::memory_order_relaxed); }
  void DecRef() {
    if (ref_counter_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

 protected:
  uint32_t type_index_ = 0;

 private:
  std::atomic<int32_t> ref_counter_{0};
};

/*! \brief An owning smart pointer to a node of type T (intrusive count). */
template <typename T>
class ObjectPtr {
 public:
  ObjectPtr() = default;
  ObjectPtr(std::nullptr_t) {}  // NOLINT(*)
  explicit ObjectPtr(T* ptr) : ptr_(ptr) {
    if (ptr_) ptr_->IncRef();
  }
  ObjectPtr(const ObjectPtr& other) : ObjectPtr(other.ptr_) {}
  ObjectPtr(ObjectPtr&& other) noexcept : ptr_(other.ptr_) { other.ptr_ = nullptr; }
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  ObjectPtr(const ObjectPtr<U>& other) : ObjectPtr(static_cast<T*>(other.get())) {}  // NOLINT
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  ObjectPtr(ObjectPtr<U>&& other) : ptr_(static_cast<T*>(other.release())) {}  // NOLINT
  ~ObjectPtr() { reset(); }
  ObjectPtr& operator=(ObjectPtr other) {
    std::swap(ptr_, other.ptr_);
    return *this;
  }
  T* get() const { return ptr_; }
  T* operator->() const { return ptr_; }
  T& operator*() const { return *ptr_; }
  explicit operator bool() const { return ptr_ != nullptr; }
  bool unique() const { return ptr_ && ptr_->use_count() == 1; }
  void reset() {
    if (ptr_) ptr_->DecRef();
    ptr_ = nullptr;
  }
  /*! \brief Give up ownership without decrementing the count. */
  T* release() {
    T* p = ptr_;
    ptr_ = nullptr;
    return p;
  }
  void swap(ObjectPtr& other) { std::swap(ptr_, other.ptr_); }

 private:
  T* ptr_ = nullptr;
};

/*! \brief Create a node of type T; the only way nodes are made. */
template <typename T, typename... Args>
auto make_object(Args&&... args) {
  T* node = new T(std::forward<Args>(args)...);
  node->InitTypeIndex(T::RuntimeTypeIndex());
  return ObjectPtr<T>(node);
}

/*!
 * \brief Base class of every handle. A handle is a nullable pointer to an immutable node.
 *
 * `operator==` compares identity; structural comparison is `StructuralEqual` (stage 2).
 */
class ObjectRef {
 public:
  ObjectRef() = default;
  explicit ObjectRef(ObjectPtr<Object> data) : data_(std::move(data)) {}

  const Object* get() const { return data_.get(); }
  const Object* operator->() const { return data_.get(); }
  bool defined() const { return data_.get() != nullptr; }
  bool same_as(const ObjectRef& other) const { return data_.get() == other.data_.get(); }
  bool operator==(const ObjectRef& other) const { return same_as(other); }
  bool operator!=(const ObjectRef& other) const { return !same_as(other); }
  bool operator<(const ObjectRef& other) const { return data_.get() < other.data_.get(); }
  int use_count() const { return data_ ? data_->use_count() : 0; }
  bool unique() const { return data_.unique(); }
  /*! \brief The node as a T, or nullptr when it is not one. */
  template <typename T>
  const T* as() const {
    return data_ ? dynamic_cast<const T*>(data_.get()) : nullptr;
  }
  /*! \brief Give up ownership (for the C ABI): the caller now owns one reference. */
  Object* release() { return data_.release(); }

  using ContainerType = Object;
  static constexpr bool _type_is_nullable = true;

 protected:
  Object* get_mutable() const { return data_.get(); }
  ObjectPtr<Object> data_;
};

/*! \brief Hash of a handle by identity (for unordered containers). */
struct ObjectPtrHash {
  size_t operator()(const ObjectRef& ref) const { return std::hash<const void*>()(ref.get()); }
};
/*! \brief Equality of handles by identity. */
struct ObjectPtrEqual {
  bool operator()(const ObjectRef& a, const ObjectRef& b) const { return a.same_as(b); }
};

/*! \brief A handle to an existing node (which must already be held somewhere). */
template <typename RefType, typename NodeType>
RefType GetRef(const NodeType* node) {
  return RefType(ObjectPtr<Object>(const_cast<Object*>(static_cast<const Object*>(node))));
}

/*! \brief Checked downcast of a handle; throws TypeError naming both types. */
template <typename RefType>
RefType Downcast(const ObjectRef& ref) {
  if (ref.defined()) {
    if (!ref.as<typename RefType::ContainerType>()) {
      MINITVM_THROW(TypeError) << "expected " << RefType::ContainerType::_type_key << " but got "
                               << ref->GetTypeKey();
    }
  } else if (!RefType::_type_is_nullable) {
    MINITVM_THROW(TypeError) << "expected " << RefType::ContainerType::_type_key << " but got None";
  }
  return RefType(ObjectPtr<Object>(const_cast<Object*>(ref.get())));
}

}  // namespace runtime
}  // namespace minitvm

/*! \brief Declare a node class's type key and parent; put it in the public part of the node. */
#define MINITVM_DECLARE_OBJECT_INFO(TypeName, ParentType, TypeKey)                           \
  static constexpr const char* _type_key = TypeKey;                                          \
  static uint32_t RuntimeTypeIndex() {                                                       \
    static const uint32_t index =                                                            \
        ::minitvm::runtime::TypeRegistry::Register(TypeKey, ParentType::RuntimeTypeIndex()); \
    return index;                                                                            \
  }

/*! \brief The constructors and accessors every handle class has. */
#define MINITVM_DEFINE_OBJECT_REF_METHODS(TypeName, ParentType, ObjectName)                    \
  TypeName() = default;                                                                        \
  explicit TypeName(::minitvm::runtime::ObjectPtr<::minitvm::runtime::Object> n)               \
      : ParentType(std::move(n)) {}                                                            \
  const ObjectName* operator->() const { return static_cast<const ObjectName*>(data_.get()); } \
  const ObjectName* get() const { return operator->(); }                                       \
  using ContainerType = ObjectName;

/*! \brief Like MINITVM_DEFINE_OBJECT_REF_METHODS for handles that are never null. */
#define MINITVM_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(TypeName, ParentType, ObjectName)        \
  explicit TypeName(::minitvm::runtime::ObjectPtr<::minitvm::runtime::Object> n)               \
      : ParentType(std::move(n)) {}                                                            \
  const ObjectName* operator->() const { return static_cast<const ObjectName*>(data_.get()); } \
  const ObjectName* get() const { return operator->(); }                                       \
  static constexpr bool _type_is_nullable = false;                                             \
  using ContainerType = ObjectName;

/*! \brief Copy-on-write: a mutable pointer to the node, copied first when it is shared. */
#define MINITVM_DEFINE_OBJECT_REF_COW_METHOD(ObjectName)                                      \
  ObjectName* CopyOnWrite() {                                                                 \
    if (!data_.unique()) {                                                                    \
      auto copy = ::minitvm::runtime::make_object<ObjectName>(*(operator->()));               \
      ::minitvm::runtime::ObjectPtr<::minitvm::runtime::Object>(std::move(copy)).swap(data_); \
    }                                                                                         \
    return static_cast<ObjectName*>(data_.get());                                             \
  }

#endif  // MINITVM_RUNTIME_OBJECT_H_

/*!
 * \file minitvm/ir/op.h
 * \brief Operators and their attribute tables (stage 2): `Op::Get("relax.add")` and
 * `Op::GetAttrMap<T>("FInferStructInfo")`, TVM's op-attribute mechanism in small.
 *
 * An operator is a named, interned expression node: one `Op` object per name, registered once
 * (`MINITVM_REGISTER_OP("relax.add")`) and found by name from C++ and Python. Properties of an
 * operator are not fields of the node but *attributes* kept in per-key tables, so a later layer
 * can attach a property to operators it does not own (the Relax interpreter attaches
 * `FReference`, legalization attaches `FLegalize`) without touching their definition. An
 * attribute value is an `Any`: numbers, strings, or a `PackedFunc` for behaviour. This is the
 * one mechanism for operator properties: Relax operators use it, and so can TIR intrinsics.
 */
#ifndef MINITVM_IR_OP_H_
#define MINITVM_IR_OP_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "minitvm/ir/expr.h"
#include "minitvm/runtime/packed_func.h"

namespace minitvm {

/*! \brief One documented argument of an operator (for help text and printing). */
struct OpArgumentInfo {
  std::string name;         ///< parameter name, e.g. "x1"
  std::string type_info;    ///< e.g. "Tensor"
  std::string description;  ///< one line
};

/*! \brief An operator: a name and its documentation. Attributes live in the attribute tables. */
class OpNode : public BaseExprNode {
 public:
  /*! \brief The full name, e.g. "relax.add" or "relax.nn.conv2d". */
  String name;
  /*! \brief One paragraph of documentation. */
  String description;
  /*! \brief The number of inputs, or -1 when variadic. */
  int64_t num_inputs = -1;
  /*! \brief The argument list (names are used by printers and error messages). */
  std::vector<OpArgumentInfo> arguments;
  /*! \brief Position in the registry (the index of this op in every attribute table). */
  int64_t index = 0;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("name", &name);
    v->Visit("num_inputs", &num_inputs);
  }
  MINITVM_DECLARE_OBJECT_INFO(OpNode, BaseExprNode, "ir.Op");
};

/*! \brief Handle to an operator. Two handles to the op of one name are the same object. */
class Op : public BaseExpr {
 public:
  MINITVM_DEFINE_OBJECT_REF_METHODS(Op, BaseExpr, OpNode);
  /*! \brief The op registered as `name`; ValueError naming close candidates when absent. */
  static Op Get(const std::string& name);
  /*! \brief Whether an op named `name` is registered. */
  static bool Has(const std::string& name);
  /*! \brief The names of all registered operators, sorted. */
  static std::vector<std::string> ListNames();
  /*! \brief Attribute `key` of this op, or a null Any when not set. */
  runtime::Any GetAttr(const std::string& key) const;
  /*! \brief Whether attribute `key` is set for this op. */
  bool HasAttr(const std::string& key) const;
  /*! \brief The keys of every attribute table that has an entry for this op. */
  std::vector<std::string> ListAttrKeys() const;
};

/*!
 * \brief A typed view of one attribute table: `map[op]` converts the stored Any to T.
 * `map.count(op)` says whether the op has the attribute.
 */
template <typename T>
class OpAttrMap {
 public:
  explicit OpAttrMap(std::string key) : key_(std::move(key)) {}
  bool count(const Op& op) const { return op.HasAttr(key_); }
  T operator[](const Op& op) const {
    runtime::Any v = op.GetAttr(key_);
    if (v.is_null()) {
      MINITVM_THROW(ValueError) << "operator " << op->name << " has no attribute " << key_;
    }
    return v.cast<T>();
  }
  /*! \brief The value, or `fallback` when the op has no such attribute. */
  T get(const Op& op, T fallback) const { return count(op) ? (*this)[op] : fallback; }
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

/*!
 * \brief The builder behind `MINITVM_REGISTER_OP`: creates the op on first use and sets its
 * documentation and attributes. Registration happens at library load (static initialisers).
 */
class OpRegEntry {
 public:
  /*! \brief The entry of `name`, creating the op when it is new. */
  static OpRegEntry& RegisterOrGet(const std::string& name);
  OpRegEntry& describe(const std::string& text);
  OpRegEntry& set_num_inputs(int64_t n);
  OpRegEntry& add_argument(const std::string& name, const std::string& type_info,
                           const std::string& description);
  /*!
   * \brief Set attribute `key`. Setting it twice with the same `plevel` is an error (two layers
   * disagree); a higher `plevel` overrides a lower one.
   */
  OpRegEntry& set_attr(const std::string& key, runtime::Any value, int plevel = 10);
  /*! \brief Set a function-valued attribute from a typed C++ callable (stored as PackedFunc). */
  template <typename F>
  OpRegEntry& set_attr_typed(const std::string& key, F f, int plevel = 10) {
    return set_attr(
        key, runtime::Any(runtime::PackedFunc::FromTyped(std::move(f), name_ + "." + key)), plevel);
  }
  const Op& op() const { return op_; }

 private:
  explicit OpRegEntry(std::string name, Op op) : name_(std::move(name)), op_(std::move(op)) {}
  std::string name_;
  Op op_;
  friend class OpRegistryImpl;
};

#define MINITVM_OP_CONCAT_(a, b) a##b
#define MINITVM_OP_CONCAT(a, b) MINITVM_OP_CONCAT_(a, b)
/*! \brief `MINITVM_REGISTER_OP("relax.add").set_num_inputs(2).set_attr(...)` at file scope. */
#define MINITVM_REGISTER_OP(OpName)                                                              \
  [[maybe_unused]] static ::minitvm::OpRegEntry& MINITVM_OP_CONCAT(__minitvm_op_, __COUNTER__) = \
      ::minitvm::OpRegEntry::RegisterOrGet(OpName)

}  // namespace minitvm

#endif  // MINITVM_IR_OP_H_

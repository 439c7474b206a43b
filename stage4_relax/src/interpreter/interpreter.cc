/*!
 * \file interpreter/interpreter.cc
 * \brief The Relax reference interpreter (stage 4): evaluates a Relax function binding by
 * binding with an ExprFunctor, checks arguments, `match_cast`s and operator results against
 * struct info, and runs operators through their `FReference` attribute, `call_tir` through the
 * TIR interpreter and packed calls through the global registry. See relax/interpreter.h.
 */
#include "minitvm/relax/interpreter.h"

#include <cstring>
#include <memory>
#include <sstream>
#include <unordered_map>

#include "interpreter/value_util.h"
#include "minitvm/arith/int_eval.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/relax/op_attr.h"
#include "minitvm/relax/struct_info.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/script/tir_printer.h"
#include "minitvm/tir/function.h"
#include "minitvm/tir/interpreter.h"

namespace minitvm {
namespace relax {

ShapeTuple::ShapeTuple(std::vector<int64_t> values) {
  auto n = runtime::make_object<ShapeTupleNode>();
  n->values = std::move(values);
  data_ = std::move(n);
}

std::string DescribeValue(const runtime::Any& value) {
  std::ostringstream os;
  if (value.is_null()) return "None";
  if (value.is_bool()) return value.raw_int() ? "the bool True" : "the bool False";
  if (value.is_int()) return "the int " + std::to_string(value.raw_int());
  if (value.is_float()) {
    os << "the float " << value.raw_float();
    return os.str();
  }
  if (value.tag() == runtime::Any::kDataType) {
    os << "the dtype " << value.raw_dtype();
    return os.str();
  }
  if (value.is_string()) return "the string \"" + std::string(value.cast<String>()) + "\"";
  if (auto* nd = value.as<runtime::NDArrayNode>()) {
    os << "a tensor of shape " << runtime::ShapeToString(nd->shape) << " and dtype " << nd->dtype;
    return os.str();
  }
  if (auto* arr = value.as<runtime::ArrayNode>()) {
    os << "a tuple of " << arr->data.size() << " field" << (arr->data.size() == 1 ? "" : "s");
    return os.str();
  }
  if (auto* st = value.as<ShapeTupleNode>())
    return "the shape " + runtime::ShapeToString(st->values);
  if (value.as<runtime::PackedFuncObj>()) return "a packed function";
  if (value.as<FunctionNode>()) return "a Relax function";
  return "a " + value.type_name();
}

namespace interp {
namespace {

using Env = std::unordered_map<const VarNode*, Any>;

/*! \brief One activation of a Relax function: its variables and its symbolic dimensions. */
struct Frame {
  std::string func_name;
  Env vars;
  arith::IntEnv dims;
};

/*! \brief A nested Relax function with the frame it was created in (a closure). */
class ClosureNode : public Object {
 public:
  Function func;
  std::shared_ptr<Frame> captured;
  MINITVM_DECLARE_OBJECT_INFO(ClosureNode, Object, "relax.interpreter.Closure");
};

/*! \brief Why a value does not match a struct info. */
struct Mismatch {
  std::string kind;     ///< "TypeError" (wrong kind of value) or "ValueError"
  std::string has;      ///< "has shape (2, 784)"
  std::string expects;  ///< "dim 0 == 1"
};

std::string PrimStr(const PrimExpr& e) {
  if (auto* imm = e.as<IntImmNode>()) return std::to_string(imm->value);
  if (auto* v = e.as<tir::VarNode>()) return v->name_hint;
  try {
    return script::AsScript(e);
  } catch (const Error&) {
    return "<expr>";
  }
}

/*!
 * \brief Matches run-time values against struct info. With `bind`, a symbolic dimension seen
 * for the first time as a whole dimension is bound to the value's size; compound dimension
 * expressions (`n * 2`) are checked once every variable is known (`Finish`). Without `bind`,
 * unknown variables are not checked.
 */
class Matcher {
 public:
  Matcher(Frame* frame, bool bind) : frame_(frame), bind_(bind) {}
  /*! \brief How deep a tuple value may nest (deeper: a RuntimeError, not a stack overflow). */
  static constexpr int kMaxTupleDepth = 500;

  std::optional<Mismatch> Match(const Any& value, const StructInfo& info,
                                const std::string& path = "") {
    if (!info.defined() || info.as<ObjectStructInfoNode>()) return std::nullopt;
    if (auto* t = info.as<TensorStructInfoNode>()) return MatchTensor(value, t, path);
    if (auto* t = info.as<TupleStructInfoNode>()) {
      auto* arr = value.as<runtime::ArrayNode>();
      if (!arr) return Kind(value, "a tuple", path);
      if (arr->data.size() != t->fields.size()) {
        return Mismatch{"ValueError",
                        path + "is a tuple of " + std::to_string(arr->data.size()) + " fields",
                        path + std::to_string(t->fields.size()) + " fields"};
      }
      // Tuples nest without a limit in the IR; checking a value is recursive, so it has one.
      if (depth_ >= kMaxTupleDepth) {
        MINITVM_THROW(RuntimeError) << "relax.Interpret: a tuple value is nested more than "
                                    << kMaxTupleDepth << " levels deep";
      }
      ++depth_;
      for (size_t i = 0; i < t->fields.size(); ++i) {
        auto m = Match(arr->data[i], t->fields[i], path + "field " + std::to_string(i) + " ");
        if (m) {
          --depth_;
          return m;
        }
      }
      --depth_;
      return std::nullopt;
    }
    if (auto* s = info.as<ShapeStructInfoNode>()) {
      auto* st = value.as<ShapeTupleNode>();
      if (!st) return Kind(value, "a shape", path);
      std::string has = path + "is the shape " + runtime::ShapeToString(st->values);
      if (s->ndim != kUnknownNDim && static_cast<int64_t>(st->values.size()) != s->ndim) {
        return Mismatch{"ValueError", has, path + "rank " + std::to_string(s->ndim)};
      }
      if (s->values.defined()) return MatchDims(st->values, s->values, has, path);
      return std::nullopt;
    }
    if (auto* p = info.as<PrimStructInfoNode>()) {
      if (!(value.is_int() || value.is_bool() || value.is_float())) {
        return Kind(value, "a scalar", path);
      }
      if (!p->dtype.is_void()) {
        bool ok = p->dtype.is_float() ? true : (value.is_int() || value.is_bool());
        if (!ok) {
          std::ostringstream os;
          os << path << "dtype " << p->dtype;
          return Mismatch{"ValueError", path + "is " + DescribeValue(value), os.str()};
        }
      }
      if (p->value.defined() && !value.is_float()) {
        return MatchDims({value.raw_int()}, Array<PrimExpr>{p->value},
                         path + "is " + DescribeValue(value), path + "value: ");
      }
      return std::nullopt;
    }
    if (info.as<FuncStructInfoNode>()) {
      if (value.as<runtime::PackedFuncObj>() || value.as<FunctionNode>() ||
          value.as<ClosureNode>()) {
        return std::nullopt;
      }
      return Kind(value, "a function", path);
    }
    return std::nullopt;
  }

  /*! \brief Check the deferred compound dimensions. */
  std::optional<Mismatch> Finish() {
    for (const Deferred& d : deferred_) {
      int64_t expected;
      try {
        expected = arith::EvalIntExpr(d.expr, frame_->dims);
      } catch (const Error&) {
        continue;  // a variable that is never bound: nothing to check against
      }
      if (expected != d.actual) {
        return Mismatch{"ValueError", d.has,
                        d.path + "dim " + std::to_string(d.dim) + " == " + PrimStr(d.expr) +
                            " (= " + std::to_string(expected) + ")"};
      }
    }
    deferred_.clear();
    return std::nullopt;
  }

 private:
  struct Deferred {
    PrimExpr expr;
    int64_t actual;
    size_t dim;
    std::string has;
    std::string path;
  };

  static Mismatch Kind(const Any& value, const std::string& what, const std::string& path) {
    return Mismatch{"TypeError", path + "is " + DescribeValue(value), path + what};
  }

  std::optional<Mismatch> MatchTensor(const Any& value, const TensorStructInfoNode* t,
                                      const std::string& path) {
    auto* nd = value.as<runtime::NDArrayNode>();
    if (!nd) return Kind(value, "a tensor", path);
    if (!t->dtype.is_void() && nd->dtype != t->dtype) {
      std::ostringstream has, exp;
      has << path << "has dtype " << nd->dtype;
      exp << path << "dtype " << t->dtype;
      return Mismatch{"ValueError", has.str(), exp.str()};
    }
    std::string has = path + "has shape " + runtime::ShapeToString(nd->shape);
    if (t->ndim != kUnknownNDim && static_cast<int64_t>(nd->shape.size()) != t->ndim) {
      return Mismatch{"ValueError", has, path + "rank " + std::to_string(t->ndim)};
    }
    if (!t->shape.defined()) return std::nullopt;
    if (auto* se = t->shape.as<ShapeExprNode>()) return MatchDims(nd->shape, se->values, has, path);
    if (auto* v = t->shape.as<VarNode>()) {
      auto it = frame_->vars.find(v);
      if (it == frame_->vars.end()) return std::nullopt;
      auto* st = it->second.as<ShapeTupleNode>();
      if (!st) return std::nullopt;
      if (st->values != nd->shape) {
        return Mismatch{"ValueError", has,
                        path + "the shape of " + std::string(v->name_hint) + ", " +
                            runtime::ShapeToString(st->values)};
      }
    }
    return std::nullopt;
  }

  std::optional<Mismatch> MatchDims(const Shape& actual, const Array<PrimExpr>& expected,
                                    const std::string& has, const std::string& path) {
    if (actual.size() != expected.size()) {
      return Mismatch{"ValueError", has, path + "rank " + std::to_string(expected.size())};
    }
    for (size_t i = 0; i < actual.size(); ++i) {
      PrimExpr e = expected[i];
      if (auto* imm = e.as<IntImmNode>()) {
        if (imm->value != actual[i]) {
          return Mismatch{"ValueError", has,
                          path + "dim " + std::to_string(i) + " == " + std::to_string(imm->value)};
        }
      } else if (auto* v = e.as<tir::VarNode>()) {
        auto it = frame_->dims.find(v);
        if (it != frame_->dims.end()) {
          if (it->second != actual[i]) {
            return Mismatch{"ValueError", has,
                            path + "dim " + std::to_string(i) + " == " + std::string(v->name_hint) +
                                " (" + std::string(v->name_hint) + " = " +
                                std::to_string(it->second) + ")"};
          }
        } else if (bind_) {
          frame_->dims[v] = actual[i];
        }
      } else {
        deferred_.push_back({e, actual[i], i, has, path});
      }
    }
    return std::nullopt;
  }

  Frame* frame_;
  bool bind_;
  int depth_ = 0;
  std::vector<Deferred> deferred_;
};

/*! \brief State shared by every frame of one interpretation. */
struct Shared {
  std::optional<IRModule> mod;
  std::unordered_map<const Object*, std::shared_ptr<tir::Interpreter>> tir_cache;
  int depth = 0;
};

Any CallFunction(Shared* shared, const Function& func, const std::vector<Any>& args,
                 const std::string& name, const std::shared_ptr<Frame>& captured);

/*! \brief A shape value from Python may come as a list of ints: make it a ShapeTuple. */
Any NormalizeArg(const Any& value, const StructInfo& info) {
  if (!info.defined()) return value;
  if (info.as<ShapeStructInfoNode>()) {
    if (auto* arr = value.as<runtime::ArrayNode>()) {
      Shape dims;
      for (const Any& d : arr->data) {
        if (!d.is_int()) return value;
        dims.push_back(d.raw_int());
      }
      return ShapeTuple(dims);
    }
  }
  if (auto* t = info.as<TupleStructInfoNode>()) {
    if (auto* arr = value.as<runtime::ArrayNode>()) {
      if (arr->data.size() != t->fields.size()) return value;
      Array<Any> out;
      for (size_t i = 0; i < arr->data.size(); ++i) {
        out.push_back(NormalizeArg(arr->data[i], t->fields[i]));
      }
      return out;
    }
  }
  return value;
}

/*! \brief Evaluates the expressions of one frame. */
class Evaluator : public ExprFunctor<Any(const Expr&)> {
 public:
  Evaluator(Shared* shared, std::shared_ptr<Frame> frame)
      : shared_(shared), frame_(std::move(frame)) {}

  Any VisitExpr_(const VarNode* op) final {
    auto it = frame_->vars.find(op);
    if (it == frame_->vars.end()) {
      MINITVM_THROW(InternalError)
          << frame_->func_name << ": variable " << op->name_hint << " is used before it is defined";
    }
    return it->second;
  }
  Any VisitExpr_(const ConstantNode* op) final { return op->data; }
  Any VisitExpr_(const TupleNode* op) final {
    Array<Any> fields;
    for (const Expr& f : op->fields) fields.push_back(VisitExpr(f));
    return fields;
  }
  Any VisitExpr_(const TupleGetItemNode* op) final {
    Any t = VisitExpr(op->tuple);
    auto* arr = t.as<runtime::ArrayNode>();
    if (!arr) {
      MINITVM_THROW(TypeError) << Where() << "tuple indexing [" << op->index << "] of "
                               << DescribeValue(t);
    }
    if (op->index < 0 || op->index >= static_cast<int64_t>(arr->data.size())) {
      MINITVM_THROW(IndexError) << Where() << "tuple index " << op->index
                                << " out of range for a tuple of " << arr->data.size() << " fields";
    }
    return arr->data[op->index];
  }
  Any VisitExpr_(const ShapeExprNode* op) final {
    Shape dims;
    for (const PrimExpr& e : op->values) dims.push_back(EvalDim(e));
    return ShapeTuple(dims);
  }
  Any VisitExpr_(const PrimValueNode* op) final {
    const PrimExpr& e = op->value;
    if (auto* f = e.as<FloatImmNode>()) return f->value;
    if (e->dtype.is_float()) {
      MINITVM_THROW(ValueError) << Where() << "cannot evaluate the float PrimValue " << PrimStr(e)
                                << " (only constants are supported)";
    }
    int64_t v = EvalDim(e);
    if (e->dtype.is_bool()) return v != 0;
    return v;
  }
  Any VisitExpr_(const StringImmNode* op) final { return op->value; }
  Any VisitExpr_(const DataTypeImmNode* op) final { return op->value; }
  Any VisitExpr_(const FunctionNode* op) final {
    auto c = runtime::make_object<ClosureNode>();
    c->func = GetRef<Function>(op);
    c->captured = std::make_shared<Frame>(*frame_);
    return ObjectRef(c);
  }
  Any VisitExpr_(const ExternFuncNode* op) final { return LookupPacked(op->global_symbol, "call"); }
  Any VisitExpr_(const GlobalVarNode* op) final { return LookupGlobal(op); }
  Any VisitExpr_(const OpNode* op) final { return GetRef<Op>(op); }

  Any VisitExpr_(const IfNode* op) final {
    Any c = VisitExpr(op->cond);
    bool cond;
    if (auto* nd = c.as<runtime::NDArrayNode>()) {
      if (!nd->shape.empty()) {
        MINITVM_THROW(ValueError) << Where() << "the condition of If must be a scalar but is "
                                  << DescribeValue(c);
      }
      cond = ScalarOf(TensorArgOf(c)) != 0;
    } else if (c.is_bool() || c.is_int()) {
      cond = c.raw_int() != 0;
    } else {
      MINITVM_THROW(TypeError) << Where() << "the condition of If must be a bool scalar but is "
                               << DescribeValue(c);
    }
    return VisitExpr(cond ? op->true_branch : op->false_branch);
  }

  Any VisitExpr_(const SeqExprNode* op) final {
    std::string outer = binding_;  // an If branch runs inside the outer binding
    for (const BindingBlock& block : op->blocks) {
      for (const Binding& b : block->bindings) RunBinding(b);
    }
    binding_ = outer;
    return VisitExpr(op->body);
  }

  Any VisitExpr_(const CallNode* op) final {
    Call call = GetRef<Call>(op);
    if (auto* o = op->op.as<OpNode>()) {
      std::string name = o->name;
      if (name == "relax.call_tir") return CallTIR(call);
      if (name == "relax.call_dps_packed") return CallDPSPacked(call);
      if (name == "relax.call_pure_packed") return CallPurePacked(call);
      return CallOp(call, GetRef<Op>(o));
    }
    std::vector<Any> args;
    for (const Expr& a : op->args) args.push_back(VisitExpr(a));
    if (auto* gv = op->op.as<GlobalVarNode>()) {
      Any f = LookupGlobal(gv);
      if (!f.as<FunctionNode>()) {
        MINITVM_THROW(TypeError) << Where() << gv->name_hint
                                 << " is a PrimFunc: call it with R.call_tir";
      }
      return CallFunction(shared_, f.cast<Function>(), args, gv->name_hint, nullptr);
    }
    if (auto* ef = op->op.as<ExternFuncNode>()) {
      Any rv = CallPacked(LookupPacked(ef->global_symbol, "call"), args);
      CheckResult(call, rv, ef->global_symbol, false);
      return rv;
    }
    return CallValue(VisitExpr(op->op), args);
  }

 private:
  std::string Where() const {
    return frame_->func_name + ": " + (binding_.empty() ? "" : "binding " + binding_ + ": ");
  }

  static NDArray TensorArgOf(const Any& v) {
    return NDArray(runtime::ObjectPtr<Object>(
        const_cast<runtime::NDArrayNode*>(v.as<runtime::NDArrayNode>())));
  }

  int64_t EvalDim(const PrimExpr& e) {
    try {
      return arith::EvalIntExpr(e, frame_->dims);
    } catch (const Error& err) {
      MINITVM_THROW(ValueError) << Where() << "cannot evaluate " << PrimStr(e)
                                << " with the symbolic variables bound so far: " << err.what();
    }
  }

  void RunBinding(const Binding& b) {
    binding_ = b->var->name_hint;
    if (auto* vb = b.as<VarBindingNode>()) {
      frame_->vars[vb->var.get()] = VisitExpr(vb->value);
    } else if (auto* mc = b.as<MatchCastNode>()) {
      Any v = VisitExpr(mc->value);
      Matcher m(frame_.get(), true);
      auto mm = m.Match(v, mc->struct_info);
      if (!mm) mm = m.Finish();
      if (mm) {
        MINITVM_THROW(ValueError) << frame_->func_name << ": match_cast of binding " << binding_
                                  << ": the value " << mm->has << " but "
                                  << StructInfoToString(mc->struct_info) << " expects "
                                  << mm->expects;
      }
      frame_->vars[mc->var.get()] = v;
    } else {
      MINITVM_THROW(InternalError) << "unknown binding " << b->GetTypeKey();
    }
  }

  Any LookupGlobal(const GlobalVarNode* gv) {
    if (!shared_->mod) {
      MINITVM_THROW(ValueError) << Where() << "calls " << gv->name_hint
                                << " but no module was given to look it up in";
    }
    auto found = (*shared_->mod)->GetGlobalVar(gv->name_hint);
    if (!found) {
      MINITVM_THROW(ValueError) << Where() << "the module has no function " << gv->name_hint;
    }
    return (*shared_->mod)->Lookup(*found);
  }

  runtime::PackedFunc LookupPacked(const std::string& name, const std::string& how) {
    auto f = runtime::Registry::Get(name);
    if (!f) {
      MINITVM_THROW(ValueError) << Where() << how << ": no global function named \"" << name
                                << "\" is registered (register it with "
                                   "tvm.register_func or MINITVM_REGISTER_GLOBAL)";
    }
    return *f;
  }

  static Any CallPacked(const runtime::PackedFunc& f, const std::vector<Any>& args) {
    Any rv;
    f.CallPacked(runtime::PackedArgs(args.data(), static_cast<int>(args.size())), &rv);
    return rv;
  }

  Any CallValue(const Any& callee, const std::vector<Any>& args) {
    if (auto* c = callee.as<ClosureNode>()) {
      std::string name = c->func->GetAttr<String>("global_symbol").value_or("<closure>");
      return CallFunction(shared_, c->func, args, name, c->captured);
    }
    if (callee.as<FunctionNode>()) {
      return CallFunction(shared_, callee.cast<Function>(), args, "<function>", nullptr);
    }
    if (callee.as<runtime::PackedFuncObj>()) {
      return CallPacked(callee.cast<runtime::PackedFunc>(), args);
    }
    MINITVM_THROW(TypeError) << Where() << "cannot call " << DescribeValue(callee);
  }

  /*! \brief Check a result against the call's struct info; `internal`: an op's result. */
  void CheckResult(const Call& call, const Any& value, const std::string& what, bool internal) {
    if (!call->struct_info_.defined() || !call->struct_info_.as<StructInfoNode>()) return;
    StructInfo info = Downcast<StructInfo>(call->struct_info_);
    Matcher m(frame_.get(), false);
    auto mm = m.Match(value, info);
    if (!mm) mm = m.Finish();
    if (!mm) return;
    if (internal) {
      MINITVM_THROW(InternalError)
          << Where() << what << " returned a value that " << mm->has
          << " but the call's inferred struct info " << StructInfoToString(info) << " expects "
          << mm->expects << " (the op's reference and its struct-info inference disagree)";
    }
    MINITVM_THROW(ValueError) << Where() << what << " returned a value that " << mm->has
                              << " but the call's struct info " << StructInfoToString(info)
                              << " expects " << mm->expects;
  }

  Any CallOp(const Call& call, const Op& op) {
    Array<Any> args;
    for (const Expr& a : call->args) args.push_back(VisitExpr(a));
    Any fref = op.GetAttr(kFReference);
    if (fref.is_null()) {
      MINITVM_THROW(ValueError) << Where() << "operator " << op->name
                                << " has no reference implementation (attribute FReference)";
    }
    Any rv;
    try {
      rv = fref.cast<runtime::PackedFunc>()(call, args);
    } catch (const Error& e) {
      if (std::string(e.what()).rfind(frame_->func_name + ": ", 0) == 0) throw;
      MINITVM_THROW_KIND(e.kind()) << Where() << op->name << ": " << e.what();
    }
    CheckResult(call, rv, op->name, true);
    return rv;
  }

  /*! \brief The tensors `info` describes, allocated (zero-filled) with bound dimensions. */
  std::vector<NDArray> AllocOutputs(const StructInfo& info, const std::string& what) {
    std::vector<NDArray> out;
    auto alloc = [&](const StructInfo& s) {
      auto* t = s.as<TensorStructInfoNode>();
      if (!t) {
        MINITVM_THROW(ValueError) << Where() << what << ": output struct info "
                                  << StructInfoToString(s) << " is not a tensor";
      }
      if (t->dtype.is_void()) {
        MINITVM_THROW(ValueError) << Where() << what << ": output struct info "
                                  << StructInfoToString(s) << " has no dtype";
      }
      Shape dims;
      if (auto* se = t->shape.as<ShapeExprNode>()) {
        for (const PrimExpr& e : se->values) dims.push_back(EvalDim(e));
      } else if (auto* v = t->shape.as<VarNode>()) {
        Any sv = VisitExpr_(v);
        dims = ToInts(sv, what + " output shape");
      } else {
        MINITVM_THROW(ValueError) << Where() << what << ": output struct info "
                                  << StructInfoToString(s) << " has no known shape";
      }
      NDArray a = NDArray::Empty(dims, t->dtype);
      if (a.NBytes()) std::memset(a.data(), 0, a.NBytes());
      out.push_back(a);
    };
    if (auto* tup = info.as<TupleStructInfoNode>()) {
      for (const StructInfo& f : tup->fields) alloc(f);
    } else {
      alloc(info);
    }
    return out;
  }

  static Any PackOutputs(const StructInfo& info, const std::vector<NDArray>& outs) {
    if (info.as<TupleStructInfoNode>()) {
      Array<Any> arr;
      for (const NDArray& o : outs) arr.push_back(o);
      return arr;
    }
    return outs[0];
  }

  std::vector<Any> Flatten(const Any& v) {
    if (auto* arr = v.as<runtime::ArrayNode>()) return arr->data;
    return {v};
  }

  StructInfo OutSInfo(const Call& call, const std::string& what) {
    if (call->sinfo_args.empty()) {
      MINITVM_THROW(ValueError) << Where() << what << " has no output struct info (sinfo_args)";
    }
    if (call->sinfo_args.size() == 1) return call->sinfo_args[0];
    Array<StructInfo> fields;
    for (const StructInfo& s : call->sinfo_args) fields.push_back(s);
    return TupleStructInfo(fields);
  }

  Any CallTIR(const Call& call) {
    if (call->args.size() < 2) {
      MINITVM_THROW(ValueError) << Where() << "R.call_tir expects (func, args[, tir_vars])";
    }
    Any callee;
    std::string fname;
    if (auto* gv = call->args[0].as<GlobalVarNode>()) {
      callee = LookupGlobal(gv);
      fname = gv->name_hint;
    } else {
      callee = VisitExpr(call->args[0]);
      fname = "<prim_func>";
    }
    auto* pf = callee.as<tir::PrimFuncNode>();
    if (!pf) {
      MINITVM_THROW(TypeError) << Where() << "R.call_tir calls " << fname
                               << ", which is not a PrimFunc but " << DescribeValue(callee);
    }
    std::string what = "R.call_tir(" + fname + ")";
    std::vector<Any> packed = Flatten(VisitExpr(call->args[1]));
    StructInfo out_info = OutSInfo(call, what);
    std::vector<NDArray> outs = AllocOutputs(out_info, what);
    for (const NDArray& o : outs) packed.push_back(o);
    if (call->args.size() > 2) {
      for (int64_t d : ToInts(VisitExpr(call->args[2]), what + " tir_vars")) packed.push_back(d);
    }
    auto& cached = shared_->tir_cache[pf];
    if (!cached) {
      cached = std::make_shared<tir::Interpreter>(GetRef<tir::PrimFunc>(pf), fname);
    }
    try {
      cached->Run(runtime::PackedArgs(packed.data(), static_cast<int>(packed.size())));
    } catch (const Error& e) {
      MINITVM_THROW_KIND(e.kind()) << Where() << what << ": " << e.what();
    }
    return PackOutputs(out_info, outs);
  }

  std::string SymbolOf(const Expr& e, const std::string& what) {
    if (auto* ef = e.as<ExternFuncNode>()) return ef->global_symbol;
    if (auto* s = e.as<StringImmNode>()) return s->value;
    MINITVM_THROW(TypeError) << Where() << what << " expects an ExternFunc as its callee";
  }

  Any CallDPSPacked(const Call& call) {
    if (call->args.size() != 2) {
      MINITVM_THROW(ValueError) << Where() << "R.call_dps_packed expects (func, args)";
    }
    std::string sym = SymbolOf(call->args[0], "R.call_dps_packed");
    std::string what = "R.call_dps_packed(\"" + sym + "\")";
    runtime::PackedFunc f = LookupPacked(sym, what);
    std::vector<Any> packed = Flatten(VisitExpr(call->args[1]));
    StructInfo out_info = OutSInfo(call, what);
    std::vector<NDArray> outs = AllocOutputs(out_info, what);
    for (const NDArray& o : outs) packed.push_back(o);
    try {
      CallPacked(f, packed);
    } catch (const Error& e) {
      MINITVM_THROW_KIND(e.kind()) << Where() << what << ": " << e.what();
    }
    return PackOutputs(out_info, outs);
  }

  Any CallPurePacked(const Call& call) {
    if (call->args.empty()) {
      MINITVM_THROW(ValueError) << Where() << "R.call_pure_packed expects (func, args...)";
    }
    std::string sym = SymbolOf(call->args[0], "R.call_pure_packed");
    std::string what = "R.call_pure_packed(\"" + sym + "\")";
    runtime::PackedFunc f = LookupPacked(sym, what);
    std::vector<Any> args;
    for (size_t i = 1; i < call->args.size(); ++i) args.push_back(VisitExpr(call->args[i]));
    Any rv;
    try {
      rv = CallPacked(f, args);
    } catch (const Error& e) {
      MINITVM_THROW_KIND(e.kind()) << Where() << what << ": " << e.what();
    }
    CheckResult(call, rv, what, false);
    return rv;
  }

  Shared* shared_;
  std::shared_ptr<Frame> frame_;
  std::string binding_;
};

Any CallFunction(Shared* shared, const Function& func, const std::vector<Any>& in_args,
                 const std::string& name, const std::shared_ptr<Frame>& captured) {
  if (++shared->depth > 2000) {
    shared->depth = 0;
    MINITVM_THROW(RuntimeError) << name << ": call depth exceeds 2000 (unbounded recursion?)";
  }
  auto frame = captured ? std::make_shared<Frame>(*captured) : std::make_shared<Frame>();
  frame->func_name = name;
  const auto& params = func->params;
  if (in_args.size() != params.size()) {
    std::ostringstream os;
    for (size_t i = 0; i < params.size(); ++i) os << (i ? ", " : "") << params[i]->name_hint;
    MINITVM_THROW(TypeError) << name << ": expects " << params.size() << " argument"
                             << (params.size() == 1 ? "" : "s") << " (" << os.str() << ") but "
                             << in_args.size() << (in_args.size() == 1 ? " was" : " were")
                             << " given";
  }
  Matcher m(frame.get(), true);
  for (size_t i = 0; i < params.size(); ++i) {
    StructInfo info = params[i]->struct_info_.defined()
                          ? Downcast<StructInfo>(params[i]->struct_info_)
                          : StructInfo();
    Any arg = NormalizeArg(in_args[i], info);
    auto mm = m.Match(arg, info);
    if (!mm && i + 1 == params.size()) mm = m.Finish();
    if (mm) {
      std::string pname = params[i]->name_hint;
      MINITVM_THROW_KIND(mm->kind)
          << name << ": argument " << pname << " " << mm->has << " but parameter " << pname << ": "
          << StructInfoToString(info) << " expects " << mm->expects;
    }
    frame->vars[params[i].get()] = arg;
  }
  Evaluator ev(shared, frame);
  Any rv = ev.VisitExpr(func->body);
  if (func->ret_struct_info.defined()) {
    Matcher rm(frame.get(), false);
    auto mm = rm.Match(rv, func->ret_struct_info);
    if (!mm) mm = rm.Finish();
    if (mm) {
      MINITVM_THROW(ValueError) << name << ": the function returned a value that " << mm->has
                                << " but its return struct info "
                                << StructInfoToString(func->ret_struct_info) << " expects "
                                << mm->expects;
    }
  }
  --shared->depth;
  return rv;
}

}  // namespace
}  // namespace interp

runtime::Any Interpret(const Function& func, const std::vector<runtime::Any>& args,
                       const std::optional<IRModule>& mod) {
  if (!func.defined()) MINITVM_THROW(ValueError) << "relax.Interpret: no function to run";
  if (mod && !mod->defined()) MINITVM_THROW(ValueError) << "relax.Interpret: the module is null";
  interp::Shared shared;
  shared.mod = mod;
  std::string name = func->GetAttr<String>("global_symbol").value_or("main");
  return interp::CallFunction(&shared, func, args, name, nullptr);
}

runtime::Any Interpret(const IRModule& mod, const std::string& func_name,
                       const std::vector<runtime::Any>& args) {
  if (!mod.defined()) {
    MINITVM_THROW(ValueError) << "relax.Interpret: no module to find \"" << func_name
                              << "\" in (pass an IRModule, or a relax.Function to run)";
  }
  auto gv = mod->GetGlobalVar(func_name);
  if (!gv) {
    std::ostringstream os;
    for (const GlobalVar& g : mod->GetGlobalVars()) {
      if (mod->Lookup(g).as<FunctionNode>()) os << " " << g->name_hint;
    }
    MINITVM_THROW(ValueError) << "relax.Interpret: the module has no function \"" << func_name
                              << "\"; its Relax functions are:" << os.str();
  }
  BaseFunc f = mod->Lookup(*gv);
  auto* rf = f.as<FunctionNode>();
  if (!rf) {
    MINITVM_THROW(TypeError) << "relax.Interpret: " << func_name << " is a " << f->GetTypeKey()
                             << ", not a Relax function";
  }
  interp::Shared shared;
  shared.mod = mod;
  return interp::CallFunction(&shared, GetRef<Function>(rf), args, func_name, nullptr);
}

MINITVM_REGISTER_GLOBAL("relax.Interpret").set_body([](runtime::PackedArgs args, Any* rv) {
  if (args.size() < 2) {
    MINITVM_THROW(TypeError) << "relax.Interpret(mod, func_name_or_function, *args) expects at "
                                "least 2 arguments";
  }
  std::vector<Any> call_args(args.data() + 2, args.data() + args.size());
  if (args[1].as<FunctionNode>()) {
    std::optional<IRModule> mod;
    if (args[0].as<IRModuleNode>()) mod = args[0].cast<IRModule>();
    *rv = Interpret(args[1].cast<Function>(), call_args, mod);
    return;
  }
  if (!args[0].as<IRModuleNode>()) {
    MINITVM_THROW(TypeError) << "relax.Interpret: the first argument must be an IRModule (or None "
                                "with a relax.Function), not "
                             << args[0].type_name();
  }
  if (!args[1].is_string()) {
    MINITVM_THROW(TypeError) << "relax.Interpret: the function must be a name (str) or a "
                                "relax.Function, not "
                             << args[1].type_name();
  }
  *rv = Interpret(args[0].cast<IRModule>(), args[1].cast<String>(), call_args);
});

MINITVM_REGISTER_GLOBAL("relax.ShapeTupleValues").set_body_typed([](ShapeTuple s) {
  Array<Any> out;
  for (int64_t v : s.values()) out.push_back(v);
  return out;
});

MINITVM_REGISTER_GLOBAL("relax.ShapeTuple").set_body_typed([](Array<Any> values) {
  std::vector<int64_t> dims;
  for (const Any& v : values) dims.push_back(interp::ToInt(v, "relax.ShapeTuple: a dimension"));
  return ShapeTuple(dims);
});

}  // namespace relax
}  // namespace minitvm

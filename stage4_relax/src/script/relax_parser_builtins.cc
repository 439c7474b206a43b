/*!
 * \file relax_parser_builtins.cc
 * \brief The TVMScript parser for Relax (stage 4): the `R.*` functions the parser knows itself
 * (struct info constructors, `call_tir` and the packed calls, constants, `match_cast`), and every
 * other `R.<name>` / `R.nn.<name>` as a call of the registered operator `relax.<name>`.
 *
 * Both spellings of the MLC course are read: `R.call_tir(f, (x,), (1, 128), dtype="float32")`
 * (output shape and dtype) as well as `R.call_tir(cls.f, (x,), out_sinfo=R.Tensor(...))`.
 */
#include <cstring>

#include "minitvm/relax/op_attr.h"
#include "minitvm/runtime/ndarray.h"
#include "relax_parser_impl.h"

namespace minitvm {
namespace relax {
namespace parser {

using EK = ast::Expr::Kind;
using RK = RValue::Kind;

namespace {

/*! \brief A call's arguments, evaluated and matched to parameter names. */
struct BoundArgs {
  std::vector<std::optional<RValue>> values;
  std::vector<Span> spans;
  const RValue* Get(size_t i) const { return values[i] ? &*values[i] : nullptr; }
};

/*! \brief Write a Python number into element `i` of `out`. False for an unsupported dtype. */
bool StoreNumber(const NDArray& out, int64_t i, DataType t, const RValue& v) {
  bool is_int = v.kind == RK::kInt || v.kind == RK::kBool;
  double fv = v.kind == RK::kFloat ? v.f : static_cast<double>(v.i);
  int64_t iv = v.i;
  char* p = static_cast<char*>(out.data()) + i * t.bytes();
  auto put = [&](auto x) { std::memcpy(p, &x, sizeof(x)); };
  if (t.is_bool()) {
    put(static_cast<uint8_t>(fv != 0));
  } else if (t.is_float() && t.bits() == 32) {
    put(static_cast<float>(fv));
  } else if (t.is_float() && t.bits() == 64) {
    put(fv);
  } else if ((t.is_int() || t.is_uint()) && is_int) {
    switch (t.bits()) {
      case 8:
        put(static_cast<int8_t>(iv));
        break;
      case 16:
        put(static_cast<int16_t>(iv));
        break;
      case 32:
        put(static_cast<int32_t>(iv));
        break;
      case 64:
        put(iv);
        break;
      default:
        return false;
    }
  } else {
    return false;
  }
  return true;
}

}  // namespace

RValue RelaxEvaluator::CallBuiltin(const std::string& name, const ast::Expr& call) {
  const Span& span = call.span;
  auto bind = [&](const std::vector<std::string>& params, size_t required,
                  bool rest_positional = false) {
    BoundArgs b;
    b.values.resize(params.size());
    b.spans.resize(params.size(), span);
    size_t npos = call.children.size() - 1;
    if (!rest_positional && npos > params.size()) {
      Error(call.children[params.size() + 1]->span,
            name + " takes at most " + std::to_string(params.size()) + " positional arguments");
    }
    for (size_t k = 0; k < npos && k < params.size(); ++k) {
      const ast::Expr& a = *call.children[k + 1];
      if (a.kind == EK::kStarred) Error(a.span, "unsupported Python construct: *args");
      b.values[k] = Eval(a);
      b.spans[k] = a.span;
    }
    for (const ast::Keyword& kw : call.keywords) {
      size_t k = 0;
      while (k < params.size() && params[k] != kw.name) ++k;
      if (k == params.size()) {
        std::string known;
        for (const std::string& p : params) known += (known.empty() ? "" : ", ") + p;
        Error(kw.span, name + " got an unexpected keyword argument \"" + kw.name +
                           "\" (its parameters: " + known + ")");
      }
      if (b.values[k]) Error(kw.span, name + " got argument \"" + kw.name + "\" twice");
      b.values[k] = Eval(*kw.value);
      b.spans[k] = kw.value->span;
    }
    for (size_t k = 0; k < required; ++k) {
      if (!b.values[k]) Error(span, name + " is missing its argument \"" + params[k] + "\"");
    }
    return b;
  };
  auto is_none = [](const RValue* v) { return !v || v->kind == RK::kNone; };

  // ---- struct info ----
  if (name == "R.Tensor") {
    BoundArgs b = bind({"shape", "dtype", "vdevice", "ndim"}, 0);
    const RValue* shape = b.Get(0);
    const RValue* dtype_v = b.Get(1);
    if (shape && shape->kind == RK::kStr && is_none(dtype_v)) {  // R.Tensor("float32")
      dtype_v = shape;
      shape = nullptr;
    }
    DataType dtype = is_none(dtype_v) ? DataType::Void() : AsDType(*dtype_v, b.spans[1]);
    int64_t ndim = kUnknownNDim;
    if (const RValue* n = b.Get(3)) {
      if (n->kind != RK::kInt || n->i < -1) Error(b.spans[3], "ndim must be an int >= -1");
      ndim = n->i;
    }
    if (!is_none(b.Get(2))) Error(b.spans[2], "virtual devices (vdevice) are not supported");
    if (is_none(shape))
      return [&] {
        RValue r;
        r.kind = RK::kSInfo;
        r.span = span;
        r.sinfo = TensorStructInfo(dtype, ndim);
        return r;
      }();
    Expr shape_expr;
    if (shape->kind == RK::kExpr && shape->expr.as<VarNode>()) {
      shape_expr = shape->expr;
    } else {
      shape_expr = ShapeExpr(AsDims(*shape, b.spans[0]));
    }
    if (ndim != kUnknownNDim) {
      int64_t got = shape_expr.as<ShapeExprNode>()
                        ? static_cast<int64_t>(shape_expr.as<ShapeExprNode>()->values.size())
                        : ndim;
      if (got != ndim)
        Error(b.spans[3], "ndim=" + std::to_string(ndim) + " but the shape has " +
                              std::to_string(got) + " dimensions");
    }
    RValue r;
    r.kind = RK::kSInfo;
    r.span = span;
    r.sinfo = TensorStructInfo(shape_expr, dtype);
    return r;
  }
  if (name == "R.Shape") {
    BoundArgs b = bind({"values", "ndim"}, 0);
    RValue r;
    r.kind = RK::kSInfo;
    r.span = span;
    if (!is_none(b.Get(0))) {
      r.sinfo = ShapeStructInfo(AsDims(*b.Get(0), b.spans[0]));
    } else {
      int64_t ndim = kUnknownNDim;
      if (const RValue* n = b.Get(1)) {
        if (n->kind != RK::kInt || n->i < -1) Error(b.spans[1], "ndim must be an int >= -1");
        ndim = n->i;
      }
      r.sinfo = ShapeStructInfo(ndim);
    }
    return r;
  }
  if (name == "R.Tuple") {
    if (!call.keywords.empty()) Error(call.keywords[0].span, "R.Tuple takes no keyword arguments");
    Array<StructInfo> fields;
    for (size_t k = 1; k < call.children.size(); ++k) {
      const ast::Expr& a = *call.children[k];
      RValue v = Eval(a);
      if ((v.kind == RK::kList || v.kind == RK::kTuple) && call.children.size() == 2) {
        for (const RValue& it : v.items) fields.push_back(AsSInfo(it, it.span));  // R.Tuple([a, b])
      } else {
        fields.push_back(AsSInfo(v, a.span));
      }
    }
    RValue r;
    r.kind = RK::kSInfo;
    r.span = span;
    r.sinfo = TupleStructInfo(fields);
    return r;
  }
  if (name == "R.Object" || name == "R.Any") {
    bind({}, 0);
    RValue r;
    r.kind = RK::kSInfo;
    r.span = span;
    r.sinfo = ObjectStructInfo();
    return r;
  }
  if (name == "R.Prim") {
    BoundArgs b = bind({"dtype", "value"}, 0);
    RValue r;
    r.kind = RK::kSInfo;
    r.span = span;
    if (!is_none(b.Get(1))) {
      const RValue& v = *b.Get(1);
      PrimExpr value = v.kind == RK::kPrim    ? v.prim
                       : v.kind == RK::kFloat ? PrimExpr(FloatImm(DataType::Float(64), v.f))
                                              : AsDim(v, b.spans[1]);
      r.sinfo = PrimStructInfo(value);
    } else if (!is_none(b.Get(0))) {
      r.sinfo = PrimStructInfo(AsDType(*b.Get(0), b.spans[0]));
    } else {
      Error(span, "R.Prim needs a dtype (R.Prim(\"int64\")) or a value (R.Prim(value=n))");
    }
    return r;
  }
  if (name == "R.Callable") {
    BoundArgs b = bind({"params", "ret", "purity"}, 0);
    RValue r;
    r.kind = RK::kSInfo;
    r.span = span;
    StructInfo ret =
        is_none(b.Get(1)) ? StructInfo(ObjectStructInfo()) : AsSInfo(*b.Get(1), b.spans[1]);
    bool purity = true;
    if (const RValue* p = b.Get(2)) {
      if (p->kind != RK::kBool) Error(b.spans[2], "purity must be True or False");
      purity = p->i != 0;
    }
    if (is_none(b.Get(0))) {
      r.sinfo = FuncStructInfo::OpaqueFunc(ret, purity);
    } else {
      const RValue& ps = *b.Get(0);
      if (ps.kind != RK::kTuple && ps.kind != RK::kList) {
        Error(b.spans[0], "R.Callable takes its parameters' struct info as a tuple");
      }
      Array<StructInfo> params;
      for (const RValue& it : ps.items) params.push_back(AsSInfo(it, it.span));
      r.sinfo = FuncStructInfo(params, ret, purity);
    }
    return r;
  }

  // ---- values ----
  if (name == "R.const") {
    BoundArgs b = bind({"value", "dtype"}, 1);
    const RValue& v = *b.Get(0);
    std::vector<int64_t> shape;
    std::vector<const RValue*> flat;
    bool any_float = false, any_bool = false, all_bool = true;
    std::function<void(const RValue&, size_t)> walk = [&](const RValue& x, size_t level) {
      if (x.kind == RK::kList || x.kind == RK::kTuple) {
        if (level == shape.size()) {
          shape.push_back(static_cast<int64_t>(x.items.size()));
        } else if (level > shape.size() || shape[level] != static_cast<int64_t>(x.items.size())) {
          Error(x.span, "R.const: the nested lists are ragged");
        }
        for (const RValue& it : x.items) walk(it, level + 1);
        return;
      }
      if (level != shape.size()) Error(x.span, "R.const: the nested lists are ragged");
      if (x.kind != RK::kInt && x.kind != RK::kFloat && x.kind != RK::kBool) {
        Error(x.span.defined() ? x.span : b.spans[0],
              "R.const takes a number or a nested list of numbers, got " + x.TypeName());
      }
      any_float |= x.kind == RK::kFloat;
      any_bool |= x.kind == RK::kBool;
      all_bool &= x.kind == RK::kBool;
      flat.push_back(&x);
    };
    if (v.kind == RK::kExpr && v.expr.as<ConstantNode>()) return v;
    walk(v, 0);
    DataType dtype = any_float                ? DataType::Float(32)
                     : (all_bool && any_bool) ? DataType::Bool()
                                              : DataType::Int(32);
    if (!is_none(b.Get(1))) dtype = AsDType(*b.Get(1), b.spans[1]);
    NDArray nd = NDArray::Empty(shape, dtype);
    for (size_t k = 0; k < flat.size(); ++k) {
      if (!StoreNumber(nd, static_cast<int64_t>(k), dtype, *flat[k])) {
        Error(b.spans[0], "R.const: cannot store " + flat[k]->TypeName() + " as " +
                              runtime::DataTypeToString(dtype));
      }
    }
    return [&] {
      RValue r;
      r.kind = RK::kExpr;
      r.span = span;
      r.expr = Constant(nd);
      return r;
    }();
  }
  auto expr_v = [&](Expr e) {
    RValue r;
    r.kind = RK::kExpr;
    r.span = span;
    r.expr = std::move(e);
    return r;
  };
  if (name == "R.prim_value") {
    BoundArgs b = bind({"value"}, 1);
    const RValue& v = *b.Get(0);
    if (v.kind == RK::kFloat) return expr_v(PrimValue(FloatImm(DataType::Float(64), v.f)));
    if (v.kind == RK::kBool) return expr_v(PrimValue(IntImm(DataType::Bool(), v.i)));
    if (v.kind == RK::kInt) return expr_v(PrimValue(IntImm(DataType::Int(64), v.i)));
    if (v.kind == RK::kPrim) return expr_v(PrimValue(v.prim));
    Error(b.spans[0], "R.prim_value takes a number or a TIR expression, got " + v.TypeName());
  }
  if (name == "R.str") {
    BoundArgs b = bind({"value"}, 1);
    return expr_v(StringImm(AsStr(*b.Get(0), b.spans[0], "R.str's argument")));
  }
  if (name == "R.dtype") {
    BoundArgs b = bind({"value"}, 1);
    return expr_v(DataTypeImm(AsDType(*b.Get(0), b.spans[0])));
  }
  if (name == "R.shape") {
    BoundArgs b = bind({"value"}, 1);
    return expr_v(ShapeExpr(AsDims(*b.Get(0), b.spans[0])));
  }
  if (name == "R.ExternFunc") {
    BoundArgs b = bind({"global_symbol"}, 1);
    return expr_v(ExternFunc(AsStr(*b.Get(0), b.spans[0], "the function name")));
  }
  if (name.rfind("T.", 0) == 0) {
    // T.int64(5) as a value; `n = T.int64()` is a declaration handled by the assignment.
    DataType t;
    try {
      t = DataType(name.substr(2));
    } catch (const minitvm::Error&) {
      Error(call.children[0]->span, "unknown name \"" + name + "\" in a Relax function");
    }
    BoundArgs b = bind({"value"}, 0);
    if (!b.Get(0)) {
      Error(span, name + "() declares a symbolic variable: write `n = " + name + "()`");
    }
    const RValue& v = *b.Get(0);
    if (v.kind == RK::kInt && (t.is_int() || t.is_uint()))
      return [&] {
        RValue r;
        r.kind = RK::kPrim;
        r.span = span;
        r.prim = IntImm(t, v.i);
        return r;
      }();
    if ((v.kind == RK::kFloat || v.kind == RK::kInt) && t.is_float())
      return [&] {
        RValue r;
        r.kind = RK::kPrim;
        r.span = span;
        r.prim = FloatImm(t, v.kind == RK::kFloat ? v.f : static_cast<double>(v.i));
        return r;
      }();
    Error(b.spans[0], "cannot make a " + name.substr(2) + " from " + v.TypeName());
  }

  // ---- calls ----
  auto out_sinfo_of = [&](const RValue& v, const Span& s) -> StructInfo {
    if (v.kind == RK::kList) {
      Array<StructInfo> fields;
      for (const RValue& it : v.items) fields.push_back(AsSInfo(it, it.span));
      if (fields.size() == 1) return fields[0];
      return TupleStructInfo(fields);
    }
    return AsSInfo(v, s);
  };
  auto args_tuple = [&](const RValue& v, const Span& s) -> Expr {
    if (v.kind == RK::kTuple || v.kind == RK::kList) {
      Array<Expr> fields;
      for (const RValue& it : v.items) {
        fields.push_back(Leaf(AsExpr(it, it.span.defined() ? it.span : s), s));
      }
      return Tuple(fields);
    }
    Expr e = Leaf(AsExpr(v, s), s);
    if (e.as<TupleNode>()) return e;
    if (e->struct_info_.defined() && e->struct_info_.as<TupleStructInfoNode>()) return e;
    return Tuple({e});
  };
  if (name == "R.call_tir") {
    // out_ty= is TVM 0.22's name for out_sinfo=.
    BoundArgs b = bind({"gvar", "args", "out_sinfo", "tir_vars", "dtype", "out_ty"}, 2);
    const RValue& f = *b.Get(0);
    if (f.kind != RK::kExpr || !f.expr.as<GlobalVarNode>()) {
      Error(b.spans[0], "R.call_tir calls a function of the module (cls.f), got " + f.TypeName());
    }
    if (!is_none(b.Get(5))) {
      if (!is_none(b.Get(2))) Error(b.spans[5], "R.call_tir: give out_sinfo= or out_ty=, not both");
      b.values[2] = b.values[5];
      b.spans[2] = b.spans[5];
    }
    if (is_none(b.Get(2))) Error(span, "R.call_tir needs out_sinfo=R.Tensor(...)");
    StructInfo out;
    const RValue& o = *b.Get(2);
    bool shape_form = (o.kind == RK::kTuple || o.kind == RK::kList) && !o.items.empty() &&
                      (o.items[0].kind == RK::kInt || o.items[0].kind == RK::kPrim ||
                       o.items[0].kind == RK::kStr);
    if (shape_form) {
      // The old spelling: the output shape and dtype=.
      if (is_none(b.Get(4))) Error(b.spans[2], "R.call_tir with an output shape needs dtype=");
      out = TensorStructInfo(ShapeExpr(AsDims(o, b.spans[2])), AsDType(*b.Get(4), b.spans[4]));
    } else {
      if (!is_none(b.Get(4))) Error(b.spans[4], "dtype= goes with an output shape, not out_sinfo");
      out = out_sinfo_of(o, b.spans[2]);
    }
    Array<Expr> args = {f.expr, args_tuple(*b.Get(1), b.spans[1])};
    if (!is_none(b.Get(3))) args.push_back(ShapeExpr(AsDims(*b.Get(3), b.spans[3])));
    try {
      return expr_v(relax::Call(Op::Get("relax.call_tir"), args, {}, {out}));
    } catch (const minitvm::Error& e) {
      Error(span, e.what());
    }
  }
  if (name == "R.call_dps_packed") {
    BoundArgs b = bind({"func", "args", "out_sinfo"}, 3);
    const RValue& f = *b.Get(0);
    Expr callee = f.kind == RK::kStr ? Expr(ExternFunc(f.str)) : AsExpr(f, b.spans[0]);
    try {
      return expr_v(relax::Call(Op::Get("relax.call_dps_packed"),
                                {callee, args_tuple(*b.Get(1), b.spans[1])}, {},
                                {out_sinfo_of(*b.Get(2), b.spans[2])}));
    } catch (const minitvm::Error& e) {
      Error(span, e.what());
    }
  }
  if (name == "R.call_pure_packed" || name == "R.call_packed") {
    if (call.children.size() < 2) Error(span, name + " needs the function name");
    RValue f = Eval(*call.children[1]);
    Expr callee = f.kind == RK::kStr ? Expr(ExternFunc(f.str)) : AsExpr(f, call.children[1]->span);
    Array<Expr> args;
    for (size_t k = 2; k < call.children.size(); ++k) {
      const ast::Expr& a = *call.children[k];
      args.push_back(Leaf(AsExpr(Eval(a), a.span), a.span));
    }
    Array<StructInfo> sinfo_args;
    for (const ast::Keyword& kw : call.keywords) {
      if (kw.name != "sinfo_args") {
        Error(kw.span, name + " got an unexpected keyword argument \"" + kw.name + "\"");
      }
      RValue s = Eval(*kw.value);
      if (s.kind == RK::kList || s.kind == RK::kTuple) {
        for (const RValue& it : s.items) sinfo_args.push_back(AsSInfo(it, it.span));
      } else {
        sinfo_args.push_back(AsSInfo(s, kw.value->span));
      }
    }
    if (name == "R.call_packed") {
      if (in_dataflow_) Error(span, "R.call_packed is impure: not allowed in a dataflow block");
      return expr_v(relax::Call(callee, args, {}, sinfo_args));
    }
    Array<Expr> full = {callee};
    for (const Expr& a : args) full.push_back(a);
    try {
      return expr_v(relax::Call(Op::Get("relax.call_pure_packed"), full, {}, sinfo_args));
    } catch (const minitvm::Error& e) {
      Error(span, e.what());
    }
  }
  if (name == "R.match_cast") {
    Error(span, "R.match_cast(value, struct_info) must be the value of an assignment");
  }
  if (name == "R.output") Error(span, "R.output(...) is only allowed at the end of R.dataflow()");
  if (name == "R.dataflow") Error(span, "R.dataflow() is used as `with R.dataflow():`");
  if (name == "R.func_attr") Error(span, "R.func_attr({...}) is a statement of its own");
  if (name == "R.function") Error(span, "nested @R.function definitions are not supported");
  if (name == "R.emit") Error(span, "R.emit is not supported; assign to a name instead");

  // ---- operators from the registry ----
  if (name.rfind("R.", 0) != 0) Error(call.children[0]->span, "unknown name \"" + name + "\"");
  std::string op_name = "relax." + name.substr(2);
  if (!Op::Has(op_name)) {
    Error(call.children[0]->span,
          "unknown name \"" + name + "\": no operator \"" + op_name + "\" is registered");
  }
  Op op = Op::Get(op_name);
  size_t n_tensor = op->arguments.size();
  if (n_tensor == 0 && op->num_inputs > 0) n_tensor = static_cast<size_t>(op->num_inputs);
  std::vector<std::string> attr_names;
  Map<String, Any> defaults;
  if (op.HasAttr(kTAttrDefaults)) {
    defaults = op.GetAttr(kTAttrDefaults).cast<Map<String, Any>>();
    for (const auto& [k, v] : defaults.items()) attr_names.push_back(k);
  }
  std::vector<std::optional<Expr>> tensor_args(n_tensor);
  Map<String, Any> attrs;
  size_t npos = call.children.size() - 1;
  for (size_t k = 0; k < npos; ++k) {
    const ast::Expr& a = *call.children[k + 1];
    if (a.kind == EK::kStarred) Error(a.span, "unsupported Python construct: *args");
    RValue v = Eval(a);
    if (k < n_tensor) {
      tensor_args[k] = Leaf(AsExpr(v, a.span), a.span);
    } else if (k - n_tensor < attr_names.size()) {
      attrs.Set(String(attr_names[k - n_tensor]), AsAttr(v, a.span));
    } else {
      Error(a.span, name + " takes " + std::to_string(n_tensor) + " argument(s) and " +
                        std::to_string(attr_names.size()) + " attribute(s); this is one too many");
    }
  }
  for (const ast::Keyword& kw : call.keywords) {
    RValue v = Eval(*kw.value);
    size_t k = 0;
    while (k < n_tensor && op->arguments[k].name != kw.name) ++k;
    if (k < n_tensor) {
      if (tensor_args[k]) Error(kw.span, name + " got argument \"" + kw.name + "\" twice");
      tensor_args[k] = Leaf(AsExpr(v, kw.value->span), kw.value->span);
      continue;
    }
    if (attrs.count(String(kw.name))) {
      Error(kw.span, name + " got attribute \"" + kw.name + "\" twice");
    }
    attrs.Set(String(kw.name), AsAttr(v, kw.value->span));
  }
  Array<Expr> args;
  for (size_t k = 0; k < n_tensor; ++k) {
    if (!tensor_args[k]) {
      Error(span, name + " is missing its argument \"" + op->arguments[k].name + "\"");
    }
    args.push_back(*tensor_args[k]);
  }
  try {
    return expr_v(MakeOpCall(op_name, args, attrs));
  } catch (const minitvm::Error& e) {
    Error(span, e.what());
  }
}

}  // namespace parser
}  // namespace relax
}  // namespace minitvm

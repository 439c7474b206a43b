/*!
 * \file api_nodes.cc
 * \brief The TIR constructors and expression builders Python reaches by name (stage 2):
 * "tir.Var", "tir.Add", "tir.For", "tir.PrimFunc", ... (raw node constructors, which check
 * dtypes but do not promote) and "tir._OpAdd", "tir.op.exp", ... (the builders of op.h, with
 * TVM's dtype promotion and constant folding, which Python's operators use).
 */
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/builtin.h"
#include "minitvm/tir/function.h"
#include "minitvm/tir/op.h"

namespace minitvm {
namespace tir {

namespace {
/*!
 * \brief Arrays that come from Python hold plain ints and floats; store them as IntImm /
 * FloatImm nodes so the IR has one form whoever built it (structural equality and
 * identity of elements rely on it).
 */
inline Array<PrimExpr> Norm(const Array<PrimExpr>& a) {
  if (!a.get()) return a;
  for (const Any& x : a->data) {
    if (!x.is_object()) return Array<PrimExpr>(a.to_vector());
  }
  return a;
}
template <typename T>
T OrDefault(const Any& a, T fallback) {
  return a.is_null() ? fallback : a.cast<T>();
}
}  // namespace

// ---- variables, buffers ------------------------------------------------------------------------
MINITVM_REGISTER_GLOBAL("tir.Var").set_body_typed([](std::string name, DataType dtype) {
  return Var(name, dtype);
});
MINITVM_REGISTER_GLOBAL("tir.SizeVar").set_body_typed([](std::string name, DataType dtype) {
  return SizeVar(name, dtype);
});
MINITVM_REGISTER_GLOBAL("tir.IterVar")
    .set_body_typed([](Any dom, Var var, int64_t iter_type, std::string thread_tag) {
      Range r = dom.is_null() ? Range() : dom.cast<Range>();
      return IterVar(r, var, static_cast<IterVarType>(iter_type), thread_tag);
    });
MINITVM_REGISTER_GLOBAL("tir.Buffer")
    .set_body_typed([](Var data, DataType dtype, Array<PrimExpr> shape, Array<PrimExpr> strides,
                       PrimExpr elem_offset, std::string name, std::string scope,
                       int64_t data_alignment, int64_t offset_factor) {
      return Buffer(data, dtype, Norm(shape), Norm(strides), elem_offset, name, scope,
                    data_alignment, offset_factor);
    });
MINITVM_REGISTER_GLOBAL("tir.decl_buffer")
    .set_body_typed([](Array<PrimExpr> shape, DataType dtype, std::string name, Any data,
                       Any strides, Any elem_offset, std::string scope) {
      Var d = data.is_null() ? Var(name, DataType::Handle()) : data.cast<Var>();
      return Buffer(d, dtype, Norm(shape), Norm(OrDefault<Array<PrimExpr>>(strides, {})),
                    OrDefault<PrimExpr>(elem_offset, PrimExpr()), name, scope);
    });
MINITVM_REGISTER_GLOBAL("tir.BufferRegion").set_body_typed([](Buffer b, Array<Range> region) {
  return BufferRegion(b, region);
});
MINITVM_REGISTER_GLOBAL("tir.BufferRegionFull").set_body_typed([](Buffer b) {
  return BufferRegion::FullRegion(b);
});
MINITVM_REGISTER_GLOBAL("tir.MatchBufferRegion").set_body_typed([](Buffer b, BufferRegion source) {
  return MatchBufferRegion(b, source);
});

// ---- expressions (raw nodes) -------------------------------------------------------------------
MINITVM_REGISTER_GLOBAL("tir.StringImm").set_body_typed([](std::string v) { return StringImm(v); });
MINITVM_REGISTER_GLOBAL("tir.Cast").set_body_typed([](DataType t, PrimExpr v) {
  return Cast(t, v);
});
#define MINITVM_TIR_REGISTER_BINARY_NODE(Name)                                      \
  MINITVM_REGISTER_GLOBAL("tir." #Name).set_body_typed([](PrimExpr a, PrimExpr b) { \
    return Name(a, b);                                                              \
  });
MINITVM_TIR_REGISTER_BINARY_NODE(Add)
MINITVM_TIR_REGISTER_BINARY_NODE(Sub)
MINITVM_TIR_REGISTER_BINARY_NODE(Mul)
MINITVM_TIR_REGISTER_BINARY_NODE(Div)
MINITVM_TIR_REGISTER_BINARY_NODE(Mod)
MINITVM_TIR_REGISTER_BINARY_NODE(FloorDiv)
MINITVM_TIR_REGISTER_BINARY_NODE(FloorMod)
MINITVM_TIR_REGISTER_BINARY_NODE(Min)
MINITVM_TIR_REGISTER_BINARY_NODE(Max)
MINITVM_TIR_REGISTER_BINARY_NODE(EQ)
MINITVM_TIR_REGISTER_BINARY_NODE(NE)
MINITVM_TIR_REGISTER_BINARY_NODE(LT)
MINITVM_TIR_REGISTER_BINARY_NODE(LE)
MINITVM_TIR_REGISTER_BINARY_NODE(GT)
MINITVM_TIR_REGISTER_BINARY_NODE(GE)
MINITVM_TIR_REGISTER_BINARY_NODE(And)
MINITVM_TIR_REGISTER_BINARY_NODE(Or)
#undef MINITVM_TIR_REGISTER_BINARY_NODE
MINITVM_REGISTER_GLOBAL("tir.Not").set_body_typed([](PrimExpr a) { return Not(a); });
MINITVM_REGISTER_GLOBAL("tir.Select").set_body_typed([](PrimExpr c, PrimExpr t, PrimExpr f) {
  return Select(c, t, f);
});
MINITVM_REGISTER_GLOBAL("tir.BufferLoad").set_body_typed([](Buffer b, Array<PrimExpr> indices) {
  return BufferLoad(b, Norm(indices));
});
MINITVM_REGISTER_GLOBAL("tir.Ramp")
    .set_body_typed([](PrimExpr base, PrimExpr stride, int64_t lanes) {
      return Ramp(base, stride, lanes);
    });
MINITVM_REGISTER_GLOBAL("tir.Broadcast").set_body_typed([](PrimExpr v, int64_t lanes) {
  return Broadcast(v, lanes);
});
MINITVM_REGISTER_GLOBAL("tir.Let").set_body_typed([](Var v, PrimExpr value, PrimExpr body) {
  return Let(v, value, body);
});
MINITVM_REGISTER_GLOBAL("tir.Call")
    .set_body_typed([](DataType t, std::string op, Array<PrimExpr> args) {
      return Call(t, op, Norm(args));
    });

// ---- expression builders (op.h) ---------------------------------------------------------------
#define MINITVM_TIR_REGISTER_OP(Name, Expr)                                            \
  MINITVM_REGISTER_GLOBAL("tir._Op" #Name).set_body_typed([](PrimExpr a, PrimExpr b) { \
    return Expr;                                                                       \
  });
MINITVM_TIR_REGISTER_OP(Add, a + b)
MINITVM_TIR_REGISTER_OP(Sub, a - b)
MINITVM_TIR_REGISTER_OP(Mul, a* b)
MINITVM_TIR_REGISTER_OP(Div, a / b)
MINITVM_TIR_REGISTER_OP(TruncDiv, truncdiv(a, b))
MINITVM_TIR_REGISTER_OP(TruncMod, truncmod(a, b))
MINITVM_TIR_REGISTER_OP(FloorDiv, floordiv(a, b))
MINITVM_TIR_REGISTER_OP(FloorMod, floormod(a, b))
MINITVM_TIR_REGISTER_OP(Min, min(a, b))
MINITVM_TIR_REGISTER_OP(Max, max(a, b))
MINITVM_TIR_REGISTER_OP(EQ, a == b)
MINITVM_TIR_REGISTER_OP(NE, a != b)
MINITVM_TIR_REGISTER_OP(LT, a < b)
MINITVM_TIR_REGISTER_OP(LE, a <= b)
MINITVM_TIR_REGISTER_OP(GT, a > b)
MINITVM_TIR_REGISTER_OP(GE, a >= b)
MINITVM_TIR_REGISTER_OP(And, a&& b)
MINITVM_TIR_REGISTER_OP(Or, a || b)
MINITVM_TIR_REGISTER_OP(Pow, pow(a, b))
#undef MINITVM_TIR_REGISTER_OP
MINITVM_REGISTER_GLOBAL("tir._OpNot").set_body_typed([](PrimExpr a) { return !a; });
MINITVM_REGISTER_GLOBAL("tir._OpNeg").set_body_typed([](PrimExpr a) { return -a; });
MINITVM_REGISTER_GLOBAL("tir._OpIfThenElse").set_body_typed([](PrimExpr c, PrimExpr t, PrimExpr f) {
  return if_then_else(c, t, f);
});
MINITVM_REGISTER_GLOBAL("tir._OpSelect").set_body_typed([](PrimExpr c, PrimExpr t, PrimExpr f) {
  return select(c, t, f);
});
MINITVM_REGISTER_GLOBAL("tir._OpCast").set_body_typed([](DataType t, PrimExpr v) {
  return cast(t, v);
});
MINITVM_REGISTER_GLOBAL("tir._OpBitwise")
    .set_body_typed([](std::string op, PrimExpr a, PrimExpr b) {
      if (!(a.dtype().is_int() || a.dtype().is_uint() || a.dtype().is_bool())) {
        MINITVM_THROW(ValueError) << op << ": operands must be integers, got " << a.dtype();
      }
      if (b.dtype() != a.dtype()) b = cast(a.dtype(), b);
      return Call(a.dtype(), "tir." + op, {a, b});
    });
MINITVM_REGISTER_GLOBAL("tir._OpBitwiseNot").set_body_typed([](PrimExpr a) {
  return Call(a.dtype(), "tir.bitwise_not", {a});
});
MINITVM_REGISTER_GLOBAL("tir.const").set_body_typed([](Any value, DataType t) -> PrimExpr {
  if (t.is_float() || t.is_bfloat16()) return make_const(t, value.cast<double>());
  if (value.is_float()) return make_const(t, value.raw_float());
  if (t.lanes() > 1) return make_const(t, static_cast<double>(value.cast<int64_t>()));
  return IntImm(t, value.cast<int64_t>());
});
MINITVM_REGISTER_GLOBAL("tir.min_value").set_body_typed([](DataType t) { return min_value(t); });
MINITVM_REGISTER_GLOBAL("tir.max_value").set_body_typed([](DataType t) { return max_value(t); });
#define MINITVM_TIR_REGISTER_MATH(Name) \
  MINITVM_REGISTER_GLOBAL("tir.op." #Name).set_body_typed([](PrimExpr x) { return Name(x); });
MINITVM_TIR_REGISTER_MATH(exp)
MINITVM_TIR_REGISTER_MATH(log)
MINITVM_TIR_REGISTER_MATH(sqrt)
MINITVM_TIR_REGISTER_MATH(rsqrt)
MINITVM_TIR_REGISTER_MATH(tanh)
MINITVM_TIR_REGISTER_MATH(sigmoid)
MINITVM_TIR_REGISTER_MATH(erf)
MINITVM_TIR_REGISTER_MATH(fabs)
MINITVM_TIR_REGISTER_MATH(abs)
MINITVM_TIR_REGISTER_MATH(floor)
MINITVM_TIR_REGISTER_MATH(ceil)
MINITVM_TIR_REGISTER_MATH(round)
MINITVM_TIR_REGISTER_MATH(likely)
#undef MINITVM_TIR_REGISTER_MATH
MINITVM_REGISTER_GLOBAL("tir.op.float_intrinsic").set_body_typed([](std::string name, PrimExpr x) {
  // Math intrinsics without a builder of their own (exp2, log2, sin, ...): float in, float out.
  if (!x.dtype().is_float()) x = cast(DataType::Float(32, x.dtype().lanes()), x);
  return Call(x.dtype(), "tir." + name, {x});
});
MINITVM_REGISTER_GLOBAL("tir.op.CallIntrinsic")
    .set_body_typed([](std::string name, Array<PrimExpr> args, std::string dtype) -> PrimExpr {
      // T.<name>(...) called from Python for an intrinsic of the table (tir/builtin.h): a float
      // intrinsic through its builder, an opaque one with the result dtype the table gives.
      std::optional<Op> op = GetIntrinsic("tir." + name);
      if (!op) MINITVM_THROW(ValueError) << "T." << name << ": no intrinsic tir." << name;
      if (GetIntrinsicFlag(*op, attr::kFloatOnly)) return CallFloatIntrinsic("tir." + name, args);
      if (dtype.empty()) {
        std::string result = GetIntrinsicString(*op, attr::kScriptResultDType);
        if (result.rfind("arg", 0) == 0) {
          size_t k = std::stoul(result.substr(3));
          if (k >= args.size()) MINITVM_THROW(ValueError) << "T." << name << ": missing argument";
          return Call(args[k].dtype(), "tir." + name, args);
        }
        if (result.empty()) MINITVM_THROW(ValueError) << "T." << name << " needs a dtype";
        dtype = result;
      }
      return Call(DataType(dtype), "tir." + name, args);
    });
MINITVM_REGISTER_GLOBAL("tir.op.reinterpret").set_body_typed([](DataType t, PrimExpr x) {
  return reinterpret(t, x);
});
MINITVM_REGISTER_GLOBAL("tir.op.call_extern")
    .set_body_typed([](DataType t, std::string name, Array<PrimExpr> args) {
      return call_extern(t, name, Norm(args));
    });

// ---- statements ------------------------------------------------------------------------------
MINITVM_REGISTER_GLOBAL("tir.BufferStore")
    .set_body_typed([](Buffer b, PrimExpr value, Array<PrimExpr> indices) {
      return BufferStore(b, value, Norm(indices));
    });
MINITVM_REGISTER_GLOBAL("tir.For").set_body_typed([](Var v, PrimExpr min, PrimExpr extent,
                                                     int64_t kind, Stmt body, Any thread_binding,
                                                     Any annotations) {
  return For(v, min, extent, static_cast<ForKind>(kind), body,
             OrDefault<IterVar>(thread_binding, IterVar()),
             OrDefault<Map<String, Any>>(annotations, {}));
});
MINITVM_REGISTER_GLOBAL("tir.ForKindName").set_body_typed([](int64_t kind) {
  return std::string(ForKindName(static_cast<ForKind>(kind)));
});
MINITVM_REGISTER_GLOBAL("tir.While").set_body_typed([](PrimExpr c, Stmt body) {
  return While(c, body);
});
MINITVM_REGISTER_GLOBAL("tir.IfThenElse").set_body_typed([](PrimExpr c, Stmt t, Any e) {
  return IfThenElse(c, t, OrDefault<Stmt>(e, Stmt()));
});
MINITVM_REGISTER_GLOBAL("tir.SeqStmt").set_body_typed([](Array<Stmt> seq) {
  // The constructor checks every element (naming the index of one that is not a Stmt).
  SeqStmt checked(seq);
  // As TVM does, nested sequences are flattened (the script prints one flat sequence).
  bool nested = false;
  for (const Stmt& s : checked->seq) nested = nested || s.as<SeqStmtNode>() != nullptr;
  if (!nested) return checked;
  Stmt flat = SeqStmt::Flatten(seq);
  if (auto* f = flat.as<SeqStmtNode>()) return GetRef<SeqStmt>(f);
  return SeqStmt(Array<Stmt>{flat});
});
MINITVM_REGISTER_GLOBAL("tir.Evaluate").set_body_typed([](PrimExpr v) { return Evaluate(v); });
MINITVM_REGISTER_GLOBAL("tir.LetStmt").set_body_typed([](Var v, PrimExpr value, Stmt body) {
  return LetStmt(v, value, body);
});
MINITVM_REGISTER_GLOBAL("tir.AssertStmt")
    .set_body_typed([](PrimExpr c, PrimExpr message, Stmt body) {
      return AssertStmt(c, message, body);
    });
MINITVM_REGISTER_GLOBAL("tir.Allocate")
    .set_body_typed([](Var v, DataType t, Array<PrimExpr> extents, Any condition, Stmt body,
                       std::string scope, Any annotations) {
      return Allocate(v, t, Norm(extents), OrDefault<PrimExpr>(condition, PrimExpr()), body, scope,
                      OrDefault<Map<String, Any>>(annotations, {}));
    });
MINITVM_REGISTER_GLOBAL("tir.DeclBuffer").set_body_typed([](Buffer b, Stmt body) {
  return DeclBuffer(b, body);
});
MINITVM_REGISTER_GLOBAL("tir.AttrStmt")
    .set_body_typed([](ObjectRef node, std::string key, PrimExpr value, Stmt body) {
      return AttrStmt(node, key, value, body);
    });
MINITVM_REGISTER_GLOBAL("tir.Block")
    .set_body_typed([](Array<IterVar> iter_vars, Array<BufferRegion> reads,
                       Array<BufferRegion> writes, std::string name, Stmt body, Any init,
                       Any alloc_buffers, Any match_buffers, Any annotations) {
      return Block(iter_vars, reads, writes, name, body, OrDefault<Stmt>(init, Stmt()),
                   OrDefault<Array<Buffer>>(alloc_buffers, {}),
                   OrDefault<Array<MatchBufferRegion>>(match_buffers, {}),
                   OrDefault<Map<String, Any>>(annotations, {}));
    });
MINITVM_REGISTER_GLOBAL("tir.BlockRealize")
    .set_body_typed([](Array<PrimExpr> values, PrimExpr predicate, Block block) {
      return BlockRealize(Norm(values), predicate, block);
    });
MINITVM_REGISTER_GLOBAL("tir.PrimFunc")
    .set_body_typed([](Array<Var> params, Stmt body, Any buffer_map, Any attrs, Any ret_type) {
      return PrimFunc(params, body, OrDefault<Map<Var, Buffer>>(buffer_map, {}),
                      OrDefault<Map<String, Any>>(attrs, {}),
                      OrDefault<DataType>(ret_type, DataType::Void()));
    });
MINITVM_REGISTER_GLOBAL("tir.PrimFuncWithAttr")
    .set_body_typed([](PrimFunc f, std::string key, Any value) { return WithAttr(f, key, value); });
MINITVM_REGISTER_GLOBAL("tir.PrimFunc.WithAttr")
    .set_body_typed([](PrimFunc f, std::string key, Any value) { return WithAttr(f, key, value); });
MINITVM_REGISTER_GLOBAL("tir.PrimFuncWithoutAttr").set_body_typed([](PrimFunc f, std::string key) {
  f.CopyOnWrite()->attrs.erase(String(key));
  return f;
});
MINITVM_REGISTER_GLOBAL("tir.PrimFuncWithBody").set_body_typed([](PrimFunc f, Stmt body) {
  f.CopyOnWrite()->body = body;
  return f;
});

}  // namespace tir
}  // namespace minitvm

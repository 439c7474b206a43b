/*!
 * \file make_packed_api.cc
 * \brief MakePackedAPI (stage 5): give each PrimFunc the packed calling convention of
 * generated code — `(args, arg_type_ids, num_args, out_ret_value, out_ret_tcode,
 * resource_handle)` — and unpack its parameters with checks.
 *
 * Before the original body runs, the new function checks the argument count, each argument's
 * type code, and for every buffer parameter the rank, dtype, device, shape, strides and data
 * alignment, binding symbolic shape variables on the way. Each failed check returns an error
 * that names the argument and shows the value received, e.g.
 * `ValueError: A.shape[0] is 7 but main expects 8`. All checks come first, so a call that
 * fails writes nothing. The original body is wrapped in a "compute_scope" attribute: the code
 * generator turns it into its own function whose buffer pointers are `noalias`.
 */
#include <sstream>
#include <unordered_set>

#include "ir_utils.h"
#include "minitvm/runtime_cpu/backend_api.h"
#include "minitvm/tir/transform/transform.h"

namespace minitvm {
namespace tir {
namespace transform {

namespace {

PrimExpr StructGet(DataType t, const Var& handle, int64_t index, StructFieldKind kind) {
  return Call(t, "tir.tvm_struct_get",
              {handle, IntImm(DataType::Int(32), index), IntImm(DataType::Int(32), kind)});
}
PrimExpr I64(const PrimExpr& e) {
  return e.dtype() == DataType::Int(64) ? e : cast(DataType::Int(64), e);
}
PrimExpr Message(const std::string& fmt, const std::vector<PrimExpr>& values = {}) {
  if (values.empty()) return StringImm(fmt);
  Array<PrimExpr> args{StringImm(fmt)};
  for (const PrimExpr& v : values) args.push_back(I64(v));
  return Call(DataType::Handle(), kFormatErrorOp, args);
}

/*! \brief Collects the checks and bindings, then nests them around the body in order. */
class ArgUnpacker {
 public:
  void Assert(PrimExpr cond, PrimExpr message) {
    steps_.push_back({Var(), std::move(cond), std::move(message)});
  }
  void Let(Var var, PrimExpr value) {
    steps_.push_back({std::move(var), std::move(value), PrimExpr()});
  }
  Stmt Wrap(Stmt body) const {
    for (size_t i = steps_.size(); i-- > 0;) {
      const Step& s = steps_[i];
      body = s.var.defined() ? Stmt(LetStmt(s.var, s.value, body))
                             : Stmt(AssertStmt(s.value, s.message, body));
    }
    return body;
  }

 private:
  struct Step {
    Var var;
    PrimExpr value;  // the bound value, or the asserted condition
    PrimExpr message;
  };
  std::vector<Step> steps_;
};

std::string DTypeName(DataType t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

PrimFunc MakePacked(const PrimFunc& func, const std::string& name) {
  Var v_args("args", DataType::Handle());
  Var v_type_ids("arg_type_ids", DataType::Handle());
  Var v_num_args("num_args", DataType::Int(32));
  Var v_ret("out_ret_value", DataType::Handle());
  Var v_ret_tcode("out_ret_tcode", DataType::Handle());
  Var v_resource("resource_handle", DataType::Handle());

  ArgUnpacker u;
  const int64_t n = static_cast<int64_t>(func->params.size());
  u.Assert(v_num_args == IntImm(DataType::Int(32), n),
           Message("TypeError: " + name + " expects " + std::to_string(n) + " argument" +
                       (n == 1 ? "" : "s") + " but {} {was} given",
                   {v_num_args}));

  std::unordered_set<const VarNode*> bound;  // symbolic variables already defined
  for (const Var& p : func->params) bound.insert(p.get());
  std::unordered_map<const VarNode*, std::string> origin;  // where a shape variable came from

  for (int64_t i = 0; i < n; ++i) {
    Var p = func->params[i];
    PrimExpr tc = StructGet(DataType::Int(32), v_type_ids, i, kPackedArgTypeCode);
    std::string pos = " (argument #" + std::to_string(i) + ")";
    auto buf_opt = func->buffer_map.Get(p);
    if (buf_opt) {
      Buffer buf = *buf_opt;
      std::string b = buf->name.empty() ? p->name_hint.str() : buf->name.str();
      int64_t rank = static_cast<int64_t>(buf->shape.size());
      u.Assert(tc == IntImm(DataType::Int(32), kMTVMArgDLTensor),
               Message("TypeError: " + name + ": argument " + b + pos +
                           " must be an NDArray but got {type}",
                       {tc}));
      u.Let(p, StructGet(DataType::Handle(), v_args, i, kPackedArgValue));
      PrimExpr ndim = StructGet(DataType::Int(32), p, 0, kArrNDim);
      u.Assert(ndim == IntImm(DataType::Int(32), rank),
               Message("ValueError: " + b + ".ndim is {} but " + name + " expects " +
                           std::to_string(rank),
                       {ndim}));
      PrimExpr code = StructGet(DataType::UInt(8), p, 0, kArrTypeCode);
      PrimExpr bits = StructGet(DataType::UInt(8), p, 0, kArrTypeBits);
      PrimExpr lanes = StructGet(DataType::UInt(16), p, 0, kArrTypeLanes);
      DataType storage = buf->dtype;
      PrimExpr dtype_ok = code == IntImm(DataType::UInt(8), storage.code()) &&
                          bits == IntImm(DataType::UInt(8), storage.bits()) &&
                          lanes == IntImm(DataType::UInt(16), storage.lanes());
      u.Assert(dtype_ok, Message("TypeError: " + b + ".dtype is {dtype} but " + name + " expects " +
                                     DTypeName(storage),
                                 {code, bits, lanes}));
      PrimExpr dev_type = StructGet(DataType::Int(32), p, 0, kArrDeviceType);
      u.Assert(dev_type == IntImm(DataType::Int(32), kDLCPU),
               Message("ValueError: " + b + " is on device type {} but " + name +
                           " runs on the CPU (device type 1)",
                       {dev_type}));
      // Shape: constants are checked, new variables bound, known ones checked.
      Var shape_ptr(b + "_shape", DataType::Handle());
      u.Let(shape_ptr, StructGet(DataType::Handle(), p, 0, kArrShape));
      Buffer shape_buf(shape_ptr, DataType::Int(64),
                       {IntImm(DataType::Int(32), std::max<int64_t>(rank, 1))}, {}, PrimExpr(0),
                       b + "_shape", "global", 8);
      std::vector<PrimExpr> dims;
      for (int64_t d = 0; d < rank; ++d) {
        PrimExpr actual = BufferLoad(shape_buf, {IntImm(DataType::Int(32), d)});
        PrimExpr expected = buf->shape[d];
        std::string where = b + ".shape[" + std::to_string(d) + "]";
        dims.push_back(actual);
        auto* var = expected.as<VarNode>();
        if (auto c = AsConstInt(expected)) {
          u.Assert(actual == IntImm(DataType::Int(64), *c),
                   Message("ValueError: " + where + " is {} but " + name + " expects " +
                               std::to_string(*c),
                           {actual}));
        } else if (var && !bound.count(var)) {
          if (var->dtype.bits() < 64) {
            PrimExpr hi = cast(DataType::Int(64), max_value(var->dtype));
            u.Assert(actual <= hi, Message("ValueError: " + where + ": value {} out of range for " +
                                               DTypeName(var->dtype) + " (" + var->name_hint.str() +
                                               " in " + name + ")",
                                           {actual}));
          }
          u.Let(GetRef<Var>(var), cast(var->dtype, actual));
          bound.insert(var);
          origin[var] = where;
        } else {
          std::string from = var && origin.count(var)
                                 ? " (" + var->name_hint.str() + ", from " + origin[var] + ")"
                                 : "";
          u.Assert(actual == I64(expected),
                   Message("ValueError: " + where + " is {} but " + name + " expects {}" + from,
                           {actual, expected}));
        }
      }
      // Strides: a compact buffer accepts a compact array (or no strides at all).
      if (rank > 0) {
        Var strides_ptr(b + "_strides", DataType::Handle());
        u.Let(strides_ptr, StructGet(DataType::Handle(), p, 0, kArrStrides));
        Buffer strides_buf(strides_ptr, DataType::Int(64), {IntImm(DataType::Int(32), rank)}, {},
                           PrimExpr(0), b + "_strides", "global", 8);
        PrimExpr is_null = Call(DataType::Bool(), "tir.isnullptr", {strides_ptr});
        if (buf->strides.empty()) {
          PrimExpr ok;
          PrimExpr expected = IntImm(DataType::Int(64), 1);
          for (int64_t d = rank; d-- > 0;) {
            PrimExpr s = BufferLoad(strides_buf, {IntImm(DataType::Int(32), d)});
            PrimExpr cond = (dims[d] == IntImm(DataType::Int(64), 1)) || (s == expected);
            ok = ok.defined() ? (ok && cond) : cond;
            expected = expected * dims[d];
          }
          u.Assert(if_then_else(is_null, const_true(), ok),
                   Message("ValueError: " + b + " is not a compact row-major array; " + name +
                           " expects one (make a contiguous copy first)"));
        } else {
          for (int64_t d = 0; d < rank; ++d) {
            PrimExpr actual = BufferLoad(strides_buf, {IntImm(DataType::Int(32), d)});
            PrimExpr expected = buf->strides[d];
            auto* var = expected.as<VarNode>();
            std::string where = b + ".strides[" + std::to_string(d) + "]";
            if (var && !bound.count(var)) {
              u.Let(GetRef<Var>(var), cast(var->dtype, actual));
              bound.insert(var);
            } else {
              u.Assert(actual == I64(expected),
                       Message("ValueError: " + where + " is {} but " + name + " expects {}",
                               {actual, expected}));
            }
          }
        }
      }
      // Data pointer: the array's byte offset is folded into the pointer (or into a
      // symbolic elem_offset).
      PrimExpr raw = StructGet(DataType::Handle(), p, 0, kArrData);
      PrimExpr byte_offset = StructGet(DataType::Int(64), p, 0, kArrByteOffset);
      auto* off_var = buf->elem_offset.as<VarNode>();
      if (off_var && !bound.count(off_var)) {
        int64_t elem_bytes = std::max(1, buf->dtype.bytes());
        u.Let(GetRef<Var>(off_var),
              cast(off_var->dtype, floordiv(byte_offset, IntImm(DataType::Int(64), elem_bytes))));
        bound.insert(off_var);
        u.Let(buf->data, raw);
      } else {
        u.Let(buf->data, Call(DataType::Handle(), "tir.minitvm.ptr_add_bytes", {raw, byte_offset}));
      }
      if (buf->data_alignment > std::max(1, buf->dtype.bytes())) {
        PrimExpr addr = Call(DataType::Int(64), "tir.minitvm.ptr_to_int", {buf->data});
        u.Assert(floormod(addr, IntImm(DataType::Int(64), buf->data_alignment)) ==
                     IntImm(DataType::Int(64), 0),
                 Message("ValueError: " + b + ".data is not aligned to " +
                             std::to_string(buf->data_alignment) + " bytes (byte_offset {}); " +
                             name + " expects aligned arrays",
                         {byte_offset}));
      }
      bound.insert(buf->data.get());
    } else if (p.dtype().is_handle()) {
      u.Assert(tc == IntImm(DataType::Int(32), kMTVMArgOpaqueHandle) ||
                   tc == IntImm(DataType::Int(32), kMTVMArgDLTensor) ||
                   tc == IntImm(DataType::Int(32), kMTVMArgNull),
               Message("TypeError: " + name + ": argument " + p->name_hint.str() + pos +
                           " must be a handle but got {type}",
                       {tc}));
      u.Let(p, StructGet(DataType::Handle(), v_args, i, kPackedArgValue));
    } else if (p.dtype().is_float()) {
      PrimExpr is_float = tc == IntImm(DataType::Int(32), kMTVMArgFloat);
      u.Assert(is_float || tc == IntImm(DataType::Int(32), kMTVMArgInt),
               Message("TypeError: " + name + ": argument " + p->name_hint.str() + pos +
                           " must be a float but got {type}",
                       {tc}));
      PrimExpr as_f64 = StructGet(DataType::Float(64), v_args, i, kPackedArgValue);
      PrimExpr as_i64 = StructGet(DataType::Int(64), v_args, i, kPackedArgValue);
      u.Let(p, cast(p.dtype(), Select(is_float, as_f64, cast(DataType::Float(64), as_i64))));
    } else {
      u.Assert(tc == IntImm(DataType::Int(32), kMTVMArgInt) ||
                   tc == IntImm(DataType::Int(32), kMTVMArgUInt),
               Message("TypeError: " + name + ": argument " + p->name_hint.str() + pos +
                           " must be an int but got {type}",
                       {tc}));
      PrimExpr v = StructGet(DataType::Int(64), v_args, i, kPackedArgValue);
      if (!p.dtype().is_bool() && p.dtype().bits() < 64) {
        // A value the parameter's type cannot hold is refused, not wrapped (2**40 is not 0).
        PrimExpr lo = cast(DataType::Int(64), min_value(p.dtype()));
        PrimExpr hi = cast(DataType::Int(64), max_value(p.dtype()));
        u.Assert(lo <= v && v <= hi,
                 Message("ValueError: " + name + ": argument " + p->name_hint.str() + pos +
                             ": value {} out of " + "range for " + DTypeName(p.dtype()),
                         {v}));
      }
      u.Let(p,
            p.dtype().is_bool() ? PrimExpr(v != IntImm(DataType::Int(64), 0)) : cast(p.dtype(), v));
    }
  }

  Stmt body = AttrStmt(StringImm(name), "compute_scope", StringImm(name + "_compute_"), func->body);
  body = u.Wrap(body);
  Map<String, Any> attrs = func->attrs;
  attrs.Set(String(kPackedAPIAttr), Any(true));
  attrs.Set(String("global_symbol"), Any(String(name)));
  attrs.Set(String("calling_conv"), Any(1));
  // Keep the original signature for readers of the lowered function and for the code generator.
  Array<String> names;
  for (const Var& p : func->params) names.push_back(p->name_hint);
  attrs.Set(String("tir.original_params"), Any(names));
  return PrimFunc({v_args, v_type_ids, v_num_args, v_ret, v_ret_tcode, v_resource}, body, {}, attrs,
                  DataType::Int(32));
}

}  // namespace

Pass MakePackedAPI() {
  return minitvm::transform::CreateModulePass(
      [](IRModule mod, PassContext) {
        IRModule result = mod;
        bool changed = false;
        for (const GlobalVar& gv : mod->GetGlobalVars()) {
          auto* pf = mod->Lookup(gv).as<PrimFuncNode>();
          if (!pf || pf->GetAttr<bool>(kPackedAPIAttr).value_or(false)) continue;
          std::string name =
              pf->GetAttr<std::string>("global_symbol").value_or(gv->name_hint.str());
          PrimFunc packed = MakePacked(GetRef<PrimFunc>(pf), name);
          if (!changed) {
            result = IRModule(mod->functions, mod->attrs);
            changed = true;
          }
          result.Add(gv, packed);
        }
        return result;
      },
      0, "tir.MakePackedAPI");
}

}  // namespace transform
}  // namespace tir
}  // namespace minitvm

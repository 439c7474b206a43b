/*!
 * \file tir_parser_builtins.cc
 * \brief TVMScript parser, part 2 (stage 2): the functions of the `T.` and `I.` namespaces —
 * their parameters (checked: "T.axis.spatial expects 2 arguments, got 3") and what they build.
 */
#include <algorithm>
#include <cmath>
#include <limits>

#include "minitvm/target/target.h"
#include "minitvm/tir/builtin.h"
#include "minitvm/tir/op.h"
#include "tir_parser_impl.h"
#include "tir_utils.h"

namespace minitvm {
namespace script {
namespace tir_parser {

using namespace ::minitvm::tir;  // NOLINT(build/namespaces)
using VK = Value::Kind;

namespace {

/*!
 * \brief The parameters of a builtin: at least `min` arguments, at most `max` of them
 * positional (-1: any number); `params` names them, those past `max` are keyword-only.
 */
struct Spec {
  int min;
  int max;
  std::vector<std::string> params;
};

const std::vector<std::string> kBufferParams = {
    "shape", "dtype", "data",          "strides",     "elem_offset",
    "scope", "align", "offset_factor", "buffer_type", "axis_separators"};

const std::unordered_map<std::string, Spec>& Specs() {
  static const std::unordered_map<std::string, Spec> specs = [] {
    std::unordered_map<std::string, Spec> m;
    m["<dtype>"] = {0, 1, {"value", "is_size_var"}};
    m["<handle>"] = {0, 2, {"dtype", "storage_scope", "is_size_var"}};
    for (const char* loop : {"T.serial", "T.parallel", "T.vectorized", "T.unroll"}) {
      m[loop] = {1, 2, {"start", "stop", "annotations"}};
    }
    m["range"] = {1, 3, {"start", "stop", "step"}};
    m["T.thread_binding"] = {1, 3, {"start", "stop", "thread", "annotations"}};
    m["T.grid"] = {1, -1, {}};
    m["T.block"] = {0, 2, {"name_hint", "no_realize"}};
    for (const char* axis : {"T.axis.spatial", "T.axis.S", "T.axis.reduce", "T.axis.R",
                             "T.axis.scan", "T.axis.opaque"}) {
      m[axis] = {1, 2, {"dom", "binding", "dtype"}};
    }
    m["T.axis.remap"] = {2, 2, {"kinds", "bindings", "dtype"}};
    m["T.where"] = {1, 1, {"predicate"}};
    m["T.reads"] = {0, -1, {}};
    m["T.writes"] = {0, -1, {}};
    m["T.block_attr"] = {1, 1, {"attrs"}};
    m["T.init"] = {0, 0, {}};
    for (const char* b : {"T.alloc_buffer", "T.Buffer", "T.buffer", "T.buffer_decl"}) {
      m[b] = {1, 10, kBufferParams};
    }
    m["T.decl_buffer"] = {1, 10, kBufferParams};
    std::vector<std::string> match = {"param"};
    match.insert(match.end(), kBufferParams.begin(), kBufferParams.end());
    m["T.match_buffer"] = {1, 11, match};
    m["T.func_attr"] = {1, 1, {"attrs"}};
    m["I.module_attrs"] = {1, 1, {"attrs"}};
    m["T.prim_func"] = {0, 2, {"func", "private"}};
    m["I.ir_module"] = {0, 1, {"cls"}};
    m["T.allocate"] = {2, 5, {"extents", "dtype", "scope", "condition", "annotations"}};
    m["T.allocate_const"] = {3, 4, {"data", "dtype", "extents", "annotations"}};
    m["T.launch_thread"] = {2, 2, {"thread", "extent"}};
    m["T.env_thread"] = {1, 1, {"thread_tag"}};
    m["T.attr"] = {3, 3, {"node", "attr_key", "value"}};
    m["T.comm_reducer"] = {2, 2, {"combiner", "identity"}};
    m["T.realize"] = {2, 3, {"buffer_slice", "storage_scope", "condition"}};
    m["tvm.tir.call_tir"] = {1, -1, {"global_var"}};
    m["T.LetStmt"] = {1, 3, {"value", "type_annotation", "var"}};
    m["T.Assert"] = {2, 2, {"condition", "message"}};
    m["T.evaluate"] = {1, 1, {"value"}};
    m["T.Cast"] = {2, 2, {"dtype", "value"}};
    m["T.cast"] = {2, 2, {"value", "dtype"}};
    m["T.Select"] = {3, 3, {"condition", "true_value", "false_value"}};
    m["T.if_then_else"] = {3, 3, {"condition", "true_value", "false_value"}};
    for (const char* u : {"T.abs", "T.likely"}) m[u] = {1, 1, {"x"}};
    // The float intrinsics TVMScript spells T.<name> (T.exp, T.pow: tir/builtin.h).
    for (const Op& op : ListIntrinsics()) {
      std::string script = GetIntrinsicString(op, tir::attr::kScriptPrinterName);
      if (script.empty() || !GetIntrinsicFlag(op, tir::attr::kFloatOnly)) continue;
      Spec spec{static_cast<int>(op->num_inputs), static_cast<int>(op->num_inputs), {}};
      for (const OpArgumentInfo& arg : op->arguments) spec.params.push_back(arg.name);
      m["T." + script] = spec;
    }
    // The opaque intrinsics (GPU and lowered-code ones): their arguments, any number of them
    // where the table says -1, and the dtype where the script writes it.
    for (const Op& op : ListIntrinsics()) {
      if (op.GetAttr(tir::attr::kScriptResultDType).is_null()) continue;
      std::string script = GetIntrinsicString(op, tir::attr::kScriptPrinterName);
      std::string where = GetIntrinsicString(op, tir::attr::kScriptDTypeLocation);
      int n = static_cast<int>(op->num_inputs) + (where.empty() ? 0 : 1);
      Spec spec{op->num_inputs < 0 ? 0 : n, op->num_inputs < 0 ? -1 : n, {}};
      for (int i = 0; i < n; ++i) spec.params.push_back("arg" + std::to_string(i));
      m["T." + script] = spec;
    }
    for (const char* b :
         {"T.max",      "T.min", "T.floordiv", "T.floormod", "T.truncdiv", "T.truncmod",
          "T.Add",      "T.Sub", "T.Mul",      "T.Div",      "T.Mod",      "T.FloorDiv",
          "T.FloorMod", "T.Min", "T.Max",      "T.EQ",       "T.NE",       "T.LT",
          "T.LE",       "T.GT",  "T.GE",       "T.And",      "T.Or"}) {
      m[b] = {2, 2, {"a", "b"}};
    }
    m["T.Not"] = {1, 1, {"a"}};
    for (const char* b : {"T.ceildiv", "T.bitwise_and", "T.bitwise_or", "T.bitwise_xor",
                          "T.shift_left", "T.shift_right"}) {
      m[b] = {2, 2, {"a", "b"}};
    }
    m["T.bitwise_not"] = {1, 1, {"a"}};
    m["T.assume"] = {1, 1, {"cond"}};
    m["T.meta_var"] = {1, 1, {"value"}};
    m["T.target"] = {1, 2, {"target", "host"}};
    m["T.Ramp"] = {3, 3, {"base", "stride", "lanes"}};
    m["T.Broadcast"] = {2, 2, {"value", "lanes"}};
    m["T.Let"] = {2, 2, {"body", "where"}};
    m["T.call_extern"] = {2, -1, {"dtype", "func_name"}};
    m["T.call_intrin"] = {2, -1, {"dtype", "op"}};
    m["T.reinterpret"] = {2, 2, {"dtype", "value"}};
    m["T.min_value"] = {1, 1, {"dtype"}};
    m["T.max_value"] = {1, 1, {"dtype"}};
    m["T.iter_var"] = {4, 4, {"var", "dom", "iter_type", "thread_tag"}};
    m["T.llvm_lookup_intrinsic_id"] = {1, 1, {"name"}};
    return m;
  }();
  return specs;
}

Value Make(VK kind, const Span& span) {
  Value v;
  v.kind = kind;
  v.span = span;
  return v;
}
Value ExprValue(PrimExpr e, const Span& span) {
  Value v = Make(VK::kExpr, span);
  v.expr = std::move(e);
  return v;
}
std::string Arguments(size_t n) {
  return std::to_string(n) + (n == 1 ? " argument" : " arguments");
}

}  // namespace

bool IsBuiltinName(const std::string& name) {
  return name.find('.') != std::string::npos && Specs().count(name) > 0;
}

Value Evaluator::CallBuiltin(const std::string& name, CallArgs& a) {
  auto it = Specs().find(name);
  if (it == Specs().end()) Error(a.span, "unknown name \"" + name + "\"");
  const Spec& spec = it->second;
  a.params = spec.params;
  if (name == "T.call_extern" || name == "T.call_intrin") {
    // TVM's current signature is call_extern(dtype, name, *args) with dtype usually given by
    // keyword after the arguments: T.call_extern("f", A.data, dtype="int32").
    for (size_t k = 0; k < a.kwargs.size(); ++k) {
      if (a.kwargs[k].first != "dtype") continue;
      a.args.insert(a.args.begin(), a.kwargs[k].second);
      a.kwargs.erase(a.kwargs.begin() + static_cast<std::ptrdiff_t>(k));
      break;
    }
  }
  // TVM's builders of expressions take and ignore a `dtype=` keyword (T.exp(x, dtype="float32"),
  // T.if_then_else(c, a, b, dtype="int32")); those that need the dtype take it as their first
  // argument (T.reinterpret, T.call_llvm_pure_intrin) or last (T.tvm_struct_get).
  std::optional<Value> dtype_kw;
  for (size_t k = 0; k < a.kwargs.size(); ++k) {
    if (a.kwargs[k].first != "dtype") continue;
    bool has_param =
        std::find(spec.params.begin(), spec.params.end(), "dtype") != spec.params.end();
    if (has_param && !(name == "T.reinterpret" && a.args.size() == 1)) break;
    dtype_kw = a.kwargs[k].second;
    a.kwargs.erase(a.kwargs.begin() + static_cast<std::ptrdiff_t>(k));
    break;
  }
  std::optional<Op> opaque;
  if (name.rfind("T.", 0) == 0) {
    opaque = GetIntrinsicByScriptName(name.substr(2));
    if (opaque && opaque->GetAttr(tir::attr::kScriptResultDType).is_null()) opaque.reset();
  }
  if (dtype_kw &&
      (name == "T.reinterpret" ||
       (opaque && GetIntrinsicString(*opaque, tir::attr::kScriptDTypeLocation) == "first"))) {
    a.args.insert(a.args.begin(), *dtype_kw);
  } else if (dtype_kw && opaque &&
             GetIntrinsicString(*opaque, tir::attr::kScriptDTypeLocation) == "last") {
    a.args.push_back(*dtype_kw);
  }
  const std::string& fn = a.func.empty() ? name : a.func;
  // Arity and keyword checks.
  int positional = static_cast<int>(a.args.size());
  int given = static_cast<int>(a.args.size() + a.kwargs.size());
  if (spec.max >= 0 && positional > spec.max) {
    Error(a.span, fn + " expects " + Arguments(spec.max) + ", got " + std::to_string(positional));
  }
  for (size_t k = 0; k < a.kwargs.size(); ++k) {
    const std::string& key = a.kwargs[k].first;
    auto p = std::find(spec.params.begin(), spec.params.end(), key);
    if (p == spec.params.end()) {
      Error(a.span, fn + " got an unexpected keyword argument \"" + key + "\"");
    }
    if (static_cast<size_t>(p - spec.params.begin()) < a.args.size()) {
      Error(a.span, fn + " got multiple values for argument \"" + key + "\"");
    }
  }
  if (given < spec.min) {
    bool exact = spec.min == spec.max;
    Error(a.span, fn + " expects " + (exact ? "" : "at least ") + Arguments(spec.min) + ", got " +
                      std::to_string(given));
  }
  auto arg = [&](size_t i, const char* p) -> const Value* { return a.Get(i, p); };
  auto req = [&](size_t i, const char* p) -> const Value& {
    const Value* v = a.Get(i, p);
    if (!v) Error(a.span, fn + " is missing the argument \"" + std::string(p) + "\"");
    return *v;
  };
  auto sp = [&](const Value& v) { return v.span.defined() ? v.span : a.span; };
  auto expr = [&](size_t i, const char* p) {
    const Value& v = req(i, p);
    return AsExpr(v, sp(v));
  };
  // Errors of the IR constructors become diagnostics at the call.
  auto guarded = [&](const std::function<Value()>& build) -> Value {
    try {
      return build();
    } catch (const minitvm::Error& e) {
      if (e.kind() == "ParseError") throw;
      std::string msg = e.what();
      bool dtype = msg.find("type") != std::string::npos || msg.find("bool") != std::string::npos;
      Error(a.span, (dtype ? "dtype mismatch: " : fn + ": ") + msg);
    }
  };
  auto none = [&]() { return Make(VK::kNone, a.span); };
  const std::string& n = name;

  // ---- dtype calls: T.float32(1.0), T.int64(3), T.int32() ----
  if (n == "<dtype>") {
    DataType t = a.dtype;
    const Value* v = arg(0, "value");
    bool size_var = false;
    if (const Value* s = arg(1, "is_size_var")) size_var = Truthy(*s, sp(*s));
    if (!v || v->kind == VK::kNone || t.is_handle()) {
      Value d = Make(VK::kVarDecl, a.span);
      d.dtype = t;
      d.size_var = size_var;
      return d;
    }
    if (v->kind == VK::kStr) {
      if (!(t.is_float() || t.is_bfloat16())) Error(sp(*v), fn + " of a string");
      double inf = std::numeric_limits<double>::infinity();
      if (v->str == "inf") return ExprValue(FloatImm(t, inf), a.span);
      if (v->str == "-inf") return ExprValue(FloatImm(t, -inf), a.span);
      if (v->str == "nan") return ExprValue(FloatImm(t, std::nan("")), a.span);
      Error(sp(*v), fn + ": expected a number or \"inf\", \"-inf\", \"nan\"");
    }
    if (v->IsNumber()) {
      if (t.is_bool() && v->kind == VK::kInt && v->i != 0 && v->i != 1) {
        Error(sp(*v), "T.bool expects True or False");
      }
      return guarded([&] { return ExprValue(ConstOf(*v, t, sp(*v)), a.span); });
    }
    PrimExpr e = AsExpr(*v, sp(*v));
    return guarded([&] { return ExprValue(cast(t, e), a.span); });
  }

  // ---- T.handle(), T.handle("float32", "global"): a pointer parameter or variable ----
  if (n == "<handle>") {
    // minitvm's variables carry a dtype only, no pointer type: the element type and storage
    // scope TVM prints on a pointer are checked and then not kept (the buffer that views the
    // pointer has them).
    if (const Value* d = arg(0, "dtype"); d && d->kind != VK::kNone) AsDType(*d, sp(*d));
    if (const Value* s = arg(1, "storage_scope"); s && s->kind != VK::kNone) {
      AsString(*s, sp(*s), "the storage scope");
    }
    Value d = Make(VK::kVarDecl, a.span);
    d.dtype = DataType::Handle();
    return d;
  }

  // ---- loops ----
  if (n == "range" || n == "T.serial" || n == "T.parallel" || n == "T.vectorized" ||
      n == "T.unroll" || n == "T.thread_binding") {
    auto spec_loop = std::make_shared<LoopSpec>();
    spec_loop->kind = n == "T.parallel"         ? ForKind::kParallel
                      : n == "T.vectorized"     ? ForKind::kVectorized
                      : n == "T.unroll"         ? ForKind::kUnrolled
                      : n == "T.thread_binding" ? ForKind::kThreadBinding
                                                : ForKind::kSerial;
    std::vector<Value> bounds = a.args;
    if (n == "T.thread_binding" && !bounds.empty() && bounds.back().kind == VK::kStr) {
      spec_loop->thread = bounds.back().str;
      bounds.pop_back();
    }
    for (const auto& [k, v] : a.kwargs) {
      if (k == "start" || k == "stop") bounds.push_back(v);
      if (k == "thread") spec_loop->thread = AsString(v, sp(v), "thread");
      if (k == "annotations") spec_loop->annotations = AsAttrMap(v, sp(v));
      if (k == "step" && !(v.kind == VK::kInt && v.i == 1)) Error(sp(v), "range: step must be 1");
    }
    if (n == "range" && bounds.size() == 3) {
      if (!(bounds[2].kind == VK::kInt && bounds[2].i == 1)) {
        Error(sp(bounds[2]), "range: a loop step other than 1 is not supported");
      }
      bounds.pop_back();
    }
    if (bounds.empty() || bounds.size() > 2) {
      Error(a.span, fn + " expects (stop) or (start, stop), got " + Arguments(bounds.size()));
    }
    if (n == "T.thread_binding" && spec_loop->thread.empty()) {
      Error(a.span, "T.thread_binding needs thread=\"threadIdx.x\" (or another thread axis)");
    }
    PrimExpr start = bounds.size() == 2 ? AsExpr(bounds[0], sp(bounds[0])) : PrimExpr(0);
    PrimExpr stop = AsExpr(bounds.back(), sp(bounds.back()));
    for (const PrimExpr& e : {start, stop}) {
      if (!(e.dtype().is_int() || e.dtype().is_uint()) || !e.dtype().is_scalar()) {
        Error(a.span, "dtype mismatch: loop bounds must be integers, got " +
                          runtime::DataTypeToString(e.dtype()));
      }
    }
    return guarded([&] {
      PrimExpr extent = RangeExtent(start, stop);
      PrimExpr lo = start.dtype() == extent.dtype() ? start : cast(extent.dtype(), start);
      spec_loop->ranges.emplace_back(lo, extent);
      Value v = Make(VK::kLoop, a.span);
      v.loop = spec_loop;
      return v;
    });
  }
  if (n == "T.grid") {
    if (a.args.size() > 128) Error(a.span, "T.grid: too many loops (at most 128)");
    auto spec_loop = std::make_shared<LoopSpec>();
    for (const Value& v : a.args) {
      PrimExpr extent = AsExpr(v, sp(v));
      if (!(extent.dtype().is_int() || extent.dtype().is_uint()) || !extent.dtype().is_scalar()) {
        Error(sp(v), "dtype mismatch: loop extents must be integers, got " + v.TypeName());
      }
      spec_loop->ranges.emplace_back(make_zero(extent.dtype()), extent);
    }
    Value v = Make(VK::kLoop, a.span);
    v.loop = spec_loop;
    return v;
  }

  // ---- blocks ----
  if (n == "T.block") {
    Value v = Make(VK::kBlock, a.span);
    if (const Value* name_hint = arg(0, "name_hint")) {
      v.str = AsString(*name_hint, sp(*name_hint), "the block name");
    }
    if (const Value* nr = arg(1, "no_realize")) v.size_var = Truthy(*nr, sp(*nr));
    return v;
  }
  if (n == "T.init") return Make(VK::kInit, a.span);
  if (n.rfind("T.axis.", 0) == 0 && n != "T.axis.remap") {
    Value v = Make(VK::kAxis, a.span);
    const std::string kind = n.substr(7);
    v.axis_type = (kind == "spatial" || kind == "S")  ? kDataPar
                  : (kind == "reduce" || kind == "R") ? kCommReduce
                  : kind == "scan"                    ? kOrdered
                                                      : kOpaque;
    const Value& dom = req(0, "dom");
    v.axis_dom = AsDomain(dom, sp(dom));
    if (const Value* b = arg(1, "binding")) {
      v.axis_binding = AsExpr(*b, sp(*b));
      if (!(v.axis_binding.dtype().is_int() || v.axis_binding.dtype().is_uint())) {
        Error(sp(*b),
              "dtype mismatch: a block iterator is bound to an integer, got " + b->TypeName());
      }
    }
    if (const Value* d = arg(2, "dtype")) {
      DataType t = AsDType(*d, sp(*d));
      if (!t.is_int()) Error(sp(*d), "a block iterator must have an integer dtype");
      v.dtype = t;
    }
    return v;
  }
  if (n == "T.axis.remap") {
    const Value& kinds_v = req(0, "kinds");
    std::string kinds = AsString(kinds_v, sp(kinds_v), "T.axis.remap kinds");
    const Value& bindings = req(1, "bindings");
    if (bindings.kind != VK::kList && bindings.kind != VK::kTuple) {
      Error(sp(bindings),
            "T.axis.remap expects a list of loop variables, got " + bindings.TypeName());
    }
    if (kinds.size() != bindings.items.size()) {
      Error(a.span, "T.axis.remap: " + std::to_string(kinds.size()) + " kinds (\"" + kinds +
                        "\") for " + std::to_string(bindings.items.size()) + " loop variables");
    }
    Value out = Make(VK::kTuple, a.span);
    for (size_t i = 0; i < kinds.size(); ++i) {
      const Value& b = bindings.items[i];
      Value v = Make(VK::kAxis, sp(b));
      if (kinds[i] != 'S' && kinds[i] != 'R') {
        Error(sp(kinds_v), std::string("T.axis.remap: unknown iterator kind '") + kinds[i] +
                               "' (use S for spatial, R for reduce)");
      }
      v.axis_type = kinds[i] == 'S' ? kDataPar : kCommReduce;
      PrimExpr e = AsExpr(b, sp(b));
      auto* var = e.as<VarNode>();
      const std::tuple<Var, PrimExpr, PrimExpr>* loop = nullptr;
      for (auto l = loops_.rbegin(); var && l != loops_.rend(); ++l) {
        if (std::get<0>(*l).get() == var) {
          loop = &*l;
          break;
        }
      }
      if (!loop) Error(sp(b), "T.axis.remap binds loop variables only; this is not one");
      v.axis_dom = Range(std::get<1>(*loop), std::get<2>(*loop));
      v.axis_binding = e;
      out.items.push_back(v);
    }
    // As in TVM, one kind gives the iterator itself: vi = T.axis.remap("S", [i]).
    if (out.items.size() == 1) return out.items[0];
    return out;
  }
  if (n == "T.where") {
    BlockBuilder* b = CurrentBlock(a.span, "T.where");
    PrimExpr p = expr(0, "predicate");
    if (!p.dtype().is_bool()) {
      Error(a.span, "dtype mismatch: T.where needs a bool condition, got " +
                        runtime::DataTypeToString(p.dtype()));
    }
    b->predicate = p;
    return none();
  }
  if (n == "T.reads" || n == "T.writes") {
    BlockBuilder* b = CurrentBlock(a.span, n.c_str());
    Array<BufferRegion> regions;
    for (const Value& v : a.args) {
      if (v.kind == VK::kList || v.kind == VK::kTuple) {
        for (const Value& item : v.items) regions.push_back(AsRegion(item, sp(item)));
      } else {
        regions.push_back(AsRegion(v, sp(v)));
      }
    }
    auto& slot = n == "T.reads" ? b->reads : b->writes;
    if (slot) Error(a.span, n + " is given twice in block \"" + b->name + "\"");
    slot = regions;
    return none();
  }
  if (n == "T.block_attr") {
    BlockBuilder* b = CurrentBlock(a.span, "T.block_attr");
    const Value& attrs = req(0, "attrs");
    for (const auto& [k, v] : AsAttrMap(attrs, sp(attrs)).items()) b->annotations.Set(k, v);
    return none();
  }

  // ---- buffers ----
  if (n == "T.alloc_buffer" || n == "T.Buffer" || n == "T.buffer" || n == "T.buffer_decl" ||
      n == "T.decl_buffer" || n == "T.match_buffer") {
    size_t off = n == "T.match_buffer" ? 1 : 0;
    auto spec_buf = std::make_shared<BufferSpec>();
    const Value* shape = arg(off + 0, "shape");
    const Value* source = n == "T.match_buffer" ? arg(0, "param") : nullptr;
    if ((!shape || shape->kind == VK::kNone) && source && source->kind == VK::kRegion) {
      // B = T.match_buffer(A[8:16, 32:64]): the shape and dtype of the region, as in TVM.
      // The extents go through the checks of a written shape (a constant one must not be
      // negative: A[8:16, 40:32] has none).
      Value extents = Make(VK::kTuple, sp(*source));
      for (const Range& r : source->region->region) {
        extents.items.push_back(ExprValue(r->extent, sp(*source)));
      }
      spec_buf->shape = AsShape(extents, sp(*source));
      spec_buf->dtype = source->region->buffer->dtype;
    } else {
      const Value& s = req(off + 0, "shape");
      spec_buf->shape = AsShape(s, sp(s));
    }
    if (const Value* d = arg(off + 1, "dtype")) spec_buf->dtype = AsDType(*d, sp(*d));
    auto idx = [&](const char* p) -> size_t {
      for (size_t i = 0; i < kBufferParams.size(); ++i) {
        if (kBufferParams[i] == p) return off + i;
      }
      return 1000;
    };
    if (const Value* d = arg(idx("data"), "data"); d && d->kind != VK::kNone) {
      PrimExpr e = AsExpr(*d, sp(*d));
      auto* var = e.as<VarNode>();
      if (!var || !e.dtype().is_handle()) {
        Error(sp(*d), "data= must be a handle variable (T.handle), got " + d->TypeName());
      }
      spec_buf->data = GetRef<Var>(var);
    }
    if (const Value* s = arg(idx("strides"), "strides"); s && s->kind != VK::kNone) {
      // As TVM: a string among the strides names a new variable (of the shape's index dtype for
      // match_buffer, int32 otherwise).
      Value strides = *s;
      if (strides.kind == VK::kTuple || strides.kind == VK::kList) {
        DataType idx_dtype = n == "T.match_buffer" && !spec_buf->shape.empty()
                                 ? spec_buf->shape[0].dtype()
                                 : DataType::Int(32);
        for (Value& item : strides.items) {
          if (item.kind == VK::kStr) item = ExprValue(Var(item.str, idx_dtype), item.span);
        }
      }
      spec_buf->strides = AsShape(strides, sp(*s));
      if (spec_buf->strides.size() != spec_buf->shape.size()) {
        Error(sp(*s), "strides must have one entry per dimension");
      }
    }
    if (const Value* e = arg(idx("elem_offset"), "elem_offset"); e && e->kind != VK::kNone) {
      spec_buf->elem_offset = AsExpr(*e, sp(*e));
      if (!spec_buf->elem_offset.dtype().is_int()) Error(sp(*e), "elem_offset must be an integer");
    }
    if (const Value* s = arg(idx("scope"), "scope"); s && s->kind != VK::kNone) {
      spec_buf->scope = AsString(*s, sp(*s), "scope");
    }
    if (const Value* al = arg(idx("align"), "align"); al && al->kind != VK::kNone) {
      int64_t v = AsInt(*al, sp(*al), "align");
      if (v > 0) spec_buf->align = v;
    }
    if (const Value* of = arg(idx("offset_factor"), "offset_factor"); of && of->kind != VK::kNone) {
      int64_t v = AsInt(*of, sp(*of), "offset_factor");
      if (v > 0) spec_buf->offset_factor = v;
    }
    Value v = Make(VK::kBufferDecl, a.span);
    v.buffer_spec = spec_buf;
    v.method = n == "T.buffer" || n == "T.buffer_decl" ? "Buffer" : n.substr(2);
    if (n == "T.match_buffer") {
      const Value& p = req(0, "param");
      if (p.kind == VK::kExpr && p.expr.as<VarNode>()) {
        v.match_param = Downcast<Var>(p.expr);
        if (!v.match_param.dtype().is_handle()) {
          Error(sp(p), "T.match_buffer matches a T.handle parameter; " +
                           v.match_param->name_hint.str() + " is " + p.TypeName());
        }
      } else {
        v.match_region = AsRegion(p, sp(p));
      }
    }
    return v;
  }

  // ---- function and module attributes ----
  if (n == "T.func_attr") {
    if (!func_ || !frames_.empty()) {
      Error(a.span, "T.func_attr belongs at the top of a T.prim_func body");
    }
    const Value& attrs = req(0, "attrs");
    Map<String, Any> m = func_->attrs.value_or(Map<String, Any>());
    for (const auto& [k, v] : AsAttrMap(attrs, sp(attrs)).items()) m.Set(k, v);
    func_->attrs = m;
    return none();
  }
  if (n == "I.module_attrs")
    Error(a.span, "I.module_attrs belongs in the body of the module class");
  if (n == "T.prim_func" || n == "I.ir_module") Error(a.span, fn + " is a decorator");

  // ---- scoped statements ----
  if (n == "T.allocate") {
    auto s = std::make_shared<ScopeSpec>();
    s->kind = ScopeSpec::Kind::kAllocate;
    const Value& ext = req(0, "extents");
    s->extents = AsShape(ext, sp(ext));
    const Value& d = req(1, "dtype");
    s->dtype = AsDType(d, sp(d));
    if (const Value* sc = arg(2, "scope")) s->scope = AsString(*sc, sp(*sc), "scope");
    if (const Value* c = arg(3, "condition")) s->condition = AsExpr(*c, sp(*c));
    if (const Value* an = arg(4, "annotations")) s->annotations = AsAttrMap(*an, sp(*an));
    Value v = Make(VK::kScope, a.span);
    v.scope = s;
    return v;
  }
  if (n == "T.allocate_const") {
    auto s = std::make_shared<ScopeSpec>();
    s->kind = ScopeSpec::Kind::kAllocate;
    const Value& d = req(1, "dtype");
    s->dtype = AsDType(d, sp(d));
    const Value& ext = req(2, "extents");
    s->extents = AsShape(ext, sp(ext));
    const Value& data = req(0, "data");
    if (data.kind != VK::kList && data.kind != VK::kTuple) {
      Error(sp(data), "T.allocate_const: data must be a list of numbers, got " + data.TypeName());
    }
    for (const Value& x : data.items) {
      PrimExpr e = AsExpr(x, sp(x));
      const auto* ii = e.as<IntImmNode>();
      const auto* fi = e.as<FloatImmNode>();
      if (ii == nullptr && fi == nullptr) {
        Error(sp(x), "T.allocate_const: data must hold numbers, got " + x.TypeName());
      }
      double value = ii != nullptr ? static_cast<double>(ii->value) : fi->value;
      if (s->dtype.is_float()) {
        s->const_data.push_back(FloatImm(s->dtype, value));
      } else if (fi != nullptr) {
        Error(sp(x), "T.allocate_const: a float value for the integer dtype " +
                         runtime::DataTypeToString(s->dtype));
      } else {
        s->const_data.push_back(IntImm(s->dtype, ii->value));
      }
    }
    if (const Value* an = arg(3, "annotations")) s->annotations = AsAttrMap(*an, sp(*an));
    Value v = Make(VK::kScope, a.span);
    v.scope = s;
    return v;
  }
  if (n == "T.launch_thread") {
    auto s = std::make_shared<ScopeSpec>();
    s->kind = ScopeSpec::Kind::kLaunchThread;
    const Value& t = req(0, "thread");
    if (t.kind == VK::kStr) {
      s->key = t.str;
    } else if (t.kind == VK::kIterVar) {
      s->iter_var = t.iter_var;
      s->key = t.iter_var->thread_tag.str();
    } else if (auto l =
                   t.kind == VK::kExpr ? launched_.find(t.expr.as<VarNode>()) : launched_.end();
               l != launched_.end()) {
      // A thread variable launched before: launched again with this extent.
      s->iter_var = IterVar(Range(), l->second->var, kThreadIndex, l->second->thread_tag);
      s->key = l->second->thread_tag.str();
    } else {
      Error(sp(t),
            "T.launch_thread expects a thread tag such as \"threadIdx.x\", got " + t.TypeName());
    }
    s->value = expr(1, "extent");
    if (!(s->value.dtype().is_int() || s->value.dtype().is_uint()) ||
        !s->value.dtype().is_scalar()) {
      Error(a.span, "dtype mismatch: T.launch_thread needs an integer extent, got " +
                        runtime::DataTypeToString(s->value.dtype()));
    }
    Value v = Make(VK::kScope, a.span);
    v.scope = s;
    return v;
  }
  if (n == "T.env_thread") {
    const Value& t = req(0, "thread_tag");
    Value v = Make(VK::kEnvThread, a.span);
    v.str = AsString(t, sp(t), "the thread tag");
    return v;
  }
  if (n == "T.comm_reducer") return MakeCommReducer(a);
  if (n == "T.realize") {
    auto s = std::make_shared<ScopeSpec>();
    s->kind = ScopeSpec::Kind::kRealize;
    const Value& region = req(0, "buffer_slice");
    s->region = AsRegion(region, sp(region));
    const Value& scope = req(1, "storage_scope");
    s->key = AsString(scope, sp(scope), "the storage scope");
    s->condition = IntImm(DataType::Bool(), 1);
    if (const Value* c = arg(2, "condition")) {
      s->condition =
          c->IsNumber() ? IntImm(DataType::Bool(), Truthy(*c, sp(*c))) : AsExpr(*c, sp(*c));
      if (!s->condition.dtype().is_bool()) {
        Error(sp(*c), "the condition of T.realize must be bool, got " +
                          runtime::DataTypeToString(s->condition.dtype()));
      }
    }
    Value v = Make(VK::kScope, a.span);
    v.scope = s;
    return v;
  }
  if (n == "T.attr") {
    auto s = std::make_shared<ScopeSpec>();
    s->kind = ScopeSpec::Kind::kAttr;
    const Value& node = req(0, "node");
    switch (node.kind) {
      case VK::kNone:
        break;
      case VK::kExpr:
        s->node = node.expr;
        break;
      case VK::kInt:  // T.attr(0, "extern_scope", 0): an int32 constant as the node
        s->node = ConstOf(node, DataType::Int(32), sp(node));
        break;
      case VK::kBuffer:
        s->node = node.buffer;
        break;
      case VK::kStr:
        s->node = StringImm(node.str);  // as MakePackedAPI builds it (compute_scope)
        break;
      case VK::kIterVar:
        s->node = node.iter_var;
        break;
      case VK::kObject:  // T.comm_reducer(...) of a "reduce_scope"
        s->node = node.object;
        break;
      default:
        Error(sp(node), "T.attr cannot attach to " + node.TypeName());
    }
    const Value& key = req(1, "attr_key");
    s->key = AsString(key, sp(key), "the attribute key");
    const Value& value = req(2, "value");
    s->value = value.kind == VK::kStr ? PrimExpr(StringImm(value.str)) : AsExpr(value, sp(value));
    Value v = Make(VK::kScope, a.span);
    v.scope = s;
    return v;
  }
  if (n == "T.LetStmt") {
    auto s = std::make_shared<ScopeSpec>();
    s->kind = ScopeSpec::Kind::kLet;
    s->value = expr(0, "value");
    s->dtype = s->value.dtype();
    if (const Value* t = arg(1, "type_annotation")) s->dtype = AsDType(*t, sp(*t));
    if (const Value* var = arg(2, "var")) {
      PrimExpr e = AsExpr(*var, sp(*var));
      if (!e.as<VarNode>()) Error(sp(*var), "var= must be a variable");
      s->var = Downcast<Var>(e);
    }
    Value v = Make(VK::kScope, a.span);
    v.scope = s;
    return v;
  }
  if (n == "T.Assert") {
    auto s = std::make_shared<ScopeSpec>();
    s->kind = ScopeSpec::Kind::kAssert;
    s->value = expr(0, "condition");
    const Value& m = req(1, "message");
    s->message = m.kind == VK::kStr ? StringImm(m.str) : AsExpr(m, sp(m));
    Value v = Make(VK::kScope, a.span);
    v.scope = s;
    return v;
  }
  if (n == "T.evaluate") {
    Value v = Make(VK::kStmt, a.span);
    PrimExpr e = expr(0, "value");
    v.stmt = Evaluate(e);
    return v;
  }

  // ---- expressions ----
  if (n == "T.Cast" || n == "T.cast") {
    const Value& d = n == "T.Cast" ? req(0, "dtype") : req(1, "dtype");
    DataType t = AsDType(d, sp(d));
    PrimExpr e = n == "T.Cast" ? expr(1, "value") : expr(0, "value");
    return guarded([&] { return ExprValue(n == "T.Cast" ? Cast(t, e) : cast(t, e), a.span); });
  }
  if (n == "T.Select" || n == "T.if_then_else") {
    PrimExpr c = expr(0, "condition");
    auto operands_1 = MatchOperands(req(1, "true_value"), req(2, "false_value"), a.span);
    PrimExpr t = operands_1.first, f = operands_1.second;
    return guarded([&] {
      return ExprValue(n == "T.Select" ? Select(c, t, f) : if_then_else(c, t, f), a.span);
    });
  }
  if (std::optional<Op> f =
          n.rfind("T.", 0) == 0 ? GetIntrinsicByScriptName(n.substr(2)) : std::nullopt;
      f && GetIntrinsicFlag(*f, tir::attr::kFloatOnly)) {
    // A float intrinsic of the table (tir/builtin.h): T.exp(x), T.pow(a, b).
    const std::string& op_name = (*f)->name.str();
    const std::vector<OpArgumentInfo>& params = (*f)->arguments;
    if (params.size() == 1) {
      PrimExpr x = expr(0, params[0].name.c_str());
      return guarded([&] { return ExprValue(CallFloatIntrinsic(op_name, {x}), a.span); });
    }
    auto operands =
        MatchOperands(req(0, params[0].name.c_str()), req(1, params[1].name.c_str()), a.span);
    PrimExpr x = operands.first, y = operands.second;
    return guarded([&] { return ExprValue(CallFloatIntrinsic(op_name, {x, y}), a.span); });
  }
  using F1 = PrimExpr (*)(PrimExpr);
  static const std::unordered_map<std::string, F1> unary = {{"T.abs", &tir::abs},
                                                            {"T.likely", &tir::likely}};
  if (auto u = unary.find(n); u != unary.end()) {
    PrimExpr x = expr(0, "x");
    return guarded([&] { return ExprValue(u->second(x), a.span); });
  }
  using F2 = PrimExpr (*)(PrimExpr, PrimExpr);
  static const std::unordered_map<std::string, F2> binary = {
      {"T.max", &tir::max},           {"T.min", &tir::min},
      {"T.floordiv", &tir::floordiv}, {"T.floormod", &tir::floormod},
      {"T.truncdiv", &tir::truncdiv}, {"T.truncmod", &tir::truncmod}};
  if (auto b = binary.find(n); b != binary.end()) {
    auto operands_2 = MatchOperands(req(0, "a"), req(1, "b"), a.span);
    PrimExpr x = operands_2.first, y = operands_2.second;
    return guarded([&] { return ExprValue(b->second(x, y), a.span); });
  }
  static const std::unordered_map<std::string, std::function<PrimExpr(PrimExpr, PrimExpr)>> raw = {
      {"T.Add", [](PrimExpr x, PrimExpr y) { return Add(x, y); }},
      {"T.Sub", [](PrimExpr x, PrimExpr y) { return Sub(x, y); }},
      {"T.Mul", [](PrimExpr x, PrimExpr y) { return Mul(x, y); }},
      {"T.Div", [](PrimExpr x, PrimExpr y) { return Div(x, y); }},
      {"T.Mod", [](PrimExpr x, PrimExpr y) { return Mod(x, y); }},
      {"T.FloorDiv", [](PrimExpr x, PrimExpr y) { return FloorDiv(x, y); }},
      {"T.FloorMod", [](PrimExpr x, PrimExpr y) { return FloorMod(x, y); }},
      {"T.Min", [](PrimExpr x, PrimExpr y) { return Min(x, y); }},
      {"T.Max", [](PrimExpr x, PrimExpr y) { return Max(x, y); }},
      {"T.EQ", [](PrimExpr x, PrimExpr y) { return EQ(x, y); }},
      {"T.NE", [](PrimExpr x, PrimExpr y) { return NE(x, y); }},
      {"T.LT", [](PrimExpr x, PrimExpr y) { return LT(x, y); }},
      {"T.LE", [](PrimExpr x, PrimExpr y) { return LE(x, y); }},
      {"T.GT", [](PrimExpr x, PrimExpr y) { return GT(x, y); }},
      {"T.GE", [](PrimExpr x, PrimExpr y) { return GE(x, y); }},
      {"T.And", [](PrimExpr x, PrimExpr y) { return And(x, y); }},
      {"T.Or", [](PrimExpr x, PrimExpr y) { return Or(x, y); }}};
  if (auto r = raw.find(n); r != raw.end()) {
    auto operands_3 = MatchOperands(req(0, "a"), req(1, "b"), a.span);
    PrimExpr x = operands_3.first, y = operands_3.second;
    return guarded([&] { return ExprValue(r->second(x, y), a.span); });
  }
  if (n == "T.ceildiv") {
    // (Named variables, not a structured binding: clang before 16 cannot capture those.)
    auto operands = MatchOperands(req(0, "a"), req(1, "b"), a.span);
    PrimExpr x = operands.first, y = operands.second;
    if (!x.dtype().is_int() && !x.dtype().is_uint()) {
      Error(a.span, "dtype mismatch: T.ceildiv needs integers, got " +
                        runtime::DataTypeToString(x.dtype()));
    }
    return guarded([&] { return ExprValue(floordiv(x + y - 1, y), a.span); });
  }
  if (n == "T.bitwise_and" || n == "T.bitwise_or" || n == "T.bitwise_xor" || n == "T.shift_left" ||
      n == "T.shift_right") {
    return ExprValue(BitwiseOp(n.substr(2), req(0, "a"), req(1, "b"), a.span), a.span);
  }
  if (n == "T.bitwise_not") return ExprValue(BitwiseNot(req(0, "a"), a.span), a.span);
  if (n == "T.assume") {
    PrimExpr c = expr(0, "cond");
    if (!c.dtype().is_bool()) {
      Error(a.span, "dtype mismatch: T.assume needs a bool condition, got " +
                        runtime::DataTypeToString(c.dtype()));
    }
    return ExprValue(Call(DataType::Bool(), "tir.assume", {c}), a.span);
  }
  if (n == "T.meta_var") {
    Value v = req(0, "value");
    v.meta = true;
    return v;
  }
  if (n == "T.target") {
    const Value& t = req(0, "target");
    return guarded([&] {
      target::Target tgt = t.kind == VK::kDict ? target::Target::FromMap(AsAttrMap(t, sp(t)))
                                               : target::Target(AsString(t, sp(t), "the target"));
      if (const Value* h = arg(1, "host"); h && h->kind != VK::kNone) {
        tgt = target::Target(tgt, target::Target(AsString(*h, sp(*h), "the host target")));
      }
      Value v = Make(VK::kObject, a.span);
      v.object = tgt;
      return v;
    });
  }
  if (n == "T.Not") {
    PrimExpr x = expr(0, "a");
    return guarded([&] { return ExprValue(Not(x), a.span); });
  }
  if (n == "T.Ramp" || n == "T.Broadcast") {
    const Value& l = n == "T.Ramp" ? req(2, "lanes") : req(1, "lanes");
    int64_t lanes = AsInt(l, sp(l), "lanes");
    if (lanes < 2 || lanes > 65535) Error(sp(l), "lanes must be between 2 and 65535");
    if (n == "T.Broadcast") {
      PrimExpr x = expr(0, "value");
      return guarded([&] { return ExprValue(Broadcast(x, lanes), a.span); });
    }
    auto operands_4 = MatchOperands(req(0, "base"), req(1, "stride"), a.span);
    PrimExpr base = operands_4.first, stride = operands_4.second;
    return guarded([&] { return ExprValue(Ramp(base, stride, lanes), a.span); });
  }
  if (n == "T.Let") {
    PrimExpr body = expr(0, "body");
    const Value& where = req(1, "where");
    if (where.kind != VK::kDict || where.items.size() != 1) {
      Error(sp(where), "T.Let expects where={var: value} with one entry");
    }
    PrimExpr var = AsExpr(where.items[0], sp(where.items[0]));
    if (!var.as<VarNode>()) Error(sp(where.items[0]), "T.Let binds a variable");
    PrimExpr value = AsExpr(where.values[0], sp(where.values[0]));
    return guarded([&] { return ExprValue(Let(Downcast<Var>(var), value, body), a.span); });
  }
  if (n == "T.call_extern" || n == "T.call_intrin") {
    const Value& d = req(0, "dtype");
    DataType t = AsDType(d, sp(d));
    const Value& f = req(1, n == "T.call_extern" ? "func_name" : "op");
    std::string fname = AsString(f, sp(f), "the function name");
    Array<PrimExpr> call_args;
    for (size_t i = 2; i < a.args.size(); ++i) {
      // String arguments (messages, symbol names) are StringImm nodes, as the printer shows them.
      const Value& arg = a.args[i];
      call_args.push_back(arg.kind == VK::kStr ? PrimExpr(StringImm(arg.str))
                                               : AsExpr(arg, sp(arg)));
    }
    return guarded([&] {
      return ExprValue(
          n == "T.call_extern" ? call_extern(t, fname, call_args) : Call(t, fname, call_args),
          a.span);
    });
  }
  if (n == "T.reinterpret") {
    const Value& d = req(0, "dtype");
    DataType t = AsDType(d, sp(d));
    PrimExpr x = expr(1, "value");
    return guarded([&] { return ExprValue(reinterpret(t, x), a.span); });
  }
  if (n == "T.min_value" || n == "T.max_value") {
    const Value& d = req(0, "dtype");
    DataType t = AsDType(d, sp(d));
    return guarded(
        [&] { return ExprValue(n == "T.min_value" ? min_value(t) : max_value(t), a.span); });
  }
  if (n == "T.llvm_lookup_intrinsic_id") {
    // TVM turns the name into LLVM's numeric id at parse time and prints the name back; minitvm
    // keeps the name itself (a string argument of T.call_llvm_pure_intrin), the same text.
    const Value& name_v = req(0, "name");
    Value v = Make(VK::kStr, a.span);
    v.str = AsString(name_v, sp(name_v), "the LLVM intrinsic name");
    return v;
  }
  if (n == "T.iter_var") {
    PrimExpr var = expr(0, "var");
    if (!var.as<VarNode>()) Error(a.span, "T.iter_var needs a variable");
    const Value& dom = req(1, "dom");
    Range r = dom.kind == VK::kNone ? Range() : AsDomain(dom, sp(dom));
    const Value& kind = req(2, "iter_type");
    std::string k = AsString(kind, sp(kind), "the iterator kind");
    static const std::unordered_map<std::string, IterVarType> kinds = {
        {"DataPar", kDataPar},
        {"ThreadIndex", kThreadIndex},
        {"CommReduce", kCommReduce},
        {"Ordered", kOrdered},
        {"Opaque", kOpaque}};
    auto kt = kinds.find(k);
    if (kt == kinds.end()) Error(sp(kind), "unknown iterator kind \"" + k + "\"");
    const Value& tag = req(3, "thread_tag");
    Value v = Make(VK::kIterVar, a.span);
    v.iter_var = IterVar(r, Downcast<Var>(var), kt->second, AsString(tag, sp(tag), "the tag"));
    return v;
  }
  if (opaque) return ExprValue(BuildOpaqueIntrinsic(*opaque, fn, a), a.span);
  Error(a.span, "unknown name \"" + fn + "\"");
}

PrimExpr Evaluator::BuildOpaqueIntrinsic(const Op& op, const std::string& fn, CallArgs& a) {
  std::string where = GetIntrinsicString(op, tir::attr::kScriptDTypeLocation);
  std::string result = GetIntrinsicString(op, tir::attr::kScriptResultDType);
  std::vector<Value> values = a.args;
  std::optional<DataType> dtype;
  if (!where.empty()) {
    if (values.empty()) Error(a.span, fn + " is missing its dtype");
    const Value& d = where == "first" ? values.front() : values.back();
    dtype = AsDType(d, d.span.defined() ? d.span : a.span);
    if (where == "first") {
      values.erase(values.begin());
    } else {
      values.pop_back();
    }
  }
  Array<PrimExpr> args;
  for (const Value& v : values) {
    Span s = v.span.defined() ? v.span : a.span;
    if (v.kind == VK::kStr) {
      args.push_back(StringImm(v.str));
    } else if (v.kind == VK::kBuffer) {
      args.push_back(v.buffer->data);  // a buffer stands for its data pointer
    } else {
      args.push_back(AsExpr(v, s));
    }
  }
  if (!dtype) {
    if (result.rfind("arg", 0) == 0) {
      size_t k = std::stoul(result.substr(3));
      if (k >= args.size()) Error(a.span, fn + " is missing argument " + std::to_string(k));
      dtype = args[k].dtype();
    } else if (result.empty()) {
      Error(a.span, fn + " needs dtype=");
    } else {
      dtype = DataType(result);
    }
  }
  try {
    return Call(*dtype, op->name, args);
  } catch (const minitvm::Error& e) {
    Error(a.span, fn + ": " + e.what());
  }
}

}  // namespace tir_parser
}  // namespace script
}  // namespace minitvm

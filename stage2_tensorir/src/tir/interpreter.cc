/*!
 * \file interpreter.cc
 * \brief The TIR interpreter's entry points (stage 2): compiling a PrimFunc's parameters,
 * checking and binding the arguments of a call, and the "ref" runtime module.
 */
#include "minitvm/tir/interpreter.h"

#include <sstream>

#include "interpreter_impl.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/reflection.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace tir {

using interp::BufferDef;
using interp::BufState;
using interp::Ctx;
using interp::HandleState;
using interp::Value;
using runtime::NDArray;
using runtime::NDArrayNode;

Interpreter::Interpreter(const PrimFunc& func, std::string name, InterpreterOptions options) {
  if (!func.defined()) MINITVM_THROW(ValueError) << "Interpreter: undefined PrimFunc";
  auto prog = std::make_shared<Program>();
  prog->name = name;
  prog->options = options;
  prog->compiler = std::make_unique<interp::Compiler>(name, options);
  interp::Compiler* cc = prog->compiler.get();

  // Scalar parameters first: a size variable passed explicitly is bound by its argument.
  for (const Var& p : func->params) {
    if (func->buffer_map.count(p)) continue;
    if (p.dtype().is_handle()) {
      cc->Error("parameter " + p->name_hint.str() +
                " is a handle without a buffer in the buffer_map");
    }
    Program::Param param;
    param.name = p->name_hint.str();
    param.dtype = p.dtype();
    param.slot = cc->DefineVar(p);
    prog->params.push_back(param);
  }
  // Then buffers: variables in their shapes, strides and offsets are bound by the arrays.
  std::vector<std::pair<Var, Buffer>> buffer_params;
  for (const Var& p : func->params) {
    auto b = func->buffer_map.Get(p);
    if (!b) continue;
    buffer_params.emplace_back(p, *b);
    auto bind = [&](const PrimExpr& e) {
      if (auto* v = e.as<VarNode>()) {
        if (!cc->IsDefined(v)) cc->DefineVar(GetRef<Var>(v));
      }
    };
    for (const PrimExpr& d : (*b)->shape) bind(d);
    for (const PrimExpr& s : (*b)->strides) bind(s);
    if ((*b)->elem_offset.defined()) bind((*b)->elem_offset);
  }
  std::vector<Program::Param> ordered;
  size_t next_scalar = 0;
  for (const Var& p : func->params) {
    auto b = func->buffer_map.Get(p);
    if (!b) {
      ordered.push_back(prog->params[next_scalar++]);
      continue;
    }
    int handle = cc->DefineHandle((*b)->data);
    cc->AliasHandle(p, handle);
    Program::Param param;
    param.name = (*b)->name.str();
    param.is_buffer = true;
    param.dtype = (*b)->dtype;
    param.def = cc->DefineBufferHere(*b, handle, false);
    ordered.push_back(param);
  }
  prog->params = std::move(ordered);

  prog->body = cc->Stmt(func->body);
  for (const Program::Param& p : prog->params) {
    if (!p.is_buffer) continue;
    for (const BufferDef* d : cc->TakeImplicit(p.def->handle)) {
      prog->implicit_param_buffers.push_back(d);
    }
  }
  prog->num_slots = cc->num_slots();
  prog->num_buffers = cc->num_buffers();
  prog->num_handles = cc->num_handles();
  program_ = std::move(prog);
}

Interpreter::~Interpreter() = default;
Interpreter::Interpreter(Interpreter&&) noexcept = default;
Interpreter& Interpreter::operator=(Interpreter&&) noexcept = default;

const std::string& Interpreter::name() const { return program_->name; }

namespace {

std::string ShapeStr(const std::vector<int64_t>& shape) { return runtime::ShapeToString(shape); }

/*! \brief Whether `e` is a variable not bound yet (to be bound from an argument). */
const VarNode* UnboundVar(const PrimExpr& e, const interp::Compiler& cc,
                          const std::vector<char>& bound) {
  if (auto* v = e.as<VarNode>()) {
    int slot = cc.SlotOf(v);
    if (!bound[slot]) return v;
  }
  return nullptr;
}

/*!
 * \brief ValueError unless `v` fits the integer dtype `t`: an argument never wraps silently
 * (2**31 passed for an int32 would otherwise become -2**31).
 */
void CheckIntFits(const std::string& fn, const std::string& what, int64_t v, DataType t) {
  if (!(t.is_int() || t.is_uint()) || t.bits() > 64) return;
  bool fits;
  if (t.bits() == 64) {
    fits = t.is_int() || v >= 0;
  } else if (t.is_int()) {
    int64_t half = int64_t{1} << (t.bits() - 1);
    fits = v >= -half && v < half;
  } else {
    fits = v >= 0 && v < (int64_t{1} << t.bits());
  }
  if (!fits) {
    MINITVM_THROW(ValueError) << fn << ": " << what << ": value " << v << " out of range for " << t;
  }
}

}  // namespace

void Interpreter::Run(runtime::PackedArgs args) const {
  const Program& P = *program_;
  const std::string& fn = P.name;
  const interp::Compiler& cc = *P.compiler;
  if (args.size() != static_cast<int>(P.params.size())) {
    std::ostringstream names;
    for (size_t i = 0; i < P.params.size(); ++i) names << (i ? ", " : "") << P.params[i].name;
    MINITVM_THROW(TypeError) << fn << ": expects " << P.params.size() << " argument"
                             << (P.params.size() == 1 ? "" : "s") << " (" << names.str() << ") but "
                             << args.size() << (args.size() == 1 ? " was" : " were") << " given";
  }
  std::vector<Value> slots(std::max(P.num_slots, 1));
  std::vector<BufState> bufs(std::max(P.num_buffers, 1));
  std::vector<HandleState> handles(std::max(P.num_handles, 1));
  std::vector<char> bound(slots.size(), 0);
  Ctx c;
  c.slots = slots.data();
  c.bufs = bufs.data();
  c.handles = handles.data();
  c.prog = &P;

  // 1. Scalars, and the kind, device, dtype and rank of every array.
  std::vector<const NDArrayNode*> arrays(P.params.size(), nullptr);
  for (size_t i = 0; i < P.params.size(); ++i) {
    const Program::Param& p = P.params[i];
    const Any& a = args[static_cast<int>(i)];
    if (!p.is_buffer) {
      Value v;
      if (interp::IsFloatType(p.dtype)) {
        if (!(a.is_float() || a.is_int() || a.is_bool())) {
          MINITVM_THROW(TypeError) << fn << ": argument " << p.name << ": expected a number ("
                                   << p.dtype << ") but got " << a.type_name();
        }
        v.f = interp::RoundFloat(a.cast<double>(), p.dtype);
      } else {
        if (!(a.is_int() || a.is_bool())) {
          MINITVM_THROW(TypeError) << fn << ": argument " << p.name << ": expected an integer ("
                                   << p.dtype << ") but got " << a.type_name();
        }
        CheckIntFits(fn, "argument " + p.name, a.raw_int(), p.dtype);
        v.i = interp::WrapInt(a.raw_int(), p.dtype);
      }
      slots[p.slot] = v;
      bound[p.slot] = 1;
      continue;
    }
    const NDArrayNode* nd = a.as<NDArrayNode>();
    if (!nd) {
      MINITVM_THROW(TypeError) << fn << ": argument " << p.name << ": expected an NDArray but got "
                               << a.type_name();
    }
    if (nd->device.device_type != kDLCPU) {
      MINITVM_THROW(ValueError) << fn << ": argument " << p.name << ": the array is on "
                                << nd->device << " but the interpreter runs on the CPU";
    }
    if (nd->dtype != p.dtype) {
      MINITVM_THROW(ValueError) << fn << ": argument " << p.name << ": expected dtype " << p.dtype
                                << " but got " << nd->dtype;
    }
    arrays[i] = nd;
  }
  // 2. Bind the variables of shapes, strides and offsets.
  for (size_t i = 0; i < P.params.size(); ++i) {
    const Program::Param& p = P.params[i];
    if (!p.is_buffer) continue;
    const Buffer& b = p.def->buffer;
    const NDArrayNode* nd = arrays[i];
    if (nd->shape.size() == b->shape.size()) {
      for (size_t d = 0; d < b->shape.size(); ++d) {
        if (auto* v = UnboundVar(b->shape[d], cc, bound)) {
          int slot = cc.SlotOf(v);
          CheckIntFits(fn,
                       p.name + ".shape[" + std::to_string(d) + "] (bound to " +
                           std::string(v->name_hint) + ")",
                       nd->shape[d], v->dtype);
          slots[slot].i = nd->shape[d];
          bound[slot] = 1;
        }
      }
      if (!b->strides.empty()) {
        for (size_t d = 0; d < b->strides.size(); ++d) {
          if (auto* v = UnboundVar(b->strides[d], cc, bound)) {
            int slot = cc.SlotOf(v);
            slots[slot].i = nd->strides[d];
            bound[slot] = 1;
          }
        }
      }
    }
    if (b->elem_offset.defined()) {
      if (auto* v = UnboundVar(b->elem_offset, cc, bound)) {
        int slot = cc.SlotOf(v);
        slots[slot].i = 0;
        bound[slot] = 1;
      }
    }
  }
  // 3. Check shapes and layouts against the buffers, now that every variable has a value.
  for (size_t i = 0; i < P.params.size(); ++i) {
    const Program::Param& p = P.params[i];
    if (!p.is_buffer) continue;
    const BufferDef& def = *p.def;
    const NDArrayNode* nd = arrays[i];
    std::vector<int64_t> expected;
    for (const auto& e : def.shape) expected.push_back(e->I(c, 0));
    if (expected != nd->shape) {
      MINITVM_THROW(ValueError) << fn << ": argument " << p.name << ": expected shape "
                                << ShapeStr(expected) << " but got " << ShapeStr(nd->shape);
    }
    NDArray arr = GetRef<NDArray>(nd);
    if (def.strides.empty()) {
      if (!arr.IsContiguous()) {
        MINITVM_THROW(ValueError) << fn << ": argument " << p.name
                                  << ": expected a compact (contiguous) array but its strides "
                                     "are "
                                  << ShapeStr(nd->strides);
      }
    } else {
      for (size_t d = 0; d < def.strides.size(); ++d) {
        int64_t want = def.strides[d]->I(c, 0);
        if (nd->shape[d] > 1 && want != nd->strides[d]) {
          MINITVM_THROW(ValueError) << fn << ": argument " << p.name << ": expected stride " << want
                                    << " in dimension " << d << " but got " << nd->strides[d];
        }
      }
    }
    int64_t off = def.elem_offset->I(c, 0);
    if (off != 0) {
      MINITVM_THROW(ValueError) << fn << ": argument " << p.name << ": the buffer declares "
                                << "elem_offset " << off
                                << "; arrays passed to the interpreter start at element 0";
    }
  }
  // 4. Bind the memory. Nothing has been written so far.
  for (size_t i = 0; i < P.params.size(); ++i) {
    const Program::Param& p = P.params[i];
    if (!p.is_buffer) continue;
    const NDArrayNode* nd = arrays[i];
    BufState& b = bufs[p.def->index];
    char* data = static_cast<char*>(nd->data) + nd->byte_offset;
    b.data = data;
    b.ndim = static_cast<int>(nd->shape.size());
    int64_t lo = 0, hi = 0;
    bool empty = false;
    for (int d = 0; d < b.ndim; ++d) {
      b.shape[d] = nd->shape[d];
      b.strides[d] = nd->strides[d];
      if (nd->shape[d] == 0) empty = true;
      int64_t span = (nd->shape[d] - 1) * nd->strides[d];
      if (span < 0)
        lo += span;
      else
        hi += span;
    }
    b.elem_offset = 0;
    b.mem_lo = empty ? 0 : lo;
    b.mem_hi = empty ? 0 : hi + 1;
    HandleState& h = handles[p.def->handle];
    h.data = data;
    h.bytes = b.mem_lo == 0 ? b.mem_hi * p.dtype.bytes() : 0;
  }
  for (const BufferDef* d : P.implicit_param_buffers) interp::DefineBuffer(c, *d);
  P.body->Exec(c);
}

// ---- the runtime module --------------------------------------------------------------------

namespace {

class InterpreterModuleNode : public runtime::ModuleNode {
 public:
  IRModule mod;
  std::vector<std::pair<std::string, std::shared_ptr<Interpreter>>> funcs;

  std::string kind() const override { return "ref"; }

  std::optional<runtime::PackedFunc> GetFunction(const std::string& name) override {
    for (const auto& [fname, interp] : funcs) {
      if (fname != name) continue;
      std::shared_ptr<Interpreter> f = interp;
      return runtime::PackedFunc([f](runtime::PackedArgs args, Any* rv) { f->Run(args); }, name);
    }
    return std::nullopt;
  }

  std::vector<std::string> FunctionNames() const override {
    std::vector<std::string> names;
    for (const auto& [fname, interp] : funcs) names.push_back(fname);
    return names;
  }

  std::string GetSource(const std::string& format) override {
    if (format == "" || format == "tir" || format == "tvmscript") {
      if (auto printer = runtime::Registry::Get("script.AsScript")) {
        return (*printer)(mod).cast<std::string>();
      }
      return runtime::Repr(mod);
    }
    return ModuleNode::GetSource(format);
  }

  MINITVM_DECLARE_OBJECT_INFO(InterpreterModuleNode, runtime::ModuleNode,
                              "runtime.InterpreterModule");
};

}  // namespace

runtime::Module InterpreterModuleCreate(const IRModule& mod, InterpreterOptions options) {
  auto n = make_object<InterpreterModuleNode>();
  n->mod = mod;
  std::string first;
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    BaseFunc f = mod->Lookup(gv);
    auto* prim = f.as<PrimFuncNode>();
    if (!prim) {
      MINITVM_THROW(ValueError) << "the ref target runs PrimFuncs only, but function "
                                << gv->name_hint << " is a " << f->GetTypeKey();
    }
    std::string name = gv->name_hint.str();
    auto interp = std::make_shared<Interpreter>(GetRef<PrimFunc>(prim), name, options);
    n->funcs.emplace_back(name, interp);
    if (auto sym = prim->GetAttr<std::string>("global_symbol"); sym && *sym != name) {
      n->funcs.emplace_back(*sym, interp);
    }
    if (first.empty()) first = name;
  }
  bool has_main = false;
  for (const auto& [name, f] : n->funcs) has_main = has_main || name == "main";
  n->entry_name = has_main ? "main" : first;
  return runtime::Module(ObjectPtr<Object>(std::move(n)));
}

MINITVM_REGISTER_GLOBAL("tir.InterpreterModuleCreate")
    .set_body_typed([](IRModule mod, bool check_uninitialized) {
      InterpreterOptions options;
      options.check_uninitialized = check_uninitialized;
      return InterpreterModuleCreate(mod, options);
    });

}  // namespace tir
}  // namespace minitvm

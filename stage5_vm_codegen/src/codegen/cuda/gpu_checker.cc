/*!
 * \file gpu_checker.cc
 * \brief The GPU-semantics checker (stage 5): runs lowered CUDA kernels (the device PrimFuncs
 * CodeGenCUDA receives) on the CPU with SIMT semantics, so kernels can be checked where there
 * is no GPU. Python: `minitvm.gpu_check.check(mod, *arrays, target="cuda")`.
 *
 * Every thread of a block runs; the interpreter executes one statement at a time for all
 * threads of the block together (each thread with its own variables, an active mask for
 * divergent `if`s and loops), and a `__syncthreads()` ends a phase. It reports, as a
 * RuntimeError naming the buffer, the element and the two threads:
 *   - a data race on shared memory: two threads access one element in the same phase and at
 *     least one writes ("missing __syncthreads()" when one writes and the other reads);
 *   - a race on global memory: two threads write one element (in different blocks, or in one
 *     block within one phase), or one writes what another reads;
 *   - an out-of-bounds access, with the thread and block index;
 *   - a read of shared memory that no thread wrote;
 *   - a `__syncthreads()` that only some threads of a block reach;
 *   - a launch larger than the target allows (threads per block, shared memory per block).
 * Otherwise the arrays hold what the GPU would compute (float32 arithmetic rounded per op).
 */
#include <cmath>
#include <cstring>
#include <memory>
#include <sstream>
#include <unordered_map>

#include "host_launch.h"
#include "minitvm/codegen/cuda.h"
#include "minitvm/driver/build.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/tir/builtin.h"
#include "minitvm/tir/stmt_functor.h"
#include "minitvm/tir/transform/gpu.h"

namespace minitvm {
namespace codegen {

using namespace tir;  // NOLINT

namespace {

/*! \brief Who last touched an element, for race detection. */
struct Tracker {
  int64_t w_block = -1, w_thread = -1, w_phase = -1;
  int64_t r_block = -1, r_thread = -1, r_phase = -1;
  bool written = false;
};

/*! \brief A buffer as the kernel sees it. */
struct Mem {
  char* ptr = nullptr;
  int64_t elems = 0;  ///< per thread for local memory
  DataType dtype;
  std::string name, scope;
  std::vector<Tracker>* tracker = nullptr;
};

/*! \brief A value per thread and lane: v[t * lanes + l]. */
struct Val {
  int lanes = 1;
  std::vector<double> v;
};

double Round(double x, DataType t) {
  if (t.is_float() && t.bits() == 32) return static_cast<double>(static_cast<float>(x));
  if (t.is_bool()) return x != 0;
  if (t.is_int() || t.is_uint()) {
    if (std::isnan(x)) return 0;
    double r = std::trunc(x);
    if (t.bits() == 32 && t.is_int())
      return static_cast<double>(static_cast<int32_t>(static_cast<int64_t>(r)));
    return r;
  }
  return x;
}

double ReadElem(const char* p, DataType t) {
  if (t.is_float() && t.bits() == 32) return *reinterpret_cast<const float*>(p);
  if (t.is_float() && t.bits() == 64) return *reinterpret_cast<const double*>(p);
  if (t.is_bool()) return *reinterpret_cast<const uint8_t*>(p) != 0;
  if (t.is_int()) {
    switch (t.bits()) {
      case 8:
        return *reinterpret_cast<const int8_t*>(p);
      case 16:
        return *reinterpret_cast<const int16_t*>(p);
      case 32:
        return *reinterpret_cast<const int32_t*>(p);
      case 64:
        return static_cast<double>(*reinterpret_cast<const int64_t*>(p));
    }
  }
  if (t.is_uint()) {
    switch (t.bits()) {
      case 8:
        return *reinterpret_cast<const uint8_t*>(p);
      case 16:
        return *reinterpret_cast<const uint16_t*>(p);
      case 32:
        return *reinterpret_cast<const uint32_t*>(p);
      case 64:
        return static_cast<double>(*reinterpret_cast<const uint64_t*>(p));
    }
  }
  MINITVM_THROW(ValueError) << "gpu check: unsupported dtype " << t;
}

void WriteElem(char* p, DataType t, double x) {
  if (t.is_float() && t.bits() == 32) {
    *reinterpret_cast<float*>(p) = static_cast<float>(x);
  } else if (t.is_float() && t.bits() == 64) {
    *reinterpret_cast<double*>(p) = x;
  } else if (t.is_bool()) {
    *reinterpret_cast<uint8_t*>(p) = x != 0;
  } else if (t.is_int() || t.is_uint()) {
    int64_t v = static_cast<int64_t>(x);
    std::memcpy(p, &v, t.bytes());  // little-endian: the low bytes
  } else {
    MINITVM_THROW(ValueError) << "gpu check: unsupported dtype " << t;
  }
}

class SIMTBlock {
 public:
  SIMTBlock(const PrimFunc& kernel, const KernelLaunch& launch, std::array<int64_t, 3> block_idx,
            int64_t block_id, std::unordered_map<const VarNode*, Mem>* globals)
      : kernel_(kernel), launch_(launch), bidx_(block_idx), block_id_(block_id), mem_(*globals) {
    n_ = launch.block[0] * launch.block[1] * launch.block[2];
  }

  void Run() {
    for (size_t i = 0; i < kernel_->params.size(); ++i) {
      const Var& p = kernel_->params[i];
      if (p.dtype().is_handle()) continue;
      const HostValue& hv = launch_.args[i];
      env_[p.get()] = Uniform(hv.is_float ? hv.f : static_cast<double>(hv.i));
    }
    std::vector<char> mask(n_, 1);
    Exec(kernel_->body, mask);
  }

 private:
  // ---- helpers ------------------------------------------------------------------------------
  Val Uniform(double x, int lanes = 1) {
    Val v;
    v.lanes = lanes;
    v.v.assign(n_ * lanes, x);
    return v;
  }
  std::string ThreadStr(int64_t t) const {
    std::ostringstream os;
    os << "(" << t % launch_.block[0] << ", " << (t / launch_.block[0]) % launch_.block[1] << ", "
       << t / (launch_.block[0] * launch_.block[1]) << ")";
    return os.str();
  }
  std::string BlockStr() const {
    std::ostringstream os;
    os << "(" << bidx_[0] << ", " << bidx_[1] << ", " << bidx_[2] << ")";
    return os.str();
  }
  [[noreturn]] void Fail(const std::string& msg) const {
    MINITVM_THROW(RuntimeError) << "gpu check: kernel "
                                << kernel_->GetAttr<std::string>("global_symbol").value_or("?")
                                << ": " << msg;
  }
  int64_t ThreadCoord(int64_t t, int axis) const {
    if (axis == 0) return t % launch_.block[0];
    if (axis == 1) return (t / launch_.block[0]) % launch_.block[1];
    return t / (launch_.block[0] * launch_.block[1]);
  }
  Mem& MemOf(const Var& data) {
    auto it = mem_.find(data.get());
    if (it == mem_.end()) it = local_.find(data.get());
    if (it == local_.end()) Fail("buffer " + data->name_hint.str() + " has no memory");
    return it->second;
  }

  void Record(Mem& m, int64_t idx, int64_t t, bool write) {
    if (!m.tracker) return;
    Tracker& tr = (*m.tracker)[idx];
    bool shared = m.scope == "shared";
    auto conflict = [&](int64_t ob, int64_t ot, int64_t ophase) {
      if (ot < 0) return false;
      if (ob != block_id_) return !shared;  // global memory of another block: unordered
      return ot != t && ophase == phase_;
    };
    std::string where = m.name + "[" + std::to_string(idx) + "]";
    auto other = [&](int64_t ob, int64_t ot) {
      return "thread " + ThreadStr(ot) + (ob == block_id_ ? "" : " of another block");
    };
    if (write) {
      if (conflict(tr.w_block, tr.w_thread, tr.w_phase)) {
        Fail("data race on " + m.scope + " buffer " + where + ": thread " + ThreadStr(t) +
             " of block " + BlockStr() + " and " + other(tr.w_block, tr.w_thread) +
             " both write it between the same barriers");
      }
      if (conflict(tr.r_block, tr.r_thread, tr.r_phase)) {
        Fail("data race on " + m.scope + " buffer " + where + ": thread " + ThreadStr(t) +
             " of block " + BlockStr() + " writes it while " + other(tr.r_block, tr.r_thread) +
             " reads it between the same barriers (missing __syncthreads() after the read?)");
      }
      tr.w_block = block_id_;
      tr.w_thread = t;
      tr.w_phase = phase_;
      tr.written = true;
    } else {
      if (shared && !tr.written) {
        Fail("thread " + ThreadStr(t) + " of block " + BlockStr() + " reads shared buffer " +
             where + " before any thread wrote it");
      }
      if (conflict(tr.w_block, tr.w_thread, tr.w_phase)) {
        Fail("data race on " + m.scope + " buffer " + where + ": thread " + ThreadStr(t) +
             " of block " + BlockStr() + " reads it after " + other(tr.w_block, tr.w_thread) +
             " wrote it with no barrier between (missing __syncthreads())");
      }
      if (tr.r_thread < 0 || tr.r_phase != phase_ || tr.r_block != block_id_) {
        tr.r_block = block_id_;
        tr.r_thread = t;
        tr.r_phase = phase_;
      }
    }
  }

  char* Address(Mem& m, int64_t idx, int64_t t, bool write) {
    if (idx < 0 || idx >= m.elems) {
      std::ostringstream os;
      os << "out-of-bounds " << (write ? "write to " : "read of ") << m.name << "[" << idx
         << "] (the buffer has " << m.elems << " elements) by thread " << ThreadStr(t)
         << " of block " << BlockStr();
      Fail(os.str());
    }
    Record(m, idx, t, write);
    int64_t base = m.scope == "local" ? t * m.elems : 0;
    return m.ptr + (base + idx) * m.dtype.bytes();
  }

  // ---- expressions --------------------------------------------------------------------------
  Val Eval(const PrimExpr& e, const std::vector<char>& mask) {
    int lanes = e.dtype().lanes();
    if (auto* imm = e.as<IntImmNode>()) return Uniform(static_cast<double>(imm->value), lanes);
    if (auto* f = e.as<FloatImmNode>()) return Uniform(Round(f->value, f->dtype), lanes);
    if (auto* v = e.as<VarNode>()) {
      auto it = env_.find(v);
      if (it == env_.end()) Fail("variable " + v->name_hint.str() + " has no value");
      return it->second;
    }
    if (auto* c = e.as<CastNode>()) {
      Val a = Eval(c->value, mask);
      for (double& x : a.v) x = Round(x, c->dtype);
      return a;
    }
    if (auto* s = e.as<SelectNode>())
      return Choose(s->condition, s->true_value, s->false_value, mask, lanes);
    if (auto* r = e.as<RampNode>()) {
      Val b = Eval(r->base, mask), s = Eval(r->stride, mask), out = Uniform(0, lanes);
      for (int64_t t = 0; t < n_; ++t) {
        for (int l = 0; l < lanes; ++l) out.v[t * lanes + l] = b.v[t] + l * s.v[t];
      }
      return out;
    }
    if (auto* b = e.as<BroadcastNode>()) {
      Val a = Eval(b->value, mask), out = Uniform(0, lanes);
      for (int64_t t = 0; t < n_; ++t) {
        for (int l = 0; l < lanes; ++l) out.v[t * lanes + l] = a.v[t];
      }
      return out;
    }
    if (auto* ld = e.as<BufferLoadNode>()) {
      Mem& m = MemOf(ld->buffer->data);
      Val idx = Eval(ld->indices[0], mask), out = Uniform(0, lanes);
      for (int64_t t = 0; t < n_; ++t) {
        if (!mask[t]) continue;
        for (int l = 0; l < lanes; ++l) {
          int64_t i = static_cast<int64_t>(idx.v[t * idx.lanes + (idx.lanes > 1 ? l : 0)]);
          out.v[t * lanes + l] = ReadElem(Address(m, i, t, false), m.dtype);
        }
      }
      return out;
    }
    if (auto* call = e.as<CallNode>()) return EvalCall(call, mask, lanes);
    if (auto* n = e.as<NotNode>()) {
      Val a = Eval(n->a, mask);
      for (double& x : a.v) x = x == 0;
      return a;
    }
    return EvalBinary(e, mask, lanes);
  }

  Val Choose(const PrimExpr& c, const PrimExpr& a, const PrimExpr& b, const std::vector<char>& mask,
             int lanes) {
    Val cond = Eval(c, mask);
    std::vector<char> mt(n_), mf(n_);
    for (int64_t t = 0; t < n_; ++t) {
      mt[t] = mask[t] && cond.v[t * cond.lanes] != 0;
      mf[t] = mask[t] && cond.v[t * cond.lanes] == 0;
    }
    Val x = Eval(a, mt), y = Eval(b, mf), out = Uniform(0, lanes);
    for (int64_t t = 0; t < n_; ++t) {
      for (int l = 0; l < lanes; ++l) {
        bool take = cond.v[t * cond.lanes + (cond.lanes > 1 ? l : 0)] != 0;
        const Val& src = take ? x : y;
        out.v[t * lanes + l] = src.v[t * src.lanes + (src.lanes > 1 ? l : 0)];
      }
    }
    return out;
  }

  Val EvalCall(const CallNode* call, const std::vector<char>& mask, int lanes) {
    const std::string& name = call->op.str();
    if (name == "tir.if_then_else")
      return Choose(call->args[0], call->args[1], call->args[2], mask, lanes);
    if (name == "tir.likely" || name == "tir.assume") return Eval(call->args[0], mask);
    auto op = GetIntrinsic(name);
    const MathReferenceNode* ref = op ? GetMathReference(*op) : nullptr;
    if (!ref) Fail("the checker cannot run the call " + name);
    std::vector<Val> args;
    for (const PrimExpr& a : call->args) args.push_back(Eval(a, mask));
    Val out = Uniform(0, lanes);
    for (int64_t t = 0; t < n_; ++t) {
      for (int l = 0; l < lanes; ++l) {
        auto at = [&](size_t i) {
          return args[i].v[t * args[i].lanes + (args[i].lanes > 1 ? l : 0)];
        };
        double x = ref->unary ? ref->unary(at(0)) : ref->binary(at(0), at(1));
        out.v[t * lanes + l] = Round(x, call->dtype);
      }
    }
    return out;
  }

  template <typename T>
  static bool Operands(const PrimExpr& e, const PrimExpr** a, const PrimExpr** b) {
    auto* n = e.as<T>();
    if (n) {
      *a = &n->a;
      *b = &n->b;
    }
    return n != nullptr;
  }

  Val EvalBinary(const PrimExpr& e, const std::vector<char>& mask, int lanes) {
    const PrimExpr *pa = nullptr, *pb = nullptr;
    // The operator's code: its position in this list.
    const int kind = Operands<AddNode>(e, &pa, &pb)        ? 0
                     : Operands<SubNode>(e, &pa, &pb)      ? 1
                     : Operands<MulNode>(e, &pa, &pb)      ? 2
                     : Operands<DivNode>(e, &pa, &pb)      ? 3
                     : Operands<ModNode>(e, &pa, &pb)      ? 4
                     : Operands<FloorDivNode>(e, &pa, &pb) ? 5
                     : Operands<FloorModNode>(e, &pa, &pb) ? 6
                     : Operands<MinNode>(e, &pa, &pb)      ? 7
                     : Operands<MaxNode>(e, &pa, &pb)      ? 8
                     : Operands<EQNode>(e, &pa, &pb)       ? 9
                     : Operands<NENode>(e, &pa, &pb)       ? 10
                     : Operands<LTNode>(e, &pa, &pb)       ? 11
                     : Operands<LENode>(e, &pa, &pb)       ? 12
                     : Operands<GTNode>(e, &pa, &pb)       ? 13
                     : Operands<GENode>(e, &pa, &pb)       ? 14
                     : Operands<AndNode>(e, &pa, &pb)      ? 15
                     : Operands<OrNode>(e, &pa, &pb)       ? 16
                                                           : -1;
    if (kind < 0) Fail("the checker cannot run a " + e->GetTypeKey());
    DataType operand = pa->dtype();
    bool is_float = operand.is_float();
    Val a = Eval(*pa, mask), b = Eval(*pb, mask), out = Uniform(0, lanes);
    for (int64_t t = 0; t < n_; ++t) {
      for (int l = 0; l < lanes; ++l) {
        double x = a.v[t * a.lanes + (a.lanes > 1 ? l : 0)];
        double y = b.v[t * b.lanes + (b.lanes > 1 ? l : 0)];
        double r = 0;
        bool div = kind >= 3 && kind <= 6;
        if (div && !is_float && y == 0) {
          if (!mask[t]) continue;
          Fail("integer division by zero in thread " + ThreadStr(t) + " of block " + BlockStr());
        }
        switch (kind) {
          case 0:
            r = x + y;
            break;
          case 1:
            r = x - y;
            break;
          case 2:
            r = x * y;
            break;
          case 3:
            r = is_float ? x / y : std::trunc(x / y);
            break;
          case 4:
            r = std::fmod(x, y);
            break;
          case 5:
            r = is_float ? std::floor(x / y) : std::floor(x / y);
            break;
          case 6:
            r = x - std::floor(x / y) * y;
            break;
          case 7:
            r = std::min(x, y);
            break;
          case 8:
            r = std::max(x, y);
            break;
          case 9:
            r = x == y;
            break;
          case 10:
            r = x != y;
            break;
          case 11:
            r = x < y;
            break;
          case 12:
            r = x <= y;
            break;
          case 13:
            r = x > y;
            break;
          case 14:
            r = x >= y;
            break;
          case 15:
            r = (x != 0) && (y != 0);
            break;
          case 16:
            r = (x != 0) || (y != 0);
            break;
        }
        out.v[t * lanes + l] = Round(r, e.dtype());
      }
    }
    return out;
  }

  // ---- statements ---------------------------------------------------------------------------
  void Exec(const Stmt& s, const std::vector<char>& mask) {
    if (auto* seq = s.as<SeqStmtNode>()) {
      for (const Stmt& c : seq->seq) Exec(c, mask);
    } else if (auto* loop = s.as<ForNode>()) {
      ExecFor(loop, mask);
    } else if (auto* st = s.as<BufferStoreNode>()) {
      Mem& m = MemOf(st->buffer->data);
      Val idx = Eval(st->indices[0], mask), val = Eval(st->value, mask);
      // CodeGenCUDA stores 2 or 4 consecutive float32 lanes as one float2/float4: the address
      // must be aligned to the vector's size.
      auto* ramp = st->indices[0].as<RampNode>();
      bool vector_store = ramp && AsConstInt(ramp->stride) == std::optional<int64_t>(1) &&
                          m.dtype.is_float() && m.dtype.bits() == 32 &&
                          (val.lanes == 2 || val.lanes == 4);
      for (int64_t t = 0; t < n_; ++t) {
        if (!mask[t]) continue;
        if (vector_store && static_cast<int64_t>(idx.v[t * idx.lanes]) % val.lanes != 0) {
          Fail("misaligned float" + std::to_string(val.lanes) + " store to " + m.name + "[" +
               std::to_string(static_cast<int64_t>(idx.v[t * idx.lanes])) + "] by thread " +
               ThreadStr(t) + " of block " + BlockStr() + " (the index must be a multiple of " +
               std::to_string(val.lanes) + ")");
        }
        for (int l = 0; l < val.lanes; ++l) {
          int64_t i = static_cast<int64_t>(idx.v[t * idx.lanes + (idx.lanes > 1 ? l : 0)]);
          WriteElem(Address(m, i, t, true), m.dtype, val.v[t * val.lanes + l]);
        }
      }
    } else if (auto* ite = s.as<IfThenElseNode>()) {
      Val c = Eval(ite->condition, mask);
      std::vector<char> mt(n_), mf(n_);
      for (int64_t t = 0; t < n_; ++t) {
        mt[t] = mask[t] && c.v[t] != 0;
        mf[t] = mask[t] && c.v[t] == 0;
      }
      Exec(ite->then_case, mt);
      if (ite->else_case.defined()) Exec(ite->else_case, mf);
    } else if (auto* let = s.as<LetStmtNode>()) {
      env_[let->var.get()] = Eval(let->value, mask);
      Exec(let->body, mask);
    } else if (auto* alloc = s.as<AllocateNode>()) {
      ExecAllocate(alloc, mask);
    } else if (auto* decl = s.as<DeclBufferNode>()) {
      Exec(decl->body, mask);
    } else if (auto* attr = s.as<AttrStmtNode>()) {
      Exec(attr->body, mask);
    } else if (auto* as = s.as<AssertStmtNode>()) {
      Exec(as->body, mask);
    } else if (auto* ev = s.as<EvaluateNode>()) {
      auto* call = ev->value.as<CallNode>();
      if (call && call->op == kStorageSyncOp) {
        int64_t in = 0, out = -1, first_in = -1;
        for (int64_t t = 0; t < n_; ++t) {
          if (mask[t]) {
            ++in;
            if (first_in < 0) first_in = t;
          } else if (out < 0) {
            out = t;
          }
        }
        if (in != n_) {
          Fail("__syncthreads() in divergent code: thread " + ThreadStr(first_in) + " of block " +
               BlockStr() + " reaches it but thread " + ThreadStr(out) + " does not");
        }
        ++phase_;
        return;
      }
      if (!AsConstInt(ev->value)) Eval(ev->value, mask);
    } else {
      Fail("the checker cannot run a " + s->GetTypeKey() + " statement");
    }
  }

  void ExecFor(const ForNode* loop, const std::vector<char>& mask) {
    if (loop->kind == ForKind::kThreadBinding) {
      std::string tag = loop->thread_binding->thread_tag.str();
      int axis = tag.back() - 'x';
      bool is_block = tag.rfind("blockIdx", 0) == 0;
      Val lo = Eval(loop->min, mask), v = Uniform(0);
      for (int64_t t = 0; t < n_; ++t) {
        v.v[t] = lo.v[t] + (is_block ? bidx_[axis] : ThreadCoord(t, axis));
      }
      env_[loop->loop_var.get()] = v;
      Exec(loop->body, mask);
      return;
    }
    Val lo = Eval(loop->min, mask), ext = Eval(loop->extent, mask);
    double max_ext = 0;
    for (int64_t t = 0; t < n_; ++t) {
      if (mask[t]) max_ext = std::max(max_ext, ext.v[t]);
    }
    std::vector<char> m(n_);
    for (int64_t i = 0; i < static_cast<int64_t>(max_ext); ++i) {
      Val v = Uniform(0);
      for (int64_t t = 0; t < n_; ++t) {
        m[t] = mask[t] && i < ext.v[t];
        v.v[t] = lo.v[t] + i;
      }
      env_[loop->loop_var.get()] = v;
      Exec(loop->body, m);
    }
  }

  void ExecAllocate(const AllocateNode* alloc, const std::vector<char>& mask) {
    int64_t n = 1;
    for (const PrimExpr& e : alloc->extents) n *= static_cast<int64_t>(Eval(e, mask).v[0]);
    std::string scope = alloc->scope.str();
    auto key = alloc->buffer_var.get();
    auto existing = local_.find(key);
    if (scope == "shared" && existing != local_.end()) {
      // One shared array per block, whatever loop the declaration sits in (as in CUDA).
      Exec(alloc->body, mask);
      return;
    }
    auto storage =
        std::make_shared<std::vector<char>>((scope == "local" ? n * n_ : n) * alloc->dtype.bytes());
    storages_.push_back(storage);
    Mem m;
    m.ptr = storage->data();
    m.elems = n;
    m.dtype = alloc->dtype;
    m.name = alloc->buffer_var->name_hint.str();
    m.scope = scope;
    if (scope == "shared") {
      trackers_.push_back(std::make_shared<std::vector<Tracker>>(n));
      m.tracker = trackers_.back().get();
    }
    local_[key] = m;
    Exec(alloc->body, mask);
    if (scope != "shared") local_.erase(key);
  }

  const PrimFunc& kernel_;
  const KernelLaunch& launch_;
  std::array<int64_t, 3> bidx_;
  int64_t block_id_;
  int64_t n_ = 1;
  int64_t phase_ = 0;
  std::unordered_map<const VarNode*, Mem>& mem_;
  std::unordered_map<const VarNode*, Mem> local_;
  std::unordered_map<const VarNode*, Val> env_;
  std::vector<std::shared_ptr<std::vector<char>>> storages_;
  std::vector<std::shared_ptr<std::vector<Tracker>>> trackers_;
};

int64_t SharedBytes(const PrimFunc& kernel) {
  int64_t bytes = 0;
  PostOrderVisit(kernel->body, [&](const ObjectRef& n) {
    if (auto* a = n.as<AllocateNode>(); a && a->scope == "shared") {
      int64_t b = a->dtype.bytes();
      for (const PrimExpr& e : a->extents) b *= AsConstInt(e).value_or(0);
      bytes += b;
    }
  });
  return bytes;
}

/*! \brief Element dtype of each handle parameter, from the kernel's loads and stores. */
std::unordered_map<const VarNode*, DataType> ElementTypes(const PrimFunc& kernel) {
  std::unordered_map<const VarNode*, DataType> types;
  PostOrderVisit(kernel->body, [&](const ObjectRef& n) {
    if (auto* st = n.as<BufferStoreNode>())
      types.emplace(st->buffer->data.get(), st->buffer->dtype);
    if (auto* ld = n.as<BufferLoadNode>()) types.emplace(ld->buffer->data.get(), ld->buffer->dtype);
  });
  return types;
}

}  // namespace

/*!
 * \brief Check `mod` (scheduled or already lowered with the CUDA pipeline) on CPU arrays with
 * SIMT semantics; the arrays receive what the GPU would compute. Returns the launches run.
 */
int64_t GPUCheck(IRModule mod, const target::Target& target, const std::string& func_name,
                 runtime::PackedArgs args) {
  bool lowered = false;
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    auto* f = mod->Lookup(gv).as<PrimFuncNode>();
    lowered =
        lowered || (f && f->GetAttr<int64_t>("calling_conv").value_or(0) == kDeviceKernelLaunch);
  }
  if (!lowered) {
    auto p = driver::GetTIRPipeline(runtime::Any(String("default")), target);
    mod = p(mod);
  }
  GPULimits limits = GPULimits::FromTarget(target);
  std::map<std::string, std::vector<std::string>> tags;
  std::map<std::string, PrimFunc> kernels;
  PrimFunc host;
  std::string host_name;
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    auto* f = mod->Lookup(gv).as<PrimFuncNode>();
    if (!f) continue;
    std::string name = f->GetAttr<std::string>("global_symbol").value_or(gv->name_hint.str());
    if (f->GetAttr<int64_t>("calling_conv").value_or(0) == kDeviceKernelLaunch) {
      kernels[name] = GetRef<PrimFunc>(f);
      std::vector<std::string> t;
      if (auto a = f->GetAttr<Array<String>>(kKernelLaunchParams)) {
        for (const String& s : *a) t.push_back(s.str());
      }
      tags[name] = t;
    } else if (host_name.empty() || name == func_name || gv->name_hint.str() == func_name) {
      if (host_name != func_name) {
        host = GetRef<PrimFunc>(f);
        host_name = name;
      }
    }
  }
  if (!host.defined()) MINITVM_THROW(ValueError) << "gpu check: the module has no host function";
  int64_t launches = 0;
  std::vector<std::shared_ptr<std::vector<char>>> scratch;
  HostCallbacks cb;
  cb.alloc = [&](const std::string&, int64_t nbytes) {
    scratch.push_back(std::make_shared<std::vector<char>>(nbytes));
    return static_cast<void*>(scratch.back()->data());
  };
  cb.free = [](void*) {};
  cb.launch = [&](const KernelLaunch& l) {
    ++launches;
    const PrimFunc& k = kernels.at(l.kernel);
    int64_t threads = l.block[0] * l.block[1] * l.block[2];
    if (threads > limits.max_threads_per_block) {
      MINITVM_THROW(RuntimeError) << "gpu check: the launch of " << l.kernel << " has " << threads
                                  << " threads per block (" << l.block[0] << " x " << l.block[1]
                                  << " x " << l.block[2]
                                  << "), more than the target allows (max_threads_per_block = "
                                  << limits.max_threads_per_block << ")";
    }
    int64_t shared = SharedBytes(k);
    if (shared > limits.max_shared_memory_per_block) {
      MINITVM_THROW(RuntimeError) << "gpu check: " << l.kernel << " uses " << shared
                                  << " bytes of shared memory per block, more than the target "
                                     "allows (max_shared_memory_per_block = "
                                  << limits.max_shared_memory_per_block << ")";
    }
    if (l.grid[1] > 65535 || l.grid[2] > 65535 || l.grid[0] > 2147483647LL) {
      MINITVM_THROW(RuntimeError) << "gpu check: the grid of " << l.kernel << " is too large";
    }
    auto types = ElementTypes(k);
    std::unordered_map<const VarNode*, Mem> globals;
    std::vector<std::shared_ptr<std::vector<Tracker>>> trackers;
    for (size_t i = 0; i < k->params.size(); ++i) {
      const Var& p = k->params[i];
      if (!p.dtype().is_handle()) continue;
      const HostValue& hv = l.args[i];
      Mem m;
      m.ptr = static_cast<char*>(hv.ptr);
      m.dtype = types.count(p.get()) ? types[p.get()] : DataType::Float(32);
      m.elems = hv.nbytes / m.dtype.bytes();
      m.name = hv.name.empty() ? p->name_hint.str() : hv.name;
      m.scope = "global";
      trackers.push_back(std::make_shared<std::vector<Tracker>>(m.elems));
      m.tracker = trackers.back().get();
      globals[p.get()] = m;
    }
    int64_t id = 0;
    for (int64_t z = 0; z < l.grid[2]; ++z) {
      for (int64_t y = 0; y < l.grid[1]; ++y) {
        for (int64_t x = 0; x < l.grid[0]; ++x) {
          SIMTBlock(k, l, {x, y, z}, id++, &globals).Run();
        }
      }
    }
  };
  RunHostFunction(host, host_name, args, runtime::Device{kDLCPU, 0}, tags, cb);
  return launches;
}

// gpu_check.Check(mod_or_func, target, func_name, *arrays) -> number of kernel launches.
MINITVM_REGISTER_GLOBAL("gpu_check.Check").set_body([](runtime::PackedArgs args, runtime::Any* rv) {
  if (args.size() < 3) {
    MINITVM_THROW(TypeError) << "gpu_check.Check expects (mod, target, func_name, *arrays)";
  }
  ObjectRef m = args[0].cast<ObjectRef>();
  IRModule mod;
  if (auto* f = m.as<PrimFuncNode>()) {
    mod = IRModule::FromNamed({{"main", GetRef<PrimFunc>(f)}});
  } else {
    mod = Downcast<IRModule>(m);
  }
  target::Target t = args[1].is_null()     ? target::Target("cuda")
                     : args[1].is_string() ? target::Target(args[1].cast<std::string>())
                                           : args[1].cast<target::Target>();
  std::string name = args[2].is_null() ? "main" : args[2].cast<std::string>();
  *rv = GPUCheck(mod, t, name, runtime::PackedArgs(args.data() + 3, args.size() - 3));
});

}  // namespace codegen
}  // namespace minitvm

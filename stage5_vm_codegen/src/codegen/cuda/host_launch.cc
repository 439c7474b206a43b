/*!
 * \file host_launch.cc
 * \brief The host walker of lowered GPU modules (stage 5); see host_launch.h.
 */
#include "host_launch.h"

#include <sstream>
#include <unordered_map>

#include "minitvm/arith/analyzer.h"
#include "minitvm/tir/stmt_functor.h"
#include "minitvm/tir/transform/gpu.h"

namespace minitvm {
namespace codegen {

using namespace tir;  // NOLINT

namespace {

class HostWalker {
 public:
  HostWalker(std::string name, const std::map<std::string, std::vector<std::string>>& tags,
             const HostCallbacks& cb)
      : name_(std::move(name)), tags_(tags), cb_(cb) {}

  void Bind(const PrimFunc& f, runtime::PackedArgs args, runtime::Device device) {
    if (args.size() != static_cast<int>(f->params.size())) {
      MINITVM_THROW(TypeError) << name_ << ": expected " << f->params.size()
                               << " arguments but got " << args.size();
    }
    for (size_t i = 0; i < f->params.size(); ++i) {
      const Var& p = f->params[i];
      const runtime::Any& a = args[static_cast<int>(i)];
      auto buf = f->buffer_map.Get(p);
      if (!buf) {
        HostValue v;
        if (a.is_float()) {
          v.is_float = true;
          v.f = a.raw_float();
        } else if (a.is_int() || a.is_bool()) {
          v.i = a.raw_int();
        } else {
          MINITVM_THROW(TypeError) << name_ << ": argument " << p->name_hint
                                   << " must be a number, not " << a.type_name();
        }
        values_[p.get()] = v;
        continue;
      }
      const Buffer& b = *buf;
      auto* arr = a.as<runtime::NDArrayNode>();
      if (!arr) {
        MINITVM_THROW(TypeError) << name_ << ": argument " << b->name << " must be an NDArray, not "
                                 << a.type_name();
      }
      runtime::NDArray nd = runtime::GetRef<runtime::NDArray>(arr);
      if (nd.device() != device) {
        MINITVM_THROW(ValueError) << name_ << ": argument " << b->name << " is on " << nd.device()
                                  << " but the kernels run on " << device;
      }
      if (nd.dtype() != b->dtype) {
        MINITVM_THROW(ValueError) << name_ << ": argument " << b->name << " has dtype "
                                  << nd.dtype() << " but the function expects " << b->dtype;
      }
      if (nd.ndim() != static_cast<int>(b->shape.size())) {
        MINITVM_THROW(ValueError) << name_ << ": argument " << b->name << " has " << nd.ndim()
                                  << " dimensions but the function expects " << b->shape.size();
      }
      for (size_t d = 0; d < b->shape.size(); ++d) {
        int64_t have = nd.Shape()[d];
        if (auto* v = b->shape[d].as<VarNode>()) {
          auto it = values_.find(v);
          if (it == values_.end()) {
            HostValue s;
            s.i = have;
            values_[v] = s;
            continue;
          }
          if (it->second.i == have) continue;
        } else if (AsConstInt(b->shape[d]) == std::optional<int64_t>(have)) {
          continue;
        }
        MINITVM_THROW(ValueError) << name_ << ": argument " << b->name << " has shape "
                                  << runtime::ShapeToString(nd.Shape()) << " but dimension " << d
                                  << " must be " << Eval(b->shape[d]).i;
      }
      if (!nd.IsContiguous()) {
        MINITVM_THROW(ValueError) << name_ << ": argument " << b->name << " must be contiguous";
      }
      HostValue h;
      h.is_handle = true;
      h.ptr = nd.data();
      h.nbytes = static_cast<int64_t>(nd.NBytes());
      h.name = b->name.str();
      values_[b->data.get()] = h;
      values_[p.get()] = h;
    }
  }

  void Run(const Stmt& s) {
    if (auto* seq = s.as<SeqStmtNode>()) {
      for (const Stmt& c : seq->seq) Run(c);
    } else if (auto* let = s.as<LetStmtNode>()) {
      values_[let->var.get()] = Eval(let->value);
      Run(let->body);
    } else if (auto* decl = s.as<DeclBufferNode>()) {
      Run(decl->body);
    } else if (auto* attr = s.as<AttrStmtNode>()) {
      Run(attr->body);
    } else if (auto* as = s.as<AssertStmtNode>()) {
      if (Eval(as->condition).i == 0) {
        auto* msg = as->message.as<StringImmNode>();
        MINITVM_THROW(RuntimeError) << name_ << ": " << (msg ? msg->value.str() : "assertion");
      }
      Run(as->body);
    } else if (auto* alloc = s.as<AllocateNode>()) {
      int64_t n = alloc->dtype.bytes();
      for (const PrimExpr& e : alloc->extents) n *= Eval(e).i;
      HostValue h;
      h.is_handle = true;
      h.nbytes = n;
      h.name = alloc->buffer_var->name_hint.str();
      h.ptr = cb_.alloc(h.name, n);
      values_[alloc->buffer_var.get()] = h;
      try {
        Run(alloc->body);
      } catch (...) {
        cb_.free(h.ptr);
        throw;
      }
      cb_.free(h.ptr);
    } else if (auto* loop = s.as<ForNode>()) {
      int64_t lo = Eval(loop->min).i, n = Eval(loop->extent).i;
      for (int64_t i = lo; i < lo + n; ++i) {
        HostValue v;
        v.i = i;
        values_[loop->loop_var.get()] = v;
        Run(loop->body);
      }
    } else if (auto* ite = s.as<IfThenElseNode>()) {
      if (Eval(ite->condition).i != 0) {
        Run(ite->then_case);
      } else if (ite->else_case.defined()) {
        Run(ite->else_case);
      }
    } else if (auto* ev = s.as<EvaluateNode>()) {
      auto* call = ev->value.as<CallNode>();
      if (!call) return;
      if (call->op != kCallPackedOp) {
        MINITVM_THROW(ValueError) << name_ << ": the host cannot run the call " << call->op;
      }
      Launch(call);
    } else {
      MINITVM_THROW(ValueError) << name_ << ": the host cannot run a " << s->GetTypeKey()
                                << " statement (only launches, allocations and loops)";
    }
  }

 private:
  void Launch(const CallNode* call) {
    KernelLaunch l;
    l.kernel = call->args[0].as<StringImmNode>()->value.str();
    auto it = tags_.find(l.kernel);
    if (it == tags_.end()) MINITVM_THROW(ValueError) << name_ << ": unknown kernel " << l.kernel;
    const std::vector<std::string>& tags = it->second;
    size_t nargs = call->args.size() - 1 - tags.size();
    for (size_t i = 0; i < nargs; ++i) l.args.push_back(Eval(call->args[i + 1]));
    for (size_t t = 0; t < tags.size(); ++t) {
      int64_t extent = Eval(call->args[1 + nargs + t]).i;
      const std::string& tag = tags[t];
      int axis = tag.back() - 'x';
      (tag.rfind("blockIdx", 0) == 0 ? l.grid : l.block)[axis] = extent;
    }
    cb_.launch(l);
  }

  HostValue Eval(const PrimExpr& e) {
    if (auto* v = e.as<VarNode>()) {
      auto it = values_.find(v);
      if (it == values_.end()) {
        MINITVM_THROW(InternalError)
            << name_ << ": host variable " << v->name_hint << " has no value";
      }
      return it->second;
    }
    PrimExpr bound = Substitute(e, [&](const Var& v) -> PrimExpr {
      auto it = values_.find(v.get());
      if (it == values_.end() || it->second.is_handle) return PrimExpr();
      if (it->second.is_float) return FloatImm(v.dtype(), it->second.f);
      return IntImm(v.dtype(), it->second.i);
    });
    arith::Analyzer analyzer;
    PrimExpr r = analyzer.Simplify(bound);
    HostValue out;
    if (auto i = AsConstInt(r)) {
      out.i = *i;
    } else if (auto* f = r.as<FloatImmNode>()) {
      out.is_float = true;
      out.f = f->value;
    } else {
      MINITVM_THROW(ValueError) << name_ << ": cannot evaluate a host expression of type "
                                << r->GetTypeKey();
    }
    return out;
  }

  std::string name_;
  const std::map<std::string, std::vector<std::string>>& tags_;
  const HostCallbacks& cb_;
  std::unordered_map<const VarNode*, HostValue> values_;
};

}  // namespace

void RunHostFunction(const PrimFunc& host, const std::string& name, runtime::PackedArgs args,
                     runtime::Device device,
                     const std::map<std::string, std::vector<std::string>>& launch_tags,
                     const HostCallbacks& callbacks) {
  HostWalker walker(name, launch_tags, callbacks);
  walker.Bind(host, args, device);
  walker.Run(host->body);
}

}  // namespace codegen
}  // namespace minitvm

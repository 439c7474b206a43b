/*!
 * \file tir_parser_stmt.cc
 * \brief TVMScript parser, part 3 (stage 2): statements, blocks, PrimFuncs, IRModules, and the
 * entry points (`FromSource`, registered as "script.FromSource").
 *
 * A statement that scopes over what follows it — `x: T.int32 = v`, `A = T.decl_buffer(...)`,
 * `T.attr(...)`, `assert c, "msg"` — takes the rest of its statement list as its body, which is
 * how the printer's concise form reads back. Blocks collect their header (`T.axis.*`,
 * `T.where`, `T.reads`, `T.writes`, `T.alloc_buffer`, `T.match_buffer`, `with T.init():`)
 * and get their read/write regions inferred when the script leaves them out.
 *
 * Functions with a decorator a later stage registered (`@R.function`, parser_ext.h) are handed
 * to that stage's parser; a module declares all its GlobalVars before parsing any function.
 */
#include <algorithm>
#include <iostream>

#include "minitvm/runtime/registry.h"
#include "minitvm/script/ast.h"
#include "minitvm/script/tir_parser.h"
#include "minitvm/tir/allocate_const.h"
#include "minitvm/tir/block_access.h"
#include "minitvm/tir/op.h"
#include "minitvm/tir/stmt_functor.h"
#include "tir_parser_impl.h"
#include "tir_utils.h"

namespace minitvm {
namespace script {
namespace tir_parser {

using namespace ::minitvm::tir;  // NOLINT(build/namespaces)
using ast::Expr;
using SK = ast::Stmt::Kind;
using VK = Value::Kind;

namespace {
Value ExprValue(PrimExpr e, const Span& span) {
  Value v;
  v.kind = VK::kExpr;
  v.expr = std::move(e);
  v.span = span;
  return v;
}

bool ContainsBlockRealize(const Stmt& stmt) {
  bool found = false;
  PostOrderVisit(stmt, [&](const ObjectRef& n) { found = found || n.as<BlockRealizeNode>(); });
  return found;
}

/*! \brief Pushes a name scope and a frame for its lifetime. */
class ScopeFrame {
 public:
  ScopeFrame(Evaluator* e, std::vector<BlockBuilder*>* frames, BlockBuilder* block)
      : e_(e), frames_(frames) {
    e_->PushScope();
    frames_->push_back(block);
  }
  ~ScopeFrame() {
    frames_->pop_back();
    e_->PopScope();
  }
  ScopeFrame(const ScopeFrame&) = delete;

 private:
  Evaluator* e_;
  std::vector<BlockBuilder*>* frames_;
};
}  // namespace

BlockBuilder* Evaluator::CurrentBlock(const Span& span, const char* what) {
  if (frames_.empty() || frames_.back() == nullptr) {
    Error(span, std::string(what) + " is only allowed directly inside a `with T.block(...):`");
  }
  return frames_.back();
}

Buffer Evaluator::MakeBuffer(const BufferSpec& spec, const std::string& name) const {
  Var data = spec.data.defined() ? spec.data : Var(name, DataType::Handle());
  PrimExpr offset = spec.elem_offset;  // undefined: the Buffer default
  return Buffer(data, spec.dtype, spec.shape, spec.strides, offset, name, spec.scope, spec.align,
                spec.offset_factor);
}

// ---- statement lists --------------------------------------------------------------------

Stmt Evaluator::ParseStmts(const std::vector<ast::StmtPtr>& stmts, size_t begin) {
  DepthGuard guard(this, begin < stmts.size() ? stmts[begin]->span : Span());
  Array<Stmt> seq;
  for (size_t i = begin; i < stmts.size(); ++i) {
    const ast::Stmt& s = *stmts[i];
    current_span_ = s.span;
    bool consumed = false;
    Stmt out;
    switch (s.kind) {
      case SK::kPass:
        break;
      case SK::kExpr: {
        if (s.value->kind == Expr::Kind::kConstant &&
            s.value->const_kind == Expr::ConstKind::kStr) {
          break;  // a docstring
        }
        Value v = Eval(*s.value);
        switch (v.kind) {
          case VK::kNone:
            break;
          case VK::kExpr:
            out = Evaluate(v.expr);
            break;
          case VK::kStmt:
            out = v.stmt;
            break;
          case VK::kScope:
            out = Declare("", v, s.span, &stmts, i + 1, nullptr, &consumed);
            break;
          case VK::kBufferDecl:
          case VK::kAxis:
          case VK::kVarDecl:
          case VK::kEnvThread:
            Error(s.span, "the result of this call must be assigned to a name");
          default:
            Error(s.span, "this expression statement has no effect (" + v.TypeName() + ")");
        }
        break;
      }
      case SK::kAssign:
        out = ParseAssign(s, stmts, i + 1, &consumed);
        break;
      case SK::kAnnAssign: {
        const Expr& target = *s.targets[0];
        if (target.kind != Expr::Kind::kName) {
          Error(target.span, "an annotated assignment needs a plain name on the left");
        }
        Value ann = Eval(*s.annotation);
        if (!s.value) Error(s.span, "an annotated variable needs a value: x: T.int32 = ...");
        Value v = Eval(*s.value);
        if (ann.kind == VK::kVarDecl) {
          // `a: T.handle("int32") = ...` (a typed pointer, as TVM prints it): the variable is a
          // handle; minitvm's variables keep no pointee type.
          ann.kind = VK::kDType;
        }
        if (ann.kind != VK::kDType) {
          Error(s.annotation->span, "expected a type such as T.int32, got " + ann.TypeName());
        }
        Value let;
        let.kind = VK::kScope;
        let.span = s.span;
        let.scope = std::make_shared<ScopeSpec>();
        let.scope->kind = ScopeSpec::Kind::kLet;
        let.scope->dtype = ann.dtype;
        let.scope->value =
            v.IsNumber() ? ConstOf(v, ann.dtype, s.value->span) : AsExpr(v, s.value->span);
        if (let.scope->value.dtype() != ann.dtype) {
          Error(s.value->span, "dtype mismatch: " + target.id + " is declared " +
                                   runtime::DataTypeToString(ann.dtype) + " but the value is " +
                                   runtime::DataTypeToString(let.scope->value.dtype()));
        }
        out = Declare(target.id, let, s.span, &stmts, i + 1, nullptr, &consumed);
        break;
      }
      case SK::kAugAssign: {
        const Expr& target = *s.targets[0];
        Value current = Eval(target);
        Value v = BinaryOp(s.op, current, Eval(*s.value), s.span);
        if (target.kind == Expr::Kind::kSubscript) {
          out = StoreTo(target, v, s.span);
        } else if (target.kind == Expr::Kind::kName) {
          out = Declare(target.id, v, s.span, &stmts, i + 1, nullptr, &consumed);
        } else {
          Error(target.span, "unsupported target of an augmented assignment");
        }
        break;
      }
      case SK::kFor:
        out = ParseFor(s);
        break;
      case SK::kWhile: {
        PrimExpr cond = EvalExpr(*s.value);
        if (!cond.dtype().is_bool()) {
          Error(s.value->span, "dtype mismatch: a while condition must be bool, got " +
                                   runtime::DataTypeToString(cond.dtype()));
        }
        ScopeFrame frame(this, &frames_, nullptr);
        out = While(cond, ParseStmts(s.body));
        break;
      }
      case SK::kIf: {
        Value cond = Eval(*s.value);
        if (cond.kind == VK::kExpr && !AsConstInt(cond.expr)) {
          if (!cond.expr.dtype().is_bool()) {
            Error(s.value->span, "dtype mismatch: an if condition must be bool, got " +
                                     runtime::DataTypeToString(cond.expr.dtype()));
          }
          Stmt then_case, else_case;
          {
            ScopeFrame frame(this, &frames_, nullptr);
            then_case = ParseStmts(s.body);
          }
          if (!s.orelse.empty()) {
            ScopeFrame frame(this, &frames_, nullptr);
            else_case = ParseStmts(s.orelse);
          }
          out = IfThenElse(cond.expr, then_case, else_case);
        } else {
          // A Python condition is decided while parsing, as TVMScript does.
          const auto& branch = Truthy(cond, s.value->span) ? s.body : s.orelse;
          ScopeFrame frame(this, &frames_, frames_.empty() ? nullptr : frames_.back());
          Stmt body = ParseStmts(branch);
          auto* seq = body.as<SeqStmtNode>();
          if (!(seq && seq->seq.empty())) out = body;
        }
        break;
      }
      case SK::kWith:
        out = ParseWith(s, stmts, i + 1, &consumed);
        break;
      case SK::kAssert: {
        Value cond = Eval(*s.value);
        PrimExpr c = AsExpr(cond, s.value->span);
        Value let;
        let.kind = VK::kScope;
        let.span = s.span;
        let.scope = std::make_shared<ScopeSpec>();
        let.scope->kind = ScopeSpec::Kind::kAssert;
        let.scope->value = c;
        if (s.annotation) {
          Value m = Eval(*s.annotation);
          let.scope->message =
              m.kind == VK::kStr ? StringImm(m.str) : AsExpr(m, s.annotation->span);
        } else {
          let.scope->message = StringImm("");
        }
        out = Declare("", let, s.span, &stmts, i + 1, nullptr, &consumed);
        break;
      }
      case SK::kReturn:
        Error(s.span, "unsupported Python construct: return in a T.prim_func");
      case SK::kBreak:
      case SK::kContinue:
        Error(s.span, "unsupported Python construct: break/continue in TensorIR");
      case SK::kFunctionDef:
      case SK::kClassDef:
        Error(s.span, "unsupported Python construct: a nested function or class");
      case SK::kImport:
        Error(s.span, "unsupported Python construct: import inside a function");
    }
    if (out.defined()) seq.push_back(out);
    if (consumed) break;
  }
  return SeqStmt::Flatten(seq);
}

// ---- declarations -----------------------------------------------------------------------

void Evaluator::DeclareAxis(const std::string& name, const Value& axis, const Span& span) {
  BlockBuilder* b = CurrentBlock(span, "a block iterator (T.axis.*)");
  int bits = 32;
  for (const PrimExpr& e : {axis.axis_dom->min, axis.axis_dom->extent}) {
    bits = std::max(bits, e.dtype().bits());
  }
  DataType t = axis.dtype.is_int() ? axis.dtype : DataType::Int(bits);
  Var var(name, t);
  b->iter_vars.push_back(IterVar(axis.axis_dom, var, axis.axis_type));
  if (!b->no_realize) {
    if (!axis.axis_binding.defined()) {
      Error(span, "block iterator " + name + " needs a binding, e.g. T.axis.spatial(8, i)");
    }
    b->iter_values.push_back(axis.axis_binding);
  }
  Bind(name, ExprValue(var, span));
}

Stmt Evaluator::Declare(const std::string& name, const Value& v, const Span& span,
                        const std::vector<ast::StmtPtr>* rest, size_t rest_begin,
                        const std::vector<ast::StmtPtr>* with_body, bool* consumed) {
  // The body of a scoped statement: the `with` block, or the rest of the enclosing list.
  auto body = [&]() -> Stmt {
    if (with_body) {
      frames_.push_back(nullptr);
      Stmt s;
      try {
        s = ParseStmts(*with_body);
      } catch (...) {
        frames_.pop_back();
        throw;
      }
      frames_.pop_back();
      return s;
    }
    if (consumed) *consumed = true;
    if (!rest) return SeqStmt(Array<Stmt>());
    return ParseStmts(*rest, rest_begin);
  };
  if (v.meta) {
    // x = T.meta_var(value): the name stands for the value itself, no variable is bound.
    Value m = v;
    m.meta = false;
    Bind(name, m);
    return Stmt();
  }
  switch (v.kind) {
    case VK::kAxis:
      DeclareAxis(name, v, span);
      return Stmt();
    case VK::kBufferDecl: {
      Buffer buffer;
      try {
        buffer = MakeBuffer(*v.buffer_spec, name);
      } catch (const minitvm::Error& e) {
        Error(span, e.what());
      }
      if (v.method == "Buffer") {
        Bind(name, [&] {
          Value b = v;
          b.kind = VK::kBuffer;
          b.buffer = buffer;
          return b;
        }());
        return Stmt();
      }
      Value bound;
      bound.kind = VK::kBuffer;
      bound.buffer = buffer;
      bound.span = span;
      if (v.method == "alloc_buffer") {
        if (frames_.empty() && func_) {
          func_->root_allocs.push_back(buffer);
        } else {
          CurrentBlock(span, "T.alloc_buffer")->alloc_buffers.push_back(buffer);
        }
        Bind(name, bound);
        return Stmt();
      }
      if (v.method == "match_buffer") {
        if (v.match_param.defined()) {
          if (!func_ || !frames_.empty()) {
            Error(span, "T.match_buffer of a parameter belongs at the top of the function body");
          }
          bool is_param = false;
          for (const Var& p : func_->params) is_param = is_param || p.same_as(v.match_param);
          if (!is_param) {
            Error(span, v.match_param->name_hint.str() + " is not a parameter of " + func_->name);
          }
          if (func_->buffer_map.count(v.match_param)) {
            Error(span,
                  "parameter " + v.match_param->name_hint.str() + " is already bound to a buffer");
          }
          func_->buffer_map.Set(v.match_param, buffer);
        } else {
          CurrentBlock(span, "T.match_buffer of a region")
              ->match_buffers.push_back(MatchBufferRegion(buffer, v.match_region));
        }
        Bind(name, bound);
        return Stmt();
      }
      // decl_buffer: over given memory, or with its own allocation.
      PushScope();
      Bind(name, bound);
      Stmt b;
      try {
        b = body();
      } catch (...) {
        PopScope();
        throw;
      }
      PopScope();
      Stmt decl = DeclBuffer(buffer, b);
      if (v.buffer_spec->data.defined()) return decl;
      return Allocate(buffer->data, buffer->dtype, buffer->shape, PrimExpr(), decl, buffer->scope);
    }
    case VK::kVarDecl: {
      Var var = v.size_var ? SizeVar(name, v.dtype) : Var(name, v.dtype);
      Bind(name, ExprValue(var, span));
      return Stmt();
    }
    case VK::kEnvThread: {
      Value iv;
      iv.kind = VK::kIterVar;
      iv.span = span;
      iv.iter_var = IterVar(Range(), Var(name, DataType::Int(32)), kThreadIndex, v.str);
      Bind(name, iv);
      return Stmt();
    }
    case VK::kScope:
      return BuildScope(*v.scope, name, span, body);
    case VK::kExpr:
    case VK::kInt:
    case VK::kFloat:
    case VK::kBool: {
      // `x = expr` binds a new variable for the rest of the body (a LetStmt), as in TVM.
      if (name.empty()) return Stmt();
      ScopeSpec let;
      let.kind = ScopeSpec::Kind::kLet;
      let.value = AsExpr(v, span);
      let.dtype = let.value.dtype();
      return BuildScope(let, name, span, body);
    }
    case VK::kIterVar:
    case VK::kBuffer:
    case VK::kRegion:
    case VK::kStr:
    case VK::kTuple:
    case VK::kList:
    case VK::kDict:
    case VK::kNone:
    case VK::kDType:
      Bind(name, v);
      return Stmt();
    default:
      Error(span, "cannot assign " + v.TypeName() + " to a name");
  }
}

Stmt Evaluator::BuildScope(const ScopeSpec& spec, const std::string& name, const Span& span,
                           const std::function<Stmt()>& body_fn) {
  PushScope();
  struct Pop {
    Evaluator* e;
    ~Pop() { e->PopScope(); }
  } pop{this};
  auto guarded = [&](const std::function<Stmt()>& build) -> Stmt {
    try {
      return build();
    } catch (const minitvm::Error& e) {
      if (e.kind() == "ParseError") throw;
      Error(span, e.what());
    }
  };
  switch (spec.kind) {
    case ScopeSpec::Kind::kLet: {
      Var var = spec.var.defined() ? spec.var : Var(name.empty() ? "v" : name, spec.dtype);
      if (!name.empty()) Bind(name, ExprValue(var, span));
      PrimExpr value = spec.value;
      if (value.dtype() != var.dtype()) {
        Error(span, "dtype mismatch: " + var->name_hint.str() + " is " +
                        runtime::DataTypeToString(var.dtype()) + " but the value is " +
                        runtime::DataTypeToString(value.dtype()));
      }
      Stmt body = body_fn();
      return guarded([&] { return LetStmt(var, value, body); });
    }
    case ScopeSpec::Kind::kAllocate: {
      Var var(name.empty() ? "buf" : name, DataType::Handle());
      if (!name.empty()) Bind(name, ExprValue(var, span));
      Stmt body = body_fn();
      return guarded([&] {
        if (!spec.const_data.empty()) {
          return MakeAllocateConst(var, spec.dtype, spec.extents, spec.const_data, body,
                                   spec.annotations);
        }
        return Allocate(var, spec.dtype, spec.extents, spec.condition, body, spec.scope,
                        spec.annotations);
      });
    }
    case ScopeSpec::Kind::kAttr: {
      Stmt body = body_fn();
      return guarded([&] { return AttrStmt(spec.node, spec.key, spec.value, body); });
    }
    case ScopeSpec::Kind::kLaunchThread: {
      IterVar iv = spec.iter_var;
      if (!iv.defined()) {
        std::string var_name = name.empty() ? spec.key : name;
        iv = IterVar(Range(make_zero(spec.value.dtype()), spec.value),
                     Var(var_name, spec.value.dtype()), kThreadIndex, spec.key);
      } else if (!iv->dom.defined()) {
        iv = IterVar(Range(make_zero(spec.value.dtype()), spec.value), iv->var, kThreadIndex,
                     iv->thread_tag);
      }
      if (!name.empty()) Bind(name, ExprValue(iv->var, span));
      launched_[iv->var.get()] = iv;
      std::string key = spec.key.rfind("vthread", 0) == 0 ? "virtual_thread" : "thread_extent";
      Stmt body = body_fn();
      return guarded([&] { return AttrStmt(iv, key, spec.value, body); });
    }
    case ScopeSpec::Kind::kRealize: {
      // TVM's RealizeFrame: AttrStmt(buffer, "realize_scope", scope, BufferRealize(...)); the
      // BufferRealize is an AttrStmt "buffer_realize" on the region here (tir/stmt.h note).
      Stmt body = body_fn();
      return guarded([&] {
        return AttrStmt(spec.region->buffer, "realize_scope", StringImm(spec.key),
                        AttrStmt(spec.region, kBufferRealizeAttr, spec.condition, body));
      });
    }
    case ScopeSpec::Kind::kAssert: {
      Stmt body = body_fn();
      return guarded([&] { return AssertStmt(spec.value, spec.message, body); });
    }
    case ScopeSpec::Kind::kDeclBuffer:
      break;
  }
  Error(span, "unsupported scoped statement");
}

Stmt Evaluator::ParseAssign(const ast::Stmt& s, const std::vector<ast::StmtPtr>& rest,
                            size_t rest_begin, bool* consumed) {
  if (s.targets.size() != 1) Error(s.span, "unsupported Python construct: chained assignment");
  const Expr& target = *s.targets[0];
  if (target.kind == Expr::Kind::kSubscript) return StoreTo(target, Eval(*s.value), s.span);
  Value v = Eval(*s.value);
  if (target.kind == Expr::Kind::kName) {
    return Declare(target.id, v, s.value->span, &rest, rest_begin, nullptr, consumed);
  }
  if (target.kind == Expr::Kind::kTuple || target.kind == Expr::Kind::kList) {
    if (v.kind != VK::kTuple && v.kind != VK::kList) {
      Error(s.value->span, "cannot unpack " + v.TypeName() + " into " +
                               std::to_string(target.children.size()) + " names");
    }
    if (v.items.size() != target.children.size()) {
      Error(s.span, "cannot unpack " + std::to_string(v.items.size()) + " values into " +
                        std::to_string(target.children.size()) + " names");
    }
    for (size_t i = 0; i < v.items.size(); ++i) {
      const Expr& t = *target.children[i];
      if (t.kind != Expr::Kind::kName) Error(t.span, "expected a name");
      if (v.meta) {
        Bind(t.id, v.items[i]);
        continue;
      }
      VK k = v.items[i].kind;
      if (k == VK::kExpr || k == VK::kScope || k == VK::kInt || k == VK::kFloat || k == VK::kBool ||
          (k == VK::kBufferDecl && v.items[i].method == "decl_buffer")) {
        Error(t.span, "assign this value on its own line (it starts a new scope)");
      }
      Declare(t.id, v.items[i], t.span, nullptr, 0, nullptr, nullptr);
    }
    return Stmt();
  }
  Error(target.span, "cannot assign to this expression");
}

Stmt Evaluator::StoreTo(const Expr& target, const Value& value, const Span& span) {
  Value base = Eval(*target.children[0]);
  if (base.kind != VK::kBuffer) {
    Error(target.children[0]->span,
          "only buffer elements can be assigned (A[i] = ...), not " + base.TypeName());
  }
  const Buffer& buffer = base.buffer;
  const Expr& index = *target.children[1];
  std::vector<Value> items;
  if (index.kind == Expr::Kind::kTuple) {
    for (const ast::ExprPtr& c : index.children) items.push_back(Eval(*c));
  } else {
    items.push_back(Eval(index));
  }
  bool any_slice = false;
  for (const Value& v : items) any_slice = any_slice || v.kind == VK::kSlice;
  Array<PrimExpr> indices;
  if (any_slice) {
    if (items.size() != buffer->shape.size()) {
      Error(target.span,
            "buffer " + buffer->name.str() + " has " + std::to_string(buffer->shape.size()) +
                " dimensions but is indexed with " + std::to_string(items.size()) + " indices");
    }
    indices = SliceIndices(buffer, items);
  } else {
    Value load = Subscript(base, index, target.span);
    if (load.kind != VK::kExpr || !load.expr.as<BufferLoadNode>()) {
      Error(target.span, "cannot store into " + load.TypeName());
    }
    indices = load.expr.as<BufferLoadNode>()->indices;
  }
  return MakeStore(buffer, value, indices, PrimExpr(), span);
}

Stmt Evaluator::MakeStore(const Buffer& buffer, const Value& value, const Array<PrimExpr>& indices,
                          const PrimExpr& predicate, const Span& span) {
  const Span& vspan = value.span.defined() ? value.span : span;
  int index_lanes = indices.empty() ? 1 : indices.back().dtype().lanes();
  DataType lhs = buffer->dtype.with_lanes(buffer->dtype.lanes() * index_lanes);
  PrimExpr v = value.IsNumber() ? ConstOf(value, buffer->dtype, vspan) : AsExpr(value, vspan);
  if (v.dtype() != lhs) {
    if (v.dtype().lanes() != lhs.lanes()) {
      Error(span, "dtype mismatch: storing a " + runtime::DataTypeToString(v.dtype()) +
                      " value into buffer " + buffer->name.str() + " of dtype " +
                      runtime::DataTypeToString(buffer->dtype) + " needs " +
                      runtime::DataTypeToString(lhs) +
                      " (indexing lanes: " + std::to_string(index_lanes) + ")");
    }
    DataType r = v.dtype();
    if (lhs.is_handle() || r.is_handle() ||
        ((lhs.is_int() || lhs.is_uint()) && (r.is_float() || r.is_bfloat16()))) {
      std::cerr << "warning: casting a " << r << " value to " << lhs << " to store it into buffer "
                << buffer->name << " may lose precision (" << src_.file_name() << ":"
                << span.line + src_.line_offset() << ")\n";
    }
    try {
      v = cast(lhs, v);
    } catch (const minitvm::Error& e) {
      Error(vspan, e.what());
    }
  }
  try {
    return BufferStore(buffer, v, indices);
  } catch (const minitvm::Error& e) {
    std::string msg = e.what();
    Error(span, (msg.find("dtype") != std::string::npos ? "dtype mismatch: " : "") + msg);
  }
  (void)predicate;
}

// ---- loops, with, blocks ----------------------------------------------------------------

Stmt Evaluator::ParseFor(const ast::Stmt& s) {
  Value it = Eval(*s.value);
  if (it.kind != VK::kLoop) {
    Error(s.value->span,
          "a for loop iterates over range(...), T.serial(...), T.grid(...), "
          "T.parallel(...), ...; got " +
              it.TypeName());
  }
  const Expr& target = *s.targets[0];
  std::vector<const Expr*> names;
  if (target.kind == Expr::Kind::kTuple || target.kind == Expr::Kind::kList) {
    for (const ast::ExprPtr& c : target.children) names.push_back(c.get());
  } else {
    names.push_back(&target);
  }
  const LoopSpec& loop = *it.loop;
  if (names.size() != loop.ranges.size()) {
    Error(target.span, std::to_string(loop.ranges.size()) + " loops but " +
                           std::to_string(names.size()) + " loop variables");
  }
  ScopeFrame frame(this, &frames_, nullptr);
  std::vector<Var> vars;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i]->kind != Expr::Kind::kName)
      Error(names[i]->span, "a loop variable must be a name");
    Var v(names[i]->id, loop.ranges[i].second.dtype());
    vars.push_back(v);
    Bind(names[i]->id, ExprValue(v, names[i]->span));
    loops_.emplace_back(v, loop.ranges[i].first, loop.ranges[i].second);
  }
  Stmt body;
  try {
    body = ParseStmts(s.body);
  } catch (...) {
    loops_.resize(loops_.size() - vars.size());
    throw;
  }
  loops_.resize(loops_.size() - vars.size());
  try {
    for (size_t k = vars.size(); k-- > 0;) {
      IterVar binding;
      if (loop.kind == ForKind::kThreadBinding) {
        binding = IterVar(Range(), Var(loop.thread, vars[k].dtype()), kThreadIndex, loop.thread);
      }
      body = For(vars[k], loop.ranges[k].first, loop.ranges[k].second, loop.kind, body, binding,
                 loop.annotations);
    }
  } catch (const minitvm::Error& e) {
    Error(s.span, e.what());
  }
  return body;
}

Stmt Evaluator::ParseWith(const ast::Stmt& s, const std::vector<ast::StmtPtr>& rest,
                          size_t rest_begin, bool* consumed) {
  (void)rest;
  (void)rest_begin;
  (void)consumed;
  if (s.items.size() != 1) Error(s.span, "a with statement takes one context at a time here");
  const ast::WithItem& item = s.items[0];
  Value ctx = Eval(*item.context);
  std::string name;
  if (item.target) {
    if (item.target->kind != Expr::Kind::kName) Error(item.target->span, "expected a name");
    name = item.target->id;
  }
  switch (ctx.kind) {
    case VK::kBlock:
      if (item.target) Error(item.target->span, "T.block(...) takes no 'as' name");
      return ParseBlock(ctx, s);
    case VK::kInit: {
      BlockBuilder* b = CurrentBlock(s.span, "T.init()");
      if (b->init.defined()) Error(s.span, "block \"" + b->name + "\" has two T.init() bodies");
      ScopeFrame frame(this, &frames_, nullptr);
      b->init = ParseStmts(s.body);
      return Stmt();
    }
    case VK::kScope:
      return Declare(name, ctx, item.context->span, nullptr, 0, &s.body, nullptr);
    case VK::kBufferDecl:
      if (ctx.method == "decl_buffer") {
        return Declare(name, ctx, item.context->span, nullptr, 0, &s.body, nullptr);
      }
      break;
    default:
      break;
  }
  Error(item.context->span, ctx.TypeName() + " cannot be used in a with statement");
}

Stmt Evaluator::ParseBlock(const Value& block_call, const ast::Stmt& s) {
  BlockBuilder b;
  b.name = block_call.str;
  b.no_realize = block_call.size_var;
  Stmt body;
  {
    ScopeFrame frame(this, &frames_, &b);
    body = ParseStmts(s.body);
  }
  try {
    Block block(b.iter_vars, b.reads.value_or(Array<BufferRegion>()),
                b.writes.value_or(Array<BufferRegion>()), b.name, body, b.init, b.alloc_buffers,
                b.match_buffers, b.annotations);
    if (!b.reads || !b.writes) {
      BlockAccessRegion access = GetBlockAccessRegion(block);
      BlockNode* n = block.CopyOnWrite();
      if (!b.reads) n->reads = access.reads;
      if (!b.writes) n->writes = access.writes;
    }
    if (b.no_realize) return block;
    return BlockRealize(b.iter_values, b.predicate, block);
  } catch (const minitvm::Error& e) {
    if (e.kind() == "ParseError") throw;
    Error(s.span, e.what());
  }
}

// ---- functions and modules --------------------------------------------------------------

namespace {
/*! \brief The first `width` columns of a statement's first line: its `def` or `class`. */
Span KeywordSpan(const Span& stmt, int width) {
  return Span{stmt.line, stmt.col, stmt.line, stmt.col + width};
}
}  // namespace

std::string Evaluator::DecoratorName(const Expr& e, bool* is_private) {
  const Expr* callee = &e;
  if (e.kind == Expr::Kind::kCall) {
    callee = e.children[0].get();
    for (const ast::Keyword& kw : e.keywords) {
      if (kw.name == "private") {
        *is_private = Truthy(Eval(*kw.value), kw.value->span);
      } else if (kw.name == "check_well_formed" || kw.name == "s_tir") {
        // TVM runs its well-formedness check after parsing unless this is False; minitvm's
        // constructors check as they build, so the flag is read and has nothing to switch.
        // `s_tir=True` (TVM 0.22) marks a function with schedulable blocks: every minitvm
        // PrimFunc may have them, so it is read and means nothing more either.
        Truthy(Eval(*kw.value), kw.value->span);
      } else {
        Error(kw.span, "unsupported decorator argument \"" + kw.name + "\"");
      }
    }
    if (e.children.size() > 1) Error(e.span, "unsupported decorator arguments");
  }
  Value v = Eval(*callee);
  if (v.kind != VK::kBuiltin) Error(callee->span, "unsupported decorator");
  return v.str;
}

tir::PrimFunc Evaluator::ParsePrimFunc(const ast::Stmt& def, bool in_module) {
  FuncBuilder fb;
  fb.name = def.name;
  if (def.decorators.empty()) {
    // As in TVM: a bare `def` is Python, not TVMScript.
    Error(KeywordSpan(def.span, 3),
          "the decorator @T.prim_func is missing on function \"" + def.name + "\"" +
              (in_module ? "" : " (a module is a class decorated with @I.ir_module)"));
  }
  for (const ast::ExprPtr& d : def.decorators) {
    std::string name = DecoratorName(*d, &fb.is_private);
    if (name != "T.prim_func") {
      Error(d->span, "a function in a script is decorated with @T.prim_func, not " + name);
    }
  }
  func_ = &fb;
  frames_.clear();
  loops_.clear();
  scopes_.clear();
  PushScope();
  for (const ast::Arg& arg : def.args) {
    if (arg.default_value) Error(arg.span, "unsupported Python construct: a default value");
    if (!arg.annotation) {
      Error(arg.span, "parameter \"" + arg.name +
                          "\" needs a type: T.handle, T.Buffer((8,), \"float32\"), T.int32, ...");
    }
    for (const Var& p : fb.params) {
      if (p->name_hint == arg.name) Error(arg.span, "duplicate parameter \"" + arg.name + "\"");
    }
    Value ann = Eval(*arg.annotation);
    if (ann.kind == VK::kDType || ann.kind == VK::kVarDecl) {
      Var v(arg.name, ann.dtype.is_handle() ? DataType::Handle() : ann.dtype);
      fb.params.push_back(v);
      Bind(arg.name, ExprValue(v, arg.span));
    } else if (ann.kind == VK::kBufferDecl && ann.method == "Buffer") {
      Var handle(arg.name, DataType::Handle());
      Buffer buffer;
      try {
        buffer = MakeBuffer(*ann.buffer_spec, arg.name);
      } catch (const minitvm::Error& e) {
        Error(arg.annotation->span, e.what());
      }
      fb.params.push_back(handle);
      fb.buffer_map.Set(handle, buffer);
      Value b;
      b.kind = VK::kBuffer;
      b.buffer = buffer;
      b.span = arg.span;
      Bind(arg.name, b);
    } else {
      Error(arg.annotation->span, "unsupported parameter type " + ann.TypeName() +
                                      " (use T.handle, T.Buffer(...) or a dtype like T.int32)");
    }
  }
  if (def.annotation) {
    Value ret = Eval(*def.annotation);
    if (ret.kind == VK::kDType) {
      fb.ret_type = ret.dtype;
    } else if (ret.kind != VK::kNone) {
      Error(def.annotation->span, "unsupported return type " + ret.TypeName());
    }
  }
  Stmt body = ParseStmts(def.body);
  auto* realize = body.as<BlockRealizeNode>();
  bool explicit_root = realize && realize->block->iter_vars.empty() && fb.root_allocs.empty();
  if (!explicit_root && (!fb.root_allocs.empty() || ContainsBlockRealize(body))) {
    body = BlockRealize({}, PrimExpr(), Block({}, {}, {}, "root", body, Stmt(), fb.root_allocs));
  }
  Map<String, Any> attrs;
  Map<String, Any> given = fb.attrs.value_or(Map<String, Any>());
  if (!fb.is_private || given.count(String("global_symbol"))) {
    auto symbol = given.Get(String("global_symbol"));
    attrs.Set(String("global_symbol"), symbol ? *symbol : Any(fb.name));
  }
  for (const auto& [k, v] : given.items()) {
    if (k != "global_symbol") attrs.Set(k, v);
  }
  // The buffer map follows the parameter order, however the script bound them (inline or
  // with T.match_buffer later), so that equal functions have equal maps.
  Map<Var, Buffer> buffer_map;
  for (const Var& p : fb.params) {
    if (auto b = fb.buffer_map.Get(p)) buffer_map.Set(p, *b);
  }
  func_ = nullptr;
  scopes_.clear();
  try {
    return PrimFunc(fb.params, body, buffer_map, attrs, fb.ret_type);
  } catch (const minitvm::Error& e) {
    Error(def.span, e.what());
  }
}

std::string Evaluator::ExtDecoratorName(const ast::Stmt& def) const {
  if (def.decorators.empty()) return "";
  const Expr* callee = def.decorators[0].get();
  if (callee->kind == Expr::Kind::kCall) callee = callee->children[0].get();
  if (callee->kind != Expr::Kind::kAttribute) return "";
  const Expr* base = callee->children[0].get();
  std::string ns;
  if (base->kind == Expr::Kind::kName) {
    const Value* v = Lookup(base->id);
    if (!v || v->kind != VK::kNamespace) return "";
    ns = v->str;
  } else if (base->kind == Expr::Kind::kAttribute && base->children[0]->kind == Expr::Kind::kName) {
    // tvm.script.relax.function / script.relax.function
    const Value* v = Lookup(base->children[0]->id);
    if (!v || v->kind != VK::kNamespace) return "";
    if (v->str == "tvm.script") ns = FindScriptNamespace(base->id);
    if (ns.empty()) return "";
  } else {
    return "";
  }
  std::string name = ns + "." + callee->id;
  return FindFunctionParser(name) ? name : "";
}

FunctionParseContext Evaluator::ExtContext(const ast::Stmt& def, const std::string& module_name,
                                           const Map<String, GlobalVar>& gvs,
                                           const IRModule& mod) const {
  FunctionParseContext ctx;
  ctx.source = &src_;
  ctx.def = &def;
  ctx.module_name = module_name;
  ctx.global_vars = gvs;
  ctx.module = mod;
  for (const auto& [name, v] : globals_) {
    switch (v.kind) {
      case VK::kNamespace:
        ctx.namespaces[name] = v.str;
        break;
      case VK::kInt:
        ctx.constants[name] = Any(v.i);
        break;
      case VK::kBool:
        ctx.constants[name] = Any(v.i != 0);
        break;
      case VK::kFloat:
        ctx.constants[name] = Any(v.f);
        break;
      case VK::kStr:
        ctx.constants[name] = Any(String(v.str));
        break;
      default:
        break;
    }
  }
  ctx.metadata = metadata_;
  ctx.has_metadata = has_metadata_;
  return ctx;
}

IRModule Evaluator::ParseIRModule(const ast::Stmt& cls) {
  if (cls.decorators.empty()) {
    Error(KeywordSpan(cls.span, 5),
          "the decorator @I.ir_module is missing on class \"" + cls.name + "\"");
  }
  for (const ast::ExprPtr& d : cls.decorators) {
    bool unused = false;
    std::string name = DecoratorName(*d, &unused);
    if (name != "I.ir_module") {
      Error(d->span, "a class in a script is decorated with @I.ir_module, not " + name);
    }
  }
  // Declare every function first, so that functions may refer to each other in any order;
  // functions of later stages (@R.function) give their struct info from the signature.
  Map<String, GlobalVar> gvs;
  std::vector<std::pair<const ast::Stmt*, std::string>> defs;
  for (const ast::StmtPtr& s : cls.body) {
    if (s->kind != SK::kFunctionDef) continue;
    if (gvs.count(String(s->name))) {
      Error(s->span, "the module already has a function named \"" + s->name + "\"");
    }
    gvs.Set(String(s->name), GlobalVar(s->name));
    defs.emplace_back(s.get(), ExtDecoratorName(*s));
  }
  for (const auto& [def, ext] : defs) {
    if (ext.empty()) continue;
    const FunctionParserHooks* hooks = FindFunctionParser(ext);
    if (!hooks->signature) continue;
    ObjectRef info = hooks->signature(ExtContext(*def, cls.name, gvs, IRModule()));
    if (info.defined()) (*gvs.Get(String(def->name)))->struct_info_ = info;
  }
  // The class name names the module inside it (`Module.subroutine(A.data)`), as in TVM.
  module_name_ = cls.name;
  module_gvs_ = gvs;
  module_ret_.clear();
  for (const auto& [def, ext] : defs) {
    DataType ret = DataType::Void();
    if (ext.empty() && def->annotation) {
      Value r = Eval(*def->annotation);
      if (r.kind == VK::kDType) ret = r.dtype;
    }
    module_ret_[def->name] = ret;
  }
  IRModule mod;
  Map<String, Any> attrs;
  for (const ast::StmtPtr& s : cls.body) {
    switch (s->kind) {
      case SK::kFunctionDef: {
        GlobalVar gv = *gvs.Get(String(s->name));
        std::string ext = ExtDecoratorName(*s);
        if (!ext.empty()) {
          current_span_ = s->span;
          BaseFunc f = FindFunctionParser(ext)->parse(ExtContext(*s, cls.name, gvs, mod));
          // Later functions calling this one see its full struct info.
          if (f->struct_info_.defined()) gv->struct_info_ = f->struct_info_;
          mod.Add(gv, f, false);
          break;
        }
        tir::PrimFunc f = ParsePrimFunc(*s, true);
        mod.Add(gv, f, false);
        break;
      }
      case SK::kPass:
        break;
      case SK::kExpr: {
        const Expr& e = *s->value;
        if (e.kind == Expr::Kind::kConstant && e.const_kind == Expr::ConstKind::kStr) break;
        if (e.kind == Expr::Kind::kCall) {
          Value callee = Eval(*e.children[0]);
          if (callee.kind == VK::kBuiltin && callee.str == "I.module_attrs" &&
              e.children.size() == 2) {
            Value v = Eval(*e.children[1]);
            for (const auto& [k, val] : AsAttrMap(v, e.children[1]->span).items()) {
              attrs.Set(k, val);
            }
            break;
          }
        }
        Error(s->span,
              "unsupported statement in the module class (expected @T.prim_func or "
              "@R.function functions)");
      }
      default:
        Error(s->span,
              "unsupported statement in the module class (expected @T.prim_func or "
              "@R.function functions)");
    }
  }
  if (!attrs.empty()) mod.CopyOnWrite()->attrs = attrs;
  return mod;
}

ObjectRef Evaluator::Run(const ast::Module& module) {
  try {
    return RunModule(module);
  } catch (const minitvm::Error& e) {
    if (e.kind() == "ParseError") throw;
    // An IR constructor refused something the checks above let through: still a diagnostic
    // at the statement being parsed, never a bare C++ error.
    Error(current_span_, e.kind() + ": " + e.what());
  }
}

void Evaluator::DeclareModuleConstant(const ast::Stmt& s) {
  Value v = Eval(*s.value);
  std::function<bool(const Value&, int)> constant = [&](const Value& x, int depth) {
    if (depth > 16) return false;
    if (x.IsNumber() || x.kind == VK::kStr || x.kind == VK::kNone || x.kind == VK::kDType) {
      return true;
    }
    if (x.kind != VK::kTuple && x.kind != VK::kList) return false;
    for (const Value& item : x.items) {
      if (!constant(item, depth + 1)) return false;
    }
    return true;
  };
  if (!constant(v, 0)) {
    Error(s.value->span,
          "a module-level assignment must be a Python constant (a number, a "
          "string, a dtype or a tuple of them), got " +
              v.TypeName());
  }
  for (const ast::ExprPtr& target : s.targets) {
    std::vector<const Expr*> names;
    if (target->kind == Expr::Kind::kTuple || target->kind == Expr::Kind::kList) {
      if ((v.kind != VK::kTuple && v.kind != VK::kList) ||
          v.items.size() != target->children.size()) {
        Error(s.span, "cannot unpack " + v.TypeName() + " into " +
                          std::to_string(target->children.size()) + " names");
      }
      for (const ast::ExprPtr& c : target->children) names.push_back(c.get());
    } else {
      names.push_back(target.get());
    }
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i]->kind != Expr::Kind::kName) Error(names[i]->span, "expected a name");
      const std::string& id = names[i]->id;
      std::vector<std::string> ext = ListScriptNamespaces();
      if (id == "T" || id == "I" || id == "tvm" || id == "minitvm" || id == "range" ||
          std::find(ext.begin(), ext.end(), id) != ext.end()) {
        Error(names[i]->span, "the name " + id + " is reserved in a script");
      }
      globals_[names[i]->id] =
          names.size() == 1 && target->kind == Expr::Kind::kName ? v : v.items[i];
    }
  }
}

ObjectRef Evaluator::RunModule(const ast::Module& module) {
  const ast::Stmt* target = nullptr;
  for (const ast::StmtPtr& s : module.body) {
    switch (s->kind) {
      case SK::kImport:
        for (const auto& [name, alias] : s->aliases) {
          std::string from = s->name;
          std::string full = from.empty() ? name : from + "." + name;
          std::string ns;
          if (full == "tvm.script.tir" || full == "minitvm.script.tir" ||
              full == "tvm.script.tirx") {
            ns = "T";
          } else if (full == "tvm.script.ir" || full == "minitvm.script.ir") {
            ns = "I";
          } else if (full == "tvm" || full == "minitvm") {
            ns = "tvm";
          } else if (full == "tvm.script" || full == "minitvm.script") {
            ns = "tvm.script";
          } else if (full.rfind("tvm.script.", 0) == 0) {
            ns = FindScriptNamespace(full.substr(11));  // a later stage's: relax -> R
          } else if (full.rfind("minitvm.script.", 0) == 0) {
            ns = FindScriptNamespace(full.substr(15));
          }
          if (!ns.empty()) {
            Value v;
            v.kind = VK::kNamespace;
            v.str = ns;
            v.span = s->span;
            globals_[alias] = v;
          }
        }
        break;
      case SK::kPass:
        break;
      case SK::kExpr:
        if (s->value->kind == Expr::Kind::kConstant) break;  // a docstring
        Error(s->span,
              "a script holds one @I.ir_module class or one @T.prim_func function; "
              "this statement is not part of one");
      case SK::kAssign:
        // Python constants above the definition: M = N = K = 128, dtype = "float32".
        if (!target) {
          DeclareModuleConstant(*s);
          break;
        }
        Error(s->span,
              "a script holds one @I.ir_module class or one @T.prim_func function; "
              "this statement is not part of one");
      case SK::kFunctionDef:
      case SK::kClassDef:
        if (target) {
          Error(s->span,
                "a script holds one @I.ir_module class or one @T.prim_func function; "
                "this is a second definition");
        }
        target = s.get();
        break;
      default:
        Error(s->span,
              "a script holds one @I.ir_module class or one @T.prim_func function; "
              "this statement is not part of one");
    }
  }
  if (!target) {
    // Pointed at the start of the script, even an empty one, so the message has a place.
    Error(Span{1, 1, 1, 1}, "the script defines no @I.ir_module class or @T.prim_func function");
  }
  if (target->kind == SK::kClassDef) return ParseIRModule(*target);
  std::string ext = ExtDecoratorName(*target);
  if (!ext.empty()) {
    current_span_ = target->span;
    return FindFunctionParser(ext)->parse(ExtContext(*target, "", {}, IRModule()));
  }
  return ParsePrimFunc(*target, false);
}

}  // namespace tir_parser

ObjectRef FromSource(const std::string& text, const std::string& file_name, int line_offset) {
  SourceFile source(text, file_name, line_offset);
  ast::Module module = ParsePython(source);
  tir_parser::Evaluator evaluator(source);
  return evaluator.Run(module);
}

ObjectRef FromSourceWithMetadata(const std::string& text, Map<String, Array<Any>> metadata,
                                 const std::string& file_name, int line_offset) {
  SourceFile source(text, file_name, line_offset);
  ast::Module module = ParsePython(source);
  tir_parser::Evaluator evaluator(source);
  evaluator.SetMetadata(std::move(metadata));
  return evaluator.Run(module);
}

ObjectRef FromSourceWithClosure(const std::string& text, Map<String, Any> closure,
                                const std::string& file_name, int line_offset) {
  SourceFile source(text, file_name, line_offset);
  ast::Module module = ParsePython(source);
  tir_parser::Evaluator evaluator(source);
  evaluator.SetClosure(closure);
  return evaluator.Run(module);
}

IRModule ParseModule(const std::string& text, const std::string& file_name, int line_offset) {
  ObjectRef r = FromSource(text, file_name, line_offset);
  if (auto* f = r.as<BaseFuncNode>()) {
    // A lone function (a PrimFunc, or a function of a later stage such as @R.function).
    return IRModule::FromNamed({{"main", GetRef<BaseFunc>(f)}});
  }
  return Downcast<IRModule>(r);
}

tir::PrimFunc ParsePrimFunc(const std::string& text, const std::string& file_name,
                            int line_offset) {
  ObjectRef r = FromSource(text, file_name, line_offset);
  if (auto* m = r.as<IRModuleNode>()) {
    auto vars = m->GetGlobalVars();
    if (vars.size() == 1) {
      if (auto* f = m->Lookup(vars[0]).as<tir::PrimFuncNode>()) return GetRef<tir::PrimFunc>(f);
    }
    MINITVM_THROW(ValueError) << "ParsePrimFunc: the script defines a module with " << vars.size()
                              << " functions, not one PrimFunc";
  }
  return Downcast<tir::PrimFunc>(r);
}

MINITVM_REGISTER_GLOBAL("script.FromSource")
    .set_body_typed([](std::string text, std::string file_name, int line_offset) {
      return FromSource(text, file_name, line_offset);
    });

MINITVM_REGISTER_GLOBAL("script.FromSourceWithClosure")
    .set_body_typed([](std::string text, Map<String, Any> closure, std::string file_name,
                       int line_offset) {
      return FromSourceWithClosure(text, closure, file_name, line_offset);
    });

MINITVM_REGISTER_GLOBAL("script.FromSourceWithMetadata")
    .set_body_typed([](std::string text, Map<String, Array<Any>> metadata, std::string file_name,
                       int line_offset) {
      return FromSourceWithMetadata(text, metadata, file_name, line_offset);
    });

}  // namespace script
}  // namespace minitvm

/*!
 * \file tir_printer_stmt.cc
 * \brief TVMScript printer, part 2 (stage 2): statements, blocks, PrimFuncs, IRModules, and
 * the `AsScript` entry point with its registrations (`script.AsScript`, `node.ReprFallback`).
 *
 * Layout rules follow TVM's printer: a chain of plain serial loops prints as one
 * `for i, j in T.grid(...)`; a block iterator bound to an enclosing loop over the same range
 * prints through `T.axis.remap`; a scoped statement (`LetStmt`, `Allocate`, `AttrStmt`, ...)
 * that is the last of its list prints "concisely" as an assignment followed by its body at the
 * same indentation; the root block that the parser adds implicitly prints as a comment.
 */
#include <algorithm>
#include <cctype>
#include <mutex>
#include <optional>
#include <sstream>

#include "minitvm/runtime/registry.h"
#include "minitvm/tir/allocate_const.h"
#include "minitvm/tir/op.h"
#include "tir_printer_impl.h"
#include "tir_utils.h"

namespace minitvm {
namespace script {
namespace printer {

using namespace ::minitvm::tir;  // NOLINT(build/namespaces)

// ---- statement lists --------------------------------------------------------------------

void TIRPrinter::AsDocBody(const Stmt& stmt, Frame* frame) {
  if (auto* seq = stmt.as<SeqStmtNode>()) {
    size_t n = seq->seq.size();
    for (size_t i = 0; i < n; ++i) {
      frame->allow_concise = (i + 1 == n);
      frame->stmts.push_back(VisitStmt(seq->seq[i]));
    }
  } else {
    frame->allow_concise = true;
    frame->stmts.push_back(VisitStmt(stmt));
  }
}

std::vector<StmtDoc> TIRPrinter::BodyDocs(const Stmt& stmt) {
  FrameScope f(this);
  f.frame.owners.push_back(stmt.get());
  AsDocBody(stmt, &f.frame);
  return f.frame.stmts;
}

StmtDoc TIRPrinter::ConciseOrScope(bool concise, ExprDoc lhs, ExprDoc rhs,
                                   std::vector<StmtDoc> body) {
  if (concise) {
    body.insert(body.begin(), lhs ? AssignDoc(lhs, rhs) : ExprStmtDoc(rhs));
    return StmtBlockDoc(std::move(body));
  }
  return ScopeDoc(lhs, rhs, std::move(body));
}

// ---- statements -------------------------------------------------------------------------

StmtDoc TIRPrinter::VisitStmt_(const BufferStoreNode* op) {
  ExprDoc value = PrintExpr(op->value);
  ExprDoc target = PrintIndices(PrintBuffer(op->buffer), op->indices);
  return AssignDoc(target, value);
}

StmtDoc TIRPrinter::VisitStmt_(const ForNode* op) {
  // A perfect nest of plain serial loops from 0 prints as one `T.grid`.
  std::vector<const ForNode*> grid;
  std::unordered_set<const VarNode*> grid_vars;
  // (At most 128 loops per grid: what the parser's T.grid accepts.)
  for (const ForNode* l = op; l != nullptr && grid.size() < 128; l = l->body.as<ForNode>()) {
    if (l->kind != ForKind::kSerial || !IsConstInt(l->min, 0) || !l->annotations.empty()) break;
    bool depends = false;
    PostOrderVisit(l->extent, [&](const ObjectRef& n) {
      if (auto* v = n.as<VarNode>()) depends = depends || grid_vars.count(v);
    });
    if (depends) break;
    grid.push_back(l);
    grid_vars.insert(l->loop_var.get());
  }
  if (grid.size() > 1) {
    std::vector<ExprDoc> extents;
    for (const ForNode* l : grid) extents.push_back(PrintExpr(l->extent));
    FrameScope f(this);
    std::vector<ExprDoc> vars;
    for (const ForNode* l : grid) f.frame.owners.push_back(l);
    for (const ForNode* l : grid) {
      vars.push_back(DefineVar(l->loop_var, &f.frame));
      loops_.push_back(l);
    }
    AsDocBody(grid.back()->body, &f.frame);
    loops_.resize(loops_.size() - grid.size());
    return ForDoc(TupleDoc(vars), CallDoc(TIRAttr("grid"), extents), f.frame.stmts);
  }
  std::vector<ExprDoc> args;
  if (IsConstInt(op->min, 0)) {
    args.push_back(PrintExpr(op->extent));
  } else {
    args.push_back(PrintExpr(op->min));
    args.push_back(PrintRange(Range(op->min, op->extent))->items[1]);
  }
  std::vector<std::pair<std::string, ExprDoc>> kwargs;
  ExprDoc callee;
  switch (op->kind) {
    case ForKind::kSerial:
      callee = op->annotations.empty() ? IdDoc("range") : TIRAttr("serial");
      break;
    case ForKind::kParallel:
      callee = TIRAttr("parallel");
      break;
    case ForKind::kVectorized:
      callee = TIRAttr("vectorized");
      break;
    case ForKind::kUnrolled:
      callee = TIRAttr("unroll");
      break;
    case ForKind::kThreadBinding:
      callee = TIRAttr("thread_binding");
      kwargs.emplace_back("thread",
                          StrDoc(op->thread_binding.defined() ? op->thread_binding->thread_tag.str()
                                                              : std::string()));
      break;
  }
  if (!op->annotations.empty()) kwargs.emplace_back("annotations", AnyDoc(op->annotations));
  FrameScope f(this);
  f.frame.owners.push_back(op);
  ExprDoc var = DefineVar(op->loop_var, &f.frame);
  loops_.push_back(op);
  AsDocBody(op->body, &f.frame);
  loops_.pop_back();
  return ForDoc(var, CallDoc(callee, args, kwargs), f.frame.stmts);
}

StmtDoc TIRPrinter::VisitStmt_(const WhileNode* op) {
  return WhileDoc(PrintExpr(op->condition), BodyDocs(op->body));
}

StmtDoc TIRPrinter::VisitStmt_(const IfThenElseNode* op) {
  ExprDoc cond = PrintExpr(op->condition);
  std::vector<StmtDoc> then_body = BodyDocs(op->then_case);
  std::vector<StmtDoc> else_body;
  if (op->else_case.defined()) else_body = BodyDocs(op->else_case);
  return IfDoc(cond, then_body, else_body);
}

StmtDoc TIRPrinter::VisitStmt_(const SeqStmtNode* op) {
  return StmtBlockDoc(BodyDocs(GetRef<Stmt>(op)));
}

StmtDoc TIRPrinter::VisitStmt_(const EvaluateNode* op) {
  ExprDoc value = PrintExpr(op->value);
  if (op->value.as<CallNode>()) return ExprStmtDoc(value);
  return ExprStmtDoc(CallDoc(TIRAttr("evaluate"), {value}));
}

StmtDoc TIRPrinter::VisitStmt_(const LetStmtNode* op) {
  bool concise = CurrentFrame()->allow_concise;
  ExprDoc rhs = PrintExpr(op->value);
  FrameScope f(this);
  f.frame.owners.push_back(op);
  if (IsDefined(op->var.get())) {
    ExprDoc var = PrintVarUse(op->var);
    AsDocBody(op->body, &f.frame);
    return ScopeDoc(nullptr, CallDoc(TIRAttr("LetStmt"), {rhs}, {{"var", var}}), f.frame.stmts);
  }
  ExprDoc lhs = DefineVar(op->var, &f.frame);
  AsDocBody(op->body, &f.frame);
  if (concise) {
    std::vector<StmtDoc> body = f.frame.stmts;
    body.insert(body.begin(), AssignDoc(lhs, rhs, TypeAnnotation(op->var)));
    return StmtBlockDoc(body);
  }
  return ScopeDoc(lhs, CallDoc(TIRAttr("LetStmt"), {rhs}), f.frame.stmts);
}

StmtDoc TIRPrinter::VisitStmt_(const AssertStmtNode* op) {
  bool concise = CurrentFrame()->allow_concise;
  ExprDoc cond = PrintExpr(op->condition);
  ExprDoc msg = PrintExpr(op->message);
  FrameScope f(this);
  f.frame.owners.push_back(op);
  AsDocBody(op->body, &f.frame);
  if (concise) {
    std::vector<StmtDoc> body = f.frame.stmts;
    body.insert(body.begin(), AssertDoc(cond, msg));
    return StmtBlockDoc(body);
  }
  return ScopeDoc(nullptr, CallDoc(TIRAttr("Assert"), {cond, msg}), f.frame.stmts);
}

namespace {
/*! \brief `Allocate` directly around a `DeclBuffer` of the same memory: one `T.decl_buffer`. */
bool IsAllocateDeclBuffer(const AllocateNode* alloc) {
  auto* decl = alloc->body.as<DeclBufferNode>();
  if (!decl) return false;
  const Buffer& b = decl->buffer;
  if (!alloc->buffer_var.same_as(b->data) || alloc->dtype != b->dtype ||
      alloc->annotations.count(String(kAllocateConstData)) || !IsConstInt(alloc->condition, 1) ||
      !alloc->annotations.empty() || alloc->scope != b->scope ||
      alloc->extents.size() != b->shape.size()) {
    return false;
  }
  for (size_t i = 0; i < alloc->extents.size(); ++i) {
    if (!ExprDeepEqual(alloc->extents[i], b->shape[i])) return false;
  }
  return true;
}
}  // namespace

StmtDoc TIRPrinter::VisitStmt_(const AllocateNode* op) {
  bool concise = CurrentFrame()->allow_concise;
  if (IsAllocateDeclBuffer(op) && !IsDefined(op->buffer_var.get())) {
    auto* decl = op->body.as<DeclBufferNode>();
    ExprDoc rhs = BufferDecl(decl->buffer, "decl_buffer", {});
    FrameScope f(this);
    f.frame.owners = {op, decl};
    ExprDoc lhs = DefineBuffer(decl->buffer, &f.frame);
    AsDocBody(decl->body, &f.frame);
    return ConciseOrScope(concise, lhs, rhs, f.frame.stmts);
  }
  std::vector<ExprDoc> extents;
  for (const PrimExpr& e : op->extents) extents.push_back(PrintExpr(e));
  if (Array<PrimExpr> data = AllocateConstData(op); !data.empty()) {
    // T.allocate_const(values, dtype, extents): the values as plain Python numbers.
    std::vector<ExprDoc> values;
    for (const PrimExpr& x : data) {
      if (const auto* fi = x.as<FloatImmNode>()) {
        values.push_back(FloatDoc(fi->value, fi->dtype.bits() == 32));
      } else {
        values.push_back(IntDoc(x.as<IntImmNode>()->value));
      }
    }
    std::vector<std::pair<std::string, ExprDoc>> kwargs;
    Map<String, Any> user = AllocateConstUserAnnotations(op);
    if (!user.empty()) kwargs.emplace_back("annotations", AnyDoc(user));
    ExprDoc rhs = CallDoc(TIRAttr("allocate_const"),
                          {ListDoc(values), DTypeDoc(op->dtype), ListDoc(extents)}, kwargs);
    FrameScope f(this);
    f.frame.owners.push_back(op);
    ExprDoc lhs = DefineVar(op->buffer_var, &f.frame);
    AsDocBody(op->body, &f.frame);
    return ConciseOrScope(concise, lhs, rhs, f.frame.stmts);
  }
  std::vector<ExprDoc> args = {ListDoc(extents), DTypeDoc(op->dtype), StrDoc(op->scope)};
  if (!IsConstInt(op->condition, 1)) args.push_back(PrintExpr(op->condition));
  std::vector<std::pair<std::string, ExprDoc>> kwargs;
  if (!op->annotations.empty()) kwargs.emplace_back("annotations", AnyDoc(op->annotations));
  ExprDoc rhs = CallDoc(TIRAttr("allocate"), args, kwargs);
  FrameScope f(this);
  f.frame.owners.push_back(op);
  ExprDoc lhs = DefineVar(op->buffer_var, &f.frame);
  AsDocBody(op->body, &f.frame);
  return ConciseOrScope(concise, lhs, rhs, f.frame.stmts);
}

StmtDoc TIRPrinter::VisitStmt_(const DeclBufferNode* op) {
  bool concise = CurrentFrame()->allow_concise;
  ExprDoc rhs = BufferDecl(op->buffer, "decl_buffer_with_data", {});
  FrameScope f(this);
  f.frame.owners.push_back(op);
  ExprDoc lhs = DefineBuffer(op->buffer, &f.frame);
  AsDocBody(op->body, &f.frame);
  return ConciseOrScope(concise, lhs, rhs, f.frame.stmts);
}

StmtDoc TIRPrinter::VisitStmt_(const AttrStmtNode* op) {
  bool concise = CurrentFrame()->allow_concise;
  ExprDoc value = PrintExpr(op->value);
  auto* iv = op->node.as<IterVarNode>();
  if (iv && (op->attr_key == "thread_extent" || op->attr_key == "virtual_thread")) {
    FrameScope f(this);
    f.frame.owners.push_back(op);
    ExprDoc lhs, rhs;
    if (IsDefined(iv->var.get())) {
      rhs = CallDoc(TIRAttr("launch_thread"), {PrintVarUse(iv->var), value});
    } else {
      rhs = CallDoc(TIRAttr("launch_thread"), {StrDoc(iv->thread_tag.str()), value});
      lhs = DefineVar(iv->var, &f.frame);
    }
    AsDocBody(op->body, &f.frame);
    return ConciseOrScope(concise, lhs, rhs, f.frame.stmts);
  }
  if (op->attr_key == "realize_scope") {
    // T.realize(buf[bounds], scope[, condition=c]): TVM's AttrStmt + BufferRealize pair.
    auto* inner = op->body.as<AttrStmtNode>();
    auto* region = inner ? inner->node.as<BufferRegionNode>() : nullptr;
    if (region && inner->attr_key == kBufferRealizeAttr && region->buffer.same_as(op->node)) {
      std::vector<std::pair<std::string, ExprDoc>> kwargs;
      if (!IsConstInt(inner->value, 1)) kwargs.emplace_back("condition", PrintExpr(inner->value));
      ExprDoc rhs = CallDoc(TIRAttr("realize"),
                            {PrintBufferRegion(GetRef<BufferRegion>(region)), value}, kwargs);
      FrameScope f(this);
      f.frame.owners.push_back(op);
      f.frame.owners.push_back(inner);
      AsDocBody(inner->body, &f.frame);
      return ConciseOrScope(concise, nullptr, rhs, f.frame.stmts);
    }
  }
  ExprDoc node;
  if (!op->node.defined()) {
    node = NoneDoc();
  } else if (iv) {
    node = PrintIterVar(GetRef<IterVar>(iv));
  } else if (auto* e = op->node.as<PrimExprNode>()) {
    node = PrintExpr(GetRef<PrimExpr>(e));
  } else if (auto* b = op->node.as<BufferNode>()) {
    node = PrintBuffer(GetRef<Buffer>(b));
  } else {
    node = AnyDoc(Any(op->node));
  }
  ExprDoc rhs = CallDoc(TIRAttr("attr"), {node, StrDoc(op->attr_key.str()), value});
  FrameScope f(this);
  f.frame.owners.push_back(op);
  AsDocBody(op->body, &f.frame);
  return ConciseOrScope(concise, nullptr, rhs, f.frame.stmts);
}

StmtDoc TIRPrinter::VisitStmt_(const BlockNode* op) {
  return PrintBlock(GetRef<Block>(op), nullptr);
}

StmtDoc TIRPrinter::VisitStmt_(const BlockRealizeNode* op) { return PrintBlock(op->block, op); }

// ---- blocks -----------------------------------------------------------------------------

StmtDoc TIRPrinter::PrintBlock(const Block& block, const BlockRealizeNode* realize) {
  // The loops around the block, for recognising `T.axis.remap` bindings.
  std::unordered_map<const VarNode*, const ForNode*> loop_of;
  for (const ForNode* l : loops_) loop_of[l->loop_var.get()] = l;
  FrameScope f(this);
  Frame* frame = &f.frame;
  frame->owners.push_back(block.get());
  if (realize) frame->owners.push_back(realize);
  size_t n = block->iter_vars.size();
  std::vector<size_t> remap;

  auto print_single = [&](size_t i) {
    const IterVar& iv = block->iter_vars[i];
    const char* kind = "spatial";
    if (iv->iter_type == kCommReduce) kind = "reduce";
    if (iv->iter_type == kOrdered) kind = "scan";
    if (iv->iter_type == kOpaque) kind = "opaque";
    ExprDoc dom;
    if (IsConstInt(iv->dom->min, 0)) {
      dom = PrintExpr(iv->dom->extent);
    } else {
      ExprDoc slice = PrintRange(iv->dom);
      dom = TupleDoc({slice->items[0], slice->items[1]});
    }
    std::vector<ExprDoc> args = {dom};
    if (realize) args.push_back(PrintExpr(realize->iter_values[i]));
    ExprDoc rhs = CallDoc(AttrDoc(TIRAttr("axis"), kind), args);
    frame->stmts.push_back(AssignDoc(DefineVar(iv->var, frame), rhs));
  };
  auto flush_remap = [&]() {
    if (remap.size() == 1) print_single(remap[0]);
    if (remap.size() > 1) {
      std::vector<ExprDoc> lhs, values;
      std::string kinds;
      for (size_t i : remap) values.push_back(PrintExpr(realize->iter_values[i]));
      for (size_t i : remap) {
        const IterVar& iv = block->iter_vars[i];
        lhs.push_back(DefineVar(iv->var, frame));
        kinds += iv->iter_type == kDataPar ? "S" : "R";
      }
      ExprDoc rhs = CallDoc(AttrDoc(TIRAttr("axis"), "remap"), {StrDoc(kinds), ListDoc(values)});
      frame->stmts.push_back(AssignDoc(TupleDoc(lhs), rhs));
    }
    remap.clear();
  };
  for (size_t i = 0; i < n; ++i) {
    const IterVar& iv = block->iter_vars[i];
    bool remappable = false;
    if (realize && (iv->iter_type == kDataPar || iv->iter_type == kCommReduce) &&
        iv->dom.defined()) {
      if (auto* v = realize->iter_values[i].as<VarNode>()) {
        auto it = loop_of.find(v);
        remappable = it != loop_of.end() && ExprDeepEqual(it->second->min, iv->dom->min) &&
                     ExprDeepEqual(it->second->extent, iv->dom->extent);
      }
    }
    if (remappable) {
      remap.push_back(i);
    } else {
      flush_remap();
      print_single(i);
    }
  }
  flush_remap();
  if (realize && !IsConstInt(realize->predicate, 1)) {
    frame->stmts.push_back(ExprStmtDoc(CallDoc(TIRAttr("where"), {PrintExpr(realize->predicate)})));
  }
  std::vector<ExprDoc> reads, writes;
  for (const BufferRegion& r : block->reads) reads.push_back(PrintBufferRegion(r));
  for (const BufferRegion& r : block->writes) writes.push_back(PrintBufferRegion(r));
  frame->stmts.push_back(ExprStmtDoc(CallDoc(TIRAttr("reads"), reads)));
  frame->stmts.push_back(ExprStmtDoc(CallDoc(TIRAttr("writes"), writes)));
  if (!block->annotations.empty()) {
    frame->stmts.push_back(
        ExprStmtDoc(CallDoc(TIRAttr("block_attr"), {AnyDoc(block->annotations)})));
  }
  for (const Buffer& b : block->alloc_buffers) {
    ExprDoc rhs = BufferDecl(b, "alloc_buffer", {});
    frame->stmts.push_back(AssignDoc(DefineBuffer(b, frame), rhs));
  }
  for (const MatchBufferRegion& m : block->match_buffers) {
    ExprDoc rhs = BufferDecl(m->buffer, "match_buffer", {PrintBufferRegion(m->source)});
    frame->stmts.push_back(AssignDoc(DefineBuffer(m->buffer, frame), rhs));
  }
  if (block->init.defined()) {
    frame->stmts.push_back(ScopeDoc(nullptr, CallDoc(TIRAttr("init")), BodyDocs(block->init)));
  }
  AsDocBody(block->body, frame);
  std::vector<std::pair<std::string, ExprDoc>> kwargs;
  if (!realize) kwargs.emplace_back("no_realize", BoolDoc(true));
  return ScopeDoc(nullptr, CallDoc(TIRAttr("block"), {StrDoc(block->name_hint.str())}, kwargs),
                  frame->stmts);
}

// ---- functions and modules --------------------------------------------------------------

namespace {
bool ContainsBlockRealize(const Stmt& stmt) {
  bool found = false;
  PostOrderVisit(stmt, [&](const ObjectRef& n) { found = found || n.as<BlockRealizeNode>(); });
  return found;
}

/*! \brief The root block the parser would add around this body, if that is what it is. */
const BlockNode* ImplicitRootBlock(const PrimFuncNode* func) {
  auto* realize = func->body.as<BlockRealizeNode>();
  if (!realize || !realize->iter_values.empty() || !IsConstInt(realize->predicate, 1)) {
    return nullptr;
  }
  const BlockNode* root = realize->block.get();
  if (!root->annotations.empty() || !root->match_buffers.empty() || !root->reads.empty() ||
      !root->writes.empty() || root->init.defined() || root->name_hint != "root") {
    return nullptr;
  }
  auto* inner = root->body.as<BlockRealizeNode>();
  if (!root->alloc_buffers.empty() || (inner && !inner->block->iter_vars.empty()) ||
      (!inner && ContainsBlockRealize(root->body))) {
    return root;
  }
  return nullptr;
}
}  // namespace

StmtDoc TIRPrinter::PrintPrimFunc(const PrimFunc& func, const std::string& name) {
  FrameScope f(this);
  Frame* saved_free = free_frame_;
  free_frame_ = &f.frame;
  CollectUseScopes(func->body);
  // A buffer parameter prints inline (`A: T.Buffer(...)`) when its handle is used nowhere
  // else and the buffer is a plain compact one; otherwise as `T.handle` + `T.match_buffer`.
  std::unordered_map<const VarNode*, int> data_count;
  std::unordered_set<const VarNode*> used;
  auto collect = [&](const ObjectRef& n) {
    if (auto* v = n.as<VarNode>()) used.insert(v);
  };
  PostOrderVisit(func->body, collect);
  for (const auto& [var, buf] : func->buffer_map.items()) {
    data_count[buf->data.get()]++;
    for (const PrimExpr& e : buf->shape) PostOrderVisit(e, collect);
    for (const PrimExpr& e : buf->strides) PostOrderVisit(e, collect);
    PostOrderVisit(buf->elem_offset, collect);
  }
  std::vector<StmtDoc> args;
  std::vector<ExprDoc> param_docs;
  std::unordered_set<const BufferNode*> inlined;
  for (const Var& param : func->params) {
    auto buf = func->buffer_map.Get(param);
    if (buf && !used.count(param.get()) && IsSimpleBuffer(*buf) &&
        data_count[(*buf)->data.get()] == 1 && !IsDefined(buf->get())) {
      ExprDoc annotation = BufferAnnotation(*buf);
      ExprDoc lhs = DefineBuffer(*buf, &f.frame);
      args.push_back(AssignDoc(lhs, nullptr, annotation));
      param_docs.push_back(lhs);
      inlined.insert(buf->get());
    } else {
      ExprDoc lhs = DefineVar(param, &f.frame);
      args.push_back(AssignDoc(lhs, nullptr, TypeAnnotation(param)));
      param_docs.push_back(lhs);
    }
  }
  Map<String, Any> attrs = func->attrs;
  auto symbol = attrs.Get(String("global_symbol"));
  if (symbol && symbol->is_string() && symbol->cast<std::string>() == name) {
    attrs.erase(String("global_symbol"));
  }
  if (!attrs.empty()) {
    typed_int_attrs_ = true;
    ExprDoc attrs_doc = AnyDoc(attrs);
    typed_int_attrs_ = false;
    f.frame.stmts.push_back(ExprStmtDoc(CallDoc(TIRAttr("func_attr"), {attrs_doc})));
  }
  for (size_t i = 0; i < func->params.size(); ++i) {
    auto buf = func->buffer_map.Get(func->params[i]);
    if (!buf || inlined.count(buf->get())) continue;
    ExprDoc rhs = BufferDecl(*buf, "match_buffer", {param_docs[i]});
    ExprDoc lhs = DefineBuffer(*buf, &f.frame);
    f.frame.stmts.push_back(AssignDoc(lhs, rhs));
  }
  if (const BlockNode* root = ImplicitRootBlock(func.get())) {
    f.frame.stmts.push_back(CommentDoc("with T.block(\"root\"):"));
    for (const Buffer& b : root->alloc_buffers) {
      ExprDoc rhs = BufferDecl(b, "alloc_buffer", {});
      f.frame.stmts.push_back(AssignDoc(DefineBuffer(b, &f.frame), rhs));
    }
    AsDocBody(root->body, &f.frame);
  } else {
    AsDocBody(func->body, &f.frame);
  }
  ExprDoc decorator = TIRAttr("prim_func");
  if (!func->attrs.count(String("global_symbol"))) {
    decorator = CallDoc(decorator, {}, {{"private", BoolDoc(true)}});
  }
  ExprDoc ret;
  if (!func->ret_type.is_void()) ret = TIRAttr(runtime::DataTypeToString(func->ret_type));
  free_frame_ = saved_free;
  return FunctionDoc(name, args, {decorator}, ret, f.frame.stmts);
}

bool TIRPrinter::HasPrimFunc(const IRModule& mod) {
  for (const auto& [gv, f] : mod->functions.items()) {
    if (f.as<PrimFuncNode>()) return true;
  }
  return false;
}

namespace {
/*! \brief `name` made a Python name that is not in `used` (`my-func` becomes `my_func`). */
std::string PythonFunctionName(const std::string& name,
                               const std::unordered_set<std::string>& used) {
  if (IsPythonIdentifier(name) && !used.count(name)) return name;
  std::string fixed;
  for (char c : name) {
    unsigned char u = static_cast<unsigned char>(c);
    fixed += (u >= 128 || std::isalnum(u)) ? c : '_';
  }
  if (fixed.empty() || std::isdigit(static_cast<unsigned char>(fixed[0]))) fixed = "f" + fixed;
  if (IsPythonKeyword(fixed)) fixed += "_";
  std::string result = fixed;
  for (int k = 1; used.count(result); ++k) result = fixed + "_" + std::to_string(k);
  return result;
}

/*!
 * \brief TVM's order of the functions of a module that holds other functions than PrimFuncs:
 * PrimFuncs, then ExternFuncs, then Relax functions, each by name, and `main` last. A module
 * of PrimFuncs only keeps its insertion order (what the stage-2 printer always did).
 */
std::vector<std::pair<GlobalVar, BaseFunc>> ModuleFunctionOrder(const IRModule& mod) {
  std::vector<std::pair<GlobalVar, BaseFunc>> funcs;
  bool only_prim = true;
  for (const auto& [gv, f] : mod->functions.items()) {
    funcs.emplace_back(gv, f);
    only_prim = only_prim && f.as<tir::PrimFuncNode>() != nullptr;
  }
  if (only_prim) return funcs;
  auto priority = [](const std::pair<GlobalVar, BaseFunc>& e) {
    if (e.first->name_hint == "main") return 1000;
    const std::string key = e.second->GetTypeKey();
    if (key == "tir.PrimFunc") return 1;
    if (key == "relax.expr.ExternFunc") return 2;
    if (key == "relax.expr.Function") return 3;
    return 4;
  };
  std::stable_sort(funcs.begin(), funcs.end(), [&](const auto& a, const auto& b) {
    int pa = priority(a), pb = priority(b);
    if (pa != pb) return pa < pb;
    return a.first->name_hint.str() < b.first->name_hint.str();
  });
  return funcs;
}
}  // namespace

StmtDoc TIRPrinter::PrintModule(const IRModule& mod) {
  FunctionPrintContext ctx;
  return PrintModule(mod, &ctx);
}

StmtDoc TIRPrinter::PrintModule(const IRModule& mod, FunctionPrintContext* ctx) {
  std::vector<StmtDoc> body;
  ctx->used_dialects.insert("ir");
  if (ctx->module_name.empty()) ctx->module_name = "Module";
  if (!mod->attrs.empty()) {
    body.push_back(ExprStmtDoc(CallDoc(AttrDoc(IdDoc("I"), "module_attrs"), {AnyDoc(mod->attrs)})));
  }
  std::vector<std::pair<GlobalVar, BaseFunc>> funcs = ModuleFunctionOrder(mod);
  module_name_ = ctx->module_name;
  // A module's function is named by its GlobalVar; a name that is not a Python name (which
  // the class syntax cannot express) is made into a unique one. Names are fixed before any
  // function prints, so that a call of a later function (`cls.f`) knows its name.
  std::unordered_set<std::string> used_names;
  std::vector<std::string> names;
  for (const auto& [gv, f] : funcs) {
    std::string name = PythonFunctionName(gv->name_hint.str(), used_names);
    used_names.insert(name);
    names.push_back(name);
    ctx->global_var_names[gv.get()] = name;
  }
  for (size_t i = 0; i < funcs.size(); ++i) {
    const auto& [gv, f] = funcs[i];
    if (auto* pf = f.as<PrimFuncNode>()) {
      ctx->used_dialects.insert("tir");
      body.push_back(PrintPrimFunc(GetRef<PrimFunc>(pf), names[i]));
    } else if (FunctionPrinter fprint = GetFunctionPrinter(f->GetTypeKey())) {
      ctx->name = names[i];
      body.push_back(fprint(f, ctx));
    } else {
      body.push_back(CommentDoc(gv->name_hint.str() + ": a " + f->GetTypeKey() +
                                " (no TVMScript printer for it yet)"));
    }
  }
  ctx->name.clear();
  return ClassDoc(ctx->module_name, {AttrDoc(IdDoc("I"), "ir_module")}, body);
}

std::vector<StmtDoc> TIRPrinter::PrintStmtTop(const Stmt& stmt) {
  FrameScope f(this);
  free_frame_ = &f.frame;
  CollectUseScopes(stmt);
  AsDocBody(stmt, &f.frame);
  free_frame_ = nullptr;
  return f.frame.stmts;
}

}  // namespace printer

// ---- entry points -----------------------------------------------------------------------

namespace {
using printer::TIRPrinter;

/*! \brief The registries of the extension point (function-local statics: filled at load). */
struct PrinterRegistry {
  std::mutex mutex;
  std::unordered_map<std::string, FunctionPrinter> function_printers;
  std::vector<std::pair<std::string, NodePrinter>> node_printers;
  static PrinterRegistry& Global() {
    static PrinterRegistry* registry = new PrinterRegistry();
    return *registry;
  }
};

/*! \brief The node printer that takes `node`, if any. */
std::optional<NodePrinter> FindNodePrinter(const ObjectRef& node) {
  std::vector<NodePrinter> printers;
  {
    PrinterRegistry& r = PrinterRegistry::Global();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (const auto& [name, p] : r.node_printers) printers.push_back(p);
  }
  for (const NodePrinter& p : printers) {
    if (p.can_print && p.can_print(node)) return p;
  }
  return std::nullopt;
}

bool IsTIRPrintable(const ObjectRef& node) {
  return node.as<IRModuleNode>() || node.as<tir::PrimFuncNode>() || node.as<tir::StmtNode>() ||
         node.as<PrimExprNode>() || node.as<tir::BufferNode>() ||
         node.as<tir::BufferRegionNode>() || node.as<tir::IterVarNode>() || node.as<RangeNode>();
}
}  // namespace

void RegisterFunctionPrinter(const std::string& type_key, FunctionPrinter printer) {
  PrinterRegistry& r = PrinterRegistry::Global();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.function_printers[type_key] = std::move(printer);
}

FunctionPrinter GetFunctionPrinter(const std::string& type_key) {
  PrinterRegistry& r = PrinterRegistry::Global();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.function_printers.find(type_key);
  return it == r.function_printers.end() ? FunctionPrinter() : it->second;
}

void RegisterNodePrinter(const std::string& name, NodePrinter printer) {
  PrinterRegistry& r = PrinterRegistry::Global();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto& [n, p] : r.node_printers) {
    if (n == name) {
      p = std::move(printer);
      return;
    }
  }
  r.node_printers.emplace_back(name, std::move(printer));
}

std::string ScriptHeader(const ScriptOptions& options, const std::set<std::string>& dialects) {
  if (!options.print_header || dialects.empty()) return "";
  std::string text;
  if (dialects.count("ir")) text += "# from " + options.module_prefix + " import ir as I\n";
  if (dialects.count("tir")) text += "# from " + options.module_prefix + " import tir as T\n";
  if (dialects.count("relax")) {
    text += "# from " + options.module_prefix + " import relax as R\n";
  }
  return text + "\n";
}

bool CanPrintAsScript(const ObjectRef& node) {
  return node.defined() && (IsTIRPrintable(node) || FindNodePrinter(node).has_value());
}

std::string AsScript(const ObjectRef& node, const ScriptOptions& options) {
  printer::PrintOptions render;
  render.indent_spaces = options.indent_spaces;
  TIRPrinter p;
  p.plain_literals = options.plain_literals;
  p.plain_ints = p.plain_ints || options.plain_literals;
  if (!node.defined()) return "None";
  if (auto* mod = node.as<IRModuleNode>()) {
    IRModule m = GetRef<IRModule>(mod);
    FunctionPrintContext ctx;
    ctx.options = options;
    printer::StmtDoc doc = p.PrintModule(m, &ctx);
    std::string text =
        ScriptHeader(options, ctx.used_dialects) + printer::DocToPythonScript({doc}, render);
    if (!ctx.metadata.empty()) text += std::string("\n# ") + kMetadataOmittedComment + "\n";
    return text;
  }
  if (auto* f = node.as<tir::PrimFuncNode>()) {
    // The function is named by its global symbol when that is a Python name; otherwise it is
    // `main` and the symbol stays in T.func_attr.
    std::string name = "main";
    auto symbol = f->attrs.Get(String("global_symbol"));
    if (symbol && symbol->is_string() && IsPythonIdentifier(symbol->cast<std::string>())) {
      name = symbol->cast<std::string>();
    }
    return ScriptHeader(options, {"tir"}) +
           printer::DocToPythonScript({p.PrintPrimFunc(GetRef<tir::PrimFunc>(f), name)}, render);
  }
  if (auto* s = node.as<tir::StmtNode>()) {
    return printer::DocToPythonScript(p.PrintStmtTop(GetRef<tir::Stmt>(s)), render);
  }
  if (auto* e = node.as<PrimExprNode>()) {
    return printer::DocToPythonScript(p.PrintExpr(GetRef<PrimExpr>(e)), render);
  }
  if (auto* b = node.as<tir::BufferNode>()) {
    // A buffer alone reads like a parameter: `A: T.Buffer((8,), "float32")`.
    tir::Buffer buf = GetRef<tir::Buffer>(b);
    printer::ExprDoc doc =
        TIRPrinter::IsSimpleBuffer(buf) ? p.BufferAnnotation(buf) : p.BufferDecl(buf, "Buffer", {});
    return buf->name.str() + ": " + printer::DocToPythonScript(doc, render);
  }
  if (auto* r = node.as<tir::BufferRegionNode>()) {
    return printer::DocToPythonScript(p.PrintBufferRegion(GetRef<tir::BufferRegion>(r)), render);
  }
  if (auto* iv = node.as<tir::IterVarNode>()) {
    return printer::DocToPythonScript(p.PrintIterVar(GetRef<tir::IterVar>(iv)), render);
  }
  if (auto* r = node.as<RangeNode>()) {
    return printer::DocToPythonScript(p.PrintRange(GetRef<Range>(r)), render);
  }
  if (std::optional<NodePrinter> np = FindNodePrinter(node)) return np->print(node, options);
  MINITVM_THROW(TypeError) << "AsScript: cannot print a " << node->GetTypeKey() << " as TVMScript";
}

MINITVM_REGISTER_GLOBAL("script.AsScript").set_body_typed([](ObjectRef node) {
  return AsScript(node);
});

// `runtime::Repr` of any TIR node or IRModule is its script text.
MINITVM_REGISTER_GLOBAL("node.ReprFallback").set_body_typed([](ObjectRef node) -> Any {
  if (!CanPrintAsScript(node)) return Any();
  try {
    return Any(AsScript(node));
  } catch (const Error&) {
    return Any();
  }
});

}  // namespace script
}  // namespace minitvm

/*!
 * \file tir_printer_expr.cc
 * \brief TVMScript printer, part 1 (stage 2): names, expressions, buffers and attribute values.
 *
 * An operator node prints with Python's operator (`a + b`, `a // b`, `a < b`, `a and b`) only
 * when the parser's operator would rebuild exactly that node from the same operands; otherwise
 * (a node the folding operators would have simplified, like `x + 0`) it prints as the explicit
 * constructor `T.Add(x, 0)`, so that printing is faithful and parsing gives the same tree.
 */
#include <cctype>
#include <functional>
#include <unordered_set>

#include "minitvm/target/target.h"
#include "minitvm/te/reduce.h"
#include "minitvm/tir/builtin.h"
#include "minitvm/tir/op.h"
#include "tir_printer_impl.h"
#include "tir_utils.h"

namespace minitvm {
namespace script {
namespace printer {

using namespace ::minitvm::tir;  // NOLINT(build/namespaces)

TIRPrinter::TIRPrinter() {
  // Names the script itself needs; a variable named like them gets a suffix.
  for (const char* reserved : {"T", "I", "range"}) names_.insert(reserved);
}

TIRPrinter::FrameScope::~FrameScope() {
  for (const Object* obj : frame.defined) {
    p_->docs_.erase(obj);
    auto it = p_->names_of_.find(obj);
    if (it != p_->names_of_.end()) {
      p_->names_.erase(it->second);
      p_->names_of_.erase(it);
    }
  }
  p_->frames_.pop_back();
}

// ---- names ------------------------------------------------------------------------------

std::string TIRPrinter::UniqueName(const std::string& hint, const char* fallback) {
  std::string base;
  for (char c : hint) {
    unsigned char u = static_cast<unsigned char>(c);
    base += (u >= 128 || std::isalnum(u) || c == '_') ? c : '_';
  }
  if (base.empty()) base = fallback;
  if (std::isdigit(static_cast<unsigned char>(base[0]))) base = "_" + base;
  if (IsPythonKeyword(base)) base += "_";
  std::string name = base;
  for (int i = 1; names_.count(name); ++i) name = base + "_" + std::to_string(i);
  names_.insert(name);
  return name;
}

ExprDoc TIRPrinter::DefineVar(const Var& var, Frame* frame) {
  std::string name = UniqueName(var->name_hint, "v");
  ExprDoc doc = IdDoc(name);
  // A variable bound twice (ill-formed, but printable) keeps the newest name.
  auto old = names_of_.find(var.get());
  if (old != names_of_.end()) names_.erase(old->second);
  docs_[var.get()] = doc;
  names_of_[var.get()] = name;
  frame->defined.push_back(var.get());
  return doc;
}

ExprDoc TIRPrinter::DefineAlias(const Object* obj, ExprDoc doc, Frame* frame) {
  docs_[obj] = doc;
  frame->defined.push_back(obj);
  return doc;
}

ExprDoc TIRPrinter::DefineBuffer(const Buffer& buffer, Frame* frame) {
  std::string name = UniqueName(buffer->name, "buf");
  ExprDoc doc = IdDoc(name);
  docs_[buffer.get()] = doc;
  names_of_[buffer.get()] = name;
  frame->defined.push_back(buffer.get());
  // The buffer's data pointer, when nothing else named it, reads as `A.data`.
  if (!IsDefined(buffer->data.get())) DefineAlias(buffer->data.get(), AttrDoc(doc, "data"), frame);
  return doc;
}

ExprDoc TIRPrinter::DTypeDoc(DataType dtype) { return StrDoc(runtime::DataTypeToString(dtype)); }

ExprDoc TIRPrinter::TypeAnnotation(const PrimExpr& var) {
  DataType t = var.dtype();
  if (t.is_handle()) return TIRAttr("handle");
  return TIRAttr(runtime::DataTypeToString(t));
}

ExprDoc TIRPrinter::PrintVarUse(const Var& var) {
  auto it = docs_.find(var.get());
  if (it != docs_.end()) return it->second;
  if (free_var_hook) return free_var_hook(var);
  // An expression printed alone shows its free variables by name.
  if (frames_.empty()) return IdDoc(var->name_hint.str());
  // A free variable (a symbolic shape, say): declare it in the innermost scope covering
  // all of its uses, or where the function body starts.
  Frame* frame = FreeDefinitionFrame(var.get());
  ExprDoc lhs = DefineVar(var, frame);
  std::vector<std::pair<std::string, ExprDoc>> kwargs;
  if (var.as<SizeVarNode>()) kwargs.emplace_back("is_size_var", BoolDoc(true));
  frame->stmts.push_back(AssignDoc(lhs, CallDoc(TypeAnnotation(var), {}, kwargs)));
  return lhs;
}

ExprDoc TIRPrinter::PrintBuffer(const Buffer& buffer) {
  auto it = docs_.find(buffer.get());
  if (it != docs_.end()) return it->second;
  if (frames_.empty()) return IdDoc(buffer->name.str());
  Frame* frame = FreeDefinitionFrame(buffer.get());
  ExprDoc rhs = BufferDecl(buffer, "Buffer", {});
  ExprDoc lhs = DefineBuffer(buffer, frame);
  frame->stmts.push_back(AssignDoc(lhs, rhs));
  return lhs;
}

namespace {
/*! \brief Records the chain of statements around each use of a variable or buffer. */
class UseScopeCollector : public StmtExprVisitor {
 public:
  explicit UseScopeCollector(std::unordered_map<const Object*, std::vector<const Object*>>* out)
      : out_(out) {}
  void VisitStmt(const Stmt& s) override {
    path_.push_back(s.get());
    StmtExprVisitor::VisitStmt(s);
    path_.pop_back();
  }
  void VisitExpr_(const VarNode* op) override { Use(op); }
  void VisitExpr_(const SizeVarNode* op) override { Use(op); }
  void VisitExpr_(const BufferLoadNode* op) override {
    Use(op->buffer.get());
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    Use(op->buffer.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitBufferRegion(const BufferRegion& region) override {
    Use(region->buffer.get());
    StmtExprVisitor::VisitBufferRegion(region);
  }

 private:
  void Use(const Object* obj) {
    auto it = out_->find(obj);
    if (it == out_->end()) {
      out_->emplace(obj, path_);
      return;
    }
    std::vector<const Object*>& common = it->second;
    size_t n = 0;
    while (n < common.size() && n < path_.size() && common[n] == path_[n]) ++n;
    common.resize(n);
  }
  std::unordered_map<const Object*, std::vector<const Object*>>* out_;
  std::vector<const Object*> path_;
};
}  // namespace

void TIRPrinter::CollectUseScopes(const Stmt& stmt) {
  use_scopes_.clear();
  UseScopeCollector collector(&use_scopes_);
  collector.VisitStmt(stmt);
}

TIRPrinter::Frame* TIRPrinter::FreeDefinitionFrame(const Object* obj) {
  Frame* fallback = free_frame_ ? free_frame_ : frames_.front();
  auto it = use_scopes_.find(obj);
  if (it == use_scopes_.end()) return fallback;
  std::unordered_set<const Object*> scope(it->second.begin(), it->second.end());
  for (auto f = frames_.rbegin(); f != frames_.rend(); ++f) {
    if (*f == fallback) break;
    for (const Object* owner : (*f)->owners) {
      if (scope.count(owner)) return *f;
    }
  }
  return fallback;
}

// ---- buffers ----------------------------------------------------------------------------

namespace {
bool HasVar(const PrimExpr& e) {
  bool found = false;
  PostOrderVisit(e, [&](const ObjectRef& n) { found = found || n.as<VarNode>() != nullptr; });
  return found;
}
}  // namespace

/*! \brief elem_offset is the constructor's default: 0 in int32 (int64 for a zero-dim buffer). */
static bool IsDefaultElemOffset(const Buffer& buffer) {
  DataType want = buffer->shape.empty() ? DataType::Int(64) : DataType::Int(32);
  return IsConstInt(buffer->elem_offset, 0) && buffer->elem_offset.dtype() == want;
}

bool TIRPrinter::IsSimpleBuffer(const Buffer& buffer) {
  if (!buffer->strides.empty()) return false;
  for (const PrimExpr& d : buffer->shape) {
    if (HasVar(d)) return false;
  }
  return IsDefaultElemOffset(buffer) && buffer->scope == "global" && buffer->data_alignment == 64 &&
         buffer->offset_factor == 1;
}

ExprDoc TIRPrinter::BufferAnnotation(const Buffer& buffer) {
  std::vector<ExprDoc> shape;
  for (const PrimExpr& d : buffer->shape) shape.push_back(PrintExpr(d));
  return CallDoc(TIRAttr("Buffer"), {TupleDoc(shape), DTypeDoc(buffer->dtype)});
}

ExprDoc TIRPrinter::BufferDecl(const Buffer& buffer, const std::string& method,
                               std::vector<ExprDoc> args) {
  std::vector<ExprDoc> shape;
  for (const PrimExpr& d : buffer->shape) shape.push_back(PrintExpr(d));
  args.push_back(TupleDoc(shape));
  if (buffer->dtype != DataType::Float(32)) args.push_back(DTypeDoc(buffer->dtype));
  std::vector<std::pair<std::string, ExprDoc>> kwargs;
  // A data pointer that already has a name (an allocation, another buffer) is spelled out;
  // a lone `T.decl_buffer` always names its data, or it would read back as an allocation.
  if (IsDefined(buffer->data.get()) || method == "decl_buffer_with_data") {
    kwargs.emplace_back("data", PrintVarUse(buffer->data));
  }
  if (!buffer->strides.empty()) {
    std::vector<ExprDoc> strides;
    for (const PrimExpr& s : buffer->strides) strides.push_back(PrintExpr(s));
    kwargs.emplace_back("strides", TupleDoc(strides));
  }
  if (!IsDefaultElemOffset(buffer)) {
    kwargs.emplace_back("elem_offset", PrintExpr(buffer->elem_offset));
  }
  if (buffer->scope != "global") kwargs.emplace_back("scope", StrDoc(buffer->scope));
  if (buffer->data_alignment != 64) kwargs.emplace_back("align", IntDoc(buffer->data_alignment));
  if (buffer->offset_factor != 1) {
    kwargs.emplace_back("offset_factor", IntDoc(buffer->offset_factor));
  }
  std::string name = method == "decl_buffer_with_data" ? "decl_buffer" : method;
  return CallDoc(TIRAttr(name), std::move(args), std::move(kwargs));
}

ExprDoc TIRPrinter::PrintIndices(ExprDoc buffer, const Array<PrimExpr>& indices) {
  std::vector<ExprDoc> items;
  for (const PrimExpr& i : indices) items.push_back(PrintExpr(i));
  return IndexDoc(std::move(buffer), std::move(items));
}

ExprDoc TIRPrinter::PrintRange(const Range& range) {
  PrimExpr stop;
  try {
    stop = range->min + range->extent;
  } catch (const Error&) {
    stop = Add(range->min, range->extent);
  }
  return SliceDoc(PrintExpr(range->min), PrintExpr(stop));
}

ExprDoc TIRPrinter::PrintBufferRegion(const BufferRegion& region) {
  ExprDoc buffer = PrintBuffer(region->buffer);
  std::vector<ExprDoc> items;
  for (const Range& r : region->region) {
    if (IsConstInt(r->extent, 1)) {
      items.push_back(PrintExpr(r->min));
    } else {
      items.push_back(PrintRange(r));
    }
  }
  return IndexDoc(buffer, items);
}

ExprDoc TIRPrinter::PrintIterVar(const IterVar& iv) {
  static const char* kinds[] = {"DataPar", "ThreadIndex", "CommReduce", "Ordered", "Opaque"};
  int k = static_cast<int>(iv->iter_type);
  ExprDoc dom = NoneDoc();
  if (iv->dom.defined()) {
    dom = CallDoc(IdDoc("range"), {PrintExpr(iv->dom->min), PrintRange(iv->dom)->items[1]});
  }
  return CallDoc(TIRAttr("iter_var"),
                 {PrintVarUse(iv->var), dom, StrDoc(k >= 0 && k < 5 ? kinds[k] : "DataPar"),
                  StrDoc(iv->thread_tag)});
}

ExprDoc TIRPrinter::AnyDoc(const Any& value, int depth) {
  if (depth > 64) return NoneDoc();
  switch (value.tag()) {
    case Any::kNull:
      return NoneDoc();
    case Any::kBool:
      return BoolDoc(value.raw_int() != 0);
    case Any::kInt:
      return IntDoc(value.raw_int());
    case Any::kFloat:
      return FloatDoc(value.raw_float());
    case Any::kDataType:
      return DTypeDoc(value.raw_dtype());
    default:
      break;
  }
  if (value.is_string()) return StrDoc(value.cast<std::string>());
  if (auto* t = value.as<target::TargetNode>()) {
    std::vector<ExprDoc> args = {StrDoc(t->str())};
    if (auto* host = t->host.as<target::TargetNode>()) args.push_back(StrDoc(host->str()));
    return CallDoc(TIRAttr("target"), args);
  }
  if (auto* imm = value.as<IntImmNode>();
      imm && typed_int_attrs_ && imm->dtype == DataType::Int(32)) {
    // In a function's attributes a bare `1` reads back as a Python int: keep the IntImm's type.
    return CallDoc(TIRAttr("int32"), {IntDoc(imm->value)});
  }
  if (auto* e = value.as<PrimExprNode>()) return PrintExpr(GetRef<PrimExpr>(e));
  if (auto* b = value.as<BufferNode>()) return PrintBuffer(GetRef<Buffer>(b));
  if (auto* r = value.as<te::CommReducerNode>()) {
    // T.comm_reducer(lambda x, y: x + y, [T.float32(0)]): the parameters are the lhs then the
    // rhs variables, defined only inside the lambda.
    FrameScope scope(this);
    std::vector<ExprDoc> params;
    for (const Var& v : r->lhs) params.push_back(DefineVar(v, &scope.frame));
    for (const Var& v : r->rhs) params.push_back(DefineVar(v, &scope.frame));
    std::vector<ExprDoc> results;
    for (const PrimExpr& e : r->result) results.push_back(PrintExpr(e));
    ExprDoc body = results.size() == 1 ? results[0] : TupleDoc(results);
    std::vector<ExprDoc> ids;
    for (const PrimExpr& e : r->identity_element) ids.push_back(PrintExpr(e));
    return CallDoc(TIRAttr("comm_reducer"), {LambdaDoc(params, body), ListDoc(ids)});
  }
  if (auto* a = value.as<runtime::ArrayNode>()) {
    std::vector<ExprDoc> items;
    for (const Any& v : a->data) items.push_back(AnyDoc(v, depth + 1));
    return ListDoc(items);
  }
  if (auto* m = value.as<runtime::MapNode>()) {
    std::vector<std::pair<ExprDoc, ExprDoc>> items;
    for (const auto& [k, v] : m->data)
      items.emplace_back(AnyDoc(k, depth + 1), AnyDoc(v, depth + 1));
    return DictDoc(items);
  }
  return StrDoc(value.ToString());
}

// ---- expressions ------------------------------------------------------------------------

namespace {

/*! \brief The result of a builder, or undefined when it refuses (say, division by zero). */
PrimExpr TryBuild(const std::function<PrimExpr()>& build) {
  try {
    return build();
  } catch (const Error&) {
    return PrimExpr();
  }
}

/*! \brief True when `rebuilt` is a TNode over exactly op's operands. */
template <typename TNode>
bool SameBinary(const PrimExpr& rebuilt, const TNode* op) {
  auto* n = rebuilt.as<TNode>();
  return n && n->a.same_as(op->a) && n->b.same_as(op->b) && n->dtype == op->dtype;
}

}  // namespace

/*
 * An int32 immediate prints as a bare Python int (in Relax mode every integer does), and an
 * operator between two of those is evaluated by Python when the text is parsed, so it needs
 * the constructor.
 */
bool TIRPrinter::IsBareInt(const PrimExpr& e) const {
  auto* imm = e.as<IntImmNode>();
  if (!imm) return false;
  if (plain_ints) return imm->dtype.is_int() || imm->dtype.is_uint() || imm->dtype.is_bool();
  return imm->dtype == DataType::Int(32);
}

ExprDoc TIRPrinter::VisitExpr_(const VarNode* op) { return PrintVarUse(GetRef<Var>(op)); }
ExprDoc TIRPrinter::VisitExpr_(const SizeVarNode* op) { return PrintVarUse(GetRef<Var>(op)); }

ExprDoc TIRPrinter::VisitExpr_(const IntImmNode* op) {
  if (plain_ints && op->dtype.is_bool()) return BoolDoc(op->value != 0);
  if (op->dtype == DataType::Int(32) || (plain_ints && IsBareInt(GetRef<PrimExpr>(op)))) {
    return IntDoc(op->value);
  }
  if (op->dtype.is_bool()) return CallDoc(TIRAttr("bool"), {BoolDoc(op->value != 0)});
  return CallDoc(TIRAttr(runtime::DataTypeToString(op->dtype)), {IntDoc(op->value)});
}

ExprDoc TIRPrinter::VisitExpr_(const FloatImmNode* op) {
  bool f32 = op->dtype.bits() == 32;
  if (plain_literals) return FloatDoc(op->value);
  return CallDoc(TIRAttr(runtime::DataTypeToString(op->dtype)), {FloatDoc(op->value, f32)});
}

ExprDoc TIRPrinter::VisitExpr_(const StringImmNode* op) { return StrDoc(op->value.str()); }

ExprDoc TIRPrinter::VisitExpr_(const CastNode* op) {
  return CallDoc(TIRAttr("Cast"), {DTypeDoc(op->dtype), PrintExpr(op->value)});
}

#define MINITVM_PRINT_BINARY(Node, Kind, Raw, Build)                                         \
  ExprDoc TIRPrinter::VisitExpr_(const Node* op) {                                           \
    ExprDoc a = PrintExpr(op->a);                                                            \
    ExprDoc b = PrintExpr(op->b);                                                            \
    PrimExpr x = op->a, y = op->b;                                                           \
    if (plain_literals || (!(IsBareInt(x) && IsBareInt(y)) &&                                \
                           SameBinary(TryBuild([&]() -> PrimExpr { return Build; }), op))) { \
      return OperationDoc(OpKind::Kind, {a, b});                                             \
    }                                                                                        \
    return CallDoc(TIRAttr(Raw), {a, b});                                                    \
  }

MINITVM_PRINT_BINARY(AddNode, kAdd, "Add", x + y)
MINITVM_PRINT_BINARY(SubNode, kSub, "Sub", x - y)
MINITVM_PRINT_BINARY(MulNode, kMul, "Mul", x* y)
MINITVM_PRINT_BINARY(FloorDivNode, kFloorDiv, "FloorDiv", floordiv(x, y))
MINITVM_PRINT_BINARY(FloorModNode, kMod, "FloorMod", floormod(x, y))
MINITVM_PRINT_BINARY(EQNode, kEq, "EQ", x == y)
MINITVM_PRINT_BINARY(NENode, kNotEq, "NE", x != y)
MINITVM_PRINT_BINARY(LTNode, kLt, "LT", x < y)
MINITVM_PRINT_BINARY(LENode, kLtE, "LE", x <= y)
MINITVM_PRINT_BINARY(GTNode, kGt, "GT", x > y)
MINITVM_PRINT_BINARY(GENode, kGtE, "GE", x >= y)
MINITVM_PRINT_BINARY(AndNode, kAnd, "And", x&& y)
MINITVM_PRINT_BINARY(OrNode, kOr, "Or", x || y)
#undef MINITVM_PRINT_BINARY

ExprDoc TIRPrinter::VisitExpr_(const DivNode* op) {
  ExprDoc a = PrintExpr(op->a), b = PrintExpr(op->b);
  // Python's `/` is true division; an integer Div (C truncation) keeps its explicit name.
  if (plain_literals || (op->dtype.is_float() &&
                         SameBinary(TryBuild([&]() -> PrimExpr { return op->a / op->b; }), op))) {
    return OperationDoc(OpKind::kDiv, {a, b});
  }
  return CallDoc(TIRAttr("Div"), {a, b});
}

#define MINITVM_PRINT_CALL_BINARY(Node, Sugar, Raw, Build)                                        \
  ExprDoc TIRPrinter::VisitExpr_(const Node* op) {                                                \
    ExprDoc a = PrintExpr(op->a);                                                                 \
    ExprDoc b = PrintExpr(op->b);                                                                 \
    PrimExpr x = op->a, y = op->b;                                                                \
    bool sugar = plain_literals || SameBinary(TryBuild([&]() -> PrimExpr { return Build; }), op); \
    return CallDoc(TIRAttr(sugar ? Sugar : Raw), {a, b});                                         \
  }
MINITVM_PRINT_CALL_BINARY(ModNode, "truncmod", "Mod", truncmod(x, y))
MINITVM_PRINT_CALL_BINARY(MinNode, "min", "Min", tir::min(x, y))
MINITVM_PRINT_CALL_BINARY(MaxNode, "max", "Max", tir::max(x, y))
#undef MINITVM_PRINT_CALL_BINARY

ExprDoc TIRPrinter::VisitExpr_(const NotNode* op) {
  ExprDoc a = PrintExpr(op->a);
  PrimExpr rebuilt = TryBuild([&]() -> PrimExpr { return !op->a; });
  auto* n = rebuilt.as<NotNode>();
  if (plain_literals || (n && n->a.same_as(op->a))) return OperationDoc(OpKind::kNot, {a});
  return CallDoc(TIRAttr("Not"), {a});
}

ExprDoc TIRPrinter::VisitExpr_(const SelectNode* op) {
  return CallDoc(TIRAttr("Select"),
                 {PrintExpr(op->condition), PrintExpr(op->true_value), PrintExpr(op->false_value)});
}

ExprDoc TIRPrinter::VisitExpr_(const BufferLoadNode* op) {
  return PrintIndices(PrintBuffer(op->buffer), op->indices);
}

ExprDoc TIRPrinter::VisitExpr_(const RampNode* op) {
  return CallDoc(TIRAttr("Ramp"), {PrintExpr(op->base), PrintExpr(op->stride), IntDoc(op->lanes)});
}

ExprDoc TIRPrinter::VisitExpr_(const BroadcastNode* op) {
  return CallDoc(TIRAttr("Broadcast"), {PrintExpr(op->value), IntDoc(op->lanes)});
}

ExprDoc TIRPrinter::VisitExpr_(const LetNode* op) {
  ExprDoc var = PrintVarUse(op->var);
  ExprDoc value = PrintExpr(op->value);
  ExprDoc body = PrintExpr(op->body);
  return CallDoc(TIRAttr("Let"), {body}, {{"where", DictDoc({{var, value}})}});
}

ExprDoc TIRPrinter::VisitExpr_(const CallNode* op) {
  std::vector<ExprDoc> args;
  for (const PrimExpr& a : op->args) args.push_back(PrintExpr(a));
  const std::string& name = op->op.str();
  std::string short_name = name.rfind("tir.", 0) == 0 ? name.substr(4) : "";
  if (plain_literals && !short_name.empty()) return CallDoc(TIRAttr(short_name), args);
  if (name == "tir.call_tir" && !module_name_.empty() && !op->args.empty()) {
    // A call of another function of the module, as TVM prints a GlobalVar call: Module.f(...).
    if (auto* fname = op->args[0].as<StringImmNode>();
        fname && IsPythonIdentifier(fname->value.str())) {
      return CallDoc(AttrDoc(IdDoc(module_name_), fname->value.str()),
                     std::vector<ExprDoc>(args.begin() + 1, args.end()));
    }
  }
  // The intrinsic's own spelling (`T.exp(x)`) is used when its builder rebuilds this call.
  auto rebuilds = [&](const std::function<PrimExpr()>& build) {
    PrimExpr r = TryBuild(build);
    auto* c = r.as<CallNode>();
    if (!c || c->op != op->op || c->dtype != op->dtype || c->args.size() != op->args.size()) {
      return false;
    }
    for (size_t i = 0; i < op->args.size(); ++i) {
      if (!c->args[i].same_as(op->args[i])) return false;
    }
    return true;
  };
  const Array<PrimExpr>& a = op->args;
  // A float intrinsic TVMScript spells T.<name> (tir/builtin.h) when its builder rebuilds it.
  std::optional<Op> intrinsic = GetIntrinsic(name);
  if (intrinsic && GetIntrinsicFlag(*intrinsic, tir::attr::kFloatOnly) &&
      static_cast<int64_t>(a.size()) == (*intrinsic)->num_inputs) {
    std::string script = GetIntrinsicString(*intrinsic, tir::attr::kScriptPrinterName);
    if (!script.empty() && rebuilds([&] { return CallFloatIntrinsic(name, a); })) {
      return CallDoc(TIRAttr(script), args);
    }
  }
  if (short_name == "if_then_else" && a.size() == 3 &&
      rebuilds([&] { return if_then_else(a[0], a[1], a[2]); })) {
    return CallDoc(TIRAttr(short_name), args);
  }
  if (short_name == "likely" && a.size() == 1 && rebuilds([&] { return likely(a[0]); })) {
    return CallDoc(TIRAttr(short_name), args);
  }
  if (short_name == "reinterpret" && a.size() == 1 &&
      rebuilds([&] { return reinterpret(op->dtype, a[0]); })) {
    return CallDoc(TIRAttr(short_name), {DTypeDoc(op->dtype), args[0]});
  }
  // Bitwise intrinsics as TVM prints them; the parser builds them with both operands (and the
  // result) of one integer dtype.
  static const std::unordered_set<std::string> bitwise = {
      "bitwise_and", "bitwise_or", "bitwise_xor", "shift_left", "shift_right"};
  auto integral = [](DataType t) { return t.is_int() || t.is_uint() || t.is_bool(); };
  if (bitwise.count(short_name) && a.size() == 2 && integral(op->dtype) &&
      a[0].dtype() == op->dtype && a[1].dtype() == op->dtype) {
    return CallDoc(TIRAttr(short_name), args);
  }
  if (short_name == "bitwise_not" && a.size() == 1 && integral(op->dtype) &&
      a[0].dtype() == op->dtype) {
    return CallDoc(TIRAttr(short_name), args);
  }
  if (short_name == "assume" && a.size() == 1 && op->dtype.is_bool() && a[0].dtype().is_bool()) {
    return CallDoc(TIRAttr(short_name), args);
  }
  // An opaque intrinsic (GPU, lowered code) as T.<name>(...), with its dtype where TVM writes
  // it, when the parser rebuilds the same call from that text.
  if (intrinsic && !intrinsic->GetAttr(tir::attr::kScriptResultDType).is_null() &&
      ((*intrinsic)->num_inputs < 0 ||
       static_cast<int64_t>(a.size()) == (*intrinsic)->num_inputs)) {
    std::string where = GetIntrinsicString(*intrinsic, tir::attr::kScriptDTypeLocation);
    std::string result = GetIntrinsicString(*intrinsic, tir::attr::kScriptResultDType);
    std::string script = GetIntrinsicString(*intrinsic, tir::attr::kScriptPrinterName);
    bool implied = false;
    if (result.rfind("arg", 0) == 0) {
      size_t k = std::stoul(result.substr(3));
      implied = k < a.size() && a[k].dtype() == op->dtype;
    } else if (!result.empty()) {
      implied = DataType(result) == op->dtype;
    }
    if (where == "first") {
      args.insert(args.begin(), DTypeDoc(op->dtype));
      return CallDoc(TIRAttr(script), args);
    }
    if (where == "last") {
      args.push_back(DTypeDoc(op->dtype));
      return CallDoc(TIRAttr(script), args);
    }
    if (implied) return CallDoc(TIRAttr(script), args);
  }
  if (short_name == "call_extern" && !a.empty() && a[0].as<StringImmNode>()) {
    args.insert(args.begin(), DTypeDoc(op->dtype));
    return CallDoc(TIRAttr("call_extern"), args);
  }
  args.insert(args.begin(), StrDoc(name));
  args.insert(args.begin(), DTypeDoc(op->dtype));
  return CallDoc(TIRAttr("call_intrin"), args);
}

}  // namespace printer
}  // namespace script
}  // namespace minitvm

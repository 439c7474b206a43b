/*!
 * \file nodes.cc
 * \brief Constructors of the TensorIR nodes, with the dtype and arity checks that keep IR
 * well-typed (stage 2).
 */
#include <sstream>

#include "minitvm/tir/function.h"
#include "minitvm/tir/stmt.h"

namespace minitvm {
namespace tir {

namespace {
/*! \brief An integer scalar that can count: int or uint, not bool, not a vector. */
bool IsIndexType(DataType t) {
  return (t.is_int() || t.is_uint()) && !t.is_bool() && t.is_scalar();
}

/*!
 * \brief Arrays from Python are not checked element by element on the way in (an Array<Stmt>
 * may hold a PrimExpr): check each element is a T before the node is built.
 */
template <typename T>
void CheckElements(const Array<T>& items, const std::string& node, const char* field,
                   const char* what) {
  if (!items.get()) return;
  for (size_t i = 0; i < items->data.size(); ++i) {
    const Any& x = items->data[i];
    if (x.as<typename T::ContainerType>()) continue;
    MINITVM_THROW(TypeError) << node << ": " << field << "[" << i << "] is " << x.type_name()
                             << ", not " << what;
  }
}
}  // namespace

// ---- variables and buffers ---------------------------------------------------------------

Var::Var(String name_hint, DataType dtype) {
  auto n = make_object<VarNode>();
  n->name_hint = std::move(name_hint);
  n->dtype = dtype;
  data_ = std::move(n);
}
Var Var::copy_with_suffix(const std::string& suffix) const {
  return copy_with_name(get()->name_hint.str() + suffix);
}
Var Var::copy_with_name(const std::string& name) const {
  if (as<SizeVarNode>()) return SizeVar(name, dtype());
  return Var(name, dtype());
}

SizeVar::SizeVar(String name_hint, DataType dtype) {
  auto n = make_object<SizeVarNode>();
  n->name_hint = std::move(name_hint);
  n->dtype = dtype;
  data_ = std::move(n);
}

IterVar::IterVar(Range dom, Var var, IterVarType iter_type, String thread_tag) {
  if (!var.defined()) MINITVM_THROW(ValueError) << "IterVar: undefined variable";
  if (static_cast<int>(iter_type) < kDataPar || static_cast<int>(iter_type) > kOpaque) {
    MINITVM_THROW(ValueError) << "IterVar " << var->name_hint << ": iter_type "
                              << static_cast<int>(iter_type)
                              << " is not an iterator kind (0 DataPar, 1 ThreadIndex, "
                                 "2 CommReduce, 3 Ordered, 4 Opaque)";
  }
  if (!IsIndexType(var.dtype())) {
    MINITVM_THROW(ValueError) << "IterVar " << var->name_hint << ": the variable must be an "
                              << "integer scalar, got " << var.dtype();
  }
  auto n = make_object<IterVarNode>();
  n->dom = std::move(dom);
  n->var = std::move(var);
  n->iter_type = iter_type;
  n->thread_tag = std::move(thread_tag);
  data_ = std::move(n);
}

Buffer::Buffer(Var data, DataType dtype, Array<PrimExpr> shape, Array<PrimExpr> strides,
               PrimExpr elem_offset, String name, String scope, int64_t data_alignment,
               int64_t offset_factor) {
  if (!data.defined()) MINITVM_THROW(ValueError) << "Buffer " << name << ": undefined data var";
  if (!strides.empty() && strides.size() != shape.size()) {
    MINITVM_THROW(ValueError) << "Buffer " << name << ": " << strides.size()
                              << " strides for a shape of rank " << shape.size();
  }
  for (const PrimExpr& d : shape) {
    if (!d.defined() || !(d.dtype().is_int() || d.dtype().is_uint())) {
      MINITVM_THROW(ValueError) << "Buffer " << name << ": shape entries must be integers";
    }
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (auto* imm = shape[i].as<IntImmNode>(); imm && imm->value < 0) {
      MINITVM_THROW(ValueError) << "Buffer " << name << ": shape[" << i << "] is negative ("
                                << imm->value << ")";
    }
  }
  auto n = make_object<BufferNode>();
  n->data = std::move(data);
  n->dtype = dtype;
  n->shape = std::move(shape);
  n->strides = std::move(strides);
  // As TVM: the default offset is 0 in the index dtype, which is int64 for a zero-dim buffer.
  n->elem_offset = elem_offset.defined()
                       ? elem_offset
                       : IntImm(n->shape.empty() ? DataType::Int(64) : DataType::Int(32), 0);
  n->name = std::move(name);
  // As TVM, the empty storage scope is "global".
  n->scope = scope.empty() ? String("global") : std::move(scope);
  n->data_alignment = data_alignment;
  n->offset_factor = offset_factor;
  data_ = std::move(n);
}

PrimExpr Buffer::operator()(Array<PrimExpr> indices) const { return BufferLoad(*this, indices); }

Buffer decl_buffer(Array<PrimExpr> shape, DataType dtype, String name, String scope) {
  return Buffer(Var(name, DataType::Handle()), dtype, std::move(shape), {}, PrimExpr(), name,
                scope);
}

BufferRegion::BufferRegion(Buffer buffer, Array<Range> region) {
  if (region.size() != buffer->shape.size()) {
    MINITVM_THROW(ValueError) << "BufferRegion of " << buffer->name << ": " << region.size()
                              << " ranges for a buffer of rank " << buffer->shape.size();
  }
  auto n = make_object<BufferRegionNode>();
  n->buffer = std::move(buffer);
  n->region = std::move(region);
  data_ = std::move(n);
}

BufferRegion BufferRegion::FullRegion(Buffer buffer) {
  Array<Range> region;
  for (const PrimExpr& d : buffer->shape) region.push_back(Range(PrimExpr(0), d));
  return BufferRegion(buffer, region);
}

// ---- expressions -------------------------------------------------------------------------

namespace {
void CheckDefined(const PrimExpr& e, const char* node, const char* field) {
  if (!e.defined()) MINITVM_THROW(ValueError) << node << ": operand " << field << " is undefined";
}
void CheckSameType(const PrimExpr& a, const PrimExpr& b, const char* node) {
  CheckDefined(a, node, "a");
  CheckDefined(b, node, "b");
  if (a.dtype() != b.dtype()) {
    MINITVM_THROW(ValueError) << node << ": operand types differ: " << a.dtype() << " vs "
                              << b.dtype();
  }
}
template <typename TNode>
ObjectPtr<Object> MakeBinary(PrimExpr a, PrimExpr b, DataType dtype) {
  auto n = make_object<TNode>();
  n->dtype = dtype;
  n->a = std::move(a);
  n->b = std::move(b);
  return n;
}
}  // namespace

StringImm::StringImm(String value) {
  auto n = make_object<StringImmNode>();
  n->dtype = DataType::Handle();
  n->value = std::move(value);
  data_ = std::move(n);
}

Cast::Cast(DataType dtype, PrimExpr value) {
  CheckDefined(value, "Cast", "value");
  if (dtype.lanes() != value.dtype().lanes()) {
    MINITVM_THROW(ValueError) << "Cast: cannot change lanes from " << value.dtype() << " to "
                              << dtype;
  }
  auto n = make_object<CastNode>();
  n->dtype = dtype;
  n->value = std::move(value);
  data_ = std::move(n);
}

#define MINITVM_ARITH_CTOR(Name)                                   \
  Name::Name(PrimExpr a, PrimExpr b) {                             \
    CheckSameType(a, b, #Name);                                    \
    DataType t = a.dtype();                                        \
    data_ = MakeBinary<Name##Node>(std::move(a), std::move(b), t); \
  }
MINITVM_ARITH_CTOR(Add)
MINITVM_ARITH_CTOR(Sub)
MINITVM_ARITH_CTOR(Mul)
MINITVM_ARITH_CTOR(Div)
MINITVM_ARITH_CTOR(Mod)
MINITVM_ARITH_CTOR(FloorDiv)
MINITVM_ARITH_CTOR(FloorMod)
MINITVM_ARITH_CTOR(Min)
MINITVM_ARITH_CTOR(Max)
#undef MINITVM_ARITH_CTOR

#define MINITVM_CMP_CTOR(Name)                                     \
  Name::Name(PrimExpr a, PrimExpr b) {                             \
    CheckSameType(a, b, #Name);                                    \
    DataType t = DataType::Bool(a.dtype().lanes());                \
    data_ = MakeBinary<Name##Node>(std::move(a), std::move(b), t); \
  }
MINITVM_CMP_CTOR(EQ)
MINITVM_CMP_CTOR(NE)
MINITVM_CMP_CTOR(LT)
MINITVM_CMP_CTOR(LE)
MINITVM_CMP_CTOR(GT)
MINITVM_CMP_CTOR(GE)
#undef MINITVM_CMP_CTOR

#define MINITVM_LOGIC_CTOR(Name)                                                          \
  Name::Name(PrimExpr a, PrimExpr b) {                                                    \
    CheckSameType(a, b, #Name);                                                           \
    if (!a.dtype().is_bool()) {                                                           \
      MINITVM_THROW(ValueError) << #Name << ": operands must be bool, got " << a.dtype(); \
    }                                                                                     \
    DataType t = a.dtype();                                                               \
    data_ = MakeBinary<Name##Node>(std::move(a), std::move(b), t);                        \
  }
MINITVM_LOGIC_CTOR(And)
MINITVM_LOGIC_CTOR(Or)
#undef MINITVM_LOGIC_CTOR

Not::Not(PrimExpr a) {
  CheckDefined(a, "Not", "a");
  if (!a.dtype().is_bool())
    MINITVM_THROW(ValueError) << "Not: operand must be bool, got " << a.dtype();
  auto n = make_object<NotNode>();
  n->dtype = a.dtype();
  n->a = std::move(a);
  data_ = std::move(n);
}

Select::Select(PrimExpr condition, PrimExpr true_value, PrimExpr false_value) {
  CheckDefined(condition, "Select", "condition");
  CheckSameType(true_value, false_value, "Select");
  if (!condition.dtype().is_bool()) {
    MINITVM_THROW(ValueError) << "Select: condition must be bool, got " << condition.dtype();
  }
  auto n = make_object<SelectNode>();
  n->dtype = true_value.dtype();
  n->condition = std::move(condition);
  n->true_value = std::move(true_value);
  n->false_value = std::move(false_value);
  data_ = std::move(n);
}

BufferLoad::BufferLoad(Buffer buffer, Array<PrimExpr> indices) {
  if (!buffer.defined()) MINITVM_THROW(ValueError) << "BufferLoad: undefined buffer";
  if (indices.size() != buffer->shape.size()) {
    MINITVM_THROW(ValueError) << "buffer " << buffer->name << " has rank " << buffer->shape.size()
                              << " but is indexed with " << indices.size() << " indices";
  }
  int lanes = 1;
  for (const PrimExpr& i : indices) {
    if (!i.defined())
      MINITVM_THROW(ValueError) << "BufferLoad of " << buffer->name << ": undefined index";
    if (!(i.dtype().is_int() || i.dtype().is_uint())) {
      MINITVM_THROW(ValueError) << "buffer " << buffer->name << " indexed with a " << i.dtype()
                                << " value; indices must be integers";
    }
    if (i.dtype().lanes() > 1) lanes = i.dtype().lanes();
  }
  auto n = make_object<BufferLoadNode>();
  n->dtype = buffer->dtype.with_lanes(lanes * buffer->dtype.lanes());
  n->buffer = std::move(buffer);
  n->indices = std::move(indices);
  data_ = std::move(n);
}

Ramp::Ramp(PrimExpr base, PrimExpr stride, int64_t lanes) {
  CheckSameType(base, stride, "Ramp");
  if (lanes < 2) MINITVM_THROW(ValueError) << "Ramp: lanes must be >= 2, got " << lanes;
  auto n = make_object<RampNode>();
  n->dtype = base.dtype().with_lanes(static_cast<int>(lanes));
  n->base = std::move(base);
  n->stride = std::move(stride);
  n->lanes = lanes;
  data_ = std::move(n);
}

Broadcast::Broadcast(PrimExpr value, int64_t lanes) {
  CheckDefined(value, "Broadcast", "value");
  if (lanes < 2) MINITVM_THROW(ValueError) << "Broadcast: lanes must be >= 2, got " << lanes;
  if (!value.dtype().is_scalar()) MINITVM_THROW(ValueError) << "Broadcast: value must be scalar";
  auto n = make_object<BroadcastNode>();
  n->dtype = value.dtype().with_lanes(static_cast<int>(lanes));
  n->value = std::move(value);
  n->lanes = lanes;
  data_ = std::move(n);
}

namespace {
/*! \brief A let binds a value of the variable's own dtype (TVM checks the same). */
void CheckBinding(const Var& var, const PrimExpr& value, const char* node) {
  if (!var.defined()) MINITVM_THROW(ValueError) << node << ": undefined variable";
  if (!value.defined()) {
    MINITVM_THROW(ValueError) << node << " " << var->name_hint << ": undefined value";
  }
  if (value.dtype() != var.dtype()) {
    MINITVM_THROW(ValueError) << node << " " << var->name_hint << ": the value has dtype "
                              << value.dtype() << " but the variable is " << var.dtype()
                              << " (cast the value)";
  }
}
}  // namespace

Let::Let(Var var, PrimExpr value, PrimExpr body) {
  CheckBinding(var, value, "Let");
  CheckDefined(body, "Let", "body");
  auto n = make_object<LetNode>();
  n->dtype = body.dtype();
  n->var = std::move(var);
  n->value = std::move(value);
  n->body = std::move(body);
  data_ = std::move(n);
}

Call::Call(DataType dtype, String op, Array<PrimExpr> args) {
  // Every intrinsic lives in the "tir." namespace (printing and parsing rely on it) and other
  // functions are reached through tir.call_extern. The set stays open: tir/builtin.h registers
  // the intrinsics minitvm implements, later passes add their own (tir.tvm_struct_get), and
  // the interpreter and code generators refuse names they do not know.
  const std::string& name = op.str();
  if (name.size() <= 4 || name.compare(0, 4, "tir.") != 0) {
    MINITVM_THROW(ValueError) << "Call: op \"" << name
                              << "\" is not an intrinsic name: intrinsics are named "
                                 "\"tir.<name>\" (\"tir.exp\", \"tir.if_then_else\"); call an "
                                 "external function with tir.call_extern";
  }
  for (const PrimExpr& a : args) {
    if (!a.defined()) MINITVM_THROW(ValueError) << "Call " << op << ": undefined argument";
  }
  auto n = make_object<CallNode>();
  n->dtype = dtype;
  n->op = std::move(op);
  n->args = std::move(args);
  data_ = std::move(n);
}

// ---- statements ------------------------------------------------------------------------

const char* ForKindName(ForKind kind) {
  switch (kind) {
    case ForKind::kSerial:
      return "serial";
    case ForKind::kParallel:
      return "parallel";
    case ForKind::kVectorized:
      return "vectorized";
    case ForKind::kUnrolled:
      return "unroll";
    case ForKind::kThreadBinding:
      return "thread_binding";
  }
  return "unknown";
}

BufferStore::BufferStore(Buffer buffer, PrimExpr value, Array<PrimExpr> indices) {
  if (!buffer.defined()) MINITVM_THROW(ValueError) << "BufferStore: undefined buffer";
  if (!value.defined())
    MINITVM_THROW(ValueError) << "BufferStore to " << buffer->name << ": undefined value";
  if (indices.size() != buffer->shape.size()) {
    MINITVM_THROW(ValueError) << "buffer " << buffer->name << " has rank " << buffer->shape.size()
                              << " but is indexed with " << indices.size() << " indices";
  }
  if (value.dtype().element_of() != buffer->dtype.element_of()) {
    MINITVM_THROW(ValueError) << "storing a " << value.dtype() << " value into buffer "
                              << buffer->name << " of dtype " << buffer->dtype;
  }
  auto n = make_object<BufferStoreNode>();
  n->buffer = std::move(buffer);
  n->value = std::move(value);
  n->indices = std::move(indices);
  data_ = std::move(n);
}

namespace {
/*!
 * \brief A loop's min and extent have the loop variable's dtype, as TVM requires. Like TVM,
 * an integer constant of another width is converted (range(8) makes an int32 8, which an
 * int64 loop takes as T.int64(8)); any other mismatch is an error.
 */
PrimExpr MatchLoopBound(PrimExpr e, const Var& loop_var, const char* field) {
  DataType want = loop_var.dtype();
  if (!IsIndexType(e.dtype())) {
    MINITVM_THROW(ValueError) << "For " << loop_var->name_hint << ": " << field
                              << " must be an integer scalar, got " << e.dtype();
  }
  if (e.dtype() == want) return e;
  if (auto* imm = e.as<IntImmNode>()) {
    try {
      return IntImm(want, imm->value);
    } catch (const Error&) {
      MINITVM_THROW(ValueError) << "For " << loop_var->name_hint << ": " << field << " "
                                << imm->value << " does not fit the loop variable's dtype " << want;
    }
  }
  MINITVM_THROW(ValueError) << "For " << loop_var->name_hint << ": " << field << " has dtype "
                            << e.dtype() << " but the loop variable is " << want
                            << " (they must match; cast one of them)";
}
}  // namespace

For::For(Var loop_var, PrimExpr min, PrimExpr extent, ForKind kind, Stmt body,
         IterVar thread_binding, Map<String, Any> annotations) {
  if (!loop_var.defined() || !min.defined() || !extent.defined() || !body.defined()) {
    MINITVM_THROW(ValueError) << "For: loop variable, min, extent and body must be defined";
  }
  if (static_cast<int>(kind) < static_cast<int>(ForKind::kSerial) ||
      static_cast<int>(kind) > static_cast<int>(ForKind::kThreadBinding)) {
    MINITVM_THROW(ValueError) << "For " << loop_var->name_hint << ": kind "
                              << static_cast<int>(kind) << " is not a ForKind (0 serial, "
                              << "1 parallel, 2 vectorized, 3 unrolled, 4 thread_binding)";
  }
  if (!IsIndexType(loop_var.dtype())) {
    MINITVM_THROW(ValueError) << "For " << loop_var->name_hint
                              << ": the loop variable must be an integer scalar, got "
                              << loop_var.dtype();
  }
  min = MatchLoopBound(std::move(min), loop_var, "min");
  extent = MatchLoopBound(std::move(extent), loop_var, "extent");
  if (kind == ForKind::kThreadBinding && !thread_binding.defined()) {
    MINITVM_THROW(ValueError) << "For " << loop_var->name_hint
                              << ": a thread_binding loop needs a thread axis";
  }
  auto n = make_object<ForNode>();
  n->loop_var = std::move(loop_var);
  n->min = std::move(min);
  n->extent = std::move(extent);
  n->kind = kind;
  n->body = std::move(body);
  n->thread_binding = std::move(thread_binding);
  n->annotations = std::move(annotations);
  data_ = std::move(n);
}

While::While(PrimExpr condition, Stmt body) {
  auto n = make_object<WhileNode>();
  n->condition = std::move(condition);
  n->body = std::move(body);
  data_ = std::move(n);
}

IfThenElse::IfThenElse(PrimExpr condition, Stmt then_case, Stmt else_case) {
  if (!condition.defined() || !then_case.defined()) {
    MINITVM_THROW(ValueError) << "IfThenElse: condition and then_case must be defined";
  }
  auto n = make_object<IfThenElseNode>();
  n->condition = std::move(condition);
  n->then_case = std::move(then_case);
  n->else_case = std::move(else_case);
  data_ = std::move(n);
}

SeqStmt::SeqStmt(Array<Stmt> seq) {
  // As in TVM, the elements are statements: an expression is not wrapped silently, the caller
  // writes Evaluate(expr) (T.evaluate in TVMScript).
  CheckElements(seq, "SeqStmt", "seq", "a Stmt (wrap an expression in Evaluate)");
  auto n = make_object<SeqStmtNode>();
  n->seq = std::move(seq);
  data_ = std::move(n);
}

Stmt SeqStmt::Flatten(const Array<Stmt>& stmts) {
  Array<Stmt> flat;
  std::function<void(const Stmt&)> add = [&](const Stmt& s) {
    if (!s.defined()) return;
    if (auto* seq = s.as<SeqStmtNode>()) {
      for (const Stmt& c : seq->seq) add(c);
    } else {
      flat.push_back(s);
    }
  };
  for (const Stmt& s : stmts) add(s);
  if (flat.size() == 1) return flat[0];
  return SeqStmt(flat);
}

Evaluate::Evaluate(PrimExpr value) {
  auto n = make_object<EvaluateNode>();
  n->value = std::move(value);
  data_ = std::move(n);
}

LetStmt::LetStmt(Var var, PrimExpr value, Stmt body) {
  CheckBinding(var, value, "LetStmt");
  if (!body.defined())
    MINITVM_THROW(ValueError) << "LetStmt " << var->name_hint << ": undefined body";
  auto n = make_object<LetStmtNode>();
  n->var = std::move(var);
  n->value = std::move(value);
  n->body = std::move(body);
  data_ = std::move(n);
}

AssertStmt::AssertStmt(PrimExpr condition, PrimExpr message, Stmt body) {
  auto n = make_object<AssertStmtNode>();
  n->condition = std::move(condition);
  n->message = std::move(message);
  n->body = std::move(body);
  data_ = std::move(n);
}

Allocate::Allocate(Var buffer_var, DataType dtype, Array<PrimExpr> extents, PrimExpr condition,
                   Stmt body, String scope, Map<String, Any> annotations) {
  auto n = make_object<AllocateNode>();
  n->buffer_var = std::move(buffer_var);
  n->dtype = dtype;
  n->extents = std::move(extents);
  n->condition = condition.defined() ? condition : IntImm(DataType::Bool(), 1);
  n->body = std::move(body);
  n->scope = std::move(scope);
  n->annotations = std::move(annotations);
  data_ = std::move(n);
}

DeclBuffer::DeclBuffer(Buffer buffer, Stmt body) {
  auto n = make_object<DeclBufferNode>();
  n->buffer = std::move(buffer);
  n->body = std::move(body);
  data_ = std::move(n);
}

AttrStmt::AttrStmt(ObjectRef node, String attr_key, PrimExpr value, Stmt body) {
  auto n = make_object<AttrStmtNode>();
  n->node = std::move(node);
  n->attr_key = std::move(attr_key);
  n->value = std::move(value);
  n->body = std::move(body);
  data_ = std::move(n);
}

MatchBufferRegion::MatchBufferRegion(Buffer buffer, BufferRegion source) {
  auto n = make_object<MatchBufferRegionNode>();
  n->buffer = std::move(buffer);
  n->source = std::move(source);
  data_ = std::move(n);
}

Block::Block(Array<IterVar> iter_vars, Array<BufferRegion> reads, Array<BufferRegion> writes,
             String name_hint, Stmt body, Stmt init, Array<Buffer> alloc_buffers,
             Array<MatchBufferRegion> match_buffers, Map<String, Any> annotations) {
  if (!body.defined()) MINITVM_THROW(ValueError) << "Block " << name_hint << ": undefined body";
  std::string node = "Block " + name_hint.str();
  CheckElements(iter_vars, node, "iter_vars", "an IterVar");
  CheckElements(reads, node, "reads", "a BufferRegion");
  CheckElements(writes, node, "writes", "a BufferRegion");
  CheckElements(alloc_buffers, node, "alloc_buffers", "a Buffer");
  CheckElements(match_buffers, node, "match_buffers", "a MatchBufferRegion");
  auto n = make_object<BlockNode>();
  n->iter_vars = std::move(iter_vars);
  n->reads = std::move(reads);
  n->writes = std::move(writes);
  n->name_hint = std::move(name_hint);
  n->body = std::move(body);
  n->init = std::move(init);
  n->alloc_buffers = std::move(alloc_buffers);
  n->match_buffers = std::move(match_buffers);
  n->annotations = std::move(annotations);
  data_ = std::move(n);
}

BlockRealize::BlockRealize(Array<PrimExpr> iter_values, PrimExpr predicate, Block block) {
  if (!block.defined()) MINITVM_THROW(ValueError) << "BlockRealize: undefined block";
  if (iter_values.size() != block->iter_vars.size()) {
    MINITVM_THROW(ValueError) << "block " << block->name_hint << " has " << block->iter_vars.size()
                              << " iterators but is bound to " << iter_values.size() << " values";
  }
  auto n = make_object<BlockRealizeNode>();
  n->iter_values = std::move(iter_values);
  n->predicate = predicate.defined() ? predicate : IntImm(DataType::Bool(), 1);
  n->block = std::move(block);
  data_ = std::move(n);
}

PrimFunc::PrimFunc(Array<Var> params, Stmt body, Map<Var, Buffer> buffer_map,
                   Map<String, Any> attrs, DataType ret_type) {
  if (!body.defined()) MINITVM_THROW(ValueError) << "PrimFunc: undefined body";
  CheckElements(params, "PrimFunc", "params", "a Var");
  for (const auto& [var, buf] : buffer_map.items()) {
    bool found = false;
    for (const Var& p : params) found = found || p.same_as(var);
    if (!found) {
      MINITVM_THROW(ValueError) << "PrimFunc: buffer " << buf->name
                                << " is bound to a variable that is not a parameter";
    }
  }
  auto n = make_object<PrimFuncNode>();
  n->params = std::move(params);
  n->body = std::move(body);
  n->buffer_map = std::move(buffer_map);
  n->attrs = std::move(attrs);
  n->ret_type = ret_type;
  data_ = std::move(n);
}

}  // namespace tir
}  // namespace minitvm

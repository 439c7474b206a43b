/*!
 * \file tir_parser_impl.h
 * \brief The evaluator that turns the Python syntax tree into TensorIR (stage 2, private).
 * Split over tir_parser_expr.cc (values, names, expressions, the `T.*` functions) and
 * tir_parser_stmt.cc (statements, blocks, functions, modules).
 *
 * Script expressions evaluate to `Value`s: Python numbers and strings stay Python values
 * (so `8 * 4` is 32 and `1.0` keeps full precision until it meets a typed operand), TIR
 * expressions are PrimExprs, and the `T.*` functions that declare something (a buffer, a block
 * iterator, a scoped statement) return a pending declaration that the assignment or `with`
 * around them completes with the target's name.
 */
#ifndef MINITVM_SCRIPT_TIR_PARSER_IMPL_H_
#define MINITVM_SCRIPT_TIR_PARSER_IMPL_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "minitvm/ir/module.h"
#include "minitvm/ir/op.h"
#include "minitvm/script/ast.h"
#include "minitvm/script/diagnostic.h"
#include "minitvm/script/parser_ext.h"
#include "minitvm/tir/function.h"
#include "minitvm/tir/stmt.h"

namespace minitvm {
namespace script {
namespace tir_parser {

using tir::Buffer;
using tir::Stmt;
using tir::Var;

/*! \brief A buffer being declared: everything but its name. */
struct BufferSpec {
  Array<PrimExpr> shape;
  DataType dtype = DataType::Float(32);
  Var data;
  Array<PrimExpr> strides;
  PrimExpr elem_offset;
  std::string scope = "global";
  int64_t align = 64;
  int64_t offset_factor = 1;
};

/*! \brief The iteration space of a `for`: one (min, extent) per loop variable. */
struct LoopSpec {
  tir::ForKind kind = tir::ForKind::kSerial;
  std::vector<std::pair<PrimExpr, PrimExpr>> ranges;
  std::string thread;
  Map<String, Any> annotations;
};

/*! \brief A statement that scopes over a body: `T.allocate`, `T.attr`, `T.LetStmt`, ... */
struct ScopeSpec {
  enum class Kind { kLet, kAllocate, kDeclBuffer, kAttr, kLaunchThread, kAssert, kRealize };
  Kind kind = Kind::kLet;
  PrimExpr value;           ///< let value, attr value, thread extent, assert condition
  DataType dtype;           ///< let annotation / allocate dtype
  Var var;                  ///< an existing variable (LetStmt var=, launch_thread(var, ...))
  Array<PrimExpr> extents;  ///< allocate
  std::string scope = "global";
  PrimExpr condition;          ///< allocate
  Array<PrimExpr> const_data;  ///< allocate_const: the values (non-empty marks a constant)
  Map<String, Any> annotations;
  std::shared_ptr<BufferSpec> buffer;  ///< decl_buffer
  ObjectRef node;                      ///< attr
  std::string key;                     ///< attr key / thread tag
  tir::IterVar iter_var;               ///< launch_thread of an env_thread
  PrimExpr message;                    ///< assert
  tir::BufferRegion region;            ///< realize: the buffer and its bounds
};

/*! \brief The value of a script expression. */
struct Value {
  enum class Kind {
    kNone,
    kBool,
    kInt,
    kFloat,
    kStr,
    kExpr,    ///< a PrimExpr
    kBuffer,  ///< a Buffer
    kRegion,  ///< a BufferRegion (a subscript with slices)
    kTuple,
    kList,
    kDict,        ///< items are the keys, values the values
    kSlice,       ///< items: start, stop, step (kNone when absent)
    kBuiltin,     ///< a T.* function, by canonical name in `str`
    kNamespace,   ///< T, I, tvm.script, ... by canonical name in `str`
    kDType,       ///< T.float32 etc. used as a type
    kIterVar,     ///< an env_thread / T.iter_var
    kAxis,        ///< a pending block iterator (T.axis.spatial(...))
    kLoop,        ///< a loop iteration space (range(...), T.grid(...))
    kScope,       ///< a pending scoped statement
    kStmt,        ///< a finished statement (T.evaluate(...))
    kBufferDecl,  ///< a pending buffer: alloc_buffer / match_buffer / Buffer / decl_buffer
    kVarDecl,     ///< a pending variable: T.int32(), T.handle()
    kEnvThread,   ///< a pending T.env_thread("threadIdx.x")
    kBlock,       ///< T.block(name): `str` is the name, `size_var` is no_realize
    kInit,        ///< T.init()
    kEllipsis,
    kObject,  ///< another IR object kept as an attribute value (T.target(...))
    kLambda,  ///< a `lambda` (T.comm_reducer's combiner): its syntax tree in `lambda`
  };
  Kind kind = Kind::kNone;
  Span span;
  int64_t i = 0;
  double f = 0;
  std::string str;
  PrimExpr expr;
  Buffer buffer;
  tir::BufferRegion region;
  tir::IterVar iter_var;
  DataType dtype;
  std::vector<Value> items;
  std::vector<Value> values;
  // kAxis
  tir::IterVarType axis_type = tir::kDataPar;
  Range axis_dom;
  PrimExpr axis_binding;
  // kLoop / kScope / kBufferDecl payloads
  std::shared_ptr<LoopSpec> loop;
  std::shared_ptr<ScopeSpec> scope;
  std::shared_ptr<BufferSpec> buffer_spec;
  /*! \brief kBufferDecl: "alloc_buffer", "match_buffer", "Buffer", "decl_buffer". */
  std::string method;
  /*! \brief kBufferDecl match_buffer: the handle parameter or the source region. */
  Var match_param;
  tir::BufferRegion match_region;
  /*! \brief kVarDecl: a SizeVar. */
  bool size_var = false;
  Stmt stmt;
  /*! \brief T.meta_var(...): assigning it binds the name to the value, not a new variable. */
  bool meta = false;
  /*! \brief kObject: the object. */
  ObjectRef object;
  /*! \brief kLambda: the lambda expression (owned by the syntax tree being evaluated). */
  const ast::Expr* lambda = nullptr;

  bool IsNumber() const {
    return kind == Kind::kInt || kind == Kind::kFloat || kind == Kind::kBool;
  }
  /*! \brief Python's name for the value's type, for messages ("int", "Buffer", ...). */
  std::string TypeName() const;
};

/*! \brief Whether `name` ("T.grid", "I.ir_module", ...) is a function the parser knows. */
bool IsBuiltinName(const std::string& name);

/*! \brief Arguments of a call, evaluated, bound to a builtin's parameter names. */
struct CallArgs {
  std::string func;  ///< the name for messages, e.g. "T.axis.spatial"
  Span span;
  std::vector<Value> args;
  std::vector<std::pair<std::string, Value>> kwargs;
  /*! \brief The parameter names, in order, of the builtin these args were bound to. */
  std::vector<std::string> params;
  /*! \brief For a dtype call (`T.float32(1)`): the dtype. */
  DataType dtype;
  /*! \brief Argument `name` (positional or keyword), or null when absent. */
  const Value* Get(size_t index, const std::string& name) const;
};

/*! \brief What is being built around the current statement. */
struct BlockBuilder {
  std::string name;
  bool no_realize = false;
  Array<tir::IterVar> iter_vars;
  Array<PrimExpr> iter_values;
  PrimExpr predicate;
  std::optional<Array<tir::BufferRegion>> reads;
  std::optional<Array<tir::BufferRegion>> writes;
  Map<String, Any> annotations;
  Array<Buffer> alloc_buffers;
  Array<tir::MatchBufferRegion> match_buffers;
  Stmt init;
  bool body_started = false;
};

/*! \brief The PrimFunc being built. */
struct FuncBuilder {
  std::string name;
  bool is_private = false;
  Array<Var> params;
  Map<Var, Buffer> buffer_map;
  std::optional<Map<String, Any>> attrs;
  Array<Buffer> root_allocs;
  DataType ret_type = DataType::Void();
};

/*! \brief Evaluates the syntax tree of one script into TensorIR. */
class Evaluator {
 public:
  explicit Evaluator(const SourceFile& source);

  /*! \brief The IRModule or PrimFunc the script defines. */
  ObjectRef Run(const ast::Module& module);
  ObjectRef RunModule(const ast::Module& module);

  // ---- errors ----
  [[noreturn]] void Error(const Span& span, const std::string& message) const;

  // ---- expressions (tir_parser_expr.cc) ----
  Value Eval(const ast::Expr& e);
  PrimExpr EvalExpr(const ast::Expr& e);
  PrimExpr AsExpr(const Value& v, const Span& span) const;
  /*! \brief A Python number as a constant of `dtype` (checking that it fits). */
  PrimExpr ConstOf(const Value& v, DataType dtype, const Span& span) const;
  std::string AsString(const Value& v, const Span& span, const char* what) const;
  int64_t AsInt(const Value& v, const Span& span, const char* what) const;
  DataType AsDType(const Value& v, const Span& span) const;
  Any ToAny(const Value& v, int depth = 0) const;
  /*! \brief The value of a T. call a Python helper returned as a record; nullopt otherwise. */
  std::optional<Value> ScriptCallOf(const Any& rv, const Span& span);
  Map<String, Any> AsAttrMap(const Value& v, const Span& span) const;
  Array<PrimExpr> AsShape(const Value& v, const Span& span) const;
  tir::BufferRegion AsRegion(const Value& v, const Span& span) const;
  Range AsDomain(const Value& v, const Span& span) const;
  Value CallBuiltin(const std::string& name, CallArgs& args);
  /*! \brief A Buffer method (vload, vstore, access_ptr) called on `method.buffer`. */
  Value CallBufferMethod(const Value& method, CallArgs& args, const Span& span);
  /*!
   * \brief A call of function `gv` of the module being parsed: `tir.call_tir` with the function's
   * name first, of the function's return dtype.
   */
  Value CallModuleFunction(const GlobalVar& gv, const std::vector<Value>& args, const Span& span);
  /*! \brief `T.comm_reducer(lambda x, y: ..., [identity])`: a tir.CommReducer. */
  Value MakeCommReducer(CallArgs& args);
  /*! \brief The call of an opaque intrinsic `op` (tir/builtin.h "TScriptResultDType"). */
  PrimExpr BuildOpaqueIntrinsic(const ::minitvm::Op& op, const std::string& fn, CallArgs& a);
  Value Subscript(const Value& base, const ast::Expr& index, const Span& span);
  /*!
   * \brief The indices of `b[items]` where slices stand for vectors, as TVM's buffer_store and
   * stepped loads take them: `a:b:s` is `T.Ramp(a, s, lanes)` (just `a` for one lane).
   */
  Array<PrimExpr> SliceIndices(const Buffer& b, const std::vector<Value>& items);
  /*!
   * \brief `buffer[indices] = value` as TVM's IR builder makes it: a value whose dtype differs
   * from the stored one (the buffer's dtype times the lanes of the last index) but has as many
   * lanes is cast to it (with a warning on stderr when precision may be lost); other lane counts
   * are an error.
   */
  Stmt MakeStore(const Buffer& buffer, const Value& value, const Array<PrimExpr>& indices,
                 const PrimExpr& predicate, const Span& span);
  Value Attribute(const Value& base, const std::string& attr, const Span& span);
  Value BinaryOp(const std::string& op, const Value& a, const Value& b, const Span& span);
  Value UnaryOp(const std::string& op, const Value& a, const Span& span);
  /*! \brief `T.bitwise_and` etc. (`op` without "T."), also `&`, `|`, `^`, `<<`, `>>`. */
  PrimExpr BitwiseOp(const std::string& op, const Value& a, const Value& b, const Span& span) const;
  /*! \brief `T.bitwise_not(x)`, also `~x`. */
  PrimExpr BitwiseNot(const Value& a, const Span& span) const;
  Value Compare(const std::string& op, const Value& a, const Value& b, const Span& span);
  bool Truthy(const Value& v, const Span& span) const;
  /*! \brief Both operands as PrimExprs, Python numbers taking the other side's dtype. */
  std::pair<PrimExpr, PrimExpr> MatchOperands(const Value& a, const Value& b,
                                              const Span& span) const;

  // ---- names ----
  void Bind(const std::string& name, Value v);
  const Value* Lookup(const std::string& name) const;
  void PushScope() { scopes_.emplace_back(); }
  void PopScope() { scopes_.pop_back(); }

  // ---- statements (tir_parser_stmt.cc) ----
  Stmt ParseStmts(const std::vector<ast::StmtPtr>& stmts, size_t begin = 0);
  /*! \brief Complete a pending declaration bound to `name` (the target of `=` or `as`). */
  Stmt Declare(const std::string& name, const Value& v, const Span& span,
               const std::vector<ast::StmtPtr>* rest, size_t rest_begin,
               const std::vector<ast::StmtPtr>* with_body, bool* consumed_rest);
  Stmt BuildScope(const ScopeSpec& spec, const std::string& name, const Span& span,
                  const std::function<Stmt()>& body);
  Stmt ParseFor(const ast::Stmt& s);
  Stmt ParseWith(const ast::Stmt& s, const std::vector<ast::StmtPtr>& rest, size_t rest_begin,
                 bool* consumed_rest);
  Stmt ParseBlock(const Value& block_call, const ast::Stmt& s);
  Stmt ParseAssign(const ast::Stmt& s, const std::vector<ast::StmtPtr>& rest, size_t rest_begin,
                   bool* consumed_rest);
  Stmt StoreTo(const ast::Expr& target, const Value& value, const Span& span);
  tir::PrimFunc ParsePrimFunc(const ast::Stmt& def, bool in_module);
  IRModule ParseIRModule(const ast::Stmt& cls);
  /*! \brief `M = N = 128` above the module: binds Python constants as global names. */
  void DeclareModuleConstant(const ast::Stmt& s);
  Buffer MakeBuffer(const BufferSpec& spec, const std::string& name) const;
  void DeclareAxis(const std::string& name, const Value& axis, const Span& span);
  BlockBuilder* CurrentBlock(const Span& span, const char* what);
  /*! \brief The canonical builtin name of a decorator expression ("T.prim_func", ...). */
  std::string DecoratorName(const ast::Expr& e, bool* is_private);
  /*!
   * \brief The decorator of `def` ("R.function") when a later stage registered a parser for it
   * (parser_ext.h), else empty. Only the first decorator's callee is looked at.
   */
  std::string ExtDecoratorName(const ast::Stmt& def) const;
  /*! \brief The context handed to a registered function parser. */
  FunctionParseContext ExtContext(const ast::Stmt& def, const std::string& module_name,
                                  const Map<String, GlobalVar>& gvs, const IRModule& mod) const;
  /*! \brief The constants table `metadata[...]` indexes (FromSourceWithMetadata). */
  void SetMetadata(Map<String, Array<Any>> metadata) {
    metadata_ = std::move(metadata);
    has_metadata_ = true;
  }

  /*!
   * \brief Python values of the scope around the decorated code (TVM's closure variables): each
   * becomes a module-level name (a PrimExpr, a Buffer, a string, a list of them).
   */
  void SetClosure(const Map<String, Any>& vars);

  /*! \brief Bounds statement recursion (nested scopes). */
  struct DepthGuard {
    DepthGuard(Evaluator* e, const Span& span);
    ~DepthGuard() { --e_->depth_; }
    Evaluator* e_;
  };

 private:
  friend struct DepthGuard;
  const SourceFile& src_;
  std::vector<std::unordered_map<std::string, Value>> scopes_;
  /*! \brief Module-level names: T, I, tvm, range, and the aliases the script imports. */
  std::unordered_map<std::string, Value> globals_;
  /*! \brief Frames: nullptr for a plain scope, or the block being built. */
  std::vector<BlockBuilder*> frames_;
  FuncBuilder* func_ = nullptr;
  /*! \brief Enclosing loops, innermost last: (var, min, extent). */
  std::vector<std::tuple<Var, PrimExpr, PrimExpr>> loops_;
  /*! \brief Thread variables bound by T.launch_thread, so a later launch of the same variable
   * (`T.launch_thread(threadIdx_x, 128)`, as printed) finds its thread tag. */
  std::unordered_map<const tir::VarNode*, tir::IterVar> launched_;
  int depth_ = 0;
  Map<String, Array<Any>> metadata_;
  /*!
   * \brief The module being parsed: its class name (bound as a name, so that `Module.f(...)`
   * calls function f, as in TVM) and the return dtype of each function (void without `->`).
   */
  std::string module_name_;
  Map<String, GlobalVar> module_gvs_;
  std::unordered_map<std::string, DataType> module_ret_;
  bool has_metadata_ = false;
  /*! \brief The statement being evaluated: where an unexpected IR error is reported. */
  Span current_span_;
};

}  // namespace tir_parser
}  // namespace script
}  // namespace minitvm

#endif  // MINITVM_SCRIPT_TIR_PARSER_IMPL_H_

/*!
 * \file tir_printer_impl.h
 * \brief The TensorIR-to-doc translator behind `AsScript` (stage 2, private). Split over
 * tir_printer_expr.cc (names, expressions, buffers) and tir_printer_stmt.cc (statements,
 * blocks, functions, modules).
 *
 * Names: every variable and buffer gets a readable name from its hint, made unique among the
 * names visible at that point (`x`, `x_1`, `x_2`, ...); names are released when the scope that
 * defined them ends, so sibling loops can both use `i`. A variable used but never defined (a
 * symbolic shape `n`) is declared where the function body starts: `n = T.int32()`.
 */
#ifndef MINITVM_SCRIPT_TIR_PRINTER_IMPL_H_
#define MINITVM_SCRIPT_TIR_PRINTER_IMPL_H_

#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "minitvm/ir/module.h"
#include "minitvm/script/doc.h"
#include "minitvm/script/tir_printer.h"
#include "minitvm/tir/expr_functor.h"
#include "minitvm/tir/function.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace script {
namespace printer {

/*! \brief Builds docs from TensorIR; one instance prints one top-level object. */
class TIRPrinter : public tir::ExprFunctor<ExprDoc(const PrimExpr&)>,
                   public tir::StmtFunctor<StmtDoc(const tir::Stmt&)> {
 public:
  TIRPrinter();

  /*! \brief `@I.ir_module class Module:` with its functions. */
  StmtDoc PrintModule(const IRModule& mod);
  /*!
   * \brief The same, sharing `ctx` with the function printers of later stages (which print the
   * functions that are not PrimFuncs); `ctx` collects the dialects used and the metadata.
   */
  StmtDoc PrintModule(const IRModule& mod, FunctionPrintContext* ctx);
  /*! \brief `@T.prim_func def name(...)`. */
  StmtDoc PrintPrimFunc(const tir::PrimFunc& func, const std::string& name);
  /*! \brief A statement alone, with definitions of the free variables and buffers it uses. */
  std::vector<StmtDoc> PrintStmtTop(const tir::Stmt& stmt);
  /*! \brief An expression (free variables print by name). */
  ExprDoc PrintExpr(const PrimExpr& e) { return VisitExpr(e); }
  /*! \brief A buffer region, `A[vi, 0:128]`. */
  ExprDoc PrintBufferRegion(const tir::BufferRegion& region);
  /*! \brief A range as a slice `min:min + extent`. */
  ExprDoc PrintRange(const Range& range);
  /*! \brief An IterVar as `T.iter_var(var, dom, "kind", "tag")`. */
  ExprDoc PrintIterVar(const tir::IterVar& iv);
  /*! \brief A buffer by name (declared as a free buffer when it has no name yet). */
  ExprDoc PrintBuffer(const tir::Buffer& buffer);
  /*! \brief `T.Buffer((8,), "float32")` for a parameter annotation. */
  ExprDoc BufferAnnotation(const tir::Buffer& buffer);
  /*! \brief `T.<method>(pre_args..., shape, dtype, data=..., scope=..., ...)`. */
  ExprDoc BufferDecl(const tir::Buffer& buffer, const std::string& method,
                     std::vector<ExprDoc> pre_args);
  static bool IsSimpleBuffer(const tir::Buffer& buffer);
  /*! \brief Whether the module holds a PrimFunc (then the header imports T). */
  static bool HasPrimFunc(const IRModule& mod);
  /*! \brief An attribute value (int, float, string, dtype, array, map, PrimExpr, ...). */
  ExprDoc AnyDoc(const Any& value, int depth = 0);
  /*! \brief While printing T.func_attr: an int32 IntImm prints as `T.int32(v)`, not `v`. */
  bool typed_int_attrs_ = false;
  /*! \brief The class name of the module being printed: `tir.call_tir` prints `Module.f(...)`. */
  std::string module_name_;

  /*!
   * \brief Relax mode (the Relax printer of stage 4 sets it): integer immediates of any integer
   * dtype print as bare Python ints and booleans as `True`/`False` (TVM's shape dimensions,
   * `R.prim_value(1)`), and variables not defined by this printer are named by `free_var_hook`.
   */
  bool plain_ints = false;
  /*!
   * \brief Readable mode (`ScriptOptions::plain_literals`; implies `plain_ints`): floats print as
   * Python floats and every operator and `tir.*` call in its Python spelling.
   */
  bool plain_literals = false;
  /*! \brief When set, names the variables this printer did not define (see `plain_ints`). */
  std::function<ExprDoc(const tir::Var&)> free_var_hook;

 private:
  /*! \brief A scope: the statements printed into it and the names it defined. */
  struct Frame {
    std::vector<StmtDoc> stmts;
    std::vector<const Object*> defined;
    bool allow_concise = false;
    /*! \brief The statements whose scope this frame prints (to place free definitions). */
    std::vector<const Object*> owners;
  };
  /*! \brief Pushes a frame for its lifetime and releases its names at the end. */
  class FrameScope {
   public:
    explicit FrameScope(TIRPrinter* p) : p_(p) { p_->frames_.push_back(&frame); }
    ~FrameScope();
    FrameScope(const FrameScope&) = delete;
    Frame frame;

   private:
    TIRPrinter* p_;
  };

  // ---- names (tir_printer_expr.cc) ----
  /*!
   * \brief Record, for every variable and buffer used in `stmt`, the statements enclosing all
   * of its uses, so that one never defined is declared in the innermost scope covering them.
   */
  void CollectUseScopes(const tir::Stmt& stmt);
  /*! \brief The frame where a free variable or buffer is declared. */
  Frame* FreeDefinitionFrame(const Object* obj);
  std::string UniqueName(const std::string& hint, const char* fallback);
  ExprDoc DefineVar(const tir::Var& var, Frame* frame);
  ExprDoc DefineBuffer(const tir::Buffer& buffer, Frame* frame);
  ExprDoc DefineAlias(const Object* obj, ExprDoc doc, Frame* frame);
  bool IsDefined(const Object* obj) const { return docs_.count(obj) > 0; }
  Frame* CurrentFrame() { return frames_.back(); }
  ExprDoc TIRAttr(const std::string& name) { return AttrDoc(IdDoc("T"), name); }
  ExprDoc DTypeDoc(DataType dtype);
  ExprDoc TypeAnnotation(const PrimExpr& var);
  /*! \brief Whether `e` prints as a bare Python int (an operator between two needs the
   * explicit constructor, or Python would fold it while parsing). */
  bool IsBareInt(const PrimExpr& e) const;

  // ---- expressions (tir_printer_expr.cc) ----
  ExprDoc VisitExpr_(const tir::VarNode* op) override;
  ExprDoc VisitExpr_(const tir::SizeVarNode* op) override;
  ExprDoc VisitExpr_(const IntImmNode* op) override;
  ExprDoc VisitExpr_(const FloatImmNode* op) override;
  ExprDoc VisitExpr_(const tir::StringImmNode* op) override;
  ExprDoc VisitExpr_(const tir::CastNode* op) override;
  ExprDoc VisitExpr_(const tir::AddNode* op) override;
  ExprDoc VisitExpr_(const tir::SubNode* op) override;
  ExprDoc VisitExpr_(const tir::MulNode* op) override;
  ExprDoc VisitExpr_(const tir::DivNode* op) override;
  ExprDoc VisitExpr_(const tir::ModNode* op) override;
  ExprDoc VisitExpr_(const tir::FloorDivNode* op) override;
  ExprDoc VisitExpr_(const tir::FloorModNode* op) override;
  ExprDoc VisitExpr_(const tir::MinNode* op) override;
  ExprDoc VisitExpr_(const tir::MaxNode* op) override;
  ExprDoc VisitExpr_(const tir::EQNode* op) override;
  ExprDoc VisitExpr_(const tir::NENode* op) override;
  ExprDoc VisitExpr_(const tir::LTNode* op) override;
  ExprDoc VisitExpr_(const tir::LENode* op) override;
  ExprDoc VisitExpr_(const tir::GTNode* op) override;
  ExprDoc VisitExpr_(const tir::GENode* op) override;
  ExprDoc VisitExpr_(const tir::AndNode* op) override;
  ExprDoc VisitExpr_(const tir::OrNode* op) override;
  ExprDoc VisitExpr_(const tir::NotNode* op) override;
  ExprDoc VisitExpr_(const tir::SelectNode* op) override;
  ExprDoc VisitExpr_(const tir::BufferLoadNode* op) override;
  ExprDoc VisitExpr_(const tir::RampNode* op) override;
  ExprDoc VisitExpr_(const tir::BroadcastNode* op) override;
  ExprDoc VisitExpr_(const tir::LetNode* op) override;
  ExprDoc VisitExpr_(const tir::CallNode* op) override;
  ExprDoc PrintVarUse(const tir::Var& var);
  ExprDoc PrintIndices(ExprDoc buffer, const Array<PrimExpr>& indices);

  // ---- statements (tir_printer_stmt.cc) ----
  void AsDocBody(const tir::Stmt& stmt, Frame* frame);
  /*! \brief The statements of `stmt` printed into a fresh frame. */
  std::vector<StmtDoc> BodyDocs(const tir::Stmt& stmt);
  /*! \brief Concise form (`lhs = rhs` then the body in the same list) or `with rhs as lhs:`. */
  StmtDoc ConciseOrScope(bool concise, ExprDoc lhs, ExprDoc rhs, std::vector<StmtDoc> body);
  StmtDoc PrintBlock(const tir::Block& block, const tir::BlockRealizeNode* realize);
  StmtDoc VisitStmt_(const tir::BufferStoreNode* op) override;
  StmtDoc VisitStmt_(const tir::ForNode* op) override;
  StmtDoc VisitStmt_(const tir::WhileNode* op) override;
  StmtDoc VisitStmt_(const tir::IfThenElseNode* op) override;
  StmtDoc VisitStmt_(const tir::SeqStmtNode* op) override;
  StmtDoc VisitStmt_(const tir::EvaluateNode* op) override;
  StmtDoc VisitStmt_(const tir::LetStmtNode* op) override;
  StmtDoc VisitStmt_(const tir::AssertStmtNode* op) override;
  StmtDoc VisitStmt_(const tir::AllocateNode* op) override;
  StmtDoc VisitStmt_(const tir::DeclBufferNode* op) override;
  StmtDoc VisitStmt_(const tir::AttrStmtNode* op) override;
  StmtDoc VisitStmt_(const tir::BlockNode* op) override;
  StmtDoc VisitStmt_(const tir::BlockRealizeNode* op) override;

  std::vector<Frame*> frames_;
  /*! \brief Where free variables and buffers are declared (the function body). */
  Frame* free_frame_ = nullptr;
  std::unordered_map<const Object*, ExprDoc> docs_;
  std::unordered_map<const Object*, std::string> names_of_;
  std::unordered_set<std::string> names_;
  /*! \brief Per variable/buffer: the enclosing statements common to all its uses. */
  std::unordered_map<const Object*, std::vector<const Object*>> use_scopes_;
  /*! \brief The loops around the statement being printed (for `T.axis.remap`). */
  std::vector<const tir::ForNode*> loops_;
};

}  // namespace printer
}  // namespace script
}  // namespace minitvm

#endif  // MINITVM_SCRIPT_TIR_PRINTER_IMPL_H_

/*!
 * \file relax_printer.h
 * \brief The TVMScript printer for Relax (stage 4, private): Relax functions, bindings,
 * expressions and struct info to the text TVM (v0.20+) prints — `@R.function`,
 * `with R.dataflow():`, `lv: R.Tensor((n, 4), dtype="float32") = R.add(x, y)`,
 * `R.call_tir(cls.f, (x,), out_sinfo=...)`, `R.match_cast(...)`, `if c: ... else: ...`.
 *
 * It plugs into the module printer of stage 2 (`script/tir_printer.h`) as the function printer
 * of `relax.expr.Function` and `relax.expr.ExternFunc`, and as a node printer, so
 * `mod.script()`, `print(mod)`, `func.script()` and the repr of any Relax node print TVMScript.
 *
 * The rules are TVM's:
 * - Names: every Relax and symbolic (TIR) variable gets its name hint, made unique among the
 *   names visible at that point (`lv`, `lv_1`); `I`, `T`, `R`, `cls` and the module's class
 *   name are reserved. Names defined inside a branch or a function are released when it ends.
 * - A binding shows its variable's struct info (`lv: R.Tensor(...) = ...`) except after
 *   `R.call_tir` / `R.call_dps_packed` when it is exactly the `out_sinfo` (TVM's
 *   `show_all_struct_info=True` default).
 * - A symbolic variable is declared (`n = T.int64()`) at the start of the outermost function
 *   that uses it; in the function signature a dimension that uses a variable defined by that
 *   signature prints as a string (`R.Tensor(("n", 4), ...)`), as TVM does.
 * - The first reference to another function of the module adds `cls = Module` to the function,
 *   and the reference prints as `cls.f`.
 * - A 0-d constant of a numeric or bool dtype prints as `R.const(1.0, "float32")`; any other
 *   constant as `metadata["relax.expr.Constant"][i]`, and the print then ends with the comment
 *   `# Metadata omitted. Use show_meta=True in script() method to show it.`
 * - A call of the op `relax.a.b` prints as `R.a.b(args..., key=value...)`, the attributes in the
 *   order the call holds them (TVM's parameter order, defaults included).
 */
#ifndef MINITVM_RELAX_SCRIPT_RELAX_PRINTER_H_
#define MINITVM_RELAX_SCRIPT_RELAX_PRINTER_H_

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "minitvm/relax/expr.h"
#include "minitvm/relax/expr_functor.h"
#include "minitvm/script/doc.h"
#include "minitvm/script/tir_printer.h"
#include "script/tir_printer_impl.h"

namespace minitvm {
namespace relax {
namespace printer {

using script::FunctionPrintContext;
using script::printer::ExprDoc;
using script::printer::StmtDoc;

/*! \brief Builds docs from Relax; one instance prints one top-level object. */
class RelaxPrinter : public ExprFunctor<ExprDoc(const Expr&)> {
 public:
  /*! \brief A printer reporting dialects and metadata into `ctx` (which must outlive it). */
  explicit RelaxPrinter(FunctionPrintContext* ctx);
  ~RelaxPrinter() override;

  /*!
   * \brief `@R.function def name(...)`. `top_level`: a function of a module or printed alone
   * (its global symbol is implied by the name; without one it is `private=True`).
   */
  StmtDoc PrintFunction(const Function& func, const std::string& name, bool top_level);
  /*! \brief `name = R.ExternFunc("symbol")`. */
  StmtDoc PrintExternFuncDef(const ExternFunc& func, const std::string& name);
  /*! \brief An expression (its free variables are declared in the current scope, if any). */
  ExprDoc PrintExpr(const Expr& e) { return VisitExpr(e); }
  /*! \brief How deep an expression may nest for printing (deeper: a ValueError, not a stack
   * overflow; normalised IR binds nested calls to variables and stays shallow). */
  static constexpr int kMaxDepth = 1000;
  /*! \brief Visit `e`, checking the nesting depth. */
  ExprDoc VisitExpr(const Expr& e) override;
  /*! \brief A struct info, `R.Tensor((n, 4), dtype="float32")`. */
  ExprDoc PrintStructInfo(const StructInfo& info);
  /*! \brief A binding as statements (`lv: ... = ...`, an `if`, a nested function). */
  StmtDoc PrintBinding(const Binding& binding);
  /*! \brief A block: its bindings, or `with R.dataflow(): ... R.output(...)`. */
  StmtDoc PrintBindingBlock(const BindingBlock& block);
  /*! \brief A SeqExpr's blocks then its result (`return x` when `use_ret`, else `x`). */
  std::vector<StmtDoc> PrintSeqExpr(const Expr& seq, bool use_ret);
  /*! \brief `if cond: ... else: ...`; with `var`, each branch ends `var: ann = result`. */
  StmtDoc PrintIf(const IfNode* op, ExprDoc var, ExprDoc ann);

  /*!
   * \brief Print `node` (any Relax expression, binding, block or struct info) TVM's repr way:
   * an expression as itself, a statement after the declarations of what it uses freely, a
   * function with the header lines.
   */
  std::string PrintNode(const ObjectRef& node);

 private:
  /*! \brief A scope: the statements printed into it and the names it defined. */
  struct Frame {
    std::vector<StmtDoc> stmts;
    std::vector<const Object*> defined;
    /*! \brief A function's own frame (symbolic variables and `cls = Module` go there). */
    bool is_func = false;
    /*! \brief Whether `cls = Module` was printed in this function. */
    bool module_alias_printed = false;
    /*! \brief While printing a signature: the symbolic variables it defines. */
    std::unordered_set<const Object*>* func_vars = nullptr;
  };
  /*! \brief Pushes a frame for its lifetime and releases its names at the end. */
  class FrameScope {
   public:
    explicit FrameScope(RelaxPrinter* p) : p_(p) { p_->frames_.push_back(&frame); }
    ~FrameScope();
    FrameScope(const FrameScope&) = delete;
    FrameScope& operator=(const FrameScope&) = delete;
    Frame frame;

   private:
    RelaxPrinter* p_;
  };

  // ---- names and prefixes ----
  ExprDoc RAttr(const std::string& attr);
  ExprDoc TAttr(const std::string& attr);
  std::string UniqueName(const std::string& hint);
  ExprDoc Define(const Object* obj, const std::string& hint, Frame* frame);
  ExprDoc DefineVar(const Var& var, Frame* frame) {
    return Define(var.get(), var->name_hint, frame);
  }
  /*! \brief The outermost function frame, else the outermost frame, else null. */
  Frame* OuterFrame();
  /*! \brief A symbolic variable: its name, declared at the first use (`n = T.int64()`). */
  ExprDoc PrintTIRVar(const tir::Var& var);

  // ---- TIR inside Relax ----
  ExprDoc PrintPrimExpr(const PrimExpr& e);
  /*! \brief A dimension; a string when it uses a variable its signature defines. */
  ExprDoc PrintShapeDim(const PrimExpr& e);
  /*! \brief An attribute value (`func_attr` dicts, op attributes). */
  ExprDoc PrintAttrValue(const Any& value, int depth = 0);

  // ---- calls ----
  ExprDoc PrintCallee(const Expr& e);
  /*! \brief The annotation of a binding's variable, or null when TVM hides it. */
  ExprDoc BindingAnnotation(const Var& var, const Expr& value);
  /*! \brief `metadata["<type key>"][i]` for `obj`. */
  ExprDoc AddMetadata(const ObjectRef& obj);

  // ---- expressions ----
  ExprDoc VisitExpr_(const VarNode* op) override;
  ExprDoc VisitExpr_(const ConstantNode* op) override;
  ExprDoc VisitExpr_(const TupleNode* op) override;
  ExprDoc VisitExpr_(const TupleGetItemNode* op) override;
  ExprDoc VisitExpr_(const ShapeExprNode* op) override;
  ExprDoc VisitExpr_(const PrimValueNode* op) override;
  ExprDoc VisitExpr_(const StringImmNode* op) override;
  ExprDoc VisitExpr_(const DataTypeImmNode* op) override;
  ExprDoc VisitExpr_(const CallNode* op) override;
  ExprDoc VisitExpr_(const IfNode* op) override;
  ExprDoc VisitExpr_(const SeqExprNode* op) override;
  ExprDoc VisitExpr_(const FunctionNode* op) override;
  ExprDoc VisitExpr_(const ExternFuncNode* op) override;
  ExprDoc VisitExpr_(const GlobalVarNode* op) override;
  ExprDoc VisitExpr_(const OpNode* op) override;
  ExprDoc VisitExprDefault_(const Object* op) override;

  FunctionPrintContext* ctx_;
  std::vector<Frame*> frames_;
  std::unordered_map<const Object*, ExprDoc> docs_;
  std::unordered_map<const Object*, std::string> names_of_;
  std::unordered_set<std::string> names_;
  /*! \brief Prints the TIR expressions inside Relax (in Relax mode: plain ints). */
  std::unique_ptr<script::printer::TIRPrinter> tir_;
  int depth_ = 0;
};

}  // namespace printer
}  // namespace relax
}  // namespace minitvm

#endif  // MINITVM_RELAX_SCRIPT_RELAX_PRINTER_H_

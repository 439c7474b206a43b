/*!
 * \file relax_printer_expr.cc
 * \brief Relax TVMScript printer, part 1 (stage 4): names, the symbolic (TIR) variables and
 * expressions inside Relax, struct info, and every Relax expression, calls included.
 *
 * Calls follow TVM's printer: `R.call_tir(f, (args,), out_sinfo=..., tir_vars=...)`,
 * `R.call_dps_packed("name", (args,), out_sinfo=...)`, a packed function as the first argument
 * of any op prints as its name (`R.call_pure_packed("f", x, sinfo_args=(...))`), an
 * `ExternFunc` callee as `R.call_packed("f", ...)`, `R.assert_op` and `R.print` with their
 * format string as `format=`, and any other op `relax.a.b` as `R.a.b(args..., attrs...)`.
 */
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "minitvm/ir/structural.h"
#include "relax_printer.h"
#include "script/tir_utils.h"

namespace minitvm {
namespace relax {
namespace printer {

using namespace ::minitvm::script::printer;  // NOLINT(build/namespaces)

RelaxPrinter::RelaxPrinter(FunctionPrintContext* ctx)
    : ctx_(ctx), tir_(std::make_unique<script::printer::TIRPrinter>()) {
  // TVM's builtin names: the dialect prefixes and the module alias.
  for (const char* reserved : {"I", "T", "R", "cls"}) names_.insert(reserved);
  if (!ctx_->module_name.empty()) names_.insert(ctx_->module_name);
  tir_->plain_ints = true;
  tir_->free_var_hook = [this](const tir::Var& v) { return PrintTIRVar(v); };
}

RelaxPrinter::~RelaxPrinter() = default;

RelaxPrinter::FrameScope::~FrameScope() {
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

ExprDoc RelaxPrinter::RAttr(const std::string& attr) {
  ctx_->used_dialects.insert("relax");
  return AttrDoc(IdDoc("R"), attr);
}

ExprDoc RelaxPrinter::TAttr(const std::string& attr) {
  ctx_->used_dialects.insert("tir");
  return AttrDoc(IdDoc("T"), attr);
}

std::string RelaxPrinter::UniqueName(const std::string& hint) {
  std::string base;
  for (char c : hint) {
    unsigned char u = static_cast<unsigned char>(c);
    base += (u >= 128 || std::isalnum(u) || c == '_') ? c : '_';
  }
  if (base.empty()) base = "v";
  if (std::isdigit(static_cast<unsigned char>(base[0]))) base = "_" + base;
  if (script::IsPythonKeyword(base)) base += "_";
  std::string name = base;
  for (int i = 1; names_.count(name); ++i) name = base + "_" + std::to_string(i);
  names_.insert(name);
  return name;
}

ExprDoc RelaxPrinter::Define(const Object* obj, const std::string& hint, Frame* frame) {
  std::string name = UniqueName(hint);
  ExprDoc doc = IdDoc(name);
  // A variable defined twice (ill-formed, but printable) keeps the newest name.
  auto old = names_of_.find(obj);
  if (old != names_of_.end()) names_.erase(old->second);
  docs_[obj] = doc;
  names_of_[obj] = name;
  if (frame) frame->defined.push_back(obj);
  return doc;
}

RelaxPrinter::Frame* RelaxPrinter::OuterFrame() {
  for (Frame* f : frames_) {
    if (f->is_func) return f;
  }
  return frames_.empty() ? nullptr : frames_.front();
}

ExprDoc RelaxPrinter::PrintTIRVar(const tir::Var& var) {
  auto it = docs_.find(var.get());
  if (it != docs_.end()) return it->second;
  Frame* frame = OuterFrame();
  // An expression printed alone shows its symbolic variables by name.
  if (!frame) return IdDoc(var->name_hint.str());
  if (frame->func_vars) frame->func_vars->insert(var.get());
  ExprDoc lhs = Define(var.get(), var->name_hint.str(), frame);
  std::vector<std::pair<std::string, ExprDoc>> kwargs;
  if (var.as<tir::SizeVarNode>()) kwargs.emplace_back("is_size_var", BoolDoc(true));
  std::string type = var->dtype.is_handle() ? "handle" : runtime::DataTypeToString(var->dtype);
  frame->stmts.push_back(AssignDoc(lhs, CallDoc(TAttr(type), {}, kwargs)));
  return lhs;
}

// ---- TIR inside Relax -------------------------------------------------------------------

ExprDoc RelaxPrinter::PrintPrimExpr(const PrimExpr& e) {
  ExprDoc doc = tir_->PrintExpr(e);
  // The TIR printer writes `T.` itself; report the dialect when it did.
  std::string text = DocToPythonScript(doc);
  if (text.find("T.") != std::string::npos) ctx_->used_dialects.insert("tir");
  return doc;
}

ExprDoc RelaxPrinter::PrintShapeDim(const PrimExpr& e) {
  ExprDoc doc = PrintPrimExpr(e);
  // Inside a signature, a dimension using a variable that the signature itself defines prints
  // as a string: the variable is only declared in the body (`n = T.int64()`).
  const Frame* collecting = nullptr;
  for (const Frame* f : frames_) {
    if (f->func_vars) {
      collecting = f;
      break;
    }
  }
  if (collecting) {
    bool uses = false;
    tir::PostOrderVisit(e, [&](const ObjectRef& n) {
      if (n.as<tir::VarNode>() && collecting->func_vars->count(n.get())) uses = true;
    });
    if (uses) return StrDoc(DocToPythonScript(doc));
  }
  return doc;
}

ExprDoc RelaxPrinter::PrintAttrValue(const Any& value, int depth) {
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
      return StrDoc(runtime::DataTypeToString(value.raw_dtype()));
    default:
      break;
  }
  if (value.is_string()) return StrDoc(value.cast<std::string>());
  if (auto* a = value.as<runtime::ArrayNode>()) {
    std::vector<ExprDoc> items;
    for (const Any& v : a->data) items.push_back(PrintAttrValue(v, depth + 1));
    return ListDoc(items);
  }
  if (auto* m = value.as<runtime::MapNode>()) {
    // TVM prints a map with string keys sorted by key.
    std::vector<std::pair<Any, Any>> entries = m->data;
    bool all_strings = std::all_of(entries.begin(), entries.end(),
                                   [](const auto& kv) { return kv.first.is_string(); });
    if (all_strings) {
      std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
        return a.first.template cast<std::string>() < b.first.template cast<std::string>();
      });
    }
    std::vector<std::pair<ExprDoc, ExprDoc>> items;
    for (const auto& [k, v] : entries) {
      items.emplace_back(PrintAttrValue(k, depth + 1), PrintAttrValue(v, depth + 1));
    }
    return DictDoc(items);
  }
  if (auto* e = value.as<PrimExprNode>()) return PrintPrimExpr(GetRef<PrimExpr>(e));
  if (auto* s = value.as<StructInfoNode>()) return PrintStructInfo(GetRef<StructInfo>(s));
  if (auto* e = value.as<BaseExprNode>()) return PrintExpr(GetRef<Expr>(e));
  return tir_->AnyDoc(value, depth);
}

// ---- struct info ------------------------------------------------------------------------

ExprDoc RelaxPrinter::PrintStructInfo(const StructInfo& info) {
  if (!info.defined()) return NoneDoc();
  if (info.as<ObjectStructInfoNode>()) return RAttr("Object");
  if (auto* p = info.as<PrimStructInfoNode>()) {
    if (p->value.defined()) return CallDoc(RAttr("Prim"), {}, {{"value", PrintShapeDim(p->value)}});
    return CallDoc(RAttr("Prim"), {StrDoc(runtime::DataTypeToString(p->dtype))});
  }
  if (auto* s = info.as<ShapeStructInfoNode>()) {
    if (s->values.defined()) {
      std::vector<ExprDoc> dims;
      for (const PrimExpr& d : s->values) dims.push_back(PrintShapeDim(d));
      return CallDoc(RAttr("Shape"), {ListDoc(dims)});
    }
    return CallDoc(RAttr("Shape"), {}, {{"ndim", IntDoc(s->ndim)}});
  }
  if (auto* t = info.as<TensorStructInfoNode>()) {
    std::vector<ExprDoc> args;
    std::vector<std::pair<std::string, ExprDoc>> kwargs;
    if (t->shape.defined()) {
      if (auto* shape = t->shape.as<ShapeExprNode>()) {
        std::vector<ExprDoc> dims;
        for (const PrimExpr& d : shape->values) dims.push_back(PrintShapeDim(d));
        args.push_back(TupleDoc(dims));
      } else {
        args.push_back(PrintExpr(t->shape));
      }
    }
    if (!t->IsUnknownDtype()) {
      kwargs.emplace_back("dtype", StrDoc(runtime::DataTypeToString(t->dtype)));
    }
    if (!t->shape.defined() && !t->IsUnknownNdim()) kwargs.emplace_back("ndim", IntDoc(t->ndim));
    if (t->vdevice.defined() && t->vdevice->target.defined()) {
      kwargs.emplace_back("vdevice", StrDoc(VDeviceScriptName(t->vdevice)));
    }
    if (args.empty() && kwargs.empty()) return RAttr("Tensor");
    return CallDoc(RAttr("Tensor"), args, kwargs);
  }
  if (auto* t = info.as<TupleStructInfoNode>()) {
    if (t->fields.empty()) return RAttr("Tuple");
    std::vector<ExprDoc> fields;
    for (const StructInfo& f : t->fields) fields.push_back(PrintStructInfo(f));
    return CallDoc(RAttr("Tuple"), fields);
  }
  if (auto* f = info.as<FuncStructInfoNode>()) {
    ExprDoc ret = PrintStructInfo(f->ret);
    if (f->IsOpaque()) {
      std::vector<std::pair<std::string, ExprDoc>> kwargs;
      if (f->ret.defined() && !f->ret.as<ObjectStructInfoNode>()) kwargs.emplace_back("ret", ret);
      if (f->purity) kwargs.emplace_back("purity", BoolDoc(true));
      if (kwargs.empty()) return RAttr("Callable");
      return CallDoc(RAttr("Callable"), {}, kwargs);
    }
    std::vector<ExprDoc> params;
    for (const StructInfo& p : f->params) params.push_back(PrintStructInfo(p));
    return CallDoc(RAttr("Callable"), {TupleDoc(params), ret, BoolDoc(f->purity)});
  }
  MINITVM_THROW(TypeError) << "Relax printer: cannot print struct info " << info->GetTypeKey();
}

// ---- leaves -----------------------------------------------------------------------------

ExprDoc RelaxPrinter::VisitExpr_(const VarNode* op) {
  auto it = docs_.find(op);
  if (it != docs_.end()) return it->second;
  Var var = GetRef<Var>(op);
  // A variable used but not defined in what is printed: declared where the printing
  // happens, with its struct info (`x: R.Tensor((2, 3), dtype="float32")`).
  if (frames_.empty()) return IdDoc(op->name_hint.str());
  Frame* frame = frames_.back();
  ExprDoc ann = op->struct_info_.defined() ? PrintStructInfo(Downcast<StructInfo>(op->struct_info_))
                                           : ExprDoc();
  ExprDoc lhs = DefineVar(var, frame);
  if (ann) frame->stmts.push_back(AssignDoc(lhs, nullptr, ann));
  return lhs;
}

ExprDoc RelaxPrinter::AddMetadata(const ObjectRef& obj) {
  std::string key = obj->GetTypeKey();
  std::vector<ObjectRef>& list = ctx_->metadata[key];
  size_t index = 0;
  while (index < list.size() && !list[index].same_as(obj)) ++index;
  if (index == list.size()) list.push_back(obj);
  return IndexDoc(IndexDoc(IdDoc("metadata"), {StrDoc(key)}),
                  {IntDoc(static_cast<int64_t>(index))});
}

namespace {
/*! \brief IEEE half to double. */
double HalfToDouble(uint16_t bits) {
  int sign = (bits >> 15) & 1;
  int exponent = (bits >> 10) & 0x1f;
  int fraction = bits & 0x3ff;
  double value;
  if (exponent == 0x1f) {
    value = fraction == 0 ? std::numeric_limits<double>::infinity()
                          : std::numeric_limits<double>::quiet_NaN();
  } else if (exponent == 0) {
    value = std::ldexp(static_cast<double>(fraction), -24);
  } else {
    value = std::ldexp(static_cast<double>(fraction | 0x400), exponent - 25);
  }
  return sign ? -value : value;
}

/*! \brief The literal of a 0-d CPU constant of a plain dtype, or null (then it is metadata). */
ExprDoc ScalarLiteral(const NDArray& data) {
  if (data.ndim() != 0 || data.device().device_type != kDLCPU) return nullptr;
  DataType t = data.dtype();
  const void* p = data.data();
  auto load = [&](auto tag) {
    decltype(tag) v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  if (t.lanes() != 1) return nullptr;
  if (t == DataType::Int(8)) return IntDoc(load(int8_t{}));
  if (t == DataType::Int(16)) return IntDoc(load(int16_t{}));
  if (t == DataType::Int(32)) return IntDoc(load(int32_t{}));
  if (t == DataType::Int(64)) return IntDoc(load(int64_t{}));
  if (t == DataType::Float(16)) return FloatDoc(HalfToDouble(load(uint16_t{})));
  if (t == DataType::Float(32)) return FloatDoc(load(float{}), /*is_float32=*/true);
  if (t == DataType::Float(64)) return FloatDoc(load(double{}));
  if (t.is_bool()) return BoolDoc(load(uint8_t{}) != 0);
  return nullptr;
}
}  // namespace

ExprDoc RelaxPrinter::VisitExpr_(const ConstantNode* op) {
  if (ExprDoc value = ScalarLiteral(op->data)) {
    return CallDoc(RAttr("const"), {value, StrDoc(runtime::DataTypeToString(op->data.dtype()))});
  }
  return AddMetadata(GetRef<Constant>(op));
}

ExprDoc RelaxPrinter::VisitExpr_(const TupleNode* op) {
  if (op->fields.empty()) return CallDoc(RAttr("tuple"));
  std::vector<ExprDoc> fields;
  for (const Expr& f : op->fields) fields.push_back(PrintExpr(f));
  return TupleDoc(fields);
}

ExprDoc RelaxPrinter::VisitExpr_(const TupleGetItemNode* op) {
  ExprDoc tuple = PrintExpr(op->tuple);
  return IndexDoc(tuple, {IntDoc(op->index)});
}

ExprDoc RelaxPrinter::VisitExpr_(const ShapeExprNode* op) {
  std::vector<ExprDoc> dims;
  for (const PrimExpr& d : op->values) dims.push_back(PrintShapeDim(d));
  return CallDoc(RAttr("shape"), {ListDoc(dims)});
}

ExprDoc RelaxPrinter::VisitExpr_(const PrimValueNode* op) {
  return CallDoc(RAttr("prim_value"), {PrintPrimExpr(op->value)});
}

ExprDoc RelaxPrinter::VisitExpr_(const StringImmNode* op) {
  return CallDoc(RAttr("str"), {StrDoc(op->value.str())});
}

ExprDoc RelaxPrinter::VisitExpr_(const DataTypeImmNode* op) {
  std::string dtype = op->value.is_void() ? "void" : runtime::DataTypeToString(op->value);
  return CallDoc(RAttr("dtype"), {StrDoc(dtype)});
}

ExprDoc RelaxPrinter::VisitExpr_(const ExternFuncNode* op) {
  return CallDoc(RAttr("ExternFunc"), {StrDoc(op->global_symbol.str())});
}

ExprDoc RelaxPrinter::VisitExpr_(const GlobalVarNode* op) {
  std::string name = op->name_hint.str();
  auto it = ctx_->global_var_names.find(op);
  if (it == ctx_->global_var_names.end()) {
    // A GlobalVar object that is not the module's own, but names one of its functions.
    it = std::find_if(ctx_->global_var_names.begin(), ctx_->global_var_names.end(),
                      [&](const auto& kv) {
                        return static_cast<const GlobalVarNode*>(kv.first)->name_hint.str() == name;
                      });
  }
  if (ctx_->module_name.empty() || it == ctx_->global_var_names.end()) return IdDoc(name);
  // Inside a module: `cls.f`, with `cls = Module` at the first reference in the function.
  Frame* func = nullptr;
  for (Frame* f : frames_) {
    if (f->is_func) {
      func = f;
      break;
    }
  }
  if (!func) return AttrDoc(IdDoc(ctx_->module_name), it->second);
  if (!func->module_alias_printed) {
    func->stmts.push_back(AssignDoc(IdDoc("cls"), IdDoc(ctx_->module_name)));
    func->module_alias_printed = true;
  }
  return AttrDoc(IdDoc("cls"), it->second);
}

ExprDoc RelaxPrinter::VisitExpr_(const OpNode* op) {
  ctx_->used_dialects.insert("ir");
  return CallDoc(AttrDoc(IdDoc("I"), "Op"), {StrDoc(op->name.str())});
}

ExprDoc RelaxPrinter::VisitExpr_(const IfNode* op) {
  MINITVM_THROW(TypeError) << "Relax printer: an If can only be printed as the value of a binding "
                              "(normalise the expression first)";
}

ExprDoc RelaxPrinter::VisitExpr_(const SeqExprNode* op) {
  MINITVM_THROW(TypeError) << "Relax printer: a SeqExpr can only be printed as the body of a "
                              "function or a branch (normalise the expression first)";
}

ExprDoc RelaxPrinter::VisitExpr_(const FunctionNode* op) {
  MINITVM_THROW(TypeError) << "Relax printer: a function inside an expression can only be printed "
                              "when it is bound to a variable (normalise the expression first)";
}

ExprDoc RelaxPrinter::VisitExpr(const Expr& e) {
  if (depth_ >= kMaxDepth) {
    MINITVM_THROW(ValueError) << "Relax printer: the expression is nested more than " << kMaxDepth
                              << " levels deep (normalise it, or bind parts to variables)";
  }
  struct Guard {
    int* d;
    ~Guard() { --*d; }
  } guard{&++depth_};
  return ExprFunctor<ExprDoc(const Expr&)>::VisitExpr(e);
}

ExprDoc RelaxPrinter::VisitExprDefault_(const Object* op) {
  if (auto* e = dynamic_cast<const PrimExprNode*>(op)) {
    return PrintPrimExpr(GetRef<PrimExpr>(e));
  }
  MINITVM_THROW(TypeError) << "Relax printer: cannot print a " << op->GetTypeKey();
}

// ---- calls ------------------------------------------------------------------------------

ExprDoc RelaxPrinter::PrintCallee(const Expr& e) {
  if (auto* ext = e.as<ExternFuncNode>()) return StrDoc(ext->global_symbol.str());
  return PrintExpr(e);
}

ExprDoc RelaxPrinter::VisitExpr_(const CallNode* op) {
  std::vector<ExprDoc> args;
  std::vector<std::pair<std::string, ExprDoc>> kwargs;
  auto* callee_op = op->op.as<OpNode>();
  std::string op_name = callee_op ? callee_op->name.str() : "";

  // call_tir and friends: callee, argument tuple, out_sinfo (a list for several outputs).
  if (op_name == "relax.call_tir" || op_name == "relax.call_dps_packed" ||
      op_name == "relax.call_tir_inplace" || op_name == "relax.call_tir_with_grad") {
    if (op->args.size() >= 2 && op->sinfo_args.size() == 1) {
      args.push_back(PrintCallee(op->args[0]));
      args.push_back(PrintExpr(op->args[1]));
      const StructInfo& out = op->sinfo_args[0];
      if (auto* tuple = out.as<TupleStructInfoNode>()) {
        std::vector<ExprDoc> fields;
        for (const StructInfo& f : tuple->fields) fields.push_back(PrintStructInfo(f));
        kwargs.emplace_back("out_sinfo", ListDoc(fields));
      } else {
        kwargs.emplace_back("out_sinfo", PrintStructInfo(out));
      }
      if (op_name == "relax.call_tir_inplace") {
        auto indices = op->attrs.Get(String("inplace_indices"));
        kwargs.emplace_back("inplace_indices", indices ? PrintAttrValue(*indices) : ListDoc({}));
      }
      if (op_name == "relax.call_tir_with_grad") {
        for (const char* key : {"te_grad_name", "te_grad_kwargs"}) {
          if (auto v = op->attrs.Get(String(key))) kwargs.emplace_back(key, PrintAttrValue(*v));
        }
      }
      if (op_name != "relax.call_dps_packed" && op->args.size() == 3) {
        kwargs.emplace_back("tir_vars", PrintExpr(op->args[2]));
      }
      return CallDoc(RAttr(op_name.substr(6)), args, kwargs);
    }
  }
  // The format string of assert_op (second argument) and print (first) is a keyword.
  if (op_name == "relax.assert_op" && op->args.size() >= 2) {
    args.push_back(PrintExpr(op->args[0]));
    ExprDoc format = PrintExpr(op->args[1]);
    for (size_t i = 2; i < op->args.size(); ++i) args.push_back(PrintExpr(op->args[i]));
    return CallDoc(RAttr("assert_op"), args, {{"format", format}});
  }
  if (op_name == "relax.print" && !op->args.empty()) {
    ExprDoc format = PrintExpr(op->args[0]);
    for (size_t i = 1; i < op->args.size(); ++i) args.push_back(PrintExpr(op->args[i]));
    return CallDoc(RAttr("print"), args, {{"format", format}});
  }

  ExprDoc callee;
  if (auto* ext = op->op.as<ExternFuncNode>()) {
    callee = RAttr("call_packed");
    args.push_back(StrDoc(ext->global_symbol.str()));
  } else if (callee_op) {
    callee = op_name.rfind("relax.", 0) == 0 ? RAttr(op_name.substr(6)) : IdDoc(op_name);
  } else if (op->op.as<VarNode>() || op->op.as<GlobalVarNode>()) {
    callee = PrintExpr(op->op);
  } else {
    MINITVM_THROW(TypeError) << "Relax printer: cannot print a call of a "
                             << (op->op.defined() ? op->op->GetTypeKey() : std::string("null"));
  }
  for (size_t i = 0; i < op->args.size(); ++i) {
    args.push_back(i == 0 ? PrintCallee(op->args[i]) : PrintExpr(op->args[i]));
  }
  for (const auto& [key, value] : op->attrs.items()) {
    kwargs.emplace_back(key.str(), PrintAttrValue(value));
  }
  if (!op->sinfo_args.empty()) {
    std::vector<ExprDoc> infos;
    for (const StructInfo& s : op->sinfo_args) infos.push_back(PrintStructInfo(s));
    kwargs.emplace_back("sinfo_args", TupleDoc(infos));
  }
  return CallDoc(callee, args, kwargs);
}

ExprDoc RelaxPrinter::BindingAnnotation(const Var& var, const Expr& value) {
  if (!var->struct_info_.defined()) return nullptr;
  StructInfo info = Downcast<StructInfo>(var->struct_info_);
  // TVM shows every binding's struct info, except when a call_tir / call_dps_packed already
  // says it (its out_sinfo is the result's struct info).
  if (auto* call = value.as<CallNode>()) {
    if ((IsOp(call->op, "relax.call_tir") || IsOp(call->op, "relax.call_dps_packed")) &&
        call->sinfo_args.size() == 1 && StructuralEqual(call->sinfo_args[0], info)) {
      return nullptr;
    }
  }
  return PrintStructInfo(info);
}

}  // namespace printer
}  // namespace relax
}  // namespace minitvm

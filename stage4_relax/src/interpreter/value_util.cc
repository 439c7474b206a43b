/*!
 * \file interpreter/value_util.cc
 * \brief Value and attribute conversions of the Relax reference interpreter (stage 4).
 */
#include "interpreter/value_util.h"

#include <sstream>

#include "minitvm/lownumpy/elementwise.h"

namespace minitvm {
namespace relax {
namespace interp {

std::string CallName(const Call& call) {
  if (auto* op = call->op.as<OpNode>()) return op->name;
  if (auto* gv = call->op.as<GlobalVarNode>()) return gv->name_hint;
  if (auto* ef = call->op.as<ExternFuncNode>()) return ef->global_symbol;
  return "call";
}

Any Param(const Call& call, const Array<Any>& args, const std::string& name, int arg_index) {
  if (auto v = call->attrs.Get(name)) return *v;
  if (arg_index >= 0 && arg_index < static_cast<int>(args.size())) return args[arg_index];
  return Any();
}

NDArray TensorArg(const Call& call, const Array<Any>& args, int i) {
  if (i >= static_cast<int>(args.size())) {
    MINITVM_THROW(TypeError) << CallName(call) << ": expects a tensor argument " << i << " but got "
                             << args.size() << " arguments";
  }
  Any v = args[i];
  if (auto* nd = v.as<runtime::NDArrayNode>()) {
    return NDArray(runtime::ObjectPtr<Object>(const_cast<runtime::NDArrayNode*>(nd)));
  }
  MINITVM_THROW(TypeError) << CallName(call) << ": argument " << i << " must be a tensor but is "
                           << DescribeValue(v);
}

double ScalarOf(const NDArray& a) {
  if (a.NumElements() != 1) {
    MINITVM_THROW(ValueError) << "expected a scalar tensor but got shape "
                              << runtime::ShapeToString(a.Shape());
  }
  NDArray d = lownumpy::cast(a, DataType::Float(64));
  return d.data_as<double>()[0];
}

int64_t ToInt(const Any& v, const std::string& what) {
  if (v.is_int() || v.is_bool()) return v.raw_int();
  if (v.is_float() && v.raw_float() == static_cast<double>(static_cast<int64_t>(v.raw_float()))) {
    return static_cast<int64_t>(v.raw_float());
  }
  if (auto* imm = v.as<IntImmNode>()) return imm->value;
  if (auto* nd = v.as<runtime::NDArrayNode>()) {
    NDArray a(runtime::ObjectPtr<Object>(const_cast<runtime::NDArrayNode*>(nd)));
    if (a.NumElements() == 1 && !a.dtype().is_float()) return static_cast<int64_t>(ScalarOf(a));
  }
  MINITVM_THROW(TypeError) << what << " must be an int but is " << DescribeValue(v);
}

double ToFloat(const Any& v, const std::string& what) {
  if (v.is_int() || v.is_bool()) return static_cast<double>(v.raw_int());
  if (v.is_float()) return v.raw_float();
  if (auto* imm = v.as<IntImmNode>()) return static_cast<double>(imm->value);
  if (auto* imm = v.as<FloatImmNode>()) return imm->value;
  if (auto* nd = v.as<runtime::NDArrayNode>()) {
    return ScalarOf(NDArray(runtime::ObjectPtr<Object>(const_cast<runtime::NDArrayNode*>(nd))));
  }
  MINITVM_THROW(TypeError) << what << " must be a number but is " << DescribeValue(v);
}

bool ToBool(const Any& v, const std::string& what) {
  if (v.is_int() || v.is_bool()) return v.raw_int() != 0;
  if (auto* imm = v.as<IntImmNode>()) return imm->value != 0;
  MINITVM_THROW(TypeError) << what << " must be a bool but is " << DescribeValue(v);
}

std::string ToStr(const Any& v, const std::string& what) {
  if (v.is_string()) return v.cast<String>();
  if (auto* s = v.as<StringImmNode>()) return s->value;
  MINITVM_THROW(TypeError) << what << " must be a string but is " << DescribeValue(v);
}

Shape ToInts(const Any& v, const std::string& what) {
  if (auto* st = v.as<ShapeTupleNode>()) return st->values;
  if (auto* sh = v.as<ShapeExprNode>()) {
    Shape out;
    for (const PrimExpr& e : sh->values) out.push_back(ToInt(Any(e), what));
    return out;
  }
  if (auto* arr = v.as<runtime::ArrayNode>()) {
    Shape out;
    for (size_t i = 0; i < arr->data.size(); ++i) {
      out.push_back(ToInt(arr->data[i], what + " element " + std::to_string(i)));
    }
    return out;
  }
  if (v.is_int() || v.as<IntImmNode>()) return {ToInt(v, what)};
  MINITVM_THROW(TypeError) << what << " must be a list of ints but is " << DescribeValue(v);
}

std::optional<DataType> ToDType(const Any& v, const std::string& what) {
  if (v.is_null()) return std::nullopt;
  DataType d;
  if (v.tag() == Any::kDataType) {
    d = v.raw_dtype();
  } else if (auto* imm = v.as<DataTypeImmNode>()) {
    d = imm->value;
  } else if (v.is_string()) {
    std::string s = v.cast<String>();
    if (s.empty() || s == "void") return std::nullopt;
    d = DataType(s);
  } else {
    MINITVM_THROW(TypeError) << what << " must be a dtype but is " << DescribeValue(v);
  }
  if (d.is_void()) return std::nullopt;
  return d;
}

}  // namespace interp
}  // namespace relax
}  // namespace minitvm

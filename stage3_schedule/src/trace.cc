/*!
 * \file trace.cc
 * \brief Instructions and traces (stage 3): printing a trace as Python, writing and reading it
 * as JSON, and replaying it on a schedule.
 */
#include "minitvm/tir/schedule/trace.h"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <unordered_map>

#include "instruction.h"
#include "json.h"
#include "minitvm/tir/schedule/schedule.h"

namespace minitvm {
namespace tir {

Instruction::Instruction(String kind, Array<Any> inputs, Array<Any> attrs,
                         Array<ObjectRef> outputs) {
  auto n = make_object<InstructionNode>();
  n->kind = std::move(kind);
  n->inputs = std::move(inputs);
  n->attrs = std::move(attrs);
  n->outputs = std::move(outputs);
  data_ = std::move(n);
}

Trace::Trace(Array<Instruction> insts) {
  auto n = make_object<TraceNode>();
  n->insts = std::move(insts);
  data_ = std::move(n);
}

void Trace::Append(const Instruction& inst) {
  if (!defined()) *this = Trace::Empty();
  CopyOnWrite()->insts.push_back(inst);
}

Array<Instruction> Trace::Instructions(bool remove_postproc) const {
  Array<Instruction> out;
  if (!defined()) return out;
  for (const Instruction& inst : get()->insts) {
    if (remove_postproc && inst->kind.str() == "EnterPostproc") break;
    out.push_back(inst);
  }
  return out;
}

// ---- printing as Python -------------------------------------------------------------------

std::string PythonLiteral(const Any& v) {
  if (v.is_null()) return "None";
  if (v.is_bool()) return v.raw_int() ? "True" : "False";
  if (v.is_int()) return std::to_string(v.raw_int());
  if (v.is_float()) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.17g", v.raw_float());
    std::string s = buf;
    for (int p = 1; p < 17; ++p) {
      std::snprintf(buf, sizeof(buf), "%.*g", p, v.raw_float());
      if (std::strtod(buf, nullptr) == v.raw_float()) {
        s = buf;
        break;
      }
    }
    if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
    return s;
  }
  if (v.is_string()) {
    std::string out = "\"";
    for (char c : v.cast<std::string>()) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out + "\"";
  }
  if (auto* arr = v.as<runtime::ArrayNode>()) {
    std::string out = "[";
    for (size_t i = 0; i < arr->data.size(); ++i) {
      out += (i ? ", " : "") + PythonLiteral(arr->data[i]);
    }
    return out + "]";
  }
  if (auto* im = v.as<IndexMapNode>()) return GetRef<IndexMap>(im).ToPythonLambda();
  if (auto* e = v.as<PrimExprNode>()) return PrintPythonExpr(GetRef<PrimExpr>(e));
  return v.ToString();
}

namespace {

std::string InputText(const Any& v, const std::function<std::string(const ObjectRef&)>& name_of) {
  if (IsScheduleRV(v)) return name_of(v.cast<ObjectRef>());
  if (auto* arr = v.as<runtime::ArrayNode>()) {
    std::string out = "[";
    for (size_t i = 0; i < arr->data.size(); ++i) {
      out += (i ? ", " : "") + InputText(arr->data[i], name_of);
    }
    return out + "]";
  }
  return PythonLiteral(v);
}

}  // namespace

std::string InstructionAsPython(const std::string& kind, const Array<Any>& inputs,
                                const Array<Any>& attrs, const Array<ObjectRef>& outputs,
                                const std::function<std::string(const ObjectRef&)>& name_of) {
  const InstructionKindInfo& info = GetInstructionKind(kind);
  std::vector<std::string> in_text;
  for (const Any& v : inputs) in_text.push_back(InputText(v, name_of));
  std::string args;
  if (info.print_args) {
    args = info.print_args(in_text, attrs);
  } else {
    std::vector<std::string> parts;
    for (size_t i = 0; i < in_text.size(); ++i) {
      if (info.variadic || i >= info.input_names.size()) {
        parts.push_back(in_text[i]);
      } else {
        // An empty optional list (e.g. consumer_blocks) is left out, as TVM prints it.
        if (in_text[i] == "[]" && info.input_names[i] == "consumer_blocks") continue;
        parts.push_back(info.input_names[i] + "=" + in_text[i]);
      }
    }
    for (size_t i = 0; i < attrs.size(); ++i) {
      std::string name =
          i < info.attr_names.size() ? info.attr_names[i] : "attr" + std::to_string(i);
      parts.push_back(name + "=" + PythonLiteral(attrs[i]));
    }
    for (size_t i = 0; i < parts.size(); ++i) args += (i ? ", " : "") + parts[i];
  }
  std::string lhs;
  if (!outputs.empty()) {
    for (size_t i = 0; i < outputs.size(); ++i) lhs += (i ? ", " : "") + name_of(outputs[i]);
    if (info.returns_list && outputs.size() == 1) lhs += ",";
    lhs += " = ";
  } else if (info.returns_list) {
    lhs = "_ = ";
  }
  return lhs + "sch." + info.method + "(" + args + ")";
}

namespace {

/*! \brief Names handles b0, l1, ... in order of definition across a trace. */
class RVNamer {
 public:
  std::string Name(const ObjectRef& rv) {
    auto it = names_.find(rv.get());
    if (it != names_.end()) return it->second;
    std::string name = (rv.as<BlockRVNode>()  ? "b"
                        : rv.as<ExprRVNode>() ? "v"
                                              : "l") +
                       std::to_string(next_++);
    names_[rv.get()] = name;
    return name;
  }

 private:
  std::unordered_map<const Object*, std::string> names_;
  int next_ = 0;
};

}  // namespace

std::vector<std::string> Trace::AsPythonLines(bool remove_postproc) const {
  RVNamer namer;
  std::vector<std::string> lines;
  for (const Instruction& inst : Instructions(remove_postproc)) {
    // Name outputs first so that they are numbered in order of definition.
    for (const ObjectRef& o : inst->outputs) namer.Name(o);
    lines.push_back(InstructionAsPython(inst->kind, inst->inputs, inst->attrs, inst->outputs,
                                        [&](const ObjectRef& rv) { return namer.Name(rv); }));
  }
  return lines;
}

std::string Trace::Show(bool remove_postproc) const {
  std::ostringstream os;
  os << "# from minitvm import tir\n";
  os << "def apply_trace(sch: tir.Schedule) -> None:\n";
  std::vector<std::string> lines = AsPythonLines(remove_postproc);
  if (lines.empty()) os << "  pass\n";
  for (const std::string& l : lines) os << "  " << l << "\n";
  return os.str();
}

// ---- JSON -----------------------------------------------------------------------------------

namespace {

Any InputToJSON(const Any& v, RVNamer* namer) {
  if (IsScheduleRV(v)) return Any(namer->Name(v.cast<ObjectRef>()));
  if (auto* arr = v.as<runtime::ArrayNode>()) {
    Array<Any> out;
    for (const Any& x : arr->data) out.push_back(InputToJSON(x, namer));
    return out;
  }
  if (v.is_null() || v.is_int() || v.is_bool() || v.is_float()) return v;
  MINITVM_THROW(TypeError) << "trace input of type " << v.type_name() << " cannot go to JSON";
}

Any AttrToJSON(const Any& v) {
  if (auto* im = v.as<IndexMapNode>()) {
    Map<String, Any> m;
    m.Set(String("index_map"), GetRef<IndexMap>(im).ToJSONValue());
    return m;
  }
  if (auto* imm = v.as<IntImmNode>()) {
    Map<String, Any> m;
    m.Set(String("int"), Any(imm->value));
    m.Set(String("dtype"), Any(DataTypeToString(imm->dtype)));
    return m;
  }
  if (auto* f = v.as<FloatImmNode>()) {
    Map<String, Any> m;
    m.Set(String("float"), Any(f->value));
    m.Set(String("dtype"), Any(DataTypeToString(f->dtype)));
    return m;
  }
  if (auto* arr = v.as<runtime::ArrayNode>()) {
    Array<Any> out;
    for (const Any& x : arr->data) out.push_back(AttrToJSON(x));
    return out;
  }
  return v;
}

Any AttrFromJSON(const Any& v) {
  if (auto* m = v.as<runtime::MapNode>()) {
    Map<String, Any> map(ObjectPtr<Object>(const_cast<runtime::MapNode*>(m)));
    if (auto im = map.Get(String("index_map"))) return IndexMap::FromJSONValue(*im);
    if (auto i = map.Get(String("int"))) {
      return IntImm(DataType(map.at(String("dtype")).cast<std::string>()), i->cast<int64_t>());
    }
    if (auto f = map.Get(String("float"))) {
      return FloatImm(DataType(map.at(String("dtype")).cast<std::string>()), f->cast<double>());
    }
    MINITVM_THROW(ValueError) << "unknown trace attribute object " << v.ToString();
  }
  if (auto* arr = v.as<runtime::ArrayNode>()) {
    Array<Any> out;
    for (const Any& x : arr->data) out.push_back(AttrFromJSON(x));
    return out;
  }
  return v;
}

}  // namespace

std::string Trace::AsJSON(bool remove_postproc) const {
  RVNamer namer;
  Array<Any> insts;
  for (const Instruction& inst : Instructions(remove_postproc)) {
    Array<Any> outputs;
    for (const ObjectRef& o : inst->outputs) outputs.push_back(Any(namer.Name(o)));
    Array<Any> inputs;
    for (const Any& v : inst->inputs) inputs.push_back(InputToJSON(v, &namer));
    Array<Any> attrs;
    for (const Any& v : inst->attrs) attrs.push_back(AttrToJSON(v));
    insts.push_back(Array<Any>{Any(inst->kind), Any(inputs), Any(attrs), Any(outputs)});
  }
  return json::Write(Array<Any>{Any(insts), Any(Array<Any>())});
}

namespace {

Any InputFromJSON(const Any& v, const std::unordered_map<std::string, ObjectRef>& rvs) {
  if (v.is_string()) {
    std::string name = v.cast<std::string>();
    auto it = rvs.find(name);
    if (it == rvs.end()) {
      MINITVM_THROW(ValueError) << "trace JSON uses handle \"" << name << "\" before defining it";
    }
    return Any(it->second);
  }
  if (auto* arr = v.as<runtime::ArrayNode>()) {
    Array<Any> out;
    for (const Any& x : arr->data) out.push_back(InputFromJSON(x, rvs));
    return out;
  }
  return v;
}

}  // namespace

Trace Trace::FromJSON(const std::string& text) {
  Any root = json::Read(text);
  auto top = root.try_cast<Array<Any>>();
  if (!top || top->empty()) {
    MINITVM_THROW(ValueError) << "a trace in JSON is [[instructions...], [decisions...]]";
  }
  std::unordered_map<std::string, ObjectRef> rvs;
  Array<Instruction> insts;
  for (const Any& item : (*top)[0].cast<Array<Any>>()) {
    Array<Any> parts = item.cast<Array<Any>>();
    if (parts.size() != 4) {
      MINITVM_THROW(ValueError) << "a trace instruction is [kind, inputs, attrs, outputs], got "
                                << item.ToString();
    }
    std::string kind = parts[0].cast<std::string>();
    GetInstructionKind(kind);  // validates the kind
    Array<Any> inputs;
    for (const Any& v : parts[1].cast<Array<Any>>()) inputs.push_back(InputFromJSON(v, rvs));
    Array<Any> attrs;
    for (const Any& v : parts[2].cast<Array<Any>>()) attrs.push_back(AttrFromJSON(v));
    Array<ObjectRef> outputs;
    for (const Any& v : parts[3].cast<Array<Any>>()) {
      std::string name = v.cast<std::string>();
      ObjectRef rv = NewScheduleRV(GetInstructionKind(kind).output_kind);
      rvs[name] = rv;
      outputs.push_back(rv);
    }
    insts.push_back(Instruction(kind, inputs, attrs, outputs));
  }
  return Trace(insts);
}

// ---- replay ---------------------------------------------------------------------------------

namespace {

Any MapInput(const Any& v, const std::unordered_map<const Object*, ObjectRef>& rv_map) {
  if (IsScheduleRV(v)) {
    auto it = rv_map.find(v.as_object());
    if (it == rv_map.end()) {
      MINITVM_THROW(ValueError) << "the trace uses a handle that none of its instructions defines";
    }
    return Any(it->second);
  }
  if (auto* arr = v.as<runtime::ArrayNode>()) {
    Array<Any> out;
    for (const Any& x : arr->data) out.push_back(MapInput(x, rv_map));
    return out;
  }
  return v;
}

}  // namespace

void Trace::ApplyToSchedule(const Schedule& sch, bool remove_postproc) const {
  std::unordered_map<const Object*, ObjectRef> rv_map;
  for (const Instruction& inst : Instructions(remove_postproc)) {
    Array<Any> inputs;
    for (const Any& v : inst->inputs) inputs.push_back(MapInput(v, rv_map));
    Array<ObjectRef> outs = sch->Apply(inst->kind, inputs, inst->attrs);
    if (outs.size() != inst->outputs.size()) {
      MINITVM_THROW(ValueError) << "replaying " << inst->kind << ": it gave " << outs.size()
                                << " handles where the trace recorded " << inst->outputs.size()
                                << " (the module differs from the one the trace was made on)";
    }
    for (size_t i = 0; i < outs.size(); ++i) rv_map[inst->outputs[i].get()] = outs[i];
  }
}

}  // namespace tir
}  // namespace minitvm

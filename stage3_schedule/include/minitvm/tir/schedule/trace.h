/*!
 * \file minitvm/tir/schedule/trace.h
 * \brief The trace of a schedule (stage 3): every primitive call recorded as an `Instruction`
 * (its kind, inputs, attributes and outputs), printable as the Python that replays it,
 * serialisable to JSON, and replayable on a fresh schedule.
 *
 * Inputs and outputs that are handles (BlockRV, LoopRV) are named `b0`, `l1`, ... when the
 * trace is shown or written as JSON, in the order they are first defined. Inputs that are not
 * handles are integers, strings, None or arrays of them; attributes are plain values (and
 * IndexMaps). The JSON form is `[[inst, ...], []]` with each instruction written as
 * `[kind, inputs, attrs, outputs]`, the shape TVM uses.
 */
#ifndef MINITVM_TIR_SCHEDULE_TRACE_H_
#define MINITVM_TIR_SCHEDULE_TRACE_H_

#include <string>
#include <vector>

#include "minitvm/runtime/container.h"
#include "minitvm/tir/var.h"

namespace minitvm {
namespace tir {

class Schedule;

/*! \brief The node of an Instruction. */
class InstructionNode : public Object {
 public:
  /*! \brief The kind, e.g. "Split" (see `InstructionKindNames`). */
  String kind;
  /*! \brief Inputs: handles, ints, None, or arrays of them. */
  Array<Any> inputs;
  /*! \brief Attributes: plain values (ints, bools, strings, IndexMap, ...). */
  Array<Any> attrs;
  /*! \brief Outputs: the handles the instruction defines. */
  Array<ObjectRef> outputs;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("kind", &kind);
    v->Visit("inputs", &inputs);
    v->Visit("attrs", &attrs);
    v->Visit("outputs", &outputs);
  }
  MINITVM_DECLARE_OBJECT_INFO(InstructionNode, Object, "tir.schedule.Instruction");
};

/*! \brief One recorded primitive call. */
class Instruction : public ObjectRef {
 public:
  Instruction(String kind, Array<Any> inputs, Array<Any> attrs, Array<ObjectRef> outputs);
  MINITVM_DEFINE_OBJECT_REF_METHODS(Instruction, ObjectRef, InstructionNode);
};

/*! \brief The node of a Trace. */
class TraceNode : public Object {
 public:
  Array<Instruction> insts;
  void VisitAttrs(AttrVisitor* v) override { v->Visit("insts", &insts); }
  MINITVM_DECLARE_OBJECT_INFO(TraceNode, Object, "tir.schedule.Trace");
};

/*! \brief A sequence of instructions. */
class Trace : public ObjectRef {
 public:
  explicit Trace(Array<Instruction> insts);
  /*! \brief An empty trace. */
  static Trace Empty() { return Trace(Array<Instruction>()); }
  /*! \brief Append an instruction (copy-on-write; an undefined trace becomes a new one). */
  void Append(const Instruction& inst);
  /*! \brief The instructions; with remove_postproc, those before "EnterPostproc" only. */
  Array<Instruction> Instructions(bool remove_postproc = false) const;
  /*!
   * \brief The trace as Python: `def apply_trace(sch: tir.Schedule) -> None:` followed by one
   * line per instruction, e.g. `  l2, l3 = sch.split(loop=l1, factors=[None, 4], ...)`.
   */
  std::string Show(bool remove_postproc = false) const;
  /*! \brief One Python line per instruction, without the function header or indentation. */
  std::vector<std::string> AsPythonLines(bool remove_postproc = false) const;
  /*! \brief The trace as JSON text. */
  std::string AsJSON(bool remove_postproc = false) const;
  /*! \brief Parse the JSON form (ValueError naming the position on malformed input). */
  static Trace FromJSON(const std::string& json);
  /*!
   * \brief Parse schedule calls written as Python, one per line, as `Show` prints them
   * (`l2, l3 = sch.split(loop=l1, factors=[None, 4])`); positional arguments and omitted
   * optional arguments are accepted, `def`/`pass`/comment lines are skipped. ValueError names
   * the line and column of anything it cannot read.
   */
  static Trace FromPython(const std::string& text);
  /*!
   * \brief Replay on `sch`: each instruction is applied with its handles mapped to the
   * handles `sch` creates. Raises what the primitive raises.
   */
  void ApplyToSchedule(const Schedule& sch, bool remove_postproc = false) const;
  MINITVM_DEFINE_OBJECT_REF_METHODS(Trace, ObjectRef, TraceNode);
  MINITVM_DEFINE_OBJECT_REF_COW_METHOD(TraceNode);
};

/*! \brief The names of every instruction kind, e.g. "Split", "ComputeAt". */
std::vector<std::string> InstructionKindNames();

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_SCHEDULE_TRACE_H_

/*!
 * \file minitvm/tir/stmt.h
 * \brief TensorIR statement nodes (stage 2): stores, loops, control flow, allocation and the
 * `Block`/`BlockRealize` pair that schedules work on.
 */
#ifndef MINITVM_TIR_STMT_H_
#define MINITVM_TIR_STMT_H_

#include <optional>
#include <string>

#include "minitvm/tir/expr.h"

namespace minitvm {
namespace tir {

/*! \brief Base of statement nodes. */
class StmtNode : public Object {
 public:
  MINITVM_DECLARE_OBJECT_INFO(StmtNode, Object, "tir.Stmt");
};
class Stmt : public ObjectRef {
 public:
  MINITVM_DEFINE_OBJECT_REF_METHODS(Stmt, ObjectRef, StmtNode);
};

/*! \brief `buffer[indices] = value`. */
class BufferStoreNode : public StmtNode {
 public:
  /*! \brief The buffer written. */
  Buffer buffer;
  /*! \brief The value stored. */
  PrimExpr value;
  /*! \brief One index per dimension (a Ramp for a vector store). */
  Array<PrimExpr> indices;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("buffer", &buffer);
    v->Visit("value", &value);
    v->Visit("indices", &indices);
  }
  MINITVM_DECLARE_OBJECT_INFO(BufferStoreNode, StmtNode, "tir.BufferStore");
};
class BufferStore : public Stmt {
 public:
  /*! \brief ValueError on a rank or dtype mismatch (naming the buffer). */
  BufferStore(Buffer buffer, PrimExpr value, Array<PrimExpr> indices);
  MINITVM_DEFINE_OBJECT_REF_METHODS(BufferStore, Stmt, BufferStoreNode);
  MINITVM_DEFINE_OBJECT_REF_COW_METHOD(BufferStoreNode);
};

/*! \brief How a loop runs. */
enum class ForKind : int {
  kSerial = 0,
  kParallel = 1,
  kVectorized = 2,
  kUnrolled = 3,
  kThreadBinding = 4,
};
/*! \brief "serial", "parallel", "vectorized", "unroll", "thread_binding". */
const char* ForKindName(ForKind kind);

/*!
 * \brief `for loop_var in range(min, min + extent)` with a kind. A thread-bound loop carries
 * its thread axis in `thread_binding` (an IterVar whose thread_tag is e.g. "threadIdx.x").
 */
class ForNode : public StmtNode {
 public:
  /*! \brief The loop variable. */
  Var loop_var;
  /*! \brief First value of the loop variable. */
  PrimExpr min;
  /*! \brief Number of iterations. */
  PrimExpr extent;
  /*! \brief Serial, parallel, vectorized, unrolled or thread-bound. */
  ForKind kind = ForKind::kSerial;
  /*! \brief The loop body. */
  Stmt body;
  IterVar thread_binding;  ///< defined only for kThreadBinding loops
  /*! \brief Free-form annotations (pragma_*, ...) from the schedule. */
  Map<String, Any> annotations;
  void VisitAttrs(AttrVisitor* v) override {
    v->VisitBinding("loop_var", &loop_var);
    v->Visit("min", &min);
    v->Visit("extent", &extent);
    v->Visit("kind", &kind);
    v->Visit("thread_binding", &thread_binding);
    v->Visit("annotations", &annotations);
    v->Visit("body", &body);
  }
  MINITVM_DECLARE_OBJECT_INFO(ForNode, StmtNode, "tir.For");
};
class For : public Stmt {
 public:
  For(Var loop_var, PrimExpr min, PrimExpr extent, ForKind kind, Stmt body,
      IterVar thread_binding = IterVar(), Map<String, Any> annotations = {});
  MINITVM_DEFINE_OBJECT_REF_METHODS(For, Stmt, ForNode);
  MINITVM_DEFINE_OBJECT_REF_COW_METHOD(ForNode);
};

/*! \brief `while condition: body`. */
class WhileNode : public StmtNode {
 public:
  /*! \brief Tested before each iteration. */
  PrimExpr condition;
  /*! \brief The loop body. */
  Stmt body;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("condition", &condition);
    v->Visit("body", &body);
  }
  MINITVM_DECLARE_OBJECT_INFO(WhileNode, StmtNode, "tir.While");
};
class While : public Stmt {
 public:
  While(PrimExpr condition, Stmt body);
  MINITVM_DEFINE_OBJECT_REF_METHODS(While, Stmt, WhileNode);
};

/*! \brief `if condition: then_case else: else_case` (else_case may be undefined). */
class IfThenElseNode : public StmtNode {
 public:
  /*! \brief The boolean condition. */
  PrimExpr condition;
  /*! \brief Run when the condition holds. */
  Stmt then_case;
  /*! \brief Run otherwise; undefined when there is no else branch. */
  Stmt else_case;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("condition", &condition);
    v->Visit("then_case", &then_case);
    v->Visit("else_case", &else_case);
  }
  MINITVM_DECLARE_OBJECT_INFO(IfThenElseNode, StmtNode, "tir.IfThenElse");
};
class IfThenElse : public Stmt {
 public:
  IfThenElse(PrimExpr condition, Stmt then_case, Stmt else_case = Stmt());
  MINITVM_DEFINE_OBJECT_REF_METHODS(IfThenElse, Stmt, IfThenElseNode);
};

/*! \brief A sequence of statements. */
class SeqStmtNode : public StmtNode {
 public:
  /*! \brief The statements, run in order. */
  Array<Stmt> seq;
  void VisitAttrs(AttrVisitor* v) override { v->Visit("seq", &seq); }
  size_t size() const { return seq.size(); }
  MINITVM_DECLARE_OBJECT_INFO(SeqStmtNode, StmtNode, "tir.SeqStmt");
};
class SeqStmt : public Stmt {
 public:
  explicit SeqStmt(Array<Stmt> seq);
  /*! \brief Flatten nested sequences; one statement stays itself (not wrapped). */
  static Stmt Flatten(const Array<Stmt>& stmts);
  MINITVM_DEFINE_OBJECT_REF_METHODS(SeqStmt, Stmt, SeqStmtNode);
};

/*! \brief Evaluate an expression for its effect (e.g. an extern call). */
class EvaluateNode : public StmtNode {
 public:
  /*! \brief The expression evaluated for its effect (usually a Call). */
  PrimExpr value;
  void VisitAttrs(AttrVisitor* v) override { v->Visit("value", &value); }
  MINITVM_DECLARE_OBJECT_INFO(EvaluateNode, StmtNode, "tir.Evaluate");
};
class Evaluate : public Stmt {
 public:
  explicit Evaluate(PrimExpr value);
  MINITVM_DEFINE_OBJECT_REF_METHODS(Evaluate, Stmt, EvaluateNode);
};

/*! \brief `var = value` for the scope of body. */
class LetStmtNode : public StmtNode {
 public:
  /*! \brief The variable bound. */
  Var var;
  /*! \brief Its value. */
  PrimExpr value;
  /*! \brief The statement in which `var` is bound. */
  Stmt body;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("value", &value);
    v->VisitBinding("var", &var);
    v->Visit("body", &body);
  }
  MINITVM_DECLARE_OBJECT_INFO(LetStmtNode, StmtNode, "tir.LetStmt");
};
class LetStmt : public Stmt {
 public:
  LetStmt(Var var, PrimExpr value, Stmt body);
  MINITVM_DEFINE_OBJECT_REF_METHODS(LetStmt, Stmt, LetStmtNode);
};

/*! \brief Check `condition`, failing with `message`, then run body. */
class AssertStmtNode : public StmtNode {
 public:
  /*! \brief The condition checked at run time. */
  PrimExpr condition;
  /*! \brief The error message (a StringImm) when it fails. */
  PrimExpr message;
  /*! \brief Run after the check. */
  Stmt body;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("condition", &condition);
    v->Visit("message", &message);
    v->Visit("body", &body);
  }
  MINITVM_DECLARE_OBJECT_INFO(AssertStmtNode, StmtNode, "tir.AssertStmt");
};
class AssertStmt : public Stmt {
 public:
  AssertStmt(PrimExpr condition, PrimExpr message, Stmt body);
  MINITVM_DEFINE_OBJECT_REF_METHODS(AssertStmt, Stmt, AssertStmtNode);
};

/*! \brief Allocate memory bound to `buffer_var` (a handle Var) for the scope of body. */
class AllocateNode : public StmtNode {
 public:
  /*! \brief The handle variable of the allocated memory. */
  Var buffer_var;
  /*! \brief Element dtype. */
  DataType dtype;
  /*! \brief Extent of each dimension. */
  Array<PrimExpr> extents;
  /*! \brief Allocate only when this holds (usually true). */
  PrimExpr condition;
  /*! \brief The statement that uses the memory. */
  Stmt body;
  /*! \brief Storage scope: "global", "shared", "local", ... */
  String scope = "global";
  /*! \brief Free-form annotations. */
  Map<String, Any> annotations;
  void VisitAttrs(AttrVisitor* v) override {
    v->VisitBinding("buffer_var", &buffer_var);
    v->Visit("dtype", &dtype);
    v->Visit("extents", &extents);
    v->Visit("condition", &condition);
    v->Visit("body", &body);
    v->Visit("scope", &scope);
    v->Visit("annotations", &annotations);
  }
  MINITVM_DECLARE_OBJECT_INFO(AllocateNode, StmtNode, "tir.Allocate");
};
class Allocate : public Stmt {
 public:
  Allocate(Var buffer_var, DataType dtype, Array<PrimExpr> extents, PrimExpr condition, Stmt body,
           String scope = "global", Map<String, Any> annotations = {});
  MINITVM_DEFINE_OBJECT_REF_METHODS(Allocate, Stmt, AllocateNode);
};

/*! \brief Declare a buffer (over an existing data var) for the scope of body. */
class DeclBufferNode : public StmtNode {
 public:
  /*! \brief The buffer declared over existing memory. */
  Buffer buffer;
  /*! \brief The statement in which the buffer is declared. */
  Stmt body;
  void VisitAttrs(AttrVisitor* v) override {
    v->VisitBinding("buffer", &buffer);
    v->Visit("body", &body);
  }
  MINITVM_DECLARE_OBJECT_INFO(DeclBufferNode, StmtNode, "tir.DeclBuffer");
};
class DeclBuffer : public Stmt {
 public:
  DeclBuffer(Buffer buffer, Stmt body);
  MINITVM_DEFINE_OBJECT_REF_METHODS(DeclBuffer, Stmt, DeclBufferNode);
};

/*! \brief An attribute (`attr_key` = value on `node`) for the scope of body, e.g. thread_extent. */
class AttrStmtNode : public StmtNode {
 public:
  /*! \brief The object the attribute is about (a variable, an IterVar, ...). */
  ObjectRef node;
  /*! \brief The attribute's name, e.g. "thread_extent", "compute_scope". */
  String attr_key;
  /*! \brief The attribute's value. */
  PrimExpr value;
  /*! \brief The statement the attribute applies to. */
  Stmt body;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("node", &node);
    v->Visit("attr_key", &attr_key);
    v->Visit("value", &value);
    v->Visit("body", &body);
  }
  MINITVM_DECLARE_OBJECT_INFO(AttrStmtNode, StmtNode, "tir.AttrStmt");
};
class AttrStmt : public Stmt {
 public:
  AttrStmt(ObjectRef node, String attr_key, PrimExpr value, Stmt body);
  MINITVM_DEFINE_OBJECT_REF_METHODS(AttrStmt, Stmt, AttrStmtNode);
};

/*! \brief `buffer` is a view of `source` inside a block (T.match_buffer). */
class MatchBufferRegionNode : public Object {
 public:
  /*! \brief The buffer bound to the region. */
  Buffer buffer;
  /*! \brief The region of an outer buffer it views. */
  BufferRegion source;
  void VisitAttrs(AttrVisitor* v) override {
    v->VisitBinding("buffer", &buffer);
    v->Visit("source", &source);
  }
  MINITVM_DECLARE_OBJECT_INFO(MatchBufferRegionNode, Object, "tir.MatchBufferRegion");
};
class MatchBufferRegion : public ObjectRef {
 public:
  MatchBufferRegion(Buffer buffer, BufferRegion source);
  MINITVM_DEFINE_OBJECT_REF_METHODS(MatchBufferRegion, ObjectRef, MatchBufferRegionNode);
};

/*!
 * \brief A block: the unit of computation schedules work on. It declares its iterators
 * (with domains and kinds), the regions it reads and writes, an optional reduction `init`,
 * local allocations and matched sub-buffers.
 */
class BlockNode : public StmtNode {
 public:
  /*! \brief The block iterators with their domains and kinds. */
  Array<IterVar> iter_vars;
  /*! \brief The regions the block reads. */
  Array<BufferRegion> reads;
  /*! \brief The regions the block writes. */
  Array<BufferRegion> writes;
  /*! \brief The block's name (unique within a function). */
  String name_hint;
  /*! \brief The block body. */
  Stmt body;
  Stmt init;  ///< undefined when the block has no init
  /*! \brief Buffers allocated for the lifetime of the block. */
  Array<Buffer> alloc_buffers;
  /*! \brief Buffers bound to regions of outer buffers. */
  Array<MatchBufferRegion> match_buffers;
  /*! \brief Free-form annotations from the schedule. */
  Map<String, Any> annotations;
  void VisitAttrs(AttrVisitor* v) override {
    v->VisitBinding("iter_vars", &iter_vars);
    v->VisitBinding("alloc_buffers", &alloc_buffers);
    v->Visit("match_buffers", &match_buffers);
    v->Visit("reads", &reads);
    v->Visit("writes", &writes);
    v->Visit("name_hint", &name_hint);
    v->Visit("init", &init);
    v->Visit("body", &body);
    v->Visit("annotations", &annotations);
  }
  MINITVM_DECLARE_OBJECT_INFO(BlockNode, StmtNode, "tir.Block");
};
class Block : public Stmt {
 public:
  Block(Array<IterVar> iter_vars, Array<BufferRegion> reads, Array<BufferRegion> writes,
        String name_hint, Stmt body, Stmt init = Stmt(), Array<Buffer> alloc_buffers = {},
        Array<MatchBufferRegion> match_buffers = {}, Map<String, Any> annotations = {});
  MINITVM_DEFINE_OBJECT_REF_METHODS(Block, Stmt, BlockNode);
  MINITVM_DEFINE_OBJECT_REF_COW_METHOD(BlockNode);
};

/*! \brief Runs a block with its iterators bound to `iter_values`, when `predicate` holds. */
class BlockRealizeNode : public StmtNode {
 public:
  /*! \brief The value of each block iterator (its binding). */
  Array<PrimExpr> iter_values;
  /*! \brief The block runs only when this holds. */
  PrimExpr predicate;
  /*! \brief The block realized. */
  Block block;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("iter_values", &iter_values);
    v->Visit("predicate", &predicate);
    v->Visit("block", &block);
  }
  MINITVM_DECLARE_OBJECT_INFO(BlockRealizeNode, StmtNode, "tir.BlockRealize");
};
class BlockRealize : public Stmt {
 public:
  /*! \brief ValueError when the number of values is not the number of block iterators. */
  BlockRealize(Array<PrimExpr> iter_values, PrimExpr predicate, Block block);
  MINITVM_DEFINE_OBJECT_REF_METHODS(BlockRealize, Stmt, BlockRealizeNode);
  MINITVM_DEFINE_OBJECT_REF_COW_METHOD(BlockRealizeNode);
};

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_STMT_H_

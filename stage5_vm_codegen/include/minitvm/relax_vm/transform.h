/*!
 * \file minitvm/relax_vm/transform.h
 * \brief Lowering of Relax for the VM (stage 5): the passes that turn a legalized Relax module
 * (every op a `call_tir`) into one whose Relax functions contain only calls of PrimFuncs, of
 * other Relax functions and of the VM builtins listed below, with explicit memory, checked
 * arguments and shapes computed through a shape heap — what `CodeGenVM` (codegen_vm.h) turns
 * into bytecode.
 *
 * The pipeline (`LoweringPipeline()`, Python `relax.transform.vm_lowering_pipeline()`), in order:
 *   0. RewriteDataflowReshape call_tir of a kernel that only reshapes → R.reshape (a view)
 *   1. CallTIRRewrite        call_tir / call_dps_packed → alloc outputs + an impure call;
 *                            dataflow blocks become plain blocks (impure calls are now there)
 *   2. StaticPlanBlockMemory static shapes: storages shared across disjoint lifetimes
 *   3. LowerAllocTensor      remaining builtin.alloc_tensor → alloc_storage + alloc_tensor
 *   4. KillAfterLastUse      memory.kill_tensor / kill_storage after the last use
 *   5. LowerRuntimeBuiltin   memory / tuple / shape ops → calls of "vm.builtin.*"
 *   6. VMShapeLower          argument checks, symbolic shapes through a shape heap
 *   7. AttachGlobalSymbol    "global_symbol" = the name, on every function without one
 *
 * ## The VM builtins the lowered code calls (implemented by the VM, `vm_builtins.cc`)
 *
 * Argument types are runtime values (interpreter.h's table): `ShapeTuple` is
 * `relax::ShapeTuple`, `int` an int64, `str` a `String`; dtypes are passed as **strings**
 * ("float32"; an empty string means "any"). `vm` is the VM itself (argument
 * `Instruction::kVMRegister`). "→ null" means the result is discarded (the call's destination is
 * `kVoidRegister`, or a register that is never read).
 *
 * | name                           | arguments                                      | result     |
 * |--------------------------------|------------------------------------------------|------------|
 * | vm.builtin.alloc_storage       | vm, size: ShapeTuple (1-D, bytes),             | Storage    |
 * |                                | device_index: int, dtype_hint: str, scope: str |            |
 * | vm.builtin.alloc_tensor        | storage, offset: int (bytes),                  | NDArray    |
 * |                                | shape: ShapeTuple, dtype: str                  | (a view)   |
 * | vm.builtin.alloc_tensor_simple | vm, shape: ShapeTuple, dtype: str,             | NDArray    |
 * |                                | device_index: int                              | (fresh)    |
 * | vm.builtin.alloc_shape_heap    | vm, size: int                                  | NDArray    |
 * |                                |                                                | int64[size]|
 * | vm.builtin.match_shape         | value: NDArray or ShapeTuple, heap (NDArray or | null       |
 * |                                | null), ndim: int, ndim pairs (kind: int,       |            |
 * |                                | v: int), err_ctx: str                          |            |
 * | vm.builtin.make_shape          | heap: NDArray, ndim: int, ndim pairs (kind, v) | ShapeTuple |
 * | vm.builtin.heap_binop          | heap, opcode: int, dst: int, lhs_kind: int,    | null       |
 * |                                | lhs: int, rhs_kind: int, rhs: int              |            |
 * | vm.builtin.heap_load           | heap: NDArray, index: int                      | int        |
 * | vm.builtin.check_tensor_info   | value, ndim: int (-1 any), dtype: str ("" any),| null       |
 * |                                | err_ctx: str                                   |            |
 * | vm.builtin.check_shape_info    | value, ndim: int (-1 any), err_ctx: str        | null       |
 * | vm.builtin.check_tuple_info    | value, size: int, err_ctx: str                 | null       |
 * | vm.builtin.make_tuple          | fields... (any number, any values)             | Array<Any> |
 * | vm.builtin.tuple_getitem       | tuple: Array<Any>, index: int                  | the field  |
 * | vm.builtin.copy                | value                                          | the value  |
 * | vm.builtin.reshape             | tensor: NDArray, shape: ShapeTuple             | NDArray    |
 * |                                |                                                | (a view)   |
 * | vm.builtin.shape_of            | tensor: NDArray                                | ShapeTuple |
 * | vm.builtin.null_value          | (none)                                         | null       |
 * | vm.builtin.read_if_cond        | cond: NDArray (0-d, bool/int) or int / bool    | int (0, 1) |
 *
 * Details:
 *   - match_shape kinds: 0 = the dimension must equal `v`; 1 = store the dimension in
 *     heap[v] (first sight of a symbolic variable); 2 = no check; 3 = the dimension must equal
 *     heap[v]. A mismatch (rank or dimension) is a ValueError whose text starts with `err_ctx`
 *     ("main: argument x") and gives the dimension index, the expected and the actual value.
 *     For a ShapeTuple value the "dimensions" are its elements.
 *   - make_shape kinds: 0 = the immediate `v`; 1 = heap[v].
 *   - heap_binop: heap[dst] = lhs OP rhs, an operand of kind 0 being the immediate, of kind 1
 *     heap[value]. opcode: 0 add, 1 sub, 2 mul, 3 floordiv, 4 floormod, 5 min, 6 max
 *     (floordiv/floormod round toward −∞; a zero divisor is a ValueError).
 *   - check_*_info: TypeError when the kind is wrong, ValueError for rank/dtype/size; messages
 *     start with `err_ctx` and name both values ("main: argument x: expected a tensor of
 *     dtype float32, got float64").
 *   - Kernels (PrimFuncs) are called by their "global_symbol" with inputs then outputs
 *     (NDArrays) then the int64 values of `call_tir`'s tir_vars; ExternFuncs (call_dps_packed,
 *     call_pure_packed, R.call_packed) by their global symbol through the registry.
 *   - `memory.kill_tensor(t)` / `kill_storage(s)` are not builtins: code generation turns them
 *     into `reg(t) = vm.builtin.null_value()`, dropping the register's reference.
 *
 * Shape heap (VMShapeLower): every Relax function whose parameters or bindings carry symbolic
 * dimensions gets `heap = vm.builtin.alloc_shape_heap(vm, K)` first; each symbolic tir::Var has
 * one slot, defined by the first `match_shape` that sees it (a parameter's, or a match_cast's);
 * a compound expression (`n * 2`, `(n + 1) // 2`) is computed into temporary slots by a chain of
 * heap_binop calls right before the shape that needs it is made. Any symbolic `ShapeExpr`
 * becomes `make_shape(heap, ...)`; a symbolic `PrimValue` becomes `heap_load(heap, slot)`.
 */
#ifndef MINITVM_RELAX_VM_TRANSFORM_H_
#define MINITVM_RELAX_VM_TRANSFORM_H_

#include <cstdint>
#include <string>

#include "minitvm/ir/transform.h"
#include "minitvm/relax/expr.h"

namespace minitvm {
namespace relax_vm {

using minitvm::transform::Pass;

/*! \brief Module attribute / function attribute keys written by the lowering. */
constexpr const char* kMemoryPlanPeakBytes = "relax.memory_plan_peak_bytes";

/*! \brief Kinds of `vm.builtin.match_shape` (see the table above). */
enum class MatchShapeCode : int64_t {
  kAssertEqualToImm = 0,
  kStoreToHeap = 1,
  kNoOp = 2,
  kAssertEqualToLoad = 3
};
/*! \brief Kinds of `vm.builtin.make_shape` and of heap_binop operands. */
enum class MakeShapeCode : int64_t { kUseImm = 0, kLoadShape = 1 };
/*! \brief Opcodes of `vm.builtin.heap_binop`. */
enum class HeapBinOp : int64_t {
  kAdd = 0,
  kSub = 1,
  kMul = 2,
  kFloorDiv = 3,
  kFloorMod = 4,
  kMin = 5,
  kMax = 6
};

/*!
 * \brief RewriteDataflowReshape: inside dataflow blocks, a DataflowVar bound to a `call_tir` of
 * a kernel that only reshapes (one block `out[...] = in[...]`, both at the same row-major
 * offset) is bound to `R.reshape(in, shape)` instead, which the VM makes a view (no copy).
 */
Pass RewriteDataflowReshape();

/*!
 * \brief CallTIRRewrite: `y = R.call_tir(f, (x, w), out_sinfo)` becomes
 * `alloc = R.builtin.alloc_tensor(shape, dtype, 0)` per output, then the impure call
 * `f(x, w, alloc)` (of the PrimFunc's GlobalVar, or of the ExternFunc for call_dps_packed),
 * then `y = alloc` (a tuple of the allocations for several outputs). Dataflow blocks become
 * binding blocks and DataflowVars Vars (the rewritten calls are impure); functions get the
 * attribute "relax.force_pure" so the purity of the signature is kept.
 */
Pass CallTIRRewrite();

/*!
 * \brief StaticPlanBlockMemory: every `builtin.alloc_tensor` of a static shape that is not
 * (part of) the function's result becomes `memory.alloc_tensor` in a `memory.alloc_storage`,
 * storages being reused between tensors whose lifetimes do not overlap (greedy best fit by
 * size, same dtype). Each Relax function gets the int attribute
 * "relax.memory_plan_peak_bytes": the total bytes of its planned storages.
 */
Pass StaticPlanBlockMemory();

/*! \brief LowerAllocTensor: each remaining `builtin.alloc_tensor` → its own alloc_storage +
 * memory.alloc_tensor (offset 0). */
Pass LowerAllocTensor();

/*!
 * \brief KillAfterLastUse: after the last use of a tensor made by memory.alloc_tensor, emit
 * `memory.kill_tensor`; after the last use of a storage and of every tensor in it,
 * `memory.kill_storage`. Nothing is killed that the function returns.
 */
Pass KillAfterLastUse();

/*!
 * \brief LowerRuntimeBuiltin: the memory ops, tuples, tuple_getitem, reshape, shape_of and the
 * remaining builtin.alloc_tensor become calls of the "vm.builtin.*" ExternFuncs (table above);
 * kills stay (code generation handles them).
 */
Pass LowerRuntimeBuiltin();

/*!
 * \brief VMShapeLower: argument checks (check_tensor_info / check_shape_info /
 * check_tuple_info + match_shape) at the start of every Relax function, match_cast checks, and
 * every symbolic ShapeExpr / PrimValue computed from the shape heap (see above). Static
 * ShapeExprs stay (constants).
 */
Pass VMShapeLower();

/*! \brief The lowering passes in order (a Sequential named "relax.vm_lowering_pipeline"). */
Pass LoweringPipeline();

/*! \brief One Relax function's planned-memory figures (bytes). */
struct PlannedMemory {
  /*! \brief Total bytes of the storages the plan allocates (its peak). */
  int64_t planned_bytes = 0;
  /*! \brief Sum of the bytes of every planned intermediate (no reuse at all). */
  int64_t sum_of_intermediates = 0;
  /*! \brief The largest total of intermediates alive at one point (a lower bound). */
  int64_t largest_live_set = 0;
};

/*!
 * \brief Run the static planner on `func` (after CallTIRRewrite) without rewriting it and
 * return its figures. Only static-shaped allocations that are not returned count.
 */
PlannedMemory EstimatePlannedMemory(const relax::Function& func);

}  // namespace relax_vm
}  // namespace minitvm

#endif  // MINITVM_RELAX_VM_TRANSFORM_H_

/*!
 * \file minitvm/relax/op.h
 * \brief The Relax operator set (stage 4): C++ constructors with TVM's names
 * (`relax::op::add(x1, x2)`, `relax::op::nn::conv2d(data, weight, ...)`,
 * `relax::op::call_tir(gv, args, out_sinfo)`), each a thin wrapper over `MakeOpCall`. The ops
 * themselves (`relax.add`, ...) are registered in the files of `src/op/` with their documentation,
 * `TAttrDefaults`, `FInferStructInfo`, `TOpPattern` and `FPurity`; Python reaches every
 * constructor as the global function `"relax.op.<name>"` (`"relax.op.nn.conv2d"`).
 *
 * Representation decisions (the printer, parser, interpreter and legalizer rely on them):
 *
 * - Tensor arguments are `Call::args`; keyword attributes are `Call::attrs` in the order of the
 *   op's `TAttrDefaults` (TVM's Python parameter order). Values: ints as int64, bools as bool,
 *   floats as double, strings and dtypes as String ("float32"), None as a null Any, tuples and
 *   lists as `Array<Any>` of int64. `MakeOpCall` turns IntImm into int64 and DataType into
 *   String, and runs the op's normaliser (below), so a call built from the parser equals one
 *   built by the constructor.
 * - Normalised attributes (as TVM's constructors do): conv2d `strides`/`dilation` → 2 ints,
 *   `padding` → 4 ints (top, left, bottom, right), `out_layout` None → `data_layout`;
 *   pools: `pool_size`/`strides`/`dilation` → 2 ints, `padding` → 4 ints, `out_layout` None →
 *   `layout`; adaptive_avg_pool2d `output_size` int → 2 ints (None stays None);
 *   sum/mean/max/min/expand_dims/squeeze/layer_norm `axis`/`axes`: an int → a 1-list;
 *   split `indices_or_sections`: int (sections) or list (indices). `out_dtype`/`dtype` None
 *   stays None (null Any) and means "the input's dtype"; "void" and "" read as None too.
 * - Shape-valued operands are *arguments*, as in TVM: `reshape(x, shape)`, `broadcast_to(x,
 *   shape)`, `zeros(shape)`, `ones(shape)`, `full(shape, fill_value)` take a `ShapeExpr` (or a
 *   value of shape struct info). `reshape` resolves a `-1` when x's shape is known.
 * - `strided_slice(x, axes, begin, end, strides=None, assume_inbound=False)`: minitvm keeps
 *   axes/begin/end/strides as int *attributes* (TVM passes them as tuple arguments); numpy
 *   slicing semantics with clamping, negative strides allowed.
 *   An int given for any of them becomes a one-element list.
 * - FFI: every constructor is the global function `"relax.op.<name>"` taking all its
 *   parameters positionally (Python always passes every one); `"relax.MakeOpCall"(name, args,
 *   attrs, sinfo_args)` is the generic route (the parser's).
 * - The printer sees `out_dtype=None` where TVM prints `out_dtype="void"`; either text parses
 *   back to a call the inference reads the same way.
 * - `take(x, indices, axis=None, mode="fast")` (TVM 0.22's `mode`); axis None needs a 1-D x.
 * - `nn.batch_norm(..., axis=1, epsilon, center, scale, momentum, training=True)` returns
 *   `(out, moving_mean, moving_var)`; `nn.dropout` returns `(out, mask)`; `split` a tuple.
 * - `call_tir(gv, args, out_sinfo, tir_vars)`: `args = [gv, Tuple(args)]` (+ `ShapeExpr` of
 *   tir_vars), `sinfo_args = [out]` (a list of several outputs becomes one TupleStructInfo).
 *   `call_dps_packed(func, args, out_sinfo)`: `args = [ExternFunc, Tuple]`, same sinfo_args.
 *   `call_pure_packed(func, *args, sinfo_args)`: `args = [ExternFunc, args...]`, exactly one
 *   sinfo_arg. A string `func` becomes an `ExternFunc`.
 * - Memory ops take Relax values for everything, as TVM: `builtin.alloc_tensor(ShapeExpr,
 *   DataTypeImm, PrimValue device_index, StringImm scope)`, `memory.alloc_storage(ShapeExpr
 *   size, PrimValue virtual_device_index, StringImm scope, DataTypeImm)` → R.Object,
 *   `memory.alloc_tensor(storage, PrimValue offset, ShapeExpr, DataTypeImm)`,
 *   `memory.kill_storage(s)` / `memory.kill_tensor(t)` → `R.Tuple()`. As in TVM the
 *   allocations are pure and the two kills impure (so dead-code elimination keeps them).
 * - TOpPattern (Relax ops carry none in TVM; these are the kinds Relay/TOPI give the same
 *   computations): elementwise for unary, astype, relu/gelu/silu and zeros/ones/full;
 *   broadcast for binary/compare, where, broadcast_to, expand_dims; injective for reshape,
 *   flatten, permute_dims, concat, split, squeeze, strided_slice, take; comm-reduce for the
 *   reductions and argmax/argmin; out-ewise-fusable for matmul, conv2d and pools; opaque for
 *   softmax, log_softmax, batch_norm, layer_norm, dropout, the call_* ops and memory ops.
 */
#ifndef MINITVM_RELAX_OP_H_
#define MINITVM_RELAX_OP_H_

#include <string>

#include "minitvm/relax/expr.h"
#include "minitvm/relax/op_attr.h"

namespace minitvm {
namespace relax {
namespace op {

// ---- calls of functions --------------------------------------------------------------------
/*! \brief `R.call_tir(gvar, args, out_sinfo, tir_vars)`; `args` a Tuple or an Array of Exprs;
 * `out_sinfo` a StructInfo or an Array of them; `tir_vars` null, a ShapeExpr or Array<PrimExpr>. */
Call call_tir(Expr gvar, Any args, Any out_sinfo, Any tir_vars = nullptr);
/*! \brief `R.call_dps_packed(func, args, out_sinfo)`; func a string or ExternFunc. */
Call call_dps_packed(Any func, Any args, Any out_sinfo);
/*! \brief `R.call_pure_packed(func, *args, sinfo_args=...)`. */
Call call_pure_packed(Any func, Array<Expr> args, Any sinfo_args);

// ---- binary (broadcasting) -----------------------------------------------------------------
/*! \brief Elementwise with numpy broadcasting; dtypes must agree. */
Call add(Expr x1, Expr x2);
Call subtract(Expr x1, Expr x2);
Call multiply(Expr x1, Expr x2);
Call divide(Expr x1, Expr x2);
Call floor_divide(Expr x1, Expr x2);
Call power(Expr x1, Expr x2);
Call maximum(Expr x1, Expr x2);
Call minimum(Expr x1, Expr x2);
/*! \brief Comparisons: as the arithmetic ops, with a bool result. */
Call equal(Expr x1, Expr x2);
Call not_equal(Expr x1, Expr x2);
Call less(Expr x1, Expr x2);
Call less_equal(Expr x1, Expr x2);
Call greater(Expr x1, Expr x2);
Call greater_equal(Expr x1, Expr x2);
/*! \brief `where(condition, x1, x2)`: a bool condition; all three broadcast. */
Call where(Expr condition, Expr x1, Expr x2);

// ---- unary -----------------------------------------------------------------------------------
/*! \brief Elementwise unary functions (exp, log, sqrt, rsqrt, tanh, sigmoid, erf need floats). */
Call exp(Expr x);
Call log(Expr x);
Call sqrt(Expr x);
Call rsqrt(Expr x);
Call tanh(Expr x);
Call sigmoid(Expr x);
Call erf(Expr x);
Call negative(Expr x);
Call abs(Expr x);
/*! \brief `astype(x, dtype)`. */
Call astype(Expr x, Any dtype);

// ---- linear algebra --------------------------------------------------------------------------
/*! \brief numpy matmul (1-D operands, broadcast batch dimensions); out_dtype None: x1's. */
Call matmul(Expr x1, Expr x2, Any out_dtype = nullptr);

// ---- manipulation ----------------------------------------------------------------------------
Call permute_dims(Expr x, Any axes = nullptr);
/*! \brief `shape`: a ShapeExpr, a shape-valued Expr, or an Array of dims (-1 allowed once). */
Call reshape(Expr x, Any shape);
Call flatten(Expr x);
/*! \brief `tensors`: a Tuple (or an Array of Exprs, made a Tuple). axis None flattens. */
Call concat(Any tensors, Any axis = 0);
/*! \brief `indices_or_sections`: an int (equal sections) or a list of split indices. */
Call split(Expr x, Any indices_or_sections, int64_t axis = 0);
Call expand_dims(Expr x, Any axis);
Call squeeze(Expr x, Any axis = nullptr);
Call strided_slice(Expr x, Any axes, Any begin, Any end, Any strides = nullptr,
                   bool assume_inbound = false);
Call take(Expr x, Expr indices, Any axis = nullptr, std::string mode = "fast");
Call broadcast_to(Expr x, Any shape);

// ---- reductions ------------------------------------------------------------------------------
Call sum(Expr x, Any axis = nullptr, bool keepdims = false);
Call mean(Expr x, Any axis = nullptr, bool keepdims = false);
Call max(Expr x, Any axis = nullptr, bool keepdims = false);
Call min(Expr x, Any axis = nullptr, bool keepdims = false);
/*! \brief Index of the maximum (int64 result); axis None: over the flattened tensor. */
Call argmax(Expr x, Any axis = nullptr, bool keepdims = false);
Call argmin(Expr x, Any axis = nullptr, bool keepdims = false);

// ---- creation --------------------------------------------------------------------------------
/*! \brief `shape`: a ShapeExpr, a shape-valued Expr or an Array of dims. */
Call zeros(Any shape, Any dtype);
Call ones(Any shape, Any dtype);
/*! \brief `fill_value` a 0-d tensor; dtype None: fill_value's. */
Call full(Any shape, Expr fill_value, Any dtype = nullptr);

namespace nn {
Call relu(Expr data);
Call gelu(Expr data);
Call silu(Expr data);
Call softmax(Expr data, int64_t axis = -1);
Call log_softmax(Expr data, int64_t axis = -1);
/*! \brief 2-D convolution; only NCHW data and OIHW kernels. */
Call conv2d(Expr data, Expr weight, Any strides = Array<Any>{1, 1}, Any padding = Array<Any>{0, 0},
            Any dilation = Array<Any>{1, 1}, int64_t groups = 1, std::string data_layout = "NCHW",
            std::string kernel_layout = "OIHW", Any out_layout = nullptr, Any out_dtype = nullptr);
Call max_pool2d(Expr data, Any pool_size = Array<Any>{1, 1}, Any strides = Array<Any>{1, 1},
                Any padding = Array<Any>{0, 0}, Any dilation = Array<Any>{1, 1},
                bool ceil_mode = false, bool count_include_pad = false, std::string layout = "NCHW",
                Any out_layout = nullptr);
Call avg_pool2d(Expr data, Any pool_size = Array<Any>{1, 1}, Any strides = Array<Any>{1, 1},
                Any padding = Array<Any>{0, 0}, Any dilation = Array<Any>{1, 1},
                bool ceil_mode = false, bool count_include_pad = false, std::string layout = "NCHW",
                Any out_layout = nullptr);
Call adaptive_avg_pool2d(Expr data, Any output_size = nullptr, std::string layout = "NCHW",
                         Any out_layout = nullptr);
/*! \brief Returns `(out, moving_mean, moving_var)`. */
Call batch_norm(Expr data, Expr gamma, Expr beta, Expr moving_mean, Expr moving_var,
                int64_t axis = 1, double epsilon = 1e-5, bool center = true, bool scale = true,
                double momentum = 0.1, bool training = true);
Call layer_norm(Expr data, Expr gamma, Expr beta, Any axes, double epsilon = 1e-5,
                bool center = true, bool scale = true);
/*! \brief Returns `(out, mask)`. */
Call dropout(Expr data, double rate = 0.5);
}  // namespace nn

namespace builtin {
/*! \brief `alloc_tensor(shape, dtype, runtime_device_index, storage_scope="global")`; plain
 * values (Array, string, int) are wrapped as ShapeExpr / DataTypeImm / PrimValue / StringImm. */
Call alloc_tensor(Any shape, Any dtype, Any runtime_device_index, Any storage_scope = "global");
}  // namespace builtin

namespace memory {
Call alloc_storage(Any size, Any virtual_device_index, Any storage_scope, Any dtype);
Call alloc_tensor(Expr storage, Any offset, Any shape, Any dtype);
Call kill_storage(Expr storage);
Call kill_tensor(Expr tensor);
}  // namespace memory

}  // namespace op
}  // namespace relax
}  // namespace minitvm

#endif  // MINITVM_RELAX_OP_H_

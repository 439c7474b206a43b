/*!
 * \file minitvm/tir/interpreter.h
 * \brief The TIR interpreter (stage 2): the reference executor of TensorIR. It runs any
 * PrimFunc — blocks, every loop kind, vectors, local allocations — on NDArrays and checks
 * every buffer access, so it is what schedules (stage 3) and code generators (stage 5) are
 * compared against.
 *
 * Semantics, in short:
 *   - Parallel, vectorized, unrolled and thread-bound loops run sequentially, in order.
 *     `AttrStmt("thread_extent")` over a thread IterVar runs its body once per thread index.
 *   - A BlockRealize binds its iterators to its iter_values, skips the block when the
 *     predicate is false, checks each iterator against its domain, and runs `init` when every
 *     reduction iterator is at the minimum of its domain (TVM's rule), then the body.
 *     `alloc_buffers` are allocated (zero-filled) each time the block runs; `match_buffers`
 *     are views of their source regions.
 *   - Integer arithmetic wraps to the dtype's width; `/` and `%` on integers truncate, and
 *     division by zero raises RuntimeError. Floats are computed in double and rounded to the
 *     dtype after every operation (float16/bfloat16 through conversion). Casts follow C:
 *     float → int truncates toward zero (NaN gives 0, out-of-range saturates, then wraps).
 *   - `Select` and `if_then_else` evaluate only the chosen operand; `&&`/`||` short-circuit.
 *   - Every load and store is bounds-checked against the buffer's shape (and the memory
 *     behind it); a violation raises IndexError naming the buffer, the index values, the
 *     block and the current loop and block variables. With `check_uninitialized`, reading an
 *     element of a local buffer that was never written raises RuntimeError.
 *
 * Speed comes from compiling the PrimFunc once into a tree of small closure objects over
 * pre-resolved slots (each variable is an index into a value array, each buffer an index
 * into a table of pointers, shapes and strides) — no maps or IR walking per iteration.
 */
#ifndef MINITVM_TIR_INTERPRETER_H_
#define MINITVM_TIR_INTERPRETER_H_

#include <memory>
#include <string>
#include <vector>

#include "minitvm/ir/module.h"
#include "minitvm/runtime/module.h"
#include "minitvm/runtime/packed_func.h"
#include "minitvm/tir/function.h"

namespace minitvm {
namespace tir {

/*! \brief Options of the interpreter. */
struct InterpreterOptions {
  /*! \brief Report reads of never-written elements of local (allocated) buffers. */
  bool check_uninitialized = false;
};

/*!
 * \brief A PrimFunc compiled for interpretation. Compiling checks that every variable is
 * defined and every intrinsic known (ValueError otherwise); `Run` may be called many times
 * and from several threads.
 */
class Interpreter {
 public:
  /*! \brief Compile `func`; `name` is used in messages ("main: argument A: ..."). */
  explicit Interpreter(const PrimFunc& func, std::string name = "main",
                       InterpreterOptions options = {});
  ~Interpreter();
  Interpreter(Interpreter&&) noexcept;
  Interpreter& operator=(Interpreter&&) noexcept;

  /*!
   * \brief Run on `args`: an NDArray per buffer parameter, an int/float/bool per scalar
   * parameter. All arguments are checked before anything runs: wrong count → TypeError,
   * a non-array for a buffer → TypeError, a shape, dtype, layout or device mismatch →
   * ValueError, each naming the argument. Nothing is written when a check fails.
   */
  void Run(runtime::PackedArgs args) const;
  /*! \brief Run with C++ values: `interp(a, b)`. */
  template <typename... Args>
  void operator()(Args&&... args) const {
    Any packed[sizeof...(Args) + 1] = {Any(std::forward<Args>(args))...};
    Run(runtime::PackedArgs(packed, static_cast<int>(sizeof...(Args))));
  }
  /*! \brief The name used in messages. */
  const std::string& name() const;

  /*! \brief Internal: the compiled program. */
  struct Program;

 private:
  /*! \brief The compiled program shared by copies of the interpreter. */
  std::shared_ptr<const Program> program_;
};

/*!
 * \brief A runtime module (kind "ref") running the PrimFuncs of `mod` with the interpreter.
 * Each function is callable by its name in the module and by its "global_symbol" attribute;
 * the entry (`mod(...)`) is "main" when present, else the first function.
 */
runtime::Module InterpreterModuleCreate(const IRModule& mod, InterpreterOptions options = {});

}  // namespace tir
}  // namespace minitvm

#endif  // MINITVM_TIR_INTERPRETER_H_

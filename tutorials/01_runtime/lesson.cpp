/*!
 * \file lesson.cpp
 * \brief Lesson 1 (C++): the runtime seen from C++ — NDArray, DLPack, packed functions, the
 * global registry, and the C ABI that the Python extension crosses (stage 1).
 */
// Lesson 1 (C++): the runtime from the C++ side
// ==============================================
//
// lesson.py showed the runtime from Python. This program tells the same story in C++:
//
//   1. NDArray: allocate, fill, look at its layout, make a view;
//   2. DLPack: export an array and import it again without copying;
//   3. packed functions: register a typed C++ function, call it by name, pass a C++
//      lambda as a callback;
//   4. errors: every failure is a minitvm::Error with a kind;
//   5. the C ABI: exactly what the Python extension does for `f(40, 2)`;
//   6. the registry: the names this lesson added.
//
// Build and run it with `ctest -L tutorial` (or run build/bin/tutorial_01_runtime).
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "minitvm/runtime/c_api.h"
#include "minitvm/runtime/container.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/registry.h"

using minitvm::Error;
using namespace minitvm::runtime;  // NOLINT(build/namespaces)

// A typed function registered at load time. `set_body_typed` wraps the lambda in a packed
// function that unpacks its arguments and checks their count and types: callers (C++ or
// Python) see a TypeError naming the function and the argument when they get it wrong.
MINITVM_REGISTER_GLOBAL("tutorial.axpy").set_body_typed([](double alpha, NDArray x, NDArray y) {
  // y = alpha * x + y, in place, on float32 arrays of the same shape.
  if (x.Shape() != y.Shape()) {
    MINITVM_THROW(ValueError) << "tutorial.axpy: x has shape " << ShapeToString(x.Shape())
                              << " but y has shape " << ShapeToString(y.Shape());
  }
  const float* xs = x.data_as<float>();
  float* ys = y.data_as<float>();
  for (int64_t i = 0; i < x.NumElements(); ++i) ys[i] += static_cast<float>(alpha) * xs[i];
});

/*! \brief Print a float32 array, honouring its strides: [0. 1. 2.5] */
void PrintArray(const std::string& label, const NDArray& a) {
  std::cout << label << " [";
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    float v = a.data_as<float>()[a.ElementOffset(i)];
    std::cout << (i ? " " : "") << v << (v == std::floor(v) ? "." : "");
  }
  std::cout << "]\n";
}

int main() {
  bool ok = true;
  auto check = [&](bool cond, const char* what) {
    if (!cond) {
      std::cout << "FAILED: " << what << "\n";
      ok = false;
    }
  };

  // ---------------------------------------------------------------------------------------
  // 1. NDArray
  // ---------------------------------------------------------------------------------------
  // `NDArray::Empty` allocates compact, 64-byte aligned storage. Strides are in elements.
  NDArray x = NDArray::Empty({2, 3}, DataType("float32"));
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data_as<float>()[i] = static_cast<float>(i);
  std::cout << "x: shape " << ShapeToString(x.Shape()) << ", dtype " << x.dtype() << ", device "
            << x.device() << ", strides " << ShapeToString(x->strides) << "\n";
  PrintArray("x =", x);

  // A view shares storage: here row 1 of x, as a 1-d array of 3 elements.
  NDArray row1 = x.CreateView({3}, DataType("float32"), /*elem_offset=*/3);
  PrintArray("row 1 of x =", row1);
  check(row1.data() == x.data_as<float>() + 3, "a view aliases its base");

  // ---------------------------------------------------------------------------------------
  // 2. DLPack
  // ---------------------------------------------------------------------------------------
  // `ToDLPack` hands out a DLManagedTensor that keeps x alive; `FromDLPack` wraps one
  // without copying. This is the exchange NumPy and PyTorch do with us from Python.
  // (The view row1 holds a handle on x too: it keeps its base alive.)
  const int handles_before = x.use_count();
  std::cout << "handles on x: " << handles_before << "\n";
  DLManagedTensor* exported = x.ToDLPack();
  std::cout << "handles on x while exported: " << x.use_count() << "\n";
  NDArray y = NDArray::FromDLPack(exported);  // y now owns the tensor (and runs its deleter)
  y.data_as<float>()[0] = 100.0f;
  std::cout << "x[0] after writing y[0]: " << x.data_as<float>()[0] << "\n";
  check(x.data() == y.data(), "DLPack import shares memory");
  y = NDArray();  // the deleter runs and drops the export's handle
  std::cout << "handles on x after y is gone: " << x.use_count() << "\n";

  // ---------------------------------------------------------------------------------------
  // 3. Packed functions and the registry
  // ---------------------------------------------------------------------------------------
  // Any function is reachable by name. Calling a PackedFunc packs each C++ argument into an
  // `Any`; the result comes back as an `Any` that we convert with `cast<T>()`.
  PackedFunc axpy = Registry::GetOrThrow("tutorial.axpy");
  NDArray z = NDArray::Empty({2, 3}, DataType("float32"));
  for (int64_t i = 0; i < z.NumElements(); ++i) z.data_as<float>()[i] = 1.0f;
  axpy(0.5, x, z);
  PrintArray("z = 0.5 * x + 1 =", z);

  PackedFunc add = Registry::GetOrThrow("testing.ffi.AddInts");
  std::cout << "AddInts(40, 2) = " << add(40, 2).cast<int64_t>() << "\n";

  // A C++ lambda becomes a PackedFunc too, and can be passed to another function, which calls
  // it back: "testing.ffi.Apply"(f, args...) returns f(args...). From Python, a Python
  // callable takes the lambda's place.
  PackedFunc square = PackedFunc::FromTyped([](int64_t v) { return v * v; }, "square");
  PackedFunc apply = Registry::GetOrThrow("testing.ffi.Apply");
  std::cout << "Apply(square, 7) = " << apply(square, 7).cast<int64_t>() << "\n";

  // ---------------------------------------------------------------------------------------
  // 4. Errors
  // ---------------------------------------------------------------------------------------
  // Every reported failure is a minitvm::Error with a kind; Python turns the kind into the
  // exception class (TypeError -> minitvm.error.TypeError, a subclass of TypeError).
  try {
    axpy("two", x, z);
  } catch (const Error& e) {
    std::cout << e.kind() << ": " << e.what() << "\n";
  }
  try {
    axpy(1.0, x, NDArray::Empty({3}, DataType("float32")));
  } catch (const Error& e) {
    std::cout << e.kind() << ": " << e.what() << "\n";
  }

  // ---------------------------------------------------------------------------------------
  // 5. The C ABI: what Python's `add(40, 2)` becomes
  // ---------------------------------------------------------------------------------------
  // The extension module never sees C++ types. It looks the function up by name, fills an
  // array of MTVMValue with a type code per argument, calls, and reads the typed result.
  // Objects come back as handles that carry one reference, released with MTVMObjectFree.
  MTVMFunctionHandle f = nullptr;
  MTVMFuncGetGlobal("testing.ffi.AddInts", &f);
  MTVMValue args[2];
  int codes[2] = {kMTVMInt, kMTVMInt};
  args[0].v_int64 = 40;
  args[1].v_int64 = 2;
  MTVMValue ret;
  int ret_code = kMTVMNull;
  int rc = MTVMFuncCall(f, args, codes, 2, &ret, &ret_code);
  std::cout << "MTVMFuncCall: rc " << rc << ", type code " << ret_code << ", value " << ret.v_int64
            << "\n";
  // A failing call returns -1 and leaves the error's kind and message on this thread.
  rc = MTVMFuncCall(f, args, codes, 1, &ret, &ret_code);
  std::cout << "MTVMFuncCall with 1 argument: rc " << rc << ", " << MTVMGetLastErrorKind() << ": "
            << MTVMGetLastError() << "\n";
  MTVMObjectFree(f);

  // ---------------------------------------------------------------------------------------
  // 6. The registry
  // ---------------------------------------------------------------------------------------
  std::cout << "registered by this lesson:";
  for (const std::string& name : Registry::ListNames()) {
    if (name.rfind("tutorial.", 0) == 0) std::cout << " " << name;
  }
  std::cout << "\n";

  // ---------------------------------------------------------------------------------------
  // Checks
  // ---------------------------------------------------------------------------------------
  check(z.data_as<float>()[1] == 1.5f && z.data_as<float>()[0] == 51.0f, "axpy values");
  check(add(40, 2).cast<int64_t>() == 42, "AddInts");
  check(apply(square, 7).cast<int64_t>() == 49, "callback");
  check(x.use_count() == handles_before, "DLPack export released");
  if (!ok) return 1;
  std::cout << "OK: NDArray layout and views, DLPack round trip, typed registration, "
               "callbacks, errors, the C ABI\n";
  return 0;
}

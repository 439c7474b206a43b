// Smoke test of the runtime core: registry, typed packed functions, Any conversions.
#include <gtest/gtest.h>

#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/registry.h"

using namespace minitvm::runtime;  // NOLINT

MINITVM_REGISTER_GLOBAL("testing.add_ints").set_body_typed([](int a, int b) { return a + b; });

TEST(RuntimeSmoke, TypedCallAndErrors) {
  PackedFunc f = Registry::GetOrThrow("testing.add_ints");
  EXPECT_EQ(f(2, 3).cast<int>(), 5);
  try {
    f(1);
    FAIL();
  } catch (const minitvm::Error& e) {
    EXPECT_EQ(e.kind(), "TypeError");
    EXPECT_NE(std::string(e.what()).find("expects 2 arguments but 1 was given"), std::string::npos);
  }
  try {
    f(1, "x");
    FAIL();
  } catch (const minitvm::Error& e) {
    EXPECT_EQ(std::string(e.what()), "testing.add_ints: argument 1: expected int but got str");
  }
}

TEST(RuntimeSmoke, NDArrayBasics) {
  NDArray a = NDArray::Empty({2, 3}, DataType("float32"));
  EXPECT_EQ(a.NumElements(), 6);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % 64, 0u);
  EXPECT_TRUE(a.IsContiguous());
}

/*!
 * \file runtime_registry_test.cc
 * \brief Tests of PackedFunc and the global registry (stage 1): typed functions unpack and
 * check their arguments, the registry registers, finds, lists, overrides and removes names,
 * and it stays consistent when several threads register and call at once.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/registry.h"
#include "minitvm_test_util.h"

using namespace minitvm::runtime;  // NOLINT

MINITVM_REGISTER_GLOBAL("testing.registry.scale").set_body_typed([](double x, int64_t factor) {
  return x * factor;
});
MINITVM_REGISTER_GLOBAL("testing.registry.concat").set_body_typed([](std::string a, String b) {
  return a + b.str();
});
MINITVM_REGISTER_GLOBAL("testing.registry.nothing").set_body_typed([]() {});
MINITVM_REGISTER_GLOBAL("testing.registry.count_args").set_body([](PackedArgs args, Any* rv) {
  *rv = args.size();
});

TEST(PackedFunc, TypedCallsConvertArguments) {
  PackedFunc scale = Registry::GetOrThrow("testing.registry.scale");
  EXPECT_EQ(scale(1.5, 2).cast<double>(), 3.0);
  EXPECT_EQ(scale(2, 3).cast<double>(), 6.0);  // int → double
  EXPECT_EQ(scale.name(), "testing.registry.scale");
  EXPECT_EQ(Registry::GetOrThrow("testing.registry.concat")("ab", "cd").cast<std::string>(),
            "abcd");
  EXPECT_TRUE(Registry::GetOrThrow("testing.registry.nothing")().is_null());
  EXPECT_EQ(Registry::GetOrThrow("testing.registry.count_args")(1, "x", 2.0, nullptr).cast<int>(),
            4);
}

TEST(PackedFunc, ArgumentCountAndTypeErrors) {
  PackedFunc scale = Registry::GetOrThrow("testing.registry.scale");
  EXPECT_MINITVM_ERROR(scale(1.0), "TypeError",
                       "testing.registry.scale: expects 2 arguments but 1 was given");
  EXPECT_MINITVM_ERROR(scale(1.0, 2, 3), "TypeError", "expects 2 arguments but 3 were given");
  EXPECT_MINITVM_ERROR(scale("x", 2), "TypeError",
                       "testing.registry.scale: argument 0: expected float but got str");
  EXPECT_MINITVM_ERROR(scale(1.0, 2.5), "TypeError", "argument 1: expected int but got float");
  PackedFunc nothing = Registry::GetOrThrow("testing.registry.nothing");
  EXPECT_MINITVM_ERROR(nothing(1), "TypeError", "expects 0 arguments but 1 was given");
  // An anonymous typed function names itself <anonymous>.
  PackedFunc anon = PackedFunc::FromTyped([](int a) { return a; });
  EXPECT_MINITVM_ERROR(anon(), "TypeError", "<anonymous>: expects 1 argument but 0 were given");
  EXPECT_MINITVM_ERROR(PackedFunc()(1), "ValueError", "undefined PackedFunc");
}

TEST(PackedFunc, ErrorsRaisedInsideKeepTheirKind) {
  PackedFunc f = PackedFunc::FromTyped(
      [](int64_t n) -> int64_t {
        if (n < 0) MINITVM_THROW(ValueError) << "n must be >= 0 but is " << n;
        return n;
      },
      "testing.nonneg");
  EXPECT_MINITVM_ERROR(f(-3), "ValueError", "n must be >= 0 but is -3");
  PackedArgs none(nullptr, 0);
  EXPECT_MINITVM_ERROR(none[0], "IndexError", "argument index 0 out of range: 0 arguments given");
}

TEST(PackedFunc, ObjectArgumentsAlias) {
  NDArray a = NDArray::Empty({3}, DataType::Float(32));
  PackedFunc fill = PackedFunc::FromTyped([](NDArray x, double v) {
    for (int64_t i = 0; i < x.NumElements(); ++i) x.data_as<float>()[i] = static_cast<float>(v);
  });
  fill(a, 2.5);
  EXPECT_EQ(minitvm::testing::ToVector<float>(a), (std::vector<float>{2.5f, 2.5f, 2.5f}));
  EXPECT_EQ(a.use_count(), 1);  // the call released its references
}

TEST(Registry, RegisterGetListOverrideRemove) {
  const std::string name = "testing.registry.temp";
  EXPECT_FALSE(Registry::Get(name).has_value());
  Registry::Register(name).set_body_typed([]() { return 1; });
  EXPECT_EQ(Registry::GetOrThrow(name)().cast<int>(), 1);
  std::vector<std::string> names = Registry::ListNames();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_NE(std::find(names.begin(), names.end(), name), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "runtime.NDArrayEmpty"), names.end());

  EXPECT_MINITVM_ERROR(Registry::Register(name), "RuntimeError",
                       "global function \"testing.registry.temp\" is already registered");
  Registry::Register(name, /*can_override=*/true).set_body_typed([]() { return 2; });
  EXPECT_EQ(Registry::GetOrThrow(name)().cast<int>(), 2);

  EXPECT_TRUE(Registry::Remove(name));
  EXPECT_FALSE(Registry::Remove(name));
  EXPECT_FALSE(Registry::Get(name).has_value());
  EXPECT_MINITVM_ERROR(Registry::GetOrThrow(name), "ValueError",
                       "no global function named \"testing.registry.temp\"");
  // After removal the name can be registered again without override.
  Registry::Register(name).set_body_typed([]() { return 3; });
  EXPECT_EQ(Registry::GetOrThrow(name)().cast<int>(), 3);
  Registry::Remove(name);
}

TEST(Registry, AFunctionHeldSurvivesOverride) {
  const std::string name = "testing.registry.held";
  Registry::Register(name).set_body_typed([]() { return 1; });
  PackedFunc old = Registry::GetOrThrow(name);
  Registry::Register(name, true).set_body_typed([]() { return 2; });
  EXPECT_EQ(old().cast<int>(), 1);  // handles are values: the old body is still alive
  EXPECT_EQ(Registry::GetOrThrow(name)().cast<int>(), 2);
  Registry::Remove(name);
}

TEST(Registry, ThreadSafety) {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 50;
  std::atomic<int64_t> total{0};
  std::atomic<int> failures{0};
  Registry::Register("testing.registry.shared", true).set_body_typed([](int64_t x) {
    return x + 1;
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &total, &failures]() {
      for (int i = 0; i < kPerThread; ++i) {
        std::string name = "testing.registry.thread" + std::to_string(t) + "_" + std::to_string(i);
        Registry::Register(name).set_body_typed([t, i]() { return int64_t{t} * 1000 + i; });
        auto f = Registry::Get(name);
        if (!f || (*f)().cast<int64_t>() != int64_t{t} * 1000 + i) ++failures;
        total += Registry::GetOrThrow("testing.registry.shared")(i).cast<int64_t>();
        // Everyone also overrides one common name and lists the registry.
        Registry::Register("testing.registry.contended", true).set_body_typed([t]() { return t; });
        if (Registry::ListNames().empty()) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(total.load(), kThreads * (kPerThread * (kPerThread - 1) / 2 + kPerThread));
  int contended = Registry::GetOrThrow("testing.registry.contended")().cast<int>();
  EXPECT_GE(contended, 0);
  EXPECT_LT(contended, kThreads);
  std::vector<std::string> names = Registry::ListNames();
  int found = 0;
  for (const auto& n : names) found += n.rfind("testing.registry.thread", 0) == 0;
  EXPECT_EQ(found, kThreads * kPerThread);
  for (const auto& n : names) {
    if (n.rfind("testing.registry.thread", 0) == 0) Registry::Remove(n);
  }
}

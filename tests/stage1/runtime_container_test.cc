/*!
 * \file runtime_container_test.cc
 * \brief Tests of Array and Map (stage 1): copy-on-write (a shared node is copied before it
 * changes, an unshared one changes in place), checked element types, IndexError for bad
 * indices and keys, and the insertion order of Map.
 */
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "minitvm/runtime/container.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm_test_util.h"

using namespace minitvm::runtime;  // NOLINT

TEST(Array, BasicsAndIteration) {
  Array<int64_t> a{1, 2, 3};
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0], 1);
  EXPECT_EQ(a.back(), 3);
  std::vector<int64_t> seen;
  for (int64_t v : a) seen.push_back(v);
  EXPECT_EQ(seen, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(a.to_vector(), seen);
  Array<String> s(std::vector<std::string>{"x", "y"});
  EXPECT_EQ(s[1], "y");
  EXPECT_TRUE(Array<int>().empty());
}

TEST(Array, CopyOnWrite) {
  Array<int64_t> a{1, 2, 3};
  const ArrayNode* node = a.get();
  a.push_back(4);  // unique: changes in place
  EXPECT_EQ(a.get(), node);

  Array<int64_t> b = a;  // shared
  EXPECT_TRUE(b.same_as(a));
  EXPECT_EQ(a.use_count(), 2);
  b.Set(0, 100);  // copies first
  EXPECT_FALSE(b.same_as(a));
  EXPECT_EQ(a[0], 1);
  EXPECT_EQ(b[0], 100);
  EXPECT_EQ(a.get(), node);  // the original holder keeps the original node
  EXPECT_EQ(a.use_count(), 1);

  Array<int64_t> c = a;
  c.erase_at(0);
  c.insert_at(0, 7);
  EXPECT_EQ(a.to_vector(), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(c.to_vector(), (std::vector<int64_t>{7, 2, 3, 4}));
  Array<int64_t> d = a;
  d.clear();
  EXPECT_EQ(a.size(), 4u);
  EXPECT_TRUE(d.empty());
}

TEST(Array, ElementsHoldReferences) {
  NDArray x = NDArray::Empty({1}, DataType::Float(32));
  {
    Array<NDArray> arr{x, x};
    EXPECT_EQ(x.use_count(), 3);
    Array<NDArray> copy = arr;  // sharing the node adds no element references
    EXPECT_EQ(x.use_count(), 3);
    copy.push_back(x);  // the copied node holds its own references
    EXPECT_EQ(x.use_count(), 6);
  }
  EXPECT_EQ(x.use_count(), 1);
}

TEST(Array, ErrorsNameTheProblem) {
  Array<int64_t> a{1, 2};
  EXPECT_MINITVM_ERROR(a[2], "IndexError", "array index 2 out of range for size 2");
  EXPECT_MINITVM_ERROR(a[-1], "IndexError", "array index -1 out of range");
  EXPECT_MINITVM_ERROR(a.Set(5, 0), "IndexError", "array index 5");
  // Elements are stored as Any and checked when read.
  Array<Any> mixed{Any(1), Any("two")};
  Array<int64_t> as_ints = Any(mixed).cast<Array<int64_t>>();  // checks the node type only
  EXPECT_EQ(as_ints[0], 1);
  EXPECT_MINITVM_ERROR(as_ints[1], "TypeError", "expected int but got str");
}

TEST(Map, InsertionOrderAndLookup) {
  Map<String, int64_t> m;
  m.Set("zeta", 1);
  m.Set("alpha", 2);
  m.Set("mid", 3);
  m.Set("zeta", 10);  // updating keeps the position
  std::vector<std::string> keys;
  for (const auto& [k, v] : m.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"zeta", "alpha", "mid"}));
  EXPECT_EQ(m.at("zeta"), 10);
  EXPECT_EQ(m["alpha"], 2);
  EXPECT_EQ(m.count("mid"), 1u);
  EXPECT_EQ(m.count("nope"), 0u);
  EXPECT_FALSE(m.Get("nope").has_value());
  EXPECT_EQ(m.Get("mid"), std::optional<int64_t>(3));
  EXPECT_MINITVM_ERROR(m.at("nope"), "IndexError", "key \"nope\" is not in the map");
  m.erase("alpha");
  EXPECT_EQ(m.size(), 2u);
}

TEST(Map, CopyOnWrite) {
  Map<String, int64_t> a{{"x", 1}};
  const MapNode* node = a.get();
  a.Set("y", 2);
  EXPECT_EQ(a.get(), node);  // unique: in place
  Map<String, int64_t> b = a;
  b.Set("x", 100);
  EXPECT_FALSE(b.same_as(a));
  EXPECT_EQ(a.at("x"), 1);
  EXPECT_EQ(b.at("x"), 100);
  Map<String, int64_t> c = a;
  c.erase("x");
  EXPECT_EQ(a.size(), 2u);
  EXPECT_EQ(c.size(), 1u);
}

TEST(Map, KeysByValueOrIdentity) {
  // Strings and ints compare by value; other objects by identity.
  Map<Any, Any> m;
  m.Set(Any(1), Any("one"));
  m.Set(Any(String("k")), Any(2));
  EXPECT_EQ(m.at(Any(1)).cast<std::string>(), "one");
  EXPECT_EQ(m.at(Any("k")).cast<int>(), 2);
  NDArray a = NDArray::Empty({1}, DataType::Int(8));
  NDArray b = NDArray::Empty({1}, DataType::Int(8));
  m.Set(Any(a), Any(3));
  EXPECT_EQ(m.count(Any(a)), 1u);
  EXPECT_EQ(m.count(Any(b)), 0u);
}

/*!
 * \file runtime_object_test.cc
 * \brief Tests of the object system (stage 1): intrusive reference counting through ObjectRef
 * copies and moves, type keys and indices, `as<T>()`, checked Downcast, copy-on-write of a
 * node, and reflection through the single field list (field names, GetField, Repr).
 */
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "minitvm/runtime/container.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/reflection.h"
#include "minitvm_test_util.h"

using namespace minitvm::runtime;  // NOLINT

namespace {

int g_points_alive = 0;

/*! \brief A small node with fields of several kinds, for the tests. */
class PointNode : public Object {
 public:
  PointNode() { ++g_points_alive; }
  PointNode(const PointNode& other)
      : Object(other), x(other.x), y(other.y), label(other.label), tags(other.tags) {
    ++g_points_alive;
  }
  ~PointNode() override { --g_points_alive; }
  int64_t x = 0;
  double y = 0;
  std::string label;
  Array<String> tags;
  void VisitAttrs(AttrVisitor* v) override {
    v->Visit("x", &x);
    v->Visit("y", &y);
    v->Visit("label", &label);
    v->Visit("tags", &tags);
  }
  MINITVM_DECLARE_OBJECT_INFO(PointNode, Object, "testing.Point");
};

class Point : public ObjectRef {
 public:
  Point(int64_t x, double y, std::string label) {
    auto n = make_object<PointNode>();
    n->x = x;
    n->y = y;
    n->label = std::move(label);
    data_ = std::move(n);
  }
  MINITVM_DEFINE_OBJECT_REF_METHODS(Point, ObjectRef, PointNode);
  MINITVM_DEFINE_OBJECT_REF_COW_METHOD(PointNode);
};

/*! \brief A subclass, to check derived type checks. */
class Point3Node : public PointNode {
 public:
  int64_t z = 0;
  MINITVM_DECLARE_OBJECT_INFO(Point3Node, PointNode, "testing.Point3");
};

}  // namespace

TEST(Object, ReferenceCounting) {
  ASSERT_EQ(g_points_alive, 0);
  {
    Point p(1, 2.0, "p");
    EXPECT_EQ(p.use_count(), 1);
    EXPECT_TRUE(p.unique());
    Point q = p;
    EXPECT_EQ(p.use_count(), 2);
    EXPECT_TRUE(q.same_as(p));
    Point r = std::move(q);
    EXPECT_EQ(p.use_count(), 2);
    EXPECT_FALSE(q.defined());  // NOLINT(bugprone-use-after-move): moved-from handles are null
    {
      ObjectRef base = p;
      EXPECT_EQ(p.use_count(), 3);
    }
    EXPECT_EQ(p.use_count(), 2);
    EXPECT_EQ(g_points_alive, 1);
  }
  EXPECT_EQ(g_points_alive, 0);  // the last handle deleted the node
}

TEST(Object, TypeKeysAndChecks) {
  Point p(1, 2.0, "p");
  EXPECT_EQ(p->GetTypeKey(), "testing.Point");
  EXPECT_EQ(p->type_index(), PointNode::RuntimeTypeIndex());
  EXPECT_EQ(TypeRegistry::TypeKey2Index("testing.Point"), PointNode::RuntimeTypeIndex());
  EXPECT_EQ(TypeRegistry::TypeIndex2Key(PointNode::RuntimeTypeIndex()), "testing.Point");
  EXPECT_TRUE(
      TypeRegistry::IsDerivedFrom(Point3Node::RuntimeTypeIndex(), PointNode::RuntimeTypeIndex()));
  EXPECT_FALSE(
      TypeRegistry::IsDerivedFrom(PointNode::RuntimeTypeIndex(), Point3Node::RuntimeTypeIndex()));
  EXPECT_MINITVM_ERROR(TypeRegistry::TypeKey2Index("testing.NoSuchType"), "ValueError",
                       "unknown type key testing.NoSuchType");

  ObjectRef as_base = p;
  EXPECT_NE(as_base.as<PointNode>(), nullptr);
  EXPECT_EQ(as_base.as<NDArrayNode>(), nullptr);
  EXPECT_EQ(ObjectRef().as<PointNode>(), nullptr);
  EXPECT_TRUE(p->IsInstance<PointNode>());
  EXPECT_FALSE(p->IsInstance<Point3Node>());

  Point3Node* raw = nullptr;
  ObjectRef p3(ObjectPtr<Object>([&] {
    auto n = make_object<Point3Node>();
    raw = n.get();
    return n;
  }()));
  EXPECT_EQ(p3->GetTypeKey(), "testing.Point3");
  EXPECT_EQ(p3.as<PointNode>(), raw);  // a Point3 is a Point
}

TEST(Object, DowncastIsChecked) {
  Point p(1, 2.0, "p");
  ObjectRef base = p;
  Point back = Downcast<Point>(base);
  EXPECT_TRUE(back.same_as(p));
  EXPECT_MINITVM_ERROR(Downcast<NDArray>(base), "TypeError",
                       "expected runtime.NDArray but got testing.Point");
  EXPECT_FALSE(Downcast<Point>(ObjectRef()).defined());  // nullable handle
  EXPECT_MINITVM_ERROR(Downcast<String>(ObjectRef()), "TypeError",
                       "expected runtime.String but got None");
}

TEST(Object, CopyOnWrite) {
  Point p(1, 2.0, "p");
  const PointNode* original = p.get();
  p.CopyOnWrite()->x = 5;  // unique: in place
  EXPECT_EQ(p.get(), original);
  Point q = p;
  q.CopyOnWrite()->x = 9;  // shared: copied first
  EXPECT_NE(q.get(), original);
  EXPECT_EQ(p->x, 5);
  EXPECT_EQ(q->x, 9);
  EXPECT_EQ(q->label, "p");
  EXPECT_EQ(q->GetTypeKey(), "testing.Point");  // the copy keeps its type
  EXPECT_EQ(q.use_count(), 1);
}

TEST(Reflection, FieldListDrivesNamesFieldsAndRepr) {
  Point p(3, 0.5, "origin");
  p.CopyOnWrite()->tags = Array<String>{"a", "b"};
  EXPECT_EQ(ListFieldNames(p.get()), (std::vector<std::string>{"x", "y", "label", "tags"}));
  EXPECT_EQ(GetField(p.get(), "x").cast<int>(), 3);
  EXPECT_EQ(GetField(p.get(), "label").cast<std::string>(), "origin");
  EXPECT_EQ(GetField(p.get(), "tags").cast<Array<String>>()[1], "b");
  EXPECT_MINITVM_ERROR(GetField(p.get(), "w"), "AttributeError",
                       "testing.Point has no field \"w\"");
  EXPECT_EQ(Repr(p), "testing.Point(x=3, y=0.5, label=\"origin\", tags=[\"a\", \"b\"])");
  EXPECT_EQ(Repr(ObjectRef()), "None");
}

/*!
 * \file viz_test.cc
 * \brief Stage 4: the Relax graph visualizer (minitvm/relax/viz.h). Small TVMScript modules are
 * drawn and the DOT text is checked by counting its node and edge statements and reading their
 * labels; the terminal view's truncation, the before/after diff of FuseOps (clusters per fused
 * kernel), the plain-value round trip, and the errors for bad input (a missing function, an
 * unknown output format, an unwritable path, malformed values).
 */
#include "minitvm/relax/viz.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <string>

#include "minitvm/relax/transform.h"
#include "minitvm/script/tir_parser.h"
#include "minitvm_test_util.h"

namespace minitvm {
namespace relax {
namespace {

using namespace viz;  // NOLINT(build/namespaces)

IRModule Parse(const std::string& text) {
  return Downcast<IRModule>(script::FromSource(text, "viz_test.py"));
}

/*! \brief x + y, then relu, then a tuple and an item of it: one op of each common kind. */
const char* kSmall = R"(from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), w: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            a = R.add(x, w)
            b = R.nn.relu(a)
            t = (a, b)
            c = t[1]
            R.output(c)
        return c
)";

/*! \brief A chain of `n` elementwise ops (for truncation). */
std::string Chain(int n) {
  std::string text = R"(from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            v0 = R.nn.relu(x)
)";
  for (int i = 1; i < n; ++i) {
    text += "            v" + std::to_string(i) + " = R.nn.relu(v" + std::to_string(i - 1) + ")\n";
  }
  text += "            R.output(v" + std::to_string(n - 1) + ")\n        return v" +
          std::to_string(n - 1) + "\n";
  return text;
}

size_t Count(const std::string& text, const std::regex& re) {
  return std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator());
}
const std::regex kNodeStmt(R"(\n\s*"[^"]+" \[)");
const std::regex kEdgeStmt(R"(\n\s*"[^"]+" -> "[^"]+")");

const VizNode* FindNode(const VizGraph& g, const std::string& label) {
  for (const VizNode& n : g.nodes) {
    if (n.label == label) return &n;
  }
  return nullptr;
}

TEST(RelaxViz, SmallModuleNodesEdgesAndLabels) {
  VizModel model = BuildModel(Parse(kSmall));
  ASSERT_EQ(model.graphs.size(), 1u);
  const VizGraph& g = model.graphs[0];
  // x, w, add, relu, Tuple, [1], Function
  EXPECT_EQ(g.nodes.size(), 7u);
  // x->add, w->add, add->relu, add->tuple, relu->tuple, tuple->[1], [1]->main
  EXPECT_EQ(g.edges.size(), 7u);
  const VizNode* x = FindNode(g, "x");
  const VizNode* w = FindNode(g, "w");
  ASSERT_TRUE(x && w);
  EXPECT_EQ(x->kind, NodeKind::kInput);
  EXPECT_EQ(w->kind, NodeKind::kWeight);  // past num_input
  EXPECT_EQ(x->detail, "(2, 3) float32");
  ASSERT_TRUE(FindNode(g, "add"));
  EXPECT_EQ(FindNode(g, "add")->kind, NodeKind::kCallOp);
  EXPECT_EQ(FindNode(g, "nn.relu")->kind, NodeKind::kCallOp);
  EXPECT_EQ(FindNode(g, "Tuple")->kind, NodeKind::kTuple);
  EXPECT_EQ(FindNode(g, "[1]")->kind, NodeKind::kTupleGetItem);
  EXPECT_EQ(FindNode(g, "main")->kind, NodeKind::kFunction);

  std::string dot = ToDot(model);
  EXPECT_EQ(Count(dot, kNodeStmt), 7u) << dot;
  EXPECT_EQ(Count(dot, kEdgeStmt), 7u) << dot;
  EXPECT_NE(dot.find("label=\"(2, 3) float32\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("label=\"nn.relu\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("subgraph \"cluster_graph_0\""), std::string::npos);
  EXPECT_NE(dot.find("fillcolor=\"#fff0c2\""), std::string::npos);  // the weight's colour
}

TEST(RelaxViz, WeightsFromOptionsAndBoundConstants) {
  VizOptions options;
  options.weights = {"x"};
  VizModel model = BuildModel(Parse(kSmall), options);
  EXPECT_EQ(FindNode(model.graphs[0], "x")->kind, NodeKind::kWeight);
  EXPECT_EQ(FindNode(model.graphs[0], "w")->kind, NodeKind::kInput);

  IRModule mod = Parse(R"(from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        y = R.add(x, R.const(1.5, "float32"))
        return y
)");
  VizModel m2 = BuildModel(mod);
  const VizNode* c = FindNode(m2.graphs[0], "const");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, NodeKind::kConstant);
  EXPECT_NE(c->detail.find("1.5"), std::string::npos) << c->detail;
  EXPECT_NE(c->detail.find("float32"), std::string::npos) << c->detail;
}

TEST(RelaxViz, CallTirShowsThePrimFuncAndFunctionCallsGlobalVars) {
  IRModule mod = Parse(R"(from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @T.prim_func
    def my_relu(X: T.Buffer((4,), "float32"), Y: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("relu"):
                vi = T.axis.spatial(4, i)
                Y[vi] = T.max(X[vi], T.float32(0))

    @R.function
    def helper(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.call_tir(cls.my_relu, (a,), out_sinfo=R.Tensor((4,), "float32"))
        return y

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = cls.helper(x)
        z = R.call_dps_packed("env.my_op", (y,), out_sinfo=R.Tensor((4,), "float32"))
        return z
)");
  VizModel model = BuildModel(mod);
  ASSERT_EQ(model.graphs.size(), 2u);
  EXPECT_EQ(model.graphs[0].name, "main");  // main first
  EXPECT_EQ(model.graphs[1].name, "helper");
  const VizNode* call = FindNode(model.graphs[0], "helper");
  ASSERT_TRUE(call);
  EXPECT_EQ(call->kind, NodeKind::kCallFunction);
  const VizNode* gv = FindNode(model.graphs[0], "@helper");
  ASSERT_TRUE(gv);
  EXPECT_EQ(gv->kind, NodeKind::kGlobalVar);
  const VizNode* dps = FindNode(model.graphs[0], "env.my_op");
  ASSERT_TRUE(dps);
  EXPECT_EQ(dps->kind, NodeKind::kCallDPSPacked);
  const VizNode* tir = FindNode(model.graphs[1], "my_relu");
  ASSERT_TRUE(tir);
  EXPECT_EQ(tir->kind, NodeKind::kCallTIR);
  EXPECT_EQ(model.prim_funcs.count("my_relu"), 1u);
  EXPECT_NE(model.prim_funcs["my_relu"].find("T.max"), std::string::npos);
  // main: x, @helper, helper call, call_dps_packed, main; helper: a, call_tir, helper.
  auto [nodes, edges] = CountNodesEdges(model);
  EXPECT_EQ(nodes, 8u);
  EXPECT_EQ(edges, 6u);
  std::string dot = ToDot(model);
  EXPECT_EQ(Count(dot, kNodeStmt), nodes);
  EXPECT_EQ(Count(dot, kEdgeStmt), edges);
}

TEST(RelaxViz, TermViewDrawsATreeAndTruncates) {
  VizModel small = BuildModel(Parse(kSmall));
  std::string text = ToTerm(small);
  EXPECT_EQ(text.rfind("@main(x, w) -> (2, 3) float32  [7 nodes, 7 edges]\n", 0), 0u) << text;
  EXPECT_NE(text.find("`-- #1 [1] : (2, 3) float32"), std::string::npos) << text;
  EXPECT_NE(text.find("(see above)"), std::string::npos) << text;  // `a` is used twice
  EXPECT_EQ(text.find("not shown"), std::string::npos) << text;

  VizModel big = BuildModel(Parse(Chain(40)));
  ASSERT_EQ(big.graphs[0].nodes.size(), 42u);  // x, 40 relus, main
  std::string cut = ToTerm(big, 10);
  EXPECT_NE(cut.find("... 32 more nodes not shown (42 in all"), std::string::npos) << cut;
  EXPECT_EQ(Count(cut, std::regex(R"(#\d+ nn\.relu)")), 9u) << cut;
  std::string all = ToTerm(big, 1000);
  EXPECT_EQ(all.find("not shown"), std::string::npos);
  EXPECT_MINITVM_ERROR(ToTerm(big, 0), "ValueError", "max_nodes must be at least 1, got 0");
}

TEST(RelaxViz, FuseOpsDiffDrawsClustersPerFusedKernel) {
  IRModule mod = Parse(R"(from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), w: R.Tensor((8, 8), "float32"), b: R.Tensor((8,), "float32")) -> R.Tensor((4, 8), "float32"):
        with R.dataflow():
            y = R.matmul(x, w)
            z = R.add(y, b)
            r = R.nn.relu(z)
            R.output(r)
        return r
)");
  IRModule legal = transform::AnnotateTIROpPattern()(transform::LegalizeOps()(mod));
  IRModule fused = transform::FuseOps()(legal);
  // Drawn alone, the fused module has no separate graph for the fused function: its ops are a
  // cluster inside main.
  VizModel plain = BuildModel(fused);
  ASSERT_EQ(plain.graphs.size(), 1u);
  ASSERT_EQ(plain.graphs[0].clusters.size(), 1u);
  EXPECT_EQ(plain.graphs[0].clusters[0].label.rfind("fused_", 0), 0u);
  size_t in_cluster = 0;
  for (const VizNode& n : plain.graphs[0].nodes) in_cluster += !n.cluster.empty();
  EXPECT_EQ(in_cluster, 3u);  // matmul, add, relu as call_tir nodes

  VizModel d = Diff(legal, fused, "main");
  ASSERT_EQ(d.graphs.size(), 2u);
  EXPECT_EQ(d.graphs[0].name, "before: main");
  EXPECT_EQ(d.graphs[1].name, "after: main");
  EXPECT_EQ(d.title, "main: 0 nodes added, 0 removed, 1 fused kernels added");
  ASSERT_EQ(d.graphs[1].clusters.size(), 1u);
  EXPECT_EQ(d.graphs[1].clusters[0].status, "added");
  std::string dot = ToDot(d);
  EXPECT_NE(dot.find("subgraph \"cluster_after_c"), std::string::npos) << dot;

  // LegalizeOps turns each operator call into a call_tir: three removed, three added.
  VizModel l = Diff(mod, legal, "main");
  size_t removed = 0, added = 0;
  for (const VizNode& n : l.graphs[0].nodes) removed += n.status == "removed";
  for (const VizNode& n : l.graphs[1].nodes) added += n.status == "added";
  EXPECT_EQ(removed, 3u);
  EXPECT_EQ(added, 3u);
  EXPECT_NE(ToDot(l).find("fillcolor=\"#ffc4c4\""), std::string::npos);

  // Without expansion the fused function is a call node of its own graph.
  VizOptions flat;
  flat.expand_fused = false;
  VizModel f = BuildModel(fused, flat);
  EXPECT_EQ(f.graphs.size(), 2u);
}

TEST(RelaxViz, ValueRoundTrip) {
  VizModel model = BuildModel(Parse(kSmall));
  model.graphs[0].nodes[0].style["color"] = "red";
  model.title = "t";
  VizModel back = FromValue(ToValue(model));
  EXPECT_EQ(ToDot(back), ToDot(model));
  EXPECT_MINITVM_ERROR(FromValue(Any(int64_t{3})), "ValueError", "the model must be a dict");
  Map<Any, Any> bad;
  bad.Set(Any(String("graphs")), Any(Array<Any>{Any(Map<Any, Any>())}));
  EXPECT_MINITVM_ERROR(FromValue(Any(bad)), "ValueError", "a graph has no \"name\"");
  EXPECT_MINITVM_ERROR(NodeKindFromName("blob"), "ValueError", "unknown node kind \"blob\"");
}

TEST(RelaxViz, BadInput) {
  IRModule mod = Parse(kSmall);
  VizOptions options;
  options.functions = {"nope"};
  EXPECT_MINITVM_ERROR(BuildModel(mod, options), "ValueError",
                       "the module has no function \"nope\"; it has: main");
  EXPECT_MINITVM_ERROR(FormatFromPath("graph.xyz"), "ValueError",
                       "unknown output format \".xyz\" of \"graph.xyz\"");
  EXPECT_MINITVM_ERROR(FormatFromPath("graph"), "ValueError", "(no extension)");
  EXPECT_EQ(FormatFromPath("a.b/graph.SVG"), "svg");
  VizModel model = BuildModel(mod);
  EXPECT_MINITVM_ERROR(Render(model, "/nonexistent-dir/graph.dot"), "ValueError",
                       "cannot write \"/nonexistent-dir/graph.dot\"");
  EXPECT_MINITVM_ERROR(Render(model, "graph.dot", "jpeg"), "ValueError",
                       "unknown output format \"jpeg\"");
}

TEST(RelaxViz, RenderWritesFiles) {
  VizModel model = BuildModel(Parse(kSmall));
  std::string dir = ::testing::TempDir();
  Render(model, dir + "/viz_test.dot");
  std::ifstream dot(dir + "/viz_test.dot");
  std::string first;
  std::getline(dot, first);
  EXPECT_EQ(first, "digraph relax {");
  if (!HasGraphviz()) {
    EXPECT_MINITVM_ERROR(Render(model, dir + "/viz_test.svg"), "RuntimeError", "Graphviz");
    GTEST_SKIP() << "this build has no Graphviz: only the error is checked";
  }
  Render(model, dir + "/viz_test.svg");
  std::ifstream svg(dir + "/viz_test.svg");
  std::string text((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("<svg"), std::string::npos);
  EXPECT_EQ(Count(text, std::regex(R"(class="node")")), 7u);
  std::string png = RenderDot(ToDot(model), "png");
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  std::string html = ToHtml(model);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("id=\"viz-search\""), std::string::npos);
  EXPECT_EQ(html.find("<script src"), std::string::npos);  // no external resources
  EXPECT_EQ(html.find("http://www.w3.org/Graphics/SVG/1.1/DTD"), std::string::npos);
  EXPECT_MINITVM_ERROR(RenderDot("digraph { a -> }", "svg"), "ValueError",
                       "could not read the DOT text");
  std::remove((dir + "/viz_test.dot").c_str());
  std::remove((dir + "/viz_test.svg").c_str());
}

}  // namespace
}  // namespace relax
}  // namespace minitvm

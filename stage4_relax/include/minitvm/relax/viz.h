/*!
 * \file minitvm/relax/viz.h
 * \brief The Relax graph visualizer (stage 4): walks the Relax functions of a module and builds
 * a graph model (`VizModel`: one `VizGraph` per function, nodes and labelled edges), then writes
 * it as Graphviz DOT text, as a text tree for the terminal, as a self-contained HTML page, or
 * renders it to SVG/PNG/PDF through Graphviz's library (libgvc). `Diff` draws a function before
 * and after a pass with the nodes the pass added or removed coloured.
 *
 * What a node stands for (its `NodeKind`) decides its style: function inputs and weights are
 * ellipses of two colours, bound constants are notes with their shape, calls of operators are
 * boxes, `call_tir` shows its PrimFunc's name, and calls of fused ("Primitive") functions are
 * drawn inline, their operators inside a cluster named after the fused kernel. Every edge
 * carries the struct info of the value that flows along it (`(1, 64, 56, 56) float32`).
 *
 * The Python front (`minitvm.contrib.relax_viz`) gets the model as plain values (`ToValue`),
 * may restyle it, and hands it back (`FromValue`) to be written.
 */
#ifndef MINITVM_RELAX_VIZ_H_
#define MINITVM_RELAX_VIZ_H_

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "minitvm/ir/module.h"
#include "minitvm/runtime/any.h"

namespace minitvm {
namespace relax {
namespace viz {

/*! \brief What a node of the drawing stands for; decides its shape and colour. */
enum class NodeKind : int {
  kInput,          ///< a function parameter that is an input
  kWeight,         ///< a function parameter that is a weight (in relax_param, or past num_input)
  kConstant,       ///< a bound constant (`R.const`, or a weight bound by BindParams)
  kCallOp,         ///< a call of a Relax operator (`relax.add`, `relax.nn.conv2d`, ...)
  kCallTIR,        ///< `R.call_tir(prim_func, ...)`: the label is the PrimFunc's name
  kCallDPSPacked,  ///< `R.call_dps_packed("name", ...)`
  kCallPacked,     ///< a call of an extern (packed) function, `R.call_pure_packed`, ...
  kCallFunction,   ///< a call of another Relax function of the module (through its GlobalVar)
  kTuple,          ///< a tuple of values
  kTupleGetItem,   ///< `t[i]`
  kFunction,       ///< the function itself: its result flows into it
  kGlobalVar,      ///< a GlobalVar (the callee of a function call, or used as a value)
  kExternFunc,     ///< an ExternFunc used as a value
  kLiteral,        ///< a shape, PrimValue, string or dtype value
  kMatchCast,      ///< `R.match_cast(value, struct_info)`
  kIf,             ///< `if cond: ... else: ...`
  kOther,          ///< anything else (a nested function, an Op used as a value)
};

/*! \brief The kind's name as the FFI and the HTML page spell it ("input", "call_tir", ...). */
const char* NodeKindName(NodeKind kind);
/*! \brief Inverse of NodeKindName; ValueError naming the unknown name. */
NodeKind NodeKindFromName(const std::string& name);

/*! \brief One node of a drawing. */
struct VizNode {
  /*! \brief Unique within the model ("n12"): the DOT node name and the SVG element id. */
  std::string id;
  NodeKind kind = NodeKind::kOther;
  /*! \brief The IR node's type ("Var", "Constant", "Call", "Tuple", ...), as relay_viz has it. */
  std::string type_name;
  /*! \brief The headline: op name, variable name, PrimFunc name, ... */
  std::string label;
  /*! \brief More text drawn under the label (shape, a few attributes); lines split by '\n'. */
  std::string detail;
  /*! \brief What the HTML page shows on hover/click: struct info, binding name, attributes. */
  std::vector<std::pair<std::string, std::string>> info;
  /*! \brief The id of the cluster (fused kernel) the node is drawn in; "" for none. */
  std::string cluster;
  /*! \brief "" or, in a diff, "added" / "removed". */
  std::string status;
  /*! \brief Extra Graphviz attributes of this node; they override the kind's style. */
  std::map<std::string, std::string> style;
};

/*! \brief An edge: the value of `from` flows into `to`; `label` is its struct info. */
struct VizEdge {
  std::string from;
  std::string to;
  std::string label;
};

/*! \brief A cluster of nodes: the operators a fused kernel ("Primitive" function) holds. */
struct VizCluster {
  std::string id;
  std::string label;
  /*! \brief "" or, in a diff, "added" / "removed". */
  std::string status;
};

/*! \brief The drawing of one function. */
struct VizGraph {
  std::string name;
  std::vector<VizNode> nodes;
  std::vector<VizEdge> edges;
  std::vector<VizCluster> clusters;
};

/*! \brief A whole drawing: the graphs, drawn side by side, and the page-wide settings. */
struct VizModel {
  std::vector<VizGraph> graphs;
  /*! \brief PrimFunc name → its TVMScript, shown by the HTML page when a call_tir is clicked. */
  std::map<std::string, std::string> prim_funcs;
  /*! \brief Graphviz attributes for the whole graph, every node and every edge. */
  std::map<std::string, std::string> graph_attrs, node_attrs, edge_attrs;
  /*! \brief A title (the HTML page's, and the DOT graph's label when not empty). */
  std::string title;
};

/*! \brief What to draw. */
struct VizOptions {
  /*!
   * \brief The functions to draw, in order. Empty: every Relax function of the module, `main`
   * first, except fused ("Primitive") functions when `expand_fused` draws them inline.
   */
  std::vector<std::string> functions;
  /*! \brief Parameter names drawn as weights (the keys of relax_param). */
  std::set<std::string> weights;
  /*!
   * \brief Draw a call of a "Primitive" function (FuseOps' output) as the function's operators
   * inside a cluster named after it, instead of one call node.
   */
  bool expand_fused = true;
};

/*!
 * \brief Walk the functions of `mod` that `options` names and build their drawing. ValueError
 * naming the function and the module's functions when a named one is absent or not a Relax
 * function.
 */
VizModel BuildModel(const IRModule& mod, const VizOptions& options = {});

/*! \brief The number of nodes and edges of all graphs of `model`. */
std::pair<size_t, size_t> CountNodesEdges(const VizModel& model);

/*! \brief The model as Graphviz DOT text (always available, Graphviz or not). */
std::string ToDot(const VizModel& model);

/*!
 * \brief The model as a text tree for the terminal: each function from its result back to its
 * inputs, a node met again printed as a reference. After `max_nodes` nodes of a graph the rest
 * is left out, with a line counting what was left out.
 */
std::string ToTerm(const VizModel& model, int64_t max_nodes = 100);

/*!
 * \brief A self-contained HTML page: the SVG inlined, a panel with a node's struct info and
 * attributes on hover/click (a call_tir's PrimFunc source on click), and a search box for op
 * names. Needs Graphviz (RuntimeError naming it when this build has none).
 */
std::string ToHtml(const VizModel& model);

/*! \brief Whether this build renders through Graphviz's library. */
bool HasGraphviz();

/*!
 * \brief Lay out DOT text with Graphviz's "dot" and render it to `format` ("svg", "png",
 * "pdf"); returns the file's bytes. RuntimeError naming Graphviz when this build has none or
 * Graphviz fails; ValueError for malformed DOT.
 */
std::string RenderDot(const std::string& dot, const std::string& format);

/*!
 * \brief The output format a file name asks for: "svg", "png", "pdf", "html", "dot" or "txt"
 * (the term view). ValueError naming the file and the known extensions otherwise.
 */
std::string FormatFromPath(const std::string& path);

/*!
 * \brief Write the model to `path` in `format` (empty: from the extension). ValueError when the
 * path cannot be written, checked before any layout work.
 */
void Render(const VizModel& model, const std::string& path, const std::string& format = "");

/*!
 * \brief Function `func` of `before` and of `after`, drawn side by side ("before: main",
 * "after: main"): nodes only in `before` coloured as removed, nodes only in `after` as added,
 * and clusters (fused kernels) only in `after` as added. Nodes are matched by what they draw
 * (kind, label, struct info) and their order.
 */
VizModel Diff(const IRModule& before, const IRModule& after, const std::string& func,
              const VizOptions& options = {});

/*! \brief The model as plain values (maps and arrays of strings), for the FFI. */
runtime::Any ToValue(const VizModel& model);
/*! \brief The model from the plain values ToValue makes (ValueError on malformed values). */
VizModel FromValue(const runtime::Any& value);

}  // namespace viz
}  // namespace relax
}  // namespace minitvm

#endif  // MINITVM_RELAX_VIZ_H_

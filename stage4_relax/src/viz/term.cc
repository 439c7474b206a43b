/*!
 * \file viz/term.cc
 * \brief The Relax graph visualizer's terminal view (stage 4): each function drawn as a text
 * tree from its result back to its inputs (`|--` / `` `-- `` as relay_viz's terminal plotter
 * draws them). A node met again prints as a reference to its number; after `max_nodes` nodes
 * the rest is left out with a line that counts it.
 */
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "viz/viz_util.h"

namespace minitvm {
namespace relax {
namespace viz {

namespace {

std::string OneLine(const std::string& s) {
  std::string out;
  for (char c : s) out += (c == '\n') ? ' ' : c;
  return out;
}

void TermGraph(const VizGraph& g, int64_t max_nodes, std::ostream& os) {
  std::unordered_map<std::string, const VizNode*> by_id;
  for (const VizNode& n : g.nodes) by_id[n.id] = &n;
  std::unordered_map<std::string, std::string> cluster_label;
  for (const VizCluster& c : g.clusters) cluster_label[c.id] = c.label;
  // Inputs of each node, in edge order: the tree goes from a node to what it consumes.
  std::unordered_map<std::string, std::vector<const VizEdge*>> inputs;
  for (const VizEdge& e : g.edges) inputs[e.to].push_back(&e);
  const VizNode* root = nullptr;
  for (const VizNode& n : g.nodes) {
    if (n.kind == NodeKind::kFunction) root = &n;
  }
  if (!root && !g.nodes.empty()) root = &g.nodes.back();
  std::string params;
  for (const VizNode& n : g.nodes) {
    if (n.kind == NodeKind::kInput || n.kind == NodeKind::kWeight) {
      params += (params.empty() ? "" : ", ") + n.label;
    }
  }
  if (params.size() > 70) params = params.substr(0, 67) + "...";
  os << "@" << g.name << "(" << params << ")";
  if (root && root->kind == NodeKind::kFunction) {
    auto arrow = root->detail.find("-> ");
    if (arrow != std::string::npos) os << " -> " << root->detail.substr(arrow + 3);
  }
  os << "  [" << g.nodes.size() << " nodes, " << g.edges.size() << " edges]\n";
  if (!root) return;

  std::unordered_map<std::string, int64_t> number;  // node id → its number in the listing
  number[root->id] = 0;
  int64_t shown = 1;
  bool truncated = false;
  struct Frame {
    std::string id;
    size_t next = 0;
    std::string indent;
  };
  std::vector<Frame> stack{{root->id, 0, ""}};
  while (!stack.empty() && !truncated) {
    Frame& top = stack.back();
    const auto& ins = inputs[top.id];
    if (top.next >= ins.size()) {
      stack.pop_back();
      continue;
    }
    size_t i = top.next++;
    const VizEdge* e = ins[i];
    bool last = i + 1 == ins.size();
    std::string indent = top.indent;
    auto it = by_id.find(e->from);
    if (it == by_id.end()) continue;
    const VizNode& n = *it->second;
    std::string line = indent + (last ? "`-- " : "|-- ");
    auto seen = number.find(n.id);
    if (seen != number.end()) {
      os << line << "#" << seen->second << " " << n.label << " (see above)\n";
      continue;
    }
    if (shown >= max_nodes) {
      truncated = true;
      break;
    }
    number[n.id] = shown;
    os << line << "#" << shown << " ";
    if (n.kind == NodeKind::kCallTIR || n.kind == NodeKind::kCallDPSPacked ||
        n.kind == NodeKind::kCallPacked) {
      os << n.type_name << " ";
    }
    os << n.label;
    ++shown;
    std::string detail = OneLine(n.detail);
    if (!detail.empty() && n.kind != NodeKind::kInput && n.kind != NodeKind::kWeight) {
      os << " " << detail;
    }
    if (!e->label.empty()) {
      os << " : " << e->label;
    } else if (!detail.empty() && (n.kind == NodeKind::kInput || n.kind == NodeKind::kWeight)) {
      os << " : " << detail;
    }
    if (n.kind == NodeKind::kWeight) os << " (weight)";
    if (cluster_label.count(n.cluster)) os << "  {" << cluster_label[n.cluster] << "}";
    if (!n.status.empty()) os << " [" << n.status << "]";
    os << "\n";
    stack.push_back({n.id, 0, indent + (last ? "    " : "|   ")});
  }
  int64_t left = static_cast<int64_t>(g.nodes.size()) - shown;
  if (truncated) {
    os << "... " << left << " more node" << (left == 1 ? "" : "s") << " not shown ("
       << g.nodes.size() << " in all; raise max_nodes or render the graph to a file)\n";
  } else if (left > 0) {
    std::string names;
    for (const VizNode& n : g.nodes) {
      if (!number.count(n.id)) names += (names.empty() ? "" : ", ") + n.label;
    }
    os << "(" << left << " node" << (left == 1 ? "" : "s")
       << " not reached from the result: " << names << ")\n";
  }
}

}  // namespace

std::string ToTerm(const VizModel& model, int64_t max_nodes) {
  if (max_nodes < 1) {
    MINITVM_THROW(ValueError) << "relax viz: max_nodes must be at least 1, got " << max_nodes;
  }
  std::ostringstream os;
  if (!model.title.empty()) os << model.title << "\n";
  for (size_t i = 0; i < model.graphs.size(); ++i) {
    if (i) os << "\n";
    TermGraph(model.graphs[i], max_nodes, os);
  }
  return os.str();
}

}  // namespace viz
}  // namespace relax
}  // namespace minitvm

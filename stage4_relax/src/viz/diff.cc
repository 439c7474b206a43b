/*!
 * \file viz/diff.cc
 * \brief Before/after drawings of a pass (stage 4): `Diff` draws one function of two modules
 * side by side and colours what the pass changed. Nodes are matched by what they draw — kind,
 * label and struct info, not variable names, which passes rename — in order of appearance; a
 * node left unmatched in "before" was removed, one in "after" added. A fused kernel (cluster)
 * is matched by its name, so after FuseOps the ops are unchanged and each kernel is new.
 */
#include <deque>
#include <unordered_map>

#include "viz/viz_util.h"

namespace minitvm {
namespace relax {
namespace viz {

namespace {

std::string Signature(const VizNode& n) {
  std::string sig = std::string(NodeKindName(n.kind)) + "|" + n.label + "|" + n.detail;
  for (const auto& [k, v] : n.info) {
    if (k == "struct_info") sig += "|" + v;
  }
  return sig;
}

void Prefix(VizGraph* g, const std::string& prefix) {
  for (VizNode& n : g->nodes) {
    n.id = prefix + n.id;
    if (!n.cluster.empty()) n.cluster = prefix + n.cluster;
  }
  for (VizEdge& e : g->edges) {
    e.from = prefix + e.from;
    e.to = prefix + e.to;
  }
  for (VizCluster& c : g->clusters) c.id = prefix + c.id;
}

}  // namespace

VizModel Diff(const IRModule& before, const IRModule& after, const std::string& func,
              const VizOptions& options) {
  VizOptions o = options;
  o.functions = {func};
  VizModel b = BuildModel(before, o);
  VizModel a = BuildModel(after, o);
  VizGraph gb = std::move(b.graphs.at(0));
  VizGraph ga = std::move(a.graphs.at(0));
  Prefix(&gb, "before_");
  Prefix(&ga, "after_");
  gb.name = "before: " + func;
  ga.name = "after: " + func;

  std::unordered_map<std::string, std::deque<size_t>> unmatched;
  for (size_t i = 0; i < ga.nodes.size(); ++i) unmatched[Signature(ga.nodes[i])].push_back(i);
  std::vector<bool> matched(ga.nodes.size(), false);
  size_t removed = 0, added = 0;
  for (VizNode& n : gb.nodes) {
    auto& q = unmatched[Signature(n)];
    if (q.empty()) {
      n.status = "removed";
      ++removed;
    } else {
      matched[q.front()] = true;
      q.pop_front();
    }
  }
  for (size_t i = 0; i < ga.nodes.size(); ++i) {
    if (!matched[i]) {
      ga.nodes[i].status = "added";
      ++added;
    }
  }
  std::unordered_map<std::string, int> before_clusters;
  for (const VizCluster& c : gb.clusters) before_clusters[c.label]++;
  size_t clusters_added = 0;
  for (VizCluster& c : ga.clusters) {
    if (before_clusters[c.label] > 0) {
      before_clusters[c.label]--;
    } else {
      c.status = "added";
      ++clusters_added;
    }
  }
  for (VizCluster& c : gb.clusters) {
    bool kept = false;
    for (const VizCluster& x : ga.clusters) kept = kept || x.label == c.label;
    if (!kept) c.status = "removed";
  }

  VizModel out;
  out.graphs.push_back(std::move(gb));
  out.graphs.push_back(std::move(ga));
  out.prim_funcs = b.prim_funcs;
  for (const auto& [k, v] : a.prim_funcs) out.prim_funcs[k] = v;
  out.title = func + ": " + std::to_string(added) + " nodes added, " + std::to_string(removed) +
              " removed, " + std::to_string(clusters_added) + " fused kernels added";
  out.graph_attrs["rankdir"] = "TB";
  return out;
}

}  // namespace viz
}  // namespace relax
}  // namespace minitvm

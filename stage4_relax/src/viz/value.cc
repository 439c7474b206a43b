/*!
 * \file viz/value.cc
 * \brief The Relax graph visualizer's model as plain values (stage 4): maps and arrays of
 * strings that cross the FFI, so that the Python front can read and restyle a drawing and hand
 * it back. `FromValue` checks what it reads and names the field at fault.
 */
#include "minitvm/runtime/container.h"
#include "viz/viz_util.h"

namespace minitvm {
namespace relax {
namespace viz {

namespace {

using runtime::Array;
using runtime::ArrayNode;
using runtime::Map;
using runtime::MapNode;

Any StrMap(const std::map<std::string, std::string>& m) {
  Map<Any, Any> out;
  for (const auto& [k, v] : m) out.Set(Any(String(k)), Any(String(v)));
  return Any(out);
}

const MapNode* AsMap(const Any& v, const std::string& what) {
  const MapNode* m = v.as<MapNode>();
  if (!m)
    MINITVM_THROW(ValueError) << "relax viz: " << what << " must be a dict, got " << v.ToString();
  return m;
}

const ArrayNode* AsArray(const Any& v, const std::string& what) {
  const ArrayNode* a = v.as<ArrayNode>();
  if (!a)
    MINITVM_THROW(ValueError) << "relax viz: " << what << " must be a list, got " << v.ToString();
  return a;
}

/*! \brief Field `key` of a map; `fallback` when absent (or an error when required). */
Any Field(const MapNode* m, const std::string& key, const std::string& what, bool required) {
  int64_t i = m->Find(Any(String(key)));
  if (i < 0) {
    if (required) MINITVM_THROW(ValueError) << "relax viz: " << what << " has no \"" << key << "\"";
    return Any();
  }
  return m->data[i].second;
}

std::string Str(const Any& v, const std::string& what) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.cast<std::string>();
  if (v.is_int() || v.is_float() || v.is_bool()) return v.ToString();
  MINITVM_THROW(ValueError) << "relax viz: " << what << " must be a string, got " << v.ToString();
}

std::map<std::string, std::string> StrMapFrom(const Any& v, const std::string& what) {
  std::map<std::string, std::string> out;
  if (v.is_null()) return out;
  for (const auto& [k, x] : AsMap(v, what)->data)
    out[Str(k, what + " key")] = Str(x, what + " value");
  return out;
}

}  // namespace

Any ToValue(const VizModel& model) {
  Array<Any> graphs;
  for (const VizGraph& g : model.graphs) {
    Array<Any> nodes;
    for (const VizNode& n : g.nodes) {
      Array<Any> info;
      for (const auto& [k, v] : n.info)
        info.push_back(Any(Array<Any>{Any(String(k)), Any(String(v))}));
      Map<Any, Any> node;
      node.Set(Any(String("id")), Any(String(n.id)));
      node.Set(Any(String("kind")), Any(String(NodeKindName(n.kind))));
      node.Set(Any(String("type_name")), Any(String(n.type_name)));
      node.Set(Any(String("label")), Any(String(n.label)));
      node.Set(Any(String("detail")), Any(String(n.detail)));
      node.Set(Any(String("info")), Any(info));
      node.Set(Any(String("cluster")), Any(String(n.cluster)));
      node.Set(Any(String("status")), Any(String(n.status)));
      node.Set(Any(String("style")), StrMap(n.style));
      nodes.push_back(Any(node));
    }
    Array<Any> edges;
    for (const VizEdge& e : g.edges) {
      edges.push_back(
          Any(Array<Any>{Any(String(e.from)), Any(String(e.to)), Any(String(e.label))}));
    }
    Array<Any> clusters;
    for (const VizCluster& c : g.clusters) {
      clusters.push_back(
          Any(Array<Any>{Any(String(c.id)), Any(String(c.label)), Any(String(c.status))}));
    }
    Map<Any, Any> graph;
    graph.Set(Any(String("name")), Any(String(g.name)));
    graph.Set(Any(String("nodes")), Any(nodes));
    graph.Set(Any(String("edges")), Any(edges));
    graph.Set(Any(String("clusters")), Any(clusters));
    graphs.push_back(Any(graph));
  }
  Map<Any, Any> out;
  out.Set(Any(String("graphs")), Any(graphs));
  out.Set(Any(String("prim_funcs")), StrMap(model.prim_funcs));
  out.Set(Any(String("graph_attrs")), StrMap(model.graph_attrs));
  out.Set(Any(String("node_attrs")), StrMap(model.node_attrs));
  out.Set(Any(String("edge_attrs")), StrMap(model.edge_attrs));
  out.Set(Any(String("title")), Any(String(model.title)));
  return Any(out);
}

VizModel FromValue(const Any& value) {
  VizModel model;
  const MapNode* m = AsMap(value, "the model");
  for (const Any& gv : AsArray(Field(m, "graphs", "the model", true), "graphs")->data) {
    const MapNode* gm = AsMap(gv, "a graph");
    VizGraph g;
    g.name = Str(Field(gm, "name", "a graph", true), "a graph's name");
    for (const Any& nv : AsArray(Field(gm, "nodes", "graph " + g.name, true), "nodes")->data) {
      const MapNode* nm = AsMap(nv, "a node");
      VizNode n;
      n.id = Str(Field(nm, "id", "a node", true), "a node's id");
      if (n.id.empty())
        MINITVM_THROW(ValueError) << "relax viz: a node of graph " << g.name << " has an empty id";
      std::string what = "node " + n.id;
      Any kind = Field(nm, "kind", what, false);
      n.kind = kind.is_null() ? NodeKind::kOther : NodeKindFromName(Str(kind, what + " kind"));
      n.type_name = Str(Field(nm, "type_name", what, false), what + " type_name");
      n.label = Str(Field(nm, "label", what, false), what + " label");
      n.detail = Str(Field(nm, "detail", what, false), what + " detail");
      Any info = Field(nm, "info", what, false);
      if (!info.is_null()) {
        for (const Any& kv : AsArray(info, what + " info")->data) {
          const ArrayNode* pair = AsArray(kv, what + " info entry");
          if (pair->data.size() != 2) {
            MINITVM_THROW(ValueError)
                << "relax viz: " << what << " info entries must be [key, value] pairs";
          }
          n.info.push_back(
              {Str(pair->data[0], what + " info key"), Str(pair->data[1], what + " info value")});
        }
      }
      n.cluster = Str(Field(nm, "cluster", what, false), what + " cluster");
      n.status = Str(Field(nm, "status", what, false), what + " status");
      n.style = StrMapFrom(Field(nm, "style", what, false), what + " style");
      g.nodes.push_back(std::move(n));
    }
    for (const Any& ev : AsArray(Field(gm, "edges", "graph " + g.name, true), "edges")->data) {
      const ArrayNode* e = AsArray(ev, "an edge");
      if (e->data.size() < 2 || e->data.size() > 3) {
        MINITVM_THROW(ValueError)
            << "relax viz: an edge must be [from, to] or [from, to, label], got " << ev.ToString();
      }
      g.edges.push_back({Str(e->data[0], "an edge's start"), Str(e->data[1], "an edge's end"),
                         e->data.size() == 3 ? Str(e->data[2], "an edge's label") : ""});
    }
    Any clusters = Field(gm, "clusters", "graph " + g.name, false);
    if (!clusters.is_null()) {
      for (const Any& cv : AsArray(clusters, "clusters")->data) {
        const ArrayNode* c = AsArray(cv, "a cluster");
        if (c->data.size() < 2)
          MINITVM_THROW(ValueError) << "relax viz: a cluster must be [id, label, status]";
        g.clusters.push_back({Str(c->data[0], "a cluster's id"),
                              Str(c->data[1], "a cluster's label"),
                              c->data.size() > 2 ? Str(c->data[2], "a cluster's status") : ""});
      }
    }
    model.graphs.push_back(std::move(g));
  }
  model.prim_funcs = StrMapFrom(Field(m, "prim_funcs", "the model", false), "prim_funcs");
  model.graph_attrs = StrMapFrom(Field(m, "graph_attrs", "the model", false), "graph_attrs");
  model.node_attrs = StrMapFrom(Field(m, "node_attrs", "the model", false), "node_attrs");
  model.edge_attrs = StrMapFrom(Field(m, "edge_attrs", "the model", false), "edge_attrs");
  model.title = Str(Field(m, "title", "the model", false), "title");
  return model;
}

}  // namespace viz
}  // namespace relax
}  // namespace minitvm

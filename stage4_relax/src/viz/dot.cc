/*!
 * \file viz/dot.cc
 * \brief The Relax graph visualizer's DOT writer (stage 4): a `VizModel` as Graphviz DOT text,
 * each function a cluster, each fused kernel a cluster inside it, each node styled by its kind
 * (and, in a diff, by its status). Also the styles and the escaping helpers of viz_util.h.
 */
#include <set>
#include <sstream>

#include "viz/viz_util.h"

namespace minitvm {
namespace relax {
namespace viz {

std::map<std::string, std::string> KindStyle(NodeKind kind) {
  auto box = [](const char* fill, const char* color, const char* style = "rounded,filled") {
    return std::map<std::string, std::string>{
        {"shape", "box"}, {"style", style}, {"fillcolor", fill}, {"color", color}};
  };
  switch (kind) {
    case NodeKind::kInput:
      return {{"shape", "ellipse"},
              {"style", "filled"},
              {"fillcolor", "#d6eaff"},
              {"color", "#3b82c4"}};
    case NodeKind::kWeight:
      return {{"shape", "ellipse"},
              {"style", "filled"},
              {"fillcolor", "#fff0c2"},
              {"color", "#b8860b"}};
    case NodeKind::kConstant:
      return {
          {"shape", "note"}, {"style", "filled"}, {"fillcolor", "#eeeeee"}, {"color", "#777777"}};
    case NodeKind::kCallOp:
      return box("#e3f4e1", "#3c8c3c");
    case NodeKind::kCallTIR:
      return box("#ffe1c6", "#d2691e", "filled");
    case NodeKind::kCallDPSPacked:
      return box("#eadcf8", "#7b4bb7", "filled");
    case NodeKind::kCallPacked:
      return box("#eadcf8", "#7b4bb7", "filled,dashed");
    case NodeKind::kCallFunction:
      return box("#d5f0f0", "#2f7f7f", "rounded,filled,bold");
    case NodeKind::kTuple:
      return {{"shape", "trapezium"},
              {"style", "filled"},
              {"fillcolor", "#f2f2f2"},
              {"color", "#666666"}};
    case NodeKind::kTupleGetItem:
      return {{"shape", "invtrapezium"},
              {"style", "filled"},
              {"fillcolor", "#f2f2f2"},
              {"color", "#666666"}};
    case NodeKind::kFunction:
      return {{"shape", "doubleoctagon"},
              {"style", "filled"},
              {"fillcolor", "#dcdcf5"},
              {"color", "#4b4b9b"}};
    case NodeKind::kGlobalVar:
      return {{"shape", "hexagon"},
              {"style", "filled"},
              {"fillcolor", "#d5f0f0"},
              {"color", "#2f7f7f"}};
    case NodeKind::kExternFunc:
      return {{"shape", "hexagon"},
              {"style", "filled"},
              {"fillcolor", "#eadcf8"},
              {"color", "#7b4bb7"}};
    case NodeKind::kLiteral:
      return {{"shape", "plaintext"}};
    case NodeKind::kMatchCast:
    case NodeKind::kIf:
      return {{"shape", "diamond"},
              {"style", "filled"},
              {"fillcolor", "#fafad2"},
              {"color", "#8b8b00"}};
    case NodeKind::kOther:
      break;
  }
  return {{"shape", "box"}, {"style", "dotted"}};
}

std::map<std::string, std::string> StatusStyle(const std::string& status) {
  if (status == "added") {
    return {{"fillcolor", "#b9f6b0"}, {"color", "#1a7f1a"}, {"penwidth", "2.5"}};
  }
  if (status == "removed") {
    return {{"fillcolor", "#ffc4c4"}, {"color", "#c00000"}, {"penwidth", "2.5"}};
  }
  return {};
}

std::string DotQuote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      continue;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string HtmlEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string JsonQuote(const std::string& s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '/' && i > 0 && s[i - 1] == '<') {
      out += "\\/";  // "</script>" must not end the inline script
    } else if (c < 0x20) {
      char buf[8];
      snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

namespace {

void WriteAttrs(std::ostream& os, const std::map<std::string, std::string>& attrs) {
  bool first = true;
  for (const auto& [k, v] : attrs) {
    os << (first ? "" : ", ") << k << "=" << DotQuote(v);
    first = false;
  }
}

std::string NodeText(const VizNode& n) {
  std::string head = n.label;
  if (n.kind == NodeKind::kCallTIR || n.kind == NodeKind::kCallDPSPacked ||
      n.kind == NodeKind::kCallPacked) {
    head = n.type_name + "\n" + n.label;  // call_tir / call_dps_packed, then the callee
  }
  return n.detail.empty() ? head : head + "\n" + n.detail;
}

std::string Tooltip(const VizNode& n) {
  std::string t = n.type_name + " " + n.label;
  for (const auto& [k, v] : n.info)
    t += "\n" + k + ": " + (v.size() > 200 ? v.substr(0, 200) + "…" : v);
  return t;
}

void WriteNode(std::ostream& os, const VizNode& n, const std::string& indent) {
  std::map<std::string, std::string> attrs = KindStyle(n.kind);
  for (const auto& [k, v] : StatusStyle(n.status)) attrs[k] = v;
  if (!n.status.empty() && attrs.count("style") &&
      attrs["style"].find("filled") == std::string::npos) {
    attrs["style"] += ",filled";
  }
  for (const auto& [k, v] : n.style) attrs[k] = v;
  attrs["label"] = NodeText(n);
  attrs["id"] = n.id;
  attrs["tooltip"] = Tooltip(n);
  os << indent << DotQuote(n.id) << " [";
  WriteAttrs(os, attrs);
  os << "];\n";
}

}  // namespace

std::string ToDot(const VizModel& model) {
  std::ostringstream os;
  os << "digraph relax {\n";
  std::map<std::string, std::string> gattrs{{"rankdir", "TB"},   {"fontname", "Helvetica"},
                                            {"fontsize", "12"},  {"nodesep", "0.25"},
                                            {"ranksep", "0.35"}, {"newrank", "true"}};
  if (!model.title.empty()) {
    gattrs["label"] = model.title;
    gattrs["labelloc"] = "t";
  }
  for (const auto& [k, v] : model.graph_attrs) gattrs[k] = v;
  std::map<std::string, std::string> nattrs{
      {"fontname", "Helvetica"}, {"fontsize", "10"}, {"margin", "0.08,0.03"}, {"height", "0.3"}};
  for (const auto& [k, v] : model.node_attrs) nattrs[k] = v;
  std::map<std::string, std::string> eattrs{
      {"fontname", "Helvetica"}, {"fontsize", "8"}, {"color", "#555555"}, {"arrowsize", "0.6"}};
  for (const auto& [k, v] : model.edge_attrs) eattrs[k] = v;
  os << "  graph [";
  WriteAttrs(os, gattrs);
  os << "];\n  node [";
  WriteAttrs(os, nattrs);
  os << "];\n  edge [";
  WriteAttrs(os, eattrs);
  os << "];\n";
  for (size_t gi = 0; gi < model.graphs.size(); ++gi) {
    const VizGraph& g = model.graphs[gi];
    os << "  subgraph " << DotQuote("cluster_graph_" + std::to_string(gi)) << " {\n";
    os << "    label=" << DotQuote(g.name) << "; style=\"rounded\"; color=\"#999999\";\n";
    for (const VizCluster& c : g.clusters) {
      // Graphviz draws a subgraph as a box only when its name starts with "cluster".
      os << "    subgraph " << DotQuote("cluster_" + c.id) << " {\n";
      std::map<std::string, std::string> cattrs{{"label", c.label},
                                                {"style", "rounded,filled"},
                                                {"fillcolor", "#fff8e1"},
                                                {"color", "#e0a800"},
                                                {"id", c.id}};
      if (c.status == "added") {
        cattrs["fillcolor"] = "#e6fbe3";
        cattrs["color"] = "#1a7f1a";
        cattrs["penwidth"] = "2.5";
      } else if (c.status == "removed") {
        cattrs["fillcolor"] = "#ffe6e6";
        cattrs["color"] = "#c00000";
        cattrs["penwidth"] = "2.5";
      }
      os << "      graph [";
      WriteAttrs(os, cattrs);
      os << "];\n";
      for (const VizNode& n : g.nodes) {
        if (n.cluster == c.id) WriteNode(os, n, "      ");
      }
      os << "    }\n";
    }
    std::set<std::string> cluster_ids;
    for (const VizCluster& c : g.clusters) cluster_ids.insert(c.id);
    for (const VizNode& n : g.nodes) {
      if (!cluster_ids.count(n.cluster)) WriteNode(os, n, "    ");
    }
    os << "  }\n";
  }
  for (const VizGraph& g : model.graphs) {
    for (const VizEdge& e : g.edges) {
      os << "  " << DotQuote(e.from) << " -> " << DotQuote(e.to);
      if (!e.label.empty()) os << " [label=" << DotQuote(e.label) << "]";
      os << ";\n";
    }
  }
  os << "}\n";
  return os.str();
}

}  // namespace viz
}  // namespace relax
}  // namespace minitvm

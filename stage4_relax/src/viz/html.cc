/*!
 * \file viz/html.cc
 * \brief The Relax graph visualizer's HTML page (stage 4): one self-contained file, no external
 * resources — the SVG Graphviz renders, inlined; the model's node data as inline JSON; and a
 * small script that shows a node's struct info and attributes on hover or click (a call_tir's
 * PrimFunc source on click), highlights the nodes whose op or variable name matches the search
 * box (or a `#search=TEXT` fragment; `#select=ID` clicks a node), and, once it ran, writes a marker
 * with the node count into the page (`#viz-status[data-ok="1"][data-nodes=N]`) for tests in a
 * headless browser.
 */
#include <sstream>

#include "viz/viz_util.h"

namespace minitvm {
namespace relax {
namespace viz {

namespace {

const char* kStyle = R"CSS(
body { font-family: Helvetica, Arial, sans-serif; margin: 0; color: #222; background: #fff; }
header { padding: 8px 12px; background: #f4f4f8; border-bottom: 1px solid #ccc;
         display: flex; gap: 12px; align-items: center; }
header h1 { font-size: 16px; margin: 0; }
#viz-search { font-size: 14px; padding: 3px 6px; width: 18em; }
#viz-main { display: flex; height: calc(100vh - 48px); }
#viz-graph { flex: 1; overflow: auto; padding: 8px; }
#viz-panel { width: 340px; border-left: 1px solid #ccc; padding: 8px 12px; overflow: auto;
             font-size: 13px; background: #fafafa; }
#viz-panel h2 { font-size: 14px; margin: 4px 0 8px; }
#viz-info td { vertical-align: top; padding: 2px 4px; border-bottom: 1px solid #eee; }
#viz-info td:first-child { color: #666; white-space: nowrap; }
#viz-source { font-size: 11px; background: #fff; border: 1px solid #ddd; padding: 6px;
              white-space: pre; overflow: auto; display: none; }
#viz-legend span { display: inline-block; margin: 2px 6px 2px 0; padding: 1px 5px;
                   border: 1px solid #999; border-radius: 3px; font-size: 11px; }
g.node { cursor: pointer; }
g.node.viz-hit polygon, g.node.viz-hit ellipse, g.node.viz-hit path {
  stroke: #e00000; stroke-width: 3px; }
g.node.viz-dim { opacity: 0.25; }
g.node.viz-selected polygon, g.node.viz-selected ellipse, g.node.viz-selected path {
  stroke: #0050ff; stroke-width: 3px; }
#viz-status { display: none; }
a.viz-link { color: #0050c0; cursor: pointer; text-decoration: underline; }
)CSS";

const char* kScript = R"JS(
(function () {
  var status = document.getElementById("viz-status");
  window.addEventListener("error", function (e) {
    status.setAttribute("data-ok", "0");
    status.setAttribute("data-error", String(e.message));
  });
  var data = JSON.parse(document.getElementById("viz-data").textContent);
  var svgNodes = Array.prototype.slice.call(
      document.querySelectorAll("#viz-graph svg g.node"));
  var title = document.getElementById("viz-node-title");
  var table = document.getElementById("viz-info");
  var source = document.getElementById("viz-source");
  var pinned = null;

  function row(key, value) {
    var tr = document.createElement("tr");
    var k = document.createElement("td");
    var v = document.createElement("td");
    k.textContent = key;
    v.textContent = value;
    tr.appendChild(k);
    tr.appendChild(v);
    table.appendChild(tr);
    return v;
  }

  function showSource(name) {
    source.textContent = data.prim_funcs[name];
    source.style.display = "block";
  }

  function show(id) {
    var d = data.nodes[id];
    if (!d) return;
    title.textContent = d.type + ": " + d.label;
    table.innerHTML = "";
    source.style.display = "none";
    row("kind", d.kind);
    row("graph", d.graph);
    if (d.status) row("diff", d.status);
    if (d.cluster) row("fused kernel", d.cluster);
    d.info.forEach(function (kv) { row(kv[0], kv[1]); });
    if (d.kind === "call_tir" && data.prim_funcs[d.label]) {
      var cell = row("PrimFunc", "");
      var a = document.createElement("a");
      a.className = "viz-link";
      a.textContent = d.label + " (show source)";
      a.addEventListener("click", function () { showSource(d.label); });
      cell.appendChild(a);
    }
  }

  svgNodes.forEach(function (g) {
    g.addEventListener("mouseenter", function () { if (!pinned) show(g.id); });
    g.addEventListener("click", function (ev) {
      ev.preventDefault();
      if (pinned) pinned.classList.remove("viz-selected");
      pinned = g;
      g.classList.add("viz-selected");
      show(g.id);
      var d = data.nodes[g.id];
      if (d && d.kind === "call_tir" && data.prim_funcs[d.label]) showSource(d.label);
    });
  });

  var search = document.getElementById("viz-search");
  var count = document.getElementById("viz-count");
  function runSearch() {
    var q = search.value.trim().toLowerCase();
    var hits = 0;
    svgNodes.forEach(function (g) {
      var d = data.nodes[g.id] || {label: "", type: "", name: ""};
      var text = (d.label + " " + d.type + " " + d.name).toLowerCase();
      var hit = q.length > 0 && text.indexOf(q) >= 0;
      if (hit) hits++;
      g.classList.toggle("viz-hit", hit);
      g.classList.toggle("viz-dim", q.length > 0 && !hit);
    });
    count.textContent = q.length ? hits + " of " + svgNodes.length + " nodes match" :
                                   svgNodes.length + " nodes";
    status.setAttribute("data-hits", String(hits));
    return hits;
  }
  search.addEventListener("input", function () {
    if (runSearch() > 0) {
      var first = document.querySelector("#viz-graph g.node.viz-hit");
      if (first && first.scrollIntoView) first.scrollIntoView({block: "center", inline: "center"});
    }
  });

  // Zoom: the SVG starts fitted to the panel's width when it is wider (a deep network is a
  // tall, narrow graph; a wide one would otherwise show an empty corner).
  var svg = document.querySelector("#viz-graph svg");
  var box = document.getElementById("viz-graph");
  var baseW = svg ? svg.width.baseVal.value : 0;
  var baseH = svg ? svg.height.baseVal.value : 0;
  var scale = 1;
  function zoom(s) {
    if (!svg) return;
    scale = Math.max(0.05, Math.min(8, s));
    svg.setAttribute("width", (baseW * scale) + "px");
    svg.setAttribute("height", (baseH * scale) + "px");
    document.getElementById("viz-zoom").textContent = Math.round(scale * 100) + "%";
  }
  function fit() { return Math.min(1, (box.clientWidth - 20) / Math.max(1, baseW)); }
  document.getElementById("viz-zoom-in").addEventListener("click", function () { zoom(scale * 1.25); });
  document.getElementById("viz-zoom-out").addEventListener("click", function () { zoom(scale / 1.25); });
  document.getElementById("viz-zoom-fit").addEventListener("click", function () { zoom(fit()); });
  document.getElementById("viz-zoom-one").addEventListener("click", function () { zoom(1); });
  zoom(fit());
  var m = /search=([^&]*)/.exec(window.location.hash);
  if (m) search.value = decodeURIComponent(m[1]);
  runSearch();

  // `#select=ID` clicks node ID once the page is ready (a link to one node; tests use it).
  var sel = /select=([^&]*)/.exec(window.location.hash);
  if (sel) {
    var target = document.getElementById(decodeURIComponent(sel[1]));
    if (target) target.dispatchEvent(new MouseEvent("click", {bubbles: true}));
  }

  status.setAttribute("data-nodes", String(svgNodes.length));
  status.setAttribute("data-model-nodes", String(data.node_count));
  status.setAttribute("data-ok", "1");
  status.textContent = "ok";
})();
)JS";

/*! \brief The SVG document without its XML prolog and doctype, to inline in HTML. */
std::string InlineSvg(const std::string& svg) {
  auto start = svg.find("<svg");
  return start == std::string::npos ? svg : svg.substr(start);
}

}  // namespace

std::string ToHtml(const VizModel& model) {
  std::string svg = InlineSvg(RenderDot(ToDot(model), "svg"));
  auto [num_nodes, num_edges] = CountNodesEdges(model);
  std::ostringstream json;
  json << "{\"node_count\": " << num_nodes << ", \"nodes\": {";
  bool first = true;
  for (const VizGraph& g : model.graphs) {
    std::map<std::string, std::string> cluster_labels;
    for (const VizCluster& c : g.clusters) cluster_labels[c.id] = c.label;
    for (const VizNode& n : g.nodes) {
      std::string name;
      for (const auto& [k, v] : n.info) {
        if (k == "name") name = v;
      }
      json << (first ? "" : ",\n") << JsonQuote(n.id)
           << ": {\"kind\": " << JsonQuote(NodeKindName(n.kind))
           << ", \"type\": " << JsonQuote(n.type_name) << ", \"label\": " << JsonQuote(n.label)
           << ", \"name\": " << JsonQuote(name) << ", \"graph\": " << JsonQuote(g.name)
           << ", \"status\": " << JsonQuote(n.status) << ", \"cluster\": "
           << JsonQuote(cluster_labels.count(n.cluster) ? cluster_labels[n.cluster] : "")
           << ", \"info\": [";
      for (size_t i = 0; i < n.info.size(); ++i) {
        json << (i ? ", " : "") << "[" << JsonQuote(n.info[i].first) << ", "
             << JsonQuote(n.info[i].second) << "]";
      }
      json << "]}";
      first = false;
    }
  }
  json << "}, \"prim_funcs\": {";
  first = true;
  for (const auto& [name, text] : model.prim_funcs) {
    json << (first ? "" : ",\n") << JsonQuote(name) << ": " << JsonQuote(text);
    first = false;
  }
  json << "}}";

  std::string title = model.title.empty() ? "Relax graph" : model.title;
  if (model.title.empty() && !model.graphs.empty()) {
    title = "Relax graph: ";
    for (size_t i = 0; i < model.graphs.size(); ++i) {
      title += (i ? ", " : "") + model.graphs[i].name;
    }
  }
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
     << HtmlEscape(title) << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n"
     << "<header><h1>" << HtmlEscape(title) << "</h1>"
     << "<input id=\"viz-search\" type=\"search\" placeholder=\"search op or variable names\">"
     << "<span id=\"viz-count\"></span><span>" << num_nodes << " nodes, " << num_edges
     << " edges</span><span><button id=\"viz-zoom-out\">&minus;</button> <span "
     << "id=\"viz-zoom\">100%</span> <button id=\"viz-zoom-in\">+</button> <button "
     << "id=\"viz-zoom-fit\">fit</button> <button id=\"viz-zoom-one\">1:1</button></span>"
     << "</header>\n"
     << "<div id=\"viz-main\">\n<div id=\"viz-graph\">\n"
     << svg << "\n</div>\n<aside id=\"viz-panel\"><h2 id=\"viz-node-title\">Hover or click a "
     << "node</h2>\n<table id=\"viz-info\"></table>\n<pre id=\"viz-source\"></pre>\n"
     << "<div id=\"viz-legend\"><h2>Legend</h2>"
     << "<span style=\"background:#d6eaff\">input</span>"
     << "<span style=\"background:#fff0c2\">weight</span>"
     << "<span style=\"background:#eeeeee\">constant</span>"
     << "<span style=\"background:#e3f4e1\">operator call</span>"
     << "<span style=\"background:#ffe1c6\">call_tir</span>"
     << "<span style=\"background:#eadcf8\">packed call</span>"
     << "<span style=\"background:#d5f0f0\">function call / GlobalVar</span>"
     << "<span style=\"background:#fff8e1\">fused kernel</span>"
     << "<span style=\"background:#b9f6b0\">added</span>"
     << "<span style=\"background:#ffc4c4\">removed</span></div>\n"
     << "</aside>\n</div>\n<div id=\"viz-status\" data-ok=\"0\"></div>\n"
     << "<script type=\"application/json\" id=\"viz-data\">" << json.str() << "</script>\n"
     << "<script>" << kScript << "</script>\n</body>\n</html>\n";
  return os.str();
}

}  // namespace viz
}  // namespace relax
}  // namespace minitvm

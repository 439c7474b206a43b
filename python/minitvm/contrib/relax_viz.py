"""The Relax graph visualizer (stage 4): TVM's ``tvm.contrib.relay_viz`` for Relax.

::

    from minitvm.contrib import relax_viz
    mod, params = relax.testing.resnet.get_workload(num_layers=18)
    viz = relax_viz.RelaxVisualizer(mod, relax_param=params,
                                    plotter=relax_viz.DotPlotter(),
                                    parser=relax_viz.DotVizParser())
    viz.render("resnet18")          # resnet18.pdf; or "g.svg", "g.png", "g.html", "g.dot"
    print(viz.dot())                # the Graphviz DOT text
    relax_viz.RelaxVisualizer(mod).render()   # the terminal view (TermPlotter), printed

The walk over the IR, the DOT and terminal writers, the HTML page and the rendering through
Graphviz's library are C++ (``minitvm/relax/viz.h``, reached as ``relax.viz.*``). This module
keeps relay_viz's shape: the C++ walk gives each node and its incoming edges to a *parser*
(``get_node_edges``), which may change or drop them, and the parser's output goes to a
*plotter* (``create_graph``, ``render``). ``diff(before, after, "main")`` draws a function
before and after a pass. See ``docs/visualize.md``.
"""
import os

from .. import error as _error
from .._ffi import get_global_func

__all__ = [
    "VizNode",
    "VizEdge",
    "VizGraph",
    "VizParser",
    "Plotter",
    "DotVizParser",
    "DotGraph",
    "DotPlotter",
    "TermVizParser",
    "TermGraph",
    "TermPlotter",
    "RelaxVisualizer",
    "diff",
    "has_graphviz",
]

_KNOWN_PLOTTERS = "DotPlotter(), TermPlotter(), a Plotter subclass, or the names 'dot' / 'term'"


def _api(name):
    return get_global_func("relax.viz." + name)


def has_graphviz():
    """Whether this build renders SVG/PNG/PDF/HTML through Graphviz (DOT text always works)."""
    return bool(_api("HasGraphviz")())


class VizNode:
    """A node of the drawing.

    ``identity`` is unique in the drawing (the SVG element id); ``type_name`` the IR node type
    (``Var``, ``Call``, ``call_tir``, ``Tuple``, ...); ``detail`` the text under the label;
    ``kind`` decides the style (``input``, ``weight``, ``constant``, ``call_op``, ``call_tir``,
    ``call_dps_packed``, ``call_packed``, ``call_func``, ``tuple``, ``tuple_get_item``,
    ``function``, ``global_var``, ``extern_func``, ``literal``, ``match_cast``, ``if``,
    ``other``); ``info`` is the list of ``(key, value)`` shown on hover in the HTML page;
    ``style`` extra Graphviz attributes."""

    def __init__(self, identity, type_name, detail="", kind="other", label=None, info=None,
                 cluster="", status="", style=None):
        self.identity = identity
        self.type_name = type_name
        self.detail = detail
        self.kind = kind
        self.label = type_name if label is None else label
        self.info = list(info or [])
        self.cluster = cluster
        self.status = status
        self.style = dict(style or {})

    @property
    def name(self):
        """The variable the node's value is bound to, or ""."""
        for key, value in self.info:
            if key in ("name",):
                return value
        return ""

    def _to_value(self):
        return {
            "id": self.identity, "kind": self.kind, "type_name": self.type_name,
            "label": self.label, "detail": self.detail,
            "info": [[str(k), str(v)] for k, v in self.info], "cluster": self.cluster,
            "status": self.status, "style": {str(k): str(v) for k, v in self.style.items()},
        }

    def __repr__(self):
        return f"VizNode({self.identity!r}, {self.type_name!r}, {self.label!r}, kind={self.kind!r})"


class VizEdge:
    """An edge: the value of node ``start`` flows into node ``end``; ``label`` is its struct
    info (``(1, 64, 56, 56) float32``)."""

    def __init__(self, start, end, label=""):
        self.start = start
        self.end = end
        self.label = label

    def __repr__(self):
        return f"VizEdge({self.start!r} -> {self.end!r}, {self.label!r})"


class VizGraph:
    """Interface of the graph of one function that a plotter builds."""

    def node(self, viz_node):
        """Add a node (nodes arrive in post-order: inputs before their users)."""
        raise NotImplementedError

    def edge(self, viz_edge):
        """Add an edge."""
        raise NotImplementedError

    def cluster(self, identity, label, status=""):  # pylint: disable=unused-argument
        """Declare a cluster (a fused kernel); a plotter may ignore it."""
        return None


class VizParser:
    """Interface of a parser: decides what the plotter gets for each node of the walk."""

    def get_node_edges(self, node, edges, relax_param):
        """``(VizNode or None, [VizEdge])`` for ``node`` and its incoming ``edges``.

        Return ``None`` as the node to leave it out (then leave its edges out too)."""
        raise NotImplementedError


class Plotter:
    """Interface of a plotter: one graph per function, then ``render``."""

    def create_graph(self, name):
        """A new :class:`VizGraph` for function ``name``."""
        raise NotImplementedError

    def render(self, filename=None):
        """Draw all graphs."""
        raise NotImplementedError


class DotVizParser(VizParser):
    """The parser for :class:`DotPlotter`: nodes and edges as the walk made them."""

    def get_node_edges(self, node, edges, relax_param):
        return node, edges


class TermVizParser(VizParser):
    """The parser for :class:`TermPlotter`: literal values (shapes, strings) are kept, edges
    too; the text tree is drawn by the plotter."""

    def get_node_edges(self, node, edges, relax_param):
        return node, edges


class _ModelGraph(VizGraph):
    """A graph that keeps what it was given, in the form the C++ writers read."""

    def __init__(self, name):
        self.name = name
        self.nodes = []
        self.edges = []
        self.clusters = []

    def node(self, viz_node):
        self.nodes.append(viz_node)

    def edge(self, viz_edge):
        self.edges.append(viz_edge)

    def cluster(self, identity, label, status=""):
        self.clusters.append((identity, label, status))

    def _to_value(self, get_node_attr=None):
        nodes = []
        for n in self.nodes:
            v = n._to_value()  # pylint: disable=protected-access
            if get_node_attr is not None:
                extra = get_node_attr(n) or {}
                v["style"].update({str(k): str(x) for k, x in extra.items()})
            nodes.append(v)
        return {
            "name": self.name, "nodes": nodes,
            "edges": [[e.start, e.end, e.label] for e in self.edges],
            "clusters": [list(c) for c in self.clusters],
        }


class DotGraph(_ModelGraph):
    """The graph of one function for :class:`DotPlotter` (a Graphviz cluster)."""


class TermGraph(_ModelGraph):
    """The graph of one function for :class:`TermPlotter` (a text tree)."""


def _model_value(graphs, prim_funcs, title="", graph_attr=None, node_attr=None, edge_attr=None,
                 get_node_attr=None):
    return {
        "graphs": [g._to_value(get_node_attr) for g in graphs],  # pylint: disable=W0212
        "prim_funcs": dict(prim_funcs), "title": title,
        "graph_attrs": {str(k): str(v) for k, v in (graph_attr or {}).items()},
        "node_attrs": {str(k): str(v) for k, v in (node_attr or {}).items()},
        "edge_attrs": {str(k): str(v) for k, v in (edge_attr or {}).items()},
    }


def _check_writable_dir(filename):
    folder = os.path.dirname(os.path.abspath(filename))
    if not os.path.isdir(folder):
        raise _error.ValueError(f'relax viz: cannot write "{filename}": folder "{folder}" does '
                                "not exist")


class DotPlotter(Plotter):
    """Graphviz plotter: DOT text, and SVG/PNG/PDF/HTML through Graphviz's library.

    ``graph_attr``, ``node_attr``, ``edge_attr``: Graphviz attributes for the whole graph, all
    nodes, all edges; ``get_node_attr(viz_node)`` returns extra attributes for one node;
    ``render_kwargs``: ``{"format": "pdf"}`` picks the format of a file name without extension.
    """

    def __init__(self, graph_attr=None, node_attr=None, edge_attr=None, get_node_attr=None,
                 render_kwargs=None):
        self._graphs = {}
        self._graph_attr = graph_attr
        self._node_attr = node_attr
        self._edge_attr = edge_attr
        self._get_node_attr = get_node_attr
        self._render_kwargs = dict(render_kwargs or {})
        self._prim_funcs = {}
        self._title = ""

    def create_graph(self, name):
        self._graphs[name] = DotGraph(name)
        return self._graphs[name]

    def _value(self):
        return _model_value(self._graphs.values(), self._prim_funcs, self._title,
                            self._graph_attr, self._node_attr, self._edge_attr,
                            self._get_node_attr)

    def dot(self):
        """The DOT text of all graphs."""
        return str(_api("ToDot")(self._value()))

    def render(self, filename=None):
        """Write the graphs to ``filename``; the extension picks the format (``.svg``, ``.png``,
        ``.pdf``, ``.html``, ``.dot``, ``.txt``). Without an extension ``render_kwargs["format"]``
        (default ``pdf``) is appended, as relay_viz's ``render("1")`` wrote ``1.pdf``. Returns
        the path written."""
        if filename is None:
            filename = self._render_kwargs.get("filename", "relax_viz")
        filename = os.fspath(filename)
        base = os.path.basename(filename)
        if "." not in base:
            filename = filename + "." + str(self._render_kwargs.get("format", "pdf"))
        fmt = str(_api("FormatFromPath")(filename))
        _check_writable_dir(filename)
        _api("Render")(self._value(), filename, fmt)
        return filename


class TermPlotter(Plotter):
    """Terminal plotter: each function as a text tree from its result back to its inputs;
    after ``max_nodes`` nodes per function the rest is counted, not drawn."""

    def __init__(self, max_nodes=100):
        if int(max_nodes) < 1:
            raise _error.ValueError(f"TermPlotter: max_nodes must be at least 1, got {max_nodes}")
        self._graphs = {}
        self._max_nodes = int(max_nodes)
        self._title = ""

    def create_graph(self, name):
        self._graphs[name] = TermGraph(name)
        return self._graphs[name]

    def text(self):
        """The text tree of all graphs."""
        return str(_api("ToTerm")(_model_value(self._graphs.values(), {}, self._title),
                                  self._max_nodes))

    def render(self, filename=None):
        """Print the text (``filename`` None) or write it to ``filename``; returns the text."""
        text = self.text()
        if filename is None:
            print(text, end="")
            return text
        try:
            with open(filename, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as err:
            raise _error.ValueError(f'relax viz: cannot write "{filename}": '
                                    f"{err.strerror}") from None
        return text


def _as_module(mod):
    from ..ir import IRModule  # pylint: disable=import-outside-toplevel
    from .. import relax  # pylint: disable=import-outside-toplevel

    if isinstance(mod, IRModule):
        return mod
    if isinstance(mod, relax.Function):
        return IRModule({"main": mod})
    raise _error.TypeError(f"relax viz: expected an IRModule or a relax.Function, got "
                           f"{type(mod).__name__}")


def _resolve(plotter, parser):
    if plotter is None:
        plotter = TermPlotter()
    elif isinstance(plotter, str):
        known = {"dot": DotPlotter, "term": TermPlotter}
        if plotter not in known:
            raise _error.ValueError(f"relax viz: unknown plotter {plotter!r}; use "
                                    f"{_KNOWN_PLOTTERS}")
        plotter = known[plotter]()
    elif not isinstance(plotter, Plotter):
        raise _error.ValueError(f"relax viz: unknown plotter {plotter!r} (a "
                                f"{type(plotter).__name__}); use {_KNOWN_PLOTTERS}")
    if parser is None:
        parser = DotVizParser() if isinstance(plotter, DotPlotter) else TermVizParser()
    elif not isinstance(parser, VizParser):
        raise _error.ValueError(f"relax viz: unknown parser {parser!r}; use DotVizParser(), "
                                "TermVizParser() or a VizParser subclass")
    return plotter, parser


def _weights(relax_param):
    if relax_param is None:
        return None
    if not hasattr(relax_param, "keys"):
        raise _error.TypeError("relax viz: relax_param must be a dict of parameter name to "
                               f"array, got {type(relax_param).__name__}")
    return [str(k) for k in relax_param.keys()]


class RelaxVisualizer:
    """Draw the Relax functions of a module.

    ``mod``: an IRModule (or one relax.Function); ``relax_param``: the weights by parameter
    name (they are drawn as weights, not inputs; without it a function's ``num_input``
    attribute decides); ``plotter``: :class:`DotPlotter`, :class:`TermPlotter` (the default)
    or a :class:`Plotter`; ``parser``: :class:`DotVizParser`, :class:`TermVizParser` or a
    :class:`VizParser`. ``functions``: the function names to draw (default every Relax function,
    ``main`` first); ``expand_fused``: draw calls of fused ("Primitive") functions as their
    operators inside a cluster per fused kernel.
    """

    def __init__(self, mod, relax_param=None, plotter=None, parser=None, functions=None,
                 expand_fused=True):
        mod = _as_module(mod)
        self._plotter, self._parser = _resolve(plotter, parser)
        self._relax_param = relax_param if relax_param is not None else {}
        if isinstance(functions, str):
            functions = [functions]
        model = _api("BuildModel")(mod, None if functions is None else list(functions),
                                   _weights(relax_param), bool(expand_fused))
        self._load(model)

    @classmethod
    def _from_model(cls, model, plotter=None, parser=None):
        self = cls.__new__(cls)
        self._plotter, self._parser = _resolve(plotter, parser)
        self._relax_param = {}
        self._load(model)
        return self

    def _load(self, model):
        self._title = str(model["title"])
        self._prim_funcs = {str(k): str(v) for k, v in model["prim_funcs"].items()}
        if hasattr(self._plotter, "_prim_funcs"):
            self._plotter._prim_funcs = dict(self._prim_funcs)  # pylint: disable=W0212
        if hasattr(self._plotter, "_title"):
            self._plotter._title = self._title  # pylint: disable=W0212
        self._graphs = []
        for g in model["graphs"]:
            name = str(g["name"])
            graph = self._plotter.create_graph(name)
            kept = _ModelGraph(name)
            incoming = {}
            for e in g["edges"]:
                edge = VizEdge(str(e[0]), str(e[1]), str(e[2]))
                incoming.setdefault(edge.end, []).append(edge)
            for c in g["clusters"]:
                graph.cluster(str(c[0]), str(c[1]), str(c[2]))
                kept.cluster(str(c[0]), str(c[1]), str(c[2]))
            dropped = set()
            for n in g["nodes"]:
                node = VizNode(str(n["id"]), str(n["type_name"]), str(n["detail"]),
                               kind=str(n["kind"]), label=str(n["label"]),
                               info=[(str(kv[0]), str(kv[1])) for kv in n["info"]],
                               cluster=str(n["cluster"]), status=str(n["status"]),
                               style={str(k): str(v) for k, v in n["style"].items()})
                viz_node, edges = self._parser.get_node_edges(
                    node, incoming.get(node.identity, []), self._relax_param)
                if viz_node is None:
                    dropped.add(node.identity)
                    continue
                graph.node(viz_node)
                kept.node(viz_node)
                for edge in edges:
                    if edge.start in dropped:
                        continue
                    graph.edge(edge)
                    kept.edge(edge)
            self._graphs.append(kept)

    @property
    def graphs(self):
        """The graphs drawn, one per function: ``.name``, ``.nodes`` (VizNode), ``.edges``."""
        return list(self._graphs)

    @property
    def node_count(self):
        """The number of nodes of all graphs."""
        return sum(len(g.nodes) for g in self._graphs)

    @property
    def edge_count(self):
        """The number of edges of all graphs."""
        return sum(len(g.edges) for g in self._graphs)

    @property
    def title(self):
        """The drawing's title (a diff's summary)."""
        return self._title

    def _value(self):
        if isinstance(self._plotter, DotPlotter):
            return self._plotter._value()  # pylint: disable=protected-access
        return _model_value(self._graphs, self._prim_funcs, self._title)

    def dot(self):
        """The Graphviz DOT text (needs no Graphviz)."""
        return str(_api("ToDot")(self._value()))

    def term(self, max_nodes=100):
        """The terminal text tree, at most ``max_nodes`` nodes per function."""
        return str(_api("ToTerm")(self._value(), int(max_nodes)))

    def html(self):
        """The self-contained HTML page (needs Graphviz)."""
        return str(_api("ToHtml")(self._value()))

    def render(self, filename=None):
        """Let the plotter draw: a file for :class:`DotPlotter` (the extension of ``filename``
        picks svg/png/pdf/html/dot), the terminal for :class:`TermPlotter`."""
        return self._plotter.render(filename)


def diff(mod_before, mod_after, func="main", relax_param=None, plotter=None, parser=None,
         expand_fused=True):
    """Function ``func`` before and after a pass, drawn side by side: nodes the pass removed
    in red, nodes it added in green, fused kernels it made as green clusters. Returns a
    :class:`RelaxVisualizer` (default plotter: :class:`DotPlotter`); its ``title`` counts what
    changed."""
    before = _as_module(mod_before)
    after = _as_module(mod_after)
    model = _api("Diff")(before, after, str(func), _weights(relax_param), bool(expand_fused))
    return RelaxVisualizer._from_model(model, plotter if plotter is not None else DotPlotter(),
                                       parser)  # pylint: disable=protected-access

# Lesson 9 (Python): look at the graph
# =====================================
#
# Before reading a pass or an IR node by node it helps to *see* the computation graph. TVM
# had `tvm.contrib.relay_viz` for its old Relay IR; minitvm has the same tool for Relax:
# `minitvm.contrib.relax_viz`. A visualizer takes a module, a *parser* (what each node and
# edge becomes) and a *plotter* (how they are drawn): `DotPlotter` draws with Graphviz into
# SVG, PNG, PDF or an interactive HTML page; `TermPlotter` prints a text tree.
#
# There are two ways to get a graph to look at, and this lesson does both:
#   1. load a ready-made model — `relax.testing` has ResNet, MobileNet, an MLP and an LSTM;
#   2. build a tiny module by hand, node by node, and study that.
# Then it does what a visualizer is most useful for when you study passes:
#   3. draw a function before and after a pass (FuseOps), with what changed coloured.
#
# The files go to a temporary folder; open them in a browser or PDF viewer to look around.
import os
import tempfile

import minitvm as tvm
from minitvm import relax
from minitvm.contrib import relax_viz

out_dir = tempfile.mkdtemp(prefix="lesson09_")
# SVG/PDF/HTML need Graphviz (the DOT text never does): fall back to .dot without it.
HAVE_GRAPHVIZ = relax_viz.has_graphviz()


def out(name, ext):
    return os.path.join(out_dir, name + ("." + ext if HAVE_GRAPHVIZ else ".dot"))


def kinds_of(graph):
    counts = {}
    for node in graph.nodes:
        counts[node.kind] = counts.get(node.kind, 0) + 1
    return counts


# -----------------------------------------------------------------------------------------
# 1. A model from relax.testing: ResNet-18
# -----------------------------------------------------------------------------------------
# `get_workload` returns the module and its weights by parameter name. Passing the weights as
# `relax_param` tells the visualizer which parameters are weights (drawn as yellow ellipses)
# and which are real inputs (blue).
mod, params = relax.testing.resnet.get_workload(num_layers=18)
viz = relax_viz.RelaxVisualizer(
    mod, relax_param=params, plotter=relax_viz.DotPlotter(), parser=relax_viz.DotVizParser())
viz.render(out("resnet18", "pdf"))  # the article's viz.render(...) wrote a PDF too
viz.render(out("resnet18", "html"))  # hover a node for its struct info, search "conv2d"

print("== 1. ResNet-18 ==")
print(f"DOT: {viz.node_count} nodes, {viz.edge_count} edges "
      f"({len(viz.dot().splitlines())} lines of DOT text)")
kinds = kinds_of(viz.graphs[0])
for kind in sorted(kinds):
    print(f"  {kind:15s} {kinds[kind]:4d}")
ops = {}
for node in viz.graphs[0].nodes:
    if node.kind == "call_op":
        ops[node.label] = ops.get(node.label, 0) + 1
print("  operators:", ", ".join(f"{name} x{n}" for name, n in sorted(ops.items())))
# Almost everything is a variable (input or weight) or a call of an operator — exactly what
# the article saw in Relay. The weights outnumber the operators.
assert kinds["weight"] == len(params) and kinds["input"] == 1
assert ops["nn.conv2d"] == 20

# -----------------------------------------------------------------------------------------
# 2. A module built by hand
# -----------------------------------------------------------------------------------------
# The article's second example, in Relax: a function AddFunc(data, bias) = data + bias, a
# GlobalVar naming it, and main(input0, input1, input2) calling it twice. Relax wants the
# struct info (shape and dtype) of every variable; a function whose body is not normalised
# yet needs its return struct info spelled out.
t = relax.TensorStructInfo((1, 4), "float32")
data = relax.Var("data", t)
bias = relax.Var("bias", t)
add_func = relax.Function([data, bias], relax.op.add(data, bias), ret_struct_info=t)
add_gvar = tvm.ir.GlobalVar("AddFunc")

input0, input1, input2 = (relax.Var(f"input{i}", t) for i in range(3))
add_01 = relax.Call(add_gvar, [input0, input1])
add_012 = relax.Call(add_gvar, [input2, add_01])
main_func = relax.Function([input0, input1, input2], add_012, ret_struct_info=t)
hand = tvm.IRModule({tvm.ir.GlobalVar("main"): main_func, add_gvar: add_func})

print("\n== 2. The hand-built module ==")
hviz = relax_viz.RelaxVisualizer(hand, plotter=relax_viz.DotPlotter(),
                                 parser=relax_viz.DotVizParser())
hviz.render(out("hand_built", "svg"))
print(f"DOT: {hviz.node_count} nodes, {hviz.edge_count} edges in "
      f"{len(hviz.graphs)} functions: {', '.join(g.name for g in hviz.graphs)}")
# The same module in the terminal: each function from its result back to its inputs. A node
# used twice is printed once and then referred to by its number.
relax_viz.RelaxVisualizer(hand, plotter=relax_viz.TermPlotter(),
                          parser=relax_viz.TermVizParser()).render()
assert kinds_of(hviz.graphs[0]) == {"input": 3, "global_var": 1, "call_func": 2, "function": 1}

# -----------------------------------------------------------------------------------------
# 3. Before and after a pass: FuseOps
# -----------------------------------------------------------------------------------------
# A small dense layer, legalised (every operator becomes a call_tir of a PrimFunc) and
# annotated with operator patterns, then fused. `relax_viz.diff` draws main before and after;
# FuseOps moved no operator, it grouped them: each fused kernel is a cluster in "after".
x = relax.Var("x", relax.TensorStructInfo((4, 16), "float32"))
w = relax.Var("w", relax.TensorStructInfo((16, 8), "float32"))
b = relax.Var("b", relax.TensorStructInfo((8,), "float32"))
bb = relax.BlockBuilder()
with bb.function("main", [x, w, b]):
    with bb.dataflow():
        y = bb.emit(relax.op.matmul(x, w))
        y = bb.emit(relax.op.add(y, b))
        y = bb.emit(relax.op.nn.relu(y))
        y = bb.emit(relax.op.nn.softmax(y, axis=-1))
        gv = bb.emit_output(y)
    bb.emit_func_output(gv)
dense = bb.get()
before = relax.transform.AnnotateTIROpPattern()(relax.transform.LegalizeOps()(dense))
after = relax.transform.FuseOps()(before)

print("\n== 3. FuseOps, before and after ==")
d = relax_viz.diff(before, after, "main")
d.render(out("fuse_ops_diff", "html"))
print(d.term(max_nodes=20))
clusters = sorted({n.cluster for n in d.graphs[1].nodes if n.cluster})
assert len(clusters) >= 1

assert len(os.listdir(out_dir)) >= 3
print("OK: ResNet-18, the hand-built module and FuseOps before/after drawn and checked")

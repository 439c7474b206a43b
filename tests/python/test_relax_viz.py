"""The Relax graph visualizer, minitvm.contrib.relax_viz (stage 4): the DOT text of small
modules (node and edge counts, labels), the terminal view and its truncation, files in every
format checked for what they are (SVG parsed by xml.etree, the PNG header and size, the PDF read
by pdfinfo), the HTML page loaded in headless Chromium (no script error, as many nodes in the DOM
as in the graph, the search box, a screenshot that is not blank), the before/after view of
FuseOps, the `minitvm viz` command, and the errors for bad input."""
import os
import re
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
import zlib

import numpy as np
import pytest

from conftest import requires_global

requires_global("relax.viz.BuildModel")

import minitvm as tvm  # noqa: E402
from minitvm import relax  # noqa: E402
from minitvm.contrib import relax_viz  # noqa: E402
from minitvm.script import ir as I, relax as R  # noqa: E402

CHROMIUM = "/usr/bin/chromium-headless-shell"
needs_graphviz = pytest.mark.skipif(not relax_viz.has_graphviz(),
                                    reason="this build has no Graphviz (libgvc)")


@I.ir_module
class Small:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), w: R.Tensor((2, 3), "float32")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            a = R.add(x, w)
            b = R.nn.relu(a)
            c = R.multiply(a, b)
            R.output(c)
        return c


@I.ir_module
class Dense:
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), w: R.Tensor((8, 8), "float32"),
             b: R.Tensor((8,), "float32")):
        with R.dataflow():
            y = R.matmul(x, w)
            z = R.add(y, b)
            r = R.nn.relu(z)
            s = R.nn.softmax(r, axis=-1)
            R.output(s)
        return s


def article_module():
    """The article's hand-built module: AddFunc(data, bias) and main calling it twice."""
    t = relax.TensorStructInfo((1, 4), "float32")
    data, bias = relax.Var("data", t), relax.Var("bias", t)
    add_func = relax.Function([data, bias], relax.op.add(data, bias), ret_struct_info=t)
    add_gvar = tvm.ir.GlobalVar("AddFunc")
    i0, i1, i2 = relax.Var("input0", t), relax.Var("input1", t), relax.Var("input2", t)
    call01 = relax.Call(add_gvar, [i0, i1])
    call012 = relax.Call(add_gvar, [i2, call01])
    main = relax.Function([i0, i1, i2], call012, ret_struct_info=t)
    return tvm.IRModule({tvm.ir.GlobalVar("main"): main, add_gvar: add_func})


def fused_pair():
    legal = relax.transform.AnnotateTIROpPattern()(relax.transform.LegalizeOps()(Dense))
    return legal, relax.transform.FuseOps()(legal)


def dot_counts(dot):
    nodes = len(re.findall(r'^\s*"[^"]+" \[', dot, flags=re.M))
    edges = len(re.findall(r'^\s*"[^"]+" -> "[^"]+"', dot, flags=re.M))
    return nodes, edges


# ---- the graph model and the DOT text -------------------------------------------------------


def test_dot_of_a_small_module():
    viz = relax_viz.RelaxVisualizer(Small, plotter=relax_viz.DotPlotter(),
                                    parser=relax_viz.DotVizParser())
    # x, w, add, relu, multiply, main; x->add, w->add, add->relu, add->mul, relu->mul, mul->main
    assert (viz.node_count, viz.edge_count) == (6, 6)
    dot = viz.dot()
    assert dot.startswith("digraph relax {")
    assert dot_counts(dot) == (6, 6)
    nodes = {n.label: n for n in viz.graphs[0].nodes}
    assert nodes["x"].kind == "input" and nodes["w"].kind == "weight"
    assert nodes["nn.relu"].kind == "call_op" and nodes["nn.relu"].name == "b"
    assert nodes["main"].kind == "function"
    assert 'label="(2, 3) float32"' in dot  # the edges carry the struct info
    assert ('struct_info', 'R.Tensor((2, 3), dtype="float32")') in nodes["add"].info


def test_relax_param_marks_weights_and_functions_are_drawn_main_first():
    viz = relax_viz.RelaxVisualizer(article_module(), relax_param={"input1": np.zeros(1)})
    assert [g.name for g in viz.graphs] == ["main", "AddFunc"]
    main = {n.label: n for n in viz.graphs[0].nodes}
    assert main["input1"].kind == "weight" and main["input0"].kind == "input"
    assert main["@AddFunc"].kind == "global_var"
    calls = [n for n in viz.graphs[0].nodes if n.kind == "call_func"]
    assert len(calls) == 2 and {c.label for c in calls} == {"AddFunc"}
    # input0, input1, input2, @AddFunc, two calls, main
    assert len(viz.graphs[0].nodes) == 7
    assert [n.label for n in viz.graphs[1].nodes] == ["data", "bias", "add", "AddFunc"]


def test_get_node_attr_and_a_parser_that_drops_nodes():
    class NoWeights(relax_viz.DotVizParser):
        def get_node_edges(self, node, edges, relax_param):
            if node.kind == "weight":
                return None, []
            return node, edges

    plotter = relax_viz.DotPlotter(
        graph_attr={"bgcolor": "white"},
        get_node_attr=lambda n: {"color": "red"} if n.label == "nn.relu" else {})
    viz = relax_viz.RelaxVisualizer(Small, plotter=plotter, parser=NoWeights())
    assert viz.node_count == 5 and viz.edge_count == 5
    dot = viz.dot()
    assert dot_counts(dot) == (5, 5)
    assert 'bgcolor="white"' in dot
    relu_line = next(line for line in dot.splitlines() if 'label="nn.relu' in line)
    assert 'color="red"' in relu_line


def test_term_view_and_truncation(capsys):
    viz = relax_viz.RelaxVisualizer(Small)  # TermPlotter by default
    text = viz.render()
    assert capsys.readouterr().out == text
    lines = text.splitlines()
    assert lines[0] == "@main(x, w) -> (2, 3) float32  [6 nodes, 6 edges]"
    assert lines[1] == "`-- #1 multiply : (2, 3) float32"
    assert "(see above)" in text
    mod, params = relax.testing.resnet.get_workload(num_layers=18, image_shape=(3, 32, 32))
    big = relax_viz.RelaxVisualizer(mod, relax_param=params,
                                    plotter=relax_viz.TermPlotter(max_nodes=20),
                                    parser=relax_viz.TermVizParser())
    capsys.readouterr()
    out = big.render()
    assert capsys.readouterr().out == out
    left = big.node_count - 20
    assert f"... {left} more nodes not shown ({big.node_count} in all" in out
    assert len(out.splitlines()) < 40


def test_resnet18_counts():
    mod, params = relax.testing.resnet.get_workload(num_layers=18, image_shape=(3, 32, 32))
    viz = relax_viz.RelaxVisualizer(mod, relax_param=params, plotter=relax_viz.DotPlotter())
    kinds = {}
    for n in viz.graphs[0].nodes:
        kinds[n.kind] = kinds.get(n.kind, 0) + 1
    assert kinds["weight"] == len(params) and kinds["input"] == 1
    convs = [n for n in viz.graphs[0].nodes if n.label == "nn.conv2d"]
    assert len(convs) == 20  # 17 in the blocks and stem, 3 downsample shortcuts
    assert dot_counts(viz.dot()) == (viz.node_count, viz.edge_count)


# ---- files ----------------------------------------------------------------------------------


@needs_graphviz
def test_svg_png_pdf_dot_files(tmp_path):
    viz = relax_viz.RelaxVisualizer(Small, plotter=relax_viz.DotPlotter())
    svg = viz.render(str(tmp_path / "g.svg"))
    root = ET.parse(svg).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == ns + "svg"
    svg_nodes = [g for g in root.iter(ns + "g") if g.get("class") == "node"]
    assert len(svg_nodes) == viz.node_count
    assert {g.get("id") for g in svg_nodes} == {n.identity for n in viz.graphs[0].nodes}

    png = viz.render(str(tmp_path / "g.png"))
    with open(png, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    width, height = struct.unpack(">II", head[16:24])
    assert 50 < width < 5000 and 50 < height < 5000

    pdf = viz.render(str(tmp_path / "g"))  # relay_viz's render("1") wrote 1.pdf
    assert pdf.endswith("g.pdf")
    with open(pdf, "rb") as f:
        assert f.read(5) == b"%PDF-"
    if shutil.which("pdfinfo"):
        info = subprocess.run(["pdfinfo", pdf], capture_output=True, text=True, check=True)
        assert re.search(r"^Pages:\s+1$", info.stdout, flags=re.M), info.stdout

    dot = viz.render(str(tmp_path / "g.dot"))
    with open(dot, encoding="utf-8") as f:
        assert f.read() == viz.dot()


def test_text_file_from_the_term_plotter(tmp_path):
    viz = relax_viz.RelaxVisualizer(Small, plotter="term")
    text = viz.render(str(tmp_path / "g.txt"))
    assert (tmp_path / "g.txt").read_text() == text


# ---- the HTML page in a browser ---------------------------------------------------------------


def _chromium(*args):
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium-headless-shell)")
    cmd = [CHROMIUM, "--no-sandbox", "--headless", "--disable-gpu", "--hide-scrollbars",
           "--allow-file-access-from-files", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)


def _status(dom):
    start = dom.index('id="viz-status"')
    tag = dom[dom.rindex("<", 0, start):dom.index(">", start)]
    attrs = {}
    for part in tag.split()[1:]:
        if "=" in part:
            k, v = part.split("=", 1)
            attrs[k] = v.strip('"')
    return attrs


def _png_pixels(path):
    """(width, height, rows of RGBA/RGB bytes) of an 8-bit PNG, unfiltered."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if ctype == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8
            bpp = {2: 3, 6: 4, 0: 1, 4: 2}[color]
        elif ctype == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        ftype, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


@needs_graphviz
def test_html_page_in_headless_chromium(tmp_path):
    legal, fused = fused_pair()
    viz = relax_viz.RelaxVisualizer(fused, plotter=relax_viz.DotPlotter())
    page = viz.render(str(tmp_path / "g.html"))
    html = open(page, encoding="utf-8").read()
    assert "<svg" in html and 'id="viz-search"' in html
    assert "src=" not in html and "href=\"http" not in html  # no external resources

    call_tirs = [n for n in viz.graphs[0].nodes if n.kind == "call_tir"]
    matmul = next(n for n in call_tirs if n.label == "matmul")
    url = "file://" + page + "#search=call_tir&select=" + matmul.identity
    run = _chromium("--dump-dom", url)
    assert run.returncode == 0, run.stderr
    status = _status(run.stdout)
    assert status.get("data-ok") == "1", (status, run.stderr[-2000:])
    assert "data-error" not in status
    assert int(status["data-nodes"]) == viz.node_count == int(status["data-model-nodes"])
    assert int(status["data-hits"]) == len(call_tirs) == 4
    # The click on the matmul call_tir filled the panel and showed its PrimFunc's source.
    assert '<h2 id="viz-node-title">call_tir: matmul</h2>' in run.stdout
    assert "<td>struct_info</td><td>R.Tensor((4, 8), dtype=\"float32\")</td>" in run.stdout
    source = run.stdout[run.stdout.index('<pre id="viz-source"'):]
    assert source.startswith('<pre id="viz-source" style="display: block;">')
    assert "def matmul(" in source[:source.index("</pre>")]

    shot = tmp_path / "shot.png"
    run = _chromium("--screenshot=" + str(shot), "--window-size=900,700", "file://" + page)
    assert shot.exists(), run.stderr
    width, height, bpp, rows = _png_pixels(str(shot))
    assert (width, height) == (900, 700)
    pixels = np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(height, width, bpp)[..., :3]
    not_white = np.mean(np.any(pixels < 235, axis=-1))
    assert not_white > 0.02  # header, nodes and text: not a blank page
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 20


# ---- before/after a pass ---------------------------------------------------------------------


def test_diff_of_fuse_ops(tmp_path):
    legal, fused = fused_pair()
    d = relax_viz.diff(legal, fused, "main")
    assert d.title == "main: 0 nodes added, 0 removed, 1 fused kernels added"
    assert [g.name for g in d.graphs] == ["before: main", "after: main"]
    dot = d.dot()
    assert 'subgraph "cluster_after_c' in dot and "fused_matmul_add_relu" in dot
    after = d.graphs[1]
    assert sum(1 for n in after.nodes if n.cluster) == 3  # matmul, add, relu in the kernel

    d2 = relax_viz.diff(Dense, legal, "main")
    removed = [n.label for n in d2.graphs[0].nodes if n.status == "removed"]
    added = [n.label for n in d2.graphs[1].nodes if n.status == "added"]
    assert sorted(removed) == ["add", "matmul", "nn.relu", "nn.softmax"]
    assert len(added) == 4 and all(n for n in added)
    if relax_viz.has_graphviz():
        d.render(str(tmp_path / "diff.svg"))
        ns = "{http://www.w3.org/2000/svg}"
        root = ET.parse(str(tmp_path / "diff.svg")).getroot()
        boxes = [g for g in root.iter(ns + "g") if g.get("class") == "cluster"]
        texts = ["".join(t.itertext()) for g in boxes for t in g.iter(ns + "text")]
        assert "fused_matmul_add_relu" in texts  # the fused kernel is drawn as a box


# ---- the command line ------------------------------------------------------------------------


def _tool():
    path = os.path.join(os.environ["MINITVM_BUILD_DIR"], "bin", "minitvm")
    if not os.path.exists(path):
        pytest.skip("the minitvm program is not built")
    return path


SCRIPT = '''from tvm.script import ir as I, relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        y = R.nn.relu(x)
        return y
'''


def test_cli(tmp_path):
    tool = _tool()
    src = tmp_path / "m.py"
    src.write_text(SCRIPT)
    out = tmp_path / "m.dot"
    run = subprocess.run([tool, "viz", str(src), "-o", str(out), "--func", "main"],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert "wrote" in run.stdout and "3 nodes, 2 edges" in run.stdout
    assert out.read_text().startswith("digraph relax {")
    if relax_viz.has_graphviz():
        run = subprocess.run([tool, "viz", str(src), "-o", str(tmp_path / "m.svg")],
                             capture_output=True, text=True, check=False)
        assert run.returncode == 0, run.stderr
        ET.parse(str(tmp_path / "m.svg"))
    run = subprocess.run([tool, "viz", "--func", "main", str(src)], capture_output=True,
                         text=True, check=False)
    assert run.returncode == 0 and run.stdout.startswith("@main(x)"), run.stderr

    for args, message in [
        (["-o", str(tmp_path / "m.jpeg")], 'unknown output format ".jpeg"'),
        (["-o", str(tmp_path / "m.svg"), "--func=nope"], 'no function "nope"; it has: main'),
        (["-o", "/nonexistent-dir/m.dot"], 'cannot write "/nonexistent-dir/m.dot"'),
    ]:
        run = subprocess.run([tool, "viz", str(src), *args], capture_output=True, text=True,
                             check=False)
        assert run.returncode == 1 and message in run.stderr, (args, run.stderr)
    run = subprocess.run([tool, "viz"], capture_output=True, text=True, check=False)
    assert run.returncode == 2 and "usage: minitvm viz" in run.stderr


# ---- bad input -------------------------------------------------------------------------------


def test_errors(tmp_path):
    with pytest.raises(tvm.error.ValueError, match='the module has no function "nope"; it has: '
                       "main"):
        relax_viz.RelaxVisualizer(Small, functions="nope")
    with pytest.raises(tvm.error.ValueError, match='no function "nope"'):
        relax_viz.diff(Small, Small, "nope")
    with pytest.raises(tvm.error.ValueError, match="unknown plotter 'svg'"):
        relax_viz.RelaxVisualizer(Small, plotter="svg")
    with pytest.raises(tvm.error.ValueError, match="unknown plotter 42"):
        relax_viz.RelaxVisualizer(Small, plotter=42)
    with pytest.raises(tvm.error.ValueError, match="unknown parser"):
        relax_viz.RelaxVisualizer(Small, parser="dot")
    with pytest.raises(tvm.error.TypeError, match="expected an IRModule or a relax.Function"):
        relax_viz.RelaxVisualizer("main")
    viz = relax_viz.RelaxVisualizer(Small, plotter=relax_viz.DotPlotter())
    with pytest.raises(tvm.error.ValueError, match='cannot write "/nonexistent-dir/g.svg"'):
        viz.render("/nonexistent-dir/g.svg")
    with pytest.raises(tvm.error.ValueError, match=r'unknown output format "\.jpeg"'):
        viz.render(str(tmp_path / "g.jpeg"))
    term = relax_viz.RelaxVisualizer(Small, plotter=relax_viz.TermPlotter())
    with pytest.raises(tvm.error.ValueError, match='cannot write "/nonexistent-dir/g.txt"'):
        term.render("/nonexistent-dir/g.txt")
    with pytest.raises(tvm.error.ValueError, match="max_nodes must be at least 1"):
        relax_viz.TermPlotter(max_nodes=0)
    if not relax_viz.has_graphviz():
        with pytest.raises(tvm.error.RuntimeError, match="Graphviz"):
            viz.render(str(tmp_path / "g.svg"))

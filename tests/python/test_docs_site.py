"""The documentation site (docs/CMakeLists.txt, docs/tools/build_site.py).

- Every `<!-- include: path#marker -->` of every guide resolves, and docs/labs.md pastes no
  code (its samples all come from includes).
- Every lesson becomes a valid notebook (nbformat.validate), and every one of them is executed
  in a real Jupyter kernel (nbclient + ipykernel; skipped, with the reason, only when no kernel
  is installed — scripts/install_deps.sh installs one), ending with the lesson's `OK:` line.
- The built site (`ninja -C <build> docs`, found in $MINITVM_BUILD_DIR/docs/html; skipped when
  it is not built): every internal link of every HTML page resolves (parsed in Python), every
  guide page loads in headless Chromium (one browser, driven over --remote-debugging-pipe),
  and the front page's screenshot (--screenshot) is not blank.
"""
import glob
import html
import importlib.util
import json
import os
import re
import select
import shutil
import struct
import subprocess
import urllib.parse
import zlib

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHROMIUM = "/usr/bin/chromium-headless-shell"


def _build_site_module():
    spec = importlib.util.spec_from_file_location(
        "build_site", os.path.join(REPO, "docs", "tools", "build_site.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build_site = _build_site_module()


def site_dir():
    build = os.environ.get("MINITVM_BUILD_DIR") or os.path.join(REPO, "build")
    html_dir = os.path.join(build, "docs", "html")
    if not os.path.isfile(os.path.join(html_dir, "index.html")):
        pytest.skip(f"the site is not built in {html_dir}: run `ninja -C {build} docs`")
    return html_dir


# ---- includes ------------------------------------------------------------------------------


def test_every_include_resolves():
    total = 0
    for guide in sorted(glob.glob(os.path.join(REPO, "docs", "*.md"))):
        text, used = build_site.expand(REPO, guide)
        total += len(used)
        assert "<!-- include:" not in text, guide
    assert total >= 7
    assert build_site.main(["--repo", REPO, "--check"]) == 0


def test_labs_guide_pastes_no_code():
    with open(os.path.join(REPO, "docs", "labs.md"), encoding="utf-8") as f:
        text = f.read()
    assert "```" not in text and "~~~" not in text, "docs/labs.md: use <!-- include: -->"
    _, used = build_site.expand(REPO, os.path.join(REPO, "docs", "labs.md"))
    paths = [p for _, p in used]
    assert "tutorials/labs/02_tensorir/expected_starter.txt" in paths
    assert "tutorials/labs/02_tensorir/expected_solution.txt" in paths


def test_unresolved_include_names_guide_and_line(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "bad.md").write_text("# Bad\n\n<!-- include: tutorials/none.py#x -->\n")
    with pytest.raises(build_site.IncludeError, match=r"docs/bad.md:3: no file tutorials/none.py"):
        build_site.expand(str(tmp_path), str(docs / "bad.md"))
    (tmp_path / "a.py").write_text("x = 1\n# [m]\ny = 2\n")
    (docs / "open.md").write_text("<!-- include: a.py#m -->\n")
    with pytest.raises(build_site.IncludeError, match=r"has no closing '# \[/m\]'"):
        build_site.expand(str(tmp_path), str(docs / "open.md"))


def test_marker_region_is_dedented_without_markers(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "a.py").write_text("def f():\n    # [body]\n    return 1\n    # [/body]\n")
    (tmp_path / "docs" / "g.md").write_text("Text\n<!-- include: a.py#body -->\n")
    text, used = build_site.expand(str(tmp_path), str(tmp_path / "docs" / "g.md"))
    assert text == "Text\n```{.py}\nreturn 1\n```\n"
    assert used == [(2, "a.py#body")]


# ---- notebooks -----------------------------------------------------------------------------


def test_lessons_become_valid_notebooks(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    made = build_site.write_notebooks(REPO, str(tmp_path))
    lessons = glob.glob(os.path.join(REPO, "tutorials", "[0-9][0-9]_*", "lesson*.py"))
    assert len(made) == len(lessons) >= 8
    for rel, name, _ in made:
        nb = nbformat.read(str(tmp_path / name), as_version=4)
        nbformat.validate(nb)
        kinds = {c.cell_type for c in nb.cells}
        assert kinds == {"markdown", "code"}, name
        # Every line of code of the lesson is in a code cell, in order.
        with open(os.path.join(REPO, rel), encoding="utf-8") as f:
            code_lines = [ln for ln in f.read().splitlines()
                          if ln.strip() and not ln.lstrip().startswith("#")]
        cells = "\n".join(c.source for c in nb.cells if c.cell_type == "code").splitlines()
        it = iter(cells)
        assert all(any(line == c for c in it) for line in code_lines), name


def _lesson_notebook_names():
    names = []
    for path in sorted(glob.glob(os.path.join(REPO, "tutorials", "[0-9][0-9]_*", "lesson*.py"))):
        folder = os.path.basename(os.path.dirname(path))
        stem = os.path.splitext(os.path.basename(path))[0]
        names.append(folder + ("" if stem == "lesson" else stem[len("lesson"):]) + ".ipynb")
    return names


def _require_kernel():
    try:
        import nbclient  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
        from jupyter_client.kernelspec import KernelSpecManager  # pylint: disable=C0415
    except ImportError:
        pytest.skip("no Jupyter kernel machinery installed (Debian: python3-nbclient, "
                    "python3-ipykernel; scripts/install_deps.sh installs them)")
    if "python3" not in KernelSpecManager().find_kernel_specs():
        pytest.skip("no python3 Jupyter kernel installed")


@pytest.fixture(scope="module")
def lesson_notebooks(tmp_path_factory):
    pytest.importorskip("nbformat")
    out = tmp_path_factory.mktemp("notebooks")
    build_site.write_notebooks(REPO, str(out))
    return out


def _stream_text(nb):
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                   for o in c.get("outputs", []) if o.get("output_type") == "stream")


@pytest.mark.parametrize("name", _lesson_notebook_names())
def test_lesson_notebook_executes(lesson_notebooks, name):
    """Each lesson, as the docs site writes it, runs in a real Jupyter kernel (course labs run
    lessons as notebooks: a TVMScript class typed into a cell must parse there too) and ends
    with the lesson's own `OK:` line."""
    _require_kernel()
    import nbformat  # pylint: disable=import-outside-toplevel
    from nbclient import NotebookClient  # pylint: disable=import-outside-toplevel

    nb = nbformat.read(str(lesson_notebooks / name), as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(lesson_notebooks)}}).execute()
    assert "OK:" in _stream_text(nb), name


# ---- the built site ------------------------------------------------------------------------


# href= and src= attributes (Doxygen writes them double-quoted); a regular expression reads
# the ~1200 pages several times faster than html.parser.
_LINK_ATTR = re.compile(r'\s(?:href|src)="([^"]*)"')


def _internal_target(page, link):
    parsed = urllib.parse.urlparse(link)
    if parsed.scheme or link.startswith(("//", "#", "javascript:", "mailto:")):
        return None
    path = urllib.parse.unquote(parsed.path)
    if not path:
        return None
    return os.path.normpath(os.path.join(os.path.dirname(page), path))


# Links that come from doc comments in headers, not from the guides: fix them at the source
# (escape the brackets, e.g. `func_table\\[func_idx\\](args...)`), then drop them here.
KNOWN_BROKEN = {("executable_8h.html", "args...")}


def test_every_internal_link_resolves():
    html_dir = site_dir()
    pages = glob.glob(os.path.join(html_dir, "*.html"))
    assert len(pages) > 50
    broken = []
    for page in pages:
        with open(page, encoding="utf-8", errors="replace") as f:
            links = set(_LINK_ATTR.findall(f.read()))
        for link in links:
            link = html.unescape(link)
            target = _internal_target(page, link)
            if target is not None and not os.path.exists(target) and \
                    (os.path.basename(page), link) not in KNOWN_BROKEN:
                broken.append(f"{os.path.basename(page)} -> {link}")
    assert not broken, f"{len(broken)} broken links, e.g. " + ", ".join(broken[:10])


def _guide_pages(html_dir):
    return [os.path.join(html_dir, "index.html")] + sorted(
        glob.glob(os.path.join(html_dir, "md_*.html")))


def test_guides_link_labs_notebooks_and_api():
    html_dir = site_dir()
    with open(os.path.join(html_dir, "index.html"), encoding="utf-8") as f:
        front = f.read()
    assert "md_labs.html" in front and "md_notebooks.html" in front
    with open(os.path.join(html_dir, "md_notebooks.html"), encoding="utf-8") as f:
        notebooks = f.read()
    assert notebooks.count(".ipynb\"") >= 8
    with open(os.path.join(html_dir, "md_labs.html"), encoding="utf-8") as f:
        labs = f.read()
    assert "score: 9/9 cases passed" in labs and "conv2d has no T.block" in labs


@pytest.fixture(scope="module")
def chromium():
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is not installed (Debian: chromium-headless-shell)")
    return CHROMIUM


def _chromium(binary, *args, timeout=60):
    return subprocess.run([binary, "--no-sandbox", "--headless", "--disable-gpu",
                           "--hide-scrollbars", *args], capture_output=True, text=True,
                          timeout=timeout, check=False)


class _Browser:
    """One headless Chromium driven through the DevTools protocol on a pipe
    (``--remote-debugging-pipe``: JSON messages ending in NUL, read from fd 3, written to
    fd 4), so that every page loads in the same browser instead of one start per page."""

    def __init__(self, binary):
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        for fd in (to_chrome_r, from_chrome_w):
            os.set_inheritable(fd, True)

        def child():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        # pylint: disable-next=consider-using-with,subprocess-popen-preexec-fn
        self.proc = subprocess.Popen(
            [binary, "--no-sandbox", "--headless", "--disable-gpu", "--remote-debugging-pipe",
             "about:blank"], close_fds=False, preexec_fn=child,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._id = 0
        self._buf = b""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable", session=self.session)

    def _recv(self, timeout=60):
        while b"\0" not in self._buf:
            ready, _, _ = select.select([self._from_chrome], [], [], timeout)
            chunk = os.read(self._from_chrome, 1 << 16) if ready else b""
            if not chunk:
                raise TimeoutError("Chromium stopped answering")
            self._buf += chunk
        message, _, self._buf = self._buf.partition(b"\0")
        return json.loads(message)

    def call(self, method, params=None, session=None, wait_event=None):
        self._id += 1
        message = {"id": self._id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        result, seen = None, wait_event is None
        while result is None or not seen:
            reply = self._recv()
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result = reply["result"]
            elif reply.get("method") == wait_event and reply.get("sessionId") == session:
                seen = True
        return result

    def dom(self, url):
        """The DOM of ``url`` once its load event has fired."""
        self.call("Page.navigate", {"url": url}, session=self.session,
                  wait_event="Page.loadEventFired")
        return self.call("Runtime.evaluate", {"expression": "document.documentElement.outerHTML",
                                              "returnByValue": True},
                         session=self.session)["result"]["value"]

    def close(self):
        try:
            self.call("Browser.close")
        except (TimeoutError, RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_chrome)
        os.close(self._from_chrome)


def test_every_guide_page_loads(chromium):
    html_dir = site_dir()
    browser = _Browser(chromium)
    failures = []
    try:
        for page in _guide_pages(html_dir):
            dom = browser.dom("file://" + page)
            if 'class="contents"' not in dom or not re.search(r"<title>[^<]*minitvm", dom):
                failures.append(os.path.basename(page))
    finally:
        browser.close()
    assert not failures, f"pages that did not load: {failures}"


def _png_pixels_vary(path):
    """True when the PNG at ``path`` is not one flat colour: its decompressed scanlines hold
    many different byte values (a blank page filters to a handful)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    raw = zlib.decompress(idat)
    return len(set(raw)) > 32 and sum(1 for b in raw[::97] if b) > len(raw[::97]) // 100


def test_front_page_screenshot_is_not_blank(chromium, tmp_path):
    html_dir = site_dir()
    shot = tmp_path / "front.png"
    run = _chromium(chromium, f"--screenshot={shot}", "--window-size=1200,900",
                    "file://" + os.path.join(html_dir, "index.html"), timeout=120)
    assert shot.exists(), run.stderr[-2000:]
    assert _png_pixels_vary(str(shot))
    blank = tmp_path / "blank.png"
    _chromium(chromium, f"--screenshot={blank}", "--window-size=1200,900", "about:blank")
    if blank.exists():
        assert not _png_pixels_vary(str(blank)), "the blank check does not tell blank pages"
    shutil.copy(shot, tmp_path / "kept.png")

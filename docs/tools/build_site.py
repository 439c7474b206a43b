#!/usr/bin/env python3
"""Prepare the documentation site (run by `ninja -C build docs` before Doxygen).

1. Copies every guide ``docs/*.md`` to ``<out>/md/`` with its include directives resolved, so
   that no code sample or printed output in a guide is pasted by hand:

       <!-- include: tutorials/06_relax/lesson.py#call_tir -->
       <!-- include: tutorials/labs/02_tensorir/expected_starter.txt -->

   A path is relative to the repository root; ``#marker`` selects the lines between the
   comment lines ``# [marker]`` and ``# [/marker]`` (the marker lines themselves and the
   region's common indentation are dropped); without it the whole file is included. The
   block is fenced as Python for ``.py`` files, as text otherwise (``lang=...`` overrides:
   ``<!-- include: path#m lang=text -->``). A directive that does not resolve stops the build
   with the guide, line and reason.
2. Writes every lesson ``tutorials/NN_*/lesson*.py`` as a Jupyter notebook (nbformat v4) to
   ``<out>/html/notebooks/`` — comment paragraphs become Markdown cells, the code between
   them code cells — and a guide page ``notebooks.md`` that links them.

Usage: build_site.py --repo REPO --out OUT            (prepare)
       build_site.py --repo REPO --check              (only check that every include resolves)
"""
import argparse
import glob
import os
import re
import shutil
import sys
import textwrap

LINK = re.compile(r"\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)\)")

INCLUDE = re.compile(r"^\s*<!--\s*include:\s*(?P<path>[^#\s]+)(?:#(?P<marker>[\w.-]+))?"
                     r"(?:\s+lang=(?P<lang>\w+))?\s*-->\s*$")


class IncludeError(Exception):
    """A directive that does not resolve: the message names the guide, the line, the cause."""


def marker_region(text, marker, where):
    """The lines between ``# [marker]`` and ``# [/marker]``, dedented."""
    lines = text.splitlines()
    start = end = None
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped == f"# [{marker}]" and start is None:
            start = i
        elif stripped == f"# [/{marker}]" and start is not None:
            end = i
            break
    if start is None:
        raise IncludeError(f"{where}: no line '# [{marker}]'")
    if end is None:
        raise IncludeError(f"{where}: '# [{marker}]' has no closing '# [/{marker}]'")
    body = [ln for ln in lines[start + 1:end]
            if not re.match(r"^\s*# \[/?[\w.-]+\]\s*$", ln)]
    return textwrap.dedent("\n".join(body)).strip("\n")


def resolve(repo, path, marker, where):
    """The text a directive includes."""
    full = os.path.normpath(os.path.join(repo, path))
    if not os.path.isfile(full):
        raise IncludeError(f"{where}: no file {path}")
    with open(full, encoding="utf-8") as f:
        text = f.read()
    if marker:
        return marker_region(text, marker, f"{where}: {path}")
    return text.strip("\n")


def site_link(match, copies):
    """A Markdown link as the site needs it. Doxygen resolves ``guide.md`` but not GitHub's
    heading anchors (``guide.md#a-title``): the anchor is dropped. A link into the repository
    outside docs/ (``../tutorials/x``) has no page on the site: its text stays, unlinked. A
    file of docs/ that is not a guide (``ffi_call.dot``) is copied next to the pages."""
    text, target = match.group("text"), match.group("target")
    if re.match(r"^[a-z]+:", target) or target.startswith("#"):
        return match.group(0)
    path, _, _ = target.partition("#")
    if path.endswith(".md") and "/" not in path:
        return f"[{text}]({path})"
    if path.startswith("../"):
        return text
    copies.add(path)
    return match.group(0)


def expand(repo, md_path, copies=None):
    """The guide's text with its directives replaced by fenced blocks and its links made to
    work on the site; list of (line, path) of the includes. ``copies`` (a set) collects the
    files of docs/ the guide links to."""
    out = []
    used = []
    copies = set() if copies is None else copies
    name = os.path.relpath(md_path, repo)
    with open(md_path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    fenced = False
    for number, line in enumerate(lines, 1):
        m = INCLUDE.match(line)
        if not m:
            if line.lstrip().startswith(("```", "~~~")):
                fenced = not fenced
            out.append(line if fenced else LINK.sub(lambda mm: site_link(mm, copies), line))
            continue
        path, marker = m.group("path"), m.group("marker")
        lang = m.group("lang") or ("python" if path.endswith(".py") else "text")
        body = resolve(repo, path, marker, f"{name}:{number}")
        fence = "```" if "```" not in body else "~~~~"
        out += [f"{fence}{'{.py}' if lang == 'python' else ''}", body, fence]
        used.append((number, path + (f"#{marker}" if marker else "")))
    return "\n".join(out) + "\n", used


def lesson_cells(source):
    """Split a lesson into (kind, text) cells: paragraphs of top-level comments that stand
    alone (a blank line or the file start before them) are Markdown, the rest code."""
    cells = []
    code, prose = [], []

    def flush_code():
        text = "\n".join(code).strip("\n")
        if text.strip():
            cells.append(("code", text))
        code.clear()

    def flush_prose():
        text = "\n".join(prose).strip("\n")
        if text.strip():
            cells.append(("markdown", text))
        prose.clear()

    previous_blank = True
    in_prose = False
    for line in source.splitlines():
        is_comment = line.startswith("#") and not line.startswith("#!")
        if is_comment and (in_prose or previous_blank):
            if not in_prose:
                flush_code()
                in_prose = True
            text = line[1:]
            text = text[1:] if text.startswith(" ") else text
            rule = re.fullmatch(r"\s*([-=])[-=]{4,}\s*", text)
            if rule:
                # A rule under a title makes it a heading: === the lesson's, --- a section's.
                if prose and prose[-1].strip() and not prose[-1].startswith("#"):
                    prose[-1] = ("# " if rule.group(1) == "=" else "## ") + prose[-1].strip()
                continue
            elif re.fullmatch(r"\s*\[/?[\w.-]+\]\s*", text):
                continue  # include markers
            prose.append(text)
        else:
            if in_prose:
                flush_prose()
                in_prose = False
            if not re.fullmatch(r"\s*# \[/?[\w.-]+\]\s*", line):
                code.append(line)
        previous_blank = not line.strip()
    flush_prose()
    flush_code()
    return cells


def write_notebooks(repo, out_dir):
    """One notebook per lesson file; returns [(lesson path, notebook file name, title)]."""
    import nbformat  # pylint: disable=import-outside-toplevel

    os.makedirs(out_dir, exist_ok=True)
    made = []
    for path in sorted(glob.glob(os.path.join(repo, "tutorials", "[0-9][0-9]_*", "lesson*.py"))):
        rel = os.path.relpath(path, repo)
        folder = os.path.basename(os.path.dirname(path))
        stem = os.path.splitext(os.path.basename(path))[0]
        name = folder + ("" if stem == "lesson" else stem[len("lesson"):]) + ".ipynb"
        with open(path, encoding="utf-8") as f:
            source = f.read()
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nb.metadata["language_info"] = {"name": "python"}
        nb.metadata["minitvm"] = {"source": rel}
        for kind, text in lesson_cells(source):
            nb.cells.append(nbformat.v4.new_markdown_cell(text) if kind == "markdown"
                            else nbformat.v4.new_code_cell(text))
        nbformat.validate(nb)
        nbformat.write(nb, os.path.join(out_dir, name))
        title = next((ln.lstrip("# ").strip() for ln in source.splitlines()
                      if ln.startswith("# ") and ln.strip("# =-")), folder)
        made.append((rel, name, title))
    return made


def notebooks_page(made):
    """The guide page that lists the notebooks."""
    lines = ["# Lessons as notebooks", "",
             "Every lesson of `tutorials/` is also a Jupyter notebook, written when the site is "
             "built (`ninja -C build docs`): the lesson's comment paragraphs become Markdown "
             "cells and its code the code cells. Open one with `jupyter notebook` or any "
             "notebook viewer, with `minitvm` importable (see [Building and testing]"
             "(building.md)).", "",
             "| lesson | notebook |", "|---|---|"]
    for rel, name, title in made:
        lines.append(f"| {title} (`{rel}`) | <a href=\"notebooks/{name}\">{name}</a> |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", required=True)
    parser.add_argument("--out")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    repo = os.path.abspath(args.repo)
    guides = sorted(glob.glob(os.path.join(repo, "docs", "*.md")))
    copies = set()
    try:
        expanded = {g: expand(repo, g, copies) for g in guides}
    except IncludeError as err:
        print(f"docs: {err}", file=sys.stderr)
        return 1
    count = sum(len(used) for _, used in expanded.values())
    if args.check:
        print(f"docs: {count} includes in {len(guides)} guides resolve")
        return 0
    md_dir = os.path.join(args.out, "md")
    os.makedirs(md_dir, exist_ok=True)
    for stale in glob.glob(os.path.join(md_dir, "*.md")):
        os.remove(stale)
    for guide, (text, _) in expanded.items():
        with open(os.path.join(md_dir, os.path.basename(guide)), "w", encoding="utf-8") as f:
            f.write(text)
    try:
        made = write_notebooks(repo, os.path.join(args.out, "html", "notebooks"))
    except ImportError:
        print("docs: nbformat is not installed (Debian: python3-nbformat): no notebooks",
              file=sys.stderr)
        made = []
    for rel in sorted(copies):
        source = os.path.join(repo, "docs", rel)
        if os.path.isfile(source):
            target = os.path.join(args.out, "html", rel)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(source, target)
    with open(os.path.join(md_dir, "notebooks.md"), "w", encoding="utf-8") as f:
        f.write(notebooks_page(made))
    print(f"docs: {len(guides)} guides ({count} includes resolved), {len(made)} notebooks")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Where a stub's name is defined in lib/: the resolver tests/test_docstrings.py uses.

The library's documentation lives in lib/*.py as docstrings (help(), editors); the .pyi
stubs carry the types, and a docstring only for what lib/ does not define (issue 23).
tests/test_docstrings.py checks that with _find/_method below: `TicketQueue.remove`, named
in ticketq.pyi, is QueueBase.remove in ticketq_base.py (followed through the class's bases
and through `from MODULE import NAME`).

    python3 tools/stubdocs.py OUTDIR      # copies of lib/*.py with any docstring that only
                                          # a stub has inserted (today: none to insert)
"""
import ast
import os
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/, this package's parent
LIB = os.path.join(os.path.dirname(HERE), "lib")


def stub_docs(text):
    """{qualified name: docstring} of a stub: "" (the module), "C", "C.m", "f"."""
    tree = ast.parse(text)
    out = {}
    if ast.get_docstring(tree):
        out[""] = ast.get_docstring(tree)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and ast.get_docstring(node):
            out[node.name] = ast.get_docstring(node)
        if isinstance(node, ast.ClassDef):
            for sub in node.body:
                if isinstance(sub, ast.FunctionDef) and ast.get_docstring(sub):
                    out.setdefault(node.name + "." + sub.name, ast.get_docstring(sub))
    return out


class _Source:
    def __init__(self, name, text):
        self.name, self.text = name, text
        self.tree = ast.parse(text)
        self.defs = {n.name: n for n in self.tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        self.imported = {}  # name -> module it is imported from
        for n in self.tree.body:
            if isinstance(n, ast.ImportFrom) and n.module and not n.level:
                for a in n.names:
                    self.imported[a.asname or a.name] = (n.module, a.name)


def _find(sources, module, name, seen=()):
    """(source, node) where `name` is defined, as seen from `module`, or None."""
    src = sources.get(module)
    if src is None or (module, name) in seen:
        return None
    if name in src.defs:
        return src, src.defs[name]
    if name in src.imported:
        mod, real = src.imported[name]
        return _find(sources, mod, real, seen + ((module, name),))
    return None


def _method(sources, src, cls, name, depth=0):
    """(source, node) of method `name` of class node `cls` in `src`, or of its bases."""
    for n in cls.body:
        if isinstance(n, ast.FunctionDef) and n.name == name:
            return src, n
    for base in cls.bases:
        if depth < 8 and isinstance(base, ast.Name):
            found = _find(sources, src.name, base.id)
            if found and isinstance(found[1], ast.ClassDef):
                hit = _method(sources, found[0], found[1], name, depth + 1)
                if hit:
                    return hit
    return None


def _literal(doc, indent):
    body = doc.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = body.split("\n")
    return [indent + '"""' + lines[0]] + [(indent + l if l else "") for l in lines[1:]] + [indent + '"""']


def merge(sources, stubs):
    """{module: source text} with the docstrings of `stubs` ({module: stub text}) inserted."""
    srcs = {m: _Source(m, t) for m, t in sources.items()}
    inserts = {m: {} for m in srcs}  # module -> {line index: (indent, doc)}
    done = set()
    for module in sorted(stubs):
        for qual, doc in stub_docs(stubs[module]).items():
            if qual == "":
                src = srcs.get(module)
                if src is None or ast.get_docstring(src.tree) is not None or not src.tree.body:
                    continue
                where = (src, None)
            else:
                head, _, meth = qual.partition(".")
                found = _find(srcs, module, head)
                if found and meth:
                    found = _method(srcs, found[0], found[1], meth) if isinstance(found[1], ast.ClassDef) else None
                if not found or ast.get_docstring(found[1]) is not None:
                    continue
                where = found
            src, node = where
            first = (node.body if node is not None else src.tree.body)[0]
            if node is not None and first.lineno == node.body[0].lineno and first.lineno <= node.lineno:
                continue  # a one-line definition: nowhere to put it
            key = (src.name, first.lineno)
            if key in done:
                continue
            done.add(key)
            indent = " " * first.col_offset
            inserts[src.name][first.lineno - 1] = (indent, doc)
    out = {}
    for m, src in srcs.items():
        lines = src.text.split("\n")
        for i in sorted(inserts[m], reverse=True):
            indent, doc = inserts[m][i]
            lines[i:i] = _literal(doc, indent)
        out[m] = "\n".join(lines)
    return out


def merged_lib(lib=LIB):
    """{path under lib/: text}: every module of lib/ (the package's, "ticketq/core.py", and the
    flat shims) with the docstrings of its .pyi inserted; modules keyed by import name
    ("ticketq.core"), so that `from ticketq.core import X` resolves."""
    sources, stubs, paths = {}, {}, {}
    for d, dirs, files in os.walk(lib):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for f in sorted(files):
            rel = os.path.relpath(os.path.join(d, f), lib).replace(os.sep, "/")
            stem, ext = os.path.splitext(rel)
            name = stem.replace("/", ".")
            name = name[:-len(".__init__")] if name.endswith(".__init__") else name
            with open(os.path.join(d, f), encoding="utf-8") as fh:
                if ext == ".py":
                    sources[name] = fh.read()
                    paths[name] = rel
                elif ext == ".pyi":
                    stubs[name] = fh.read()
    return {paths[m]: t for m, t in merge(sources, stubs).items()}


def main(argv=None):
    import argparse

    p = argparse.ArgumentParser(prog="tools/stubdocs.py",
                                description="Write copies of lib/*.py with the stubs' docstrings inserted "
                                            "(the pip package's modules) into OUTDIR.")
    p.add_argument("outdir", metavar="OUTDIR")
    out = p.parse_args(argv).outdir
    os.makedirs(out, exist_ok=True)
    for name, text in merged_lib().items():
        os.makedirs(os.path.dirname(os.path.join(out, name)), exist_ok=True)
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

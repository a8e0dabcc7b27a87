#!/usr/bin/env python3
"""The .pyi stubs checked against lib/'s sources: the check tests/test_docstrings.py makes,
and `ticketq stubdocs` runs by hand.

The library's documentation lives in the sources as docstrings (help(), editors); the .pyi
stubs beside them carry the types (issue 23: "generated or checked against them, not a second
copy"). A module is named as Python imports it: lib/ticketq/core.py is ``ticketq.core``,
lib/ticketq/__init__.py is ``ticketq``.
A stub's name is resolved to its definition in lib/ (`_find`, `_method`): through the class's
bases and through ``from MODULE import NAME``, so ``TicketQueue.remove`` of
ticketq/__init__.pyi is ``QueueBase.remove`` of ticketq/core.py. `check` lists what drifted:

* a docstring in a stub for a definition the source documents too (a second copy);
* a public function or class of a stub that the source does not define (nor import, nor
  bind in a try/if: the platform's ``ticks_ms``), or that has no docstring in the source;
* a function of a stub whose parameters (names, order, kind) differ from the source's;
* a public function or class of a source with no docstring.

    ticketq stubdocs          # prints what drifted, one line each; exit 1 if any
    ticketq stubdocs OUTDIR   # copies of lib/'s modules with any docstring only a
                                       # stub has inserted (none while the check passes)
"""
import ast
import os
import sys

# A function definition, ``def`` or ``async def`` (ticketq.aio.AsyncTickets.pop_until).
_FUNC = (ast.FunctionDef, ast.AsyncFunctionDef)
_DEF = _FUNC + (ast.ClassDef,)

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/, this package's parent
LIB = os.path.join(os.path.dirname(HERE), "lib")


def stub_docs(text):
    """{qualified name: docstring} of a stub: "" (the module), "C", "C.m", "f"."""
    tree = ast.parse(text)
    out = {}
    if ast.get_docstring(tree):
        out[""] = ast.get_docstring(tree)
    for node in tree.body:
        if isinstance(node, _DEF) and ast.get_docstring(node):
            out[node.name] = ast.get_docstring(node)
        if isinstance(node, ast.ClassDef):
            for sub in node.body:
                if isinstance(sub, _FUNC) and ast.get_docstring(sub):
                    out.setdefault(node.name + "." + sub.name, ast.get_docstring(sub))
    return out


class _Source:
    def __init__(self, name, text):
        self.name, self.text = name, text
        self.tree = ast.parse(text)
        self.defs = {n.name: n for n in self.tree.body if isinstance(n, _DEF)}
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
        if isinstance(n, _FUNC) and n.name == name:
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
    """{path under lib/: text}: every module of lib/ (the package's, "ticketq/core.py")
    with the docstrings of its .pyi inserted; modules keyed by import name
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


def load(lib=LIB):
    """({module: _Source}, {module: stub ast}) of every .py and .pyi under `lib`, named as
    Python imports them (``ticketq.core``, ``ticketq``)."""
    sources, stubs = {}, {}
    for folder, dirs, files in os.walk(lib):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
        rel = os.path.relpath(folder, lib)
        pkg = [] if rel == "." else rel.split(os.sep)
        for f in sorted(files):
            stem, ext = os.path.splitext(f)
            if ext not in (".py", ".pyi"):
                continue
            name = ".".join(pkg + ([] if stem == "__init__" else [stem]))
            with open(os.path.join(folder, f), encoding="utf-8") as fh:
                text = fh.read()
            if ext == ".py":
                sources[name] = _Source(name, text)
            else:
                stubs[name] = ast.parse(text)
    return sources, stubs


def public_defs(body):
    """(qualified name, node) of the public functions and classes of a module body, and of
    the public methods (and ``__init__``) of those classes."""
    for node in body:
        if isinstance(node, _DEF) and not node.name.startswith("_"):
            yield node.name, node
            if isinstance(node, ast.ClassDef):
                for sub in node.body:
                    if isinstance(sub, _FUNC) and (not sub.name.startswith("_") or sub.name == "__init__"):
                        yield node.name + "." + sub.name, sub


def resolve(sources, module, qual):
    """(source, node) that defines `qual` ("f", "C", "C.m") as seen from `module`, or None."""
    head, _, meth = qual.partition(".")
    found = _find(sources, module, head)
    if found and meth:
        found = _method(sources, found[0], found[1], meth) if isinstance(found[1], ast.ClassDef) else None
    return found


def _bound(tree):
    """Every name a module binds at its top level, in try/if/for blocks too."""
    names = set()
    todo = list(tree.body)
    while todo:
        n = todo.pop()
        if isinstance(n, _DEF):
            names.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in n.names}
        elif isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                names |= {x.id for x in ast.walk(t) if isinstance(x, ast.Name)}
        else:
            for field in ("body", "orelse", "finalbody", "handlers"):
                todo += getattr(n, field, [])
    return names


def _params(fn):
    a = fn.args
    pos = [x.arg for x in getattr(a, "posonlyargs", []) + a.args]
    return (pos, a.vararg and a.vararg.arg, [x.arg for x in a.kwonlyargs], a.kwarg and a.kwarg.arg,
            len(a.defaults), len(a.kw_defaults))


def _is_protocol(node):
    return isinstance(node, ast.ClassDef) and any(getattr(b, "id", "") == "Protocol" for b in node.bases)


def inherits_doc(sources, src, qual):
    """True when a class, or a method, of `src` overrides one of a base class (in lib/)
    that has a docstring: inspect.getdoc, and so help(), show that one."""
    cls_name, _, meth = qual.partition(".")
    cls = src.defs.get(cls_name)
    if not isinstance(cls, ast.ClassDef):
        return False
    for base in cls.bases:
        found = _find(sources, src.name, base.id) if isinstance(base, ast.Name) else None
        if not found or not isinstance(found[1], ast.ClassDef):
            continue
        if not meth:
            if ast.get_docstring(found[1]) is not None:
                return True
            continue
        hit = _method(sources, found[0], found[1], meth)
        if hit and ast.get_docstring(hit[1]) is not None:
            return True
    return False


def check(lib=LIB):
    """(problems, counts): one line per drift found (the list in this module's docstring),
    and {"stubs": modules with a stub, "checked": stub definitions resolved to the source,
    "signatures": functions whose parameters were compared, "documented": public source
    definitions with their docstring}."""
    sources, stubs = load(lib)
    problems, counts = [], {"stubs": len(stubs), "checked": 0, "signatures": 0, "documented": 0}
    for module, tree in sorted(stubs.items()):
        src = sources.get(module)
        if src is None:
            problems.append("%s.pyi: no %s source" % (module, module))
            continue
        if ast.get_docstring(tree) and ast.get_docstring(src.tree):
            problems.append("%s: module docstring in the stub and in the source (keep the source's)" % module)
        bound = _bound(src.tree)
        tops = {n.name: n for n in tree.body if isinstance(n, _DEF)}
        for qual, node in public_defs(tree.body):
            head = qual.partition(".")[0]
            if _is_protocol(tops[head]):
                continue  # a typing Protocol: a shape the stub names, nothing the source defines
            found = resolve(sources, module, qual)
            if found is None:
                if "." not in qual and qual in bound:
                    continue  # bound outside lib/'s definitions: utime's ticks_ms, a try/if branch
                if "." in qual and isinstance(_find(sources, module, head), tuple):
                    problems.append("%s.%s: in the stub, not defined by the source's class" % (module, qual))
                elif head not in bound:
                    problems.append("%s.%s: in the stub, not in the source" % (module, qual))
                continue
            counts["checked"] += 1
            in_source = ast.get_docstring(found[1]) is not None
            if ast.get_docstring(node) and in_source:
                problems.append("%s.%s: documented in the stub and in the source (keep the source's)" % (module, qual))
            if not in_source and not qual.endswith(".__init__"):
                problems.append("%s.%s: in the stub, no docstring in the source (%s)" % (module, qual, found[0].name))
            if isinstance(node, _FUNC) and isinstance(found[1], _FUNC):
                counts["signatures"] += 1
                if _params(node) != _params(found[1]):
                    problems.append("%s.%s: the stub's parameters %s are not the source's %s (%s)" % (
                        module, qual, _params(node)[:4], _params(found[1])[:4], found[0].name))
    for module, src in sorted(sources.items()):
        if module in stubs and ast.get_docstring(src.tree) is None:
            problems.append("%s: no module docstring" % module)
        for qual, node in public_defs(src.tree.body):
            if qual.endswith(".__init__"):
                continue
            if ast.get_docstring(node) is not None or inherits_doc(sources, src, qual):
                counts["documented"] += 1  # pydoc (inspect.getdoc) shows a base's docstring too
                continue
            problems.append("%s.%s: public, without a docstring in the source" % (module, qual))
    return problems, counts


def main(argv=None):
    import argparse

    p = argparse.ArgumentParser(prog="ticketq stubdocs",
                                description="Check lib/'s .pyi stubs against its sources (the stubs carry "
                                            "types, the sources the docstrings): prints each drift, exit 1 "
                                            "if there is any. With OUTDIR: write there copies of lib/'s "
                                            "modules (package paths kept) with any docstring only a stub "
                                            "has inserted (none, while the check passes).")
    p.add_argument("outdir", metavar="OUTDIR", nargs="?", help="write the merged copies here instead of checking")
    p.add_argument("--lib", default=LIB, help="the library folder (default: lib/ of this checkout)")
    a = p.parse_args(argv)
    if a.outdir:
        for name, text in merged_lib(a.lib).items():
            os.makedirs(os.path.dirname(os.path.join(a.outdir, name)), exist_ok=True)
            with open(os.path.join(a.outdir, name), "w", encoding="utf-8") as f:
                f.write(text)
        return 0
    problems, counts = check(a.lib)
    for line in problems:
        print(line)
    print("%(stubs)d stubs, %(checked)d stub definitions found in the source, %(signatures)d signatures "
          "compared, %(documented)d public definitions documented" % counts
          + (": %d problems" % len(problems) if problems else ": no drift"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

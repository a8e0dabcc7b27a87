# The library's documentation lives once, in the source (issue 23): every public module,
# class and function of lib/*.py carries its docstring where help() and an editor find it,
# and the .pyi stubs carry the types only. This test is what keeps it so: a stub that
# documents a definition the source documents too is a second copy to keep in step (it
# fails), a public definition of a stub without a docstring in the source is undocumented
# (it fails), and so is a public definition of the source without one. A stub keeps a
# docstring only for what the source does not define (the platform's tick functions that
# ticketq_ticks re-exports, a Protocol): tools/stubdocs.py resolves a stub's name to its
# definition (through the class's bases and `from MODULE import NAME`). Boards never see
# the docstrings: mpy-cross and freezing drop them, tools/deploy.py strips them from the
# source it puts on a board that compiles it (test_deploy_*). CPython only.
from support import skip, IS_MICROPYTHON


def _lib():
    import ast
    import os
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tools = os.path.join(root, "tools")
    if tools not in sys.path:
        sys.path.insert(0, tools)
    import stubdocs

    lib = os.path.join(root, "lib")
    sources, stubs = {}, {}
    for f in sorted(os.listdir(lib)):
        with open(os.path.join(lib, f), encoding="utf-8") as fh:
            if f.endswith(".py"):
                sources[f[:-3]] = fh.read()
            elif f.endswith(".pyi"):
                stubs[f[:-4]] = ast.parse(fh.read())
    return stubdocs, {m: stubdocs._Source(m, t) for m, t in sources.items()}, stubs


def _public_defs(body):
    import ast

    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
            yield node.name, node
            if isinstance(node, ast.ClassDef):
                for sub in node.body:
                    if isinstance(sub, ast.FunctionDef) and (not sub.name.startswith("_") or sub.name == "__init__"):
                        yield node.name + "." + sub.name, sub


def _resolve(stubdocs, srcs, module, qual):
    import ast

    head, _, meth = qual.partition(".")
    found = stubdocs._find(srcs, module, head)
    if found and meth:
        found = stubdocs._method(srcs, found[0], found[1], meth) if isinstance(found[1], ast.ClassDef) else None
    return found


def _inherits_doc(stubdocs, srcs, src, qual):
    """True when a class, or a method, of `src` overrides one of a base class (in lib/)
    that has a docstring: inspect.getdoc, and so help(), show that one."""
    import ast

    cls_name, _, meth = qual.partition(".")
    cls = src.defs.get(cls_name)
    if not isinstance(cls, ast.ClassDef):
        return False
    for base in cls.bases:
        found = stubdocs._find(srcs, src.name, base.id) if isinstance(base, ast.Name) else None
        if not found or not isinstance(found[1], ast.ClassDef):
            continue
        if not meth:
            if ast.get_docstring(found[1]) is not None:
                return True
            continue
        hit = stubdocs._method(srcs, found[0], found[1], meth)
        if hit and ast.get_docstring(hit[1]) is not None:
            return True
    return False


def test_stubs_keep_no_second_copy_of_the_docs():
    if IS_MICROPYTHON:
        skip("reads lib/ with CPython's ast")
    import ast

    stubdocs, srcs, stubs = _lib()
    twice, undocumented = [], []
    for module, tree in sorted(stubs.items()):
        if ast.get_docstring(tree) and srcs.get(module) and ast.get_docstring(srcs[module].tree):
            twice.append(module)
        for qual, node in _public_defs(tree.body):
            found = _resolve(stubdocs, srcs, module, qual)
            if found is None:
                continue  # defined outside lib/ (utime's ticks_ms, a typing Protocol)
            in_source = ast.get_docstring(found[1]) is not None
            if ast.get_docstring(node) and in_source:
                twice.append("%s.%s" % (module, qual))
            if not in_source and not qual.endswith(".__init__"):
                undocumented.append("%s.%s (defined in %s)" % (module, qual, found[0].name))
    assert not twice, "documented in the stub and in the source (keep the source's): %s" % twice
    assert not undocumented, "in a stub, but no docstring in the source: %s" % undocumented
    assert len(stubs) >= 11 and sum(1 for _ in _public_defs(stubs["ticketq"].body)) >= 10, sorted(stubs)


def test_every_public_definition_of_the_library_is_documented():
    if IS_MICROPYTHON:
        skip("reads lib/ with CPython's ast")
    import ast

    stubdocs, srcs, stubs = _lib()
    missing = []
    for module, src in sorted(srcs.items()):
        if module in stubs and ast.get_docstring(src.tree) is None:
            missing.append(module)
        for qual, node in _public_defs(src.tree.body):
            if qual.endswith(".__init__") or ast.get_docstring(node) is not None:
                continue
            if _inherits_doc(stubdocs, srcs, src, qual):
                continue  # pydoc (inspect.getdoc) shows the base's, as for the viper class
            missing.append("%s.%s" % (module, qual))
    assert not missing, "public, without a docstring in the source: %s" % missing


def test_help_shows_the_source_docstrings():
    if IS_MICROPYTHON:
        skip("CPython's pydoc")
    import pydoc

    import ticketq
    import ticketq.ticks as ticks

    text = pydoc.render_doc(ticketq.TicketQueue.push, renderer=pydoc.plaintext)
    assert "Queue a ticket; return its sequence number" in text, text[:800]
    text = pydoc.render_doc(ticketq.TicketQueue.remove, renderer=pydoc.plaintext)
    assert "Remove the oldest queued ticket" in text, text[:800]
    assert "A point in tick time" in (ticks.Deadline.__doc__ or ""), ticks.Deadline.__doc__

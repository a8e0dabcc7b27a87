# No import circles among the library's modules (lib/ticketq) nor among the host tools'
# (tools/ticketq_tools), issue 35. Read with ast, never imported. Counted: every `import X`
# and `from X import Y` anywhere in a module (top level, in functions and methods, under
# `if`/`try`), since a function-level import that closes a circle still runs the two modules
# half made the first time it runs; `from PKG import NAME` counts as an import of PKG.NAME
# when that is a module of the set, else of PKG. Not counted: the parent package a dotted
# import runs first (`import ticketq.core` runs ticketq/__init__.py: every package module
# would otherwise be in a circle with the __init__ that re-exports it), and modules outside
# the two sets. CPython only.
from support import IS_MICROPYTHON, skip


def _modules(root, base, pkg):
    # {dotted name: path} of every .py under root/base/pkg
    import os

    out = {}
    for d, dirs, files in os.walk(os.path.join(root, base, pkg)):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for f in sorted(files):
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(d, f), os.path.join(root, base))[:-3]
                parts = rel.split(os.sep)
                if parts[-1] == "__init__":
                    parts.pop()
                out[".".join(parts)] = os.path.join(d, f)
    return out


def imports_of(name, path, known):
    """The modules of `known` that module `name` (at `path`) imports, as a sorted list."""
    import ast

    is_pkg = path.endswith("__init__.py")
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            targets = [a.name for a in n.names]
        elif isinstance(n, ast.ImportFrom):
            mod = n.module or ""
            if n.level:  # relative: from the module's package
                pkg = name.split(".") if is_pkg else name.split(".")[:-1]
                pkg = pkg[:len(pkg) - (n.level - 1)]
                mod = ".".join(pkg + ([mod] if mod else []))
            targets = [mod + "." + a.name if (mod + "." + a.name) in known else mod for a in n.names]
        else:
            continue
        out.update(t for t in targets if t in known and t != name)
    return sorted(out)


def cycles(graph):
    """Every elementary circle's nodes, found by a depth-first walk (Tarjan's strongly
    connected components: a component of more than one module is a circle)."""
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return comps


def _graph(base, pkg):
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    known = _modules(root, base, pkg)
    return dict((m, imports_of(m, p, known)) for m, p in known.items())


def test_no_import_circle_in_the_library():
    if IS_MICROPYTHON:
        skip("reads the sources with CPython's ast")
    g = _graph("lib", "ticketq")
    assert "ticketq.keyed" in g and "ticketq.lanes" in g and len(g) >= 10, sorted(g)
    # what the check must see: lanes loads keyed (in a function), keyed stands on core only
    assert "ticketq.keyed" in g["ticketq.lanes"] and "ticketq.lanes" not in g["ticketq.keyed"], g
    # the C core's picker and the Sentinel client are walked too: ticketq -> ccore -> viper, one way
    assert "ticketq.ccore" in g["ticketq"] and "ticketq.viper" in g["ticketq.ccore"], g
    assert "ticketq" not in g["ticketq.ccore"] and g["ticketq.sentinel"] == ["ticketq.resp"], g
    assert cycles(g) == [], cycles(g)


def test_no_import_circle_in_the_host_tools():
    if IS_MICROPYTHON:
        skip("reads the sources with CPython's ast")
    g = _graph("tools", "ticketq_tools")
    assert "ticketq_tools.fleetctl" in g and "ticketq_tools.cli" in g, sorted(g)
    # fleetctl loads fleetmetrics for `exporter` (in a function); fleetmetrics imports no tool
    assert "ticketq_tools.fleetmetrics" in g["ticketq_tools.fleetctl"], g["ticketq_tools.fleetctl"]
    assert "ticketq_tools.fleetctl" not in g["ticketq_tools.fleetmetrics"], g["ticketq_tools.fleetmetrics"]
    # mcu loads ccore, unixport, rp2 and pico; they (and deploy, which loads ccore for
    # --c-core) take the MicroPython tree and the cache from mpsource and the REPL probe from
    # board, never from mcu (a circle of six before mpsource)
    for m in ("ccore", "unixport", "rp2", "pico"):
        assert "ticketq_tools." + m in g["ticketq_tools.mcu"], (m, g["ticketq_tools.mcu"])
        assert "ticketq_tools.mcu" not in g["ticketq_tools." + m], (m, g["ticketq_tools." + m])
    assert "ticketq_tools.mpsource" in g["ticketq_tools.ccore"] and g["ticketq_tools.mpsource"] == [], g
    assert cycles(g) == [], cycles(g)


def test_the_check_finds_a_circle_through_a_function_level_import(tmp_path=None):
    # the walk itself: a circle closed only by an import inside a function is found, and a
    # `from pkg import mod` counts as an import of pkg.mod
    if IS_MICROPYTHON:
        skip("reads the sources with CPython's ast")
    import os
    import tempfile

    d = str(tmp_path) if tmp_path else tempfile.mkdtemp()
    os.makedirs(os.path.join(d, "src", "p"))
    files = {"__init__.py": "", "a.py": "from p import b\n",
             "b.py": "def f():\n    if 1:\n        from p.a import x\n", "c.py": "import p.a\n"}
    for f, text in files.items():
        with open(os.path.join(d, "src", "p", f), "w") as fh:
            fh.write(text)
    known = _modules(d, "src", "p")
    g = dict((m, imports_of(m, p, known)) for m, p in known.items())
    assert g == {"p": [], "p.a": ["p.b"], "p.b": ["p.a"], "p.c": ["p.a"]}, g
    assert cycles(g) == [["p.a", "p.b"]], cycles(g)

"""Source for a small board: keep only what some names need, strip the rest (host side).

    shake(source, ["t_tq", "mk_tq"])  -> the module with only the top-level statements that
                                         define those names or what they use, stripped
    shake(source, roots, have=["utime", "ticketq"])
                                      -> the same, each top-level try/except ImportError
                                         chain cut to its branch for a board that has
                                         those modules
    strip(source)                     -> the module without comments, docstrings and blank
                                         lines, indented one space per level

A top-level statement is kept when it binds a needed name (def, class, assignment, import,
or any of these inside a top-level try/if); the names it reads are then needed too, to a
fixed point. The code that stays is the module's own, unchanged: only whole definitions go.
Stripping goes through ast.parse + ast.unparse (python-minifier's output does not compile on
MicroPython 1.9.2) and is checked to parse to the same tree.
"""
import ast


def _bound(node):
    """Names a top-level statement binds."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                out.add((a.asname or a.name).split(".")[0])
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}  # names bound inside a function are its own
    return out


def _read(node):
    """Names a statement reads (over-approximated: anything loaded anywhere in it)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _imports(nodes):
    """Top-level module names the statements import."""
    out = set()
    for n in nodes:
        for m in ast.walk(n):
            if isinstance(m, ast.Import):
                out |= {a.name.split(".")[0] for a in m.names}
            elif isinstance(m, ast.ImportFrom) and m.module:
                out.add(m.module.split(".")[0])
    return out


def _pick(node, have):
    """A top-level `try: A except ImportError: B` (B may be such a try again) as the first
    branch that imports only modules in `have`, or the node as it is."""
    branches = []
    while isinstance(node, ast.Try) and len(node.handlers) == 1 and not node.orelse and not node.finalbody:
        branches.append(node.body)
        rest = node.handlers[0].body
        node = rest[0] if len(rest) == 1 else None
        if node is None or not isinstance(node, ast.Try):
            branches.append(rest)
            break
    for body in branches:
        mods = _imports(body)
        if mods <= set(have):
            return body
    return None


def shake(source, roots, have=None):
    """have: the modules the board has; a top-level try/except ImportError chain is then
    cut to the branch that imports only from them (less to compile on a small board)."""
    tree = ast.parse(source)
    if have is not None:
        body = []
        for node in tree.body:
            picked = _pick(node, have) if isinstance(node, ast.Try) else None
            body += picked if picked else [node]
        tree.body = body
    body = tree.body
    need = set(roots)
    keep = [False] * len(body)
    changed = True
    while changed:
        changed = False
        for i, node in enumerate(body):
            if not keep[i] and _bound(node) & need:
                keep[i] = True
                need |= _read(node)
                changed = True
    missing = set(roots) - set().union(*[_bound(n) for n, k in zip(body, keep) if k])
    if missing:
        raise KeyError("not defined at the top level: %s" % ", ".join(sorted(missing)))
    tree.body = [n for n, k in zip(body, keep) if k]
    return strip(ast.unparse(tree))


def _drop_docstrings(tree):
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            new = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                                           and isinstance(s.value.value, str))]
            node.body = new or [ast.Pass()]
    return tree


def strip(source):
    out = ast.unparse(_drop_docstrings(ast.parse(source)))
    lines = []
    for line in out.splitlines():
        if not line.strip():
            continue
        n = len(line) - len(line.lstrip(" "))
        # ast.unparse indents by 4 and puts each statement on its own line (multi-line
        # strings are escaped), so leading spaces are indentation.
        lines.append(" " * (n // 4) + line[n:])
    small = "\n".join(lines) + "\n"
    if ast.dump(ast.parse(small)) != ast.dump(ast.parse(out)):
        raise ValueError("stripping changed the code")
    return small

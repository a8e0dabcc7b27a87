"""Where the library is and what its modules are called, for every host tool: the ONE place
that knows lib/'s module names. Everything is read from the checkout, never spelled out:

- MAIN, MAIN_FILE: the import name users write (`import ticketq`) and its file, from
  pyproject.toml's [tool.hatch.version] path (the file that carries __version__);
- manifest_files(viper): the files manifest.py freezes (its module("F", base_path="lib")
  and package("P", files=[...], base_path="lib") calls, read with ast), the ones under
  `if options.viper:` only with viper=True;
- VIPER, VIPER_FILES: the viper hot path, what manifest.py freezes only with viper=True
  (its import name: what `sys.modules[VIPER] = None` blocks to force the bytecode path);
- core_files(profile): the library files a board profile (boards/NAME/board.py FILES)
  lists up to and including MAIN_FILE, the ones `import MAIN` loads there;
- file_of(name): the file of an import name under lib/ (a module or a package).

A layout change in lib/ (modules into a package) is followed here
and in manifest.py, pyproject.toml and the board profiles, not in each tool.
"""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.path.join(ROOT, "lib")
FIRMWARE = os.path.join(ROOT, "firmware")
TESTS = os.path.join(ROOT, "tests")
BOARDS = os.path.join(ROOT, "boards")
MANIFEST = os.path.join(ROOT, "manifest.py")
PYPROJECT = os.path.join(ROOT, "pyproject.toml")


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def module_name(rel):
    """The import name of a repository path under lib/: "lib/ticketq/__init__.py" -> "ticketq", "lib/ticketq/heap.py" ->
    "ticketq.heap". ValueError for a path outside lib/ or not a .py file."""
    rel = rel.replace(os.sep, "/")
    if not rel.startswith("lib/") or not rel.endswith(".py"):
        raise ValueError("not a library module under lib/: %r" % rel)
    parts = rel[4:-3].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _main_file():
    m = re.search(r'\[tool\.hatch\.version\]\s*\npath\s*=\s*"([^"]+)"', _read(PYPROJECT))
    if not m:
        raise RuntimeError("pyproject.toml has no [tool.hatch.version] path: cannot tell the library's main module")
    return m.group(1)


MAIN_FILE = _main_file()
MAIN = module_name(MAIN_FILE)


def _package_files(base, pkg):
    # every .py under ROOT/base/pkg, as repository paths
    out = []
    for d, dirs, files in os.walk(os.path.normpath(os.path.join(ROOT, base, pkg))):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        out += [os.path.relpath(os.path.join(d, f), ROOT).replace(os.sep, "/") for f in sorted(files)
                if f.endswith(".py")]
    return out


def _manifest_calls(viper):
    # (function name, args, keywords) of manifest.py's calls, read with ast (never exec'd):
    # the top-level ones, and those under `if options.viper:` only with viper=True
    import ast

    def calls(body):
        for node in body:
            if isinstance(node, ast.If):
                t = node.test
                if (isinstance(t, ast.Attribute) and getattr(t.value, "id", "") == "options"
                        and t.attr == "viper"):
                    if viper:
                        for c in calls(node.body):
                            yield c
                    continue
                raise RuntimeError("manifest.py: an `if` libnames cannot read (only `if options.viper:`)")
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                c = node.value
                yield (getattr(c.func, "id", ""), [ast.literal_eval(a) for a in c.args],
                       dict((k.arg, ast.literal_eval(k.value)) for k in c.keywords))

    return list(calls(ast.parse(_read(MANIFEST)).body))


def manifest_files(viper=True):
    """The repository paths manifest.py freezes, sorted: module("F", base_path="B") gives B/F
    (F may be a path in a package: "ticketq/viper.py"), package("P", base_path="B") every .py
    under B/P, package("P", files=[...], base_path="B") B/P/ each file listed; calls in the
    `if options.viper:` block only with viper=True. RuntimeError if it names none."""
    out = []
    for fn, args, kw in _manifest_calls(viper):
        if fn not in ("module", "package"):
            continue
        name = args[0]
        base = kw.get("base_path", args[2] if fn == "package" and len(args) > 2 else
                      args[1] if fn == "module" and len(args) > 1 else ".")
        base = "" if base == "." else base.rstrip("/") + "/"
        files = kw.get("files", args[1] if fn == "package" and len(args) > 1 else None)
        if fn == "module":
            out.append(base + name)
        elif files is not None:
            out += [base + name + "/" + f for f in files]
        else:
            out += _package_files(base.rstrip("/") or ".", name)
    if not out:
        raise RuntimeError("manifest.py names no module(...) or package(...)")
    return sorted(set(out))


VIPER_FILES = sorted(set(manifest_files(True)) - set(manifest_files(False)))
# the package's viper module (ticketq.viper)
VIPER = (sorted(module_name(f) for f in VIPER_FILES if module_name(f).startswith(MAIN + "."))
         or [module_name(f) for f in VIPER_FILES] or [None])[0]


def block_viper():
    """A line of MicroPython that forces the library's bytecode path (the viper module made
    unimportable), or "" when the manifest names no viper module."""
    return "sys.modules[%r] = None" % VIPER if VIPER else ""


def lib_files():
    """Every .py under lib/ (repository paths, sorted)."""
    return _package_files("", "lib")


def file_of(name):
    """The repository path of import name `name` under lib/ (module file or package
    __init__), or None when lib/ has no such module."""
    for rel in (name.replace(".", "/") + ".py", name.replace(".", "/") + "/__init__.py"):
        if os.path.isfile(os.path.join(LIB, rel)):
            return "lib/" + rel
    return None


def profile_files(name):
    """FILES + FROZEN of board profile boards/NAME/board.py (read with ast.literal_eval)."""
    import ast

    tree = ast.parse(_read(os.path.join(BOARDS, name, "board.py")))
    d = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                d[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    return list(d.get("FILES", [])) + list(d.get("FROZEN", []))


def core_files(files):
    """The lib/ files of a profile's file list up to and including MAIN_FILE (the modules
    `import MAIN` loads on that board, in the profile's import order); [] without MAIN_FILE."""
    lib = [f for f in files if f.startswith("lib/") and f.endswith(".py")]
    return lib[:lib.index(MAIN_FILE) + 1] if MAIN_FILE in lib else []

"""Where the library is and what its modules are called, for every host tool: the ONE place
that knows lib/'s module names. Everything is read from the checkout, never spelled out:

- MAIN, MAIN_FILE: the import name users write (`import ticketq`) and its file, from
  pyproject.toml's [tool.hatch.version] path (the file that carries __version__);
- manifest_files(viper): the files manifest.py freezes (its module("F", base_path="lib")
  and package("P", base_path="lib") lines), the ones under `if options.viper:` only with
  viper=True;
- VIPER, VIPER_FILES: the viper hot path, what manifest.py freezes only with viper=True
  (its import name: what `sys.modules[VIPER] = None` blocks to force the bytecode path);
- core_files(profile): the library files a board profile (boards/NAME/board.py FILES)
  lists up to and including MAIN_FILE, the ones `import MAIN` loads there;
- file_of(name): the file of an import name under lib/ (a module or a package).

A layout change in lib/ (modules into a package, shims for the old names) is followed here
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
    """The import name of a repository path under lib/: "lib/ticketq_fleet.py" ->
    "ticketq_fleet", "lib/ticketq/__init__.py" -> "ticketq", "lib/ticketq/heap.py" ->
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
    out = []
    for d, dirs, files in os.walk(os.path.join(ROOT, base, pkg)):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        out += [os.path.relpath(os.path.join(d, f), ROOT).replace(os.sep, "/") for f in sorted(files)
                if f.endswith(".py")]
    return out


def manifest_files(viper=True):
    """The repository paths manifest.py freezes, sorted: module("F", base_path="B") gives B/F,
    package("P", base_path="B") every .py under B/P; lines in the `if options.viper:` block
    only with viper=True. RuntimeError if it names none."""
    out, in_viper = [], False
    for line in _read(MANIFEST).splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if re.match(r"if\s+options\.viper\s*:", line):
            in_viper = True
            continue
        if not line[:1].isspace():
            in_viper = False
        m = re.match(r'\s*(module|package)\("([^"]+)",\s*base_path="([^"]+)"', line)
        if not m or (in_viper and not viper):
            continue
        kind, name, base = m.groups()
        out += [base + "/" + name] if kind == "module" else _package_files(base, name)
    if not out:
        raise RuntimeError("manifest.py names no module(...) or package(...)")
    return sorted(set(out))


VIPER_FILES = sorted(set(manifest_files(True)) - set(manifest_files(False)))
VIPER = module_name(VIPER_FILES[0]) if VIPER_FILES else None


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

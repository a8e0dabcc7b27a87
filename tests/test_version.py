# One version everywhere (issue 13): ticketq.__version__ (lib/ticketq/__init__.py),
# package.json (mip), manifest.py (frozen builds) and the pip package (pyproject.toml takes
# it from lib/ticketq/__init__.py; tests/test_pip_package.py builds it), with a CHANGELOG.md section for it
# and the license named in README.md as in LICENSE. CPython only (reads the repository).
import ast
import json
import os
import re

from support import IS_MICROPYTHON, skip

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..") if not IS_MICROPYTHON else ""


def _read(name):
    with open(os.path.join(ROOT, name), encoding="utf-8") as f:
        return f.read()


def _version_in_lib():
    for node in ast.parse(_read(os.path.join("lib", "ticketq", "__init__.py"))).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["__version__"]:
            return node.value.value
    raise AssertionError("lib/ticketq/__init__.py sets no __version__")


def test_one_version_everywhere():
    if IS_MICROPYTHON:
        skip("reads the repository's files (host only)")
    v = _version_in_lib()
    assert re.match(r"^\d+\.\d+\.\d+$", v), v
    assert json.loads(_read("package.json"))["version"] == v
    calls = [c for c in ast.walk(ast.parse(_read("manifest.py")))
             if isinstance(c, ast.Call) and getattr(c.func, "id", "") == "metadata"]
    assert [k.value.value for c in calls for k in c.keywords if k.arg == "version"] == [v]
    py = _read("pyproject.toml")
    assert re.search(r'^dynamic = \["version"\]$', py, re.M) and re.search(
        r'^\[tool\.hatch\.version\]\npath = "lib/ticketq/__init__\.py"$', py, re.M), "pyproject.toml: version from lib/ticketq/__init__.py"
    assert re.search(r"^## %s\b" % re.escape(v), _read("CHANGELOG.md"), re.M), "CHANGELOG.md: no section for " + v


def test_the_license_is_named_where_a_newcomer_looks():
    if IS_MICROPYTHON:
        skip("reads the repository's files (host only)")
    assert _read("LICENSE").startswith("MIT License")
    assert re.search(r'^license = "MIT"$', _read("pyproject.toml"), re.M)
    assert 'license="MIT"' in _read("manifest.py")
    assert re.search(r"^## License\n\nMIT \(\[LICENSE\]\(LICENSE\)\)", _read("README.md"), re.M)

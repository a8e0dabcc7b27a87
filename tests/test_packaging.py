# CPython only: the mip package.json and the freezing manifest.py list exactly the
# library's modules, so `mpremote mip install github:...` and a frozen build get all of it.
import ast
import glob
import json
import os

from support import IS_MICROPYTHON, skip

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..") if not IS_MICROPYTHON else ""


def lib_modules():
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "lib", "*.py")))


def test_package_json_lists_every_library_module():
    if IS_MICROPYTHON:
        skip("reads the repository's files (host only)")
    with open(os.path.join(ROOT, "package.json")) as f:
        pkg = json.load(f)
    assert sorted(dest for dest, _ in pkg["urls"]) == lib_modules()
    for dest, src in pkg["urls"]:
        assert src == "lib/" + dest and os.path.exists(os.path.join(ROOT, src))
    assert pkg["version"]


def test_manifest_freezes_every_library_module():
    if IS_MICROPYTHON:
        skip("reads the repository's files (host only)")
    with open(os.path.join(ROOT, "manifest.py")) as f:
        tree = ast.parse(f.read())
    frozen = [c.args[0].value for c in ast.walk(tree)
              if isinstance(c, ast.Call) and getattr(c.func, "id", "") == "module"]
    assert sorted(frozen) == lib_modules()


def test_install_names_the_micropython_that_reads_this_manifest():
    # manifest.py calls metadata() and module(): the manifest API of tools/manifestfile.py,
    # new in MicroPython 1.20 (makemanifest.py of 1.12 .. 1.19 has only freeze() and
    # include(), so the manifest fails there). The route's page must not promise older ones.
    if IS_MICROPYTHON:
        skip("reads the repository's files (host only)")
    with open(os.path.join(ROOT, "manifest.py")) as f:
        tree = ast.parse(f.read())
    calls = set(getattr(c.func, "id", "") for c in ast.walk(tree) if isinstance(c, ast.Call))
    assert "module" in calls and "metadata" in calls
    with open(os.path.join(ROOT, "docs", "install.md")) as f:
        text = f.read()
    frozen = text[text.index("## A firmware you build"):text.index("## CPython")]
    assert "1.20 and later" in frozen and "1.12 and later" not in frozen, frozen

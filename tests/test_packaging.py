# CPython only: the mip package.json and the freezing manifest.py list exactly the
# library's modules, so `mpremote mip install github:...` and a frozen build get all of it.
import ast
import glob
import json
import os

from support import IS_MICROPYTHON, skip

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..") if not IS_MICROPYTHON else ""


def lib_modules():
    # every module of lib/, as its path under lib/: the package's (ticketq/core.py ...)
    return sorted(os.path.relpath(p, os.path.join(ROOT, "lib")).replace(os.sep, "/")
                  for p in glob.glob(os.path.join(ROOT, "lib", "*.py")) + glob.glob(os.path.join(ROOT, "lib", "*", "*.py")))


def test_package_json_lists_every_library_module():
    if IS_MICROPYTHON:
        skip("reads the repository's files (host only)")
    with open(os.path.join(ROOT, "package.json")) as f:
        pkg = json.load(f)
    assert sorted(dest for dest, _ in pkg["urls"]) == lib_modules()
    for dest, src in pkg["urls"]:
        assert src == "lib/" + dest and os.path.exists(os.path.join(ROOT, src))
    assert pkg["version"]


def _manifestfile(tmp):
    # MicroPython's own manifest reader (tools/manifestfile.py of the 1c3c201 tarball in
    # ../shared/mcu, what ticketq mcu builds with), or None where that tarball is absent
    import sys
    import tarfile

    tarball = os.environ.get("TICKETQ_MCU_TARBALL") or os.path.join(ROOT, "..", "shared", "mcu", "micropython-1c3c201.tar.xz")
    if not os.path.isfile(tarball):
        return None
    with tarfile.open(tarball) as t:
        m = [n for n in t.getnames() if n.endswith("/tools/manifestfile.py")][0]
        with open(os.path.join(tmp, "manifestfile.py"), "wb") as f:
            f.write(t.extractfile(m).read())
    sys.path.insert(0, tmp)
    try:
        import manifestfile
    finally:
        sys.path.remove(tmp)
    return manifestfile


def test_manifest_freezes_every_library_module(tmp_path=None):
    # the package (ticketq/...), read by ticketq_tools.libnames (what every
    # tool freezes by) and, where the tarball is here, by MicroPython's manifestfile.py;
    # the viper module only with viper=True
    if IS_MICROPYTHON:
        skip("reads the repository's files (host only)")
    import sys

    sys.path.insert(0, os.path.join(ROOT, "tools"))
    from ticketq_tools import libnames

    every = ["lib/" + m for m in lib_modules()]
    viper = ["lib/ticketq/viper.py"]
    assert libnames.manifest_files(True) == every
    assert libnames.manifest_files(False) == sorted(set(every) - set(viper))
    assert libnames.VIPER == "ticketq.viper" and libnames.block_viper() == "sys.modules['ticketq.viper'] = None"
    import tempfile

    mf = _manifestfile(str(tmp_path) if tmp_path else tempfile.mkdtemp())
    if mf is None:
        return
    for v in (True, False):
        m = mf.ManifestFile(mf.MODE_FREEZE, {"MPY_DIR": ROOT})
        m.include(os.path.join(ROOT, "manifest.py"), viper=v)
        got = sorted(r.target_path for r in m.files())
        assert got == sorted(x[4:] for x in libnames.manifest_files(v)), (v, got)


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

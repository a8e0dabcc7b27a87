# ticketq firmware natmod (tools/ticketq_tools/ccore.py, docs/c-core.md): the C core's native
# .mpy per architecture, built from ../shared/mcu's tree, cached; the header of each names the
# architecture it was asked for; an architecture without a compiler here is reported, and is a
# failure when asked for by name. Host only (it drives make and the cross compilers).
from support import IS_MICROPYTHON, skip


def _ccore():
    if IS_MICROPYTHON:
        skip("builds with make on the host (CPython)")
    import os
    import sys

    sys.path.insert(0, os.path.join(_root(), "tools"))
    from ticketq_tools import ccore

    if not os.path.isfile(ccore.mpsource.TARBALL):
        skip("no MicroPython source tarball (%s)" % ccore.mpsource.TARBALL)
    return ccore


def _root():
    import os

    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_each_built_mpy_names_its_architecture_and_the_build_is_reproducible():
    ccore = _ccore()
    import os
    import subprocess
    import sys

    built = 0
    for arch in ("x86", "armv6m", "armv7m", "rv32imc"):
        if ccore.available(arch):
            continue
        path = ccore.build(arch, log=lambda m: None)
        assert os.path.basename(path) == "_ticketq.mpy" and ccore.mpy_arch(path) == ccore.ARCHES[arch][1], path
        with open(path, "rb") as f:
            head = f.read(4)
        assert head[0:2] == b"M\x06", head  # .mpy version 6 (MicroPython 1.23 and later)
        built += 1
    if not built:
        skip("no cross compiler here (tools/setup installs them)")
    p = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", "firmware", "natmod", "x86", "--verify"],
                       capture_output=True, text=True, timeout=600)
    if ccore.available("x86"):
        assert p.returncode == 1 and "SKIPPED x86" in p.stderr, p.stderr
    else:
        assert p.returncode == 0 and "two builds: the same bytes" in p.stderr, p.stderr
        assert p.stdout.startswith("x86 "), p.stdout


def test_an_architecture_without_a_compiler_or_unknown_is_said():
    ccore = _ccore()
    import os
    import subprocess
    import sys

    tool = [sys.executable, "-m", "ticketq_tools.cli", "firmware", "natmod"]
    p = subprocess.run(tool + ["sparc"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "unknown architecture sparc" in p.stderr, p.stderr
    if ccore.available("xtensawin"):
        p = subprocess.run(tool + ["xtensawin"], capture_output=True, text=True, timeout=60)
        assert p.returncode == 1 and "SKIPPED xtensawin: xtensa-esp32-elf-gcc not found" in p.stderr, p.stderr

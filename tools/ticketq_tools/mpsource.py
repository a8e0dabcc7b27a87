"""The MicroPython 1c3c201 sources every host build starts from (../shared/mcu's tarball,
or $TICKETQ_MCU_TARBALL): the tarball's hash, its unpacked tree, mpy-cross, make, the C
core's staging as a user C module, and the cache they share ($TICKETQ_MCU_CACHE, default
~/.cache/ticketq/mcu), locked per item so that concurrent builds are safe.

Used by mcu (the QEMU firmware), ccore (`ticketq firmware natmod`) and unixport (`ticketq
firmware unix`); it imports none of them, so the three make no import circle
(tests/test_import_cycles.py). Errors: McuError.
"""
import contextlib
import hashlib
import os
import shutil
import subprocess
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/, this package's parent
ROOT = os.path.dirname(HERE)

SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "mcu"))
TARBALL = os.environ.get("TICKETQ_MCU_TARBALL") or os.path.join(SHARED, "micropython-1c3c201.tar.xz")
CACHE = os.environ.get("TICKETQ_MCU_CACHE") or os.path.join(
    os.path.expanduser("~"), ".cache", "ticketq", "mcu")
DEBIAN = ["gcc-arm-none-eabi", "libnewlib-arm-none-eabi", "qemu-system-arm", "qemu-system-misc",
          "gcc-riscv64-unknown-elf", "picolibc-riscv64-unknown-elf"]


class McuError(RuntimeError):
    pass


CDIR = os.path.join(ROOT, "c")
# The user C module's files (make ports): staged into the cache before each build
CMOD_FILES = ("micropython.mk", "ticketq_core.c")
CMAKE = os.path.join(CDIR, "micropython.cmake")  # the same for the rp2 port's CMake


def say(line=""):
    print(line, flush=True)


def _sha(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
        h.update(b"\0")
    return h.hexdigest()


def _file_sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _tool_version(exe):
    try:
        return subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        raise McuError("%s not found: apt-get install -y %s" % (exe, " ".join(DEBIAN)))


_tar_sha = {}


def tarball_sha():
    if TARBALL not in _tar_sha:
        if not os.path.isfile(TARBALL):
            raise McuError("no %s: the MicroPython sources come from ../shared/mcu beside the checkout, or $TICKETQ_MCU_TARBALL" % TARBALL)
        _tar_sha[TARBALL] = _file_sha(TARBALL)
    return _tar_sha[TARBALL]


@contextlib.contextmanager
def _locked(name, cache=None):
    """An exclusive lock on `name`.lock in `cache` (this module's CACHE unless given: the rp2
    build's has its own), held for the with block: builds of the same tree never overlap."""
    import fcntl

    cache = cache or CACHE
    os.makedirs(cache, exist_ok=True)
    with open(os.path.join(cache, name + ".lock"), "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def source_tree(log=say, patch=None):
    """The unpacked tarball (once per tarball hash, and per patch: a list of (file, text,
    replacement), applied once, each text found exactly once): its top folder."""
    top = os.path.join(CACHE, "src-" + tarball_sha()[:16] + ("-" + _sha(repr(patch))[:8] if patch else ""))
    tree = os.path.join(top, "micropython-1c3c201")
    with _locked("src"):
        if not os.path.isfile(os.path.join(top, ".unpacked")):
            shutil.rmtree(top, ignore_errors=True)
            os.makedirs(top)
            log("unpacking %s%s" % (TARBALL, " (patched)" if patch else ""))
            subprocess.run(["tar", "xJf", TARBALL, "-C", top], check=True)
            for rel, old, new in patch or ():
                path = os.path.join(tree, rel)
                with open(path) as f:
                    text = f.read()
                if text.count(old) != 1:
                    raise McuError("%s: %r found %d times, not once" % (rel, old, text.count(old)))
                with open(path, "w") as f:
                    f.write(text.replace(old, new))
            open(os.path.join(top, ".unpacked"), "w").close()
    return tree


def _make(args, cwd, log):
    cmd = ["make", "-j2"] + args
    t0 = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode:
        log(p.stdout[-4000:])
        raise McuError("make failed in %s: %s" % (cwd, " ".join(cmd)))
    return time.monotonic() - t0


def mpy_cross(log=say, tree=None):
    """The mpy-cross built from the tarball's tree (cached per tarball), or from `tree` (a
    patched one: its firmware build needs its own, built first, as make would build it with
    the firmware's BUILD)."""
    tree = tree or source_tree(log)
    exe = os.path.join(tree, "mpy-cross", "build", "mpy-cross")
    with _locked("mpy-cross"):
        if not os.access(exe, os.X_OK):
            log("building mpy-cross (%s)" % os.path.relpath(tree, CACHE))
            secs = _make([], os.path.join(tree, "mpy-cross"), log)
            log("built mpy-cross in %.0f s" % secs)
    return exe


def user_c_modules(build):
    """USER_C_MODULES=DIR for make, DIR holding ticketq/ (c/micropython.mk, c/ticketq_core.c),
    copied afresh from c/ for this build folder: the folder is shared by every checkout and
    make goes by dates, so a copy dated now is always newer than the object of another
    checkout's build (it is compiled again, and its qstrs collected again: seconds)."""
    d = os.path.join(CACHE, "cmod", build)
    os.makedirs(os.path.join(d, "ticketq"), exist_ok=True)
    for name in CMOD_FILES:
        shutil.copyfile(os.path.join(CDIR, name), os.path.join(d, "ticketq", name))
    return "USER_C_MODULES=" + d

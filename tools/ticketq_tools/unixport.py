#!/usr/bin/env python3
"""The 32-bit MicroPython unix port with ticketq's C core built in (issue 33): ports/unix of
the 1c3c201 tree (../shared/mcu, the same commit as ../shared/micropython/micropython), with
c/ticketq_core.c compiled in as the user C module _ticketq (c/micropython.mk), so that
`import ticketq` there takes the C path from the firmware, not from a .mpy.

    ticketq firmware unix              # build (or reuse the cached build); print the binary's path
    ticketq firmware unix --no-c       # the same port without the C core (for sizes, benchmarks)
    ticketq firmware unix --verify     # build twice (the second from an empty build folder): same bytes
    ticketq mpunix --c-builtin ...  # the test modules on it (tools/test's unix-cbuiltin stage)

How (../shared/micropython/README.md's recipe, offline): `make -C ports/unix VARIANT=standard
CROSS_COMPILE=i686-linux-gnu- LDFLAGS_EXTRA=-static` (Debian's gcc-i686-linux-gnu and
libc6-dev-i386-cross, which tools/setup installs for the natmod build: a static 32-bit x86
program, 31-bit small ints, ticks wrapping at 2**30), MICROPY_PY_FFI=0, MICROPY_PY_BTREE=0,
MICROPY_PY_THREAD=0 as the shared binary, and MICROPY_PY_SSL=0: the tarball has no Mbed TLS,
so unlike the shared binary this one has no `tls` module (the tests that need it skip, saying
so). The frozen manifest is extmod/asyncio alone, as the shared binary's (the standard
variant's own needs micropython-lib, a stub in the tarball). STRIP= keeps the symbols (for
`size`); the binary is not stripped.

Cached like ticketq mcu's firmware ($TICKETQ_MCU_CACHE, default ~/.cache/ticketq/mcu):
unix/micropython-{c,noc}-KEY, KEY a SHA-256 of the tarball, the flags, the compiler's version
and (with the C core) c/micropython.mk and c/ticketq_core.c. The build folder is shared by
every checkout; the C core's files are copied into it afresh before each build (make goes by
dates).
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/
sys.path.insert(0, HERE)
from ticketq_tools import mpsource  # noqa: E402  (the tarball, its unpacked tree, the cache, the C module's staging)

RECIPE = "1"  # bump when the way the port is built changes
CC = "i686-linux-gnu-gcc"
FLAGS = ["VARIANT=standard", "CROSS_COMPILE=i686-linux-gnu-", "LDFLAGS_EXTRA=-static", "STRIP=",
         "MICROPY_PY_FFI=0", "MICROPY_PY_BTREE=0", "MICROPY_PY_THREAD=0", "MICROPY_PY_SSL=0",
         "MICROPY_SSL_MBEDTLS=0"]


class UnixError(RuntimeError):
    pass


def key(cmod):
    parts = [RECIPE, mpsource.tarball_sha(), " ".join(FLAGS), mpsource._tool_version(CC), cmod]
    for name in mpsource.CMOD_FILES if cmod else ():
        parts += [name, mpsource._file_sha(os.path.join(mpsource.CDIR, name))]
    return mpsource._sha(*parts)[:16]


def build(cmod=True, force=False, fresh=False, log=mpsource.say):
    """Path of the unix port's binary (with the C core compiled in unless cmod is False),
    built unless the cache has it. fresh: from an empty build folder."""
    if not shutil.which(CC):
        raise UnixError("%s not found: apt-get install gcc-i686-linux-gnu libc6-dev-i386-cross (tools/setup)" % CC)
    k = key(cmod)
    out = os.path.join(mpsource.CACHE, "unix", "micropython-%s-%s" % ("c" if cmod else "noc", k))
    if os.path.isfile(out) and not force:
        return out
    tree = mpsource.source_tree(log)
    mpsource.mpy_cross(log, tree)  # the frozen asyncio is compiled with it
    with mpsource._locked("build-unix"):
        if os.path.isfile(out) and not force:
            return out
        os.makedirs(os.path.dirname(out), exist_ok=True)
        man = os.path.join(mpsource.CACHE, "unix", "manifest.py")
        with open(man, "w") as f:
            f.write('include("$(MPY_DIR)/extmod/asyncio")\n')
        build_dir = "build-ticketq-%s-%s" % ("c" if cmod else "noc", mpsource._sha(RECIPE, " ".join(FLAGS), cmod)[:12])
        port = os.path.join(tree, "ports", "unix")
        if fresh:
            shutil.rmtree(os.path.join(port, build_dir), ignore_errors=True)
        args = FLAGS + ["BUILD=" + build_dir, "FROZEN_MANIFEST=" + man]
        if cmod:
            args.append(mpsource.user_c_modules("unix-" + build_dir))
        log("building the unix port (x86, 32-bit%s) -> %s" % (", C core" if cmod else "", os.path.relpath(out, mpsource.CACHE)))
        # the build date in mpversion.h: the tree's own (tar keeps the dates), so that the
        # same inputs give the same bytes
        os.environ.setdefault("SOURCE_DATE_EPOCH", str(int(os.path.getmtime(os.path.join(tree, "py", "mpconfig.h")))))
        try:
            secs = mpsource._make(args, port, log)
        except mpsource.McuError as e:
            raise UnixError(str(e))
        shutil.copyfile(os.path.join(port, build_dir, "micropython"), out + ".tmp")
        os.chmod(out + ".tmp", 0o755)
        os.replace(out + ".tmp", out)
        log("built the unix port%s in %.0f s" % (" with the C core" if cmod else "", secs))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(prog="ticketq firmware unix", description=__doc__.split("\n")[0])
    p.add_argument("--no-c", action="store_true", help="without the C core")
    p.add_argument("--force", action="store_true", help="build even if the cache has it")
    p.add_argument("--verify", action="store_true", help="build again from an empty build folder: the same bytes, or exit 1")
    a = p.parse_args(argv)
    log = lambda s: print(s, file=sys.stderr)  # noqa: E731
    t0 = time.monotonic()
    try:
        path = build(not a.no_c, a.force, log=log)
        if a.verify:
            with open(path, "rb") as f:
                first = hashlib.sha256(f.read()).hexdigest()
            build(not a.no_c, True, True, log=log)
            with open(path, "rb") as f:
                again = hashlib.sha256(f.read()).hexdigest()
            log("two builds: sha256 %s and %s: %s" % (first[:16], again[:16], "the same bytes" if first == again else "DIFFERENT"))
            if first != again:
                return 1
    except (UnixError, mpsource.McuError) as e:
        print("ticketq firmware unix: %s" % e, file=sys.stderr)
        return 1
    log("(%.0f s)" % (time.monotonic() - t0))
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

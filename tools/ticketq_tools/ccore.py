#!/usr/bin/env python3
"""Builds ticketq's C core (c/ticketq_core.c) as a native .mpy, the module `_ticketq`, for
each architecture, with MicroPython 1c3c201's py/dynruntime.mk and tools/mpy_ld.py (the same
tree as the unix port and the QEMU firmware: ../shared/mcu). docs/c-core.md.

    ticketq firmware natmod                  # every ARCH with a compiler here; print the paths
    ticketq firmware natmod x86 armv7m       # these only
    ticketq firmware natmod --out DIR        # also copy them to DIR/ARCH/_ticketq.mpy

Architectures (mpy_ld's names, sys.implementation._mpy >> 10 in brackets): x86 [1] (the
32-bit unix port; Debian's gcc-i686-linux-gnu), armv6m [4] (RP2040, Cortex-M0; gcc-arm-none-eabi),
armv7m [5] (Cortex-M3, stm32, RP2350), rv32imc [11] (ESP32-C3; gcc-riscv64-unknown-elf with
picolibc), xtensawin [10] (ESP32) only where xtensa-esp32-elf-gcc is on PATH: neither Debian
nor PyPI ships it, so it is skipped here, saying so.

Cached like ticketq mcu's firmware, in the same cache ($TICKETQ_MCU_CACHE, default
~/.cache/ticketq/mcu): natmod/ARCH-KEY/_ticketq.mpy (a folder to put on sys.path), KEY a SHA-256 of the tarball, the C
source, c/Makefile, this recipe and the compiler's version. A build runs in a scratch copy of
c/ (nothing is written into the repository); same inputs, same bytes (`--verify`).
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/
sys.path.insert(0, HERE)
from ticketq_tools import mpsource  # noqa: E402  (the tarball, its unpacked tree and the cache)

ROOT = mpsource.ROOT
CDIR = os.path.join(ROOT, "c")
RECIPE = "1"  # bump when the way the .mpy is built changes
# arch -> (the compiler dynruntime.mk uses, sys.implementation._mpy >> 10, Debian package)
ARCHES = {
    "x86": ("i686-linux-gnu-gcc", 1, "gcc-i686-linux-gnu"),
    "armv6m": ("arm-none-eabi-gcc", 4, "gcc-arm-none-eabi"),
    "armv7m": ("arm-none-eabi-gcc", 5, "gcc-arm-none-eabi"),
    "rv32imc": ("riscv64-unknown-elf-gcc", 11, "gcc-riscv64-unknown-elf"),
    "xtensawin": ("xtensa-esp32-elf-gcc", 10, None),
}
DEFAULT = ("x86", "armv6m", "armv7m", "rv32imc", "xtensawin")
ARCH_OF = {v[1]: k for k, v in ARCHES.items()}


class NatmodError(RuntimeError):
    pass


def mpy_arch(path):
    """The architecture number in a native .mpy's header (as sys.implementation._mpy >> 10),
    or None for a bytecode-only .mpy. Raises NatmodError for a file that is no .mpy."""
    with open(path, "rb") as f:
        head = f.read(4)
    if len(head) < 4 or head[0:1] != b"M":
        raise NatmodError("%s is no .mpy file" % path)
    return (head[2] >> 2) or None


def _compiler_version(exe):
    try:
        return subprocess.run([exe, "--version"], capture_output=True, text=True, check=True).stdout.split("\n")[0]
    except (OSError, subprocess.CalledProcessError):
        return None


def key(arch):
    with open(os.path.join(CDIR, "ticketq_core.c"), "rb") as f:
        src = f.read()
    with open(os.path.join(CDIR, "Makefile"), "rb") as f:
        mk = f.read()
    h = hashlib.sha256()
    for part in (RECIPE, mpsource.tarball_sha(), arch, _compiler_version(ARCHES[arch][0]) or ""):
        h.update(part.encode() + b"\0")
    h.update(src + b"\0" + mk)
    return h.hexdigest()[:16]


def available(arch):
    """None when this machine can build arch, else why not (a str)."""
    exe, _, pkg = ARCHES[arch]
    if shutil.which(exe):
        return None
    if pkg:
        return "%s not found (Debian: apt-get install %s; tools/setup installs it)" % (exe, pkg)
    return "%s not found: no Debian or PyPI package ships a compiler for %s" % (exe, arch)


def build(arch, force=False, log=mpsource.say):
    """Path of _ticketq.mpy for arch, built unless the cache has it. NatmodError if it cannot
    be built here (available() says why) or the build fails."""
    why = available(arch)
    if why:
        raise NatmodError(why)
    try:
        import elftools  # noqa: F401  (mpy_ld.py reads the object file with pyelftools)
    except ImportError:
        raise NatmodError("pyelftools missing: run tools/setup (requirements-dev.txt)")
    out = os.path.join(mpsource.CACHE, "natmod", "%s-%s" % (arch, key(arch)), "_ticketq.mpy")
    if os.path.isfile(out) and not force:
        return out
    tree = mpsource.source_tree(log)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.dirname(out))) as tmp:
        for name in ("ticketq_core.c", "Makefile"):
            shutil.copyfile(os.path.join(CDIR, name), os.path.join(tmp, name))
        cmd = ["make", "MPY_DIR=" + tree, "ARCH=" + arch, "BUILD=build", "PYTHON=" + sys.executable]
        p = subprocess.run(cmd, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode:
            log(p.stdout[-4000:])
            raise NatmodError("make failed for %s: %s" % (arch, " ".join(cmd)))
        got = os.path.join(tmp, "_ticketq.mpy")
        if mpy_arch(got) != ARCHES[arch][1]:
            raise NatmodError("%s: the .mpy says arch %r, not %d" % (arch, mpy_arch(got), ARCHES[arch][1]))
        os.replace(got, out + ".tmp")
        os.replace(out + ".tmp", out)
    log("built _ticketq.mpy for %s: %d bytes" % (arch, os.path.getsize(out)))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(prog="ticketq firmware natmod", description=__doc__.split("\n")[0])
    p.add_argument("arch", nargs="*", help="architectures (default: %s)" % " ".join(DEFAULT))
    p.add_argument("--force", action="store_true", help="build even if the cache has it")
    p.add_argument("--out", metavar="DIR", help="also copy each to DIR/ARCH/_ticketq.mpy")
    p.add_argument("--verify", action="store_true", help="build twice from scratch: the same bytes, or exit 1")
    args = p.parse_args(argv)
    log = lambda s: print(s, file=sys.stderr)  # noqa: E731
    asked = args.arch or list(DEFAULT)
    bad = [a for a in asked if a not in ARCHES]
    if bad:
        p.error("unknown architecture %s (known: %s)" % (", ".join(bad), " ".join(ARCHES)))
    code = 0
    for arch in asked:
        why = available(arch)
        if why:
            print("SKIPPED %s: %s" % (arch, why), file=sys.stderr)
            if args.arch:
                code = 1  # asked for by name: not built is a failure
            continue
        try:
            path = build(arch, args.force, log)
            if args.verify:
                with open(path, "rb") as f:
                    first = hashlib.sha256(f.read()).hexdigest()
                build(arch, True, log)
                with open(path, "rb") as f:
                    again = hashlib.sha256(f.read()).hexdigest()
                log("%s: two builds: %s" % (arch, "the same bytes" if first == again else "DIFFERENT"))
                if first != again:
                    code = 1
        except (NatmodError, mpsource.McuError) as e:
            print("FAILED %s: %s" % (arch, e), file=sys.stderr)
            code = 1
            continue
        if args.out:
            d = os.path.join(args.out, arch)
            os.makedirs(d, exist_ok=True)
            shutil.copyfile(path, os.path.join(d, "_ticketq.mpy"))
        print("%s %d %s" % (arch, os.path.getsize(path), path))
    return code


if __name__ == "__main__":
    sys.exit(main())

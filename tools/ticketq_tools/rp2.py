#!/usr/bin/env python3
"""ticketq's Raspberry Pi Pico firmware (issue 32): MicroPython 1.28.0's rp2 port built from
../shared/rp2 with the library, the worker and the board profile frozen, cached; and the
emulated Pico (rp2040js) that runs it, its USB CDC on a pseudo-terminal for mpremote.

    ticketq firmware rp2                  # build (or reuse the cached build); print the .uf2's path
    ticketq firmware rp2 --info           # the build's sizes, hashes and paths (.uf2, .bin, .elf) as JSON
    ticketq firmware rp2 --verify         # build twice from scratch: the same sha256, or exit 1
    ticketq firmware rp2 --no-viper       # ticketq frozen without its viper module (bytecode only)
    ticketq firmware rp2 --user-c-module path/to/micropython.cmake   # a user C module compiled in
    ticketq firmware rp2350               # RPI_PICO2 (RP2350, Cortex-M33): builds, cannot be emulated here

From Python: `rp2.build("rp2")` -> (paths {"uf2", "bin", "elf"}, info dict, cached?).

Targets: rp2 = BOARD=RPI_PICO (RP2040, Cortex-M0+, armv6m), rp2350 = BOARD=RPI_PICO2 (RP2350,
Cortex-M33, armv7emsp for frozen native code). The recipe is ../shared/rp2/README.md's:
1. the tarballs (MicroPython v1.28.0 trimmed, pico-sdk 2.2.0, TinyUSB, Mbed TLS, picotool
   2.2.0) unpacked into one tree, once per set of tarball hashes, with
   mpy-tool-armv6m-align4.patch applied (mpy-tool gives frozen armv6m native code 4-byte
   alignment: without it ticketq.viper's self-check fails at import and ticketq runs its
   bytecode path, ~9x slower on a Pico); picotool built there without libusb (for the
   .uf2) and mpy-cross (for frozen modules and for the .mpy route);
2. a frozen manifest: the port's own (boards/manifest.py: onewire, ds18x20, dht, neopixel),
   ticketq's manifest.py (viper=True unless --no-viper), and the profile's FROZEN files
   (boards/rp2-frozen/board.py: firmware/worker.py, shell.py, workload.py by base name,
   the profile itself as `board`, without its host-only constants as ticketq deploy puts
   it on a board). They are copied into a staging folder inside the tree first, so the
   build does not depend on where the checkout is;
3. `make -C ports/rp2 BOARD=... BUILD=... -j2 CMAKE_ARGS="-DMICROPY_BOARD=... -Dpicotool_DIR=...
   -DMICROPY_FROZEN_MANIFEST=... [-DUSER_C_MODULES=a.cmake;b.cmake]"`, with
   SOURCE_DATE_EPOCH pinned (default: the newest file date in the MicroPython tarball), so
   that the same inputs give the same bytes (--verify checks it).
The build folder is named by what CMake caches (board, viper, the user C modules, the
compiler): a change of frozen sources rebuilds only the frozen code (~10 s); a change of
flags gets a fresh folder.

Cache: $TICKETQ_RP2_CACHE or ~/.cache/ticketq/rp2 (shared by every checkout; keyed on the
SHA-256 of every input: the tarballs, the patch, manifest.py and each frozen file as frozen,
the user C modules' files, this script, the compiler's version, SOURCE_DATE_EPOCH):
fw/<target>-<viper|noviper>-<key>/firmware.{uf2,bin,elf} and info.json. A warm cache builds
nothing.
"""
import contextlib
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from ticketq_tools import mpsource  # noqa: E402
from ticketq_tools.mpsource import _file_sha, _sha  # noqa: E402  (the hashes every cache key is made of)
SHARED = os.environ.get("TICKETQ_RP2_SHARED") or os.path.normpath(os.path.join(ROOT, "..", "shared", "rp2"))
CACHE = os.environ.get("TICKETQ_RP2_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "ticketq", "rp2")
PATCH = "mpy-tool-armv6m-align4.patch"
MPY_DIR = "micropython-1.28.0"
PICOTOOL_DIR = "picotool-2.2.0"
PROFILE = os.path.join(ROOT, "boards", "rp2-frozen", "board.py")
RECIPE = "1"  # bump when the way a firmware is built changes (part of every key)
DEBIAN = ["gcc-arm-none-eabi", "libnewlib-arm-none-eabi", "libstdc++-arm-none-eabi-newlib", "cmake",
          "build-essential", "patch", "xz-utils"]

# target -> (BOARD, what it is, the native arch of its frozen viper code, can rp2040js run it)
TARGETS = {
    "rp2": dict(board="RPI_PICO", chip="RP2040, Cortex-M0+ (armv6m)", march="armv6m", emulated=True),
    "rp2350": dict(board="RPI_PICO2", chip="RP2350, Cortex-M33 (armv7emsp)", march="armv7emsp",
                   emulated=False),
}


class BuildError(RuntimeError):
    def __init__(self, msg, code=1):
        RuntimeError.__init__(self, msg)
        self.code = code


def say(line):
    print(line, file=sys.stderr, flush=True)


def _locked(name):
    return mpsource._locked(name, CACHE)


def tarballs():
    """The source tarballs of ../shared/rp2 ($TICKETQ_RP2_SHARED), sorted."""
    if not os.path.isdir(SHARED):
        raise BuildError("no %s: the Pico sources come from ../shared/rp2 beside the checkout, or "
                         "$TICKETQ_RP2_SHARED" % SHARED, 2)
    found = sorted(os.path.join(SHARED, f) for f in os.listdir(SHARED) if f.endswith(".tar.xz"))
    if not any(os.path.basename(f).startswith("micropython-") for f in found):
        raise BuildError("%s has no micropython-*.tar.xz" % SHARED, 2)
    return found


_src_key = {}


def source_key():
    if SHARED not in _src_key:
        parts = [RECIPE]
        for f in tarballs() + [os.path.join(SHARED, PATCH)]:
            parts += [os.path.basename(f), _file_sha(f)]
        _src_key[SHARED] = _sha(*parts)[:16]
    return _src_key[SHARED]


def _run(cmd, log_path, cwd=None, env=None):
    with open(log_path, "ab") as f:
        f.write(("$ %s\n" % " ".join(cmd)).encode())
        f.flush()
        r = subprocess.run(cmd, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT)
    if r.returncode:
        with open(log_path, "rb") as f:
            tail = f.read()[-3000:].decode(errors="replace")
        raise BuildError("%s failed (exit %d), in %s; the log's end:\n%s" % (
            " ".join(cmd[:4]), r.returncode, log_path, tail))


def _tool_version(exe):
    try:
        return subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        raise BuildError("%s not found: apt-get install -y %s (tools/setup)" % (exe, " ".join(DEBIAN)), 2)


def source_tree(log=say):
    """The unpacked, patched tree with picotool and mpy-cross built: its top folder (holds
    micropython-1.28.0/, picotool-2.2.0/, picotool-inst/). Once per source_key()."""
    top = os.path.join(CACHE, "src-" + source_key())
    done = os.path.join(top, ".ready")
    if os.path.isfile(done):
        return top
    for exe in ("arm-none-eabi-gcc", "cmake", "c++"):
        if not shutil.which(exe):
            raise BuildError("%s not found: apt-get install -y %s (tools/setup)" % (exe, " ".join(DEBIAN)), 2)
    with _locked("src"):
        if os.path.isfile(done):
            return top
        shutil.rmtree(top, ignore_errors=True)
        os.makedirs(top)
        blog = os.path.join(top, "setup.log")
        t0 = time.monotonic()
        log("ticketq firmware rp2: unpacking %s into %s (log %s)" % (SHARED, top, blog))
        for tar in tarballs():
            _run(["tar", "-xJf", tar, "-C", top], blog)
        mp = os.path.join(top, MPY_DIR)
        _run(["patch", "-p1", "-i", os.path.join(SHARED, PATCH)], blog, cwd=mp)
        # SOURCE_DATE_EPOCH's default: the newest file date in MicroPython's own sources
        newest = 0
        for sub in ("py", "ports/rp2", "extmod"):
            for d, _, files in os.walk(os.path.join(mp, sub)):
                for fn in files:
                    newest = max(newest, int(os.lstat(os.path.join(d, fn)).st_mtime))
        with open(os.path.join(top, "epoch"), "w") as f:
            f.write("%d\n" % newest)
        log("ticketq firmware rp2: %5.1f s  building picotool (no libusb)" % (time.monotonic() - t0))
        pbuild = os.path.join(top, PICOTOOL_DIR, "build")
        os.makedirs(pbuild)
        _run(["cmake", "..", "-DPICO_SDK_PATH=" + os.path.join(mp, "lib", "pico-sdk"),
              "-DCMAKE_INSTALL_PREFIX=" + os.path.join(top, "picotool-inst"), "-DPICOTOOL_NO_LIBUSB=1"],
             blog, cwd=pbuild)
        _run(["make", "-j2", "install"], blog, cwd=pbuild)
        log("ticketq firmware rp2: %5.1f s  building mpy-cross" % (time.monotonic() - t0))
        _run(["make", "-j2"], blog, cwd=os.path.join(mp, "mpy-cross"))
        log("ticketq firmware rp2: %5.1f s  sources ready" % (time.monotonic() - t0))
        open(done, "w").close()
    return top


def mpy_cross(log=say):
    """MicroPython 1.28.0's mpy-cross (the firmware's own: its .mpy version), built once."""
    return os.path.join(source_tree(log), MPY_DIR, "mpy-cross", "build", "mpy-cross")


def epoch():
    env = os.environ.get("SOURCE_DATE_EPOCH")
    if env:
        return int(env)
    with open(os.path.join(source_tree(), "epoch")) as f:
        return int(f.read())


def frozen_extra():
    """(repository path, import file name) of the profile's FROZEN files: by base name, the
    profile itself as board.py."""
    from ticketq_tools import deploy

    from ticketq_tools import libnames

    prof = deploy.read_profile(PROFILE)
    lib = [rel for rel in prof.get("FROZEN", []) if rel.startswith("lib/")]
    if sorted(lib) != sorted(libnames.manifest_files(True)):  # the library comes from manifest.py
        raise BuildError("%s: FROZEN's lib/ files %s are not those manifest.py freezes with viper=True %s" % (
            PROFILE, sorted(lib), sorted(libnames.manifest_files(True))), 2)
    out = []
    for rel in prof.get("FROZEN", []):
        if rel.startswith("lib/"):  # the library: manifest.py included (_stage)
            continue
        name = "board.py" if os.path.basename(rel) == "board.py" else os.path.basename(rel)
        out.append((rel, name))
    return out


def _frozen_text(rel):
    from ticketq_tools import deploy

    path = os.path.join(ROOT, rel)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if os.path.basename(rel) == "board.py":
        return deploy.profile_for_board(text, path)
    return text


def _cmodule_files(user_c_modules):
    """Every file of each user C module's folder (the .cmake given and what is beside it)."""
    out = []
    for m in user_c_modules:
        m = os.path.abspath(m)
        if not os.path.isfile(m):
            raise BuildError("user C module %s: no such file (give its micropython.cmake)" % m, 2)
        d = os.path.dirname(m)
        for base, dirs, files in os.walk(d):
            dirs[:] = sorted(x for x in dirs if not x.startswith("."))
            for fn in sorted(files):
                out.append(os.path.join(base, fn))
    return out


def flags_key(target, viper, user_c_modules):
    """What CMake caches in a build folder (it is configured once): board, freeze, the user C
    modules' paths, the compiler. Names the folder."""
    return _sha(RECIPE, source_key(), target, TARGETS[target]["board"], viper,
                ";".join(os.path.abspath(m) for m in user_c_modules),
                _tool_version("arm-none-eabi-gcc"))[:12]


def firmware_key(target, viper, user_c_modules, stamp):
    from ticketq_tools import libnames

    parts = [flags_key(target, viper, user_c_modules), _file_sha(os.path.abspath(__file__)), stamp,
             _file_sha(libnames.MANIFEST)]
    for rel in libnames.manifest_files(viper):
        parts += [rel, _file_sha(os.path.join(ROOT, rel))]
    for rel, name in frozen_extra():
        parts += [rel, name, _sha(_frozen_text(rel))]
    for path in _cmodule_files(user_c_modules):
        parts += [path, _file_sha(path)]
    return _sha(*parts)[:16]


def _stage(stage, viper):
    """Copy what is frozen into `stage` (emptied first) and write its manifest; its path."""
    from ticketq_tools import libnames

    shutil.rmtree(stage, ignore_errors=True)
    os.makedirs(os.path.join(stage, "extra"))
    shutil.copyfile(libnames.MANIFEST, os.path.join(stage, "manifest.py"))
    for rel in libnames.manifest_files(viper):
        dst = os.path.join(stage, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(os.path.join(ROOT, rel), dst)
    lines = ['include("$(PORT_DIR)/boards/manifest.py")',
             'include("%s"%s)' % (os.path.join(stage, "manifest.py"), ", viper=True" if viper else "")]
    for rel, name in frozen_extra():
        with open(os.path.join(stage, "extra", name), "w", encoding="utf-8") as f:
            f.write(_frozen_text(rel))
        lines.append('module("%s", base_path="%s")' % (name, os.path.join(stage, "extra")))
    man = os.path.join(stage, "frozen-manifest.py")
    with open(man, "w") as f:
        f.write("# ticketq firmware rp2 (tools/ticketq_tools/rp2.py): the frozen manifest\n" + "\n".join(lines) + "\n")
    return man


def sizes(elf):
    out = subprocess.run(["arm-none-eabi-size", elf], capture_output=True, text=True, check=True).stdout
    text, data, bss = (int(v) for v in out.splitlines()[1].split()[:3])
    return {"text": text, "data": data, "bss": bss}


def out_dir(target, viper, key):
    return os.path.join(CACHE, "fw", "%s-%s-%s" % (target, "viper" if viper else "noviper", key))


def build(target="rp2", viper=True, force=False, user_c_modules=(), fresh=False, log=say):
    """Build (or take from the cache) the firmware for `target` ("rp2": RPI_PICO, "rp2350":
    RPI_PICO2). viper: ticketq frozen with viper=True. user_c_modules: paths of
    micropython.cmake files, compiled in (USER_C_MODULES). fresh: configure and build in an
    empty build folder (as --verify does). Returns ({"uf2", "bin", "elf"}: paths, info dict,
    True when it came from the cache). BuildError (code 2: setup missing) when it fails."""
    if target not in TARGETS:
        raise BuildError("no target %r (%s)" % (target, ", ".join(TARGETS)), 2)
    user_c_modules = tuple(user_c_modules)
    t = TARGETS[target]
    top = source_tree(log)
    stamp = epoch()
    key = firmware_key(target, viper, user_c_modules, stamp)
    out = out_dir(target, viper, key)
    paths = {k: os.path.join(out, "firmware." + k) for k in ("uf2", "bin", "elf")}
    info_path = os.path.join(out, "info.json")
    if not force and os.path.isfile(info_path):
        with open(info_path) as f:
            return paths, json.load(f), True
    with _locked("build-%s-%s" % (target, "viper" if viper else "noviper")):
        if not force and os.path.isfile(info_path):
            with open(info_path) as f:
                return paths, json.load(f), True
        t0 = time.monotonic()
        mp = os.path.join(top, MPY_DIR)
        port = os.path.join(mp, "ports", "rp2")
        fk = flags_key(target, viper, user_c_modules)
        build_name = "build-%s-%s" % (target, fk)
        bdir = os.path.join(port, build_name)
        # CMAKE_ARGS given on make's command line replaces the port Makefile's own (its
        # -DMICROPY_BOARD=$(BOARD) with it): the board goes in ours. A folder configured for
        # another board (before this was so, the port's default RPI_PICO) is built afresh.
        if fresh or (os.path.isdir(bdir) and not os.path.isfile(os.path.join(bdir, "pins_%s.c" % t["board"]))):
            shutil.rmtree(bdir, ignore_errors=True)
        # the staged sources at a path fixed by the flags: the same path on every rebuild
        man = _stage(os.path.join(top, "stage-%s" % fk), viper)
        # makemanifest recompiles a frozen .mpy only when its source is newer: every build
        # compiles them again (mpy-tool.py is not tracked either: ../shared/rp2/README.md)
        shutil.rmtree(os.path.join(bdir, "frozen_mpy"), ignore_errors=True)
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(bdir, "frozen_content.c"))
        cmake_args = ["-DMICROPY_BOARD=" + t["board"], "-DMICROPY_BOARD_DIR=" + os.path.join(port, "boards", t["board"]),
                      "-Dpicotool_DIR=" + os.path.join(top, "picotool-inst", "lib", "cmake", "picotool"),
                      "-DMICROPY_FROZEN_MANIFEST=" + man]
        if user_c_modules:
            cmake_args.append("-DUSER_C_MODULES=" + ";".join(os.path.abspath(m) for m in user_c_modules))
        os.makedirs(os.path.join(CACHE, "fw"), exist_ok=True)
        blog = out + ".log"
        open(blog, "w").close()
        log("ticketq firmware %s: building %s (%s) with ticketq frozen%s (log %s)" % (
            target, t["board"], "viper" if viper else "no viper",
            ", user C modules: " + ", ".join(user_c_modules) if user_c_modules else "", blog))
        env = dict(os.environ, SOURCE_DATE_EPOCH=str(stamp), LC_ALL="C.UTF-8", TZ="UTC", PYTHONHASHSEED="0")
        _run(["make", "-C", port, "BOARD=" + t["board"], "BUILD=" + build_name, "-j2",
              "CMAKE_ARGS=" + " ".join(cmake_args)], blog, env=env)
        info = sizes(os.path.join(bdir, "firmware.elf"))
        tmp = out + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        for k in ("uf2", "bin", "elf"):
            shutil.copyfile(os.path.join(bdir, "firmware." + k), os.path.join(tmp, "firmware." + k))
        info.update({
            "target": target, "board": t["board"], "chip": t["chip"], "viper": viper, "key": key,
            "source_date_epoch": stamp, "mpy_tool_patch": PATCH, "source_key": source_key(),
            "user_c_modules": [os.path.abspath(m) for m in user_c_modules],
            "frozen_extra": [rel for rel, _ in frozen_extra()],
            "uf2_bytes": os.path.getsize(os.path.join(tmp, "firmware.uf2")),
            "bin_bytes": os.path.getsize(os.path.join(tmp, "firmware.bin")),
            "sha256_uf2": _file_sha(os.path.join(tmp, "firmware.uf2")),
            "sha256_bin": _file_sha(os.path.join(tmp, "firmware.bin")),
            "build_seconds": round(time.monotonic() - t0, 1)})
        with open(os.path.join(tmp, "info.json"), "w") as f:
            json.dump(info, f, indent=1, sort_keys=True)
        shutil.rmtree(out, ignore_errors=True)
        os.replace(tmp, out)
        log("ticketq firmware %s: built in %.0f s: text %d B, firmware.uf2 %d B" % (
            target, info["build_seconds"], info["text"], info["uf2_bytes"]))
    return paths, info, False

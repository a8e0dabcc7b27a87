#!/usr/bin/env python3
"""Builds ticketq's BBC micro:bit v1 firmware: Debian's MicroPython (source package
firmware-microbit-micropython, MicroPython 1.9.2 + the DAL) with the modules named in
boards/microbit-frozen/board.py's FROZEN frozen into flash as 1.9.2 bytecode.

    ticketq firmware microbit            # build (or reuse the cached build); print the .hex path
    ticketq firmware microbit --force    # build again even if the cache has it
    ticketq firmware microbit --info     # the build's sizes: text, frozen modules, file system
    ticketq firmware microbit --verify   # build twice from scratch: the same sha256, or exit 1
    ticketq firmware natmod [ARCH ...]   # the C core as a native .mpy per architecture
                                       # (tools/ticketq_tools/ccore.py, docs/c-core.md)
    ticketq firmware unix                # the 32-bit unix port with the C core built in
                                       # (tools/ticketq_tools/unixport.py)

The .hex is what a user drags onto the MICROBIT drive (docs/microbit.md). Steps:
1. the 1.9.2 `mpy-cross` from ../shared/mcu/micropython-1.9.2.tar.xz (built once, cached);
2. each FROZEN file stripped (ticketq deploy's strip_source, board.py as the board gets
   it) and compiled with it (`mpy-cross -s NAME.py`, NAME the name it imports by: the
   package's modules with their folder, `-s ticketq/core.py`; 1.9.2 imports a frozen
   package, BENCHMARKS.md): .mpy version 2, the port's defaults;
3. 1.9.2's tools/mpy-tool.py freezes them to C against the port's own qstr table (its QDEF
   lines: `-q` cannot read that header), the new qstr pool's "allocated entries" cut to its
   used entries (left larger, the first name made at run time would reserve ~886 B of heap);
4. a fresh copy of the unpacked Debian source (tools/setup puts it in the cache) gets that C,
   MICROPY_MODULE_FROZEN_MPY and MICROPY_QSTR_EXTRA_POOL in mpconfigport.h, and a
   makeversionhdr.py that writes a pinned date (SOURCE_DATE_EPOCH, default: the date of
   debian/changelog's last entry) and no git description; then
   `PYTHONHASHSEED=0 CXXFLAGS=-std=gnu++14 make all` (yotta's link order follows the hash seed).
Same inputs, same bytes. The cache key is the sha256 of every input: the Debian source
version, the 1.9.2 tarball, the frozen sources (as frozen: a profile's host-only constants
are not), this script, SOURCE_DATE_EPOCH.

The Raspberry Pi Pico (issue 32): `ticketq firmware rp2` builds MicroPython 1.28.0's rp2
port for RPI_PICO from ../shared/rp2 with the library, the worker and its profile frozen
(tools/ticketq_tools/rp2.py says how), and prints the .uf2's path (--info: the .uf2, .bin
and .elf with sizes and hashes); `ticketq firmware rp2350` the same for RPI_PICO2 (RP2350).
Options there: --no-viper, --user-c-module FILE (a micropython.cmake, repeatable), --force,
--verify, --out.

Cache: $TICKETQ_CACHE or .cache/ in the repository (not tracked): firmware/<key>/firmware.hex
firmware/<key>/info.json (sizes) and firmware/<key>/firmware.elf. Exit: 0 built or cached; 1 the build failed (its log named);
2 setup missing (the source package: run tools/setup).
"""
import argparse
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/, this package's parent
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

PROFILE = os.path.join(ROOT, "boards", "microbit-frozen", "board.py")
MPY_TARBALL = os.path.normpath(os.path.join(ROOT, "..", "shared", "mcu", "micropython-1.9.2.tar.xz"))
SRC_PKG = "firmware-microbit-micropython"
CACHE = os.environ.get("TICKETQ_CACHE") or os.path.join(ROOT, ".cache")
POOL_ALLOC = 10  # the frozen qstr pool's "allocated entries" (see step 3)
FS_END = 0x3F800  # the file system ends one page below the compass calibration page
FS_MAX = 240 * 128  # MAX_CHUNKS_IN_FILE_SYSTEM chunks of 128 B
PAGE = 1024


class BuildError(RuntimeError):
    def __init__(self, msg, code=1):
        RuntimeError.__init__(self, msg)
        self.code = code


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def mpy_tarball():
    """$TICKETQ_MPY192, else ../shared/mcu/ beside the checkout (as ticketq mcu finds its tree)."""
    path = os.environ.get("TICKETQ_MPY192") or MPY_TARBALL
    if os.path.isfile(path):
        return path
    raise BuildError("%s not found (MicroPython 1.9.2 sources: ../shared/mcu, or set TICKETQ_MPY192)"
                     % path, 2)


def source_dir():
    """The unpacked Debian source package (tools/setup: apt-get source into the cache)."""
    found = sorted(glob.glob(os.path.join(CACHE, "debian-src", SRC_PKG + "-*", "debian", "changelog")))
    if not found:
        raise BuildError("no unpacked %s source under %s: run tools/setup (deb-src, apt-get source)"
                         % (SRC_PKG, os.path.join(CACHE, "debian-src")), 2)
    return os.path.dirname(os.path.dirname(found[-1]))


def changelog(src):
    """(version, timestamp) of debian/changelog's last entry."""
    out = subprocess.run(["dpkg-parsechangelog", "-l", os.path.join(src, "debian", "changelog"),
                          "-S", "Version"], capture_output=True, text=True, check=True).stdout.strip()
    ts = subprocess.run(["dpkg-parsechangelog", "-l", os.path.join(src, "debian", "changelog"),
                         "-S", "Timestamp"], capture_output=True, text=True, check=True).stdout.strip()
    return out, int(ts)


def frozen_files(prof):
    return [os.path.join(ROOT, p) for p in prof["FROZEN"]]


def cache_key(prof, src, epoch):
    h = hashlib.sha256()
    version, _ = changelog(src)
    parts = [("debian", version), ("mpy192", sha256_file(mpy_tarball())),
             ("script", sha256_file(os.path.abspath(__file__))), ("epoch", str(epoch)),
             ("drop", repr(prof.get("DROP", []))), ("emit", repr(prof.get("EMIT_THUMB", False))),
             ("drop_firmware", repr(prof.get("DROP_FIRMWARE", []))),
             ("config", repr(sorted(prof.get("CONFIG", {}).items())))]
    for path in frozen_files(prof):  # what is frozen of it (a profile's TESTS are not)
        parts.append((os.path.relpath(path, ROOT), hashlib.sha256(frozen_source(path, prof).encode()).hexdigest()))
    for name, value in parts:
        h.update(("%s=%s\n" % (name, value)).encode())
    return h.hexdigest()[:16]


def run(cmd, log, cwd=None, env=None):
    with open(log, "ab") as f:
        f.write(("$ %s\n" % " ".join(cmd)).encode())
        f.flush()
        r = subprocess.run(cmd, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT)
    if r.returncode:
        raise BuildError("%s failed (exit %d): see %s" % (" ".join(cmd[:3]), r.returncode, log))


def mpy_cross(log):
    """(path of the 1.9.2 mpy-cross, its tree); built once per tarball."""
    tar = mpy_tarball()
    base = os.path.join(CACHE, "mpy192-" + sha256_file(tar)[:12])
    tree = os.path.join(base, "micropython-1.9.2")
    exe = os.path.join(tree, "mpy-cross", "mpy-cross")
    if not os.path.isfile(exe):
        shutil.rmtree(base, ignore_errors=True)
        os.makedirs(base)
        run(["tar", "xJf", tar, "-C", base], log)
        run(["make", "-C", os.path.join(tree, "mpy-cross"), "-j2"], log)
    return exe, tree


def frozen_source(path, prof):
    """What is frozen for a FROZEN file: the source as ticketq deploy would put it on the
    board (stripped; the profile without host-only constants; the library less DROP)."""
    from ticketq_tools import deploy

    with open(path, encoding="utf-8") as f:
        text = f.read()
    if os.path.basename(path) == "board.py":
        return deploy.profile_for_board(text, path)
    lib = os.path.abspath(path).startswith(os.path.join(ROOT, "lib") + os.sep)
    return deploy.strip_source(text, path, prof.get("DROP", ()) if lib else ())


def freeze_c(prof, work, log):
    """The C of the frozen modules (mpy-tool.py -f against the port's qstrs)."""
    exe, tree = mpy_cross(log)
    mpys = []
    sizes = {}
    os.makedirs(work, exist_ok=True)
    from ticketq_tools import deploy

    for path in frozen_files(prof):
        # frozen by the name it imports as: a package module with its folder
        # ("ticketq/core.py": `import ticketq.core`), anything else by its base name
        name = deploy.board_name(os.path.relpath(path, ROOT))
        src = os.path.join(work, name)
        os.makedirs(os.path.dirname(src), exist_ok=True)
        with open(src, "w", encoding="utf-8") as f:
            f.write(frozen_source(path, prof))
        out = src[:-3] + ".mpy"
        run([exe, "-s", name, "-o", out, src], log)
        sizes[name[:-3]] = os.path.getsize(out)
        mpys.append(out)
    return mpys, sizes, tree


def mpy_tool_c(tree, mpys, qstr_header):
    """mpy-tool.py's freeze output as text, with the base qstrs read from QDEF lines."""
    import contextlib
    import importlib.util
    import io

    tools = os.path.join(tree, "tools")
    sys.path.insert(0, os.path.join(tree, "py"))  # makeqstrdata, which mpy-tool imports
    sys.path.insert(0, tools)
    try:
        spec = importlib.util.spec_from_file_location("mpy_tool_192", os.path.join(tools, "mpy-tool.py"))
        mt = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mt)
    finally:
        sys.path.remove(tools)
        sys.path.remove(os.path.join(tree, "py"))
    mt.config.MICROPY_LONGINT_IMPL = mt.config.MICROPY_LONGINT_IMPL_MPZ
    mt.config.MPZ_DIG_SIZE = 16
    mt.config.MICROPY_QSTR_BYTES_IN_LEN = 1
    mt.config.MICROPY_QSTR_BYTES_IN_HASH = 1
    base = {}
    with open(qstr_header) as f:
        for line in f:
            m = re.match(r"QDEF\(MP_QSTR_(\w*),", line)
            if m:
                base[m.group(1)] = len(base)
    del mt.global_qstrs[:]
    raw = [mt.read_mpy(p) for p in mpys]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        mt.freeze_mpy(base, raw)
    text = buf.getvalue()
    m = re.search(r"    (\d+), // allocated entries\n    (\d+), // used entries", text)
    if not m:
        raise BuildError("mpy-tool.py's output has no qstr pool header to cut")
    text = text.replace(m.group(0), "    %d, // allocated entries (cut: ticketq firmware)\n    %s, // used entries"
                        % (min(POOL_ALLOC, int(m.group(2))), m.group(2)))
    # the pool's entries array is sized by the initializer; allocated < used only bounds
    # how many qstr_add may append before the pool is chained: nothing is appended to it
    return text, int(m.group(2))


VERSION_HDR = '''\
import sys
# ticketq firmware: the build date pinned (SOURCE_DATE_EPOCH), no git description
with open(sys.argv[1], "w") as f:
    f.write("""// This file was generated by ticketq firmware (makeversionhdr.py replaced)
#define MICROBIT_GIT_TAG "%(tag)s"
#define MICROBIT_GIT_HASH "%(hash)s"
#define MICROBIT_BUILD_DATE "%(date)s"
""")
'''


def patch_tree(bld, c_text, epoch, version, key, emit_thumb, drop_modules=(), config=None):
    config = config or {}
    cfg = os.path.join(bld, "inc", "microbit", "mpconfigport.h")
    with open(cfg) as f:
        text = f.read()
    add = ("\n// ticketq firmware: ticketq's modules frozen as 1.9.2 bytecode\n"
           "#define MICROPY_MODULE_FROZEN_MPY (1)\n"
           "#define MICROPY_QSTR_EXTRA_POOL mp_qstr_frozen_const_pool\n")
    if emit_thumb:
        add += "#define MICROPY_EMIT_THUMB (1)\n"
    for mod in drop_modules:  # a firmware module left out: its entry in the built-in table
        line = re.search(r"\n *\{ MP_ROM_QSTR\(MP_QSTR_%s\), MP_ROM_PTR\(&%s_module\) \}, \\\n" % (mod, mod), text)
        if not line:
            raise BuildError("%s: no built-in module %r to drop" % (cfg, mod))
        text = text.replace(line.group(0), "\n", 1)
    for name, value in sorted(config.items()):  # the profile's CONFIG: settings changed
        line = re.search(r"\n#define %s +\(?[^\n]*\n" % name, text)
        if line:
            text = text.replace(line.group(0), "\n#define %s (%s) // ticketq firmware (was: %s)\n" % (
                name, value, line.group(0).split(None, 2)[2].strip()), 1)
        else:
            add += "#define %s (%s)\n" % (name, value)
    anchor = "#define MICROPY_EMIT_INLINE_THUMB   (1)\n"
    if anchor not in text:
        raise BuildError("%s: no %r to add the frozen-module settings after" % (cfg, anchor.strip()))
    with open(cfg, "w") as f:
        f.write(text.replace(anchor, anchor + add, 1))
    with open(os.path.join(bld, "source", "microbit", "ticketq_frozen.c"), "w") as f:
        f.write(c_text)
    date = time.strftime("%Y-%m-%d", time.gmtime(epoch))
    with open(os.path.join(bld, "tools", "makeversionhdr.py"), "w") as f:
        f.write(VERSION_HDR % {"tag": "v%s+ticketq" % version, "hash": key[:8], "date": date})
    for a, b in (("yotta-targets", "yotta_targets"), ("yotta-modules", "yotta_modules")):
        if os.path.isdir(os.path.join(bld, a)):
            os.rename(os.path.join(bld, a), os.path.join(bld, b))


def elf_sizes(elf):
    """text/data/bss (arm-none-eabi-size) and the file system the firmware will use."""
    out = subprocess.run(["arm-none-eabi-size", elf], capture_output=True, text=True, check=True).stdout
    text, data, bss = (int(v) for v in out.splitlines()[1].split()[:3])
    syms = {}
    nm = subprocess.run(["arm-none-eabi-nm", elf], capture_output=True, text=True, check=True).stdout
    for line in nm.splitlines():
        p = line.split()
        if len(p) == 3 and p[2] in ("__etext", "__data_start__", "__data_end__"):
            syms[p[2]] = int(p[0], 16)
    end_code = syms["__etext"] + syms["__data_end__"] - syms["__data_start__"]  # memory.h
    start = -(-(FS_END - FS_MAX) // PAGE) * PAGE  # filesystem.c: init_limits
    while start < end_code:
        start += PAGE
    return {"text": text, "data": data, "bss": bss, "end_of_code": end_code,
            "fs_start": start, "fs_bytes": max(0, FS_END - start)}


def build(force=False, log=print):
    from ticketq_tools import deploy

    prof = deploy.read_profile(PROFILE)
    src = source_dir()
    version, stamp = changelog(src)
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH") or stamp)
    key = cache_key(prof, src, epoch)
    out_dir = os.path.join(CACHE, "firmware", key)
    hex_path = os.path.join(out_dir, "firmware.hex")
    info_path = os.path.join(out_dir, "info.json")
    if not force and os.path.isfile(hex_path) and os.path.isfile(info_path):
        return hex_path, json.load(open(info_path)), True
    t0 = time.monotonic()
    tmp = os.path.join(CACHE, "firmware", key + ".build")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    blog = os.path.join(CACHE, "firmware", key + ".log")
    open(blog, "w").close()
    log("ticketq firmware: building %s %s with %d frozen modules (log: %s)" % (
        SRC_PKG, version, len(prof["FROZEN"]), os.path.relpath(blog)))
    step = lambda what: log("ticketq firmware: %6.1f s  %s" % (time.monotonic() - t0, what))  # noqa: E731
    mpys, mpy_sizes, tree = freeze_c(prof, os.path.join(tmp, "mpy"), blog)
    step("compiled %d modules with mpy-cross" % len(mpys))
    bld = os.path.join(tmp, "src")
    shutil.copytree(src, bld, symlinks=True)
    shutil.rmtree(os.path.join(bld, "build"), ignore_errors=True)
    c_text, n_qstr = mpy_tool_c(tree, mpys, os.path.join(bld, "inc", "genhdr", "qstrdefs.generated.h"))
    patch_tree(bld, c_text, epoch, version, key, prof.get("EMIT_THUMB", False), prof.get("DROP_FIRMWARE", []),
               prof.get("CONFIG", {}))
    env = dict(os.environ, PYTHONHASHSEED="0", CXXFLAGS="-std=gnu++14", SOURCE_DATE_EPOCH=str(epoch),
               LC_ALL="C.UTF-8", TZ="UTC")
    step("patched the source tree (%d frozen qstrs); make all (the longest step, ~2 min)" % n_qstr)
    run(["make", "all"], blog, cwd=bld, env=env)
    step("make all done")
    elf = os.path.join(bld, "build", "bbc-microbit-classic-gcc-nosd", "source", "microbit-micropython")
    info = elf_sizes(elf)
    info.update({"debian_version": version, "source_date_epoch": epoch, "key": key,
                 "frozen": [os.path.relpath(p, ROOT) for p in frozen_files(prof)],
                 "mpy_bytes": mpy_sizes, "frozen_qstrs": n_qstr,
                 "emit_thumb": bool(prof.get("EMIT_THUMB", False)),
                 "dropped_firmware_modules": prof.get("DROP_FIRMWARE", []),
                 "config": prof.get("CONFIG", {}),
                 "build_seconds": round(time.monotonic() - t0, 1)})
    os.makedirs(out_dir, exist_ok=True)
    shutil.copyfile(elf, os.path.join(out_dir, "firmware.elf"))  # for arm-none-eabi-size/nm
    shutil.copyfile(os.path.join(bld, "build", "firmware.hex"), hex_path + ".new")
    with open(info_path, "w") as f:
        json.dump(info, f, indent=1, sort_keys=True)
    info["sha256"] = sha256_file(hex_path + ".new")
    with open(info_path, "w") as f:
        json.dump(info, f, indent=1, sort_keys=True)
    os.replace(hex_path + ".new", hex_path)
    shutil.rmtree(tmp, ignore_errors=True)
    return hex_path, info, False


def firmware_hex(log=print):
    """Path of the built .hex (building it if the cache lacks it): for ticketq emu's users."""
    return build(log=log)[0]


# --firmware of ticketq run and ticketq devtest. Debian's stock hex ("stock") is retired
# (issue 23): it cannot compile the package, and deploy refuses its flat file system, so all
# it could do was fail (docs/microbit.md).
FIRMWARES = ("ticketq",)


def for_emulator(which, log=print):
    """(the .hex, the board profile) for an emulated micro:bit: "ticketq", this firmware
    (built here if the cache lacks it; profile microbit-frozen), the only one: Debian's
    stock hex cannot compile the library (docs/microbit.md)."""
    if which not in FIRMWARES:
        raise BuildError("firmware %r: ticketq only (Debian's stock hex is retired: it cannot compile "
                         "the library)" % which, 2)
    return build(log=log)[0], "microbit-frozen"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["natmod"]:  # the C core's native .mpy per architecture (issue 33)
        from ticketq_tools import ccore
        return ccore.main(argv[1:])
    if argv[:1] == ["unix"]:  # the 32-bit unix port with the C core built in (issue 33)
        from ticketq_tools import unixport
        return unixport.main(argv[1:])
    p = argparse.ArgumentParser(prog="ticketq firmware", description=__doc__.split("\n")[0],
                                epilog="The .hex goes onto the MICROBIT drive: docs/microbit.md. Also: "
                                       "`ticketq firmware natmod [ARCH ...]` (the C core as a native .mpy) and "
                                       "`ticketq firmware unix` (the unix port with the C core built in), each "
                                       "with its own --help (docs/c-core.md).")
    p.add_argument("board", choices=["microbit", "rp2", "rp2350"],
                   help="the board: microbit (the BBC micro:bit v1), rp2 (Raspberry Pi Pico, RP2040: RPI_PICO), "
                        "rp2350 (Raspberry Pi Pico 2: RPI_PICO2)")
    p.add_argument("--force", action="store_true", help="build even if the cache has this build")
    p.add_argument("--info", action="store_true", help="print the build's sizes as JSON, not only the path")
    p.add_argument("--out", metavar="FILE", help="also copy the .hex to FILE")
    p.add_argument("--verify", action="store_true",
                   help="build (or take from the cache), then build again from scratch and check that the "
                        "two .hex files are the same bytes (sha256): exit 1 if not")
    p.add_argument("--no-viper", action="store_true",
                   help="rp2, rp2350: ticketq frozen without its viper module (the bytecode path only)")
    p.add_argument("--user-c-module", action="append", default=[], metavar="FILE",
                   help="rp2, rp2350: a user C module's micropython.cmake, compiled in (USER_C_MODULES; repeatable)")
    args = p.parse_args(argv)
    log = lambda s: print(s, file=sys.stderr)  # noqa: E731
    if args.board != "microbit":
        return main_rp2(args, log)
    if args.no_viper or args.user_c_module:
        p.error("--no-viper and --user-c-module are for rp2 and rp2350")
    try:
        path, info, cached = build(args.force, log=log)
        if args.verify:
            first = info["sha256"]
            path, info, cached = build(True, log=log)
            same = info["sha256"] == first
            print("ticketq firmware: two builds from the same inputs: sha256 %s and %s: %s" % (
                first, info["sha256"], "the same bytes" if same else "DIFFERENT"), file=sys.stderr)
            if not same:
                return 1
    except BuildError as e:
        print("ticketq firmware: %s" % e, file=sys.stderr)
        return e.code
    print("ticketq firmware: %s (%s; sha256 %s; text %d B, file system %d B)" % (
        "cached" if cached else "built in %.0f s" % info["build_seconds"], info["key"],
        info["sha256"][:16], info["text"], info["fs_bytes"]), file=sys.stderr)
    if args.out:
        shutil.copyfile(path, args.out)
    if args.info:
        print(json.dumps(dict(info, hex=path), indent=1, sort_keys=True))
    else:
        print(path)
    return 0


def main_rp2(args, log):
    """ticketq firmware rp2 | rp2350 (tools/ticketq_tools/rp2.py)."""
    from ticketq_tools import rp2

    kw = dict(viper=not args.no_viper, user_c_modules=args.user_c_module, log=log)
    try:
        paths, info, cached = rp2.build(args.board, force=args.force, **kw)
        if args.verify:
            first = (info["sha256_uf2"], info["sha256_bin"])
            paths, info, cached = rp2.build(args.board, force=True, fresh=True, **kw)
            same = first == (info["sha256_uf2"], info["sha256_bin"])
            print("ticketq firmware: two builds from the same inputs (the second from an empty build folder): "
                  "firmware.uf2 sha256 %s and %s: %s" % (first[0], info["sha256_uf2"],
                                                         "the same bytes" if same else "DIFFERENT"), file=sys.stderr)
            if not same:
                return 1
    except rp2.BuildError as e:
        print("ticketq firmware: %s" % e, file=sys.stderr)
        return e.code
    print("ticketq firmware: %s (%s %s; sha256 %s; text %d B, firmware.uf2 %d B)" % (
        "cached" if cached else "built in %.0f s" % info["build_seconds"], info["board"], info["key"],
        info["sha256_uf2"][:16], info["text"], info["uf2_bytes"]), file=sys.stderr)
    if args.out:
        shutil.copyfile(paths["uf2"], args.out)
    if args.info:
        print(json.dumps(dict(info, **paths), indent=1, sort_keys=True))
    else:
        print(paths["uf2"])
    return 0


if __name__ == "__main__":
    sys.exit(main())

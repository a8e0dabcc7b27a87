#!/usr/bin/env python3
"""Type-check the library and the firmware against each board's published MicroPython stubs.

    .venv/bin/pip install -r tools/typecheck-requirements.txt     # pyright, once
    ticketq typecheck [TARGET ...] [--files PATH ...] [-v] [--strict]

A target is a board at one firmware version: typecheck/<target>.txt pins its stub packages
(`micropython-*-stubs` from PyPI) and the part of its name before "-" is the board profile
(boards/<board>/board.py), e.g. `rp2` (MicroPython 1.29) and `rp2-1.20` (the oldest firmware
the profile claims). Every target by default.

For each target the stubs are installed into build/typecheck/<target>/stubs (pip --target,
exact pins, once: redone when the .txt changes) and pyright checks lib/ticketq/*.py and firmware/*.py
(less the target's SKIP below) the MicroPython-stubs way: the stubs are the typeshed (stdlib)
and the stub path, and nothing of the host's CPython is visible (an empty venv), so `time`,
`utime`, `micropython`, `array`, `machine`, `asyncio` resolve to the board's firmware API or
not at all. Sibling modules resolve through lib/, firmware/ and boards/<board>/ (as `board`),
to their .pyi where there is one.

The code guards interpreter differences at run time (try/except ImportError/AttributeError,
`if hb == "microbit"`), which a static checker cannot follow. Those diagnostics, and the few
that come from the stubs themselves, are listed in typecheck/known.py, each by file, rule
and the text of its source line (not a line number), with the reason it is harmless: they are
counted, not shown (-v shows them). Entries marked "todo" are real findings not fixed yet:
shown on every run, failing only with --strict.

Exit: 0 no new finding on any target; 1 a finding (or, with --strict, a todo); 2 cannot run
(pyright not installed, pip or pyright failed).
"""
import argparse
import ast
import glob
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from ticketq_tools import libnames  # noqa: E402  (lib/'s module names)
PINS = os.path.join(ROOT, "typecheck")
BUILD = os.path.join(ROOT, "build", "typecheck")
INSTALL = ".venv/bin/pip install -r tools/typecheck-requirements.txt"

def _f(name):
    # the file of library module `name` (ticketq_tools/libnames.py: whatever lib/'s layout)
    return libnames.file_of(name) or "lib/%s.py" % name


# Modules not checked on a target ("*": on every one), and why.
NO_SOCKET = "the board client of the fleet queue needs sockets (a network), which this firmware has not"
_VIPER = ("viper code: ptr32()/uint() casts are compiler built-ins that no stub declares, and "
          "its properties stand for the attributes ticketq/__init__.pyi declares; "
          "tests/test_paths.py compares it with the bytecode class on the unix port instead")


def _both(name, why):
    # a package module
    return {_f("ticketq." + name): why}


SKIP = {
    "*": _both("viper", _VIPER),
    "microbit": dict(_both("aio", "no micro:bit firmware (v1 or V2) has asyncio"), **dict(
        _both("resp", NO_SOCKET), **_both("sentinel", NO_SOCKET))),
    "rp2": dict(_both("resp", NO_SOCKET + " (the Pico W's has; these are the plain Pico's stubs)"),
                **_both("sentinel", NO_SOCKET + " (the Pico W's has; these are the plain Pico's stubs)")),
    "host": dict(_both("resp", NO_SOCKET + " (the WebAssembly VM)"),
                 **_both("sentinel", NO_SOCKET + " (the WebAssembly VM)")),
}


def targets():
    return sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(PINS, "*.txt")))


def describe(target):
    # The first comment line of the target's pin file, and its pins.
    pins, about = [], ""
    with open(os.path.join(PINS, target + ".txt")) as f:
        for line in f:
            line = line.strip()
            if line.startswith("#") and not about:
                about = line.lstrip("# ")
            elif line and not line.startswith("#"):
                pins.append(line)
    return about, pins


def modules(target):
    skip = dict(SKIP["*"], **SKIP.get(target.split("-")[0], {}))
    # the package's modules and the firmware
    files = sorted(glob.glob(os.path.join(ROOT, "lib", "ticketq", "*.py")) +
                   glob.glob(os.path.join(ROOT, "firmware", "*.py")))
    return [f for f in files if os.path.relpath(f, ROOT) not in skip]


def load_known():
    with open(os.path.join(PINS, "known.py")) as f:
        return ast.literal_eval(f.read())


def install_stubs(target, log):
    # pip --target into a fresh folder, swapped in whole: a half-done install never stays.
    req = os.path.join(PINS, target + ".txt")
    dest = os.path.join(BUILD, target, "stubs")
    mark = os.path.join(dest, ".installed")
    with open(req) as f:
        want = f.read()
    try:
        with open(mark) as f:
            if f.read() == want:
                return dest
    except OSError:
        pass
    log("installing %s stubs: %s" % (target, ", ".join(describe(target)[1])))
    tmp = dest + ".new"
    shutil.rmtree(tmp, ignore_errors=True)
    p = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "--no-deps", "--target", tmp, "-r", req],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if p.returncode:
        raise RuntimeError("pip install --target for %s failed:\n%s" % (target, p.stdout))
    with open(os.path.join(tmp, ".installed"), "w") as f:
        f.write(want)
    shutil.rmtree(dest, ignore_errors=True)
    os.rename(tmp, dest)
    return dest


def write_config(target, stubs):
    # Generated per target, absolute paths: pyright reads it with -p. The empty venv is what
    # keeps the host's CPython library (asyncio, socket, ...) from resolving: without one,
    # pyright asks the host's python for its sys.path.
    board = target.split("-")[0]
    base = os.path.join(BUILD, target)
    os.makedirs(os.path.join(base, "novenv", "lib", "python3.11", "site-packages"), exist_ok=True)
    cfg = {
        "typeshedPath": stubs,
        "stubPath": stubs,
        "venvPath": base,
        "venv": "novenv",
        "extraPaths": [os.path.join(ROOT, "lib"), os.path.join(ROOT, "firmware"),
                       os.path.join(ROOT, "boards", board)],
        "pythonVersion": "3.11",
        "pythonPlatform": "Linux",
        "typeCheckingMode": "standard",
        # stub-only packages: no module source to find, by design
        "reportMissingModuleSource": "none",
    }
    path = os.path.join(base, "pyrightconfig.json")
    with open(path, "w") as f:
        json.dump(cfg, f, indent=2)
    return path


def pyright(config, files):
    env = dict(os.environ, PYRIGHT_PYTHON_IGNORE_WARNINGS="1")
    p = subprocess.run([sys.executable, "-m", "pyright", "--outputjson", "-p", config] + files,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                       env=env, timeout=600)
    try:
        out = json.loads(p.stdout)
    except ValueError:
        raise RuntimeError("pyright failed (exit %d):\n%s%s" % (p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    return out["generalDiagnostics"], out["summary"]


_lines = {}


def source_line(path, n):
    if path not in _lines:
        try:
            with open(path) as f:
                _lines[path] = f.read().split("\n")
        except OSError:
            _lines[path] = []
    lines = _lines[path]
    return lines[n].strip() if 0 <= n < len(lines) else ""


def match(known, target, d):
    # The known entry for this diagnostic, or None.
    rel = os.path.relpath(d["file"], ROOT)
    for i, k in enumerate(known):
        if k["targets"] != "*" and target not in k["targets"]:
            continue
        if k["file"] not in ("*", rel) or k["rule"] != d.get("rule", ""):
            continue
        if k.get("line") is not None and k["line"] != source_line(d["file"], d["range"]["start"]["line"]):
            continue
        if k.get("message") and k["message"] not in d["message"]:
            continue
        return i
    return None


def key(d, verbose):
    # One finding, whatever the target: printed once, with the targets it shows on.
    s = d["range"]["start"]
    msg = d["message"] if verbose else d["message"].split("\n")[0]
    return (os.path.relpath(d["file"], ROOT), s["line"] + 1, s["character"] + 1, d["severity"], msg,
            d.get("rule") or "-")


def show(found, note=None):
    for (rel, ln, col, sev, msg, rule), (ts, k) in found.items():
        print("%s:%d:%d: %s: %s (%s) [%s]" % (rel, ln, col, sev, msg, rule, " ".join(ts)))
        if note:
            print("    %s: %s" % (note, k["why"]))


def main(argv=None):
    ap = argparse.ArgumentParser(description="Type-check lib/ and firmware/ against each board's "
                                 "published MicroPython stubs (pyright).")
    ap.add_argument("targets", nargs="*", metavar="TARGET",
                    help="board targets (typecheck/<TARGET>.txt); default: all of %s" % ", ".join(targets()))
    ap.add_argument("--files", nargs="+", metavar="PATH",
                    help="check these files instead of lib/ticketq/*.py and firmware/*.py")
    ap.add_argument("--list", action="store_true", help="list the targets and their pinned stubs")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="also show the known false positives, and full messages")
    ap.add_argument("--strict", action="store_true", help="known real findings (todo) fail too")
    a = ap.parse_args(argv)

    names = a.targets or targets()
    for t in names:
        if t not in targets():
            ap.error("unknown target %r (have: %s)" % (t, ", ".join(targets())))
    if a.list:
        for t in names:
            about, pins = describe(t)
            print("%-11s %s\n            %s" % (t, about, " ".join(pins)))
        return 0
    try:
        import pyright as _  # noqa: F401  (the PyPI wrapper; it runs the bundled JS on node)
    except ImportError:
        print("typecheck: pyright is not installed for %s; install it with:\n  %s"
              % (sys.executable, INSTALL), file=sys.stderr)
        return 2

    known = load_known()
    log = lambda s: print("typecheck: " + s, flush=True)
    new, todos, fps = {}, {}, {}
    rows = []
    used = set()
    for t in names:
        t0 = time.time()
        try:
            stubs = install_stubs(t, log)
            files = [os.path.abspath(f) for f in a.files] if a.files else modules(t)
            diags, summary = pyright(write_config(t, stubs), files)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            print("typecheck: %s: %s" % (t, e), file=sys.stderr)
            return 2
        counts = [0, 0, 0]  # new, todo, known fp
        for d in diags:
            if d["severity"] not in ("error", "warning"):
                continue
            i = match(known, t, d)
            used.add(i)
            k = None if i is None else known[i]
            j = 0 if k is None else 1 if k.get("kind") == "todo" else 2
            counts[j] += 1
            (new, todos, fps)[j].setdefault(key(d, a.verbose), ([], k))[0].append(t)
        rows.append((t, summary["filesAnalyzed"], counts, time.time() - t0))

    show(new)
    show(todos, "TODO, a known real finding")
    if a.verbose:
        show(fps, "known false positive")
    if not a.files and set(names) == set(targets()):  # a full run: every entry had its chance
        for i, k in enumerate(known):
            if i not in used and (k["targets"] == "*" or set(k["targets"]) & set(names)):
                print("typecheck: known entry matched nothing, remove it? %s: %s (%s)"
                      % (k["file"], k["line"], k["rule"]))
    print("\ntarget      files  new  todo  known-fp  time   stubs")
    for t, n, (e, td, fp), dt in rows:
        print("%-11s %5d %4d %5d %9d %5.1fs  %s" % (t, n, e, td, fp, dt, " ".join(describe(t)[1])))
    failed = len(new) + (len(todos) if a.strict else 0)
    print("typecheck: %s" % ("%d finding(s): FAIL" % failed if failed else "OK" + (
        " (%d known real finding(s) not fixed yet, listed above)" % len(todos) if todos else "")))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

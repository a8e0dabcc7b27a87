# CPython only: the code that runs on boards keeps to what every target parses. The
# library and the firmware run unchanged on CPython >= 3.9 (checked with vermin) and on
# MicroPython down to 1.9.2 on the micro:bit: no f-strings, no walrus, no annotations (the
# .pyi stubs carry the types), and no async syntax outside ticketq.aio (the micro:bit
# firmware rejects it). The device tests compile only the modules that fit the micro:bit;
# this checks all of them.
import ast
import glob
import os
import subprocess
import sys

from support import IS_MICROPYTHON, skip

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

# Modules that never reach MicroPython 1.9 and may use what their ports parse, with why.
EXEMPT = {
    "lib/ticketq/viper.py": "the viper hot path: viper annotations (ptr32, int casts) are "
                            "its syntax; only ports with a native emitter compile it, it is in "
                            "no micro:bit profile, and ticketq falls back to bytecode without it",
}


def board_files():
    return sorted(glob.glob(os.path.join(ROOT, "lib", "*.py")) +
                  glob.glob(os.path.join(ROOT, "lib", "ticketq", "*.py")) +
                  glob.glob(os.path.join(ROOT, "firmware", "*.py")) +
                  glob.glob(os.path.join(ROOT, "boards", "*", "board.py")))


def test_micropython_1_9_syntax_only():
    if IS_MICROPYTHON:
        skip("parses the repository with CPython's ast (host only)")
    bad = []
    for path in board_files():
        if os.path.relpath(path, ROOT) in EXEMPT:
            continue
        with open(path) as f:
            tree = ast.parse(f.read())
        for n in ast.walk(tree):
            what = None
            if isinstance(n, ast.JoinedStr):
                what = "f-string"
            elif isinstance(n, ast.NamedExpr):
                what = "walrus"
            elif isinstance(n, ast.AnnAssign) or getattr(n, "returns", None) is not None or \
                    (isinstance(n, ast.arg) and n.annotation is not None):
                what = "annotation"
            elif isinstance(n, (ast.AsyncFunctionDef, ast.Await, ast.AsyncFor, ast.AsyncWith)) \
                    and not path.endswith(os.path.join("ticketq", "aio.py")):
                what = "async syntax"
            if what:
                bad.append("%s:%d: %s" % (os.path.relpath(path, ROOT), getattr(n, "lineno", 0), what))
    assert not bad, "\n".join(bad)


def test_cpython_3_9_is_enough():
    if IS_MICROPYTHON:
        skip("runs vermin on the host")
    try:
        import vermin  # noqa: F401
    except ImportError:
        skip("vermin not installed (it is in requirements-dev.txt: run tools/setup)")
    exe = os.path.join(os.path.dirname(sys.executable), "vermin")  # its console script
    out = subprocess.run([exe, "--no-tips", "-t=3.9-", "--violations"] + board_files(),
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_exempt_modules_stay_off_the_microbit():
    if IS_MICROPYTHON:
        skip("reads the repository's files (host only)")
    for rel in EXEMPT:
        assert os.path.exists(os.path.join(ROOT, rel)), rel
        with open(os.path.join(ROOT, "boards", "microbit", "board.py")) as f:
            assert rel not in f.read(), rel

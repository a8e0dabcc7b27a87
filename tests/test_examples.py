# examples/async_tickets.py (issue 22: an AsyncTickets example that runs) prints exactly
# the lines docs/deadlines.md shows, on CPython and on the MicroPython unix port (with
# MICROPYPATH=.frozen:lib, as the docs say), run as the docs write it. Host only: it
# starts the interpreters.
from support import skip, IS_MICROPYTHON


def _doc_lines(root):
    import os

    text = open(os.path.join(root, "docs", "deadlines.md"), encoding="utf-8").read()
    block = text.split("$ MICROPYPATH=.frozen:lib ../shared/micropython/micropython examples/async_tickets.py\n")[1]
    return block.split("```")[0].splitlines()


def _root():
    import os

    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_async_example_prints_what_the_docs_show_on_cpython():
    if IS_MICROPYTHON:
        skip("starts CPython on the host")
    import os
    import subprocess
    import sys

    root = _root()
    want = _doc_lines(root)
    assert want[0].startswith("pushed") and want[-1].startswith("worker: nothing"), want
    p = subprocess.run([sys.executable, "examples/async_tickets.py"], capture_output=True, text=True,
                       timeout=60, cwd=root, env=dict(os.environ, PYTHONPATH="lib"))
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == want, p.stdout


def test_the_async_example_prints_what_the_docs_show_on_the_unix_port():
    if IS_MICROPYTHON:
        skip("starts the unix port from the host")
    import os
    import subprocess
    import sys

    root = _root()
    sys.path.insert(0, os.path.join(root, "tools"))
    from ticketq_tools import mpunix

    exe, how = mpunix.find()
    if exe is None:
        skip("no MicroPython unix port: %s" % how)
    p = subprocess.run([exe, "examples/async_tickets.py"], capture_output=True, text=True, timeout=60,
                       cwd=root, env=dict(os.environ, MICROPYPATH=".frozen:lib"))
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.splitlines() == _doc_lines(root), p.stdout

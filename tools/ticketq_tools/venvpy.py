"""Run a host tool of tools/ in this checkout's .venv when the Python that started it lacks
a module the tool needs (redis-py, mpremote, pyserial), so that `tools/fleetctl.py install`
or `tools/deploy.py rp2 --connect a0` runs as written, by its shebang's python3, from any
folder. tools/setup makes the .venv (tools/fleetctl, tools/gateway and tools/dashboard run
it first). Each such tool calls, before anything else when run as a command:

    if __name__ == "__main__":
        try:
            from ticketq_tools import venvpy
            venvpy.ensure(__file__, ("redis",))
        except ImportError:  # a copy outside a checkout (the wheel's): nothing to do
            pass

Nothing happens when every module is importable here (a Python of one's own with them, the
.venv itself, a pip-installed ticketq), or when the checkout has no .venv (the tool's own
ImportError then names what is missing). Otherwise the process is replaced (os.execv) by
.venv/bin/python running the same script with the same arguments: same pid, stdin, stdout,
environment and exit status.
"""
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV = os.path.join(ROOT, ".venv")


def ensure(script, modules):
    """Rerun `script` (its __file__) in ROOT/.venv if one of `modules` (names) cannot be
    imported by this interpreter and this interpreter is not that venv's. Returns (nothing
    to do) or does not return."""
    if all(importlib.util.find_spec(m) is not None for m in modules):
        return
    py = os.path.join(VENV, "bin", "python")
    if not os.access(py, os.X_OK) or os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    os.execv(py, [py, os.path.abspath(script)] + sys.argv[1:])

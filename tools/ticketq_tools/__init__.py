"""The console scripts of `pip install ticketq[fleet]`: `ticketq-fleetctl` (tools/fleetctl.py),
`ticketq-gateway` (tools/gateway.py) and `ticketq-dashboard` (tools/dashboard.py), run from
the installed wheel without a checkout (the dashboard's --demo needs a checkout's tests/).

The wheel carries, in this package's folder, copies of tools/fleetctl.py,
tools/gateway.py, tools/dashboard.py, the fleet's Lua library (fleet/*.lua, under ticketq_tools/fleet/) and the
board worker the gateway's `--local` runs in-process (firmware/worker.py, workload.py,
shell.py); the library itself (ticketq*.py) is at the top of site-packages. Those tools
import each other by plain module name, as in a checkout, so each entry point puts this
folder first on sys.path and points fleetctl at the packaged Lua library before running the
tool's main(). From the wheel the gateway serves `--local`; `--connect` and `--unix` deploy
board profiles and use the unix-port runner of a checkout (tools/deploy.py, boards/,
tools/mpunix.py): run tools/gateway.py there.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LUA = os.path.join(HERE, "fleet")


def _load(name):
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    import fleetctl

    fleetctl.LUA = LUA  # in a checkout: ../fleet beside tools/; here: packaged beside it
    return fleetctl if name == "fleetctl" else __import__(name)


def fleetctl():
    """Entry point of `ticketq-fleetctl`: tools/fleetctl.py's main(), its exit status."""
    sys.exit(_load("fleetctl").main())


def gateway():
    """Entry point of `ticketq-gateway`: tools/gateway.py's main(), its exit status."""
    sys.exit(_load("gateway").main())


def dashboard():
    """Entry point of `ticketq-dashboard`: tools/dashboard.py's main(), its exit status."""
    sys.exit(_load("dashboard").main())

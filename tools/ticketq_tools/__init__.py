"""ticketq's host programs, one package (issue 23): each module one job, all of them one
command, `ticketq COMMAND` (cli: argparse picks the command, the module's main(argv) runs it;
the console script of pyproject.toml, in .venv after tools/setup; docs/layout.md lists them).

Modules: cli (the `ticketq` command), fleetctl (fleet queue admin CLI and the Lua loader), gateway (fleet -> board
service), dashboard (live fleet view), fleetmetrics (Prometheus exporter: prometheus_client),
exitcodes (one exit status per condition), run (the main job: the worker on a VM, an emulated
or real board), deploy (a board profile onto a board over mpremote), devtest (the test modules
on a board), emu (QEMU micro:bit), mcu (MicroPython builds for QEMU boards), mpunix (the
unix-port runner), firmware (the ticketq micro:bit firmware), typecheck, stubdocs, mutants,
testsummary (tools/test's helpers), libnames (lib/'s module names: read from manifest.py,
pyproject.toml and the board profiles, the one place that knows them).

Importing the package puts the library where its modules import it by name (`import
ticketq.fleet`, `import worker`): in a checkout, ROOT/lib and ROOT/firmware first on sys.path;
from the wheel (`pip install ticketq[fleet]`), the library is at the top of site-packages and
the board worker the gateway's --local runs (firmware/worker.py, workload.py, shell.py) is
packed in this package's board/ folder, put on sys.path; the fleet's Lua library is packed in
fleet/. From the wheel the gateway serves --local; --connect and --unix deploy board profiles
and use the unix-port runner of a checkout: run ticketq gateway there.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))  # the checkout (tools/ticketq_tools/..)
CHECKOUT = os.path.isfile(os.path.join(ROOT, "manifest.py")) and os.path.isdir(os.path.join(ROOT, "lib"))
LUA = os.path.join(ROOT, "fleet") if CHECKOUT else os.path.join(HERE, "fleet")

for _p in ((os.path.join(ROOT, "firmware"), os.path.join(ROOT, "lib")) if CHECKOUT
           else (os.path.join(HERE, "board"),)):
    if _p not in sys.path:
        sys.path.insert(0, _p)


# Board profile: the MicroPython WebAssembly VM on the host (tools/mpvm, Node.js): the
# default target of the main job. No LED. Files are copied as source into the VM's MEMFS.
# Constants only: the worker imports this file as `board`, host tools read it with
# ast.literal_eval (never exec).
NAME = "host"
CAPACITY = 256
HEARTBEAT = None
MPY = False
FILES = [
    "lib/ticketq/core.py",
    "lib/ticketq/__init__.py",
    "lib/ticketq/ticks.py",
    "lib/ticketq/audit.py",
    "firmware/worker.py",
    "firmware/shell.py",
    "firmware/workload.py",
    "firmware/workload.txt",
    "boards/host/board.py",
]

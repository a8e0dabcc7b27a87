# Board profile: BBC micro:bit v1 running ticketq's own firmware (tools/firmware microbit):
# Debian's MicroPython 1.9.2 for the micro:bit built from its source package with the
# modules in FROZEN compiled into flash (1.9.2 bytecode). Nothing of the library goes on the
# file system: the frozen modules cost no heap to compile, only their objects once imported.
# Constants only (ast.literal_eval on the host; on the board as `board`, without FILES,
# FROZEN, TESTS, DROP, frozen itself).
NAME = "microbit"
CAPACITY = 32  # queue slots
HEARTBEAT = "microbit"  # the centre pixel of the 5x5 LED display (microbit.display)
MPY = False
FILES = []  # everything the worker imports is frozen
FROZEN = [
    "lib/ticketq_heap.py",
    "lib/ticketq_base.py",
    "lib/ticketq.py",
    "lib/ticketq_deadline.py",
    "lib/ticketq_wait.py",
    "lib/ticketq_ticks.py",
    "lib/ticketq_audit.py",
    "lib/ticketq_lanes.py",
    "firmware/worker.py",
    "firmware/shell.py",
    "firmware/workload.py",
    "boards/microbit-frozen/board.py",
]
DROP = []
DROP_FIRMWARE = ["speech"]
TESTS = []
# tools/run.py feeds the worker in batches of at most this many characters of ops, one
# raw-REPL command each (a REPL command per job ran out of parser memory here: run.py).
BATCH = 160

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
# Device tests (tools/devtest.py --emulate microbit): the stock profile's list, plus what
# the frozen library makes fit: fair lanes (test_lanes_board: LaneQueue, heap_lock),
# worker._name on a firmware without type.__name__ (test_worker_names), pop_until under
# heap_lock, the sift and a small model check. Measured not to fit even so (compiling a
# test module still takes ~3x its stripped size, and this board's 1.8 KB C stack allows
# about five nested Python calls from the REPL): test_wait (3.1 KB stripped),
# test_queue_badargs (5 KB), test_lanes (8.9 KB), test_aging and test_audit (compile);
# test_queue_replay and test_queue_wrap (MemoryError running); test_heaplock_all
# (LaneQueue built two calls deep: maximum recursion depth exceeded).
TESTS = [
    "test_boot",
    "test_queue_order",
    "test_queue_api",
    "test_queue_remove",
    "test_queue_raise",
    "test_queue_errors",
    "test_queue_seq",
    "test_queue_renumber",
    "test_queue_sift",
    "test_queue_model_small",
    "test_heaplock",
    "test_heaplock_guard",
    "test_digest",
    "test_ticks",
    "test_ticks_clock",
    "test_deadline",
    "test_deadline_arm",
    "test_deadline_heaplock",
    "test_wait_board",
    "test_wait_heaplock",
    "test_worker_names",
    "test_lanes_board",
]
# tools/run.py feeds the worker in batches of at most this many characters of ops, one
# raw-REPL command each (a REPL command per job ran out of parser memory here: run.py).
BATCH = 160

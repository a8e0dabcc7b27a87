# Board profile: BBC micro:bit v1 running ticketq's own firmware (ticketq firmware microbit):
# Debian's MicroPython 1.9.2 for the micro:bit built from its source package with the
# modules in FROZEN compiled into flash (1.9.2 bytecode). Nothing of the library goes on the
# file system: the frozen modules cost no heap to compile, only their objects once imported.
# Constants only (ast.literal_eval on the host; on the board as `board`, without FILES,
# FROZEN, TESTS, DROP, frozen itself).
NAME = "microbit-frozen"  # sys.platform is "microbit": tools pick this profile by --firmware
CAPACITY = 32  # queue slots
HEARTBEAT = "microbit"  # the centre pixel of the 5x5 LED display (microbit.display)
MPY = False
FILES = []  # everything the worker imports is frozen
FROZEN = [
    "lib/ticketq/core.py",
    "lib/ticketq/__init__.py",
    "lib/ticketq/ticks.py",
    "lib/ticketq/audit.py",
    "lib/ticketq/lanes.py",
    "firmware/worker.py",
    "firmware/shell.py",
    "firmware/workload.py",
    "boards/microbit-frozen/board.py",
]
DROP = []
# Left out of the firmware to make room (measured: ticketq firmware microbit --info): the
# speech synthesiser (SAM) is ~12 KB of flash; without it every module above is frozen and
# the file system is larger than the stock hex's.
DROP_FIRMWARE = ["speech"]
# mpconfigport.h settings changed: the parser's first rule stack was 96 entries, a 768 B
# block for every REPL command, which a heap holding 32 queued job names no longer had
# in one piece ("parser could not allocate enough memory" with 5 KB free); 32 entries
# (256 B) grow by 24 when a command needs more.
CONFIG = {"MICROPY_ALLOC_PARSE_RULE_INIT": 32}
# Device tests (ticketq devtest --emulate microbit): the stock profile's list, plus what
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
# ticketq run feeds the worker in batches of at most this many characters of ops, one
# raw-REPL command each (a REPL command per job ran out of parser memory here: run.py).
# Measured on the sample workload ten times over (970 jobs) with a 32-slot queue: batches
# of 160 stopped after ~120 jobs ("parser could not allocate enough memory": 32 queued
# job names leave the 3.6 KB free in pieces), batches of 64 ran it all, the free heap
# after each batch between 3584 and 4912 B with no drift (138 s; 16-slot queue: 77 s).
# With the package ticketq/ frozen (issue 23): at least 3008 B, then 2992 B (86 s).
BATCH = 64

# Board profile: BBC micro:bit v1 (nRF51822, 16 KB RAM, ~10 KB MicroPython heap), running
# MicroPython 1.9.2 (Debian's firmware-microbit-micropython; the QEMU "microbit" machine).
# Constants only: the worker imports this file on the board as `board`, host tools read it
# with ast.literal_eval (never exec). The filesystem is flat (~15 KB): every file lands by
# its base name, this one as board.py. No .mpy loading, no os.stat, no sys.modules, a 1.8 KB
# C stack (a chain of nested imports hits "maximum recursion depth exceeded": import
# ticketq at the REPL before worker). Files go on stripped (tools/deploy.py).
#
# RAM, measured under QEMU (gc.mem_free() after gc.collect(); tools/emu.py):
#   after boot 9808 B free. Every function costs ~70-110 B of heap once imported, every
#   statement ~13 B, every new name ~10 B; compiling a module needs ~20-25 B per statement
#   for a moment on top of that, and the heap must keep a free 0.5 KB block for the REPL
#   to parse a line ("parser could not allocate enough memory" otherwise).
#   import ticketq (ticketq_heap + ticketq_queue)    4624 B    -> 5184 B free
#   import ticketq_deadline (Deadline, ticks_*)       1360 B    (1152 B on a fresh heap)
#   import worker                                     1792 B    (+2672 B while compiling)
#   w = worker.Worker(32)                             1088 B    (the queue's ~400-780 B, the
#                                                               job table and counters 700 B)
#   a 50-job REPL session (submit, cancel, refused,   ~400 B
#   a failing job, run)
# With today's ticketq (4.7 KB) `import worker` fails (MemoryError while compiling it, with
# 5.1 KB free in pieces). With ticketq replaced by a 1.6 KB stand-in of the same interface
# the rest fits: 4.0 KB free after the session. The firmware needs about 3.9 KB besides
# ticketq and its queue; ticketq_ticks (FakeClock: +0.7 KB) and ticketq_wait (+0.7 KB)
# are not imported by the worker and stay off; firmware/shell.py and firmware/workload.py
# (REPL conveniences, sample workload) do not fit: drive worker.Worker directly.
NAME = "microbit"
CAPACITY = 32  # queue slots: 256 bytes of queue arrays, 34-slot job table
HEARTBEAT = "microbit"  # the centre pixel of the 5x5 LED display (microbit.display)
MPY = False
FILES = [  # what the worker imports, in the order to import them at the REPL
    "lib/ticketq_heap.py",
    "lib/ticketq_queue.py",
    "lib/ticketq.py",
    "lib/ticketq_deadline.py",
    "firmware/worker.py",
    "boards/microbit/board.py",
]

# Device tests (tools/devtest.py, and the micro:bit stage of tools/test): the test modules
# that run here, one at a time after a soft reset, next to the library (~4.6 KB). The
# others need asyncio, hypothesis or CPython, or do not fit yet: compiling a test module
# needs about 3x its stripped size of free heap (test_queue_sift, _renumber, _seq,
# _replay, _model_small, test_aging with ticketq_audit), their loops need more than is
# left (test_queue_wrap), or a raise through support.raises nests deeper than the 1.8 KB
# C stack allows (test_queue_errors, _badargs). They run on the VM and CPython.
TESTS = [
    "test_boot",
    "test_queue_order",
    "test_queue_api",
    "test_queue_remove",
    "test_queue_raise",
    "test_heaplock",
    "test_heaplock_guard",
    "test_digest",
    "test_ticks",
    "test_ticks_clock",
    "test_deadline",
    "test_deadline_arm",
    "test_deadline_heaplock",
]

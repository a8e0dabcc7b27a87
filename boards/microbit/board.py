# RETIRED (issue 23): Debian's stock hex no longer compiles the library (the queue in one
# module: MemoryError at `import ticketq`, measured; BENCHMARKS.md), and its flat filesystem
# cannot hold the package ticketq/ (ticketq deploy refuses it: no folders). Use
# boards/microbit-frozen (ticketq's firmware). The figures below were measured with the old
# three-module flat library; FILES names the package's files the worker imports, for the
# host tools that still read this profile (type checks, the stripped-source size plans).
# Board profile: BBC micro:bit v1 (nRF51822, 16 KB RAM, ~10 KB MicroPython heap), running
# MicroPython 1.9.2 (Debian's firmware-microbit-micropython; the QEMU "microbit" machine).
# Constants only: the worker imports this file on the board as `board`, host tools read it
# with ast.literal_eval (never exec). The filesystem is flat (~15 KB): every file lands by
# its base name, this one as board.py. No .mpy loading, no os.stat, no sys.modules, a 1.8 KB
# C stack (an import inside a function, or a chain of nested imports three deep, stops with
# "maximum recursion depth exceeded": import ticketq at the REPL before worker). Files go
# on stripped (ticketq deploy).
#
# RAM, measured under QEMU (gc.mem_free() after gc.collect(); ticketq emu):
#   after boot 9808 B free. Every function costs ~70-110 B of heap once imported, every
#   new name ~10 B (and the 61st, 141st... interned name a new table of 336, 656... B);
#   compiling a module needs about three times its stripped size free for a moment, and
#   the heap must keep a free 0.5 KB block for the REPL to parse a line.
#   import ticketq (then three flat modules)             4816 B  -> 4992 B free
#   q = ticketq.TicketQueue(32)                          848 B  (arrays 2 x 144 B)
#   Deadline, ticks_* (then a module of their own)       1248 B  (with a 336 B name table)
#   import worker                                       ~2000 B  (needs ~5.4 KB free to
#                                                                compile: MemoryError)
#   w = worker.Worker(32)                                1088 B  (its queue, the job table)
# So the worker does not fit: 3.8 KB are free after the library and Deadline, and
# even with compiling for free library + Deadline + worker + Worker(32) leave ~0.6 KB,
# less than a REPL command and a session's job names need (docs/microbit.md).
# pop_until (+0.74 KB) is on for the REPL, not imported by the worker (with
# the library and Deadline, 2.9 KB stay free: README's Deadline loop runs,
# test_wait_board);
# FakeClock (+0.7 KB) stays off; ticketq/lanes.py (fair lanes, 7.2 KB stripped) would need ~22 KB free to
# compile, more than the whole heap, so it and its test modules (test_lanes*) stay off too;
# firmware/shell.py and firmware/workload.py (REPL conveniences, sample workload) do not
# fit either.
NAME = "microbit"
CAPACITY = 32  # queue slots: 256 bytes of queue arrays, 34-slot job table
HEARTBEAT = "microbit"  # the centre pixel of the 5x5 LED display (microbit.display)
MPY = False
FILES = [  # what the worker imports, in the order to import them at the REPL
    "lib/ticketq/core.py",
    "lib/ticketq/__init__.py",
    "lib/ticketq/ticks.py",
    "firmware/worker.py",
    "boards/microbit/board.py",
]

# Left out of the library's files here (ticketq deploy): ticketq.__version__ adds two
# names to `import ticketq`, past the 60 of the interpreter's first name tables, so the
# import grows the table by 336 B; that cost test_queue_errors its room to compile
# (measured). Read the version on the host: package.json, or ticketq.__version__ there.
# ticketq.WHY (why the bytecode path: here always "no module named 'ticketq.viper'") keeps
# its message, 48 B after the import, enough for tools/bench's kernels to stop compiling
# beside the library (measured): left out too, with the `as e` that makes it.
DROP = ["__version__", "WHY"]

# Device tests (ticketq devtest, and the micro:bit stage of tools/test): the test modules
# that run here, one at a time after a soft reset, next to the library (~4.8 KB). The
# others need asyncio, hypothesis or CPython, or do not fit: compiling a test module needs
# about 3x its stripped size of free heap (test_queue_sift, _replay, _model_small,
# _badargs, test_aging with ticketq.audit), or their loops need more than is left
# (test_queue_wrap). They run on the VM and CPython. (test_queue_errors, _seq and
# _renumber fit since the library was split in modules: ticketq and
# ticketq.core.)
TESTS = [
    "test_boot",
    "test_queue_order",
    "test_queue_api",
    "test_queue_remove",
    "test_queue_raise",
    "test_queue_errors",
    "test_queue_seq",
    "test_queue_renumber",
    "test_heaplock",
    "test_heaplock_guard",
    "test_digest",
    "test_ticks",
    "test_ticks_clock",
    "test_deadline",
    "test_deadline_arm",
    "test_deadline_heaplock",
    "test_wait_board",
]

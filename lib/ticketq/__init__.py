# ticketq: a clock-free, preallocated priority queue of integer job tickets: the package
# users import. The queue itself (heap, exceptions, the bytecode TicketQueue) is in
# ticketq.core; this module re-exports it and, at the bottom, swaps in the viper class where
# the port compiles it (ticketq.viper), as CPython's heapq swaps in _heapq. Documentation:
# the docstrings (help(), editors; __init__.pyi carries the types). mpy-cross and freezing
# drop them, ticketq deploy strips them for a board that compiles source.
"""ticketq: a clock-free, preallocated priority queue of integer job tickets.

A *ticket* is ``(job id, priority class, sequence number)``. The queue assigns the
sequence number itself at push time: a logical clock that starts at ``first_seq`` and
goes up by one per push, modulo 2**30. It never reads a clock, so two boards that see the
same pushes, pops and removes in the same order produce the same schedule.

Order: higher priority class first; within a class, the ticket pushed first (FIFO). Its
sequence number is the lower one, except across the 2**30 wrap, where the oldest ticket
has the higher number: "oldest" in these docs always means pushed first.
This is FreeRTOS's rule for tasks of equal priority, and the ``[priority, count, task]``
recipe of CPython's ``heapq`` notes; unlike Rust's ``heapless::BinaryHeap`` the order is
total, so equal classes never pop in arbitrary order.

Strict priority: a lower class pops only when no higher class is queued, so a steady stream
of higher-class tickets starves lower classes for ever. Pass ``aging=N`` to promote the
oldest waiting ticket below CRITICAL one class every N pops (driven by the pop counter,
never by time).

Memory: all storage is allocated in the constructor: two ``array('i')`` of ``capacity``
slots, 8 bytes a slot. ``push``, ``pop``, ``peek``, ``remove`` and ``len`` allocate nothing
on MicroPython (proved under ``micropython.heap_lock()``), and every integer they touch is
a small int (-2**30 <= v < 2**30) on a 32-bit port. The queue holds ids, never payloads:
the caller keeps the id-to-job table. Under the lock a *bad argument* raises MemoryError
instead of its TypeError/ValueError (the message cannot be built); the queue is unchanged
all the same. QueueFull and QueueEmpty are raised as usual (preallocated).

Integers (the one rule of the whole library: the queue, ``ticketq.ticks.Deadline``,
``ticketq.audit``): an int argument may be an int, a bool or an int subclass (an IntEnum
member), on every interpreter and in every method, and counts as its plain int value (the
queue stores and returns plain ints). Anything else raises TypeError with the library's
message naming the argument (``"priority must be int"``); an int out of range raises
ValueError naming the range. On MicroPython, where ``isinstance(True, int)`` is False and
int subclasses do not compare with ints, the library converts them itself.

Hot paths (``PATH``): fastest, where its native module ``_ticketq`` is present (a ``.mpy``
per instruction set on ``sys.path``, or built into the firmware), the C core (``"c"``:
c/ticketq_core.c, docs/c-core.md), checked at import by ``ticketq.ccore`` like the viper
class; block it with ``sys.modules["_ticketq"] = None``. Else, on ports with MicroPython's native emitter (rp2, esp32, stm32, the
unix port) ``TicketQueue`` is the viper class of ``ticketq.viper`` (push, pop, peek and
len as ``@micropython.viper`` code, ~10x the bytecode speed, docs/speed.md); elsewhere
(the WebAssembly VM, the micro:bit, CPython, and a 64-bit unix port) it is the bytecode
class, as it is wherever ``ticketq.viper`` fails to load for any reason (an exception of
any kind while importing it: no emitter, a corrupt or foreign ``.mpy``, MemoryError, or its
own self-check: ``ticketq.viper`` checks its class at import, ~0.1 ms on the unix port, and
refuses to load when a viper method takes an argument too many or gets a short fixed run
of pushes and pops wrong, as frozen armv6m code at an address 2 mod 4 does). ``WHY`` says
why.
``ticketq.lanes.LaneQueue`` stands on the bytecode class on every path. Both classes keep
this contract exactly: same results, digest, errors, renumbering and aging, no allocation. To force the bytecode path (tests, benchmarks), block the viper
module before the first ``import ticketq``: ``sys.modules["ticketq.viper"] = None``.

Modules (the package ``ticketq``; each module is one thing of the domain, none imports in a
circle):

* ``ticketq`` (this API) re-exports ``ticketq.core`` and swaps in ``ticketq.viper``'s class
  at its bottom where that loads, as CPython's ``heapq`` swaps in ``_heapq``;
* ``ticketq.core``: the heap on two arrays (key layout, sift-up/sift-down, renumbering),
  the exceptions and the bytecode class;
* ``ticketq.lanes``: fair lanes (``LaneQueue``), with keyed lanes in ``ticketq.keyed``,
  loaded only by a queue made with ``max_lanes``;
* ``ticketq.ticks``: tick arithmetic, ``Deadline``, ``FakeClock`` and the blocking
  ``pop_until``; ``ticketq.aio``: the same wait for asyncio;
* ``ticketq.audit`` (not needed at run time): lists the queued tickets (``tickets(q)``),
  explains an order (``explain``), keeps a trace of the last pops (``Trace``) and states
  the aging bound (``max_wait``);
* ``ticketq.fleet`` and ``ticketq.resp``: the same contract kept in Redis or Valkey, and the
  RESP client a board with sockets uses for it.
"""

from ticketq.core import TicketQueue, QueueBase, QueueFull, QueueEmpty, LOW, NORMAL, HIGH, CRITICAL

__version__ = "0.1.0"  # as package.json, manifest.py and pyproject.toml (tests/test_version.py)

# The hot path: the C core where its module _ticketq loads, else viper where the port
# compiles it (ticketq.ccore picks, falling back to ticketq.viper), else this bytecode class.
# PATH says which ("c", "viper" or "bytecode"). To force the bytecode path, block
# the module before the first import: sys.modules["ticketq.viper"] = None.
# Any failure to load it keeps the bytecode path, not only ImportError (no module: the
# micro:bit, CPython): SyntaxError or NotImplementedError (no emitter: the VM), ValueError
# (a corrupt or foreign .mpy), MemoryError (compiling it). (PATH comes from the module, not
# from a `PATH = "viper"` line here: that one costs the micro:bit's `import ticketq` 96 B.
# And a tuple, redundant as it is: `except Exception:` compiles a few bytes smaller, which
# moved the micro:bit's heap layout so that test_queue_renumber no longer compiled there,
# measured with ticketq devtest --emulate microbit; this keeps the old layout.)
PATH = "bytecode"
try:
    import sys

    # blocked: say so in WHY (MicroPython 1.9.2, the
    # micro:bit's, has no sys.modules)
    _m = getattr(sys, "modules", {})
    if _m.get("ticketq.viper", 0) is None:
        raise ImportError("ticketq.viper blocked in sys.modules")
    from ticketq.ccore import TicketQueue, PATH, WHY
except (ImportError, Exception) as e:
    WHY = str(e)  # why not viper (None when it is): its import's error, self-check included

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

Integers (the one rule of the whole library: the queue, ``ticketq_ticks.Deadline``,
``ticketq_audit``): an int argument may be an int, a bool or an int subclass (an IntEnum
member), on every interpreter and in every method, and counts as its plain int value (the
queue stores and returns plain ints). Anything else raises TypeError with the library's
message naming the argument (``"priority must be int"``); an int out of range raises
ValueError naming the range. On MicroPython, where ``isinstance(True, int)`` is False and
int subclasses do not compare with ints, the library converts them itself.

Hot paths (``PATH``): on ports with MicroPython's native emitter (rp2, esp32, stm32, the
unix port) ``TicketQueue`` is the viper class of ``ticketq_viper`` (push, pop, peek and
len as ``@micropython.viper`` code, ~10x the bytecode speed, docs/speed.md); elsewhere
(the WebAssembly VM, the micro:bit, CPython, and a 64-bit unix port) it is the bytecode
class, as it is wherever ``ticketq_viper`` fails to load for any reason (an exception of
any kind while importing it: no emitter, a corrupt or foreign ``.mpy``, MemoryError, or its
own self-check: ``ticketq_viper`` checks its class at import, ~0.1 ms on the unix port, and
refuses to load when a viper method takes an argument too many or gets a short fixed run
of pushes and pops wrong, as frozen armv6m code at an address 2 mod 4 does). ``WHY`` says
why.
``ticketq_lanes.LaneQueue`` stands on the bytecode class on every path. Both keep this contract exactly: same results, digest, errors, renumbering and
aging, no allocation. To force the bytecode path (tests, benchmarks), block the viper
module before the first ``import ticketq``: ``sys.modules["ticketq_viper"] = None``.

Modules: ``ticketq`` (this API, and the hot half of the class: push, pop, peek, len)
imports ``ticketq_heap`` (the heap on two arrays: key layout, sift-up/sift-down,
renumbering) and then ``ticketq_base`` (the exceptions, construction, clear, full, remove,
repr), in that order, so that each compiles on a BBC micro:bit v1. ``ticketq_audit`` (not needed at run
time) lists the queued tickets (``tickets(q)``), explains an order (``explain``), keeps a
trace of the last pops (``Trace``) and states the aging bound (``max_wait``).
"""

from array import array
from typing import Any, Optional

LOW: int  # 0
NORMAL: int  # 1
HIGH: int  # 2
CRITICAL: int  # 3: pops first

PATH: str
"""The hot path in use: ``"viper"`` (ticketq_viper) or ``"bytecode"``; see "Hot paths"."""

WHY: Optional[str]
"""Why ``PATH`` is ``"bytecode"``: ``None`` on the viper path, else ``str()`` of the exception
that kept ``ticketq_viper`` out (its message; empty only for an exception raised without
one). E.g. ``"no module named 'ticketq_viper'"`` (the micro:bit), ``"invalid micropython
decorator"`` (the WebAssembly VM), ``"ticketq_viper: 32-bit ports only"`` (CPython, a 64-bit
unix port), ``"can't import name TicketQueue"`` (MicroPython with the bytecode path forced),
``"ticketq_viper: self-check failed: ..."`` (the import's self-check found the viper class
wrong: docs/armv6m-frozen-viper.md). Set once, at the first ``import ticketq``."""

__version__: str
"""The library's version, ``"MAJOR.MINOR.PATCH"``: the same in ``package.json`` (mip),
``manifest.py`` (frozen builds) and the ``ticketq`` pip package (CHANGELOG.md). Not on a
BBC micro:bit v1: ``tools/deploy.py`` leaves the line out there, where its two names cost
``import ticketq`` 0.3 KB of heap (docs/install.md)."""


class QueueFull(Exception):
    """Raised by push on a full queue; the queue is unchanged (no sequence number spent).

    Backpressure: even a CRITICAL ticket cannot jump a full queue. On MicroPython a fresh
    instance is raised while the heap can allocate, and one preallocated instance while
    ``micropython.heap_lock()`` is in force, so raising never allocates under the lock and
    no instance's traceback grows without bound.
    """


class QueueEmpty(Exception):
    """Raised by pop and peek on an empty queue; raised like QueueFull (no allocation)."""


class TicketQueue:
    """A bounded priority queue of integer job tickets (a binary min-heap of keys).

    Each slot stores one key ``((1 - class) << 29) + internal_sequence`` and one job id in
    two ``array('i')``: the smallest key pops first and every key is a small int. Heap
    invariant (as in CPython's ``heapq``): ``key[(i - 1) >> 1] < key[i]`` for every slot i.
    """

    capacity: int
    """Number of slots, fixed at construction, 1 <= capacity <= 2**24. Read only, by
    contract: it is a plain attribute (a property would slow every push on a board), and
    assigning it breaks the queue (the arrays keep their size)."""

    aging: int
    """Promote the oldest ticket (pushed first) below CRITICAL one class every ``aging`` pops;
    0 = off. 0 <= aging <= 2**30 - 1 (a small int). Checked by the constructor only: it may
    be reassigned between pops, to a plain int in that range, but the assignment is not
    checked (a property would slow every pop on a board). The viper class refuses a non-int
    there (TypeError). The bytecode class stores whatever it is given: None turns aging off
    without an error, a float promotes on its own arithmetic, and a str raises TypeError in
    a later pop, after that pop's ticket has left the queue."""

    last_priority: int
    """Class (0..3) of the ticket the last pop() returned; -1 before the first pop since
    construction or clear() (as the digest, it describes the schedule since then)."""

    last_seq: int
    """Sequence number (0 <= s < 2**30) of the ticket the last pop() returned; -1 before the
    first pop since construction or clear()."""

    digest: int
    """Schedule digest, 0 <= digest < 2**30: a pure function of the pops since construction
    or clear(). Two boards compare whole schedules by comparing this one number."""

    trace: Any
    """None, or an object whose ``record(id, cls, seq, promoted)`` pop calls (see
    ticketq_audit.Trace: a preallocated ring of the last K pops; a LaneQueue passes the
    lane too, ``record(id, cls, seq, promoted, lane)``, for lanes other than 0)."""

    def __init__(self, capacity: int, first_seq: int = 0, aging: int = 0) -> None:
        """Allocate all storage: 8 bytes a slot, two arrays, nothing more ever.

        capacity: 1 <= capacity <= 2**24 slots (RAM is the real bound: 32 slots = 256 B).
        first_seq: the sequence number of the first push, 0 <= first_seq < 2**30. Lets a
            board that restores or mirrors a queue continue its sequence.
        aging: 0 (default, strict priority) or 1 <= N <= 2**30 - 1: every N pops, the
            oldest queued ticket (pushed first) below CRITICAL moves up one class (keeping
            its sequence number).

        Raises TypeError for a non-int, ValueError for a value out of range (see
        "Integers" in the module doc: bools and int subclasses count as their value).
        """

    def push(self, job_id: int, priority: int) -> int:
        """Queue a ticket; return its sequence number (0 <= seq < 2**30).

        job_id: 0 <= job_id < 2**30; ids need not be unique.
        priority: LOW, NORMAL, HIGH or CRITICAL (0..3).

        Raises TypeError (non-int; bools and int subclasses count as their value, see
        "Integers") or ValueError (out of range) for bad input, QueueFull if ``len(q) == capacity``; in
        every such case the queue is unchanged and no sequence number is used up. O(log n)
        sift-up; no allocation.

        The internal counter runs out after 2**29 pushes, then once per 3/4 * 2**29 pushes;
        the queued tickets are then renumbered in place (O(n), plus O(n) per ticket that
        has waited through more than 2**27 later pushes). Relative order is always kept
        exactly; a ticket that waited through fewer than 2**27 later pushes keeps the exact
        sequence number push returned. An older one is packed just below the recent ones:
        its number becomes *larger*, still below every later ticket's, and may equal a
        number ``last_seq`` already reported for an earlier pop (sequence numbers are unique
        among queued tickets, not over a whole schedule once a ticket waited that long).
        """

    def pop(self) -> int:
        """Remove the next ticket (highest class, then the oldest: pushed first); return its
        job id.

        Sets ``last_priority`` and ``last_seq`` to that ticket's class and sequence number
        and folds the ticket into ``digest``. With aging on, every ``aging``-th pop then
        promotes one ticket (an O(n) scan). Raises QueueEmpty on an empty queue (unchanged).
        O(log n) sift-down; no allocation.
        """

    def peek(self) -> int:
        """Job id of the next ticket, not removed. Raises QueueEmpty. O(1); no allocation."""

    def remove(self, job_id: int) -> bool:
        """Remove the oldest queued ticket (pushed first) with this job id.

        Returns True if one was removed, False if none is queued. The ticket that fills the
        hole is sifted up or down as it needs. Raises TypeError/ValueError for an id that
        push would refuse (queue unchanged). O(n) search + O(log n) repair; no allocation.
        """

    def full(self) -> bool:
        """True when ``len(q) == capacity``: the next push raises QueueFull."""

    def clear(self) -> None:
        """Drop every ticket; start a new schedule: ``digest`` back to its empty value,
        ``last_priority`` and ``last_seq`` back to -1, the aging count restarted. The
        sequence goes on (a logical clock never goes back): the next push gets the number
        after the last one handed out. O(1); no allocation."""

    def __len__(self) -> int:
        """Number of queued tickets, 0..capacity. ``bool(q)`` is ``len(q) > 0``."""

    def __repr__(self) -> str:
        """``<TicketQueue n/capacity CRITICAL=c HIGH=h NORMAL=m LOW=l>`` (allocates)."""

    # Not API: what the subclass ticketq_lanes.LaneQueue shares (its slots hold the same
    # keys and ids, unordered), declared so that the type checker sees it.
    _k: array  # keys, ((1 - class) << 29) + internal sequence, slots 0 .. len - 1
    _d: array  # job ids, ~id once aging promoted the ticket
    _n: int
    _nxt: int  # the next internal sequence number
    _nb: int  # outside sequence = internal + _nb, modulo 2**30
    _lim: int  # the internal counter's limit (tests narrow it)
    _left: int  # pops to the next promotion

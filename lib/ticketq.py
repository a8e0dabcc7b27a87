# ticketq: a clock-free, preallocated priority queue of integer job tickets. Documentation:
# the docstrings below (help(), editors; the .pyi stubs carry the types). mpy-cross and
# freezing drop them, tools/deploy.py strips them for a board that compiles source.
#
# A ticket is (job id, priority class, sequence number). The queue numbers tickets itself
# at push time; no clock is ever read. Order: higher class first, then pushed first.
# Storage: two array('i') of `capacity` slots (8 bytes a slot) allocated in __init__, kept
# as a binary heap by ticketq_heap, where the key layout and the invariant are stated.
#
# Three modules, so that each compiles on a BBC micro:bit v1 (see ticketq_base.py): this
# one (the hot path: push, pop, peek, len), ticketq_heap (the heap on two arrays, and the
# argument checker) and ticketq_base (the exceptions, construction, clear, full, remove,
# repr). This one compiles first, while the most heap is free, then the heap and then the
# base, which imports the heap already there: a chain of nested imports three deep would
# overflow the micro:bit's 1.8 KB C stack. (Measured there: the other orders and splits
# tried need more free heap.)
#
# Sequence numbers: the one seen outside is (first_seq + pushes) mod 2**30, derived from the
# internal one s (0 <= s < _lim = 2**29) as s + _nb where _nb = base - 2**30 is negative, so
# the sum never leaves the small-int range. When the internal counter reaches _lim the
# queued tickets are renumbered in place (ticketq_heap.renumber), keeping their order.
#
# Hot paths (push, pop, peek, len, and remove in ticketq_base) allocate nothing: no tuples,
# slices, closures, formatting, or ints outside -2**30 <= v < 2**30. Errors are raised as a
# fresh instance when the heap allows it and as a preallocated one when it is locked
# (ticketq_base._err).
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
from ticketq_heap import up, down, promote, renumber, _int, const  # const: CPython's stand-in
from ticketq_base import QueueBase, QueueFull, QueueEmpty, _FULL, _EMPTY, _err

__version__ = "0.1.0"  # as package.json, manifest.py and pyproject.toml (tests/test_version.py)

LOW = const(0)
NORMAL = const(1)
HIGH = const(2)
CRITICAL = const(3)

_MASK = const(0x3FFFFFFF)  # 2**30 - 1: sequence numbers and ids are 30-bit
_SMASK = const(0x1FFFFFFF)  # internal sequence bits of a key


class TicketQueue(QueueBase):
    """A bounded priority queue of integer job tickets (a binary min-heap of keys).

    Each slot stores one key ``((1 - class) << 29) + internal_sequence`` and one job id in
    two ``array('i')``: the smallest key pops first and every key is a small int. Heap
    invariant (as in CPython's ``heapq``): ``key[(i - 1) >> 1] < key[i]`` for every slot i.
    """
    def __len__(self):
        """Number of queued tickets, 0..capacity. ``bool(q)`` is ``len(q) > 0``.
        """
        return self._n

    def push(self, job_id, priority):
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
        try:
            # p: out of range, negative, or not an int. An int-like that shifts but is no int
            # (numpy's uint8 on CPython) has a sum that is no int: without that test it was
            # queued in the wrong class (-uint8(3) wraps) or raised halfway through the push.
            # Bools and int subclasses add up to an int (else they take the checker's way).
            p = job_id >> 30 or priority >> 2 or type(job_id + priority) is not int
        except TypeError:
            p = 1
        if p:
            _int(job_id, 0, _MASK, "job id")  # raises the specific error
            _int(priority, 0, 3, "priority")
        n = self._n
        if n >= self.capacity:
            raise _err(_FULL)
        # The free slot takes the id first and the class is shifted before anything changes.
        # Bools and int subclasses pass the checks and work as their int values from here.
        self._d[n] = job_id
        p = (-priority + 1) << 29  # not 1 - priority: MicroPython's int - int subclass fails
        s = self._nxt
        if s >= self._lim:
            # Keep tickets from the last quarter of the range exact; pack older ones.
            w = renumber(self._k, n, s - (self._lim >> 2))
            s -= w
            w += self._nb
            self._nb = w if w < 0 else w - _MASK - 1
        self._nxt = s + 1
        self._n = n + 1
        up(self._k, self._d, n, p + s, job_id)
        s += self._nb
        return s if s >= 0 else s + _MASK + 1

    def peek(self):
        """Job id of the next ticket, not removed. Raises QueueEmpty. O(1); no allocation.
        """
        if not self._n:
            raise _err(_EMPTY)
        i = self._d[0]
        return i if i >= 0 else ~i

    def pop(self):
        """Remove the next ticket (highest class, then the oldest: pushed first); return its
        job id.

        Sets ``last_priority`` and ``last_seq`` to that ticket's class and sequence number
        and folds the ticket into ``digest``. With aging on, every ``aging``-th pop then
        promotes one ticket (an O(n) scan). Raises QueueEmpty on an empty queue (unchanged).
        O(log n) sift-down; no allocation.
        """
        n = self._n - 1
        if n < 0:
            raise _err(_EMPTY)
        k = self._k
        d = self._d
        key = k[0]
        i = d[0]
        self._n = n
        if n:
            down(k, d, n, 0, k[n], d[n])
        c = 1 - (key >> 29)
        s = (key & _SMASK) + self._nb
        if s < 0:
            s = s + _MASK + 1
        self.last_priority = c
        self.last_seq = s
        p = i < 0
        if p:
            i = ~i
        # Schedule digest: rotate left 5 within 30 bits, fold in the id, rotate again, fold
        # in sequence and class. Masking before each shift keeps every value a small int.
        x = self.digest
        x = ((x & 0x1FFFFFF) << 5 | x >> 25) ^ i
        self.digest = ((x & 0x1FFFFFF) << 5 | x >> 25) ^ s ^ c << 28
        if self.trace is not None:
            self.trace.record(i, c, s, p)
        if self.aging:
            self._left -= 1
            if self._left <= 0:
                self._left = self.aging
                promote(k, d, n)
        return i


# The hot path: viper where the port compiles it (ticketq_viper), this bytecode class where
# it does not. PATH says which ("viper" or "bytecode"). To force the bytecode path, block
# the module before the first import: sys.modules["ticketq_viper"] = None.
# Any failure to load it keeps the bytecode path, not only ImportError (no module: the
# micro:bit, CPython): SyntaxError or NotImplementedError (no emitter: the VM), ValueError
# (a corrupt or foreign .mpy), MemoryError (compiling it). (PATH comes from the module, not
# from a `PATH = "viper"` line here: that one costs the micro:bit's `import ticketq` 96 B.
# And a tuple, redundant as it is: `except Exception:` compiles a few bytes smaller, which
# moved the micro:bit's heap layout so that test_queue_renumber no longer compiled there,
# measured with tools/devtest.py --emulate microbit; this keeps the old layout.)
PATH = "bytecode"
try:
    from ticketq_viper import TicketQueue, PATH, WHY
except (ImportError, Exception) as e:
    WHY = str(e)  # why not viper (None when it is): its import's error, self-check included

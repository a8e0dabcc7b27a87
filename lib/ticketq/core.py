# ticketq.core: the queue itself, heap and class together: the binary heap on two arrays
# (functions, as CPython's heapq works on a list), the exceptions, and the bytecode
# TicketQueue (QueueBase: construction, clear, full, remove, repr; TicketQueue: the hot path
# push, pop, peek, len). `ticketq` re-exports it and swaps in ticketq.viper's class at the
# bottom where that loads, as heapq swaps in _heapq; ticketq.viper and ticketq.lanes build
# on this module, so nothing imports in a circle. Documentation: the docstrings below
# (help(), editors; __init__.pyi carries the types). mpy-cross and freezing drop them.
#
# Slots 0 .. n-1 of two array('i'):
#   k[i]  the key,  ((1 - class) << 29) + s  where s is the internal sequence, 0 <= s < 2**29
#   d[i]  the job id, or ~id (negative) once aging promoted the ticket
# The smaller key pops first: class 3 keys lie in [-2**30, -2**29), class 0 in [2**29, 2**30),
# so every key is a small int on a 32-bit port (-2**30 <= v < 2**30) and one integer
# comparison orders two tickets. Keys are unique because live sequences are.
#
# The invariant, stated once: k[(i - 1) >> 1] < k[i] for every slot 0 < i < n.
# Sift-up and sift-down move a hole instead of swapping (one write per level).
# Nothing here allocates; every integer stays a small int.
"""ticketq.core: the queue itself: the binary heap on two arrays, the exceptions
(``QueueFull``, ``QueueEmpty``), ``QueueBase`` and the bytecode ``TicketQueue``. Users import
``ticketq``, which re-exports all of it (and swaps in ticketq.viper's class where it loads);
this module is what ticketq.viper, ticketq.lanes, ticketq.keyed, ticketq.ticks and
ticketq.audit build on, importing nothing of the package themselves in a circle.

The heap: slots 0..n-1 of two ``array('i')`` of ``capacity`` slots, ``k`` the keys and ``d``
the job ids (``~id``, negative, once aging promoted the ticket). A key is
``((1 - class) << 29) + s``, ``s`` the internal sequence (0 <= s < 2**29): the smaller key pops
first, every key is a small int (-2**30 <= v < 2**30) and one integer comparison orders two
tickets. The invariant: ``k[(i - 1) >> 1] < k[i]`` for every slot 0 < i < n (keys are unique
because live sequences are). The functions ``up``, ``down``, ``delete``, ``oldest``,
``promote`` and ``renumber`` work on the arrays as CPython's ``heapq`` works on a list: each
O(log n) (``oldest``, ``renumber``: O(n)), none allocates.

Errors: TypeError/ValueError for a bad argument, naming it (MemoryError under heap_lock,
the message cannot be built), QueueFull at a push into a full queue, QueueEmpty at a pop or
peek of an empty one; the queue is unchanged by any of them.

Design sources: CPython's ``Lib/heapq.py`` (the invariant stated once, sift by moving a
hole, the ``[priority, count, task]`` recipe for FIFO among equals); FreeRTOS's rule for
tasks of equal priority; Rust's ``heapless::BinaryHeap`` (capacity fixed at construction,
a full push refused, nothing allocated).
"""
from array import array

try:
    from micropython import const
except ImportError:
    const = lambda x: x

_SMASK = const(0x1FFFFFFF)  # the internal sequence bits of a key
# (Names cost the micro:bit RAM once its qstr pool is full: every identifier of these three
# modules is interned, locals included, so they reuse a few short names.)


def up(k, d, i, key, v):
    """Put (key, v) in the hole at slot i, moving larger parents down. O(log n)."""
    while i:
        p = (i - 1) >> 1
        if k[p] < key:
            break
        k[i] = k[p]
        d[i] = d[p]
        i = p
    k[i] = key
    d[i] = v


def down(k, d, n, i, key, v):
    """Put (key, v) in the hole at slot i of n, moving smaller children up. O(log n)."""
    c = 2 * i + 1
    while c < n:
        if c + 1 < n and k[c + 1] < k[c]:
            c += 1
        if key < k[c]:
            break
        k[i] = k[c]
        d[i] = d[c]
        i = c
        c = 2 * i + 1
    k[i] = key
    d[i] = v


def delete(k, d, n, j):
    """Remove slot j of n (n - 1 remain). The last ticket fills the hole; it may belong
    above it or below it, so it is sifted whichever way it needs. O(log n).
    """
    n -= 1
    if j < n:
        if j and k[n] < k[(j - 1) >> 1]:
            up(k, d, j, k[n], d[n])
        else:
            down(k, d, n, j, k[n], d[n])


def oldest(k, d, n, v):
    """Slot of the oldest ticket (pushed first: the lowest internal sequence, which unlike
    the outside number never wraps) with job id v, or, for v < 0, of the oldest ticket
    below the top class; -1 if there is none. O(n).
    """
    j = -1
    w = 0x20000000  # above every internal sequence
    for i in range(n):
        x = d[i]
        if (x == v or ~x == v) if v >= 0 else k[i] >= -0x20000000:  # below class 3
            s = k[i] & _SMASK
            if s < w:
                w = s
                j = i
    return j


def promote(k, d, n):
    """Aging: the oldest ticket below the top class moves up one class, keeping its
    sequence, and is marked promoted (~id). Its key only gets smaller: it can only go up.
    """
    j = oldest(k, d, n, -1)
    if j >= 0:
        v = d[j]
        up(k, d, j, k[j] - 0x20000000, v if v < 0 else ~v)


def renumber(k, n, w):
    """The internal counter ran out. Tickets with sequence >= w (the recent ones) are
    shifted down together and so keep their outside numbers; older ones are packed to 0,
    1, ... in order. No comparison between two tickets changes: the heap stays valid as
    it is. Returns the shift applied to the recent ones. O(n) + O(n) per packed ticket.
    c: tickets packed so far; p: the sequence of the last one packed.
    """
    c = 0
    p = -1
    while 1:
        # The next oldest ticket below w. A packed value never exceeds the one it replaced,
        # so packed slots fall at or below `p` and are not found again.
        x = w
        j = -1
        for i in range(n):
            s = k[i] & _SMASK
            if p < s < x:
                x = s
                j = i
        if j < 0:
            break
        k[j] += c - x
        p = x
        c += 1
    w -= c
    for i in range(n):
        if k[i] & _SMASK >= c:
            k[i] -= w
    return w


def _int(v, i, j, s):
    # One checker for the int arguments of ticketq (the queue, ticketq.audit): uniform
    # messages, and a small library (each distinct message string costs RAM on a micro:bit).
    # The rule (ticketq's docstring, "Integers"): any int, bool or int subclass (an IntEnum member)
    # counts as its plain int value, which is returned; MicroPython's isinstance(True, int)
    # is False, and its int subclasses do not compare with ints, hence the bool test and
    # the conversion before the range check (v + 0, as int(v) fails for an int subclass on
    # MicroPython 1.9). v: the value, i..j: its range (i None: any int), s: its name.
    if not isinstance(v, int) and type(v) is not bool:
        raise TypeError(s + " must be int")
    v = v + 0
    if i is not None and not i <= v <= j:
        raise ValueError("%s must be %d..%d" % (s, i, j))
    return v



# Plain numbers:
#   0x3FFFFFFF  2**30 - 1, the largest sequence number and job id
#   0x20000000  2**29, the internal sequence limit (ticketq.py)
_DIG0 = 0x2A5F0C3  # the digest of an empty schedule (tests compare with it)


class QueueFull(Exception):
    """Raised by push on a full queue; the queue is unchanged (no sequence number spent).

    Backpressure: even a CRITICAL ticket cannot jump a full queue. On MicroPython a fresh
    instance is raised while the heap can allocate, and one preallocated instance while
    ``micropython.heap_lock()`` is in force, so raising never allocates under the lock and
    no instance's traceback grows without bound.
    """
    pass


class QueueEmpty(Exception):
    """Raised by pop and peek on an empty queue; raised like QueueFull (no allocation).
    """
    pass


_FULL = QueueFull("ticket queue full")
_EMPTY = QueueEmpty("ticket queue empty")


def _err(e):
    # MicroPython appends to an exception's traceback on every raise, so one instance raised
    # forever grows without bound. A fresh instance (collected after use) avoids that; under
    # heap_lock the allocation fails and the preallocated instance is raised instead, whose
    # traceback cannot grow then either.
    try:
        return type(e)(e.args[0])
    except MemoryError:
        return e


class QueueBase:
    """Not for use on its own: ticketq.TicketQueue adds push, pop, peek and len. The fields
    (_k, _d, _n, _nxt, _nb, _lim: the sequence numbers) are explained there.
    """
    def __init__(self, capacity, first_seq=0, aging=0):
        """Allocate all storage: 8 bytes a slot, two arrays, nothing more ever.

        capacity: 1 <= capacity <= 2**24 slots (RAM is the real bound: 32 slots = 256 B).
        first_seq: the sequence number of the first push, 0 <= first_seq < 2**30. Lets a
            board that restores or mirrors a queue continue its sequence.
        aging: 0 (default, strict priority) or 1 <= N <= 2**30 - 1: every N pops, the
            oldest queued ticket (pushed first) below CRITICAL moves up one class (keeping
            its sequence number).

        Raises TypeError for a non-int, ValueError for a value out of range (see
        "Integers" in ticketq's docstring: bools and int subclasses count as their value).
        """
        capacity = _int(capacity, 1, 0x1000000, "capacity")
        first_seq = _int(first_seq, 0, 0x3FFFFFFF, "first_seq")
        aging = _int(aging, 0, 0x3FFFFFFF, "aging")
        self.capacity = capacity
        self.aging = aging
        self._k = array("i", range(capacity))
        self._d = array("i", range(capacity))
        self._lim = 0x20000000  # tests narrow it to wrap the internal counter in a few pushes
        self._nb = first_seq - 0x3FFFFFFF - 1  # both small ints: 2**30 is not one
        self._nxt = 0
        self.trace = None
        self.clear()

    def clear(self):
        # Empties the queue and restarts the digest and aging count; the sequence goes on
        # (it is a logical clock: it never goes back).
        """Drop every ticket; start a new schedule: ``digest`` back to its empty value,
        ``last_priority`` and ``last_seq`` back to -1, the aging count restarted. The
        sequence goes on (a logical clock never goes back): the next push gets the number
        after the last one handed out. O(1); no allocation.
        """
        self._n = 0
        self._left = self.aging
        self.digest = _DIG0
        self.last_priority = -1
        self.last_seq = -1

    def full(self):
        """True when ``len(q) == capacity``: the next push raises QueueFull.
        """
        return self._n >= self.capacity

    def remove(self, job_id):
        # The oldest ticket with this id: O(n) search, O(log n) repair.
        """Remove the oldest queued ticket (pushed first) with this job id.

        Returns True if one was removed, False if none is queued. The ticket that fills the
        hole is sifted up or down as it needs. Raises TypeError/ValueError for an id that
        push would refuse (queue unchanged). O(n) search + O(log n) repair; no allocation.
        """
        job_id = _int(job_id, 0, 0x3FFFFFFF, "job id")
        j = oldest(self._k, self._d, self._n, job_id)
        if j < 0:
            return False
        delete(self._k, self._d, self._n, j)
        self._n -= 1
        return True

    def __repr__(self):
        """``<TicketQueue n/capacity CRITICAL=c HIGH=h NORMAL=m LOW=l>`` (allocates).
        """
        c = [0, 0, 0, 0]
        for j in range(self._n):
            c[1 - (self._k[j] >> 29)] += 1
        return "<TicketQueue %d/%d CRITICAL=%d HIGH=%d NORMAL=%d LOW=%d>" % (
            self._n, self.capacity, c[3], c[2], c[1], c[0])


LOW = const(0)
NORMAL = const(1)
HIGH = const(2)
CRITICAL = const(3)

_MASK = const(0x3FFFFFFF)  # 2**30 - 1: sequence numbers and ids are 30-bit


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
        Both positional only: the viper path's push takes no keywords (TypeError there), so
        ``q.push(7, HIGH)``, never ``q.push(job_id=7, ...)``; the stub says so to type checkers.

        Raises TypeError (non-int; bools and int subclasses count as their value: "Integers" in
        ticketq's docstring) or ValueError (out of range) for bad input, QueueFull if ``len(q) == capacity``; in
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

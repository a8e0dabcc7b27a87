# ticketq_queue: the public ticket queue, imported through ticketq.py (see there why).
# Full documentation (shapes, ranges, errors, complexity) is in ticketq.pyi; run-time
# docstrings are kept out because a micro:bit keeps them in RAM, comments cost nothing.
#
# A ticket is (job id, priority class, sequence number). The queue numbers tickets itself
# at push time; no clock is ever read. Order: higher class first, then lower sequence.
# Storage: two array('i') of `capacity` slots (8 bytes a slot) allocated in __init__, kept
# as a binary heap by ticketq_heap, where the key layout and the invariant are stated.
#
# Sequence numbers: the one seen outside is (first_seq + pushes) mod 2**30, derived from the
# internal one s (0 <= s < _lim = 2**29) as s + _nb where _nb = base - 2**30 is negative, so
# the sum never leaves the small-int range. When the internal counter reaches _lim the
# queued tickets are renumbered in place (ticketq_heap.renumber), keeping their order.
#
# Hot paths (push, pop, peek, remove, len) allocate nothing: no tuples, slices, closures,
# formatting, or ints outside -2**30 <= v < 2**30. Errors are raised as a fresh instance
# when the heap allows it and as a preallocated one when it is locked (see _err).
from array import array
from ticketq_heap import up, down, delete, oldest, promote, renumber

try:
    from micropython import const
except ImportError:
    const = lambda x: x

LOW = const(0)
NORMAL = const(1)
HIGH = const(2)
CRITICAL = const(3)

_MASK = const(0x3FFFFFFF)  # 2**30 - 1: sequence numbers and ids are 30-bit
_SMASK = const(0x1FFFFFFF)  # internal sequence bits of a key
_LIM = const(0x20000000)  # 2**29: internal sequences stay below this
_DIG0 = const(0x2A5F0C3)  # digest of an empty schedule


class QueueFull(Exception):
    pass


class QueueEmpty(Exception):
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


def _int(v, lo, hi, what):
    # One checker for every argument: uniform messages, and a small module (each distinct
    # message string costs RAM on a micro:bit).
    if type(v) is not int and type(v) is not bool:  # bools are ints, as in CPython
        raise TypeError(what + " must be int")
    if not lo <= v <= hi:
        raise ValueError("%s must be %d..%d" % (what, lo, hi))


class TicketQueue:
    def __init__(self, capacity, first_seq=0, aging=0):
        _int(capacity, 1, 0x1000000, "capacity")
        _int(first_seq, 0, _MASK, "first_seq")
        _int(aging, 0, _MASK, "aging")
        self.capacity = capacity
        self.aging = aging
        self._k = array("i", range(capacity))
        self._d = array("i", range(capacity))
        self._lim = _LIM  # tests narrow it to wrap the internal counter in a few pushes
        self._nb = first_seq - _MASK - 1
        self._nxt = 0
        self.trace = None
        self.clear()

    def clear(self):
        # Empties the queue and restarts the digest and aging count; the sequence goes on
        # (it is a logical clock: it never goes back).
        self._n = 0
        self._left = self.aging
        self.digest = _DIG0
        self.last_priority = -1
        self.last_seq = -1

    def __len__(self):
        return self._n

    def full(self):
        return self._n >= self.capacity

    def push(self, job_id, priority):
        try:
            p = job_id >> 30 or priority >> 2  # p: out of range, negative (or not an int)
        except TypeError:
            p = 1
        if p:
            _int(job_id, 0, _MASK, "job id")  # raises the specific error
            _int(priority, 0, 3, "priority")
        n = self._n
        if n >= self.capacity:
            raise _err(_FULL)
        # The free slot takes the id first and the class is shifted before anything changes:
        # an int-like object that passed the shifts but is no int fails here, queue unchanged.
        self._d[n] = job_id
        p = (1 - priority) << 29
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
        if not self._n:
            raise _err(_EMPTY)
        i = self._d[0]
        return i if i >= 0 else ~i

    def pop(self):
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
        g = self.digest
        g = ((g & 0x1FFFFFF) << 5 | g >> 25) ^ i
        self.digest = ((g & 0x1FFFFFF) << 5 | g >> 25) ^ s ^ c << 28
        if self.trace is not None:
            self.trace.record(i, c, s, p)
        if self.aging:
            self._left -= 1
            if self._left <= 0:
                self._left = self.aging
                promote(k, d, n)
        return i

    def remove(self, job_id):
        # The oldest ticket with this id: O(n) search, O(log n) repair.
        _int(job_id, 0, _MASK, "job id")
        j = oldest(self._k, self._d, self._n, job_id)
        if j < 0:
            return False
        delete(self._k, self._d, self._n, j)
        self._n -= 1
        return True

    def __repr__(self):
        c = [0, 0, 0, 0]
        for j in range(self._n):
            c[1 - (self._k[j] >> 29)] += 1
        return "<TicketQueue %d/%d CRITICAL=%d HIGH=%d NORMAL=%d LOW=%d>" % (
            self._n, self.capacity, c[3], c[2], c[1], c[0])

# ticketq: a clock-free, preallocated priority queue of integer job tickets.
# Full documentation (shapes, ranges, errors, complexity) is in ticketq.pyi; run-time
# docstrings are kept out because a micro:bit keeps them in RAM, comments cost nothing.
#
# A ticket is (job id, priority class, sequence number). The queue numbers tickets itself
# at push time; no clock is ever read. Order: higher class first, then lower sequence.
#
# Storage: two array('i') of `capacity` slots, 8 bytes a slot, allocated in __init__:
#   _k[i]  the key,  ((1 - class) << 29) + s  where s is the internal sequence, 0 <= s < 2**29
#   _d[i]  the job id, or ~id (negative) once aging promoted the ticket
# The smaller key pops first: class 3 keys lie in [-2**30, -2**29), class 0 in [2**29, 2**30),
# so every key is a small int on a 32-bit port (-2**30 <= v < 2**30) and one integer
# comparison orders two tickets. Keys are unique because live sequences are.
#
# Heap invariant, as in CPython's heapq: _k[p] < _k[c] for every child c of p, (c-1)>>1 == p,
# over slots 0 .. _n-1. Only the root is the minimum; pop and remove keep it with
# sift-up/sift-down that move a hole instead of swapping (one write per level).
#
# Sequence numbers: the one seen outside is (first_seq + pushes) mod 2**30, derived from the
# internal one as s + _nb where _nb = base - 2**30 (negative), so the sum never leaves the
# small-int range. When the internal counter reaches _lim the queued tickets are renumbered
# in place (_renum), keeping their relative order exact.
#
# Hot paths (push, pop, peek, remove, len) allocate nothing: no tuples, slices, closures,
# formatting, or ints outside the small-int range. Errors are raised as a fresh instance
# when the heap allows it and as a preallocated one when it is locked (see _err).
from array import array

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
_TOP = const(-0x20000000)  # keys below this are class 3 (CRITICAL)
_DIG0 = const(0x2A5F0C3)  # digest of an empty schedule


class QueueFull(Exception):
    pass


class QueueEmpty(Exception):
    pass


_FULL = QueueFull("ticket queue full")
_EMPTY = QueueEmpty("ticket queue empty")


def _err(cls, pre):
    # MicroPython appends to an exception's traceback on every raise, so one instance raised
    # forever grows without bound. A fresh instance (collected after use) avoids that; under
    # heap_lock the allocation fails and the preallocated instance is raised instead, whose
    # traceback cannot grow then either.
    try:
        return cls(pre.args[0])
    except MemoryError:
        return pre


def _id(x):
    if type(x) is not int:
        raise TypeError("job id must be int")
    if not 0 <= x <= _MASK:
        raise ValueError("job id must be 0 <= id < 2**30")


class TicketQueue:
    def __init__(self, capacity, first_seq=0, aging=0):
        for v in (capacity, first_seq, aging):
            if type(v) is not int:
                raise TypeError("capacity, first_seq and aging must be int")
        if not 0 < capacity <= 0x1000000:
            raise ValueError("capacity must be 1..2**24")
        if not 0 <= first_seq <= _MASK:
            raise ValueError("first_seq must be 0 <= first_seq < 2**30")
        if aging < 0:
            raise ValueError("aging must be >= 0")
        self.capacity = capacity
        self.aging = aging
        self._k = array("i", range(capacity))
        self._d = array("i", range(capacity))
        self._lim = _LIM
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
        _id(job_id)
        if type(priority) is not int:
            raise TypeError("priority must be int")
        if not 0 <= priority <= 3:
            raise ValueError("priority must be 0..3 (LOW..CRITICAL)")
        n = self._n
        if n >= self.capacity:
            raise _err(QueueFull, _FULL)
        s = self._nxt
        if s >= self._lim:
            self._renum()
            s = self._nxt
        self._nxt = s + 1
        self._n = n + 1
        self._up(n, ((1 - priority) << 29) + s, job_id)
        s += self._nb
        return s if s >= 0 else s + _MASK + 1

    def peek(self):
        if not self._n:
            raise _err(QueueEmpty, _EMPTY)
        i = self._d[0]
        return i if i >= 0 else ~i

    def pop(self):
        n = self._n - 1
        if n < 0:
            raise _err(QueueEmpty, _EMPTY)
        k = self._k
        d = self._d
        key = k[0]
        i = d[0]
        self._n = n
        if n:
            self._down(0, k[n], d[n])
        c = 1 - (key >> 29)
        s = (key & _SMASK) + self._nb
        if s < 0:
            s = s + _MASK + 1
        self.last_priority = c
        self.last_seq = s
        p = i < 0
        if p:
            i = ~i
        # Schedule digest: rotate left 5 within 30 bits, then fold in id, then sequence and
        # class. Masking before the shift keeps every intermediate a small int.
        g = self.digest
        g = ((g & 0x1FFFFFF) << 5 | g >> 25) ^ i
        self.digest = ((g & 0x1FFFFFF) << 5 | g >> 25) ^ s ^ c << 28
        if self.trace is not None:
            self.trace.record(i, c, s, p)
        if self.aging:
            self._left -= 1
            if self._left <= 0:
                self._left = self.aging
                self._promote()
        return i

    def remove(self, job_id):
        # O(n) search for the oldest ticket with this id, then O(log n) repair.
        _id(job_id)
        k = self._k
        d = self._d
        j = -1
        b = _LIM
        for i in range(self._n):
            x = d[i]
            if x == job_id or ~x == job_id:
                s = k[i] & _SMASK
                if s < b:
                    b = s
                    j = i
        if j < 0:
            return False
        n = self._n - 1
        self._n = n
        if j < n:
            # The last ticket fills the hole; it may belong above it or below it.
            if j and k[n] < k[(j - 1) >> 1]:
                self._up(j, k[n], d[n])
            else:
                self._down(j, k[n], d[n])
        return True

    def _up(self, i, key, v):
        k = self._k
        d = self._d
        while i:
            p = (i - 1) >> 1
            if k[p] < key:
                break
            k[i] = k[p]
            d[i] = d[p]
            i = p
        k[i] = key
        d[i] = v

    def _down(self, i, key, v):
        k = self._k
        d = self._d
        n = self._n
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

    def _promote(self):
        # Aging: the oldest ticket below the top class moves up one class, keeping its
        # sequence number. O(n) scan, then sift-up (its key only gets smaller).
        k = self._k
        j = -1
        b = _LIM
        for i in range(self._n):
            x = k[i]
            if x >= _TOP and x & _SMASK < b:
                b = x & _SMASK
                j = i
        if j >= 0:
            v = self._d[j]
            self._up(j, k[j] - _LIM, v if v < 0 else ~v)

    def _renum(self):
        # The internal counter reached _lim. Tickets pushed in the last _lim/4 pushes keep
        # their numbers exactly (shifted down together); older ones, which have waited
        # through 2**27 later pushes, are packed to 0, 1, ... in order and so renumbered.
        # No comparison between two tickets changes, so the heap stays valid as it is.
        # Cost: O(n) per renumbering, plus O(n) per packed ticket; once per 3/4 * 2**29 pushes.
        k = self._k
        n = self._n
        w = self._nxt - (self._lim >> 2)
        o = 0
        prev = -1
        while 1:
            # The next oldest ticket below w. A packed value never exceeds the one it
            # replaced, so packed slots fall at or below `prev` and are not found again.
            b = w
            j = -1
            for i in range(n):
                s = k[i] & _SMASK
                if prev < s < b:
                    b = s
                    j = i
            if j < 0:
                break
            k[j] += o - b
            prev = b
            o += 1
        w -= o
        for i in range(n):
            if k[i] & _SMASK >= o:
                k[i] -= w
        self._nxt -= w
        s = self._nb + w
        self._nb = s if s < 0 else s - _MASK - 1

    def tickets(self):
        # REPL helper: [(id, class, seq), ...] in pop order. Allocates; leaves the queue as is.
        k = self._k
        out = []
        for j in sorted(range(self._n), key=lambda j: k[j]):
            key = k[j]
            i = self._d[j]
            s = (key & _SMASK) + self._nb
            out.append((i if i >= 0 else ~i, 1 - (key >> 29), s if s >= 0 else s + _MASK + 1))
        return out

    def __repr__(self):
        c = [0, 0, 0, 0]
        for j in range(self._n):
            c[1 - (self._k[j] >> 29)] += 1
        return "<TicketQueue %d/%d CRITICAL=%d HIGH=%d NORMAL=%d LOW=%d>" % (
            self._n, self.capacity, c[3], c[2], c[1], c[0])

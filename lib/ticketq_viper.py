# ticketq_viper: the hot path of ticketq.TicketQueue (push, pop, peek, len) as viper code,
# for ports with MicroPython's native emitters (rp2, esp32, stm32, the unix port). ticketq
# imports it at the end and, where it compiles, exports its TicketQueue instead of the
# bytecode one; where it does not (no such module on the micro:bit, "invalid micropython
# decorator" on the WebAssembly VM, no `micropython` module on CPython) the bytecode class
# stays. Same contract, same digest, same errors, same heap layout (ticketq_heap), so
# remove, clear, renumbering, aging and ticketq_audit are shared, unchanged.
#
# Not in the micro:bit profile and outside the MicroPython 1.9 syntax check: viper needs
# annotations (tests/test_syntax.py names this module and why).
#
# Why the scalar fields live in one array here: a viper function reads an array through a
# ptr32 at machine speed, while every instance attribute costs a dictionary lookup in the
# runtime. So _n, _nxt, _lim, _nb, _left, digest, last_priority, last_seq and aging are
# properties over the slots of self._s (array('i')), and the code shared with the bytecode
# class (ticketq_base, ticketq_heap, ticketq_audit) reads and writes them as attributes, as
# ever. trace is a property too: it keeps one flag in self._s up to date, so pop tests one
# word for "trace or aging" (issue 12).
#
# Every value that leaves viper (returned, stored, passed to a helper) is a small int:
# keys, ids and sequence numbers stay within -2**30 <= v < 2**30 as in the bytecode path.
import sys

if sys.maxsize >> 32:
    # _bind keeps array addresses in 32-bit slots: a 64-bit port runs the bytecode path.
    raise ImportError("ticketq_viper: 32-bit ports only")
import micropython  # ImportError on CPython
from micropython import const
from array import array
from ticketq import TicketQueue as BytecodeQueue
from ticketq_heap import promote, renumber, _int
from ticketq_base import _err, _FULL, _EMPTY

PATH = "viper"

# Slots of self._s.
_N = const(0)  # queued tickets
_CAP = const(1)  # capacity (a copy: the attribute stays, read only by contract)
_NXT = const(2)  # next internal sequence
_LIM = const(3)  # internal sequence limit (tests narrow it)
_NB = const(4)  # outside base, negative: see ticketq.py
_DIG = const(5)  # digest
_LP = const(6)  # last_priority
_LS = const(7)  # last_seq
_AGE = const(8)  # aging
_LEFT = const(9)  # pops left before the next promotion
_SLOW = const(10)  # 1 when a trace is attached or aging is on: pop takes the slow tail
_KA = const(11)  # the address of _k's items (see _bind)
_DA = const(12)  # the address of _d's items
_SLOTS = const(13)

_MASK = const(0x3FFFFFFF)
_SMASK = const(0x1FFFFFFF)
_THIRTY = 30  # an object, for the argument test (viper shifts objects by objects only)


def _slot(i):
    def get(self):
        return self._s[i]

    def put(self, v):
        self._s[i] = v

    return property(get, put)


class TicketQueue(BytecodeQueue):
    def __init__(self, capacity, first_seq=0, aging=0):
        self._s = array("i", bytes(4 * _SLOTS))
        self._tr = None
        BytecodeQueue.__init__(self, capacity, first_seq, aging)
        self._s[_CAP] = self.capacity
        self._bind()

    @micropython.viper
    def _bind(self):
        # Keep the addresses of the two heap arrays' items beside the state, so push and pop
        # read one attribute (_s) instead of three: an attribute and its buffer cost ~40 ns
        # each on the unix port, a sixth of a push+pop. Safe because MicroPython's collector
        # never moves a block, the arrays live as long as the queue (self._k, self._d) and
        # are never resized or replaced (capacity is fixed; nothing assigns _k or _d).
        s = ptr32(self._s)
        s[_KA] = int(ptr32(self._k))
        s[_DA] = int(ptr32(self._d))

    _n = _slot(_N)
    _nxt = _slot(_NXT)
    _lim = _slot(_LIM)
    _nb = _slot(_NB)
    digest = _slot(_DIG)
    last_priority = _slot(_LP)
    last_seq = _slot(_LS)
    _left = _slot(_LEFT)

    # The rare parts of push and pop, as ticketq.py has them inline (its bytecode pop and
    # push are kept flat for the micro:bit's 1.8 KB C stack).
    def _renumber(self, n, s):
        # the internal counter s reached _lim: keep tickets from the last quarter of the
        # range exact, pack older ones; returns the new s
        w = renumber(self._k, n, s - (self._lim >> 2))
        s -= w
        w += self._nb
        self._nb = w if w < 0 else w - _MASK - 1
        return s

    def _tail(self, i, c, s, p, n):
        # a trace is attached or aging is on: record the pop, count down to a promotion
        if self._tr is not None:
            self._tr.record(i, c, s, p)
        a = self._s[_AGE]
        if a:
            self._left -= 1
            if self._left <= 0:
                self._left = a
                promote(self._k, self._d, n)

    def _flag(self):
        self._s[_SLOW] = 1 if self._tr is not None or self._s[_AGE] else 0

    def _get_aging(self):
        return self._s[_AGE]

    def _set_aging(self, v):
        self._s[_AGE] = v
        self._flag()

    aging = property(_get_aging, _set_aging)

    def _get_trace(self):
        return self._tr

    def _set_trace(self, t):
        self._tr = t
        self._flag()

    trace = property(_get_trace, _set_trace)

    @micropython.viper
    def __len__(self) -> int:
        s = ptr32(self._s)
        return s[_N]

    @micropython.viper
    def peek(self) -> int:
        s = ptr32(self._s)
        if s[_N] <= 0:
            raise _err(_EMPTY)
        d = ptr32(s[_DA])
        i = d[0]
        return i if i >= 0 else ~i

    @micropython.viper
    def push(self, job_id, priority) -> int:
        # The argument test: one object operation that fails (TypeError) or is non-zero for
        # anything but two ints in 0 <= v < 2**30 (a long int too: the native casts below
        # would truncate it); then the class range natively. Anything else, and int
        # subclasses (MicroPython: "unsupported types" for int | subclass), go to the
        # checker, which raises the library's error or returns the plain int.
        p = 4
        try:
            if not (job_id | priority) >> _THIRTY:
                p = int(priority)
        except TypeError:
            pass
        if uint(p) > uint(3):
            job_id = _int(job_id, 0, _MASK, "job id")
            priority = _int(priority, 0, 3, "priority")
            p = int(priority)
        j = int(job_id)
        s = ptr32(self._s)
        n = s[_N]
        if n >= s[_CAP]:
            raise _err(_FULL)
        q = s[_NXT]
        if q >= s[_LIM]:
            q = int(self._renumber(n, q))
        s[_NXT] = q + 1
        s[_N] = n + 1
        key = ((1 - p) << 29) + q
        # Sift-up (ticketq_heap.up), the hole moving from slot n.
        k = ptr32(s[_KA])
        d = ptr32(s[_DA])
        i = n
        while i:
            h = (i - 1) >> 1
            if k[h] < key:
                break
            k[i] = k[h]
            d[i] = d[h]
            i = h
        k[i] = key
        d[i] = j
        q += s[_NB]
        return q if q >= 0 else q + _MASK + 1

    @micropython.viper
    def pop(self) -> int:
        s = ptr32(self._s)
        n = s[_N] - 1
        if n < 0:
            raise _err(_EMPTY)
        k = ptr32(s[_KA])
        d = ptr32(s[_DA])
        key = k[0]
        i = d[0]
        s[_N] = n
        if n:
            # Sift-down (ticketq_heap.down) of the last ticket from the root.
            x = k[n]
            v = d[n]
            h = 0
            c = 1
            while c < n:
                if c + 1 < n and k[c + 1] < k[c]:
                    c += 1
                if x < k[c]:
                    break
                k[h] = k[c]
                d[h] = d[c]
                h = c
                c = 2 * c + 1
            k[h] = x
            d[h] = v
        c = 1 - (key >> 29)
        q = (key & _SMASK) + s[_NB]
        if q < 0:
            q = q + _MASK + 1  # left to right: 2**30 is no small int
        s[_LP] = c
        s[_LS] = q
        p = 0
        if i < 0:
            i = ~i
            p = 1
        # The digest of ticketq.py, on machine words: every intermediate is below 2**30.
        g = s[_DIG]
        g = ((g & 0x1FFFFFF) << 5 | g >> 25) ^ i
        s[_DIG] = ((g & 0x1FFFFFF) << 5 | g >> 25) ^ q ^ c << 28
        if s[_SLOW]:
            self._tail(i, c, q, bool(p), n)
        return i


# Imported before ticketq (`import ticketq_viper` first): ticketq, imported above, found
# this module half made, fell back to its bytecode class and would keep it for the whole
# program, silently. Give it this class now, as the usual order (ticketq first) does.
_t = sys.modules.get("ticketq")
if _t is not None and _t.TicketQueue is BytecodeQueue:
    _t.TicketQueue = TicketQueue
    _t.PATH = PATH

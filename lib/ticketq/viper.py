# ticketq.viper: the hot path of ticketq.TicketQueue (push, pop, peek, len) as viper code,
# for ports with MicroPython's native emitters (rp2, esp32, stm32, the unix port). ticketq
# imports it at the end and, where it compiles, exports its TicketQueue instead of the
# bytecode one; where it does not (no such module on the micro:bit, "invalid micropython
# decorator" on the WebAssembly VM, no `micropython` module on CPython) the bytecode class
# stays. Same contract, same digest, same errors, same heap layout (ticketq.core), so
# remove, clear, renumbering, aging and ticketq.audit are shared, unchanged.
#
# Not in the micro:bit profile and outside the MicroPython 1.9 syntax check: viper needs
# annotations (tests/test_syntax.py names this module and why).
#
# Why the scalar fields live in one array here: a viper function reads an array through a
# ptr32 at machine speed, while every instance attribute costs a dictionary lookup in the
# runtime. So _n, _nxt, _lim, _nb, _left, digest, last_priority, last_seq and aging are
# properties over the slots of self._s (array('i')), and the code shared with the bytecode
# class (ticketq.core, ticketq.audit) reads and writes them as attributes, as
# ever. trace is a property too: it keeps one flag in self._s up to date, so pop tests one
# word for "trace or aging" (issue 12).
#
# Every value that leaves viper (returned, stored, passed to a helper) is a small int:
# keys, ids and sequence numbers stay within -2**30 <= v < 2**30 as in the bytecode path.
#
# No constant in the viper code needs a literal pool on armv6m (Cortex-M0/M0+: RP2040), and
# no viper function is long enough for a jump over 2 KB: frozen into an armv6m firmware
# (mpy-cross -march=armv6m through a manifest), a function whose code the linker puts at an
# address 2 mod 4 loads every such constant wrong (0x3FFFFFFF came back as -8191) and
# jumps to a wrong address on such a jump (docs/armv6m-frozen-viper.md). A constant needs
# the pool when, as a machine word (a viper int; 2v+1 when it goes out as an object),
# neither it nor its negation fits 0..0xFFFF or is 8 bits shifted left: so the masks are
# shifts here (uint(x << 2) >> 2 for x & 0x3FFFFFFF), and 0x3FFFFFFF as an object is the
# global _IDMAX. tests/test_viper_guard.py scans mpy-cross's armv6m code of this module
# for those sequences, and selfcheck() below runs at import as the guard for the rest.
"""ticketq.viper: ticketq.TicketQueue's hot path (push, pop, peek, len) as
``@micropython.viper`` code, ~10x the bytecode speed (docs/speed.md), for 32-bit ports with
MicroPython's native emitter (rp2, esp32, stm32, the unix port). ``ticketq`` imports it at its
bottom and, where it loads, exports its ``TicketQueue`` instead of the bytecode one
(``ticketq.PATH == "viper"``); anything it raises while loading keeps the bytecode class
(``ticketq.WHY`` says what). Not a module to import directly.

Same contract as ticketq.core's class (it subclasses it: remove, clear, renumbering, aging
and ticketq.audit are shared): same order, digest, errors and 0 B per operation; ranges and
complexity as ``ticketq.TicketQueue`` (O(log n) push and pop, O(1) peek and len). The scalar
fields live in one ``array('i')`` so viper reads them at machine speed; the attributes are
properties over it. ``selfcheck()`` runs at import and refuses to load (ImportError) when a
viper method takes an argument too many or gets a short fixed run of pushes and pops wrong,
as frozen armv6m code at an address 2 mod 4 did (docs/armv6m-frozen-viper.md).

Design sources: MicroPython's "Maximising speed" guide (viper, ptr32 over arrays);
CPython's ``heapq``/``_heapq`` (the fast class swapped in where it exists, one contract).
"""
import sys

if sys.maxsize >> 32:
    # _bind keeps array addresses in 32-bit slots: a 64-bit port runs the bytecode path.
    raise ImportError("ticketq.viper: 32-bit ports only")
import micropython  # ImportError on CPython
from micropython import const
from array import array
from ticketq.core import TicketQueue as BytecodeQueue, promote, renumber, _int, _err, _FULL, _EMPTY

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

_MASK = const(0x3FFFFFFF)  # in bytecode methods only (see the top)
_IDMAX = 0x3FFFFFFF  # the same for viper code: a global object, no literal pool
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
            job_id = _int(job_id, 0, _IDMAX, "job id")
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
        # Sift-up (ticketq.core.up), the hole moving from slot n.
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
        # (q + _nb) mod 2**30, as the bytecode path's `q if q >= 0 else q + _MASK + 1` for
        # -2**30 <= q < 2**30: the low 30 bits, by shifts (no literal pool: see the top).
        return int(uint((q + s[_NB]) << 2) >> 2)

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
            # Sift-down (ticketq.core.down) of the last ticket from the root.
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
        # (key & _SMASK) + _nb, then mod 2**30 as in push: shifts, not masks (see the top)
        q = int(uint((int(uint(key << 3) >> 3) + s[_NB]) << 2) >> 2)
        s[_LP] = c
        s[_LS] = q
        p = 0
        if i < 0:
            i = ~i
            p = 1
        # The digest of ticketq.py, on machine words: every intermediate is below 2**30.
        # (g & 0x1FFFFFF) << 5 is uint(g << 7) >> 2 for 0 <= g < 2**30 (see the top).
        g = s[_DIG]
        g = (int(uint(g << 7) >> 2) | g >> 25) ^ i
        s[_DIG] = (int(uint(g << 7) >> 2) | g >> 25) ^ q ^ c << 28
        if s[_SLOW]:
            self._tail(i, c, q, bool(p), n)
        return i


def _run(Q, out):
    # One short fixed run through every branch of push and pop that holds a constant:
    # sequence numbers either side of the 2**30 wrap, a renumbering (narrow _lim), every
    # class, sift-up and sift-down, peek, len, last_seq, last_priority and the digest.
    q = Q(4, 0x3FFFFFFD)
    q._lim = 4
    for j, p in ((7, 1), (9, 3), (0x3FFFFFFF, 0), (5, 2), (3, 1)):
        if len(q) == 4:
            out.append(q.pop())
            out.append(q.last_seq)
            out.append(q.last_priority)
        out.append(q.push(j, p))
    out.append(q.peek())
    out.append(len(q))
    while len(q):
        out.append(q.pop())
        out.append(q.last_seq)
        out.append(q.last_priority)
    out.append(q.digest)


def selfcheck(Q=None):
    """None when class Q (default: this module's TicketQueue) refuses an argument too many
    on each viper method and gives the bytecode class's answers on _run, else the reason
    (a str). The arity check is the one literal-pool load no source can avoid: every
    viper function with arguments loads its signature from one, so on a misplaced frozen
    armv6m function it lets extra arguments through, silently (see the top).
    """
    Q = Q or TicketQueue
    q = Q(4)
    q.push(1, 1)
    for m, a in (("_bind", ()), ("__len__", ()), ("peek", ()), ("push", (2, 1)), ("pop", ())):
        try:
            getattr(q, m)(*(a + (0,)))
        except TypeError:
            continue
        except Exception:  # noqa: BLE001
            pass
        return "ticketq.viper: self-check failed: %s took an argument too many" % m
    b = []
    _run(BytecodeQueue, b)
    v = []
    try:
        _run(Q, v)
    except Exception as e:  # noqa: BLE001 (any failure is a reason)
        v.append(repr(e))
    for n in range(len(b)):
        if n >= len(v) or v[n] != b[n]:
            return "ticketq.viper: self-check failed at step %d: %r, not %r" % (
                n, v[n] if n < len(v) else None, b[n])
    return None


# The guard: a viper class that gets the run wrong is no hot path. ticketq catches this
# ImportError, keeps its bytecode class and says why in ticketq.WHY.
WHY = selfcheck()
if WHY:
    raise ImportError(WHY)

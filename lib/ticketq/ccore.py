# ticketq.ccore: the choice of ticketq's hot path, fastest first, as CPython's heapq takes
# _heapq where it exists: the C core (the module _ticketq, c/ticketq_core.c: a native .mpy on
# sys.path, or built into the firmware), else ticketq.viper, else (this module raises, and
# ticketq keeps ticketq.core's bytecode class) the bytecode path. ticketq imports it at its
# bottom; PATH says which ("c" or "viper"), WHY why not the faster one (None on the C path).
#
# The C class: class TicketQueue(_ticketq.Core, ticketq.core.TicketQueue). Core (C) has push,
# pop, peek, remove, full, clear, len and bool; everything else is the bytecode class's
# (repr, and audit's reads). The scalar fields live in one array('i'), self._s, at
# ticketq.viper's slot numbers, so the C code reads them at machine speed and the Python
# side reads and writes them as the same attributes as ever (properties below); the heap is
# ticketq.core's two arrays _k, _d, slot for slot, so ticketq.audit reads it unchanged.
# Core keeps pointers to the three arrays' items (_bind): they live as long as the queue
# and are never replaced or resized.
#
# Forcing a path (tests, benchmarks), before the first `import ticketq`:
#   sys.modules["_ticketq"] = None        no C core: viper (or bytecode)
#   sys.modules["ticketq.viper"] = None   the bytecode path (the C core is not tried either)
"""ticketq.ccore: picks ticketq.TicketQueue's hot path: the C core (module ``_ticketq``, a
native .mpy or built into the firmware: docs/c-core.md) where it loads and passes its
self-check, else ticketq.viper's class. ``ticketq`` imports it at its bottom; anything it
raises keeps the bytecode class (``ticketq.WHY`` says what). Not a module to import directly.

Same contract as ticketq.core's class (the C class subclasses it): same order, digest,
errors (ticketq.core's own exception classes and checker), renumbering, aging and 0 B per
operation; O(log n) push and pop, O(1) peek and len, O(n) remove.
"""
import sys
from array import array
from ticketq.core import TicketQueue as BytecodeQueue, _int, _err, _FULL, _EMPTY

ABI = 1  # c/ticketq_core.c's TQ_ABI: _bind's arguments and the slots below

try:
    if getattr(sys, "modules", {}).get("_ticketq", 0) is None:
        raise ImportError("_ticketq blocked in sys.modules")
    from _ticketq import Core
    import _ticketq

    if _ticketq.ABI != ABI:
        raise ImportError("_ticketq: ABI %r, not %d (rebuild the C core)" % (_ticketq.ABI, ABI))
except Exception as e:  # noqa: BLE001 (no module, a foreign .mpy: ValueError ...)
    Core = None
    WHY = "no C core: %s" % e


def _slot(i):
    def get(self):
        return self._s[i]

    def put(self, v):
        self._s[i] = v

    return property(get, put)


def _run(Q, out):
    # One short fixed run through every branch of push and pop: sequence numbers either side
    # of the 2**30 wrap, a renumbering (narrow _lim), every class, sift-up and sift-down,
    # peek, len, remove, aging, last_seq, last_priority and the digest; then bad arguments.
    q = Q(4, 0x3FFFFFFD, 2)
    q._lim = 4
    for j, p in ((7, 1), (9, 3), (0x3FFFFFFF, 0), (5, 2), (3, 1), (9, 0)):
        if len(q) == 4:
            out.append(q.pop())
            out.append(q.last_seq)
            out.append(q.last_priority)
        out.append(q.push(j, p))
    out.append(q.peek())
    out.append(q.remove(9))
    out.append(q.remove(1))
    out.append(len(q))
    out.append(q.full())
    while q:
        out.append(q.pop())
        out.append(q.last_seq)
        out.append(q.last_priority)
    out.append(q.digest)
    for a in ((-1, 1), (1, 4), (True, 1), ("7", 1)):
        try:
            out.append(q.push(*a))
        except Exception as e:  # noqa: BLE001
            out.append((type(e), str(e)))
    for f in (q.pop, q.peek):
        try:
            f()
        except Exception as e:  # noqa: BLE001
            out.append((type(e), str(e)))


def selfcheck(Q):
    """None when class Q gives the bytecode class's answers on a short fixed run (_run),
    else the reason (a str): a C core built wrong for this port is no hot path.
    """
    b = []
    _run(BytecodeQueue, b)
    v = []
    try:
        _run(Q, v)
    except Exception as e:  # noqa: BLE001 (any failure is a reason)
        v.append(repr(e))
    for n in range(len(b)):
        if n >= len(v) or v[n] != b[n]:
            return "ticketq.ccore: self-check failed at step %d: %r, not %r" % (
                n, v[n] if n < len(v) else None, b[n])
    return None


if Core is not None:
    class TicketQueue(Core, BytecodeQueue):
        # Core first: its push, pop, peek, remove, full, clear, len and bool win over the
        # bytecode class's; the arguments are checked here, the C code is bound to the arrays.
        def __init__(self, capacity, first_seq=0, aging=0):
            super().__init__()  # constructs the C object (Core), which takes no arguments
            capacity = _int(capacity, 1, 0x1000000, "capacity")
            first_seq = _int(first_seq, 0, 0x3FFFFFFF, "first_seq")
            aging = _int(aging, 0, 0x3FFFFFFF, "aging")
            self.capacity = capacity
            self._s = s = array("i", bytes(52))  # 13 slots, as ticketq.viper's
            self._tr = None
            self._k = array("i", range(capacity))
            self._d = array("i", range(capacity))
            s[1] = capacity
            s[3] = 0x20000000  # _lim: tests narrow it to wrap the internal counter in a few pushes
            s[4] = first_seq - 0x3FFFFFFF - 1  # _nb
            s[8] = aging
            s[10] = 1 if aging else 0
            self._bind(self, s, self._k, self._d, _err, _int, _FULL, _EMPTY, "job id", "priority")
            self.clear()

        _n = _slot(0)
        _nxt = _slot(2)
        _lim = _slot(3)
        _nb = _slot(4)
        digest = _slot(5)
        last_priority = _slot(6)
        last_seq = _slot(7)
        _left = _slot(9)

        def _flag(self):
            # slot 10: pop takes its slow tail (trace, aging) only when one is on
            self._s[10] = 1 if self._tr is not None or self._s[8] else 0

        def _get_aging(self):
            return self._s[8]

        def _set_aging(self, v):
            self._s[8] = v
            self._flag()

        aging = property(_get_aging, _set_aging)

        def _get_trace(self):
            return self._tr

        def _set_trace(self, t):
            self._tr = t
            self._flag()

        trace = property(_get_trace, _set_trace)

    WHY = selfcheck(TicketQueue)
    if WHY is None:
        PATH = "c"
    else:
        WHY = "no C core: " + WHY
        Core = None
if Core is None:
    from ticketq.viper import TicketQueue, PATH  # raises where viper does not load

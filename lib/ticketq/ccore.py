# ticketq.ccore: the choice of ticketq's hot path, fastest first, as CPython's heapq takes
# _heapq where it exists: the C core (the module _ticketq, c/ticketq_core.c: a native .mpy on
# sys.path, or built into the firmware), else ticketq.viper, else (this module raises, and
# ticketq keeps ticketq.core's bytecode class) the bytecode path. ticketq imports it at its
# bottom; PATH says which ("c" or "viper"), WHY why not the faster one (None on the C path).
#
# The C class is _ticketq.TicketQueue itself, a native type (a Python subclass would cost
# more in method lookups than the whole C push+pop: docs/c-core.md): construction, push,
# pop, peek, remove, full, clear, len, bool, repr and the attributes (capacity, aging, trace,
# digest, last_priority, last_seq, and the internal _k, _d, _s, _n, _nxt, _lim, _nb, _left
# that ticketq.audit and the tests read) are C. The heap is ticketq.core's two arrays _k, _d,
# slot for slot; the scalar fields are the words of a third array _s at ticketq.viper's slot
# numbers. What it takes from here: ticketq.core's checker (_int) and error helper (_err) and
# its two preallocated exceptions, so that every error is the reference's own (type, message,
# MemoryError under heap_lock, the same QueueFull and QueueEmpty classes).
# Unlike the Python classes it is no subclass of ticketq.core.QueueBase, and takes no other
# attributes (AttributeError).
#
# Forcing a path (tests, benchmarks), before the first `import ticketq`:
#   sys.modules["_ticketq"] = None        no C core: viper (or bytecode)
#   sys.modules["ticketq.viper"] = None   the bytecode path (the C core is not tried either)
"""ticketq.ccore: picks ticketq.TicketQueue's hot path: the C core (module ``_ticketq``, a
native .mpy or built into the firmware: docs/c-core.md) where it loads and passes its
self-check, else ticketq.viper's class. ``ticketq`` imports it at its bottom; anything it
raises keeps the bytecode class (``ticketq.WHY`` says what). Not a module to import directly.

Same contract as ticketq.core's class: same order, digest,
errors (ticketq.core's own exception classes and checker), renumbering, aging and 0 B per
operation; O(log n) push and pop, O(1) peek and len, O(n) remove.
"""
import sys
from array import array
from ticketq.core import TicketQueue as BytecodeQueue, _int, _err, _FULL, _EMPTY

ABI = 2  # c/ticketq_core.c's TQ_ABI: _setup's arguments and the slots of _s

try:
    if getattr(sys, "modules", {}).get("_ticketq", 0) is None:
        raise ImportError("_ticketq blocked in sys.modules")
    import _ticketq  # pyright: ignore[reportMissingImports]  (a native module: c/ticketq_core.c)

    if _ticketq.ABI != ABI:
        raise ImportError("_ticketq: ABI %r, not %d (rebuild the C core)" % (_ticketq.ABI, ABI))
    # a module global, so that the collector sees it whatever it makes of the C module's data
    _CFG = (_err, _int, _FULL, _EMPTY, lambda n: array("i", range(n)),
            "job id", "priority", "capacity", "first_seq", "aging")
    _ticketq._setup(_CFG)
    Core = _ticketq.TicketQueue
except Exception as e:  # noqa: BLE001 (no module, a foreign .mpy: ValueError ...)
    Core = None
    WHY = "no C core: %s" % e


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
    WHY = selfcheck(Core)
    if WHY is None:
        TicketQueue = Core
        PATH = "c"
    else:
        WHY = "no C core: " + WHY
        Core = None
if Core is None:
    from ticketq.viper import TicketQueue, PATH  # raises where viper does not load

# Differential fuzz of the C core (c/ticketq_core.c, docs/c-core.md) against the reference,
# ticketq.core's bytecode TicketQueue, in one interpreter with the same random streams
# (tests/rng.py): pushes until the queue is full, pops until it is empty, removes of present
# and absent ids, peek, clear, aging switched on and off, sequence numbers wrapping near
# 2**30 (first_seq just below it), the internal counter running out (narrowed _lim, and the
# production limit 2**29 reached by fast-forwarding _nxt), every bad argument with its
# exception type and message, int subclasses and bools. After every step the outcome
# (result, or error type and message), last_priority, last_seq, digest, len and the two heap
# arrays slot for slot must agree; the first difference fails with the seed and the step.
# A fixed number of steps (~2 s on the unix port, fewer streams on a board): bounded, never timed.
# Runs where ticketq's path is the C core (tools/test's unix-c stage); skips elsewhere.
import ticketq
from rng import Rng
from support import skip


class Num(int):
    pass


BAD = ("7", 2.0, None, -1, 0x40000000, 2 ** 40, -(2 ** 40), [1], Num(-1), Num(7))


def pair():
    if ticketq.PATH != "c":
        skip("ticketq's path here is %s, not the C core (%s)" % (ticketq.PATH, getattr(ticketq, "WHY", "")))
    from ticketq.core import TicketQueue as Ref

    return Ref, ticketq.TicketQueue


def call(f, *args):
    try:
        return ("ok", f(*args))
    except Exception as e:  # noqa: BLE001 (the type and message are what is compared)
        return ("raise", type(e).__name__, str(e))


def state(q):
    n = len(q)
    return (n, bool(q), q.full(), q.digest, q.last_priority, q.last_seq, q._nxt, q._nb, q._left,
            list(q._k)[:n], list(q._d)[:n])


def step(q, r, cap):
    # one operation chosen by r (the same draws for both queues); returns its outcome
    op = r.next(32)
    a = r.next(1 << 30) if r.next(4) == 0 else r.next(2 + cap)  # mostly few ids: duplicates
    b = r.next(4)
    if op < 10:
        return call(q.push, a, b)
    if op < 13:  # fill it up: the last push meets QueueFull
        out = []
        while len(out) < cap + 1:
            out.append(call(q.push, a + len(out), b))
        return out
    if op < 19:
        return call(q.pop)
    if op < 21:
        return call(q.remove, a)
    if op < 22:
        return call(q.peek)
    if op < 25:
        x = BAD[r.next(len(BAD))]
        return (call(q.push, x, b), call(q.push, a, x), call(q.remove, x), call(q.push, True, False))
    if op < 26:
        return call(q.push, Num(a & 0xFFFF), Num(b))
    if op < 27:
        q.aging = r.next(4)
        return q.aging
    if op < 28:
        if r.next(6) == 0:
            q.clear()
        return "clear?"
    if op < 30:  # drain
        out = []
        while q:
            out.append((q.pop(), q.last_priority, q.last_seq))
        return out
    return call(q.peek)


def lockstep(seed, steps, B, C):
    r = Rng(seed)
    cap = 1 + r.next(48)
    first = (0, 0x3FFFFFFF - r.next(40), r.next(1 << 30), 0x3FFFFFFF)[r.next(4)]
    aging = (0, 1, 2, 7)[r.next(4)]
    lim = (0, 16, 64, 1 << 29)[r.next(4)]
    qs = (B(cap, first, aging), C(cap, first, aging))
    if lim:
        for q in qs:
            q._lim = lim
        if lim == 1 << 29:  # the production limit, reached by a fast-forward of the counter
            nxt = lim - 3 - r.next(cap + 4)
            for q in qs:
                q._nxt = nxt
    rs = (Rng(seed + 1), Rng(seed + 1))
    for i in range(steps):
        got = [step(qs[j], rs[j], cap) for j in (0, 1)]
        if got[0] != got[1] or state(qs[0]) != state(qs[1]):
            raise AssertionError("seed %d step %d: bytecode %r %r, C %r %r" % (
                seed, i, got[0], state(qs[0]), got[1], state(qs[1])))
    return qs[0].digest


def test_the_c_core_agrees_with_the_reference_step_by_step():
    B, C = pair()
    import sys

    # 40 streams on the unix port; 12 on an emulated board (QEMU), where the point is the ISA
    # and a mounted run has a per-batch time limit (ticketq mcu)
    n = 40 if sys.platform in ("linux", "darwin") else 12
    digests = set()
    for seed in range(1, n + 1):
        digests.add(lockstep(seed * 104729, 400, B, C))
    assert len(digests) > n // 2  # the streams were not all alike


def test_constructor_arguments_are_checked_alike():
    B, C = pair()
    for args in ((0,), ((1 << 24) + 1,), ("4",), (4, -1), (4, 1 << 30), (4, 0, -1), (4, 0, 1 << 30),
                 (4, 0, None), (True,), (Num(3), Num(5), Num(1)), (None,)):
        b = call(lambda: state(B(*args)))
        c = call(lambda: state(C(*args)))
        assert b == c, (args, b, c)


def test_a_trace_sees_the_same_pops():
    B, C = pair()
    from ticketq.audit import Trace

    qs = (B(16, 0x3FFFFFF8, 3), C(16, 0x3FFFFFF8, 3))
    for q in qs:
        q.trace = Trace(8)
        q._lim = 24
    r = Rng(99)
    for _ in range(300):
        op = r.next(3)
        a = r.next(20)
        for q in qs:
            if op and not q.full():
                q.push(a, a & 3)
            elif q:
                q.pop()
    t = [(q.trace.count, q.trace.entries(), state(q)) for q in qs]
    assert t[0] == t[1], t
    for q in qs:
        q.trace = None
    assert call(qs[0].pop) == call(qs[1].pop)

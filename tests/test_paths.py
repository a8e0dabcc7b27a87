# The two hot paths of ticketq (ticketq.pyi, "Hot paths"): which one runs where, and the
# viper class against the bytecode class on seeded streams of every operation, bad
# arguments, renumbering, aging and a trace included. tools/test runs the unix port twice,
# with the viper default and with the bytecode path forced (tests/mprun.py --bytecode), so
# every other test module covers both paths as well.
import sys

import ticketq
from qcheck import check_heap, snapshot
from rng import Rng
from support import IS_MICROPYTHON, skip


def forced():
    # tests/mprun.py --bytecode blocks the viper module this way before importing ticketq
    mods = getattr(sys, "modules", None)
    return mods is not None and "ticketq_viper" in mods and mods["ticketq_viper"] is None


def viper_expected():
    # every 32-bit MicroPython port with a native emitter: not the WebAssembly VM, not the
    # micro:bit (no module there), not CPython, not a 64-bit unix port
    return (IS_MICROPYTHON and sys.platform not in ("webassembly", "microbit")
            and not sys.maxsize >> 32 and not forced())


def test_the_path_in_use():
    assert ticketq.PATH == ("viper" if viper_expected() else "bytecode")
    q = ticketq.TicketQueue(4)
    q.push(1, ticketq.HIGH)
    assert q.pop() == 1 and isinstance(q, ticketq.TicketQueue)


class Num(int):
    pass


BAD = ("7", 2.0, None, -1, 0x40000000, 2 ** 40, -(2 ** 40))


def outcome(f, *args):
    try:
        return ("ok", f(*args))
    except Exception as e:
        return ("raise", type(e).__name__, str(e))


def stream(Q, seed, cap, first_seq, aging, lim, trace):
    # One seeded stream on a fresh queue of class Q: [outcome, ...] and the final state.
    q = Q(cap, first_seq, aging)
    if lim:
        q._lim = lim
    if trace:
        from ticketq_audit import Trace
        q.trace = Trace(5)
    r = Rng(seed)
    log = []
    for step in range(1500):
        op = r.next(24)
        if op < 9:
            log.append(outcome(q.push, r.next(30), r.next(4)))
        elif op < 15:
            log.append(outcome(q.pop))
            log.append((q.last_priority, q.last_seq, q.digest))
        elif op < 17:
            log.append(outcome(q.remove, r.next(30)))
        elif op < 18:
            log.append(outcome(q.peek))
        elif op < 19:
            log.append((len(q), bool(q), q.full(), repr(q)))
        elif op < 20:
            b = BAD[r.next(len(BAD))]
            log.append(outcome(q.push, b, 1) + outcome(q.push, 1, b) + outcome(q.remove, b))
        elif op < 21:
            log.append(outcome(q.push, Num(r.next(30)), Num(r.next(4))))
        elif op < 22 and r.next(8) == 0:
            q.clear()
        elif op < 23:
            q.aging = r.next(3) if aging else 0
        else:
            check_heap(q)
            log.append(snapshot(q))
    check_heap(q)
    log.append(snapshot(q))
    if trace:
        log.append((q.trace.count, q.trace.entries()))
    return log


def test_viper_and_bytecode_agree_on_every_operation():
    if forced():
        skip("bytecode path forced: the default run of this module compares the two")
    try:
        import ticketq_viper
    except (ImportError, SyntaxError) as e:
        skip("no viper path here (%s): the bytecode path is the only one" % e)
    V, B = ticketq_viper.TicketQueue, ticketq_viper.BytecodeQueue
    assert V is not B and issubclass(V, B)
    for args in ((1, 8, 0, 0, 0, 0), (2, 5, 0x3FFFFFF0, 3, 64, 1), (3, 32, 100, 1, 0, 1),
                 (4, 3, 0x3FFFFFFE, 0, 16, 0), (5, 64, 0, 2, 256, 1)):
        a = stream(V, *args)
        b = stream(B, *args)
        assert len(a) == len(b)
        for i in range(len(a)):
            assert a[i] == b[i], (args, i, a[i], b[i])

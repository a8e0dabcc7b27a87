# Differential fuzzing of every queue class that keeps TicketQueue's contract, in lockstep:
# the bytecode TicketQueue, the viper one where the port compiles it (ticketq.PATH), and a
# LaneQueue with one lane (ticketq.lanes's docstring: then it is exactly a TicketQueue). The same
# seeded stream (tests/rng.py, the same on every interpreter) drives all of them, bad
# arguments, int subclasses, full and empty queues, clear, aging, a trace and counter
# renumbering included; every step's outcome (result or error type and message), the
# last_* fields and the digest must be the same. Then the cross-interpreter check: the
# digest of one fixed long stream equals what a plain sorted-list model derives here, on
# this interpreter, and the golden value every interpreter (CPython included) must give.
# (Not on the micro:bit: ticketq.lanes does not fit there, docs/microbit.md.)
import ticketq
from ticketq.lanes import LaneQueue
from ticketq.audit import Trace
from rng import Rng


class Num(int):
    pass


BAD = ("7", 2.0, None, -1, 0x40000000, 2 ** 40, -(2 ** 40), [1])


def classes():
    # [(name, make(capacity, first_seq, aging))]: every queue class on this interpreter
    out = []
    if ticketq.PATH == "viper":
        import ticketq.viper as tqviper
        out.append(("bytecode", tqviper.BytecodeQueue))
        out.append(("viper", tqviper.TicketQueue))
    elif ticketq.PATH == "c":  # the C core (docs/c-core.md); tests/test_ccore_fuzz.py goes further
        from ticketq.core import TicketQueue as Ref
        out.append(("bytecode", Ref))
        out.append(("c", ticketq.TicketQueue))
    else:
        out.append(("bytecode", ticketq.TicketQueue))

    def lanes1(capacity, first_seq, aging):
        return LaneQueue(capacity, 1, None, first_seq, aging)

    out.append(("lanes1", lanes1))
    return out


def call(f, *args):
    try:
        return ("ok", f(*args))
    except Exception as e:
        return ("raise", type(e).__name__, str(e))


def step(q, op, a, b):
    # One operation on q; returns what anyone can observe of it.
    if op < 8:
        return call(q.push, a, b & 3)
    if op < 14:
        return call(q.pop) + (q.last_priority, q.last_seq, q.digest, len(q))
    if op < 16:
        return call(q.remove, a)
    if op < 17:
        return call(q.peek) + (len(q), bool(q), q.full())
    if op < 18:
        x = BAD[b % len(BAD)]
        return call(q.push, x, 1) + call(q.push, 1, x) + call(q.remove, x) + (len(q),)
    if op < 19:
        return call(q.push, Num(a), Num(b & 3)) + call(q.remove, Num(a >> 1))
    if op < 20:
        return call(q.push, a, b & 1 == 1)  # a bool class: LOW or NORMAL
    if op < 21 and b & 7 == 0:
        q.clear()
        return ("clear", q.last_priority, q.last_seq, q.digest, len(q))
    return (len(q), q.digest)


def lockstep(seed, steps, capacity, first_seq, aging, lim, trace):
    made = classes()
    qs = []
    for name, make in made:
        q = make(capacity, first_seq, aging)
        if lim:
            q._lim = lim  # renumbering every few dozen pushes
        if trace:
            q.trace = Trace(6)
        qs.append(q)
    r = Rng(seed)
    idspan = 2 + r.next(60)  # few ids: remove finds duplicates
    for i in range(steps):
        op = r.next(22)
        a = r.next(idspan)
        b = r.next(0x40000000)
        first = step(qs[0], op, a, b)
        for j in range(1, len(qs)):
            got = step(qs[j], op, a, b)
            assert got == first, (seed, i, made[j][0], got, first)
    for q in qs[1:]:
        assert (q.digest, q.last_priority, q.last_seq, len(q)) == (
            qs[0].digest, qs[0].last_priority, qs[0].last_seq, len(qs[0]))
        if trace:
            assert q.trace.entries() == qs[0].trace.entries() and q.trace.count == qs[0].trace.count
    return qs[0].digest


def test_every_queue_class_gives_the_same_outcomes_in_lockstep():
    names = [n for n, _ in classes()]
    assert names[0] == "bytecode" and names[-1] == "lanes1"
    assert ("viper" in names) == (ticketq.PATH == "viper") and ("c" in names) == (ticketq.PATH == "c")
    for seed in range(1, 25):
        r = Rng(seed * 7919)
        capacity = 1 + r.next(40)
        first_seq = (0, 0x3FFFFFF0, r.next(0x40000000))[r.next(3)]
        aging = (0, 0, 1, 2, 5)[r.next(5)]
        lim = (0, 0, 64, 200)[r.next(4)]
        lockstep(seed, 600, capacity, first_seq, aging, lim, seed % 3 == 0)


def model_digest(seed, steps, capacity, first_seq):
    # The schedule digest of the stream `long_stream` runs, derived without the library:
    # a sorted list of (-class, pushes so far, id), the sequence number first_seq + pushes
    # modulo 2**30, and the fold ticketq's docstring documents. Plain small ints throughout.
    x = 0x2A5F0C3
    model = []
    pushes = 0
    r = Rng(seed)
    for _ in range(steps):
        op = r.next(8)
        i = r.next(1000)
        c = r.next(4)
        if op < 4:
            if len(model) < capacity:
                model.append((-c, pushes, i))
                pushes += 1
        elif op < 7:
            if model:
                m = min(model)
                model.remove(m)
                s = (first_seq + m[1]) & 0x3FFFFFFF
                x = ((x & 0x1FFFFFF) << 5 | x >> 25) ^ m[2]
                x = ((x & 0x1FFFFFF) << 5 | x >> 25) ^ s ^ -m[0] << 28
        else:
            mine = [t for t in model if t[2] == i]
            if mine:
                model.remove(min(mine, key=lambda t: t[1]))
    return x


def long_stream(q, seed, steps):
    r = Rng(seed)
    for _ in range(steps):
        op = r.next(8)
        i = r.next(1000)
        c = r.next(4)
        if op < 4:
            if not q.full():
                q.push(i, c)
        elif op < 7:
            if q:
                q.pop()
        else:
            q.remove(i)
    return q.digest


GOLDEN = 0x7EBBE5  # long_stream(seed 2026, 6000 steps, 48 slots, first_seq 2**30 - 1000)


def test_the_digest_of_a_long_stream_is_the_same_on_every_interpreter():
    # The outside sequence wraps past 2**30 at the 1000th of ~2270 pushes. Every class here gives
    # the digest the model derives on this interpreter, and that is the golden value,
    # checked on CPython as on every MicroPython (so the two cannot drift apart unseen).
    want = model_digest(2026, 6000, 48, 0x3FFFFFFF - 999)
    for name, make in classes():
        got = long_stream(make(48, 0x3FFFFFFF - 999, 0), 2026, 6000)
        assert got == want, (name, hex(got), hex(want))
    assert want == GOLDEN, hex(want)

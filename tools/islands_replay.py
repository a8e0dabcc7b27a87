# islands_replay: the replay behind ticketq islands, shared by CPython and the MicroPython
# VM (tools/islands_vm.mjs), so both compute the same thing from the same few integers.
# MicroPython 1.9 syntax: no f-strings, no keyword-only arguments, no dict-order reliance;
# every integer stays a small int (-2**30 <= v < 2**30).
#
# One operation stream (the agreed log of an edge mesh) is replayed on n islands:
#   op = (kind, job id, class, origin island, true time in us)     kind: PUSH, POP, CANCEL
# A push is submitted at its origin island and reaches island j after a delivery delay
# (0 at the origin). Island j reads a local clock: skew_us[j] + t * (1 + drift_ppm[j]/1e6).
# Every island applies the ops in log order to two queues side by side:
#   textbook  heapq of (-class, local arrival ms, id): the tie-break reads the local clock;
#             cancel marks the id and pop skips it (the heapq docs' recipe);
#   ticketq   TicketQueue: push(id, class), pop(), remove(id); it never sees a clock.
try:
    import heapq
except ImportError:
    import uheapq as heapq
from ticketq import TicketQueue, QueueEmpty
from rng import Rng as _Rng  # tests/rng.py: on sys.path beside lib/ (ticketq islands, the VM)

PUSH = 0
POP = 1
CANCEL = 2

# Classes of the edge-mesh jobs, as in firmware/workload.py.
LOW = 0  # sync: background state chunks
NORMAL = 1  # telemetry
HIGH = 2  # consensus votes
CRITICAL = 3  # relay handoffs


class Rng(_Rng):
    # The tests' xorshift (tests/rng.py), seeded so that nearby seeds give unrelated streams.
    def __init__(self, seed):
        _Rng.__init__(self, (seed & 0x3FFFFFFF) ^ 0x2545F49 or 1)
        for _ in range(8):
            self.next(2)


def stream(seed, pushes=96, islands=3, capacity=32):
    # The operation log, ordered by true time: background telemetry and sync from random
    # islands, a worker pop every few ms, and bursts every 60..140 ms: a consensus round
    # (one HIGH vote from every island within 1.5 ms) or relay handoffs (2..4 CRITICAL jobs
    # from two islands within 4 ms), some sync chunks superseded (cancelled) by the next.
    # Ends with pops that drain the queue. Never more than `capacity` jobs queued.
    r = Rng(seed)
    ev = []  # (t, order, kind, cls, origin) before job ids are given
    t = 0
    n = 0
    burst = 30000 + r.next(40000)
    while n < pushes:
        t += 2000 + r.next(5000)
        if r.next(100) < 45:
            c = NORMAL if r.next(3) else LOW
            ev.append((t + r.next(1000), len(ev), PUSH, c, r.next(islands)))
            n += 1
        if t >= burst:
            burst = t + 60000 + r.next(80000)
            if r.next(2):
                for o in range(islands):
                    ev.append((t + r.next(1500), len(ev), PUSH, HIGH, o))
                    n += 1
            else:
                o = r.next(islands)
                for k in range(2 + r.next(3)):
                    ev.append((t + r.next(4000), len(ev), PUSH, CRITICAL, (o + k) % islands))
                    n += 1
        if r.next(100) < 60:
            ev.append((t + 1500 + r.next(1000), len(ev), POP, 0, 0))
        if r.next(100) < 8:
            ev.append((t + r.next(1000), len(ev), CANCEL, 0, 0))
    ev.sort()
    ops = []
    syncs = []  # recent sync ids: a cancel supersedes one of them
    queued = 0  # upper bound on the jobs queued (a cancel may miss)
    jid = 0
    for e in ev:
        t = e[0]
        if e[2] == PUSH:
            while queued >= capacity:
                ops.append((POP, 0, 0, 0, t))
                queued -= 1
            jid += 1
            ops.append((PUSH, jid, e[3], e[4], t))
            queued += 1
            if e[3] == LOW:
                syncs.append(jid)
                if len(syncs) > 4:
                    syncs.pop(0)
        elif e[2] == POP:
            ops.append((POP, 0, 0, 0, t))
            if queued:
                queued -= 1
        elif syncs:
            ops.append((CANCEL, syncs.pop(r.next(len(syncs))), 0, 0, t))
    while queued:
        t += 3000
        ops.append((POP, 0, 0, 0, t))
        queued -= 1
    return ops


def delays(seed, islands, base_us, jitter_us):
    # Per link base delay (origin -> island), base_us .. 3 * base_us, and a jitter source.
    r = Rng(seed + 7919)
    d = []
    for o in range(islands):
        row = []
        for j in range(islands):
            row.append(0 if o == j else base_us + r.next(2 * base_us + 1))
        d.append(row)
    return d, r


def local_ms(t, skew_us, ppm):
    # The island's ticks_ms() at true time t (us): skew plus drift, truncated to ms.
    return (skew_us + t + t * ppm // 1000000) // 1000


def arrivals(ops, j, link, jitter, jitter_us, skew_us, ppm):
    # Local arrival stamp (ms) on island j of every push, indexed like ops (None for others).
    out = []
    for op in ops:
        if op[0] == PUSH:
            d = link[op[3]][j]
            if d:
                d += jitter.next(jitter_us + 1)
            out.append(local_ms(op[4] + d, skew_us, ppm))
        else:
            out.append(None)
    return out


def textbook(ops, stamps):
    # The textbook queue: heapq of (-class, local arrival ms, id); lazy cancel. Pop order.
    h = []
    queued = set()
    dead = set()
    order = []
    for i in range(len(ops)):
        op = ops[i]
        if op[0] == PUSH:
            heapq.heappush(h, (-op[2], stamps[i], op[1]))
            queued.add(op[1])
        elif op[0] == CANCEL:
            if op[1] in queued:
                queued.remove(op[1])
                dead.add(op[1])
        else:
            while h:
                e = heapq.heappop(h)
                if e[2] in dead:
                    dead.remove(e[2])
                    continue
                queued.remove(e[2])
                order.append(e[2])
                break
    return order


def ticketq(ops, capacity, aging):
    # ticketq: sequence numbers come from the push order of the log. (pop order, digest).
    q = TicketQueue(capacity, 0, aging)
    order = []
    for op in ops:
        if op[0] == PUSH:
            q.push(op[1], op[2])
        elif op[0] == CANCEL:
            q.remove(op[1])
        else:
            try:
                order.append(q.pop())
            except QueueEmpty:
                pass
    return order, q.digest


def simulate(seed, skew_us, drift_ppm, pushes=96, capacity=32, aging=0, base_us=2000,
             jitter_us=3000):
    # Every island: [textbook order, ticketq order, ticketq digest]. Also returns the ops.
    n = len(skew_us)
    ops = stream(seed, pushes, n, capacity)
    link, jitter = delays(seed, n, base_us, jitter_us)
    res = []
    for j in range(n):
        stamps = arrivals(ops, j, link, jitter, jitter_us, skew_us[j], drift_ppm[j])
        o, g = ticketq(ops, capacity, aging)
        res.append([textbook(ops, stamps), o, g])
    return ops, res


def report(seed, skew_us, drift_ppm, pushes=96, capacity=32, aging=0, base_us=2000,
           jitter_us=3000):
    # The lines the VM prints and ticketq islands parses: one "tq" and one "tb" per island.
    res = simulate(seed, skew_us, drift_ppm, pushes, capacity, aging, base_us, jitter_us)[1]
    for j in range(len(res)):
        print("tq %d %d %s" % (j, res[j][2], ",".join([str(x) for x in res[j][1]])))
        print("tb %d %s" % (j, ",".join([str(x) for x in res[j][0]])))

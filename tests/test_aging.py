# Aging driven by the pop counter, and the schedule digest, on every interpreter.
from ticketq import TicketQueue, LOW, NORMAL, HIGH, CRITICAL
from ticketq.audit import tickets, max_wait, Trace
from qcheck import check_heap
from rng import Rng


def starve(q, victim_cls, pops, r, mix=True):
    # Adversary: keep the queue full, of CRITICAL tickets (mix: with 1 in 8 of any class);
    # count the pops of other tickets before the victim (id 999) pops. None: it never did.
    q.push(999, victim_cls)
    for n in range(pops):
        while not q.full():
            q.push(r.next(50), CRITICAL if not mix or r.next(8) else r.next(4))
        if q.pop() == 999:
            return n
        check_heap(q)
    return None


def test_strict_priority_starves_without_aging():
    q = TicketQueue(8)
    assert starve(q, LOW, 2000, Rng(1), mix=False) is None
    assert max_wait(8, 0, LOW) is None and max_wait(8, 0, CRITICAL) == 7


def test_aging_bounds_every_wait():
    r = Rng(3)
    for cap in (1, 2, 5, 8):
        for n in (1, 2, 4):
            for cls in (LOW, NORMAL, HIGH, CRITICAL):
                q = TicketQueue(cap, aging=n)
                for _ in range(r.next(3 * cap)):  # a random history first
                    if r.next(2) and not q.full():
                        q.push(r.next(50), r.next(4))
                    elif q:
                        q.pop()
                if q.full():
                    q.pop()
                w = starve(q, cls, 10000, r, mix=r.next(2))
                assert w is not None and w <= max_wait(cap, n, cls), (cap, n, cls, w)


def test_promotion_takes_the_oldest_below_top_and_marks_it():
    q = TicketQueue(8, aging=2)
    q.trace = Trace(8)
    q.push(1, HIGH)      # seq 0
    q.push(2, LOW)       # seq 1
    q.push(3, NORMAL)    # seq 2
    q.push(4, CRITICAL)  # seq 3
    q.push(5, CRITICAL)  # seq 4
    q.pop()
    q.pop()              # second pop: job 1 (HIGH, oldest below top) becomes CRITICAL
    assert tickets(q)[0] == (1, CRITICAL, 0)
    q.pop()
    q.pop()              # fourth pop: job 2 (LOW) becomes NORMAL, ahead of job 3 by age
    assert tickets(q) == [(2, NORMAL, 1)]
    q.pop()
    assert [(e[0], e[3]) for e in q.trace.entries()] == [
        (4, False), (5, False), (1, True), (3, False), (2, True)]


def test_aging_off_is_exactly_strict_priority():
    # Against a plain model, by default and with aging=0 alike: the highest class pops
    # first, within it the earliest push; nothing ever moves up.
    a = TicketQueue(16)
    b = TicketQueue(16, aging=0)
    model = []  # (class, push number, id)
    r = Rng(11)
    pushes = pops = 0
    for _ in range(300):
        if r.next(3) and not a.full():
            i, c = r.next(99), r.next(4)
            a.push(i, c)
            b.push(i, c)
            model.append((c, pushes, i))
            pushes += 1
        elif a:
            best = min(model, key=lambda t: (-t[0], t[1]))
            model.remove(best)
            assert (a.pop(), a.last_priority) == (best[2], best[0])
            assert (b.pop(), b.last_priority) == (best[2], best[0])
            pops += 1
    assert pops > 50 and len(a) == len(model)  # the stream really exercised both



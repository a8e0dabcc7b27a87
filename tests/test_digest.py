# The schedule digest: a fixed start, reset by clear(), the same on every interpreter.
from ticketq import TicketQueue, LOW, NORMAL
from rng import Rng


def test_digest_is_fixed_for_an_empty_schedule_and_reset_by_clear():
    q = TicketQueue(4)
    d0 = q.digest
    assert d0 == TicketQueue(9, first_seq=5, aging=2).digest == 0x2A5F0C3
    q.push(1, LOW)
    q.pop()
    assert q.digest != d0 and 0 <= q.digest < 0x40000000
    q.clear()
    assert q.digest == d0


def test_digest_golden_value_is_the_same_on_every_interpreter():
    q = TicketQueue(16, first_seq=0x3FFFFFF0, aging=3)
    r = Rng(77)
    for _ in range(500):
        if r.next(2) and not q.full():
            q.push(r.next(0x40000000), r.next(4))
        elif q:
            q.pop()
    assert q.digest == 0x104F8A7D, hex(q.digest)


def test_digest_tells_schedules_apart():
    def run(order):
        q = TicketQueue(8)
        for i in order:
            q.push(i, NORMAL)
        while q:
            q.pop()
        return q.digest
    base = run([1, 2, 3, 4])
    assert run([1, 2, 3, 4]) == base
    assert run([2, 1, 3, 4]) != base  # two jobs swapped
    assert run([1, 2, 3]) != base     # one job missing
    assert run([1, 2, 3, 5]) != base  # one job changed

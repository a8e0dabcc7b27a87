# Ordering and sequence numbers, on every interpreter.
from ticketq import TicketQueue, LOW, NORMAL, HIGH, CRITICAL
from qcheck import check_heap, drain


def test_class_constants():
    assert (LOW, NORMAL, HIGH, CRITICAL) == (0, 1, 2, 3)


def test_higher_class_first_then_fifo():
    q = TicketQueue(16)
    prios = [LOW, HIGH, NORMAL, CRITICAL, LOW, HIGH, CRITICAL, NORMAL, LOW]
    for i, p in enumerate(prios):
        assert q.push(100 + i, p) == i
        check_heap(q)
    want = sorted(range(len(prios)), key=lambda i: (-prios[i], i))
    assert drain(q) == [(100 + i, prios[i], i) for i in want]



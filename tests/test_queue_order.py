# Ordering and sequence numbers, on every interpreter.
from ticketq import TicketQueue, LOW, NORMAL, HIGH, CRITICAL
from qcheck import check_heap


def drain(q):
    out = []
    while q:
        out.append((q.pop(), q.last_priority, q.last_seq))
        check_heap(q)
    return out


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


def test_sequence_starts_at_first_seq():
    q = TicketQueue(4, first_seq=5000)
    assert [q.push(7, NORMAL) for _ in range(3)] == [5000, 5001, 5002]
    q.pop()
    assert (q.last_priority, q.last_seq) == (NORMAL, 5000)


def test_sequence_wraps_modulo_2_30_and_stays_fifo():
    q = TicketQueue(8, first_seq=0x3FFFFFFE)
    got = [q.push(i, HIGH) for i in range(5)]
    assert got == [0x3FFFFFFE, 0x3FFFFFFF, 0, 1, 2]
    assert [t[0] for t in drain(q)] == [0, 1, 2, 3, 4]


def test_duplicate_ids_are_separate_tickets():
    q = TicketQueue(4)
    q.push(5, LOW)
    q.push(5, HIGH)
    q.push(5, LOW)
    assert drain(q) == [(5, HIGH, 1), (5, LOW, 0), (5, LOW, 2)]



# Sequence numbers: from first_seq, modulo 2**30, one per ticket even for the same id.
from ticketq import TicketQueue, LOW, NORMAL, HIGH
from qcheck import drain


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

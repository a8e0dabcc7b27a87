# remove(): the oldest ticket with the id goes, and the heap is repaired in both directions.
from ticketq import TicketQueue, LOW, NORMAL, HIGH, CRITICAL
from qcheck import check_heap, drain


def test_remove_returns_whether_found():
    q = TicketQueue(4)
    q.push(1, LOW)
    assert q.remove(2) is False
    assert q.remove(1) is True
    assert q.remove(1) is False
    assert len(q) == 0


def test_remove_takes_the_oldest_ticket_with_that_id():
    q = TicketQueue(8)
    q.push(5, HIGH)      # seq 0
    q.push(6, LOW)       # seq 1
    q.push(5, CRITICAL)  # seq 2
    assert q.remove(5)
    check_heap(q)
    assert (q.pop(), q.last_priority, q.last_seq) == (5, CRITICAL, 2)
    assert (q.pop(), q.last_priority, q.last_seq) == (6, LOW, 1)


def test_remove_last_slot_and_root():
    q = TicketQueue(4)
    for i in range(4):
        q.push(i, NORMAL)
    assert q.remove(3)  # the last slot: nothing moves
    assert q.remove(0)  # the root
    check_heap(q)
    assert [t[0] for t in drain(q)] == [1, 2]



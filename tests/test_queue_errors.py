# Bad input and the full/empty cases: a clear, specific error, and the queue unchanged.
from ticketq import TicketQueue, QueueFull, QueueEmpty, LOW, HIGH, CRITICAL
from qcheck import snapshot
from support import raises


def filled():
    q = TicketQueue(3, first_seq=40)
    q.push(1, LOW)
    q.push(2, HIGH)
    q.pop()
    q.push(3, LOW)
    return q


def test_full_queue_raises_and_changes_nothing():
    q = filled()
    q.push(4, LOW)
    before = snapshot(q)
    # Even a CRITICAL ticket cannot jump a full queue.
    e = raises(QueueFull, q.push, 5, CRITICAL)
    assert "full" in str(e)
    assert snapshot(q) == before
    q.pop()
    assert q.push(5, CRITICAL) == 44  # no sequence number was spent on the refusal


def test_empty_pop_and_peek_raise():
    q = TicketQueue(2)
    raises(QueueEmpty, q.pop)
    raises(QueueEmpty, q.peek)
    q.push(1, LOW)
    q.pop()
    before = snapshot(q)
    e = raises(QueueEmpty, q.pop)
    assert "empty" in str(e)
    assert snapshot(q) == before



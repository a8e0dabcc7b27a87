# Bad input and the full/empty cases: a clear, specific error, and the queue unchanged.
from ticketq import TicketQueue, QueueFull, QueueEmpty, LOW, HIGH, CRITICAL
from qcheck import snapshot, check_heap
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


def test_bad_priority():
    q = filled()
    before = snapshot(q)
    for p in (-1, 4, 99, 2 ** 40):
        raises(ValueError, q.push, 7, p)
    for p in ("1", 1.0, None, [1]):
        raises(TypeError, q.push, 7, p)
    assert snapshot(q) == before


def test_bad_job_id():
    q = filled()
    before = snapshot(q)
    for i in (-1, 0x40000000, 2 ** 64):
        raises(ValueError, q.push, i, LOW)
        raises(ValueError, q.remove, i)
    for i in ("7", 7.0, None):
        raises(TypeError, q.push, i, LOW)
        raises(TypeError, q.remove, i)
    assert snapshot(q) == before
    assert q.push(0x3FFFFFFF, LOW) == 43  # the largest id is fine
    check_heap(q)


def test_bad_constructor_arguments():
    raises(ValueError, TicketQueue, 0)
    raises(ValueError, TicketQueue, -3)
    raises(TypeError, TicketQueue, 2.5)
    raises(TypeError, TicketQueue, "8")
    raises(ValueError, TicketQueue, 4, -1)
    raises(ValueError, TicketQueue, 4, 0x40000000)
    raises(ValueError, TicketQueue, 4, 0, -1)
    raises(TypeError, TicketQueue, 4, 0, None)



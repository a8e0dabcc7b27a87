# The small API around the queue: peek, len, bool, full, capacity, clear, last_*.
from ticketq import TicketQueue, LOW, CRITICAL


def test_peek_len_bool_full_capacity_clear():
    q = TicketQueue(3)
    assert (len(q), bool(q), q.full(), q.capacity) == (0, False, False, 3)
    q.push(9, LOW)
    q.push(8, CRITICAL)
    assert q.peek() == 8 and len(q) == 2 and q
    q.push(7, LOW)
    assert q.full() and len(q) == 3
    q.clear()
    assert (len(q), bool(q), q.full()) == (0, False, False)
    # The sequence is a logical clock: clear() does not take it back.
    assert q.push(1, LOW) == 3


def test_last_fields_before_any_pop():
    q = TicketQueue(2)
    assert (q.last_priority, q.last_seq) == (-1, -1)


def test_clear_starts_a_new_schedule():
    # ticketq's docstrings: clear() resets digest and last_* (they describe the pops since
    # construction or clear()); the sequence goes on.
    q = TicketQueue(2)
    d0 = q.digest
    q.push(5, CRITICAL)
    q.pop()
    assert (q.last_priority, q.last_seq) == (CRITICAL, 0) and q.digest != d0
    q.clear()
    assert (q.last_priority, q.last_seq, q.digest) == (-1, -1, d0)
    assert q.push(5, LOW) == 1

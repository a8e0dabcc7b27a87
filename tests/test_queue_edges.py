# Edges of TicketQueue's contract (ticketq.pyi) that mutation testing (ticketq mutants)
# found no test of: peek of a ticket aging promoted, repr's count of every class, and the
# capacity's upper bound. Not in the micro:bit's profile (its heap has room for the
# modules listed there only); the same code runs on CPython and the VM.
from support import raises
from ticketq import TicketQueue, LOW, NORMAL, HIGH, CRITICAL


def test_peek_and_pop_give_a_promoted_tickets_plain_id():
    # Aging marks a promoted ticket; peek and pop still return its job id as pushed.
    for ident in (0, 5, 0x3FFFFFFF):
        q = TicketQueue(4, 0, 1)
        q.push(ident, LOW)
        q.push(9, HIGH)
        assert q.pop() == 9  # then the LOW ticket is promoted
        assert q.peek() == ident
        assert q.pop() == ident and q.last_priority == NORMAL


def test_repr_counts_every_class():
    q = TicketQueue(16)
    for i, c in enumerate([CRITICAL] * 4 + [HIGH] * 3 + [NORMAL] * 2 + [LOW] * 1):
        q.push(i, c)
    assert repr(q) == "<TicketQueue 10/16 CRITICAL=4 HIGH=3 NORMAL=2 LOW=1>", repr(q)
    assert repr(TicketQueue(2)) == "<TicketQueue 0/2 CRITICAL=0 HIGH=0 NORMAL=0 LOW=0>"


def test_capacity_above_2_24_is_refused():
    e = raises(ValueError, TicketQueue, (1 << 24) + 1)
    assert "capacity" in str(e)
    raises(ValueError, TicketQueue, 0)


class _Log:
    def __init__(self):
        self.log = []

    def record(self, i, c, s, p):
        self.log.append((i, c, s, p))


def test_a_ticket_promoted_twice_stays_marked_promoted_even_id_0():
    # The trace says which popped tickets aging promoted; a second promotion keeps the mark,
    # for every id, 0 (whose mark is ~0 == -1) included.
    for ident in (0, 1, 0x3FFFFFFF):
        q = TicketQueue(4, 0, 1)
        q.trace = _Log()
        q.push(ident, LOW)
        q.push(9, CRITICAL)
        q.push(8, CRITICAL)
        assert [q.pop(), q.pop(), q.pop()] == [9, 8, ident]  # LOW -> NORMAL -> HIGH
        assert q.trace.log[-1] == (ident, HIGH, 0, True), q.trace.log


def test_the_largest_aging_and_job_id_are_taken():
    q = TicketQueue(2, 0, 0x3FFFFFFF)
    assert q.aging == 0x3FFFFFFF
    raises(ValueError, TicketQueue, 2, 0, 0x40000000)
    assert q.remove(0x3FFFFFFF) is False  # in range, none queued
    raises(ValueError, q.remove, 0x40000000)
    q.push(0x3FFFFFFF, NORMAL)
    assert q.remove(0x3FFFFFFF) is True and len(q) == 0

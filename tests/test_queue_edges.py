# Edges of TicketQueue's contract (ticketq.pyi) that mutation testing (tools/mutants.py)
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

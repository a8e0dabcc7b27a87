# The sequence counter running out: internal renumbering keeps the order exact, the
# numbers seen outside count modulo 2**30. The internal limit is narrowed through the
# test-only attribute _lim (production: 2**29) so a wrap takes a few pushes, not 2**29.
from ticketq import TicketQueue, LOW, NORMAL, HIGH, CRITICAL
from qcheck import check_heap

M30 = 0x40000000


def narrow(q, lim):
    assert q.capacity <= lim // 4  # renumbering must always leave room
    q._lim = lim
    return q


def test_fifo_stream_keeps_exact_numbers_through_many_renumberings():
    q = narrow(TicketQueue(4, first_seq=M30 - 37), 16)
    pushed = []
    for i in range(300):
        pushed.append((i, q.push(i, NORMAL)))
        if len(q) == 3:
            j = q.pop()
            check_heap(q)
            assert (j, q.last_seq) == pushed[j]
    assert pushed[0][1] == M30 - 37 and pushed[37][1] == 0 and pushed[299][1] == 262


def test_ticket_waits_through_the_wrap():
    # A LOW ticket starves while CRITICAL/HIGH traffic pushes the counter round many times.
    q = narrow(TicketQueue(6, first_seq=M30 - 5), 32)
    low_seq = q.push(1000, LOW)
    mid_seq = q.push(1001, NORMAL)
    seqs = {}
    for i in range(200):
        seqs[i] = q.push(i, CRITICAL if i % 3 else HIGH)
        check_heap(q)
        if len(q) == 5:
            j = q.pop()
            check_heap(q)
            # Every ticket pushed after the waiting ones keeps its exact number.
            assert q.last_seq == seqs[j]
            assert q.last_priority == (CRITICAL if j % 3 else HIGH)
    rest = []
    while q:
        rest.append((q.pop(), q.last_priority))
        check_heap(q)
    # Order is exact: the remaining high-class tickets, then NORMAL, then LOW.
    assert rest[-2:] == [(1001, NORMAL), (1000, LOW)]
    assert low_seq == M30 - 5 and mid_seq == M30 - 4



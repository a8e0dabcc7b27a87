# Sequence numbers at the natural top of the internal range: internal sequences above 2**28
# and the renumbering at 2**29 itself, with the limit production has (test_queue_renumber
# and _wrap narrow it to wrap in a few pushes, so the top bits of a key never get set
# there). Not in the micro:bit's profile: test_queue_renumber just fits its heap, and the
# bytecode path it would run is the one CPython and the VM run here.
from ticketq import TicketQueue, LOW
from qcheck import check_heap

M30 = 1 << 30


def fast_forward(q, pushes):
    # What `pushes` pushes of CRITICAL tickets, each popped at once, do to a queue that holds
    # none (so they pass every queued ticket), the digest and last_* aside: the internal
    # counter moves on, nothing else (its outside number is internal + _nb). Through the
    # test-only _nxt (ticketq.pyi), since 2**28 real pushes take minutes on a board.
    assert q._nxt + pushes < q._lim
    assert all(q._k[i] >= -(1 << 29) for i in range(len(q)))  # no CRITICAL ticket queued
    q._nxt += pushes


def test_sequences_at_the_natural_top_of_the_internal_range():
    # Internal sequences above 2**28 and the renumbering at 2**29 itself, with the limit as
    # production has it (not narrowed): every path (viper, bytecode) keeps the numbers push
    # returned, the order, and goes on counting after the renumbering.
    for first in (0, 7, M30 - 3):
        for start in ((1 << 28) - 3, (1 << 29) - 5):
            q = TicketQueue(8, first)
            assert q._lim == 1 << 29
            fast_forward(q, start)
            n = start  # pushes so far, as the outside numbers count them
            for rnd in range(3):  # the third round pushes past 2**29 + 8
                model = []
                for i in range(8):
                    c = (i * 3 + rnd) % 4
                    s = q.push(100 * rnd + i, c)
                    assert s == (first + n) % M30, (first, start, rnd, i, s)
                    n += 1
                    model.append((-c, n, 100 * rnd + i, s))
                check_heap(q)
                model.sort()
                for m in model:
                    assert q.pop() == m[2]
                    assert (q.last_priority, q.last_seq) == (-m[0], m[3]), (first, start, m)
            assert q._nxt <= q._lim


def test_the_last_internal_number_is_found_and_never_promoted_out_of_range():
    # The internal counter's very last number (2**29 - 1, pushed just before renumbering):
    # remove finds that ticket (the search starts above every internal number), and aging,
    # which moves the oldest ticket *below* CRITICAL, leaves a CRITICAL one there alone
    # (its key is the one nearest the class boundary).
    for first in (0, M30 - 1):
        q = TicketQueue(4, first)
        fast_forward(q, (1 << 29) - 2)
        q.push(7, 1)
        s = q.push(8, 2)  # internal 2**29 - 1
        assert s == (first + (1 << 29) - 1) % M30
        assert q.remove(8) and len(q) == 1 and q.peek() == 7
        assert not q.remove(8)
        q = TicketQueue(4, first, 1)  # aging: a promotion after every pop
        fast_forward(q, (1 << 29) - 2)
        q.push(1, 3)
        q.push(2, 3)  # internal 2**29 - 1, CRITICAL
        assert q.pop() == 1
        assert q.pop() == 2 and q.last_priority == 3 and q.last_seq == (first + (1 << 29) - 1) % M30


def test_renumbering_packs_only_tickets_that_waited_past_a_quarter_of_the_range():
    # ticketq.pyi: when the counter runs out, a ticket that waited through fewer than 2**27
    # later pushes keeps the number push returned; an older one is packed just below the
    # recent ones (its number becomes larger, still below every later ticket's).
    q = TicketQueue(4)
    fast_forward(q, (1 << 28) + 5)
    a = q.push(1, LOW)  # will have waited through ~3 * 2**26 pushes: more than 2**27
    fast_forward(q, 3 * (1 << 27) + 5 - q._nxt)
    b = q.push(2, LOW)  # will have waited through fewer than 2**27
    fast_forward(q, (1 << 29) - 1 - q._nxt)
    c = q.push(3, LOW)
    d = q.push(4, LOW)  # the counter ran out: renumbered here
    assert (a, b, c, d) == ((1 << 28) + 5, 3 * (1 << 27) + 5, (1 << 29) - 1, 1 << 29)
    out = []
    while q:
        out.append((q.pop(), q.last_seq))
    assert [x[0] for x in out] == [1, 2, 3, 4]
    assert out[1:] == [(2, b), (3, c), (4, d)]
    assert a < out[0][1] < b, out  # packed: a larger number, below the recent ones

# remove() repairs the heap in both directions: the ticket that fills the hole may have
# to go up (test_moved_ticket_sifts_up) or down; and any slot can be removed.
from ticketq import TicketQueue, LOW, NORMAL, HIGH, CRITICAL
from qcheck import check_heap, drain


def expected(classes, gone):
    return sorted([i for i in range(len(classes)) if i != gone], key=lambda i: (-classes[i], i))


def test_moved_ticket_sifts_up():
    # Slot 5 holds a LOW ticket under a HIGH parent (slot 2); the last slot holds a
    # CRITICAL ticket. Removing slot 5 moves it there, above its new parent: it must go up.
    classes = [CRITICAL, CRITICAL, HIGH, CRITICAL, HIGH, LOW, HIGH, CRITICAL]
    q = TicketQueue(16)
    for i, p in enumerate(classes):
        q.push(i, p)
    k = q._k
    assert k[len(q) - 1] < k[2], "precondition: the moved key belongs above slot 5"
    gone = q._d[5]
    assert q.remove(gone)
    check_heap(q)
    assert [t[0] for t in drain(q)] == expected(classes, gone)


def test_moved_ticket_sifts_down():
    classes = [CRITICAL, HIGH, CRITICAL, HIGH, HIGH, CRITICAL, LOW]
    q = TicketQueue(8)
    for i, p in enumerate(classes):
        q.push(i, p)
    k = q._k
    assert k[len(q) - 1] > k[3], "precondition: the moved key belongs below slot 1"
    gone = q._d[1]
    assert q.remove(gone)
    check_heap(q)
    assert [t[0] for t in drain(q)] == expected(classes, gone)


def test_every_position_removed():
    classes = [LOW, CRITICAL, NORMAL, HIGH, LOW, HIGH, CRITICAL, NORMAL, LOW, HIGH, NORMAL]
    for victim in range(len(classes)):
        q = TicketQueue(16)
        for i, p in enumerate(classes):
            q.push(i, p)
        assert q.remove(victim)
        check_heap(q)
        assert [t[0] for t in drain(q)] == expected(classes, victim)

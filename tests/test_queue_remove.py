# remove(): the oldest ticket with the id goes, and the heap is repaired in both directions.
from ticketq import TicketQueue, LOW, NORMAL, HIGH, CRITICAL
from qcheck import check_heap


def pops(q):
    out = []
    while q:
        out.append(q.pop())
        check_heap(q)
    return out


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
    assert pops(q) == [1, 2]


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
    assert pops(q) == expected(classes, gone)


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
    assert pops(q) == expected(classes, gone)


def test_every_position_removed():
    classes = [LOW, CRITICAL, NORMAL, HIGH, LOW, HIGH, CRITICAL, NORMAL, LOW, HIGH, NORMAL]
    for victim in range(len(classes)):
        q = TicketQueue(16)
        for i, p in enumerate(classes):
            q.push(i, p)
        assert q.remove(victim)
        check_heap(q)
        assert pops(q) == expected(classes, victim)

# Renumbering when the internal counter runs out (narrowed through the test-only _lim):
# deterministic, order-preserving, also on an empty queue and across mixed classes.
from ticketq import TicketQueue, LOW, HIGH
from qcheck import check_heap


def narrow(q, lim):
    assert q.capacity <= lim // 4  # renumbering must always leave room
    q._lim = lim
    return q


def test_renumbering_is_deterministic_and_keeps_relative_order():
    # A ticket that waited through more than a quarter of the internal range is packed: its
    # number seen outside is renumbered, but identically on every queue, and it still
    # precedes every later ticket of its class.
    runs = []
    for _ in range(2):
        q = narrow(TicketQueue(6), 32)
        q.push(1, LOW)
        q.push(2, LOW)
        for i in range(40):
            q.push(10 + i, HIGH)
            q.pop()
        q.push(3, LOW)
        out = []
        while q:
            out.append((q.pop(), q.last_seq))
        runs.append(out)
    assert runs[0] == runs[1]
    ids = [t[0] for t in runs[0]]
    nums = [t[1] for t in runs[0]]
    assert ids == [1, 2, 3] and nums[0] < nums[1] < nums[2] == 42


def test_renumbering_an_empty_queue():
    q = narrow(TicketQueue(2), 8)
    for i in range(20):
        assert q.push(i, LOW) == i
        assert q.pop() == i and q.last_seq == i
    assert q._nxt <= 8


def test_mixed_classes_order_exact_across_renumbering():
    q = narrow(TicketQueue(8), 32)
    model = []
    n = 0
    for step in range(500):
        p = (step * 7) % 4
        if len(model) < 8 and step % 5 != 4:
            q.push(step, p)
            model.append((-p, n, step))
            n += 1
        else:
            m = min(model)
            model.remove(m)
            assert q.pop() == m[2] and q.last_priority == -m[0]
        check_heap(q)

# Ordering, sequence numbers and the small API, on every interpreter.
from ticketq import TicketQueue, LOW, NORMAL, HIGH, CRITICAL
from ticketq_audit import tickets
from support import check_heap, Rng


def drain(q):
    out = []
    while q:
        out.append((q.pop(), q.last_priority, q.last_seq))
        check_heap(q)
    return out


def test_class_constants():
    assert (LOW, NORMAL, HIGH, CRITICAL) == (0, 1, 2, 3)


def test_higher_class_first_then_fifo():
    q = TicketQueue(16)
    prios = [LOW, HIGH, NORMAL, CRITICAL, LOW, HIGH, CRITICAL, NORMAL, LOW]
    for i, p in enumerate(prios):
        assert q.push(100 + i, p) == i
        check_heap(q)
    want = sorted(range(len(prios)), key=lambda i: (-prios[i], i))
    assert drain(q) == [(100 + i, prios[i], i) for i in want]


def test_sequence_starts_at_first_seq():
    q = TicketQueue(4, first_seq=5000)
    assert [q.push(7, NORMAL) for _ in range(3)] == [5000, 5001, 5002]
    q.pop()
    assert (q.last_priority, q.last_seq) == (NORMAL, 5000)


def test_sequence_wraps_modulo_2_30_and_stays_fifo():
    q = TicketQueue(8, first_seq=0x3FFFFFFE)
    got = [q.push(i, HIGH) for i in range(5)]
    assert got == [0x3FFFFFFE, 0x3FFFFFFF, 0, 1, 2]
    assert [t[0] for t in drain(q)] == [0, 1, 2, 3, 4]


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


def test_duplicate_ids_are_separate_tickets():
    q = TicketQueue(4)
    q.push(5, LOW)
    q.push(5, HIGH)
    q.push(5, LOW)
    assert drain(q) == [(5, HIGH, 1), (5, LOW, 0), (5, LOW, 2)]


def test_repr_and_tickets_do_not_disturb():
    q = TicketQueue(8)
    for i, p in enumerate([LOW, CRITICAL, LOW, NORMAL]):
        q.push(i, p)
    r = repr(q)
    assert "4/8" in r and "CRITICAL=1" in r and "LOW=2" in r, r
    assert tickets(q) == [(1, 3, 1), (3, 1, 3), (0, 0, 0), (2, 0, 2)]
    assert len(q) == 4 and q.peek() == 1
    check_heap(q)


def test_same_operations_same_schedule():
    # Two boards seeing the same pushes, pops and removes produce the same pops.
    logs = []
    for _ in range(2):
        q = TicketQueue(12, first_seq=77)
        r = Rng(99)
        log = []
        for _ in range(400):
            op = r.next(5)
            if op < 3 and not q.full():
                log.append(q.push(r.next(20), r.next(4)))
            elif op == 3 and q:
                log.append((q.pop(), q.last_priority, q.last_seq))
            else:
                log.append(q.remove(r.next(20)))
        logs.append((log, q.digest))
    assert logs[0] == logs[1]


def test_random_against_sorted_model():
    q = TicketQueue(24)
    model = []  # [(-class, seq, id)], popped as min
    r = Rng(7)
    seq = 0
    for _ in range(600):
        op = r.next(7)
        if op < 3 and len(model) < 24:
            i, p = r.next(50), r.next(4)
            assert q.push(i, p) == seq
            model.append((-p, seq, i))
            seq += 1
        elif op < 5 and model:
            m = min(model)
            model.remove(m)
            assert (q.pop(), q.last_priority, q.last_seq) == (m[2], -m[0], m[1])
        elif op == 5 and model:
            assert q.peek() == min(model)[2]
        else:
            i = r.next(50)
            mine = [t for t in model if t[2] == i]
            assert q.remove(i) == bool(mine)
            if mine:
                model.remove(min(mine, key=lambda t: t[1]))
        assert len(q) == len(model)
        check_heap(q)

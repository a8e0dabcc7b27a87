# ticketq.audit: listing, explaining, tracing (REPL tools; not needed on a board at run time).
from ticketq import TicketQueue, LOW, NORMAL, HIGH, CRITICAL
from ticketq.audit import tickets, explain, Trace
from qcheck import check_heap


def test_repr_and_tickets_do_not_disturb():
    q = TicketQueue(8)
    for i, p in enumerate([LOW, CRITICAL, LOW, NORMAL]):
        q.push(i, p)
    r = repr(q)
    assert "4/8" in r and "CRITICAL=1" in r and "LOW=2" in r, r
    assert tickets(q) == [(1, 3, 1), (3, 1, 3), (0, 0, 0), (2, 0, 2)]
    assert len(q) == 4 and q.peek() == 1
    check_heap(q)


def test_explain_names_the_rule_that_decides():
    q = TicketQueue(8, aging=1)
    for i, p in enumerate([LOW, CRITICAL, NORMAL, NORMAL]):
        q.push(i, p)
    e = explain(q, 2, 1)
    assert "Job 1 pops first" in e and "class is higher" in e, e
    e = explain(q, 3, 2)
    assert "Job 2 pops first" in e and "pushed earlier" in e, e
    q.pop()  # job 1; aging then promotes job 0 (LOW, the oldest below the top) to NORMAL
    e = explain(q, 3, 0)
    assert "Job 0 pops first" in e and "promoted by aging" in e and "NORMAL" in e, e
    assert explain(q, 9, 0) == "job 9 is not queued"
    assert explain(q, ~3, 3) == "job -4 is not queued"  # not taken for a promoted job 3
    assert tickets(q) == [(0, NORMAL, 0), (2, NORMAL, 2), (3, NORMAL, 3)]


def test_trace_keeps_the_last_pops_in_a_ring():
    q = TicketQueue(8)
    q.trace = Trace(3)
    for i in range(5):
        q.push(i, HIGH if i % 2 else LOW)
    while q:
        q.pop()
    assert q.trace.count == 5
    assert q.trace.entries() == [(0, LOW, 0, False), (2, LOW, 2, False), (4, LOW, 4, False)]
    assert "2 LOW seq=2" in repr(q.trace)


def test_bad_arguments_are_refused():
    from support import raises
    from ticketq.audit import max_wait
    raises(TypeError, Trace, "3")
    raises(ValueError, Trace, 0)
    raises(ValueError, Trace, 0x1000001)  # 2**24 entries at most, as a queue's capacity
    assert Trace(True).size == 1  # bools count as ints, as everywhere in ticketq
    raises(ValueError, max_wait, 8, 0, 5)
    raises(ValueError, max_wait, 0, 1, 1)


def test_trace_count_saturates_as_a_small_int():
    t = Trace(2)
    t.count = 0x3FFFFFFE
    t.record(1, 0, 0, False)
    t.record(2, 0, 1, False)
    assert t.count == 0x3FFFFFFF and [e[0] for e in t.entries()] == [1, 2]


def test_explain_takes_the_oldest_of_an_id_queued_twice():
    q = TicketQueue(8)
    q.push(5, LOW)  # seq 0
    q.push(6, LOW)  # seq 1
    q.push(5, LOW)  # seq 2: the same id again
    e = explain(q, 5, 6)
    assert e.startswith("job 5 is LOW, seq 0;") and "Job 5 pops first" in e, e


def test_an_attached_trace_records_without_allocating():
    try:
        from micropython import heap_lock, heap_unlock
    except ImportError:
        from support import skip
        skip("needs micropython.heap_lock (MicroPython only)")
    q = TicketQueue(8, aging=2)
    q.trace = Trace(3)
    err = None
    heap_lock()
    try:
        for i in range(200):  # the ring wraps many times, aging promotes along the way
            q.push(i & 63, i & 3)
            if len(q) > 4:
                q.pop()
    except Exception as e:  # kept, and raised only once the heap is unlocked
        err = e
    finally:
        heap_unlock()
    if err is not None:
        raise err
    assert q.trace.count == 196 and len(q.trace.entries()) == 3, (q.trace.count, q.trace.entries())


def test_the_int_rule_in_the_audit():
    # ticketq's docstring, "Integers": as in the queue, bools and int subclasses count as their
    # value, anything else is a TypeError naming the argument.
    from ticketq import TicketQueue, HIGH
    from ticketq.audit import Trace, explain, max_wait
    from support import raises

    class Num(int):
        pass

    q = TicketQueue(4)
    q.push(1, HIGH)
    q.push(2, HIGH)
    assert explain(q, Num(1), Num(2)) == explain(q, 1, 2) and "Job 1 pops first" in explain(q, 1, 2)
    assert explain(q, Num(5), 1) == "job 5 is not queued"
    assert str(raises(TypeError, explain, q, "1", 2)) == "a must be int"
    assert str(raises(TypeError, explain, q, 1, 2.0)) == "b must be int"
    assert Trace(Num(2)).size == 2 and type(Trace(Num(2)).size) is int
    assert max_wait(Num(8), Num(0), Num(3)) == 7 and max_wait(8, True, 3) == 7
    assert str(raises(TypeError, max_wait, 8, 1, "3")) == "cls must be int"

# ticketq.audit on a LaneQueue: tickets in pop order with their lanes, explain naming the
# rule that decides (class, FIFO in a lane, or the lanes' turns), a trace with lanes, and
# lane_max_wait's arguments. The TicketQueue side is test_audit.py, unchanged.
from ticketq import LOW, NORMAL, HIGH, CRITICAL
from ticketq.lanes import LaneQueue
from ticketq.audit import tickets, explain, Trace, lane_max_wait
from support import raises


def chatty_and_quiet():
    q = LaneQueue(16, [2, 1])  # the table: lane 0, lane 0, lane 1
    for i in range(5):
        q.push(i, NORMAL, 0)  # seq 0..4
    q.push(10, NORMAL, 1)  # seq 5
    q.push(11, NORMAL, 1)  # seq 6
    q.push(12, CRITICAL, 1)  # seq 7
    return q


def test_tickets_lists_the_pop_order_with_lanes_and_leaves_the_queue_alone():
    q = chatty_and_quiet()
    expect = [(12, 3, 7, 1), (0, 1, 0, 0), (1, 1, 1, 0), (10, 1, 5, 1), (2, 1, 2, 0),
              (3, 1, 3, 0), (11, 1, 6, 1), (4, 1, 4, 0)]
    assert tickets(q) == expect
    assert len(q) == 8
    got = []
    while q:
        got.append((q.pop(), q.last_priority, q.last_seq, q.last_lane))
    assert got == expect


def test_explain_names_the_lane_turns_when_lanes_decide():
    q = chatty_and_quiet()
    e = explain(q, 3, 10)
    assert e.startswith("job 10 is NORMAL, seq 5, lane 1 (1st in its lane); job 3 is NORMAL, "
                        "seq 3, lane 0 (4th in its lane). Job 10 pops first:"), e
    assert "different lanes, so the weighted rotation decides (weights 2:1" in e, e
    assert "lane 1's turn for job 10 at the 3rd entry from the cursor, lane 0's for job 3 at " \
           "the 5th" in e and "(job 3 was pushed earlier)" in e, e
    e = explain(q, 4, 0)
    assert "Job 0 pops first: both are in one lane of one class and it was pushed earlier" in e
    e = explain(q, 0, 12)
    assert "Job 12 pops first: its class is higher" in e, e
    assert explain(q, 11, 11) == "job 11 is NORMAL, seq 6, lane 1 (2nd in its lane)"
    assert explain(q, 7, 11) == "job 7 is not queued"


def test_explain_a_promoted_ticket_in_its_new_class():
    q = LaneQueue(8, [1, 1], aging=1)
    q.push(1, LOW, 1)
    q.push(2, NORMAL, 0)
    q.push(3, HIGH, 0)
    q.pop()  # job 3; aging then promotes job 1 (the oldest below the top) to NORMAL, lane 1
    e = explain(q, 1, 2)
    assert "; job 1 is NORMAL, seq 0, lane 1 (1st in its lane) (promoted by aging). Job 2 " \
           "pops first: both are NORMAL but in different lanes" in e, e
    assert e.endswith("(job 1 was pushed earlier)."), e


def test_a_trace_keeps_the_lanes():
    q = LaneQueue(8, [1, 1, 1])
    q.trace = Trace(4)
    q.push(5, HIGH, 2)
    q.push(6, HIGH, 0)
    q.pop()
    q.pop()
    assert q.trace.entries() == [(6, HIGH, 1, False), (5, HIGH, 0, False)]
    assert q.trace.entries(True) == [(6, HIGH, 1, False, 0), (5, HIGH, 0, False, 2)]
    assert repr(q.trace) == "6 HIGH seq=1\n5 HIGH seq=0 lane=2"


def test_lane_max_wait_arguments():
    q = LaneQueue(8, [1, 3], lane_capacity=[2, 8])
    raises(ValueError, lane_max_wait, q, 2, 3)
    raises(ValueError, lane_max_wait, q, 0, 4)
    assert lane_max_wait(q, 0, LOW) is None  # strict priority: no bound
    # The table is 1, 1, 0, 1: from just past lane 0's entry, 7 entries come before its
    # second turn after that (a ticket behind one other of its lane waits at most 7 pops).
    assert lane_max_wait(q, 0, CRITICAL) == 7
    assert lane_max_wait(LaneQueue(8, [1, 3], [2, 8], aging=2), 0, LOW) == 2 * (7 * 3 + 3) + 7


class Num(int):
    pass


def test_lane_max_wait_keeps_the_one_int_rule():
    # ticketq's docstring, "Integers": an int, a bool or an int subclass counts as its value; else
    # TypeError naming the argument, with the library's message on every interpreter.
    q = LaneQueue(8, [1, 3], lane_capacity=[2, 8])
    assert lane_max_wait(q, Num(0), Num(3)) == lane_max_wait(q, 0, 3) == 7
    assert lane_max_wait(q, False, True + 2) == 7
    assert str(raises(TypeError, lane_max_wait, q, 0, "3")) == "cls must be int"
    assert str(raises(TypeError, lane_max_wait, q, 0, 3.0)) == "cls must be int"
    assert str(raises(TypeError, lane_max_wait, q, "0", 3)) == "lane must be int"
    assert str(raises(ValueError, lane_max_wait, q, 0, -1)) == "cls must be 0..3"
    from ticketq import TicketQueue
    e = raises(TypeError, lane_max_wait, TicketQueue(8), 0, 3)
    assert "LaneQueue" in str(e) and "max_wait(q.capacity, q.aging, cls)" in str(e), str(e)


def test_explain_says_pushed_earlier_by_push_order_across_the_sequence_wrap():
    # Across the 2**30 wrap the ticket pushed first has the higher number: the remark must
    # follow the push order, not compare the outside numbers.
    q = LaneQueue(8, [1, 1], first_seq=2**30 - 1)
    q.push(20, NORMAL, 0)  # seq 2**30 - 1, pushed first, pops first
    q.push(21, NORMAL, 1)  # seq 0
    e = explain(q, 20, 21)
    assert "Job 20 pops first" in e and "pushed earlier" not in e, e
    q = LaneQueue(8, [1, 1], first_seq=2**30 - 1)
    q.push(20, NORMAL, 1)  # seq 2**30 - 1, pushed first, pops second
    q.push(21, NORMAL, 0)  # seq 0
    e = explain(q, 20, 21)
    assert "Job 21 pops first" in e and e.endswith("(job 20 was pushed earlier)."), e

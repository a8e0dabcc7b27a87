# Keyed lanes (LaneQueue(capacity, max_lanes=N), docs/lanes.md "Keyed lanes") on every
# interpreter: the ring's turns, weights read at each pop, a new or returning lane at the
# tail, LanesFull and LaneFull (queue unchanged, no number spent), bad arguments, remove,
# clear, one key = a TicketQueue, all weights 1 = round robin, and the queue against the
# reference of the rule (tests/keyedref.py) on seeded random streams with keys appearing
# and vanishing, weights and bounds changing, hash collisions and renumbering.
from ticketq import TicketQueue, QueueFull, QueueEmpty, LOW, NORMAL, HIGH, CRITICAL
from ticketq.lanes import LaneQueue, LaneFull, LanesFull
from ticketq.audit import tickets, explain, lane_max_wait, Trace
from lanecheck import check_keyed, snapshot_keyed
from keyedref import KeyedRef, DIG0
from rng import Rng
from support import raises

BIG = (1 << 30) - 1  # the largest key


def drain(q):
    out = []
    while q:
        out.append((q.pop(), q.last_priority, q.last_seq, q.last_lane))
        check_keyed(q)
    return out


def test_keys_with_weight_1_are_served_round_robin():
    q = LaneQueue(32, max_lanes=4)
    for i in range(5):
        q.push(i, NORMAL, 900)  # a chatty key first
    q.push(10, NORMAL, BIG)
    q.push(11, NORMAL, BIG)
    q.push(20, NORMAL, 0)
    assert q.lanes == 3 and q.lane_len(900) == 5 and q.lane_len(7) == 0
    got = drain(q)
    assert [t[0] for t in got] == [0, 10, 20, 1, 11, 2, 3, 4]
    assert [t[3] for t in got] == [900, BIG, 0, 900, BIG, 900, 900, 900]
    assert q.lanes == 0 and q.last_lane == 900


def test_a_weight_is_a_turn_of_that_many_pops_read_at_each_pop():
    q = LaneQueue(64, max_lanes=3)
    for i in range(12):
        q.push(i, HIGH, 5)
        q.push(100 + i, HIGH, 6)
    q.set_lane(5, weight=3)
    assert q.lane_settings(5) == (12, 3, 64) and q.lane_settings(8) is None
    got = [q.pop() for _ in range(8)]
    assert got == [0, 1, 2, 100, 3, 4, 5, 101], got
    # Lane 5 heads the ring now, none of its turn used. Lowered to 1 mid-wait, raised to 2
    # mid-turn: the weight counts as it is at each pop.
    q.set_lane(5, weight=1)
    assert q.pop() == 6 and q.pop() == 102
    q.set_lane(5, weight=2)
    assert q.pop() == 7
    q.set_lane(5, weight=4)  # one used of 4 now: three more
    assert [q.pop() for _ in range(4)] == [8, 9, 10, 103]
    q.set_lane(5, weight=1)
    q.pop()  # 11, lane 5's last ticket: the lane is gone, its setting with it
    assert q.last_lane == 5 and q.lane_len(5) == 0 and q.lane_settings(5) is None
    check_keyed(q)


def test_a_lowered_weight_ends_the_turn_at_the_next_pop():
    q = LaneQueue(16, max_lanes=2)
    for i in range(6):
        q.push(i, LOW, 1)
    q.push(50, LOW, 2)
    q.set_lane(1, weight=5)
    assert [q.pop() for _ in range(3)] == [0, 1, 2]  # three of five used
    q.set_lane(1, weight=2)  # below the three used: the next pop is the turn's last
    assert [q.pop() for _ in range(3)] == [3, 50, 4]


def test_a_new_or_returning_lane_joins_the_tail_with_no_credit():
    q = LaneQueue(64, max_lanes=4)
    for i in range(6):
        q.push(i, NORMAL, 1)
        q.push(10 + i, NORMAL, 2)
    assert q.pop() == 0  # lane 1 had its turn: lane 2 heads the ring
    q.push(30, NORMAL, 3)  # joins behind lanes 2 and 1
    assert [q.pop() for _ in range(3)] == [10, 1, 30]
    assert q.lane_len(3) == 0  # lane 3 popped its only ticket and is gone
    q.push(31, NORMAL, 3)  # back after idling: the tail again, no extra turns
    q.push(32, NORMAL, 3)
    assert [q.pop() for _ in range(5)] == [11, 2, 31, 12, 3]
    check_keyed(q)


def test_a_higher_class_comes_first_and_each_class_has_its_own_ring():
    q = LaneQueue(16, max_lanes=3)
    q.push(1, LOW, 7)
    q.push(2, NORMAL, 8)
    q.push(3, CRITICAL, 9)
    q.push(4, NORMAL, 7)
    q.push(5, HIGH, 8)
    q.push(6, NORMAL, 8)
    assert [(t[0], t[1], t[3]) for t in drain(q)] == [
        (3, 3, 9), (5, 2, 8), (2, 1, 8), (4, 1, 7), (6, 1, 8), (1, 0, 7)]


def test_lanes_full_refuses_a_new_key_names_max_lanes_and_changes_nothing():
    q = LaneQueue(8, max_lanes=2, first_seq=40)
    assert q.push(1, LOW, 3) == 40
    assert q.push(2, LOW, 4) == 41
    before = snapshot_keyed(q)
    e = raises(LanesFull, q.push, 3, HIGH, 5)
    assert isinstance(e, QueueFull) and not isinstance(e, LaneFull)
    assert str(e) == "no lane for key 5: max_lanes (2) lanes exist", str(e)
    assert snapshot_keyed(q) == before
    assert q.push(3, LOW, 3) == 42  # an existing key still gets in; no number was spent
    q.remove(2)  # lane 4 is gone: room for a new key
    assert q.lanes == 1 and q.push(4, LOW, 5) == 43
    check_keyed(q)


def test_the_lane_bound_is_set_per_key_and_may_go_below_the_count():
    q = LaneQueue(8, max_lanes=2)
    q.push(1, LOW, 3)
    q.push(2, LOW, 3)
    q.set_lane(3, bound=2)
    before = snapshot_keyed(q)
    e = raises(LaneFull, q.push, 3, LOW, 3)
    assert str(e) == "lane 3 full (2 tickets)", str(e)
    assert snapshot_keyed(q) == before
    q.push(3, LOW, 9)  # another key is not bound by it
    q.set_lane(3, bound=1)  # below its count: accepted; pushes wait until it drains
    raises(LaneFull, q.push, 4, LOW, 3)
    q.pop()
    raises(LaneFull, q.push, 4, LOW, 3)
    q.remove(2)  # lane 3 is gone, and its bound with it
    for i in range(7):
        q.push(10 + i, LOW, 3)
    e = raises(QueueFull, q.push, 20, LOW, 3)  # the queue's bound is checked first
    assert not isinstance(e, LaneFull) and str(e) == "ticket queue full"
    e = raises(QueueFull, q.push, 20, LOW, 77)
    assert not isinstance(e, LanesFull)
    check_keyed(q)


def test_bad_arguments_raise_specific_errors_and_change_nothing():
    q = LaneQueue(4, max_lanes=2)
    q.push(1, LOW, 6)
    before = snapshot_keyed(q)
    for args, exc, msg in (
            ((1, LOW, -1), ValueError, "lane must be 0..1073741823"),
            ((1, LOW, 1 << 30), ValueError, "lane must be 0..1073741823"),
            ((1, LOW, "chat"), TypeError, "lane must be int"),
            ((1, LOW, 2.0), TypeError, "lane must be int"),
            ((1, 4, 6), ValueError, "priority must be 0..3"),
            ((-1, LOW, 6), ValueError, "job id must be 0..1073741823"),
            ((None, LOW, 6), TypeError, "job id must be int")):
        e = raises(exc, q.push, *args)
        assert str(e) == msg, (args, str(e))
    for args, exc, msg in (
            ((6, 0), ValueError, "weight must be 1..32767"),
            ((6, 32768), ValueError, "weight must be 1..32767"),
            ((6, "2"), TypeError, "weight must be int"),
            ((6, None, 5), ValueError, "lane capacity must be 1..4"),
            ((6, None, 0), ValueError, "lane capacity must be 1..4"),
            ((-3, 1), ValueError, "lane must be 0..1073741823"),
            ((7, 2), ValueError, "lane 7 has no tickets (a board keeps settings only while "
                                 "its lane exists: push first)")):
        e = raises(exc, q.set_lane, *args)
        assert str(e) == msg, (args, str(e))
    raises(TypeError, q.lane_len, "6")
    raises(ValueError, q.lane_len, -1)
    raises(TypeError, q.remove, "1")
    assert snapshot_keyed(q) == before
    assert q.lane_len(True) == 0 and q.push(True, True, True) == 1  # bools are ints
    assert q.lane_len(1) == 1 and q.last_lane == -1
    for kw, exc, msg in (
            ({"max_lanes": 5}, ValueError, "max_lanes must be 1..4"),
            ({"max_lanes": 0}, ValueError, "max_lanes must be 1..4"),
            ({"max_lanes": "2"}, TypeError, "max_lanes must be int"),
            ({"max_lanes": 2, "weights": [1, 1]}, ValueError,
             "max_lanes is for keyed lanes: give no weights"),
            ({"max_lanes": 2, "lane_capacity": 2}, ValueError,
             "lane_capacity needs fixed lanes (keyed: set_lane(key, bound=))"),
            ({"max_lanes": 2, "aging": 3}, ValueError, "aging needs fixed lanes"),
            ({"max_lanes": 2, "first_seq": -1}, ValueError, "first_seq must be 0..1073741823")):
        e = raises(exc, lambda: LaneQueue(4, **kw))
        assert str(e) == msg, (kw, str(e))
    e = raises(TypeError, LaneQueue(4, [1, 1]).set_lane, 0, 1)
    assert str(e) == "needs keyed lanes (LaneQueue(capacity, max_lanes=N))"
    raises(TypeError, LaneQueue(4, 1).lane_settings, 0)
    e = raises(TypeError, lane_max_wait, LaneQueue(4, max_lanes=2), 0, 3)
    assert str(e) == "keyed lanes: docs/lanes.md, Theorem K2", str(e)
    e = raises(TypeError, LaneQueue, 4)  # neither weights nor max_lanes
    assert str(e).startswith("weights: the lanes' weights"), str(e)


def test_remove_takes_a_lane_out_of_its_ring_and_frees_it():
    q = LaneQueue(16, max_lanes=3)
    for i in range(3):
        q.push(i, NORMAL, 1)
        q.push(10 + i, NORMAL, 2)
    q.push(20, NORMAL, 3)
    q.set_lane(1, weight=2)
    assert q.pop() == 0  # lane 1 heads, one of two used
    assert q.remove(1) and q.remove(2)  # lane 1's last tickets: out of the ring, turn reset
    assert q.lanes == 2 and q.lane_len(1) == 0
    assert not q.remove(1) and not q.remove(99)
    assert q.remove(11)  # inside lane 2: no ring moves
    assert [t[0] for t in drain(q)] == [10, 20, 12]
    q.push(5, LOW, 3)
    q.push(5, HIGH, 4)
    assert q.remove(5) and q.lane_len(3) == 0 and q.lane_len(4) == 1  # the oldest 5
    check_keyed(q)


def test_clear_restores_the_construction_state_and_the_sequence_goes_on():
    q = LaneQueue(8, max_lanes=3, first_seq=5)
    new = snapshot_keyed(q)
    for i in range(6):
        q.push(i, i % 4, i % 3)
    q.set_lane(1, weight=3)
    q.pop()
    q.pop()
    q.clear()
    assert snapshot_keyed(q)[:5] == new[:5] and q.digest == DIG0 and q.last_lane == -1
    assert (q.last_priority, q.last_seq) == (-1, -1)
    assert q.push(1, LOW, 1) == 11 and q.lane_settings(1) == (1, 1, 8)
    check_keyed(q)


def test_one_key_is_a_ticketqueue():
    # One lane: the same pops, numbers and (with key 0) digest as TicketQueue; another key
    # folds itself into the digest once more per pop, as a fixed lane other than 0 does.
    for key in (0, 12345):
        r = Rng(31 + key)
        q = LaneQueue(16, max_lanes=1, first_seq=0x3FFFFFF0)
        t = TicketQueue(16, first_seq=0x3FFFFFF0)
        ref = KeyedRef(16, 1, 0x3FFFFFF0)
        for _ in range(1500):
            op = r.next(5)
            if op < 2:
                i, c = r.next(50), r.next(4)
                try:
                    a = t.push(i, c)
                except QueueFull:
                    raises(QueueFull, q.push, i, c, key)
                    continue
                assert q.push(i, c, key) == a == ref.push(i, c, key)
            elif op < 4:
                if not t:
                    raises(QueueEmpty, q.pop)
                    continue
                assert q.peek() == t.peek()
                assert q.pop() == t.pop() == ref.pop()[0]
                assert (q.last_priority, q.last_seq) == (t.last_priority, t.last_seq)
                assert q.digest == (t.digest if key == 0 else ref.digest)
            else:
                i = r.next(50)
                assert q.remove(i) == t.remove(i) == ref.remove(i)
        assert len(q) == len(t) and q.lanes <= 1


def model_run(seed, steps):
    # The queue against the reference on a seeded stream: every answer, error, last_*,
    # the digest, lane lengths, the pop order (tickets) and the storage invariants.
    r = Rng(seed)
    cap = 1 + r.next(24)
    most = 1 + r.next(cap)
    keys = [r.next(1 << 30) for _ in range(1 + r.next(12))]
    if r.next(3) == 0:  # keys that collide in the key table
        h = 1
        while h < 2 * most:
            h <<= 1
        keys = [h * (i + 1) * 32768 % (1 << 30) for i in range(len(keys))]
    first = r.next(1 << 30) if r.next(2) else 0
    q = LaneQueue(cap, max_lanes=most, first_seq=first)
    ref = KeyedRef(cap, most, first)
    counts = [0] * 8  # pushes, pops, LaneFull, LanesFull, QueueFull, removes, sets, empty
    for _ in range(steps):
        op = r.next(24)
        key = keys[r.next(len(keys))]
        if op < 10:
            i, c = r.next(40), r.next(4)
            e = ref.push(i, c, key)
            if type(e) is int:
                assert q.push(i, c, key) == e
                counts[0] += 1
            else:
                before = snapshot_keyed(q)
                got = raises(QueueFull, q.push, i, c, key)
                assert type(got) is e, (type(got), e)
                assert snapshot_keyed(q) == before
                counts[2 if e is LaneFull else 3 if e is LanesFull else 4] += 1
        elif op < 17:
            if ref.head() is None:
                raises(QueueEmpty, q.pop)
                raises(QueueEmpty, q.peek)
                counts[7] += 1
            else:
                assert q.peek() == ref.peek()
                got = (q.pop(), q.last_priority, q.last_seq, q.last_lane)
                assert got == ref.pop(), got
                assert q.digest == ref.digest
                counts[1] += 1
        elif op < 19:
            i = r.next(40)
            assert q.remove(i) == ref.remove(i)
            counts[5] += 1
        elif op < 23:
            w = 1 + r.next(5) if r.next(4) else None
            b = 1 + r.next(cap) if r.next(3) == 0 else None
            if ref.set_lane(key, w, b):
                q.set_lane(key, w, b)
                counts[6] += 1
            else:
                raises(ValueError, q.set_lane, key, w, b)
        elif r.next(8) == 0:
            q.clear()
            ref.clear()
        check_keyed(q)
        assert len(q) == ref.count() and q.lanes == len(ref.lanes)
        assert q.full() == (len(q) == cap)
        assert q.lane_len(key) == ref.lane_len(key)
        if r.next(4) == 0:
            assert tickets(q) == ref.order()
    return counts


def test_the_queue_is_the_reference_of_the_rule_on_random_streams():
    total = [0] * 8
    for seed in range(1, 41):
        c = model_run(seed, 250)
        total = [a + b for a, b in zip(total, c)]
    assert total[0] > 2000 and total[1] > 1500 and total[5] > 200 and total[6] > 400, total
    assert total[2] > 20 and total[3] > 20 and total[4] > 50 and total[7] > 20, total


def test_renumbering_keeps_every_lane_in_order():
    # The internal counter narrowed (renumbering every few dozen pushes, as test_lanes.py
    # does for fixed lanes): the same pops, in the same lanes, as a queue that never
    # renumbers; a ticket that waited long gets a new outside number, as in TicketQueue.
    a = LaneQueue(12, max_lanes=4)
    b = LaneQueue(12, max_lanes=4)
    a._lim = 64
    r = Rng(99)
    pops = 0
    for _ in range(3000):
        key = r.next(6) * 1000
        if r.next(2):
            i, c = r.next(30), r.next(4)
            e = 0
            for q in (a, b):
                try:
                    q.push(i, c, key)
                except QueueFull:
                    e += 1
            assert e in (0, 2)
        elif a:
            assert (a.pop(), a.last_priority, a.last_lane) == (b.pop(), b.last_priority,
                                                                  b.last_lane)
            pops += 1
        check_keyed(a)
    assert pops > 1000 and a._nxt < 64 < b._nxt


def test_tickets_explain_and_trace_read_a_keyed_queue():
    q = LaneQueue(16, max_lanes=4)
    q.trace = Trace(4)
    for i in range(4):
        q.push(100 + i, NORMAL, 70000)
    q.push(900, NORMAL, 3)
    q.push(901, HIGH, 3)
    q.set_lane(70000, weight=2)
    assert tickets(q) == [(901, 2, 5, 3), (100, 1, 0, 70000), (101, 1, 1, 70000),
                          (900, 1, 4, 3), (102, 1, 2, 70000), (103, 1, 3, 70000)]
    s = explain(q, 900, 102)
    assert "job 900 is NORMAL, seq 4, lane 3 (1st in its lane)" in s, s
    assert "Job 900 pops first" in s and "ring" in s, s
    assert "job 102 was pushed earlier" in s, s
    q.pop()
    q.pop()
    assert q.trace.entries(True) == [(901, 2, 5, False, 3), (100, 1, 0, False, 70000)]
    assert tickets(q) == [(101, 1, 1, 70000), (900, 1, 4, 3), (102, 1, 2, 70000),
                          (103, 1, 3, 70000)]
    assert repr(q) == "<LaneQueue 4/16 CRITICAL=0 HIGH=0 NORMAL=4 LOW=0 lanes=2/4>", repr(q)

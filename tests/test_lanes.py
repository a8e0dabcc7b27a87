# ticketq.lanes.LaneQueue on every interpreter: the rotation, FIFO inside a lane, classes
# first, sequence numbers, both bounds, remove, clear, the digest; a one-lane LaneQueue is a
# TicketQueue (same pops, same numbers, same digest, aging included).
from ticketq import TicketQueue, QueueFull, QueueEmpty, LOW, NORMAL, HIGH, CRITICAL
from ticketq.lanes import LaneQueue, LaneFull, table
from lanecheck import check_lanes, snapshot_lanes
from rng import Rng
from support import raises


def drain(q):
    out = []
    while q:
        out.append((q.pop(), q.last_priority, q.last_seq, q.last_lane))
        check_lanes(q)
    return out


def test_the_table_gives_each_lane_its_weight_spread_out():
    assert list(table([1])) == [0]
    assert list(table([1, 1, 1])) == [0, 1, 2]
    assert list(table([2, 1, 1])) == [0, 1, 0, 2]
    assert list(table([3, 1])) == [0, 0, 0, 1]
    t = table([10] + [1] * 10)  # the heavy lane every other entry, not in one block
    assert list(t[:6]) == [0, 1, 0, 2, 0, 3] and len(t) == 20
    for ws in ([5, 3, 2], [1, 100], [7, 7, 1, 4]):
        t = list(table(ws))
        assert [t.count(l) for l in range(len(ws))] == ws


def test_lanes_take_turns_and_keep_fifo_inside():
    q = LaneQueue(16, [1, 1])
    for i in range(6):
        q.push(i, NORMAL, 0)  # the chatty lane first
    q.push(100, NORMAL, 1)
    q.push(101, NORMAL, 1)
    assert [t[0] for t in drain(q)] == [0, 100, 1, 101, 2, 3, 4, 5]


def test_weights_set_the_share():
    q = LaneQueue(32, [3, 1])
    for i in range(12):
        q.push(i, HIGH, 0)
        q.push(50 + i, HIGH, 1)
    got = [t[3] for t in drain(q)][:16]
    assert got == [0, 0, 0, 1] * 4
    assert got.count(0) == 12 and got.count(1) == 4


def test_a_higher_class_still_comes_first():
    q = LaneQueue(16, [1, 1, 1])
    q.push(1, LOW, 0)
    q.push(2, NORMAL, 1)
    q.push(3, CRITICAL, 2)
    q.push(4, NORMAL, 0)
    q.push(5, HIGH, 1)
    assert [(t[0], t[1]) for t in drain(q)] == [(3, 3), (5, 2), (4, 1), (2, 1), (1, 0)]


def test_sequence_numbers_last_fields_and_len():
    q = LaneQueue(8, [2, 1], first_seq=0x3FFFFFFE)
    assert q.last_priority == q.last_seq == q.last_lane == -1
    assert [q.push(i, LOW, i & 1) for i in range(4)] == [0x3FFFFFFE, 0x3FFFFFFF, 0, 1]
    assert len(q) == 4 and q.lane_len(0) == 2 and q.lane_len(1) == 2
    assert q.peek() == 0 and len(q) == 4
    assert list(table([2, 1])) == [0, 0, 1]
    assert drain(q) == [(0, 0, 0x3FFFFFFE, 0), (2, 0, 0, 0), (1, 0, 0x3FFFFFFF, 1),
                        (3, 0, 1, 1)]
    raises(QueueEmpty, q.pop)
    raises(QueueEmpty, q.peek)


def test_the_cursor_moves_only_on_pops_of_its_class():
    # Lane 1 has the second entry of the table: once lane 0 popped, lane 1's ticket pushed
    # later still comes next, whatever happened in other classes meanwhile.
    q = LaneQueue(16, [1, 1])
    q.push(1, NORMAL, 0)
    q.push(2, NORMAL, 0)
    assert q.pop() == 1
    for i in range(5):
        q.push(10 + i, HIGH, i & 1)
    while q.last_priority != NORMAL or len(q) > 1:
        q.pop()
        if len(q) == 1:
            break
    q.push(3, NORMAL, 1)
    assert q.pop() == 3 and q.pop() == 2


def test_a_full_lane_refuses_only_its_own_pushes():
    q = LaneQueue(6, [1, 1], lane_capacity=[2, 4], first_seq=7)
    q.push(1, LOW, 0)
    q.push(2, CRITICAL, 0)
    before = snapshot_lanes(q)
    e = raises(LaneFull, q.push, 3, CRITICAL, 0)
    assert isinstance(e, QueueFull) and str(e) == "lane 0 full (2 tickets)", str(e)
    assert snapshot_lanes(q) == before
    assert q.push(4, LOW, 1) == 9  # no sequence number was spent on the refusal
    for i in range(3):
        q.push(5 + i, LOW, 1)
    e = raises(QueueFull, q.push, 9, LOW, 0)  # the queue's own bound: not a lane's
    assert not isinstance(e, LaneFull) and "queue full" in str(e)
    before = snapshot_lanes(q)
    e = raises(QueueFull, q.push, 9, LOW, 1)  # both bounds reached: the queue's is named
    assert not isinstance(e, LaneFull)
    assert len(q) == 6 and snapshot_lanes(q) == before
    q.pop()
    assert q.lane_len(0) == 1 and q.push(10, HIGH, 0) == 13


def test_remove_takes_the_oldest_ticket_with_the_id_in_any_lane():
    q = LaneQueue(8, [1, 1, 1])
    q.push(7, LOW, 2)
    q.push(8, HIGH, 0)
    q.push(7, HIGH, 1)
    q.push(9, LOW, 2)
    assert q.remove(7) and q.lane_len(2) == 1
    check_lanes(q)
    assert not q.remove(6)
    assert [t[0] for t in drain(q)] == [8, 7, 9]
    assert not q.remove(7)


def test_clear_restarts_the_rotation_and_the_digest_not_the_sequence():
    def run(q):
        for i in range(5):
            q.push(i, NORMAL, i % 3)
        return drain(q), q.digest

    q = LaneQueue(8, [1, 2, 1], first_seq=3)
    q.push(99, NORMAL, 1)
    q.pop()
    q.push(98, LOW, 2)
    q.clear()
    assert len(q) == 0 and q.last_lane == -1 and q.lane_len(2) == 0
    a = run(q)
    b = run(LaneQueue(8, [1, 2, 1], first_seq=5))
    assert a == b


def test_repr():
    q = LaneQueue(8, [2, 1], lane_capacity=[5, 3])
    q.push(1, CRITICAL, 1)
    q.push(2, LOW, 0)
    assert repr(q) == "<LaneQueue 2/8 CRITICAL=1 HIGH=0 NORMAL=0 LOW=1 lanes=1/5,1/3>", repr(q)


def test_one_lane_is_a_ticket_queue_digest_and_aging_included():
    for aging in (0, 1, 3):
        q = LaneQueue(12, 1, first_seq=0x3FFFFFF0, aging=aging)
        t = TicketQueue(12, first_seq=0x3FFFFFF0, aging=aging)
        r = Rng(11 + aging)
        for _ in range(700):
            op = r.next(8)
            if op < 4:
                i, c = r.next(40), r.next(4)
                if t.full():
                    raises(QueueFull, q.push, i, c)
                else:
                    assert q.push(i, c) == t.push(i, c)
            elif op < 7:
                if t:
                    assert (q.pop(), q.last_priority, q.last_seq) == (
                        t.pop(), t.last_priority, t.last_seq)
                    assert q.last_lane == 0
            else:
                i = r.next(40)
                assert q.remove(i) == t.remove(i)
            assert len(q) == len(t)
        check_lanes(q)
        assert q.digest == t.digest


def test_digest_folds_the_lane_and_has_a_golden_value():
    # Lane 0 adds nothing to TicketQueue's fold; any other lane one more rotate-and-xor, so
    # the same pops from other lanes give another digest.
    def run(lane):
        q = LaneQueue(4, 3)
        q.push(5, HIGH, lane)
        q.pop()
        return q.digest

    t = TicketQueue(4)
    t.push(5, HIGH)
    t.pop()
    assert run(0) == t.digest and run(1) != run(0) != run(2) != run(1)
    q = LaneQueue(16, [3, 1, 2], lane_capacity=[8, 4, 6], first_seq=0x3FFFFFF0, aging=3)
    r = Rng(77)
    for _ in range(600):
        if r.next(2):
            try:
                q.push(r.next(0x40000000), r.next(4), r.next(3))
            except QueueFull:
                pass
        elif q:
            q.pop()
    assert q.digest == 0x0D556F70, hex(q.digest)


def test_renumbering_keeps_every_lane_in_order():
    # The internal counter narrowed to wrap every few dozen pushes, with old tickets waiting
    # through it in two lanes and two classes.
    q = LaneQueue(8, [1, 1])
    q._lim = 32
    q.push(1, LOW, 0)
    q.push(2, LOW, 1)
    q.push(3, LOW, 0)
    for i in range(100):
        q.push(10 + i, HIGH, i & 1)
        assert q.pop() == 10 + i
        check_lanes(q)
    assert [t[0] for t in drain(q)] == [1, 2, 3]


def test_aging_moves_a_ticket_into_its_lane_of_the_next_class_in_order():
    q = LaneQueue(8, [1, 1], aging=1)
    q.push(1, NORMAL, 0)  # seq 0: the oldest below the top
    q.push(2, HIGH, 1)
    q.push(3, HIGH, 0)  # seq 2: newer than ticket 1, so after it once 1 joins HIGH lane 0
    q.push(4, CRITICAL, 1)
    assert q.pop() == 4  # then aging promotes ticket 1 to HIGH, lane 0, before ticket 3
    check_lanes(q)
    assert q._d[q._hd[2 * 2 + 0]] == ~1
    out = drain(q)
    assert [t[0] for t in out[:3]] == [1, 2, 3] and out[0][1:] == (HIGH, 0, 0)


def test_bad_input_is_refused_clearly_and_changes_nothing():
    q = LaneQueue(6, [2, 1, 1], lane_capacity=[4, 2, 2], first_seq=40)
    q.push(1, LOW, 0)
    q.push(2, HIGH, 2)
    q.pop()
    before = snapshot_lanes(q)
    for lane in (3, -1, 31, 2 ** 40):  # unknown lanes
        e = raises(ValueError, q.push, 7, LOW, lane)
        assert str(e) == "lane must be 0..2", str(e)
        raises(ValueError, q.lane_len, lane)
    for lane in ("1", 1.0, None):
        raises(TypeError, q.push, 7, LOW, lane)
    raises(ValueError, q.push, 7, 4, 0)
    raises(ValueError, q.push, -1, LOW, 0)
    raises(TypeError, q.push, 7.0, LOW, 0)
    raises(ValueError, q.remove, -1)
    assert snapshot_lanes(q) == before
    assert q.push(7, LOW, True) == 42  # bools count as ints, as everywhere in ticketq


def test_bad_construction_is_refused_with_the_bound_it_broke():
    cases = (
        ((8, 0), ValueError, "lanes must be 1..30"),  # lane count out of range
        ((8, 31), ValueError, "lanes must be 1..30"),
        ((8, []), ValueError, "lanes must be 1..30"),
        ((8, [1] * 31), ValueError, "lanes must be 1..30"),
        ((8, [1, 0]), ValueError, "weight must be 1..32767"),  # bad weights
        ((8, [1, -2]), ValueError, "weight must be 1..32767"),
        ((8, [1, 2.5]), TypeError, "weight must be int"),
        ((8, 2.5), TypeError, "lanes must be int"),
        ((8, [20000, 20000]), ValueError, "total weight must be 1..32767"),
        ((8, [1, 1], 9), ValueError, "lane capacity must be 1..8"),  # lane bounds
        ((8, [1, 1], 0), ValueError, "lane capacity must be 1..8"),
        ((8, [1, 1], [4, 0]), ValueError, "lane capacity must be 1..8"),
        ((8, [1, 1], [4]), ValueError, "lane capacity: one per lane"),
        ((8, [1, 1], "ab"), TypeError, "lane capacity must be int"),
        ((0, 1), ValueError, "capacity must be 1..32767"),
        ((0x8000, 1), ValueError, "capacity must be 1..32767"),
        ((8, 1, None, -1), ValueError, "first_seq must be 0..1073741823"),
        ((8, 1, None, 0, -1), ValueError, "aging must be 0..1073741823"),
    )
    for args, exc, msg in cases:
        e = raises(exc, LaneQueue, *args)
        assert str(e) == msg, (args, str(e))
    q = LaneQueue(True, True, True)  # bools count as ints: one slot, one lane, bound 1
    assert (q.capacity, q.lanes, q.weights, q.lane_capacity) == (1, 1, (1,), (1,))
    assert LaneQueue(4, (3, 1), (2, 4)).weights == (3, 1)  # a tuple, a list, an array
    from array import array
    assert LaneQueue(4, array("h", [2, 1]), array("h", [3, 4])).lane_capacity == (3, 4)
    raises(TypeError, LaneQueue, 4, "ab")  # a string is not a list of weights


def test_table_refuses_what_the_queue_refuses():
    assert list(table(3)) == [0, 1, 2]  # an int: that many lanes of weight 1, as the queue
    e = raises(ValueError, table, [2, 0])
    assert str(e) == "weight must be 1..32767"
    raises(ValueError, table, [])
    raises(TypeError, table, [1, "2"])


def test_lanes_stand_on_the_bytecode_ticket_queue_on_every_path():
    # LaneQueue replaces push, pop, peek and remove, so the viper class under it (on ports
    # with the emitter) would only turn its fields into properties over an array: twice as
    # slow a push+pop, and a second implementation under one name. It stands on the
    # bytecode class everywhere (ticketq.lanes's docstring); QueueBase is what every queue shares.
    import ticketq
    from ticketq.core import QueueBase
    q = LaneQueue(4, 2)
    assert isinstance(q, QueueBase) and not hasattr(q, "_s"), ticketq.PATH
    if ticketq.PATH in ("viper", "c"):  # the fast class is not what lanes stand on
        from ticketq.core import TicketQueue as Ref
        assert issubclass(LaneQueue, Ref)
        assert not issubclass(LaneQueue, ticketq.TicketQueue)
    else:
        assert issubclass(LaneQueue, ticketq.TicketQueue)

# The board client's contract for the fleet's lanes: ticketq.fleet.FleetLaneQueue over
# ticketq.resp.Redis against a real redis-server, beside a ticketq.lanes.LaneQueue fed the
# same operations. Plain asserts, so the same module runs under pytest on CPython and on
# the 32-bit MicroPython unix port (test_fleet_board.py starts the server and runs it
# there), exactly as test_fleet_contract.py, whose connection helpers it uses.
from rng import Rng
from support import raises
from ticketq import QueueEmpty
from ticketq.lanes import LaneQueue, LaneFull
from test_fleet_contract import _connect, _outcome, _same

LONG = 600000  # a lease that does not run out during a test


def _lanes(tag, cap, weights, bounds=None, first=0, aging=0, via_proxy=False, retries=3):
    from ticketq.fleet import FleetLaneQueue

    c, name = _connect(tag, via_proxy)
    return FleetLaneQueue(c, name, cap, weights, bounds, first, aging, 8, "tq", retries), c


def _expire(f, token):
    # Let a held lease run out now, by the server's clock (1 ms from now).
    from ticketq.ticks import sleep_ms

    assert f.touch(token, 1)
    sleep_ms(30)


def test_same_schedule_as_lanequeue():
    f, c = _lanes("lsame", 10, [3, 1, 2], [6, 3, 4], 0x3FFFFFF0, 3)
    t = LaneQueue(10, [3, 1, 2], [6, 3, 4], 0x3FFFFFF0, 3)
    assert list(f.table) == list(t._tb) and f.lane_capacity == t.lane_capacity
    r = Rng(23)
    bad = (-1, 0x3FFFFFFF + 1, 1.5, "2", None)
    full = 0
    for step in range(400):
        op = r.next(12)
        if op < 5:
            full += _same(t, f, "push", r.next(9), r.next(4), r.next(3))[0] == "LaneFull"
        elif op == 5:
            _same(t, f, "push", bad[r.next(5)], r.next(4), 0)
            _same(t, f, "push", r.next(9), 1, (3, -1, 1.0, "0", None)[r.next(5)])
        elif op < 8:
            if _same(t, f, "pop")[0] == "ok":
                assert (t.last_priority, t.last_seq, t.last_lane) == (f.last_priority, f.last_seq, f.last_lane)
        elif op == 8:
            a = _outcome(t.pop)
            b = _outcome(f.pop, 60000)  # leased, then acked: the same as a pop
            assert a == b, (a, b)
            if a[0] == "ok":
                assert f.ack(f.last_lease)
                assert (t.last_priority, t.last_seq, t.last_lane) == (f.last_priority, f.last_seq, f.last_lane)
        elif op == 9:
            _same(t, f, "peek")
            _same(t, f, "lane_len", r.next(4))
        elif op == 10:
            _same(t, f, "remove", r.next(9))
        elif r.next(6) == 0:
            _same(t, f, "clear")
        if step % 10 == 0:
            assert (len(t), t.full(), t.digest) == (len(f), f.full(), f.digest)
    assert (len(t), t.full(), t.digest) == (len(f), f.full(), f.digest)
    assert full > 5  # the stream met full lanes
    f.destroy()


def test_thirty_lanes_through_the_clients_own_table():
    # Every lane a lane queue can have (30): the server sends its table as one base-32 digit
    # a lane, and lanes 10..29 are the letters a..t. The client's own decoding (f.table)
    # must give ticketq.lanes.table's lanes, and a schedule over all 30 lanes the same pops.
    from ticketq.lanes import table

    w = [1 + (l * 7) % 5 for l in range(30)]
    f, c = _lanes("l30", 90, w)
    t = LaneQueue(90, w)
    assert list(f.table) == list(table(w)) == list(t._tb)
    assert sorted(set(f.table)) == list(range(30))
    for i in range(60):
        _same(t, f, "push", i, i % 2, 29 - (i % 30))
    for _ in range(60):
        assert _same(t, f, "pop")[0] == "ok"
        assert (t.last_priority, t.last_seq, t.last_lane) == (f.last_priority, f.last_seq, f.last_lane)
    assert f.digest == t.digest
    f.destroy()


def test_an_expired_lease_comes_back_into_its_lane_in_place_with_no_extra_turn():
    f, c = _lanes("llease", 8, [1, 1])
    for i, l in ((1, 0), (2, 0), (3, 1), (4, 1)):
        f.push(i, 2, l)
    assert f.pop(LONG) == 1 and f.last_lane == 0  # the cursor moves past lane 0's entry
    tok = f.last_lease
    assert [x[0] for x in f.tickets()] == [3, 2, 4]
    _expire(f, tok)
    # Back at the head of lane 0 (before 2, pushed after it), and lane 1 still has the turn:
    assert f.tickets() == [(3, 2, 2, False, 1), (1, 2, 0, False, 0), (4, 2, 3, False, 1), (2, 2, 1, False, 0)]
    assert f.lane_info()["held"] == (2, 2)
    assert f.pop() == 3
    assert f.pop(LONG) == 1 and f.last_deliveries == 2 and f.last_lane == 0
    assert not f.ack(tok)  # the first delivery's token is fenced off
    assert f.ack(f.last_lease)
    assert [f.pop(), f.pop()] == [4, 2]
    raises(QueueEmpty, f.pop)
    assert f.lane_info()["held"] == (0, 0)
    f.destroy()


def test_a_leased_ticket_counts_against_its_lanes_bound():
    f, c = _lanes("lbound", 8, [1, 1], [1, 2])
    f.push(5, 1, 0)
    assert f.pop(LONG) == 5
    e = raises(LaneFull, f.push, 6, 1, 0)  # it may come back: no room in lane 0
    assert str(e) == "lane 0 full (1 tickets)"
    assert f.push(7, 1, 1) == 1  # other lanes still take pushes; no number was spent
    assert f.release(f.last_lease) == 1  # back at once, into lane 0
    assert f.lane_len(0) == 1
    assert f.pop() == 7  # lane 1 has the turn: the released ticket waits for lane 0's
    assert f.pop() == 5 and f.lane_len(0) == 0
    assert f.push(6, 1, 0) == 2
    f.destroy()


def test_pop_until_a_deadline_on_lanes():
    from ticketq.ticks import Deadline
    from ticketq.ticks import Timeout

    f, c = _lanes("lwait", 4, [1, 2])
    f.slice_ms = 100
    raises(Timeout, f.pop_until, Deadline(250))
    f.push(5, 3, 1)
    assert f.pop_until(Deadline(1000)) == 5 and f.last_lane == 1
    f.destroy()


def test_dropped_connection_duplicates_nothing_on_lanes():
    f, c = _lanes("ldrop", 8, [1, 1], None, 0, 0, True)
    mark = b"drop-next-reply"
    assert c.execute_command("ECHO", mark) == mark
    assert f.push(7, 1, 1) == 0  # the reply was lost; sent again, replayed
    f.push(8, 1, 0)
    assert c.execute_command("ECHO", mark) == mark
    assert f.pop(60000) == 8 and f.last_deliveries == 1  # one lease, not two; lane 0 first
    assert [x[0] for x in f.tickets()] == [7]
    assert f.lane_info()["held"] == (1, 1)
    assert f.ack(f.last_lease)
    assert c.connects == 3  # connected again after each of the two drops
    f.destroy()


def test_bad_lane_settings_and_arguments_change_nothing():
    f, c = _lanes("lbad", 4, [2, 1])
    t = LaneQueue(4, [2, 1])
    f.push(1, 1, 1)
    t.push(1, 1, 1)
    for args in ((1, 1, 2), (1, 1, -1), (1, 1, 1.0), (1, 1, None), (1, 4, 0), (-1, 0, 0)):
        _same(t, f, "push", *args)
    for l in (2, -1, "1"):
        _same(t, f, "lane_len", l)
    for w in (0, 31, [0], [1] * 31, [32768], [20000, 20000], [1.5]):  # None: keyed lanes
        a = _outcome(LaneQueue, 4, w)
        assert a[0] != "ok" and _outcome(f.__class__, c, f.name + "x", 4, w) == a, (w, a)
    assert f.tickets() == [(1, 1, 0, False, 1)] and f.lane_info()["held"] == (0, 1)
    f.destroy()


def test_pop_until_without_a_deadline_pops_nothing_on_lanes():
    f, c = _lanes("badin", 4, [1, 1])
    f.push(1, 2, 0)
    f.push(2, 2, 1)
    for d in (2000, None):
        e = raises(TypeError, f.pop_until, d, LONG)
        assert "deadline" in str(e), e
    assert [x[0] for x in f.tickets()] == [1, 2] and f.info()["leased"] == 0
    raises(TypeError, f.ack, None)
    f.destroy()

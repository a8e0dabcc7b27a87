# Conformance of the fleet's lanes (CPython only: hypothesis and a real redis-server):
# hypothesis drives a ticketq.lanes.LaneQueue and a ticketq.fleet.FleetLaneQueue with
# the same random operation streams over random weights, lane bounds, first_seq and aging,
# good and bad arguments mixed (unknown lanes included), and every answer must be the same:
# ids popped, classes, sequence numbers, lanes, QueueFull against LaneFull (type and
# message), QueueEmpty, the exception and its message for bad input, the digest, each
# lane's count, the whole queue in pop order and the trace. It is test_fleet_conformance's
# machine with lanes, through redis-py and through the board client (ticketq.resp) on
# CPython; the unix port runs the board client in test_fleet_board.py.
# Also: the server's lane table is ticketq.lanes.table for many weight vectors, and bad
# settings are refused with LaneQueue's words and create nothing.
# On MicroPython this module is reported as skipped (cannot import hypothesis).
from hypothesis import given, settings, strategies as st
from hypothesis.stateful import initialize, invariant, precondition, rule

import itertools

import ticketq.audit as audit
from ticketq.lanes import LaneQueue, table
from ticketq.fleet import FleetQueue
from ticketq.fleet import FleetLaneQueue
import fleet_server
from test_fleet_conformance import (BAD, BAD_CLASS, FLOORS, GOOD_CLASS, GOOD_ID, M30, Conformance, both_clients,
                                    _steps, outcome, rarely, room, work)

WEIGHTS = st.lists(st.sampled_from([1, 1, 1, 2, 3, 5, 13, 100]), min_size=1, max_size=5)
BAD_LANE = st.sampled_from([-1, 30, 31, 2 ** 31, -2 ** 40, 1.0, "0", None, b"1", True, False])


class LaneConformance(Conformance):
    # The plain machine's rules for pop, leased pop, peek and remove are inherited (last()
    # adds the lane); push and the invariant gain the lane; pops come in runs and clear is
    # rare, so that the rotation runs through many table entries with lanes emptying and
    # filling between them.
    @initialize(cap=st.integers(1, 16), weights=WEIGHTS, data=st.data(),
                first=st.one_of(st.integers(0, 50), st.integers(M30 - 60, M30 - 1)),
                aging=st.sampled_from([0, 0, 1, 2, 3, 5]))
    def setup(self, cap, weights, data, first, aging):
        bounds = data.draw(st.lists(st.integers(1, cap), min_size=len(weights), max_size=len(weights)))
        srv = fleet_server.shared()
        self.t = LaneQueue(cap, weights, bounds, first, aging)
        self.f = FleetLaneQueue(self.connection(srv), fleet_server.fresh_name("lconf"), cap, weights,
                                bounds, first, aging)
        assert (self.f.weights, self.f.lane_capacity, self.f.lanes) == (
            self.t.weights, self.t.lane_capacity, self.t.lanes)
        assert list(self.f.table) == list(self.t._tb)
        self.t.trace = audit.Trace(64)
        self.f.trace = audit.Trace(64)

    def lane(self, data):
        return data.draw(st.integers(0, self.t.lanes - 1))

    def last(self):
        return (self.t.last_priority, self.t.last_seq, self.t.last_lane) == (
            self.f.last_priority, self.f.last_seq, self.f.last_lane)

    @precondition(room)
    @rule(i=GOOD_ID, c=GOOD_CLASS, data=st.data())
    def push(self, i, c, data):
        self.same("push", i, c, self.lane(data))

    @precondition(room)
    @rule(n=st.integers(2, 6), data=st.data())
    def push_several(self, n, data):
        # Several lanes and classes queued at once: what the rotation and aging need.
        for _ in range(n):
            if self.same("push", data.draw(GOOD_ID), data.draw(GOOD_CLASS), self.lane(data))[0] != "ok":
                break  # full, or the lane is: refused once is enough

    @precondition(room)
    @rule(i=GOOD_ID | BAD, c=GOOD_CLASS | BAD_CLASS, l=st.integers(-1, 5) | BAD_LANE)
    def push_any(self, i, c, l):
        self.same("push", i, c, l)

    @precondition(work)
    @rule(n=st.integers(2, 6))
    def pop_several(self, n):
        for _ in range(n):
            if self.same("pop")[0] != "ok":
                break  # QueueEmpty once is enough
            assert self.last()

    @precondition(rarely)
    @rule()
    def clear(self):
        self.same("clear")
        assert self.last()

    @rule(l=st.integers(-1, 5) | BAD_LANE)
    def lane_len(self, l):
        self.same("lane_len", l)

    @invariant()
    def agree(self):
        if not hasattr(self, "f"):
            return
        self.steps = _steps(self) + 1  # the step counter of the preconditions
        t, f = self.t, self.f
        assert (len(t), t.full(), t.digest) == (len(f), f.full(), f.digest)
        assert f.lane_info()["queued"] == tuple([t.lane_len(l) for l in range(t.lanes)])
        assert audit.tickets(t) == [x[:3] + x[4:] for x in f.tickets()]
        assert t.trace.entries(True) == f.trace.entries(True)
        assert (t.last_priority, t.last_seq, t.last_lane) == (f.last_priority, f.last_seq, f.last_lane)


# The plain machine's floors, and a lane's own bound reached (LaneFull) and lane_len refused.
LANE_FLOORS = dict(FLOORS, **{"push:QueueFull": 15, "push:LaneFull": 30, "lane_len:ok": 30,
                              "lane_len:ValueError": 5})
test_lane_conformance_redis_py, test_lane_conformance_board_client = both_clients(LaneConformance, LANE_FLOORS)


def server_table(conn, weights):
    return list(conn.execute_command("FCALL", "tq1_ltable", 0, ",".join(map(str, weights))))


def digits(t):
    return [int(chr(c), 32) for c in t]


@settings(max_examples=300, deadline=None)
@given(weights=st.lists(st.integers(1, 300), min_size=1, max_size=30).filter(lambda w: sum(w) <= 32767))
def test_the_servers_table_is_ticketq_lanes_table(weights):
    conn = fleet_server.shared().client()
    assert digits(server_table(conn, weights)) == list(table(weights))


def test_the_servers_table_for_every_small_weight_vector_and_the_extremes():
    conn = fleet_server.shared().client()
    n = 0
    for lanes in (1, 2, 3):
        for ws in itertools.product(range(1, 9), repeat=lanes):
            assert digits(server_table(conn, ws)) == list(table(ws)), ws
            n += 1
    for ws in ([1092] * 30, [1, 32766], [32767], [1] * 30, [32767 - 29] + [1] * 29, list(range(1, 31))):
        assert digits(server_table(conn, ws)) == list(table(ws)), ws[:3]
        n += 1
    assert n == 8 + 64 + 512 + 6


def test_constructor_errors_are_lanequeues_and_create_nothing():
    conn = fleet_server.shared().client()
    for cap in (0, -1, 2 ** 24 + 1, 1.5, "8"):  # the fleet's own range, FleetQueue's words
        name = fleet_server.fresh_name("lctor")
        a = outcome(FleetQueue, conn, name, cap)
        assert a[0] != "ok" and outcome(FleetLaneQueue, conn, name, cap, [1]) == a, cap
        assert conn.keys("*{%s}*" % name) == []
    bad = [(8, 0), (8, 31), (8, []), (8, [0]), (8, [1] * 31),
           (8, [32768]), (8, [20000, 20000]), (8, [1.5]), (8, ["2"]), (8, "2"), (8, 2.0),
           (8, [1, 1], [9, 1]), (8, [1, 1], [1]), (8, [1, 1], [1, 1, 1]), (8, [1, 1], 0), (8, [1, 1], 9),
           (8, [1, 1], [1, "2"]), (8, [1, 1], [0, 1]), (8, [1, 1], 1.0), (8, [1], None, -1), (8, [1], None, M30),
           (8, [1], None, 0, -1), (8, [1], None, 0, "1")]
    # (8, None) is not among them: without weights the fleet makes a keyed lane queue
    # (issue 24; tests/test_fleet_keyed*.py)
    for args in bad:
        name = fleet_server.fresh_name("lctor")
        a = outcome(LaneQueue, *args)
        b = outcome(FleetLaneQueue, conn, name, *args)
        assert a[0] != "ok" and a == b, (args, a, b)
        assert conn.keys("*{%s}*" % name) == []
    # The one documented difference: a fleet queue's capacity may pass LaneQueue's 32767.
    assert outcome(LaneQueue, 40000, [1])[0] == "ValueError"
    q = FleetLaneQueue(conn, fleet_server.fresh_name("lbig"), 40000, [1, 2])
    assert q.capacity == 40000 and q.lane_capacity == (40000, 40000)
    q.destroy()

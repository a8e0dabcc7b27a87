# Host only (CPython and a real redis-server): the fairness guarantees of docs/lanes.md on
# the fleet's lanes, against the same adversarial streams as test_lanes_fair.py (one lane
# flooding, weights 1 and 100 both ways, lanes appearing and disappearing around every pop,
# a lane back from idleness, the exact worst wait): its check_* scenarios run here on a
# Twin, a LaneQueue and a FleetLaneQueue fed every operation together, which must answer
# each the same (pops, sequence numbers, lanes, digest), while the scenario checks the
# bounds on what they popped.
from support import IS_MICROPYTHON, skip

if not IS_MICROPYTHON:
    import fleet_server
    import test_lanes_fair as fair
    from ticketq.fleet import FleetLaneQueue
    from ticketq.lanes import LaneQueue, table


class Twin:
    # Every change goes to both queues and must get the same answer. Reads that only steer
    # the scenario (full, lane_len, the settings, internals for ticketq.audit.lane_max_wait)
    # come from the board's queue; the fleet's lane counts and digest are compared with it
    # every 25 pops and at the end (check()), so they are checked too, at fewer round trips.
    def __init__(self, conn, cap, weights, bounds):
        self.board = LaneQueue(cap, weights, bounds)
        self.fleet = FleetLaneQueue(conn, fleet_server.fresh_name("fair"), cap, weights, bounds)
        assert list(self.fleet.table) == list(table(weights))
        self.pops = 0
        twins.append(self)

    def __getattr__(self, name):
        return getattr(self.board, name)

    def push(self, i, c, l):
        s = self.board.push(i, c, l)
        assert self.fleet.push(i, c, l) == s
        return s

    def pop(self):
        i = self.board.pop()
        b, f = self.board, self.fleet
        assert f.pop() == i and (f.last_priority, f.last_seq, f.last_lane) == (
            b.last_priority, b.last_seq, b.last_lane), (i, b.last_lane, f.last_lane)
        self.pops += 1
        if self.pops % 25 == 0:
            self.check()
        return i

    def check(self):
        b, f = self.board, self.fleet
        assert f.digest == b.digest
        assert f.lane_info()["queued"] == tuple([b.lane_len(l) for l in range(b.lanes)])


twins = []


def maker():
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    conn = fleet_server.shared().client()
    del twins[:]
    return lambda cap, weights, bounds: Twin(conn, cap, weights, bounds)


def done():
    assert twins
    for t in twins:
        t.check()
        assert t.pops > 0
        t.fleet.destroy()


def on_the_fleet(check):
    make = maker()  # first: it skips on MicroPython, where `fair` is not imported
    getattr(fair, check)(make)
    done()


def test_one_lane_flooding_cannot_starve_the_others_on_the_fleet():
    on_the_fleet("check_one_lane_flooding")


def test_weights_1_and_100_both_ways_on_the_fleet():
    on_the_fleet("check_weights_1_and_100")


def test_lanes_appearing_and_disappearing_on_the_fleet():
    on_the_fleet("check_lanes_appearing_and_disappearing")


def test_a_lane_back_from_idleness_gets_no_catch_up_burst_on_the_fleet():
    on_the_fleet("check_no_catch_up_burst")


def test_lane_max_wait_is_reached_on_the_fleet():
    on_the_fleet("check_lane_max_wait_reached")

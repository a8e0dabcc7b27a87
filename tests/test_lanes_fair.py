# The fairness guarantees of ticketq.lanes (docs/lanes.md), checked on every interpreter
# against adversarial streams: one lane flooding, weights 1 and 100, lanes appearing and
# disappearing around every pop, a lane back from idleness. The hypothesis versions, with
# streams it searches for, are in test_lanes_fair_props.py (CPython).
#   lower   a lane of weight w (of W in all) that has a ticket of class c at each of k
#           consecutive pops of class c gets at least floor(k * w / W) - 1 of them;
#   upper   while every lane has one, at most ceil(k * w / W) + 1: no catch-up burst;
#   wait    a ticket that r tickets of its lane pass pops within the first
#           ceil((r + 2) * W / w) pops of its class after its push.
# Each scenario is a check_*(make) function, make(capacity, weights, bounds) giving the
# queue: test_fleet_lanes_fair.py runs the same scenarios on the fleet's lanes.
from ticketq import NORMAL, HIGH
from ticketq.lanes import LaneQueue, table
from lanecheck import fair_windows
from rng import Rng
from support import IS_MICROPYTHON, skip


def need_heap(nbytes, why):
    # (Here, not in support.py, which every test module on the micro:bit compiles: it cost
    # test_queue_errors its place there.) Skip (visibly) on a MicroPython whose whole GC heap is below nbytes: the tests that
    # keep long logs of every op (host-sized, ~0.7-0.9 MB) run on CPython, the VM (1 MiB)
    # and the unix port, not on a board-sized heap (the emulated boards of ticketq mcu
    # have 192 KB, like an RP2040), where they raise MemoryError on every target alike.
    if not IS_MICROPYTHON:
        return
    import gc

    gc.collect()
    total = gc.mem_free() + gc.mem_alloc()
    if total < nbytes:
        skip("%s needs ~%d KB of heap; this one has %d KB" % (why, nbytes // 1024, total // 1024))


def windows(t, l, w, total, reps):
    # (fewest, most) turns of lane l in any k consecutive entries of the repeated table, less
    # floor and ceil of k * w / W: the lag bounds of the table itself.
    lo = hi = 0
    s = list(t) * reps
    for a in range(len(t)):
        got = 0
        for k in range(1, len(s) - a + 1):
            got += s[a + k - 1] == l
            lo = min(lo, got - k * w // total)
            hi = max(hi, got + (-k * w // total))  # got - ceil(k w / W)
    return lo, hi


def test_every_lane_is_within_one_turn_of_its_share_in_any_window_of_the_table():
    for ws in ([1, 100], [10] + [1] * 10, [5, 3, 2], [7, 7, 1, 4], [1, 2, 3, 4, 5, 6], [13, 1, 1],
               [1]):
        t = table(ws)
        total = sum(ws)
        for l in range(len(ws)):
            lo, hi = windows(t, l, ws[l], total, 2)
            assert lo >= -1 and hi <= 1, (ws, l, lo, hi)


class Stream:
    # A lane queue (LaneQueue, or what make builds) driven by a test, recording for every pop
    # (class, lane popped, lanes that had a ticket of that class just before it), and every
    # ticket's wait.
    def __init__(self, cap, weights, bounds=None, make=LaneQueue):
        self.q = make(cap, weights, bounds)
        self.n = len(weights)
        self.count = [[0] * self.n for _ in range(4)]  # tickets per class and lane
        self.pops = []
        self.born = {}  # id -> (class pops of its class so far, lane pops of its lane so far)
        self.cpops = [0] * 4
        self.lpops = [[0] * self.n for _ in range(4)]
        self.worst = 1 << 20  # least margin of the wait bound seen
        self.next_id = 0

    def push(self, c, l):
        if self.q.full() or self.q.lane_len(l) >= self.q.lane_capacity[l]:
            return False
        i = self.next_id
        self.next_id += 1
        self.q.push(i, c, l)
        self.count[c][l] += 1
        self.born[i] = (self.cpops[c], self.lpops[c][l])
        return True

    def pop(self):
        q = self.q
        before = [tuple([l for l in range(self.n) if self.count[c][l]]) for c in range(4)]
        i = q.pop()
        c, l = q.last_priority, q.last_lane
        self.count[c][l] -= 1
        self.pops.append((c, l, before[c]))
        k0, r0 = self.born.pop(i)
        waited = self.cpops[c] - k0  # pops of its class before it
        r = self.lpops[c][l] - r0  # of them, its own lane's
        total = sum(q.weights)
        w = q.weights[l]
        self.worst = min(self.worst, (r + 2) * total // w + ((r + 2) * total % w > 0) - 1 - waited)
        self.cpops[c] += 1
        self.lpops[c][l] += 1
        return l

    def check(self, c=NORMAL):
        # Every lane's windows against the lower bound, and the wait bound; windows checked.
        n = 0
        total = sum(self.q.weights)
        for l in range(self.n):
            k, m = fair_windows(self.pops, l, self.q.weights[l], total, c)
            assert m >= 0, (l, m)
            n += k
        assert self.worst >= 0, self.worst
        return n


def check_one_lane_flooding(make):
    s = Stream(24, [1, 1, 1], [20, 4, 4], make)
    r = Rng(3)
    quiet = 0
    for step in range(600):
        while s.push(NORMAL, 0):  # the chatty lane fills up to its bound every time
            pass
        if r.next(4) == 0:
            s.push(NORMAL, 1)
        if r.next(9) == 0:
            s.push(NORMAL, 2)
        if s.pop():
            quiet += 1
    assert quiet > 100 and s.check() > 1000


def check_weights_1_and_100(make):
    for light in (0, 1):
        ws = [100, 1] if light else [1, 100]
        s = Stream(64, ws, [60, 4], make)
        for step in range(700):
            while s.push(HIGH, 0):
                pass
            while s.push(HIGH, 1):
                pass
            s.pop()
        got = [e[1] for e in s.pops].count(light)
        assert 6 <= got <= 8, got  # 700 pops at a 1/101 share
        assert s.check(HIGH) > 1000


def check_lanes_appearing_and_disappearing(make):
    # Lane 0 stays backlogged; lanes 1..5 come and go: each gets a ticket right before some
    # pops and often drains at once, the pattern that resets a naive round robin's state.
    s = Stream(32, [2, 1, 1, 3, 1, 5], None, make)
    r = Rng(9)
    for step in range(800):
        while s.q.lane_len(0) < 6:
            s.push(NORMAL, 0)
        for l in range(1, 6):
            if r.next(3) == 0:
                s.push(NORMAL, l)
        if r.next(50) == 0:  # now and then a burst in a higher class: other class pops
            s.push(HIGH, r.next(6))
        s.pop()
    assert s.check() > 1000


def check_no_catch_up_burst(make):
    s = Stream(40, [1, 1, 1, 1], None, make)
    for step in range(400):  # lane 3 idle all along
        for l in range(3):
            while s.q.lane_len(l) < 8:
                s.push(NORMAL, l)
        s.pop()
    start = len(s.pops)
    for step in range(200):  # now every lane is backlogged
        for l in range(4):
            while s.q.lane_len(l) < 8:
                s.push(NORMAL, l)
        s.pop()
    got = [e[1] == 3 for e in s.pops[start:]]
    for a in range(len(got)):  # at most ceil(k / 4) + 1 of any k consecutive pops
        n = 0
        for b in range(a, len(got)):
            n += got[b]
            assert n <= (b - a + 1 + 3) // 4 + 1, (a, b, n)
    s.check()


def check_lane_max_wait_reached(make):
    # The bound ticketq.audit.lane_max_wait reads from the table is exact: a CRITICAL ticket
    # pushed right after its lane's turn, behind lane_capacity - 1 others of its lane, with
    # every other lane kept full, waits exactly that many pops at the worst start.
    from ticketq.audit import lane_max_wait
    from ticketq import CRITICAL
    for ws, v, b in (([1, 100], 0, 1), ([1, 100], 1, 3), ([3, 1, 2], 1, 2), ([2, 2, 5], 2, 4)):
        caps = [30] * len(ws)
        caps[v] = b
        q = make(30 * len(ws), ws, caps)
        i = 0
        worst = -1
        victim = None
        for step in range(3 * sum(ws) * b + 3):
            for l in range(len(ws)):
                while q.lane_len(l) < q.lane_capacity[l] and (l != v or victim is None):
                    q.push(i, CRITICAL, l)
                    i += 1
            got = q.pop()
            if got == victim:
                worst = max(worst, waited)
                victim = None
            elif victim is not None:
                waited += 1
            elif q.last_lane == v:  # just past a turn of lane v: push the victim now
                victim = i
                waited = 0
                q.push(i, CRITICAL, v)
                i += 1
        assert worst == lane_max_wait(q, v, CRITICAL), (ws, v, b, worst)


def test_one_lane_flooding_cannot_starve_the_others():
    need_heap(700 * 1024, "a log of every pop")
    check_one_lane_flooding(LaneQueue)


def test_weights_1_and_100_both_ways():
    need_heap(700 * 1024, "a log of every pop")
    check_weights_1_and_100(LaneQueue)


def test_lanes_appearing_and_disappearing_around_every_pop():
    need_heap(700 * 1024, "a log of every pop")
    check_lanes_appearing_and_disappearing(LaneQueue)


def test_a_lane_back_from_idleness_gets_no_catch_up_burst():
    need_heap(700 * 1024, "a log of every pop")
    check_no_catch_up_burst(LaneQueue)


def test_lane_max_wait_is_reached_when_every_lane_stays_backlogged():
    check_lane_max_wait_reached(LaneQueue)

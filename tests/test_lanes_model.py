# Model-based test of ticketq.lanes.LaneQueue (CPython only: needs hypothesis). Random
# push/pop/peek/remove/clear sequences over random lane weights and bounds, with full lanes,
# a full queue, aging and sequence wrap, against a reference model written from the rule in
# docs/lanes.md with plain lists and exact fractions; the lane invariants are checked after
# every step. On MicroPython this module is reported as skipped (cannot import).
from hypothesis import given, settings, strategies as st  # first: MicroPython skips here
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import math
from fractions import Fraction

import ticketq.core as core
from ticketq import QueueFull, QueueEmpty
from ticketq.lanes import LaneQueue, LaneFull, table
from ticketq.audit import tickets
from lanecheck import check_lanes, snapshot_lanes
from rng import Rng
from support import raises

M30 = 1 << 30


def ref_table(weights):
    # docs/lanes.md, "the lane table", in exact arithmetic: entry t goes to the released turn
    # (release floor(j W / w) <= t) whose due date ceil((j + 1) W / w) is first, the lower
    # lane on a tie.
    total = sum(weights)
    done = [0] * len(weights)
    out = []
    for t in range(total):
        ready = [(math.ceil(Fraction((done[l] + 1) * total, w)), l)
                 for l, w in enumerate(weights)
                 if done[l] < w and math.floor(Fraction(done[l] * total, w)) <= t]
        lane = min(ready)[1]
        out.append(lane)
        done[lane] += 1
    return out


def fold(g, i, c, s, lane):
    # The digest's definition, written independently of the library's code.
    def rotl5(x):
        return ((x << 5) | (x >> 25)) & (M30 - 1)
    g = rotl5(rotl5(g) ^ i) ^ s ^ (c << 28)
    return rotl5(g) ^ lane if lane else g


class Ref:
    # The reference: per (class, lane) a list of [push order, id, outside seq, promoted],
    # one cursor per class into the table.
    def __init__(self, capacity, weights, bounds, first, aging):
        self.cap, self.weights, self.bounds, self.first, self.aging = (
            capacity, weights, bounds, first, aging)
        self.table = ref_table(weights)
        self.pushes = 0
        self.clear()

    def clear(self):
        self.lists = {(c, l): [] for c in range(4) for l in range(len(self.weights))}
        self.cur = [0] * 4
        self.left = self.aging
        self.digest = core._DIG0

    def all(self):
        return [t for x in self.lists.values() for t in x]

    def lane_len(self, l):
        return sum(len(self.lists[(c, l)]) for c in range(4))

    def push(self, i, c, l):
        # None, or the exception class push must raise.
        if len(self.all()) == self.cap:
            return QueueFull
        if self.lane_len(l) == self.bounds[l]:
            return LaneFull
        self.lists[(c, l)].append([self.pushes, i, (self.first + self.pushes) % M30, False])
        self.pushes += 1
        return None

    def next(self):
        # (class, lane, table entry) of the next pop.
        c = max(c for (c, l), x in self.lists.items() if x)
        p = self.cur[c]
        while not self.lists[(c, self.table[p])]:
            p = (p + 1) % len(self.table)
        return c, self.table[p], p

    def pop(self):
        c, l, p = self.next()
        self.cur[c] = (p + 1) % len(self.table)
        t = self.lists[(c, l)].pop(0)
        self.digest = fold(self.digest, t[1], c, t[2], l)
        if self.aging:
            self.left -= 1
            if self.left == 0:
                self.left = self.aging
                low = [(t[0], c, l) for (c, l), x in self.lists.items() if c < 3 for t in x]
                if low:
                    o, c2, l2 = min(low)
                    old = [t for t in self.lists[(c2, l2)] if t[0] == o][0]
                    self.lists[(c2, l2)].remove(old)
                    old[3] = True
                    self.lists[(c2 + 1, l2)].append(old)
                    self.lists[(c2 + 1, l2)].sort()
        return t, c, l

    def remove(self, i):
        mine = [(t[0], x) for x in self.lists.values() for t in x if t[1] == i]
        if not mine:
            return False
        o, x = min(mine)
        x.remove([t for t in x if t[0] == o][0])
        return True

    def order(self):
        # Pop order if nothing else happened and aging were off: [(id, class, seq, lane)].
        out = []
        for c in (3, 2, 1, 0):
            lists = {l: list(self.lists[(c, l)]) for l in range(len(self.weights))}
            p = self.cur[c]
            while any(lists.values()):
                l = self.table[p]
                if lists[l]:
                    t = lists[l].pop(0)
                    out.append((t[1], c, t[2], l))
                p = (p + 1) % len(self.table)
        return out


weights_st = st.lists(st.sampled_from([1, 1, 1, 2, 3, 5, 13, 100]), min_size=1, max_size=5)


class LaneMachine(RuleBasedStateMachine):
    @initialize(cap=st.integers(1, 10), weights=weights_st, data=st.data(),
                first=st.one_of(st.integers(0, 50), st.integers(M30 - 60, M30 - 1)),
                aging=st.sampled_from([0, 0, 1, 2, 3, 5]))
    def setup(self, cap, weights, data, first, aging):
        bounds = data.draw(st.lists(st.integers(1, cap), min_size=len(weights),
                                    max_size=len(weights)))
        self.q = LaneQueue(cap, weights, bounds, first, aging)
        self.ref = Ref(cap, weights, bounds, first, aging)
        self.lanes = len(weights)

    @rule(i=st.integers(0, 12) | st.just(M30 - 1), c=st.integers(0, 3), data=st.data())
    def push(self, i, c, data):
        l = data.draw(st.integers(0, self.lanes - 1))
        before = snapshot_lanes(self.q)
        s = (self.ref.first + self.ref.pushes) % M30
        err = self.ref.push(i, c, l)
        if err:
            e = raises(err, self.q.push, i, c, l)
            assert isinstance(e, LaneFull) == (err is LaneFull)
            assert snapshot_lanes(self.q) == before
        else:
            assert self.q.push(i, c, l) == s

    @rule()
    def pop(self):
        if not self.ref.all():
            raises(QueueEmpty, self.q.pop)
            return
        t, c, l = self.ref.pop()
        assert (self.q.pop(), self.q.last_priority, self.q.last_seq, self.q.last_lane) == (
            t[1], c, t[2], l)
        assert self.q.digest == self.ref.digest

    @rule()
    def peek(self):
        if not self.ref.all():
            raises(QueueEmpty, self.q.peek)
        else:
            c, l, _ = self.ref.next()
            assert self.q.peek() == self.ref.lists[(c, l)][0][1]

    @rule(i=st.integers(0, 12))
    def remove(self, i):
        assert self.q.remove(i) == self.ref.remove(i)

    @precondition(lambda self: self.ref.pushes % 7 == 3)
    @rule()
    def clear(self):
        self.q.clear()
        self.ref.clear()
        assert self.q.digest == core._DIG0

    @invariant()
    def lanes_hold(self):
        check_lanes(self.q)
        assert len(self.q) == len(self.ref.all())
        assert self.q.full() == (len(self.q) == self.ref.cap)
        assert [self.q.lane_len(l) for l in range(self.lanes)] == [
            self.ref.lane_len(l) for l in range(self.lanes)]
        assert tickets(self.q) == self.ref.order()


LaneMachine.TestCase.settings = settings(max_examples=150, stateful_step_count=60, deadline=None)
test_lane_model = LaneMachine.TestCase


@settings(max_examples=300, deadline=None)
@given(weights=st.lists(st.integers(1, 60), min_size=1, max_size=8))
def test_the_table_is_the_reference_table(weights):
    assert list(table(weights)) == ref_table(weights)


def test_the_golden_digest_is_the_reference_models():
    # tests/test_lanes.py checks this value on every interpreter; here the model derives it.
    q = Ref(16, [3, 1, 2], [8, 4, 6], 0x3FFFFFF0, 3)
    r = Rng(77)
    for _ in range(600):
        if r.next(2):
            q.push(r.next(0x40000000), r.next(4), r.next(3))
        elif q.all():
            q.pop()
    assert q.digest == 0x0D556F70

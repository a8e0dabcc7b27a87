# Keyed lanes against the reference of the rule (tests/keyedref.py), as a hypothesis state
# machine (CPython only: on MicroPython this module is reported as skipped): pushes on keys
# that appear and vanish (a few keys, so lanes empty and come back; keys drawn from the
# whole 0..2**30 - 1 range), pops, peeks, removes, set_lane changing weights and bounds at
# any time, clear; every answer, error (the queue unchanged), last_*, the digest, lane
# lengths, the pop order and the storage invariants after each step. The same bounds as
# test_lanes_keyed_fair.py are then searched for a counterexample with weights that change
# mid-wait (Theorem K2 with w the lane's smallest and S from each lane's largest weight).
from hypothesis import given, settings, strategies as st  # first: MicroPython skips here
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from ticketq import QueueFull, QueueEmpty
from ticketq.lanes import LaneQueue, LaneFull, LanesFull
from ticketq.audit import tickets
from lanecheck import check_keyed, snapshot_keyed
from keyedref import KeyedRef, DIG0
from support import raises

M30 = 1 << 30


class KeyedMachine(RuleBasedStateMachine):
    @initialize(cap=st.integers(1, 12), data=st.data(), first=st.one_of(
        st.integers(0, 50), st.integers(M30 - 60, M30 - 1)))
    def setup(self, cap, data, first):
        most = data.draw(st.integers(1, cap))
        self.keys = data.draw(st.lists(st.integers(0, M30 - 1), min_size=1, max_size=6,
                                       unique=True))
        self.q = LaneQueue(cap, max_lanes=most, first_seq=first)
        self.ref = KeyedRef(cap, most, first)

    def key(self, data):
        return data.draw(st.sampled_from(self.keys))

    @rule(i=st.integers(0, 9) | st.just(M30 - 1), c=st.integers(0, 3), data=st.data())
    def push(self, i, c, data):
        key = self.key(data)
        before = snapshot_keyed(self.q)
        e = self.ref.push(i, c, key)
        if type(e) is int:
            assert self.q.push(i, c, key) == e
        else:
            got = raises(QueueFull, self.q.push, i, c, key)
            assert type(got) is e
            assert snapshot_keyed(self.q) == before

    @rule(data=st.data())
    def bad_push(self, data):
        before = snapshot_keyed(self.q)
        args = data.draw(st.sampled_from([(1, 0, -1), (1, 0, M30), (1, 0, "k"), (1, 4, 0),
                                          (-1, 0, 0), (1.0, 0, 0)]))
        raises((TypeError, ValueError), self.q.push, *args)
        assert snapshot_keyed(self.q) == before

    @rule()
    def pop(self):
        if self.ref.head() is None:
            raises(QueueEmpty, self.q.pop)
            return
        got = (self.q.pop(), self.q.last_priority, self.q.last_seq, self.q.last_lane)
        assert got == self.ref.pop()
        assert self.q.digest == self.ref.digest

    @rule()
    def peek(self):
        if self.ref.head() is None:
            raises(QueueEmpty, self.q.peek)
        else:
            assert self.q.peek() == self.ref.peek()

    @rule(i=st.integers(0, 9))
    def remove(self, i):
        assert self.q.remove(i) == self.ref.remove(i)

    @rule(data=st.data(), w=st.none() | st.integers(1, 6), b=st.none() | st.integers(1, 12))
    def set_lane(self, data, w, b):
        key = self.key(data)
        if b is not None and b > self.ref.cap:
            raises(ValueError, self.q.set_lane, key, w, b)
            return
        before = snapshot_keyed(self.q)
        if self.ref.set_lane(key, w, b):
            self.q.set_lane(key, w, b)
        else:
            raises(ValueError, self.q.set_lane, key, w, b)
            assert snapshot_keyed(self.q) == before

    @rule()
    def clear(self):
        self.q.clear()
        self.ref.clear()
        assert self.q.digest == DIG0

    @invariant()
    def agree(self):
        check_keyed(self.q)
        assert len(self.q) == self.ref.count() and self.q.lanes == len(self.ref.lanes)
        for k in self.keys:
            assert self.q.lane_len(k) == self.ref.lane_len(k)
        assert tickets(self.q) == self.ref.order()


KeyedMachine.TestCase.settings = settings(max_examples=200, stateful_step_count=60,
                                          deadline=None)
test_keyed_model = KeyedMachine.TestCase


@settings(max_examples=200, deadline=None)
@given(ops=st.lists(st.tuples(st.integers(0, 9), st.integers(0, 4), st.integers(1, 5)),
                    min_size=1, max_size=300))
def test_the_wait_bound_holds_with_weights_changing_mid_wait(ops):
    # One class. Per op (kind, key, weight): kind 0-4 push on key (its weight set to
    # `weight` when the lane is new), 5-7 pop, 8 set the key's weight (if it has a lane),
    # 9 remove the key's newest ticket. K2 as docs/lanes.md states it for changing
    # weights: a ticket with j older tickets of its lane at its push pops after at most
    # (j // w + 1) * S + j pops, w its lane's smallest weight during the wait, S the most,
    # over the wait, of the sum over the other lanes then in the ring of each one's largest
    # weight during the wait.
    q = LaneQueue(16, max_lanes=5)
    queued = {}  # key -> [[pops at push, j, history index at push], ...] oldest first
    hist = []  # after each op: {key: weight} of the lanes in the ring
    pops = 0
    n = 0
    checked = 0

    def record():
        hist.append({k: q.lane_settings(k)[1] for k in queued if queued[k]})

    record()
    for kind, key, w in ops:
        if kind < 5:
            new = q.lane_len(key) == 0
            try:
                q.push(n, 1, key)
            except QueueFull:
                continue
            n += 1
            if new:
                q.set_lane(key, weight=w)
            ts = queued.setdefault(key, [])
            ts.append([pops, len(ts), len(hist)])
        elif kind < 8:
            if not len(q):
                continue
            q.pop()
            l = q.last_lane
            t = queued[l].pop(0)
            span = hist[t[2]:]
            top = {}
            for h in span:
                for m, wm in h.items():
                    top[m] = max(top.get(m, 0), wm)
            wl = min(h[l] for h in span)
            s = max(sum(top[m] for m in h if m != l) for h in span)
            bound = (t[1] // wl + 1) * s + t[1]
            assert pops - t[0] <= bound, (pops - t[0], bound, t)
            pops += 1
            checked += 1
        elif kind == 8:
            if q.lane_len(key):
                q.set_lane(key, weight=w)
        elif queued.get(key):
            queued[key].pop()  # the newest: older tickets keep their j
            assert q.remove([t[0] for t in tickets(q) if t[3] == key][-1])
        record()
    assert checked == pops

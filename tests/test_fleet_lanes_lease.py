# Leases against the rotation (CPython only: hypothesis and a real redis-server). What
# docs/lanes-design.md says of the fleet tier ("The fleet tier: details"), as a model: test_lanes_model's reference (plain
# lists, exact fractions, written from the rule), plus leases: a leased pop is a pop (the
# cursor moves, the digest folds, aging counts); an ack changes nothing more; a lease that
# ends without an ack (release; an expiry takes the same path in the server: core.lua's
# requeue) puts the ticket back into its lane's list of its class, in sequence order, and
# moves no cursor, so the lane gets no extra turn; a leased ticket counts against the
# capacity and its lane's bound. Hypothesis drives the model and a FleetLaneQueue with the
# same streams; every pop, delivery count, refusal, the digest, the lane counts and the
# whole queue in pop order must agree.
# On MicroPython this module is reported as skipped (cannot import hypothesis).
from hypothesis import settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import fleet_server
from support import raises
from ticketq import QueueFull, QueueEmpty
from ticketq.fleet import FleetLaneQueue
from ticketq.lanes import LaneFull
from test_lanes_model import Ref, M30

LONG = 600000


class LeaseRef(Ref):
    # Ref with leases: out holds the leased tickets, token -> (class, lane, ticket).
    def clear(self):
        Ref.clear(self)
        self.out = {}

    def held(self, l):
        return self.lane_len(l) + sum(1 for c, x, t in self.out.values() if x == l)

    def push(self, i, c, l):
        if len(self.all()) + len(self.out) >= self.cap:
            return QueueFull
        if self.held(l) >= self.bounds[l]:
            return LaneFull
        return Ref.push(self, i, c, l)

    def give_back(self, token):
        c, l, t = self.out.pop(token)
        self.lists[(c, l)].append(t)
        self.lists[(c, l)].sort()


class LeaseMachine(RuleBasedStateMachine):
    @initialize(cap=st.integers(1, 12), data=st.data(), aging=st.sampled_from([0, 0, 1, 2, 3]),
                weights=st.lists(st.sampled_from([1, 1, 2, 3, 7]), min_size=1, max_size=4),
                first=st.one_of(st.integers(0, 50), st.integers(M30 - 60, M30 - 1)))
    def setup(self, cap, data, aging, weights, first):
        bounds = data.draw(st.lists(st.integers(1, cap), min_size=len(weights), max_size=len(weights)))
        conn = fleet_server.shared().client()
        self.ref = LeaseRef(cap, weights, bounds, first, aging)
        self.f = FleetLaneQueue(conn, fleet_server.fresh_name("llm"), cap, weights, bounds, first, aging, 0)
        self.deliveries = {}  # push order -> leases so far

    def pop_both(self, lease):
        if not self.ref.all():
            raises(QueueEmpty, self.f.pop, lease)
            return None
        t, c, l = self.ref.pop()
        assert (self.f.pop(lease), self.f.last_priority, self.f.last_seq, self.f.last_lane) == (t[1], c, t[2], l)
        self.deliveries[t[0]] = self.deliveries.get(t[0], 0) + 1
        assert self.f.last_deliveries == self.deliveries[t[0]]
        return t, c, l

    @rule(i=st.integers(0, 9), c=st.integers(0, 3), data=st.data())
    def push(self, i, c, data):
        l = data.draw(st.integers(0, len(self.ref.weights) - 1))
        s = (self.ref.first + self.ref.pushes) % M30
        err = self.ref.push(i, c, l)
        if err:
            e = raises(err, self.f.push, i, c, l)
            assert isinstance(e, LaneFull) == (err is LaneFull)
        else:
            assert self.f.push(i, c, l) == s

    @rule(n=st.integers(1, 4))
    def pop(self, n):
        for _ in range(n):
            self.pop_both(0)

    @rule()
    def lease(self):
        got = self.pop_both(LONG)
        if got:
            t, c, l = got
            self.ref.out[self.f.last_lease] = (c, l, t)

    @precondition(lambda self: self.ref.out)
    @rule(data=st.data())
    def ack(self, data):
        token = data.draw(st.sampled_from(sorted(self.ref.out)))
        del self.ref.out[token]
        assert self.f.ack(token) is True

    @precondition(lambda self: self.ref.out)
    @rule(data=st.data())
    def release(self, data):
        token = data.draw(st.sampled_from(sorted(self.ref.out)))
        self.ref.give_back(token)
        assert self.f.release(token) == 1

    @rule(i=st.integers(0, 9))
    def remove(self, i):
        assert self.f.remove(i) == self.ref.remove(i)

    @precondition(lambda self: self.ref.pushes % 9 == 4)
    @rule()
    def clear(self):
        self.ref.clear()
        self.f.clear()

    @invariant()
    def agree(self):
        f, ref = self.f, self.ref
        assert f.digest == ref.digest
        assert [x[:3] + x[4:] for x in f.tickets()] == ref.order()
        n = len(ref.weights)
        assert f.lane_info()["held"] == tuple([ref.held(l) for l in range(n)])
        assert f.info()["leased"] == len(ref.out)
        assert f.full() == (len(ref.all()) + len(ref.out) >= ref.cap)

    def teardown(self):
        if hasattr(self, "f"):
            self.f.destroy()


LeaseMachine.TestCase.settings = settings(max_examples=80, stateful_step_count=40, deadline=None)
test_leases_against_the_rotation = LeaseMachine.TestCase

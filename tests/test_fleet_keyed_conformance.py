# Keyed lanes (issue 24), conformance (CPython only: hypothesis and a real redis-server):
# hypothesis drives a keyed FleetLaneQueue and tests/keyedmodel.py (the rule of docs/lanes.md
# "Keyed lanes", as plain Python) with the same random operation streams, through redis-py
# and through the board client (ticketq.resp) on CPython: keys appearing and vanishing (int
# keys, str keys, "7" and 7 as one lane, non-canonical "07" as another), weights, bounds,
# in-flight ceilings, pause and resume changed at any time, leased pops acked or released,
# remove, clear. Every answer must be the same: ids, classes, sequence numbers, keys,
# QueueFull / LaneFull / LanesFull, QueueEmpty, the digest, each lane's counts and
# settings; and whenever the model has no lane, the fleet keeps no lane field and no ring.
# The board's keyed LaneQueue is held to the same model in the board-vs-fleet test when it
# exists (test_fleet_keyed.py).
# On MicroPython this module is reported as skipped (cannot import hypothesis).
from hypothesis import settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from ticketq.core import QueueEmpty, QueueFull
from ticketq.fleet import FleetLaneQueue
import fleet_server
import keyedmodel

KEYS = [0, 1, 2, 7, "7", "chat-a", "\u00fc", 2 ** 30 - 1, "1073741824", "07"]
# most operations on a few keys (lanes fill to their bounds, rings turn), some on any
KEY = st.one_of(st.sampled_from([0, 7, "7", "chat-a"]), st.sampled_from(KEYS))
_conns = {}
seen = {}


def kind(e):
    n = type(e).__name__
    return n[:-1] if n.endswith("FullM") else n


def outcome(fn, *args):
    try:
        return ("ok", fn(*args))
    except (QueueFull, QueueEmpty) as e:
        return (kind(e),)


class KeyedConformance(RuleBasedStateMachine):
    conn = None

    @initialize(cap=st.one_of(st.integers(5, 12), st.integers(1, 4)), maxl=st.sampled_from([None, None, None, 3]),
                maxdel=st.sampled_from([0, 2]))
    def setup(self, cap, maxl, maxdel):
        srv = fleet_server.shared()
        key = (self.conn, srv.port)
        if key not in _conns:
            _conns[key] = srv.client() if self.conn == "redis-py" else srv.resp()
        self.f = FleetLaneQueue(_conns[key], fleet_server.fresh_name("kconf"), cap, max_lanes=maxl,
                                max_deliveries=maxdel)
        self.m = keyedmodel.KeyedModel(cap, maxl, 0, maxdel)
        self.held = []  # [(model token, fleet token)]

    def count(self, what):
        seen[what] = seen.get(what, 0) + 1

    # push, pop and lease ends in one rule (hypothesis's swarm testing leaves rules out of
    # whole examples: a stream of pushes alone, or pops alone, would test little)
    @rule(ops=st.lists(st.one_of(
        st.tuples(st.just("push"), st.integers(0, 20), st.integers(0, 3), KEY),
        st.tuples(st.just("pop"), st.sampled_from([True, False, False])),
        st.tuples(st.just("end"), st.integers(0, 100), st.booleans()),
        st.tuples(st.just("set"), KEY, st.one_of(st.none(), st.integers(1, 4)),
                  st.one_of(st.none(), st.integers(1, 3)), st.none())), min_size=1, max_size=8))
    def work(self, ops):
        for op in ops:
            if op[0] == "push":
                self.push(*op[1:])
            elif op[0] == "pop":
                self.pop(op[1])
            elif op[0] == "set":
                self.set_lane(*op[1:])
            elif self.held:
                self.end_lease(*op[1:])

    def push(self, i, c, k):
        a = outcome(self.m.push, i, c, k)
        b = outcome(self.f.push, i, c, k)
        assert a == b, (i, c, k, a, b)
        self.count("push:" + a[0])

    def pop(self, lease):
        a = outcome(self.m.pop, lease)
        b = outcome(self.f.pop, 600000 if lease else 0)
        if a[0] == "ok":
            i, c, s, key, tok = a[1]
            assert b == ("ok", i), (a, b)
            assert (self.f.last_priority, self.f.last_seq, self.f.last_lane) == (c, s, key)
            assert type(self.f.last_lane) is type(key)
            assert self.f.last_deliveries == self.m.deliveries
            if lease:
                self.held.append((tok, self.f.last_lease))
        else:
            assert a == b, (a, b)
        self.count("pop:" + a[0])

    def end_lease(self, k, ack):
        mt, ft = self.held.pop(k % len(self.held))
        if ack:
            assert self.m.ack(mt) == self.f.ack(ft)
        else:
            r = self.m.release(mt)
            assert self.f.release(ft) == r
            self.count("release:%d" % r)
        # a token used once is spent: both say so
        assert self.f.ack(ft) is False and self.m.ack(mt) is False

    @rule(i=st.integers(0, 20))
    def remove(self, i):
        assert self.m.remove(i) == self.f.remove(i)

    @rule(k=KEY, w=st.one_of(st.none(), st.integers(1, 4)),
          b=st.one_of(st.none(), st.integers(1, 4)), c=st.one_of(st.none(), st.none(), st.none(), st.integers(1, 3)))
    def set_lane(self, k, w, b, c):
        cap = self.m.cap
        b = None if b is None else min(b, cap)
        c = None if c is None else min(c, cap)
        self.m.set_lane(k, w, b, c)
        r = self.f.set_lane(k, w, b, c)
        lm = self.m.lane(k)
        assert r == {"weight": lm["weight"], "bound": lm["bound"], "ceiling": lm["ceiling"],
                     "paused": lm["paused"]}
        self.count("set")

    @rule(k=KEY, p=st.sampled_from([True, False, False, False]))
    def pause(self, k, p):
        if p:
            self.m.pause(k)
            self.f.pause(k)
        else:
            self.m.resume(k)
            self.f.resume(k)
        self.count("pause" if p else "resume")

    @rule()
    def peek(self):
        assert outcome(self.m.peek) == outcome(self.f.peek)

    @rule(k=st.sampled_from(KEYS))
    def lane(self, k):
        assert self.m.lane(k) == self.f.lane(k), k

    @rule(x=st.integers(0, 9))
    def clear(self, x):
        if x == 0:  # rare: the rings must run a while
            self.m.clear()
            self.f.clear()
            self.held = []

    @invariant()
    def same_state(self):
        if not hasattr(self, "f"):
            return
        self.m.check()
        i = self.f.info()
        assert i["digest"] == self.m.digest
        assert (i["queued"], i["leased"]) == (self.m.queued(), len(self.m.leases))
        assert self.f.lane_info()["lanes"] == len(self.m.lanes)
        # tickets(): the model's pops from here, were nothing pushed and no lease to end
        import copy

        c = copy.deepcopy(self.m)
        order = []
        while c.rings[0] or c.rings[1] or c.rings[2] or c.rings[3]:
            i, cls, seq, key, _ = c.pop()
            order.append((i, cls, seq, False, key))
        assert self.f.tickets() == order
        if not self.m.lanes:
            # no lane: nothing kept for one but the settings of keys (s fields)
            conn = self.f.conn
            fields = conn.execute_command("HKEYS", self.f.keys[11])
            assert all(f[:1] in (b"s", "s") for f in fields), fields
            assert conn.execute_command("EXISTS", self.f.keys[10]) == 0
            assert len(fields) == len(self.m.settings)


class ViaRedisPy(KeyedConformance):
    conn = "redis-py"


class ViaBoardClient(KeyedConformance):
    conn = "resp"


def _run(machine):
    from hypothesis.stateful import run_state_machine_as_test

    seen.clear()
    run_state_machine_as_test(machine, settings=settings(
        max_examples=100, stateful_step_count=60, deadline=None, derandomize=True, database=None))
    # the streams reached the cases that matter
    for k in ("push:ok", "push:LaneFull", "push:QueueFull", "pop:ok", "pop:QueueEmpty",
              "release:1", "set", "pause", "resume"):
        assert seen.get(k, 0) >= 3, (k, sorted(seen.items()))



def test_keyed_fleet_follows_the_rule_redis_py():
    _run(ViaRedisPy)


def test_keyed_fleet_follows_the_rule_board_client():
    _run(ViaBoardClient)


# ---- the wait bound of docs/lanes.md ("Keyed lanes"), on hypothesis's streams: for a ticket
# of lane l with j tickets ahead of it in its lane's class FIFO at its push, the pops of its
# class before it is taken are at most (floor(j / w_l) + 1) * S + j, S the largest sum of
# the other queued lanes' weights during its wait (weights fixed here, no lease, one class).

from hypothesis import given


@given(weights=st.lists(st.integers(1, 4), min_size=1, max_size=6),
       ops=st.lists(st.one_of(st.tuples(st.just("push"), st.integers(0, 5)), st.just(("pop",))),
                    min_size=1, max_size=120))
@settings(max_examples=60, deadline=None, derandomize=True, database=None)
def test_every_ticket_waits_within_its_bound(weights, ops):
    srv = fleet_server.shared()
    key = ("redis-py", srv.port)
    if key not in _conns:
        _conns[key] = srv.client()
    q = FleetLaneQueue(_conns[key], fleet_server.fresh_name("kbound"), 1000)
    w = dict((k, weights[k % len(weights)]) for k in range(6))
    for k, v in w.items():
        if v != 1:
            q.set_lane(k, weight=v)
    queued = dict((k, []) for k in w)
    info = {}
    series = []  # after each pop: the sum of the weights of the lanes with a queued ticket
    n = 0

    def active():
        return sum(w[k] for k in w if queued[k])

    def pop():
        i = q.pop()
        k = q.last_lane
        assert queued[k][0] == i  # FIFO inside the lane
        at, j, s0 = info.pop(i)
        s = max([s0] + series[at:]) - w[k]
        wait = len(series) - at
        assert wait <= (j // w[k] + 1) * s + j, (k, wait, j, s, w)
        queued[k].pop(0)
        series.append(active())

    for op in ops:
        if op[0] == "push":
            n += 1
            k = op[1]
            q.push(n, 1, k)
            info[n] = (len(series), len(queued[k]), active() + (0 if queued[k] else w[k]))
            queued[k].append(n)
        elif info:
            pop()
    while info:
        pop()
    q.destroy()

# Leases and dead letters as a model (CPython only: hypothesis and a real redis-server).
# A plain Python model written from docs/fleet-delivery.md's promises, not from the Lua: a leased
# pop moves the ticket out of the queue (it still counts against the capacity) and raises
# its delivery count; ack ends it; release, or the lease running out, puts it back in its
# ORIGINAL place (class and sequence), or onto the dead-letter list once it has been
# delivered max_deliveries times; a token of an earlier delivery (the ticket came back, or
# was leased again since) changes nothing; dead(n) takes the oldest letters; clear drops
# queued and leased tickets and keeps the letters. Hypothesis drives the model and a
# FleetQueue with the same streams, through redis-py and through the board client.
# An expiry is real: the lease is cut to 1 ms of the server's clock (touch) and the test
# waits it out; the next call returns it (every call first returns expired leases).
# On MicroPython this module is reported as skipped (cannot import hypothesis).
import collections
import time

from hypothesis import settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

import fleet_server
from support import raises
from ticketq import QueueFull, QueueEmpty
from ticketq.fleet import FleetQueue

M30 = 1 << 30
LONG = 600000  # a lease that does not run out during a test unless cut short
seen = collections.Counter()  # what the streams exercised: a run that missed a case fails


class Model:
    def __init__(self, cap, first, maxdel):
        self.cap, self.first, self.maxdel = cap, first, maxdel
        self.n = 0  # pushes so far: the counter
        self.queued = []  # (class, counter, id)
        self.leased = {}  # token -> (class, counter, id)
        self.deliv = {}  # counter -> deliveries so far
        self.dead_list = []  # (id, class, seq, deliveries)

    def seq(self, n):
        return (self.first + n) % M30

    def push(self, i, c):
        if len(self.queued) + len(self.leased) >= self.cap:
            return QueueFull
        self.queued.append((c, self.n, i))
        self.n += 1
        return self.seq(self.n - 1)

    def order(self):
        return sorted(self.queued, key=lambda t: (-t[0], t[1]))

    def pop(self):
        # the next ticket, out of the queue, and its delivery count (this one included)
        if not self.queued:
            return None
        t = self.order()[0]
        self.queued.remove(t)
        self.deliv[t[1]] = self.deliv.get(t[1], 0) + 1
        return t, self.deliv[t[1]]

    def done(self, t):
        self.deliv.pop(t[1], None)

    def give_back(self, token):
        t = self.leased.pop(token)
        d = self.deliv[t[1]]
        if self.maxdel and d >= self.maxdel:
            self.dead_list.append((t[2], t[0], self.seq(t[1]), d))
            self.done(t)
            return 2
        self.queued.append(t)
        return 1


class LeaseModel(RuleBasedStateMachine):
    conn = None  # "redis-py" or "resp"

    @initialize(cap=st.integers(1, 8), first=st.one_of(st.integers(0, 50), st.integers(M30 - 40, M30 - 1)),
                maxdel=st.sampled_from([0, 1, 1, 2, 2, 3]))
    def setup(self, cap, first, maxdel):
        srv = fleet_server.shared()
        conn = srv.client() if self.conn == "redis-py" else srv.resp()
        self.m = Model(cap, first, maxdel)
        self.f = FleetQueue(conn, fleet_server.fresh_name("lmodel"), cap, first, 0, maxdel)
        self.stale = []  # tokens of deliveries that ended

    def pop_both(self, lease):
        got = self.m.pop()
        if got is None:
            raises(QueueEmpty, self.f.pop, lease)
            return None
        (c, n, i), d = got
        assert (self.f.pop(lease), self.f.last_priority, self.f.last_seq, self.f.last_deliveries) == (
            i, c, self.m.seq(n), d)
        return (c, n, i)

    def push(self, data):
        for i, c in data.draw(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 3)), min_size=1, max_size=3)):
            want = self.m.push(i, c)
            if want is QueueFull:
                raises(QueueFull, self.f.push, i, c)
                seen["full, with leases"] += bool(self.m.leased)
            else:
                assert self.f.push(i, c) == want

    def pop(self, data):
        t = self.pop_both(0)
        seen["pop" if t else "pop empty"] += 1
        if t:
            self.m.done(t)

    def lease(self, data):
        for _ in range(data.draw(st.integers(1, 2))):
            t = self.pop_both(LONG)
            if t:
                assert self.f.last_lease not in self.m.leased
                self.m.leased[self.f.last_lease] = t

    def ack(self, data):
        token = data.draw(st.sampled_from(sorted(self.m.leased)))
        self.m.done(self.m.leased.pop(token))
        assert self.f.ack(token) is True
        self.stale.append(token)

    def release(self, data):
        token = data.draw(st.sampled_from(sorted(self.m.leased)))
        r = self.m.give_back(token)
        assert self.f.release(token) == r
        self.stale.append(token)
        seen["released back" if r == 1 else "released dead"] += 1

    def expire(self, data):
        # The lease runs out by the server's clock; the next call returns it (or buries it).
        token = data.draw(st.sampled_from(sorted(self.m.leased)))
        assert self.f.touch(token, 1) is True
        time.sleep(0.005)
        seen["expired back" if self.m.give_back(token) == 1 else "expired dead"] += 1
        self.stale.append(token)

    def late(self, data):
        # A token of a delivery that ended is fenced off: nothing changes.
        token = data.draw(st.sampled_from(self.stale))
        how = ("ack", "release", "touch")[len(self.stale) % 3]
        seen["late " + how] += 1
        if how == "ack":
            assert self.f.ack(token) is False
        elif how == "release":
            assert self.f.release(token) == 0
        else:
            assert self.f.touch(token, LONG) is False

    def remove(self, data):
        i = data.draw(st.integers(0, 6))
        seen["remove"] += 1
        mine = [t for t in self.m.queued if t[2] == i]
        want = bool(mine)
        if mine:
            t = min(mine, key=lambda t: t[1])
            self.m.queued.remove(t)
            self.m.done(t)
        assert self.f.remove(i) is want

    def dead(self, data):
        n = data.draw(st.integers(1, 3))
        want, self.m.dead_list = self.m.dead_list[:n], self.m.dead_list[n:]
        assert self.f.dead(n) == want
        seen["dead letters taken"] += len(want)
        seen["takes of 2+ letters"] += len(want) >= 2

    def clear(self, data):
        seen["clear"] += 1
        self.stale.extend(self.m.leased)
        self.m.queued, self.m.leased, self.m.deliv = [], {}, {}
        self.f.clear()

    @rule(data=st.data())
    def step(self, data):
        # One rule that draws the next operation with weights that follow the state, so every
        # stream mixes them (hypothesis would turn whole rules off in some streams): a full
        # queue is drained more than filled, held leases end in every way, letters are taken
        # mostly once several have piled up (their order shows), clear is rare.
        m = self.m
        ops = ["push"] * (1 if len(m.queued) + len(m.leased) >= m.cap else 4)
        if m.queued:
            ops += ["pop"] + ["lease"] * 3 + ["remove"]
        else:
            ops += ["pop", "lease", "remove"]  # empty: QueueEmpty, and remove finds nothing
        if m.leased:
            ops += ["ack", "release", "release", "expire", "expire"]
        if self.stale:
            ops += ["late"]
        if len(m.dead_list) >= 2 or (m.dead_list and data.draw(st.integers(0, 3)) == 0):
            ops += ["dead"] * 2
        if data.draw(st.integers(0, 24)) == 0:
            ops += ["clear"]
        op = data.draw(st.sampled_from(ops))
        getattr(self, op)(data)

    @invariant()
    def agree(self):
        if not hasattr(self, "f"):
            return
        f, m = self.f, self.m
        assert f.tickets() == [(i, c, m.seq(n), False) for c, n, i in m.order()]
        info = f.info()
        assert (info["queued"], info["leased"], info["dead"]) == (len(m.queued), len(m.leased), len(m.dead_list))
        assert f.full() == (len(m.queued) + len(m.leased) >= m.cap)

    def teardown(self):
        if hasattr(self, "f"):
            self.f.destroy()


FLOORS = {"released back": 30, "released dead": 10, "expired back": 20, "expired dead": 10,
          "late ack": 10, "late release": 10, "late touch": 10, "dead letters taken": 30,
          "takes of 2+ letters": 5, "full, with leases": 20, "pop empty": 10, "remove": 20,
          "clear": 5}


def run(conn, examples):
    seen.clear()
    machine = type("LeaseModel" + conn.title().replace("-", ""), (LeaseModel,), {"conn": conn})
    # derandomize: the same streams every run, so the floors below are a fixed check of the
    # mix, not a dice roll (hypothesis turns rules off at random per stream: swarm testing).
    run_state_machine_as_test(machine, settings=settings(max_examples=examples, stateful_step_count=40,
                                                         deadline=None, derandomize=True, database=None))
    short = dict((k, seen[k]) for k in FLOORS if seen[k] < FLOORS[k])
    assert not short, "the streams did not exercise: %r (all: %r)" % (short, dict(seen))


def test_leases_and_dead_letters_redis_py():
    run("redis-py", 100)


def test_leases_and_dead_letters_board_client():
    run("resp", 60)

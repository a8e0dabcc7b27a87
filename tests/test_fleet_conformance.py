# Conformance (CPython only: hypothesis and a real redis-server): hypothesis drives a
# ticketq.TicketQueue and a ticketq.fleet.FleetQueue with the same random operation
# streams, good and bad arguments mixed, and every answer must be the same: ids popped,
# classes, sequence numbers, full and empty, the exception and its message, the digest,
# the aging promotions (seen through a Trace) and the whole queue in pop order. Only
# TicketQueue's public API is used, so the reference may change inside freely.
# The fleet side runs through redis-py and through the board client (ticketq.resp) on
# CPython; the unix port runs the board client in test_fleet_board.py.
# The streams go between full and empty: a full queue is pushed at on one step in four,
# an empty one popped on one in three, clear is rare; the op mix of each run is counted
# and must reach floors (full, empty, remove found and not, bad input, clear) and stay
# under ceilings (clears, refused pushes), with derandomized streams so that is fixed.
# On MicroPython this module is reported as skipped (cannot import hypothesis).
from hypothesis import settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from hypothesis.stateful import run_state_machine_as_test

import collections
from enum import IntEnum

import ticketq.audit as audit
from ticketq import TicketQueue, QueueFull, QueueEmpty
from ticketq.fleet import FleetQueue
import fleet_server

M30 = 1 << 30


class Cls(IntEnum):  # an int subclass, as an application would name its classes
    LOW = 0
    CRITICAL = 3


GOOD_ID = st.integers(0, 12) | st.just(M30 - 1)
BAD = st.sampled_from([-1, M30, 2 ** 40, -2 ** 40, True, False, 1.0, "3", None, b"1", Cls.CRITICAL])
GOOD_CLASS = st.integers(0, 3)
BAD_CLASS = st.sampled_from([-1, 4, 2 ** 31, 2.0, "1", None, True, False, Cls.LOW])


_conns = {}  # one connection of each kind for the whole run
seen = collections.Counter()  # "<call>:<outcome>" over a whole run: the op mix (floors below)


def outcome(fn, *args):
    # What a call did, comparable across the two queues: ("ok", value) or the exception's
    # type and message (bad arguments must be refused with the same words; LaneFull, a
    # QueueFull, by its type and its message, which names the lane).
    try:
        return ("ok", fn(*args))
    except (QueueFull, QueueEmpty, TypeError, ValueError) as e:
        return (type(e).__name__, str(e))


def _steps(self):
    return getattr(self, "steps", 0)


def room(self):
    # Push rules run when the queue has room, and on one step in four when it is full: a
    # full queue is drained more than it is pushed at, so the streams go between full and
    # empty instead of sitting at full. (steps: counted by the invariant, after every step.)
    return not hasattr(self, "t") or len(self.t) < self.t.capacity or _steps(self) % 4 == 0


def work(self):
    # Pop and peek rules run when something is queued, and on one step in three when
    # nothing is: QueueEmpty is checked, without streams that pop an empty queue again and
    # again.
    return not hasattr(self, "t") or len(self.t) > 0 or _steps(self) % 3 == 0


def rarely(self):
    # clear: on one step in twelve, and only with something to clear.
    return hasattr(self, "t") and len(self.t) > 0 and _steps(self) % 12 == 7


class Conformance(RuleBasedStateMachine):
    conn = None  # "redis-py" or "resp", set by the subclasses below

    @initialize(cap=st.integers(1, 8), first=st.one_of(st.integers(0, 50), st.integers(M30 - 60, M30 - 1)),
                aging=st.sampled_from([0, 0, 1, 2, 3, 5]))
    def setup(self, cap, first, aging):
        srv = fleet_server.shared()
        conn = self.connection(srv)
        self.t = TicketQueue(cap, first, aging)
        self.f = FleetQueue(conn, fleet_server.fresh_name("conf"), cap, first, aging)
        self.t.trace = audit.Trace(64)
        self.f.trace = audit.Trace(64)

    def connection(self, srv):
        key = (self.conn, srv.port)
        if key not in _conns:
            _conns[key] = srv.client() if self.conn == "redis-py" else srv.resp()
        return _conns[key]

    def last(self):
        # The last pop's fields agree (the lanes machine adds last_lane).
        return (self.t.last_priority, self.t.last_seq) == (self.f.last_priority, self.f.last_seq)

    def same(self, name, *args):
        a = outcome(getattr(self.t, name), *args)
        b = outcome(getattr(self.f, name), *args)
        assert a == b, "%s%r: TicketQueue %r, FleetQueue %r" % (name, args, a, b)
        seen["%s:%s" % (name, a[0] if a[0] != "ok" or name != "remove" else a[1])] += 1
        return a

    @precondition(room)
    @rule(i=GOOD_ID, c=GOOD_CLASS)
    def push(self, i, c):
        self.same("push", i, c)

    @precondition(room)
    @rule(batch=st.lists(st.tuples(GOOD_ID, GOOD_CLASS), min_size=2, max_size=6))
    def push_several(self, batch):
        # Several classes queued at once: what aging and the class bands need to matter.
        for i, c in batch:
            if self.same("push", i, c)[0] != "ok":
                break  # full: refused once is enough

    @precondition(room)
    @rule(i=GOOD_ID | BAD, c=GOOD_CLASS | BAD_CLASS)
    def push_any(self, i, c):
        self.same("push", i, c)

    @precondition(work)
    @rule()
    def pop(self):
        if self.same("pop")[0] == "ok":
            assert self.last()

    @precondition(work)
    @rule()
    def pop_leased_then_ack(self):
        # A leased pop that is acked is a pop: the same ticket, digest and aging step (and, in
        # a lane queue, cursor).
        a = outcome(self.t.pop)
        b = outcome(self.f.pop, 60000)
        assert a == b
        seen["pop leased:" + a[0]] += 1
        if a[0] == "ok":
            assert self.f.last_deliveries == 1
            assert self.f.ack(self.f.last_lease) is True
            assert self.f.ack(self.f.last_lease) is False  # done once only
            assert self.last()

    @precondition(work)
    @rule()
    def peek(self):
        self.same("peek")

    @rule(i=GOOD_ID | BAD)
    def remove(self, i):
        self.same("remove", i)

    @precondition(rarely)
    @rule()
    def clear(self):
        self.same("clear")
        assert self.last()

    @invariant()
    def agree(self):
        if not hasattr(self, "f"):
            return
        self.steps = _steps(self) + 1
        assert len(self.t) == len(self.f)
        assert self.t.full() == self.f.full()
        assert self.t.digest == self.f.digest
        assert self.t.capacity == self.f.capacity
        assert audit.tickets(self.t) == [x[:3] for x in self.f.tickets()]
        assert self.t.trace.entries() == self.f.trace.entries()

    def teardown(self):
        if hasattr(self, "f"):
            self.f.destroy()


# The op mix a run must reach (each a floor on "<call>:<outcome>" counts over the run's
# streams): full and empty, found and not found, bad input refused, clear. derandomize: the
# same streams every run, so the floors are a fixed check, not a dice roll.
FLOORS = {"push:ok": 300, "push:QueueFull": 40, "push:TypeError": 20, "push:ValueError": 20,
          "pop:ok": 100, "pop:QueueEmpty": 10, "pop leased:ok": 40, "pop leased:QueueEmpty": 10,
          "peek:ok": 30, "peek:QueueEmpty": 10, "remove:True": 20, "remove:False": 20,
          "remove:TypeError": 5, "clear:ok": 5}


def check_run(machine, conn, examples, floors):
    seen.clear()
    run_state_machine_as_test(
        type(machine.__name__ + conn.title().replace("-", ""), (machine,), {"conn": conn}),
        settings=settings(max_examples=examples, stateful_step_count=50, deadline=None, derandomize=True,
                          database=None))
    short = dict((k, seen[k]) for k in floors if seen[k] < floors[k])
    assert not short, "the streams never reached: %r (all: %r)" % (short, dict(seen))
    # ... and did not sit at full or keep starting again: clear is rare, and a full queue is
    # drained more than pushed at (before the preconditions: 15% clears, 47% refused pushes).
    steps = sum(seen.values())
    pushes = sum(v for k, v in seen.items() if k.startswith("push:") and not k.endswith("Error"))
    assert seen["clear:ok"] <= steps * 0.05, dict(seen)
    assert seen["push:QueueFull"] + seen["push:LaneFull"] <= pushes * 0.4, dict(seen)


def both_clients(machine, floors):
    # Two tests: the machine through redis-py and through the board client on CPython (80
    # streams each), each checking its op mix; also test_fleet_lanes_conformance's.
    def redis_py():
        check_run(machine, "redis-py", 80, floors)

    def board_client():
        check_run(machine, "resp", 80, floors)

    return redis_py, board_client


test_conformance_redis_py, test_conformance_board_client = both_clients(Conformance, FLOORS)


def test_constructor_errors_are_ticketqueues():
    # The same TypeError/ValueError, with the same words, for the same bad settings; and
    # nothing is created on the server by a refused one.
    srv = fleet_server.shared()
    conn = srv.client()
    bad = [(0, 0, 0), (-1, 0, 0), (2 ** 24 + 1, 0, 0), (1.5, 0, 0), ("8", 0, 0), (True, -1, 0),
           (8, -1, 0), (8, M30, 0), (8, 0.0, 0), (8, 0, -1), (8, 0, M30), (8, 0, "2")]
    for cap, first, aging in bad:
        name = fleet_server.fresh_name("ctor")
        a = outcome(TicketQueue, cap, first, aging)
        b = outcome(FleetQueue, conn, name, cap, first, aging)
        assert a[0] != "ok" and a == b, (cap, first, aging, a, b)
        assert conn.keys("*{%s}*" % name) == []

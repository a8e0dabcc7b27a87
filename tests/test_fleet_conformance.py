# Conformance (CPython only: hypothesis and a real redis-server): hypothesis drives a
# ticketq.TicketQueue and a ticketq_fleet.FleetQueue with the same random operation
# streams, good and bad arguments mixed, and every answer must be the same: ids popped,
# classes, sequence numbers, full and empty, the exception and its message, the digest,
# the aging promotions (seen through a Trace) and the whole queue in pop order. Only
# TicketQueue's public API is used, so the reference may change inside freely.
# The fleet side runs through redis-py and through the board client (ticketq_resp) on
# CPython; the unix port runs the board client in test_fleet_board.py.
# On MicroPython this module is reported as skipped (cannot import hypothesis).
from hypothesis import settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from enum import IntEnum

import ticketq_audit
from ticketq import TicketQueue, QueueFull, QueueEmpty
from ticketq_fleet import FleetQueue
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


def outcome(fn, *args):
    # What a call did, comparable across the two queues: ("ok", value) or the exception's
    # type and message (bad arguments must be refused with the same words; LaneFull, a
    # QueueFull, by its type and its message, which names the lane).
    try:
        return ("ok", fn(*args))
    except (QueueFull, QueueEmpty, TypeError, ValueError) as e:
        return (type(e).__name__, str(e))


class Conformance(RuleBasedStateMachine):
    conn = None  # "redis-py" or "resp", set by the subclasses below

    @initialize(cap=st.integers(1, 8), first=st.one_of(st.integers(0, 50), st.integers(M30 - 60, M30 - 1)),
                aging=st.sampled_from([0, 0, 1, 2, 3, 5]))
    def setup(self, cap, first, aging):
        srv = fleet_server.shared()
        conn = self.connection(srv)
        self.t = TicketQueue(cap, first, aging)
        self.f = FleetQueue(conn, fleet_server.fresh_name("conf"), cap, first, aging)
        self.t.trace = ticketq_audit.Trace(64)
        self.f.trace = ticketq_audit.Trace(64)

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
        return a

    @rule(i=GOOD_ID, c=GOOD_CLASS)
    def push(self, i, c):
        self.same("push", i, c)

    @rule(batch=st.lists(st.tuples(GOOD_ID, GOOD_CLASS), min_size=2, max_size=6))
    def push_several(self, batch):
        # Several classes queued at once: what aging and the class bands need to matter.
        for i, c in batch:
            self.same("push", i, c)

    @rule(i=GOOD_ID | BAD, c=GOOD_CLASS | BAD_CLASS)
    def push_any(self, i, c):
        self.same("push", i, c)

    @rule()
    def pop(self):
        if self.same("pop")[0] == "ok":
            assert self.last()

    @rule()
    def pop_leased_then_ack(self):
        # A leased pop that is acked is a pop: the same ticket, digest and aging step (and, in
        # a lane queue, cursor).
        a = outcome(self.t.pop)
        b = outcome(self.f.pop, 60000)
        assert a == b
        if a[0] == "ok":
            assert self.f.last_deliveries == 1
            assert self.f.ack(self.f.last_lease) is True
            assert self.f.ack(self.f.last_lease) is False  # done once only
            assert self.last()

    @rule()
    def peek(self):
        self.same("peek")

    @rule(i=GOOD_ID | BAD)
    def remove(self, i):
        self.same("remove", i)

    @rule()
    def clear(self):
        self.same("clear")
        assert self.last()

    @invariant()
    def agree(self):
        if not hasattr(self, "f"):
            return
        assert len(self.t) == len(self.f)
        assert self.t.full() == self.f.full()
        assert self.t.digest == self.f.digest
        assert self.t.capacity == self.f.capacity
        assert ticketq_audit.tickets(self.t) == [x[:3] for x in self.f.tickets()]
        assert self.t.trace.entries() == self.f.trace.entries()

    def teardown(self):
        if hasattr(self, "f"):
            self.f.destroy()


def both_clients(machine):
    # The machine's test cases through redis-py (80 examples) and through the board client
    # on CPython (40); also test_fleet_lanes_conformance's.
    out = []
    for conn, n in (("redis-py", 80), ("resp", 40)):
        case = type(machine.__name__ + conn.title().replace("-", ""), (machine,), {"conn": conn}).TestCase
        case.settings = settings(max_examples=n, stateful_step_count=50, deadline=None)
        out.append(case)
    return out


test_conformance_redis_py, test_conformance_board_client = both_clients(Conformance)


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

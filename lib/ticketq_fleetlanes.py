# ticketq_fleetlanes: ticketq_lanes.LaneQueue's contract kept in Redis or Valkey: fair lanes
# for a fleet's shared backlog, the same rule as on a board, so the same operations pop the
# same tickets with the same digest. Full documentation: ticketq_fleetlanes.pyi, docs/lanes.md
# ("The fleet tier") and docs/fleet.md; run-time docstrings are kept out (RAM on a board).
#
# A FleetQueue (leases, replay of lost replies, pop_until, dead letters: all inherited)
# whose server functions are lanes.lua's: lopen, lpush, lpop, lpeek, lanes, ltickets. The
# lane table is computed by the server from the weights (one table for every client, however
# it talks to the server); this module checks arguments with ticketq_lanes' own checkers
# (the same TypeError/ValueError, the same words, before anything is sent), raises LaneFull
# and QueueFull as LaneQueue does, and reads the replies. Not for the micro:bit: no socket.
from ticketq_heap import _int
from ticketq_base import QueueFull
from ticketq_lanes import LaneFull, _lane_full, _weights, _bounds  # noqa: F401 (LaneFull: API)
from ticketq_fleet import FleetQueue, FleetError, _MASK, _text


def _no_batch(what):
    # The batch calls are a plain queue's: a lane queue's pop follows its lane table one
    # ticket at a time (lanes.lua), so they are refused before anything is sent.
    return FleetError("TQKIND ticketq: %s is FleetQueue's only: a lane queue (FleetLaneQueue) "
                      "pushes, pops and acks one ticket per call" % what)


def _ints(v):
    # "3,1,2" (bytes or str) -> (3, 1, 2)
    return tuple([int(x) for x in _text(v).split(",")])


def _csv(v):
    return ",".join([str(x) for x in v])


class FleetLaneQueue(FleetQueue):
    _L = "l"
    _COLON = 26

    def __init__(self, conn, name, capacity=None, weights=None, lane_capacity=None, first_seq=0,
                 aging=0, max_deliveries=8, prefix="tq", retries=3, slice_ms=2000):
        if capacity is None:
            if weights is not None or lane_capacity is not None:
                raise ValueError("weights and lane capacity need a capacity (without one the "
                                 "queue's own settings are taken)")
            self._lanes_args = ("", "")
        else:
            _int(capacity, 1, 0x1000000, "capacity")
            w = _weights(weights)  # None: LaneQueue's TypeError, which says what to pass
            self._lanes_args = (_csv(w), _csv(_bounds(lane_capacity, int(capacity), len(w))))
        self.last_lane = -1
        FleetQueue.__init__(self, conn, name, capacity, first_seq, aging, max_deliveries, prefix,
                            retries, slice_ms)

    def _open(self, args):
        r = self._call("lopen", args + self._lanes_args)
        self.weights = _ints(r[5])
        self.lane_capacity = _ints(r[6])
        self.lanes = len(self.weights)
        t = r[7]
        if not isinstance(t, bytes):
            t = t.encode()
        # The server's table: one base-32 digit a lane, as ticketq_lanes.table's entries.
        self.table = bytearray([c - 48 if c < 58 else c - 87 for c in t])
        return r

    def push(self, job_id, priority, lane=0):
        _int(job_id, 0, _MASK, "job id")
        _int(priority, 0, 3, "priority")
        _int(lane, 0, self.lanes - 1, "lane")
        s = self._call("lpush", (int(job_id), int(priority), int(lane)), True)
        if s == -1:
            raise QueueFull("ticket queue full")
        if s == -2:
            raise _lane_full(int(lane), self.lane_capacity[lane])
        return s

    def push_many(self, items):
        raise _no_batch("push_many")

    def pop_many(self, count, lease_ms=0):
        raise _no_batch("pop_many")

    def ack_pop(self, tokens, count=1, lease_ms=0):
        raise _no_batch("ack_pop")

    def _popped(self, r):
        self.last_lane = r[7]
        FleetQueue._popped(self, r)

    def clear(self):
        FleetQueue.clear(self)
        self.last_lane = -1

    def lane_info(self):
        r = self._call("lanes")
        n = self.lanes
        return {"cursors": tuple(r[:4]), "queued": tuple([r[4 + 2 * l] for l in range(n)]),
                "held": tuple([r[5 + 2 * l] for l in range(n)])}

    def lane_len(self, lane):
        _int(lane, 0, self.lanes - 1, "lane")
        return self._call("lanes")[4 + 2 * lane]

    def tickets(self):
        r = self._call("ltickets")
        return [(r[j], r[j + 1], r[j + 2], r[j + 3] == 1, r[j + 4]) for j in range(0, len(r), 5)]

    def __repr__(self):
        i = self.info()
        h = self.lane_info()["held"]
        return "<FleetLaneQueue %s %d/%d CRITICAL=%d HIGH=%d NORMAL=%d LOW=%d leased=%d lanes=%s>" % (
            self.keys[0][:-5], i["queued"], i["capacity"], i["classes"][3], i["classes"][2],
            i["classes"][1], i["classes"][0], i["leased"],
            ",".join(["%d/%d" % (h[l], self.lane_capacity[l]) for l in range(self.lanes)]))

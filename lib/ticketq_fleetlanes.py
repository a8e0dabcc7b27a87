# ticketq_fleetlanes: ticketq_lanes.LaneQueue's contract kept in Redis or Valkey: fair lanes
# for a fleet's shared backlog, the same rule as on a board, so the same operations pop the
# same tickets with the same digest. Documentation: the docstrings below (help(), editors;
# the .pyi stubs carry the types), docs/lanes.md ("The fleet tier") and docs/fleet.md.
#
# A FleetQueue (leases, replay of lost replies, pop_until, dead letters: all inherited)
# whose server functions are lanes.lua's: lopen, lpush, lpop, lpeek, lanes, ltickets. The
# lane table is computed by the server from the weights (one table for every client, however
# it talks to the server); this module checks arguments with ticketq_lanes' own checkers
# (the same TypeError/ValueError, the same words, before anything is sent), raises LaneFull
# and QueueFull as LaneQueue does, and reads the replies. Not for the micro:bit: no socket.
"""ticketq_fleetlanes: ticketq_lanes.LaneQueue's contract kept in Redis or Valkey (7.0 or
later): fair lanes on a fleet's shared backlog. Guides: docs/lanes.md ("The fleet tier"),
docs/fleet.md (servers, keys, leases).

The rule is LaneQueue's, step for step, run in the server (fleet/lanes.lua): higher class
first; within a class the lane table (W = sum(weights) entries, the pfair/EDF table of
``ticketq_lanes.table``) is read as a ring from the class's cursor to the first entry whose
lane has a ticket of that class; that lane's oldest ticket pops and the cursor moves just
past that entry. FIFO inside a lane by the sequence number the server assigns; no clock.
Fed the same operations, a FleetLaneQueue and a LaneQueue pop the same tickets, with the
same sequence numbers, lanes, digest and errors (tests/test_fleet_lanes_conformance.py
drives both with hypothesis, through redis-py and through the board client).

The table is computed by the server from the weights, once, at creation (O(W * lanes),
~0.15 s for 30 lanes and W = 32760), so every client, whatever it is, gets the same one;
``table`` holds it as the server sent it, and the tests compare it with
``ticketq_lanes.table`` for many weight vectors.

Everything of FleetQueue is inherited: leases on the server's clock (ack, release, touch),
redelivery counts, dead letters, pop_until with a Deadline, replay of lost replies,
``info``, ``dead``, ``destroy``, ``remove`` (the oldest queued ticket of an id, in any
lane and class).

Leases and the rotation: the class's cursor moves at the pop, leased or not (as the digest,
the pop count and aging do). A lease that ends without an ack (it ran out, or release) puts
the ticket back into its lane's FIFO of its class at its sequence place and moves no cursor:
the lane gets no extra turn, and the ticket, now its lane's oldest, takes the lane's next
turn. A leased ticket counts against its lane's bound as against the capacity (it may come
back). With no lease outstanding at the time of each pop, the pops are LaneQueue's.

Differences from LaneQueue: capacity up to 2**24 (LaneQueue: 32767, its links are 16-bit);
sequence numbers stay exact where a board renumbers (docs/fleet.md); each call is a network
round trip and allocates (not for a heap_lock'ed hot path). Not for the micro:bit.
"""
from ticketq_core import _int, QueueFull
from ticketq_lanes import LaneFull, _lane_full, _weights, _bounds  # noqa: F401 (LaneFull: API)
from ticketq_fleet import FleetQueue, FleetError, _MASK, _text

import ticketq_lanes


# the board's keyed lanes (issue 24) define LanesFull: then one class for both
if hasattr(ticketq_lanes, "LanesFull"):
    LanesFull = getattr(ticketq_lanes, "LanesFull")
else:
    class LanesFull(QueueFull):
        pass

# Keyed lanes (fleet/keyed.lua): the functions a keyed queue's calls go to, and its two
# more keys (the rings, the lanes hash), after the ten of every queue.
_KEYED = {"client": "kclient", "lpop": "kpop", "lpeek": "kpeek", "remove": "kremove",
          "info": "kinfo", "clear": "kclear", "destroy": "kdestroy", "ack": "kack",
          "release": "krelease", "touch": "ktouch", "dead": "kdead"}
_KEYMAX = 64
_HEX = "0123456789abcdef"


def _key(lane):
    # A lane key as sent: an int 0..2**30-1 as its decimal, a str of 1..64 UTF-8 bytes as
    # is ("7" and 7 are one lane). TypeError/ValueError before anything is sent.
    if isinstance(lane, int) or type(lane) is bool:  # _int's rule: its plain int value
        return str(_int(lane, 0, _MASK, "lane key"))
    if type(lane) is not str:
        raise TypeError("lane key must be int or str, not %s" % type(lane).__name__)
    try:
        n = len(lane.encode("utf-8"))
    except ValueError:  # UnicodeError: a lone surrogate ("\ud800", from os.fsdecode of a bad byte)
        raise ValueError("lane key must be a str of 1..%d UTF-8 bytes, not %r" % (_KEYMAX, lane))
    if n < 1 or n > _KEYMAX:
        raise ValueError("lane key must be a str of 1..%d UTF-8 bytes, not %d" % (_KEYMAX, n))
    return lane


def _shown(k):
    # a key as sent, in a message: an int key as the board writes it (7), a str key quoted
    # ('chat-7'); "7" is lane 7
    if k == "0" or (k[:1] in "123456789" and k.isdigit() and len(k) <= 10 and int(k) <= _MASK):
        return k
    return repr(k)


def _reply_key(v):
    # The server's key: an int (a canonical decimal in range), else the str.
    return v if type(v) is int else _text(v)


def _fold(key):
    # What the digest folds for a key (fleet/keyed.lua fold_of): the int, or for a str
    # h = 5381, h = (h * 33 + byte) mod 2**30 over its UTF-8 bytes.
    if type(key) is int:
        return key
    h = 5381
    for b in key.encode("utf-8"):
        h = (h * 33 + b) % (_MASK + 1)
    return h

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
    """A bounded priority queue of integer job tickets with weighted fair lanes, in Redis.
    """
    _L = "l"
    _COLON = 26

    def __init__(self, conn, name, capacity=None, weights=None, lane_capacity=None, first_seq=0,
                 aging=0, max_deliveries=8, prefix="tq", retries=3, slice_ms=2000,
                 max_lanes=None):
        """Open the lane queue `name`, creating it if it does not exist and a capacity is given.

        capacity: 1..2**24. weights, lane_capacity, first_seq, aging: as LaneQueue's (the same
        checks, the same TypeError/ValueError words, before anything is sent). Without a
        capacity the queue's own settings are taken (ValueError if weights or lane_capacity
        are given then); with one they must match an existing queue's (FleetError
        TQCONFIG). A plain FleetQueue of that name is refused (FleetError TQKIND), and a
        FleetQueue refuses a lane queue the same way. max_deliveries, prefix, retries,
        slice_ms: as FleetQueue's.

        A capacity without weights makes (or opens) a KEYED lane queue (docs/lanes.md,
        "Keyed lanes on the fleet"): a lane per key, made by its first push, gone when it
        holds no ticket. max_lanes 1..2**24 (None: no limit) only then; aging > 0 is
        ValueError "aging needs fixed lanes"; lane_capacity is ValueError (set a key's bound
        with set_lane). Opening by name (no capacity) finds either kind. An existing keyed
        queue with another max_lanes: FleetError TQCONFIG; a fixed lane queue opened as
        keyed (or the other way): TQKIND.
        """
        self.keyed = False
        self._max_lanes = 0
        if max_lanes is not None:
            _int(max_lanes, 1, 0x1000000, "max_lanes")
            if capacity is None or weights is not None:
                raise ValueError("max_lanes is for a new keyed lane queue (a capacity and no "
                                 "weights)")
            self._max_lanes = int(max_lanes)
        if capacity is None:
            if weights is not None or lane_capacity is not None:
                raise ValueError("weights and lane capacity need a capacity (without one the "
                                 "queue's own settings are taken)")
            self._lanes_args = ("", "")
        elif weights is None:
            # keyed lanes (fleet/keyed.lua): a lane per key, made on first push
            _int(capacity, 1, 0x1000000, "capacity")
            if lane_capacity is not None:
                raise ValueError("lane_capacity needs weights (fixed lanes); a keyed lane's "
                                 "bound is set per key: set_lane(key, bound=n)")
            if _int(aging, 0, _MASK, "aging"):
                raise ValueError("aging needs fixed lanes")
            self.keyed = True
        else:
            _int(capacity, 1, 0x1000000, "capacity")
            w = _weights(weights)
            self._lanes_args = (_csv(w), _csv(_bounds(lane_capacity, int(capacity), len(w))))
        self.last_lane = -1
        FleetQueue.__init__(self, conn, name, capacity, first_seq, aging, max_deliveries, prefix,
                            retries, slice_ms)

    def _open(self, args):
        if not self.keyed:
            try:
                return self._open_fixed(args)
            except FleetError as e:
                if not (str(e).startswith("TQKIND") and "keyed" in str(e) and args[0] == 0):
                    raise
            self.keyed = True  # an existing keyed queue, opened by name
        self.keys = self.keys + [self.keys[0][:-4] + "ring", self.keys[0][:-4] + "lanes"]
        if getattr(self, "_kb", None) is not None:  # a FleetQueue that sends its keys encoded
            self._kb = [k.encode() for k in self.keys]
        r = self._call("kopen", args + (self._max_lanes,))
        self.max_lanes = r[5] or None
        self._L = "k"
        return r

    def _args(self, op, args, idem=False):
        if self.keyed:
            op = _KEYED.get(op, op)
        return FleetQueue._args(self, op, args, idem)

    def _open_fixed(self, args):
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
        """Queue a ticket at the tail of its lane in its class; return its sequence number.

        job_id 0..2**30-1, priority 0..3, lane 0..lanes-1 (TypeError/ValueError as
        LaneQueue.push, before anything is sent). QueueFull ("ticket queue full") when queued
        plus leased tickets reach the capacity; LaneFull ("lane 2 full (4 tickets)") when the
        lane's queued plus leased tickets reach its bound; the capacity is checked first; in
        both cases nothing is stored and no sequence number is spent. No cursor moves.
        One round trip; O(log n) in the server.

        Keyed lanes: lane is the key, an int 0..2**30-1 or a str of 1..64 UTF-8 bytes (7 and
        "7" are one lane; TypeError/ValueError before sending). Refusals in this order:
        QueueFull, LaneFull ("lane 'a' full (its bound)"), LanesFull (a new key while
        max_lanes lanes exist). The lane joins the tail of its class's ring if it was not in
        it and is serviceable. O(log n + log L) for L lanes.
        """
        _int(job_id, 0, _MASK, "job id")
        _int(priority, 0, 3, "priority")
        if self.keyed:
            k = _key(lane)
            s = self._call("kpush", (int(job_id), int(priority), k), True)
            if s == -1:
                raise QueueFull("ticket queue full")
            if s == -2:  # the board's words: the bound read back (one more call, only here)
                raise LaneFull("lane %s full (%d tickets)" % (_shown(k), self._call("klane", (k,))[7]))
            if s == -3:
                raise LanesFull("no lane for key %s: max_lanes (%d) lanes exist" % (_shown(k), self.max_lanes))
            return s
        _int(lane, 0, self.lanes - 1, "lane")
        s = self._call("lpush", (int(job_id), int(priority), int(lane)), True)
        if s == -1:
            raise QueueFull("ticket queue full")
        if s == -2:
            raise _lane_full(int(lane), self.lane_capacity[lane])
        return s

    def push_many(self, items):
        """Not for a lane queue: FleetError TQKIND before anything is sent (a lane queue's
        pop follows its lane table one ticket per call; push, pop and ack one at a time).
        """
        raise _no_batch("push_many")

    def pop_many(self, count, lease_ms=0):
        """Not for a lane queue: FleetError TQKIND before anything is sent.
        """
        raise _no_batch("pop_many")

    def ack_pop(self, tokens, count=1, lease_ms=0):
        """Not for a lane queue: FleetError TQKIND before anything is sent.
        """
        raise _no_batch("ack_pop")

    def _popped(self, r):
        if self.keyed:
            self.last_lane = k = _reply_key(r[7])
            r = list(r)
            r[7] = _fold(k)  # the trace records what the digest folds
        else:
            self.last_lane = r[7]
        FleetQueue._popped(self, r)

    def _token(self, token):
        if not self.keyed:
            return FleetQueue._token(self, token)
        if not isinstance(token, (bytes, str)):
            raise TypeError("lease token must be str or bytes (what pop(lease_ms) left in last_lane)")
        t = _text(token)
        # <class 0-3><24 hex digits>.<lane ordinal>:<deliveries>, as keyed.lua writes it
        c = t.find(":")
        a, d = (t, "") if c < 0 else (t[:c], t[c + 1:])
        o = a[26:]
        if (len(a) < 27 or a[0] not in "0123" or a[25] != "."
                or [c for c in a[1:25] if c not in _HEX] or not o.isdigit() or not d.isdigit()):
            raise ValueError("lease token: what pop(lease_ms) left in last_lease")
        return token

    # ---- keyed lanes: per-key settings and inspection

    def _keyed_only(self):
        if not self.keyed:
            raise TypeError("a keyed lane queue's call (this queue has fixed lanes)")

    def set_lane(self, key, weight=None, bound=None, ceiling=None):
        """Keyed lanes: set a key's weight (1..32767, default 1), bound (1..capacity tickets
        queued plus leased, default capacity) and in-flight ceiling (1..capacity leased at
        once, default capacity); None leaves one unchanged. Takes effect at once (a weight at
        the head's next pop; a lane that stops or starts being serviceable leaves or joins
        the rings). Kept for a key without a lane too (one hash field) until all are the
        defaults again. Returns {"weight", "bound", "ceiling", "paused"}. TypeError on a
        fixed lane queue; TypeError/ValueError for bad values, before sending. O(log n + log L).
        """
        self._keyed_only()
        k = _key(key)
        a = [k]
        for v, lo, hi, what in ((weight, 1, 32767, "weight"), (bound, 1, self.capacity, "bound"),
                                (ceiling, 1, self.capacity, "ceiling")):
            a.append("" if v is None else str(_int(v, lo, hi, what)))
        a.append("")
        r = self._call("kset", tuple(a))
        return {"weight": r[0], "bound": r[1], "ceiling": r[2], "paused": r[3] == 1}

    def pause(self, key):
        """Keyed lanes: no ticket of this key pops until resume (they stay queued; leases run
        on). The lane leaves every ring. Remembered for a key with no lane too.
        """
        self._keyed_only()
        self._call("kset", (_key(key), "", "", "", 1))

    def resume(self, key):
        """Keyed lanes: undo pause; the lane joins the tail of each ring where it has a
        queued ticket (no credit kept).
        """
        self._keyed_only()
        self._call("kset", (_key(key), "", "", "", 0))

    def lane(self, key):
        """Keyed lanes: {"exists", "queued": (LOW, NORMAL, HIGH, CRITICAL), "leased", "held",
        "weight", "bound", "ceiling", "paused"} of one key. O(log n).
        """
        self._keyed_only()
        r = self._call("klane", (_key(key),))
        return {"exists": r[0] == 1, "queued": tuple(r[1:5]), "leased": r[5], "held": sum(r[1:6]),
                "weight": r[6], "bound": r[7], "ceiling": r[8], "paused": r[9] == 1}

    def busiest(self, n=10, step=1000):
        """Keyed lanes: the n lanes holding the most tickets, [{"key", "queued", "leased"}],
        most first, ties by the key's text. Walks every lane in server calls of `step`
        (HSCAN): O(L), for operators, not a hot path.
        """
        self._keyed_only()
        _int(n, 1, 0x1000000, "n")
        _int(step, 1, 100000, "step")
        out = []
        cur = "0"
        while 1:
            r = self._call("kscan", (cur, step))
            cur = _text(r[0])
            for j in range(1, len(r), 3):
                out.append((r[j + 1] + r[j + 2], r[j + 1], r[j + 2], _reply_key(r[j])))
            out.sort(key=lambda x: (-x[0], str(x[3])))
            del out[n:]
            if cur == "0":
                break
        return [{"key": x[3], "queued": x[1], "leased": x[2]} for x in out]

    def clear(self):
        """Drop every queued and leased ticket; reset digest, aging count, last_* and every
        cursor (the schedule after clear() is a new queue's). The sequence goes on.
        """
        FleetQueue.clear(self)
        self.last_lane = -1

    def lane_info(self):
        """{"cursors": the table entry each class's next scan starts at (LOW .. CRITICAL),
        "queued": per lane, tickets queued, "held": per lane, queued plus leased (what its
        bound counts)}. Keyed lanes: {"lanes": lanes holding tickets now, "max_lanes"}.
        """
        if self.keyed:
            r = self._call("kinfo")
            return {"lanes": r[10], "max_lanes": r[11] or None}
        r = self._call("lanes")
        n = self.lanes
        return {"cursors": tuple(r[:4]), "queued": tuple([r[4 + 2 * l] for l in range(n)]),
                "held": tuple([r[5 + 2 * l] for l in range(n)])}

    def lane_len(self, lane):
        """Tickets of this lane queued now (not leased), all classes. TypeError/ValueError
        for an unknown lane, before anything is sent. Keyed lanes: lane is a key (0 for a
        key with no lane).
        """
        if self.keyed:
            return sum(self._call("klane", (_key(lane),))[1:5])
        _int(lane, 0, self.lanes - 1, "lane")
        return self._call("lanes")[4 + 2 * lane]

    def tickets(self):
        """Every queued ticket in pop order (were nothing pushed and aging off): (id, class,
        seq, promoted, lane); ticketq_audit.tickets of a LaneQueue gives (id, class, seq,
        lane) in the same order. O(n * lanes + W) in the server. Keyed lanes: (id, class,
        seq, False, key) of the tickets of serviceable lanes, in the order pops would take
        them (ticketq_audit.tickets of a keyed LaneQueue gives (id, class, seq, key));
        tickets of paused lanes or lanes at their ceiling are not listed. O(n + L).
        """
        if self.keyed:
            r = self._call("ktickets")
            return [(r[j], r[j + 1], r[j + 2], False, _reply_key(r[j + 4])) for j in range(0, len(r), 5)]
        r = self._call("ltickets")
        return [(r[j], r[j + 1], r[j + 2], r[j + 3] == 1, r[j + 4]) for j in range(0, len(r), 5)]

    def __repr__(self):
        i = self.info()
        if self.keyed:
            return "<FleetLaneQueue %s keyed %d/%d lanes=%d leased=%d>" % (
                self.keys[0][:-5], i["queued"], i["capacity"], self.lane_info()["lanes"], i["leased"])
        h = self.lane_info()["held"]
        return "<FleetLaneQueue %s %d/%d CRITICAL=%d HIGH=%d NORMAL=%d LOW=%d leased=%d lanes=%s>" % (
            self.keys[0][:-5], i["queued"], i["capacity"], i["classes"][3], i["classes"][2],
            i["classes"][1], i["classes"][0], i["leased"],
            ",".join(["%d/%d" % (h[l], self.lane_capacity[l]) for l in range(self.lanes)]))

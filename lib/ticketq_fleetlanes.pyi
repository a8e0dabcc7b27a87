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

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from ticketq_fleet import FleetQueue, Job, Token
from ticketq_lanes import LaneFull as LaneFull
from ticketq_base import QueueFull


class LanesFull(QueueFull):
    """A push for a new key while ``max_lanes`` keyed lanes hold tickets (nothing changed).
    ticketq_lanes' own class when the board's keyed lanes define one, else this one."""


LaneKey = Union[int, str]


class FleetLaneQueue(FleetQueue):
    """A bounded priority queue of integer job tickets with weighted fair lanes, in Redis."""

    lanes: int
    """Number of lanes, 1..30, read from the server."""
    weights: Tuple[int, ...]
    """Each lane's weight (1..32767, sum W <= 32767), read from the server."""
    lane_capacity: Tuple[int, ...]
    """Each lane's bound, 1..capacity tickets, queued plus leased, read from the server."""
    table: bytearray
    """The lane table the server computed: W entries, each a lane (ticketq_lanes.table's)."""
    last_lane: Union[int, str]
    """Lane of the ticket the last pop returned; -1 before the first pop and after clear().
    Keyed lanes: the key, an int for a canonical decimal key 0..2**30-1, else the str."""
    keyed: bool
    """True for a keyed lane queue (made without weights: a lane per key, fleet/keyed.lua);
    then lanes, weights, lane_capacity and table are absent."""
    max_lanes: Optional[int]
    """Keyed lanes: the most lanes at once (LanesFull beyond), None for no limit."""

    def __init__(self, conn: Any, name: str, capacity: Optional[int] = None,
                 weights: Union[None, int, Sequence[int]] = None,
                 lane_capacity: Union[None, int, Sequence[int]] = None, first_seq: int = 0,
                 aging: int = 0, max_deliveries: int = 8, prefix: str = "tq", retries: int = 3,
                 slice_ms: int = 2000, max_lanes: Optional[int] = None) -> None:
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

    def push(self, job_id: int, priority: int, lane: LaneKey = 0) -> int:
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
        it and is serviceable. O(log n + log L) for L lanes."""

    def pop(self, lease_ms: int = 0) -> int:
        """Take the next ticket by the rotation; return its job id and set last_priority,
        last_seq, last_lane, last_deliveries, last_pop (and last_lease when leased); fold it
        into the digest (LaneQueue's fold, lane included). QueueEmpty if nothing is queued.
        lease_ms as FleetQueue.pop. O(log n) while the cursor's lane has a ticket of the
        class, else O(lanes * log n) plus a scan of the table in C."""

    def peek(self) -> int:
        """Job id of the ticket pop would return; nothing changes. QueueEmpty."""

    def push_many(self, items: Sequence[Tuple[int, int]]) -> List[int]:
        """Not for a lane queue: FleetError TQKIND before anything is sent (a lane queue's
        pop follows its lane table one ticket per call; push, pop and ack one at a time)."""

    def pop_many(self, count: int, lease_ms: int = 0) -> List[Job]:
        """Not for a lane queue: FleetError TQKIND before anything is sent."""

    def ack_pop(self, tokens: Sequence[Token], count: int = 1,
                lease_ms: int = 0) -> Tuple[List[bool], List[Job]]:
        """Not for a lane queue: FleetError TQKIND before anything is sent."""

    def lane_len(self, lane: LaneKey) -> int:
        """Tickets of this lane queued now (not leased), all classes. TypeError/ValueError
        for an unknown lane, before anything is sent. Keyed lanes: lane is a key (0 for a
        key with no lane)."""

    def lane_info(self) -> Dict[str, Any]:
        """{"cursors": the table entry each class's next scan starts at (LOW .. CRITICAL),
        "queued": per lane, tickets queued, "held": per lane, queued plus leased (what its
        bound counts)}. Keyed lanes: {"lanes": lanes holding tickets now, "max_lanes"}."""

    def clear(self) -> None:
        """Drop every queued and leased ticket; reset digest, aging count, last_* and every
        cursor (the schedule after clear() is a new queue's). The sequence goes on."""

    def set_lane(self, key: LaneKey, weight: Optional[int] = None, bound: Optional[int] = None,
                 ceiling: Optional[int] = None) -> Dict[str, Any]:
        """Keyed lanes: set a key's weight (1..32767, default 1), bound (1..capacity tickets
        queued plus leased, default capacity) and in-flight ceiling (1..capacity leased at
        once, default capacity); None leaves one unchanged. Takes effect at once (a weight at
        the head's next pop; a lane that stops or starts being serviceable leaves or joins
        the rings). Kept for a key without a lane too (one hash field) until all are the
        defaults again. Returns {"weight", "bound", "ceiling", "paused"}. TypeError on a
        fixed lane queue; TypeError/ValueError for bad values, before sending. O(log n + log L)."""

    def pause(self, key: LaneKey) -> None:
        """Keyed lanes: no ticket of this key pops until resume (they stay queued; leases run
        on). The lane leaves every ring. Remembered for a key with no lane too."""

    def resume(self, key: LaneKey) -> None:
        """Keyed lanes: undo pause; the lane joins the tail of each ring where it has a
        queued ticket (no credit kept)."""

    def lane(self, key: LaneKey) -> Dict[str, Any]:
        """Keyed lanes: {"exists", "queued": (LOW, NORMAL, HIGH, CRITICAL), "leased", "held",
        "weight", "bound", "ceiling", "paused"} of one key. O(log n)."""

    def busiest(self, n: int = 10, step: int = 1000) -> List[Dict[str, Any]]:
        """Keyed lanes: the n lanes holding the most tickets, [{"key", "queued", "leased"}],
        most first, ties by the key's text. Walks every lane in server calls of `step`
        (HSCAN): O(L), for operators, not a hot path."""

    def tickets(self) -> List[Tuple[int, int, int, bool, int]]:  # type: ignore[override]
        """Every queued ticket in pop order (were nothing pushed and aging off): (id, class,
        seq, promoted, lane); ticketq_audit.tickets of a LaneQueue gives (id, class, seq,
        lane) in the same order. O(n * lanes + W) in the server. Keyed lanes: (id, class,
        seq, False, key) of the tickets of serviceable lanes, in the order pops would take
        them (ticketq_audit.tickets of a keyed LaneQueue gives (id, class, seq, key));
        tickets of paused lanes or lanes at their ceiling are not listed. O(n + L)."""

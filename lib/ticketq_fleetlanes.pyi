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
    last_lane: int
    """Lane of the ticket the last pop returned; -1 before the first pop and after clear()."""

    def __init__(self, conn: Any, name: str, capacity: Optional[int] = None,
                 weights: Union[None, int, Sequence[int]] = None,
                 lane_capacity: Union[None, int, Sequence[int]] = None, first_seq: int = 0,
                 aging: int = 0, max_deliveries: int = 8, prefix: str = "tq", retries: int = 3,
                 slice_ms: int = 2000) -> None:
        """Open the lane queue `name`, creating it if it does not exist and a capacity is given.

        capacity: 1..2**24. weights, lane_capacity, first_seq, aging: as LaneQueue's (the same
        checks, the same TypeError/ValueError words, before anything is sent). Without a
        capacity the queue's own settings are taken (ValueError if weights or lane_capacity
        are given then); with one they must match an existing queue's (FleetError
        TQCONFIG). A plain FleetQueue of that name is refused (FleetError TQKIND), and a
        FleetQueue refuses a lane queue the same way. max_deliveries, prefix, retries,
        slice_ms: as FleetQueue's. A capacity without weights: LaneQueue's TypeError,
        "weights: the lanes' weights, as weights=(2, 1), or a number of lanes of weight 1"
        (a new lane queue needs them; an existing one is opened with neither).
        """

    def push(self, job_id: int, priority: int, lane: int = 0) -> int:
        """Queue a ticket at the tail of its lane in its class; return its sequence number.

        job_id 0..2**30-1, priority 0..3, lane 0..lanes-1 (TypeError/ValueError as
        LaneQueue.push, before anything is sent). QueueFull ("ticket queue full") when queued
        plus leased tickets reach the capacity; LaneFull ("lane 2 full (4 tickets)") when the
        lane's queued plus leased tickets reach its bound; the capacity is checked first; in
        both cases nothing is stored and no sequence number is spent. No cursor moves.
        One round trip; O(log n) in the server."""

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

    def lane_len(self, lane: int) -> int:
        """Tickets of this lane queued now (not leased), all classes. TypeError/ValueError
        for an unknown lane, before anything is sent."""

    def lane_info(self) -> Dict[str, Tuple[int, ...]]:
        """{"cursors": the table entry each class's next scan starts at (LOW .. CRITICAL),
        "queued": per lane, tickets queued, "held": per lane, queued plus leased (what its
        bound counts)}."""

    def clear(self) -> None:
        """Drop every queued and leased ticket; reset digest, aging count, last_* and every
        cursor (the schedule after clear() is a new queue's). The sequence goes on."""

    def tickets(self) -> List[Tuple[int, int, int, bool, int]]:  # type: ignore[override]
        """Every queued ticket in pop order (were nothing pushed and aging off): (id, class,
        seq, promoted, lane); ticketq_audit.tickets of a LaneQueue gives (id, class, seq,
        lane) in the same order. O(n * lanes + W) in the server."""

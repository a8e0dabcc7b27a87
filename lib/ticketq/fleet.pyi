from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from ticketq import QueueFull
from ticketq.lanes import LaneFull as LaneFull

VERSION: int
"""The version of the server library this client calls (``ticketq_<VERSION>``, functions
``tq<VERSION>_*``) and of the key layout it reads. A server without it answers "Function
not found", turned into FleetError; a queue of another layout raises FleetError TQLAYOUT."""


class FleetError(Exception):
    ...


Token = Union[bytes, str]


class NotDurable(FleetError):
    op: str
    """The server function that ran on the primary unconfirmed: "push", "lpush", "pop", "ack", ..."""
    reply: Any
    """The server's reply to it, as it came."""
    call: Optional[Tuple[Any, int]]
    """(client number, call number) of a replayable call, else None."""
    job_id: Union[None, int, List[int]]
    seq: Union[None, int, List[int]]
    lease: Optional[Token]
    """As last_lease would be (a pop's), or the token passed (ack, release, touch)."""
    asked: int
    """num_replicas."""
    acked: int
    """Replicas WAIT counted."""
    aof: Optional[Tuple[int, int]]
    """(local fsyncs, replica fsyncs) WAITAOF answered; None: no WAITAOF sent."""
    timeout_ms: int
    def __init__(self, msg: str, op: str, reply: Any = None, call: Optional[Tuple[Any, int]] = None,
                 job_id: Union[None, int, List[int]] = None, seq: Union[None, int, List[int]] = None,
                 lease: Optional[Token] = None, asked: int = 0, acked: int = 0,
                 aof: Optional[Tuple[int, int]] = None, timeout_ms: int = 0) -> None: ...


Job = Tuple[int, int, int, Optional[str]]
"""A ticket a batch pop took: (job id, class 0..3, sequence number, lease token or None)."""

# Shared with ticketq.fleet (not API).
_MASK: int
def _text(v: Union[bytes, str]) -> str: ...


class FleetQueue:

    conn: Any
    name: str
    keys: List[str]
    """The queue's ten keys, ``<prefix>{<name>}:<part>`` (meta, ready, ids, promo, leased,
    deliv, wake, dead, idem, idemt): one hash tag, so one Redis Cluster slot."""
    capacity: int
    """1 <= capacity <= 2**24, read from the server: queued plus leased tickets."""
    first_seq: int
    aging: int
    max_deliveries: int
    """Deliveries after which an unacked ticket is dead-lettered; 0: never."""
    retries: int
    """Times a call that met a network error is sent again (the same call: replayed)."""
    slice_ms: int
    """The longest single server-side wait of pop_until, ms (keep it below the socket
    timeout: redis-py's default is 5 s, ticketq.resp's 10 s)."""
    trace: object
    """None, or an object whose ``record(id, cls, seq, promoted)`` pop calls (as
    TicketQueue's: ``ticketq.audit.Trace``)."""
    last_priority: int
    """Class (0..3) of the ticket the last pop returned, -1 before."""
    last_seq: int
    """Its sequence number (0 <= s < 2**30), -1 before."""
    last_lease: Optional[Token]
    """The lease token of the last pop if it was leased (pass it to ack/release/touch)."""
    last_deliveries: int
    """How many times that ticket has now been delivered, this time included."""
    last_pop: int
    """The server's number of that pop (pops of the queue before it, mod 2**30): the order
    of pops across all clients."""
    num_replicas: int
    """0: off; N >= 1: every write waits for WAIT N wait_timeout (and WAITAOF) or raises NotDurable."""
    wait_timeout: int
    """ms, WAIT's and WAITAOF's timeout (1..2**30-1)."""
    waitaof: Optional[Tuple[bool, bool]]
    """(the server has WAITAOF, its appendonly is on), asked once per connection; None before."""
    recovered: List[Job]
    """Tickets of a lost batch pop (pop_many, ack_pop) that a later pop() sent again
    (docs/fleet.md, "Batches"), as pop_many gives them, in pop order; yours to process,
    ack or release. Empty until that happens (a later batch call returns them itself)."""

    # What ticketq.fleet.FleetLaneQueue builds on (not API): the prefix of the pop and
    # peek functions' names, where a lease token's ":" is, the call, open and pop-reply hooks.
    _L: str
    _COLON: int
    def _call(self, op: str, args: Sequence[Any] = ..., idem: bool = ...) -> Any: ...
    def _open(self, args: Tuple[int, ...]) -> List[Any]: ...
    def _popped(self, r: List[Any]) -> None: ...
    def _args(self, op: str, args: Sequence[Any], idem: bool = ...) -> List[Any]: ...
    def _token(self, token: Token) -> Token: ...

    def __init__(self, conn: Any, name: str, capacity: Optional[int] = None, first_seq: int = 0,
                 aging: int = 0, max_deliveries: int = 8, prefix: str = "tq", retries: int = 3,
                 slice_ms: int = 2000, num_replicas: int = 0, wait_timeout: int = 1000) -> None:
        ...

    def push(self, job_id: int, priority: int) -> int:
        ...

    def pop(self, lease_ms: int = 0) -> int:
        ...

    def pop_until(self, deadline: Any, lease_ms: int = 0) -> int:
        ...

    def push_many(self, items: Sequence[Tuple[int, int]]) -> List[int]:
        ...

    def pop_many(self, count: int, lease_ms: int = 0) -> List[Job]:
        ...

    def ack_pop(self, tokens: Sequence[Token], count: int = 1,
                lease_ms: int = 0) -> Tuple[List[bool], List[Job]]:
        ...

    def peek(self) -> int:
        ...

    def remove(self, job_id: int) -> bool:
        ...

    def full(self) -> bool:
        ...

    def clear(self) -> None:
        ...

    def __len__(self) -> int:
        ...

    @property
    def digest(self) -> int:
        ...

    def ack(self, token: Token) -> bool:
        ...

    def release(self, token: Token) -> int:
        ...

    def touch(self, token: Token, lease_ms: int) -> bool:
        ...

    def info(self) -> Dict[str, Any]:
        ...

    def oldest_age(self) -> Optional[Tuple[int, Optional[int]]]:
        ...

    def tickets(self) -> List[Tuple[int, int, int, bool]]:
        ...

    def dead(self, count: int = 10) -> List[Tuple[Any, ...]]:
        ...

    def requeue(self, count: int = 100) -> Tuple[List[Tuple[Any, ...]], Optional[Exception]]:
        ...

    def destroy(self) -> int:
        ...


class LanesFull(QueueFull):
    """A push for a new key while ``max_lanes`` keyed lanes hold tickets (nothing changed).
    ticketq.lanes' own class when the board's keyed lanes define one, else this one."""


class LanePaused(Exception):
    ...


LaneKey = Union[int, str]


class FleetLaneQueue(FleetQueue):

    lanes: int
    """Number of lanes, 1..30, read from the server."""
    weights: Tuple[int, ...]
    """Each lane's weight (1..32767, sum W <= 32767), read from the server."""
    lane_capacity: Tuple[int, ...]
    """Each lane's bound, 1..capacity tickets, queued plus leased, read from the server."""
    table: bytearray
    """The lane table the server computed: W entries, each a lane (ticketq.lanes.table's)."""
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
                 slice_ms: int = 2000, max_lanes: Optional[int] = None, num_replicas: int = 0,
                 wait_timeout: int = 1000) -> None:
        ...

    def push(self, job_id: int, priority: int, lane: LaneKey = 0) -> int:
        ...

    def pop(self, lease_ms: int = 0) -> int:
        ...

    def peek(self) -> int:
        ...

    def push_many(self, items: Sequence[Tuple[int, int]]) -> List[int]:
        ...

    def pop_many(self, count: int, lease_ms: int = 0) -> List[Job]:
        ...

    def ack_pop(self, tokens: Sequence[Token], count: int = 1,
                lease_ms: int = 0) -> Tuple[List[bool], List[Job]]:
        ...

    def lane_len(self, lane: LaneKey) -> int:
        ...

    def lane_info(self) -> Dict[str, Any]:
        ...

    def clear(self) -> None:
        ...

    def set_lane(self, key: LaneKey, weight: Optional[int] = None, bound: Optional[int] = None,
                 ceiling: Optional[int] = None) -> Dict[str, Any]:
        ...

    def pause(self, key: LaneKey) -> None:
        ...

    def resume(self, key: LaneKey) -> None:
        ...

    def lane(self, key: LaneKey) -> Dict[str, Any]:
        ...

    def busiest(self, n: int = 10, step: int = 1000) -> List[Dict[str, Any]]:
        ...

    def tickets(self) -> List[Tuple[int, int, int, bool, int]]:  # type: ignore[override]
        ...

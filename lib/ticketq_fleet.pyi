from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

VERSION: int
"""The version of the server library this client calls (``ticketq_<VERSION>``, functions
``tq<VERSION>_*``) and of the key layout it reads. A server without it answers "Function
not found", turned into FleetError; a queue of another layout raises FleetError TQLAYOUT."""


class FleetError(Exception):
    ...


Token = Union[bytes, str]
Job = Tuple[int, int, int, Optional[str]]
"""A ticket a batch pop took: (job id, class 0..3, sequence number, lease token or None)."""

# Shared with ticketq_fleetlanes (not API).
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
    timeout: redis-py's default is 5 s, ticketq_resp's 10 s)."""
    trace: object
    """None, or an object whose ``record(id, cls, seq, promoted)`` pop calls (as
    TicketQueue's: ``ticketq_audit.Trace``)."""
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
    recovered: List[Job]
    """Tickets of a lost batch pop (pop_many, ack_pop) that a later pop() sent again
    (docs/fleet.md, "Batches"), as pop_many gives them, in pop order; yours to process,
    ack or release. Empty until that happens (a later batch call returns them itself)."""

    # What ticketq_fleetlanes.FleetLaneQueue builds on (not API): the prefix of the pop and
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
                 slice_ms: int = 2000) -> None:
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

    def dead(self, count: int = 10) -> List[Tuple[int, int, int, int]]:
        ...

    def destroy(self) -> int:
        ...

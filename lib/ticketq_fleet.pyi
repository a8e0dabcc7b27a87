"""ticketq_fleet: ticketq.TicketQueue's contract kept in Redis or Valkey (7.0 or later), for a
fleet of boards and gateway processes that share one backlog. Guide: docs/fleet.md.

Every change of state is one call of a Redis Function of the ``ticketq_<VERSION>`` library
(fleet/core.lua, queue.lua, lease.lua; loaded once per server with ``tools/fleetctl.py
install``), so each operation is atomic whichever client makes it, and no client holds the
Lua. This module checks arguments (with ticketq's own checker: the same TypeError and
ValueError, with the same words, raised before anything is sent), names the queue's keys,
calls the functions by name (``FCALL tq<VERSION>_<op>``) and reads the replies.

Same contract as TicketQueue: higher class first, then FIFO by a sequence number the server
assigns ((first_seq + pushes) mod 2**30, never a client's clock); bounded, QueueFull at push
changes nothing and spends no number; remove takes the oldest queued ticket of an id;
QueueEmpty on an empty queue; optional deterministic aging; the same 30-bit digest formula
over the pops (of every client: the digest is the queue's, kept in the server). Checked by
tests/test_fleet_conformance.py against TicketQueue with hypothesis.

Order stays exact for 2**62 pushes: a ticket's score is its class only (0..3) and its place
within the class is a fixed-width member holding the push counter as two exact parts (then
push raises FleetError TQEXHAUSTED, it never wraps). One difference from TicketQueue: a
ticket that waited through more than 2**27 later pushes keeps its exact sequence number
here, where TicketQueue renumbers it (see TicketQueue.push).

Leases: ``pop(lease_ms)`` leases the ticket until the server's TIME + lease_ms; ``ack`` ends
it; otherwise it comes back to exactly its place (class and sequence) when the lease runs
out, its delivery count raised, and after ``max_deliveries`` deliveries it goes to the
dead-letter list instead. Leased tickets count against the capacity (they may come back).

Clients: any object with redis-py's ``execute_command(*args)``: a ``redis.Redis`` on CPython
(bytes replies, i.e. ``decode_responses`` either way), or ``ticketq_resp.Redis`` on a board
with sockets (esp32, Pico W, the unix port). Each mutating call carries (client number, call
number); the server replays its last reply to a call sent again, so retries after a dropped
connection (this module's, redis-py's own) never push or pop twice. Threads may share one
FleetQueue (one call in flight at a time, by a lock), but the last_* attributes are the last
pop's of any thread: give each consumer thread its own FleetQueue (one redis-py client may
serve them all). After os.fork the child takes a new client number on its first call. Not for the micro:bit
(no sockets, no RAM): boards without a network get tickets through tools/gateway.py.

Fair lanes (per-source FIFO lanes in each class, a weighted rotation, LaneQueue's rule) are
``ticketq_fleetlanes.FleetLaneQueue``, a subclass with the same leases and replay.

Integers: ids, classes, sequence numbers, the digest and pop numbers are small ints
(< 2**30) on a 32-bit board; this module allocates (a network client does), it is not for
a heap_lock'ed hot path.
"""

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

VERSION: int
"""The version of the server library this client calls (``ticketq_<VERSION>``, functions
``tq<VERSION>_*``) and of the key layout it reads. A server without it answers "Function
not found", turned into FleetError; a queue of another layout raises FleetError TQLAYOUT."""


class FleetError(Exception):
    """The server or the queue is not what this client expects: the library is not loaded
    (or only another version), the queue has another layout version (TQLAYOUT), does not
    exist (TQNOQUEUE), exists with other settings (TQCONFIG), a key of it holds another
    type (TQTYPE, WRONGTYPE: something else writes there), is the other kind (TQKIND: a
    FleetQueue opened a lane queue, or a FleetLaneQueue a plain one), its 2**62 push
    counters are spent (TQEXHAUSTED), or it was deleted and made again since this object
    opened it (TQSTALE: open it again), or a call sent again (after a network error) found
    its client's replay records dropped after an hour idle, so it may have run or not
    (TQEXPIRED; a call sent for the first time then goes through under a new client number
    instead). An argument the server's own check refuses is TQARG. Nothing changed in the
    queue."""


Token = Union[bytes, str]
Job = Tuple[int, int, int, Optional[str]]
"""A ticket a batch pop took: (job id, class 0..3, sequence number, lease token or None)."""

# Shared with ticketq_fleetlanes (not API).
_MASK: int
def _text(v: Union[bytes, str]) -> str: ...


class FleetQueue:
    """A bounded priority queue of integer job tickets in Redis/Valkey (TicketQueue's API)."""

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
        """Open the queue `name`, creating it if it does not exist and a capacity is given.

        capacity, first_seq, aging: as TicketQueue's (same checks, same errors). None opens
        an existing queue with its settings (FleetError TQNOQUEUE if there is none; ValueError
        if first_seq, aging or max_deliveries are not their defaults then); given, they must
        match an existing queue's (FleetError TQCONFIG). max_deliveries:
        0..2**30-1. name and prefix: str without ``{`` or ``}`` (name non-empty).
        The server checks that every key of the queue is of its type (FleetError TQTYPE,
        naming the key) at open, before anything is written; later calls check the meta hash
        only and trust the other nine (docs/fleet.md, "Key types": a key written over by
        another program after that fails the calls that touch it with FleetError TQTYPE
        naming the queue, possibly part way through).
        conn: a client object (redis-py's, ticketq_resp.Redis), never a URL: a str or bytes
        raises TypeError naming what to pass (``redis.Redis.from_url(url)``). FleetError
        messages are the server's "TQ<CODE> ticketq: ..." without Redis's note of the
        function and line (`` script: tq1_open, on @user_function:59``).
        """

    def push(self, job_id: int, priority: int) -> int:
        """Queue a ticket; return its sequence number. QueueFull when queued + leased tickets
        reach the capacity (nothing stored, no number spent); TypeError/ValueError as
        TicketQueue.push, before anything is sent. One round trip; O(log n) in the server."""

    def pop(self, lease_ms: int = 0) -> int:
        """Take the next ticket (highest class, then oldest: pushed first); return its job id and
        set last_priority, last_seq, last_deliveries, last_pop (and last_lease).

        lease_ms 0: the ticket leaves the queue (TicketQueue.pop). 1 <= lease_ms < 2**30: it
        is leased until the server's TIME + lease_ms (ms; held while TIME is below that end,
        run out from the ms it reaches it); ack(last_lease) ends it, otherwise it comes back
        to its place. QueueEmpty if nothing is queued. A pop whose reply was lost
        (a network error, an interrupt) is sent again, the same, by the next pop, and the
        server replays it while it still holds: a ticket taken without a lease, or a lease
        that delivery still holds. If that lease ran out meanwhile (or was acked, released
        or leased again), the pop runs anew instead: the next ticket with a fresh lease
        (maybe the same ticket, as the next delivery), or QueueEmpty. Any exception inside
        the call that is not the server's answer closes the client's idle connections
        first, so no reply is read by another call. O(log n)."""

    def pop_until(self, deadline: Any, lease_ms: int = 0) -> int:
        """pop, waiting for a ticket until ``deadline`` (a ticketq_ticks.Deadline) passes:
        in the server (BLPOP on the wake key; a push or a release wakes it), each wait
        recomputed from deadline.remaining() and cut to the next lease expiry (as the last
        pop saw it) and to slice_ms, and below 3/4 of the connection's own socket timeout
        (redis-py's socket_timeout, a RedisCluster's nodes' too, ticketq_resp's timeout) if
        that is shorter, so the deadline is kept within one socket timeout; no polling. An expired lease wakes no blocked waiter
        (nothing runs in the server then): a lease taken while it waited is noticed within
        slice_ms. Raises ticketq_wait.Timeout (a QueueEmpty) at the deadline.
        A deadline that is not a Deadline (``pop_until(2000)``, ``None``): TypeError before
        anything is sent, so no ticket is popped or leased."""

    def push_many(self, items: Sequence[Tuple[int, int]]) -> List[int]:
        """Queue 1..4096 tickets, (job_id, priority) pairs, in order, all or none, in one
        call (one round trip, one replay record: sent again after a lost reply it pushes
        nothing more); return their sequence numbers, in the items' order.

        TypeError for an item that is not a (job_id, priority) pair, TypeError/ValueError
        as push's for its values, ValueError for 0 or over 4096 items: nothing sent.
        QueueFull if they do not all fit (queued + leased + len(items) > capacity): none
        pushed, no sequence number spent. FleetError TQKIND on a FleetLaneQueue.
        O(k log n) in the server, a fixed number of Redis commands for any k."""

    def pop_many(self, count: int, lease_ms: int = 0) -> List[Job]:
        """Take up to count (1..4096) tickets in one call, the ones count pops in a row would
        take (same order, digest, aging, leases); return [(job_id, priority, seq, token),
        ...] (token: the lease token, None when lease_ms is 0), [] when nothing is queued
        (never QueueEmpty). last_* are the last ticket's. A lost reply is sent again by the
        next pop of any kind, on its own, and replayed without the tickets whose lease no
        longer holds (they went back to the queue); a batch call returns the tickets of such
        a lost call before its own (so the list may be longer than count), pop() keeps them
        in recovered. TypeError/ValueError for count or lease_ms (as pop's);
        FleetError TQKIND on a FleetLaneQueue. O(k log n); without aging a fixed number of
        Redis commands, with aging one pop's per ticket."""

    def ack_pop(self, tokens: Sequence[Token], count: int = 1,
                lease_ms: int = 0) -> Tuple[List[bool], List[Job]]:
        """A worker loop's step in one call: ack every lease token of tokens (a list, 0..4096;
        each True when its lease still held and is now done, False otherwise, as ack), then
        pop_many(count, lease_ms) (count 0..4096; 0: ack only). Returns (acked, jobs).
        One replay record for the whole call: sent again after a lost reply, it acks nothing
        twice and returns its tickets while their leases hold. TypeError for a str or bytes
        in place of the list and for a token that is not one (ValueError for a malformed
        one): the whole call refused, nothing sent; TypeError/ValueError for count and
        lease_ms. FleetError TQKIND on a FleetLaneQueue. O((t + k) log n)."""

    def peek(self) -> int:
        """Job id of the next ticket, not removed. QueueEmpty. O(1)."""

    def remove(self, job_id: int) -> bool:
        """Remove the oldest queued (not leased) ticket with this id: True, or False if
        none. TypeError/ValueError as TicketQueue.remove. O(log n) (an index by id)."""

    def full(self) -> bool:
        """True when queued + leased tickets reach the capacity: a push raises QueueFull.
        Asks the server (its capacity too: ``capacity`` is what open found)."""

    def clear(self) -> None:
        """Drop every queued and leased ticket; reset the digest and the aging count. The
        sequence goes on; the dead-letter list stays."""

    def __len__(self) -> int:
        """Queued tickets (not leased ones): what pop can take now."""

    @property
    def digest(self) -> int:
        """The queue's schedule digest (0 <= digest < 2**30) over every pop since creation
        or clear(), whichever client popped: TicketQueue's formula."""

    def ack(self, token: Token) -> bool:
        """The leased job is done: True; False if the lease is no longer held (it ran out:
        the ticket is queued again or leased to another consumer, so the job runs again).
        A token that is not str or bytes: TypeError; not a token: ValueError (nothing sent)."""

    def release(self, token: Token) -> int:
        """The leased job was not done: 1 back to its place at once, 2 dead-lettered (it has
        been delivered max_deliveries times), 0 the lease is no longer held."""

    def touch(self, token: Token, lease_ms: int) -> bool:
        """Extend a held lease to the server's TIME + lease_ms: True, or False if not held."""

    def info(self) -> Dict[str, Any]:
        """{"queued", "leased", "capacity", "digest", "classes": (LOW, NORMAL, HIGH,
        CRITICAL queued), "dead", "next_expiry_ms" (-1: nothing leased)}."""

    def oldest_age(self) -> Optional[Tuple[int, Optional[int]]]:
        """How long the oldest queued (not leased) ticket has waited, by the server's clock:
        (min_ms, max_ms), its age lies between the two; max_ms None when it is older than
        every mark the server keeps; None when nothing is queued. The server keeps marks
        (push counter, TIME) written by these calls only, at most one a second, at most 64
        (fleet/age.lua), so push and pop cost nothing more: the resolution max_ms - min_ms
        is the time between the calls around the ticket's push (at least 1 s). Call it
        regularly (the dashboard, the exporter and fleetctl stats do) for a fine one.
        Expired leases are given back first, as info. O(64 + lists) in the server."""

    def tickets(self) -> List[Tuple[int, int, int, bool]]:
        """Every queued ticket in pop order: (id, class, seq, promoted). O(n)."""

    def dead(self, count: int = 10) -> List[Tuple[int, int, int, int]]:
        """Take up to count dead-lettered tickets off their list, oldest first: (id, class,
        seq, deliveries). Replayed as push and pop: a lost reply loses no letter."""

    def destroy(self) -> int:
        """Delete every key of the queue, its settings and counter too."""

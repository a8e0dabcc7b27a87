"""ticketq_lanes: fair lanes, a ticket queue whose classes are split into weighted FIFO lanes.

Strict priority plus FIFO lets one chatty source (a sensor, a peer, a tenant) fill a class
and delay every other source in it. A ``LaneQueue`` gives each source its own lane: a
fixed number of lanes set at construction, each with an integer weight and a bound. Within
a class the lanes are served in a fixed weighted rotation, FIFO inside each lane; a higher
class still pops first, as in ``TicketQueue``.

The rule (docs/lanes.md has it step by step, with the proofs; the fleet tier follows it):

- The *lane table* is a fixed sequence of W = sum(weights) entries, a pure function of the
  weights (``table``): lane l has weights[l] entries, spread as a proportionate-fair (pfair)
  schedule, the uniprocessor case of Baruah et al., "Proportionate progress" (1996): lane
  l's j-th entry lies between floor(j*W/w) and ceil((j+1)*W/w), entries given by earliest
  due date, the lower lane on a tie.
- Each class has a *cursor*, an entry of the table, 0 at construction and after clear().
- ``pop``: take the highest class that has a ticket; read the table as a ring from that
  class's cursor to the first entry whose lane has a ticket of that class; pop that lane's
  oldest ticket of the class; move that class's cursor to the entry after it. Nothing else
  moves a cursor: no clock, no push, no remove. Two queues fed the same operations pop the
  same tickets, and ``digest`` proves it.

This is weighted round robin with the turns interleaved (not w consecutive pops per lane,
as deficit round robin with quantum w would give): each lane is within one turn of its
exact share in every window, so a quiet lane's ticket waits about W/w pops, not a whole
round of the heavy lanes. A lane keeps no state but its tickets: an idle lane has no
credit and no debt, and lanes coming and going cannot shift another lane's turns.

Guarantees (proofs in docs/lanes.md; tested against adversarial streams):

- *Share.* A lane of weight w (of W, the total weight of all lanes, whether they have
  tickets or not) that has a ticket of class c at each of k consecutive pops of class c
  gets at least floor(k*w/W) - 1 of them. Exact for the table: every window of k
  consecutive table entries holds between floor(k*w/W) - 1 and ceil(k*w/W) + 1 entries of
  lane l.
- *No catch-up.* While every lane has a ticket of class c, a lane gets at most
  ceil(k*w/W) + 1 of any k consecutive pops of class c: a lane back from idleness gets no
  burst.
- *Wait.* A ticket that r older tickets of its lane and class pop before pops within the
  first ceil((r + 2)*W/w) pops of its class after its push; with the lane's bound B
  (r <= B - 1), ceil((B + 1)*W/w). The exact figure for a queue's table is
  ``ticketq_audit.lane_max_wait``.
- *Order.* A push never reorders queued tickets: within a class each lane's tickets take
  that lane's next turns of the table, whatever other lanes do.
- *Aging* (``aging=N``): every N pops the oldest ticket (pushed first) below CRITICAL (any
  lane) moves up one class, keeping its lane and sequence number, and joins that lane's list
  of the higher class in sequence order, so it takes part in that class's rotation. The
  wait bound becomes ``N*((capacity - 1)*3 + 3 - c) + G`` pops, G the top-class figure
  above (``ticketq_audit.lane_max_wait``).

Memory, all allocated in the constructor: 13 bytes a slot (two ``array('i')`` as in
TicketQueue, two ``array('h')`` of links, a ``bytearray`` of lanes), W bytes of table,
28 bytes a lane, ~550 bytes a queue (measured once on the 32-bit unix port with
gc.mem_alloc(): LaneQueue(64, [1, 1]) 1424 B, TicketQueue(64) 704 B). push, pop, peek, remove, len and
lane_len allocate nothing on MicroPython (proved under ``micropython.heap_lock()``), and every
integer they touch is a small int.

Complexity: push O(1); pop and peek O(1) plus the table entries they skip: none while every
lane has a ticket of the class, at most W - 1 (lanes without tickets of the class); remove
O(n) search + O(1) unlink; aging every N pops an O(n) scan plus a walk of one lane's list.
Building the table: O(W * lanes), once.

Keyed lanes (``LaneQueue(capacity, max_lanes=N)``, no weights; docs/lanes.md, "Keyed
lanes", with the proofs; the fleet's ``FleetLaneQueue(conn, name, capacity)`` follows the
same rule): lanes named by an int key 0 <= key < 2**30 (a device, a source, a chat id), made
by the first push for the key and gone when its last ticket leaves (pop or remove), at most
``max_lanes`` at once. Each lane has a weight (1..32767, default 1) and a bound (1..capacity,
default capacity), set with ``set_lane`` while it exists; a lane that ceases to exist forgets
them (on the board; the fleet remembers settings for keys with no lane). Within a class the
lanes with a ticket of that class form a ring, a FIFO of lanes: a pop serves the head's
oldest ticket of the class; after at most its weight (read at each pop) of pops in a row
the head moves to the tail; a lane whose last ticket of the class leaves drops out, and one
that gets a ticket of the class again joins at the tail with a fresh turn. Bounds, in terms
of the lanes active at the time (docs/lanes.md, Theorems K1-K4): a lane that joins pops
within the sum of the weights of the lanes ahead of it; a ticket with j older tickets in
its lane and class pops within (j // w + 1) * S + j pops of its class, S the largest sum of
the other active lanes' weights during the wait; over k pops of the class while the lane
stays in the ring it gets at least ceil((k - S) * w / (w + S)); all weights 1 is round
robin; one key is a TicketQueue. The fixed lanes' table would have to be rebuilt (O(W)) at
every change of the lanes or their weights; the ring costs O(1) per operation.

Keyed memory, all allocated in the constructor: 14 bytes a slot, ~46 bytes a lane of
``max_lanes`` (a key table of 2..4 entries a lane, rings, weight, bound, count), ~1 KB a
queue (measured once on the 32-bit unix port with gc.mem_alloc(), ticketq_keyed already
imported: LaneQueue(64, max_lanes=8) 2256 B, LaneQueue(64, max_lanes=64) 4832 B). The code
is in ``ticketq_keyed``, imported by the first keyed queue (a board that uses only fixed
lanes needs no room for it; the micro:bit firmware does not freeze it, so there a keyed
queue raises ImportError). push, pop, peek, remove, len,
lane_len and set_lane (for a key that has a lane) allocate nothing on MicroPython (proved
under ``micropython.heap_lock()``); push, pop, peek and remove are O(1) expected (the key
table: open addressing with linear probing at load <= 1/2, backward-shift deletion), remove
plus its O(n) search. No aging with keyed lanes (ValueError "aging needs fixed lanes").

Sequence numbers, ``first_seq``, renumbering, ``last_priority``/``last_seq``, ``trace``,
``full``, ``len`` and the exceptions are TicketQueue's (this class is a subclass of the
*bytecode* TicketQueue on every path, ``ticketq.PATH``: it replaces push, pop, peek and
remove, and the viper class under it would only halve its speed; so where ``PATH`` is
``"viper"``, ``isinstance(q, ticketq.TicketQueue)`` is False for a LaneQueue, and
``ticketq_base.QueueBase`` is the class every queue shares). A LaneQueue with one lane pops
exactly what a TicketQueue pops on either path, digest included (tests/test_differential.py).
"""

from typing import Optional, Sequence, Tuple, Union

from ticketq import QueueFull, TicketQueue


class LaneFull(QueueFull):
    """Raised by push when the ticket's lane holds ``lane_capacity[lane]`` tickets; the queue
    is unchanged (no sequence number spent) and other lanes still take pushes.

    A QueueFull, so ``except QueueFull`` catches both bounds; the queue's own bound raises a
    plain QueueFull ("ticket queue full") and is checked first. The message names the lane
    and its bound, ``"lane 2 full (4 tickets)"``; under ``micropython.heap_lock()``, where a
    message cannot be built, a preallocated instance ``"ticket lane full"`` is raised.
    """


class LanesFull(QueueFull):
    """Raised by push on a keyed queue for a key that has no lane while ``max_lanes`` lanes
    exist; the queue is unchanged (no sequence number spent), and keys that have a lane
    still take pushes. A QueueFull (not a LaneFull). The queue's own bound is checked
    first. The message names the key and max_lanes, ``"no lane for key 7: max_lanes (4)
    lanes exist"``; under ``micropython.heap_lock()`` the preallocated instance
    ``"max_lanes lanes exist"`` is raised."""


# Shared with ticketq_fleetlanes (not API): the argument checkers (any value in; TypeError or
# ValueError for a bad one) and the LaneFull it raises.
def _weights(weights: object) -> Tuple[int, ...]: ...
def _bounds(v: object, capacity: int, n: int) -> Tuple[int, ...]: ...
def _lane_full(lane: int, bound: int) -> LaneFull: ...


def table(weights: Sequence[int]) -> bytearray:
    """The lane table for these weights: W = sum(weights) entries, entry p the lane of slot
    p (docs/lanes.md, "the lane table").

    Lane l gets weights[l] entries. Its j-th entry (j = 0 .. w - 1) is *released* at
    floor(j*W/w) and *due* by ceil((j + 1)*W/w); slot p (p = 0 .. W - 1) goes to the released
    entry due first, the lower lane on a tie (earliest deadline first). EDF meets every due
    date here (in any span of slots the entries released and due inside it never outnumber
    its slots), so lane l's entries among the first t of the repeated table number between
    floor(t*w/W) and ceil(t*w/W). Examples: [1, 1, 1] -> 0, 1, 2; [2, 1, 1] -> 0, 1, 0, 2;
    [3, 1] -> 0, 0, 0, 1. O(W * lanes); integers below W*W < 2**30.

    Raises TypeError/ValueError for weights a LaneQueue would refuse (the same messages).
    """


class LaneQueue(TicketQueue):
    """A bounded ticket queue with weighted fair lanes inside each priority class."""

    lanes: int
    """Fixed lanes: the number of lanes, 1..30, fixed at construction; lanes are 0 .. lanes
    - 1. Keyed lanes: the number of lanes that exist now, 0..max_lanes. Read only."""

    max_lanes: Optional[int]
    """Keyed lanes: the most lanes that may exist at once, 1..capacity. Fixed lanes: None."""

    weights: Optional[Tuple[int, ...]]
    """Fixed lanes: each lane's weight, 1..32767, sum at most 32767 (W). Keyed: None (each
    lane's weight is set with ``set_lane``). Read only."""

    lane_capacity: Optional[Tuple[int, ...]]
    """Fixed lanes: each lane's bound, 1..capacity tickets (all classes together). Keyed:
    None (``set_lane``). Read only."""

    last_lane: int
    """Lane of the ticket the last pop() returned (keyed: its key); -1 before the first pop
    and after clear()."""

    def __init__(self, capacity: int, weights: Union[None, int, Sequence[int]] = None,
                 lane_capacity: Union[None, int, Sequence[int]] = None,
                 first_seq: int = 0, aging: int = 0,
                 max_lanes: Optional[int] = None) -> None:
        """Allocate all storage (see the module's Memory).

        capacity: 1 <= capacity <= 32767 slots, the bound on all lanes together.
        weights: fixed lanes: a list, tuple or array of one int per lane, each 1..32767
            and their sum W at most 32767, 1..30 lanes; or an int n, 1..30, for n lanes of
            weight 1. None (with max_lanes) for keyed lanes.
        lane_capacity: fixed lanes: None (default: capacity, no bound but the queue's), an
            int 1..capacity for every lane, or a list, tuple or array of one int
            1..capacity per lane. Keyed lanes: must be None (``set_lane(key, bound=)``).
        first_seq, aging: as TicketQueue's; keyed lanes take no aging (aging must be 0).
        max_lanes: None for fixed lanes; an int 1..capacity for keyed lanes, the most that
            may exist at once.

        Raises TypeError for a non-int (weights None: "weights: the lanes' weights, as
        weights=(2, 1), or a number of lanes of weight 1"; bools and int subclasses count as their value:
        ticketq.pyi, "Integers"), ValueError for a value out of range: "lanes must be 1..30", "weight must
        be 1..32767", "total weight must be 1..32767", "lane capacity must be 1..<capacity>",
        "lane capacity: one per lane", "capacity must be 1..32767"; keyed: "max_lanes must
        be 1..<capacity>", "max_lanes is for keyed lanes: give no weights", "lane_capacity
        needs fixed lanes (keyed: set_lane(key, bound=))", "aging needs fixed lanes".
        Without weights and without max_lanes: the TypeError for weights None above.
        """

    def push(self, job_id: int, priority: int, lane: int = 0) -> int:
        """Queue a ticket at the tail of its lane in its class; return its sequence number
        (0 <= seq < 2**30, as TicketQueue's).

        job_id: 0 <= job_id < 2**30. priority: LOW..CRITICAL (0..3). lane: fixed lanes
        0 .. lanes - 1; keyed lanes a key 0 <= key < 2**30 (a key with no lane gets one:
        weight 1, bound capacity, at the tail of its class's ring).

        Raises TypeError/ValueError for bad input ("lane must be 0..<lanes - 1>" for an
        unknown lane; keyed "lane must be 0..1073741823", "lane must be int"), QueueFull
        when the queue holds ``capacity`` tickets, LaneFull when the lane holds its bound
        (``lane_capacity[lane]``; keyed: its ``set_lane`` bound), LanesFull (keyed) for a
        new key while ``max_lanes`` lanes exist; in every such case the queue is unchanged
        and no sequence number is used up. O(1) (keyed: expected, the key table; renumbering
        aside, as TicketQueue's); no allocation.
        """

    def pop(self) -> int:
        """Remove the next ticket (the rule above) and return its job id; set
        ``last_priority``, ``last_seq``, ``last_lane``; fold it into ``digest``: TicketQueue's
        fold, then, for a lane other than 0, one more rotate-left-5 and xor of the lane
        (keyed: of the key). Keyed: the head of the highest non-empty class's ring, then
        the ring's turn rule (module docstring). Raises QueueEmpty (queue unchanged). O(1)
        plus skipped table entries (keyed: O(1) expected); no allocation.
        """

    def peek(self) -> int:
        """Job id of the ticket pop() would return; nothing changes. Raises QueueEmpty."""

    def remove(self, job_id: int) -> bool:
        """Remove the oldest queued ticket (pushed first) with this id, whatever its
        lane and class; True if one was removed. Cursors do not move. Keyed: if that was
        its lane's last ticket of its class, the lane leaves that ring (the head's turn
        count restarts if it was the head); no other lane moves; a lane left with no ticket
        ceases to exist. Raises TypeError/ValueError for an id push would refuse (queue
        unchanged). O(n); no allocation."""

    def lane_len(self, lane: int) -> int:
        """Tickets queued in this lane, all classes. Raises TypeError/ValueError for an
        unknown lane (keyed: a key out of 0..2**30 - 1; a key with no lane has 0). O(1)
        (keyed: expected); no allocation."""

    def set_lane(self, lane: int, weight: Optional[int] = None,
                 bound: Optional[int] = None) -> None:
        """Keyed lanes: set an existing lane's weight (1..32767, counted from the next pop:
        a head whose turn count reaches it moves to the tail) and/or bound (1..capacity
        tickets, all classes; checked by the next push: a bound below the lane's count
        refuses pushes until it drains below it). None leaves a setting as it is. Nothing
        moves now. The settings last while the lane exists: a lane made again starts at
        weight 1, bound capacity.

        Raises TypeError on a fixed-lane queue ("needs keyed lanes (LaneQueue(capacity,
        max_lanes=N))"), TypeError/ValueError for a bad argument
        ("lane must be 0..1073741823", "weight must be 1..32767", "lane capacity must be
        1..<capacity>"), ValueError for a key with no lane ("lane 7 has no tickets (a board
        keeps settings only while its lane exists: push first)"); the queue is unchanged.
        O(1) expected; no allocation (except the error messages)."""

    def lane_settings(self, lane: int) -> Optional[Tuple[int, int, int]]:
        """Keyed lanes: (tickets, weight, bound) of the key's lane, None if it has no lane.
        TypeError on a fixed-lane queue (as set_lane's). Allocates (a tuple)."""

    def clear(self) -> None:
        """Drop every ticket; reset digest, the aging count, last_* and every cursor (so the
        schedule after clear() is that of a new queue); keyed: every lane (and its settings)
        and every ring, with their turn counts. The sequence goes on."""

    def __repr__(self) -> str:
        """``<LaneQueue n/capacity CRITICAL=c HIGH=h NORMAL=m LOW=l lanes=a/A,b/B,...>``:
        TicketQueue's, with each lane's tickets/bound (allocates); keyed: ``lanes=n/max_lanes``."""

"""ticketq_audit: what a person needs to check a ticketq schedule, from the REPL or a host.

Not needed by a board at run time (ticketq never imports it), so a small board that does not
use it does not pay for it. ``Trace.record`` is the one hot-path piece: it allocates nothing.
"""

from typing import List, Optional

from ticketq import TicketQueue
from ticketq_lanes import LaneQueue


class Trace:
    """A preallocated ring of the last ``size`` pops of a queue.

    Attach it with ``q.trace = Trace(16)``: every ``q.pop()`` then calls
    ``record(id, class, seq, promoted)`` (a LaneQueue adds the lane for lanes other than 0;
    a keyed one the key), which writes four preallocated slots (three ``array('i')`` and a
    ``bytearray``) and allocates nothing, so it can stay on for months. Memory: 13 bytes per
    entry plus the object.
    """

    size: int
    """Entries kept, >= 1."""

    count: int
    """Pops recorded since construction (may exceed ``size``; the oldest are overwritten);
    saturates at 2**30 - 1 so that it stays a small int and ``record`` never allocates."""

    def __init__(self, size: int) -> None:
        """``size``: 1 <= size <= 2**24 entries. Raises TypeError for a non-int, ValueError out
        of range (ints, bools and int subclasses: the rule of ticketq.pyi, "Integers")."""

    def record(self, job_id: int, cls: int, seq: int, promoted: bool, lane: int = 0) -> None:
        """Called by ``TicketQueue.pop``: id (0..2**30-1), class (0..3), sequence number
        (0..2**30-1), whether aging promoted the ticket; by ``LaneQueue.pop`` also the lane
        (0..29; keyed: the key, 0..2**30-1) when it is not 0. O(1); no allocation."""

    def entries(self, lanes: bool = False) -> List[tuple]:
        """``[(id, class, seq, promoted), ...]``, oldest first, at most ``size``; with
        ``lanes=True``, ``(id, class, seq, promoted, lane)``. Allocates."""

    def __repr__(self) -> str:
        """One line per entry: ``<id> <CLASS> seq=<n>[ lane=<l>][ (aged)]`` (the lane when it
        is not 0). Allocates."""


def tickets(q: TicketQueue) -> List[tuple]:
    """The queued tickets in pop order, ``[(job_id, class, seq), ...]``; for a LaneQueue
    ``[(job_id, class, seq, lane), ...]``, each class drained by its rotation from its
    cursor; for keyed lanes the lane is the key, and each class's ring is played out as pop
    would (the head's turn count, the weights as they are now). The order pops take if no
    ticket is removed and aging promotes none meanwhile (pushes never reorder queued
    tickets; on keyed lanes a set_lane may). The queue is not changed. Allocates: O(n log n)
    for a TicketQueue, O(n * W / w) for a LaneQueue, O(n + lanes) for keyed lanes. For the
    REPL and tests."""


def explain(q: TicketQueue, a: int, b: int) -> str:
    """Why the queued ticket with job id ``a`` pops before or after the one with id ``b``, in
    words: their classes, sequence numbers, whether aging promoted them, and the rule that
    decides (a higher class always pops first; within a class, the one pushed first, which
    has the lower sequence number except across the 2**30 wrap). For a LaneQueue also each
    ticket's lane and place in it, and when the two are in one class but different lanes,
    the rule that decides there: the weighted rotation, with the table entry (counted from
    the class's cursor) at which it reaches each lane's turn for the ticket, and whether the
    one that pops second was pushed first; for keyed lanes, the ring of the class (head
    first, each lane's key and weight, the head's turn count) and the pop of the class, from
    now, that takes each ticket. For an id queued more than once, the oldest
    ticket (pushed first) with it, the one ``remove`` would take. Returns ``"job N is not
    queued"`` when one is missing (a negative id never is). ``a`` and ``b`` follow
    ticketq.pyi's "Integers" rule (TypeError ``"a must be int"``), any int value.
    Allocates. O(n) (a LaneQueue: O(n * W / w))."""


def max_wait(capacity: int, aging: int, cls: int) -> Optional[int]:
    """Upper bound on the pops of *other* tickets that can come before a ticket of class
    ``cls`` (0..3) pops, whatever is pushed meanwhile; None where there is no bound.
    ``capacity`` and ``aging`` take the constructor's ranges; TypeError/ValueError naming
    the argument otherwise (ticketq.pyi, "Integers").

    - ``cls == 3`` (CRITICAL): ``capacity - 1``. Every ticket that pops first is older
      than it (FIFO in the top class, and a promoted ticket keeps its older sequence number),
      and at most ``capacity - 1`` older tickets can be queued.
    - ``aging == 0`` and ``cls < 3``: None. Strict priority: a steady stream of
      higher-class pushes starves the ticket for ever (tests show it).
    - ``aging == N > 0`` and ``cls < 3``: ``N * ((capacity - 1) * 3 + 3 - cls) + capacity - 1``.

    Proof sketch for the aging case, K = 4 classes. A promotion happens every N pops and
    moves the oldest ticket below the top class up one class. Only tickets older than
    ticket T can be older than it, so until T is the oldest below the top, every promotion
    goes to one of the at most ``capacity - 1`` tickets that were queued when T was pushed,
    each of which needs at most K - 1 = 3 promotions to reach the top (or pops, or is
    removed, first). After at most ``(capacity - 1) * 3`` promotions T is the oldest below
    the top and each further promotion is T's own: ``3 - cls`` of them take it to CRITICAL.
    That is at most ``N * ((capacity - 1) * 3 + 3 - cls)`` pops. In the top class only
    older tickets are ahead of T: at most ``capacity - 1`` more pops. The bound is not tight
    (a full queue limits how many higher tickets an adversary can push); the hypothesis
    test ``tests/test_aging_props.py`` searches push streams for a longer wait.

    Cost of aging: one O(n) scan for the oldest ticket every N pops, then an O(log n)
    sift-up; no allocation.
    """


def lane_max_wait(q: LaneQueue, lane: int, cls: int) -> Optional[int]:
    """Upper bound on the pops of *other* tickets that can come before a ticket of class
    ``cls`` (0..3) in ``lane`` of ``q`` pops, whatever is pushed meanwhile; None where there
    is no bound. Read from the queue's table, lane bounds and aging. ``lane`` and ``cls``
    follow ticketq.pyi's "Integers" rule (TypeError ``"cls must be int"``, ValueError
    ``"cls must be 0..3"``).

    - ``cls == 3``: G, the most table entries from a start just past one of the lane's
      entries to the B-th of its entries after that (B = ``q.lane_capacity[lane]``), less
      one. At most B - 1 tickets of the lane are older than the ticket; the lane has a ticket
      of the class at every pop until it pops, so every entry of the lane the rotation reads
      pops one of them or the ticket itself, and each pop reads at least one entry. G is
      reached when every lane stays backlogged (a test shows it) and is at most
      ``ceil((B + 1)*W/w) - 1`` (the share guarantee, docs/lanes.md).
    - ``q.aging == 0`` and ``cls < 3``: None (strict priority).
    - ``q.aging == N > 0``: ``N*((capacity - 1)*3 + 3 - cls) + G``. Aging picks the oldest
      ticket below the top whatever its lane, so max_wait's argument holds unchanged until
      the ticket reaches CRITICAL, and G bounds the rest: promotions that put older tickets
      of its lane ahead of it are among the B - 1.

    Raises ValueError for an unknown lane or a class out of range; TypeError for a keyed
    queue ("keyed lanes: docs/lanes.md, Theorem K2": its bound depends on the lanes active
    during the wait). Allocates; O(W).
    """

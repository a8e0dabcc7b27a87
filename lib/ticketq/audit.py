# ticketq.audit: what a person needs to check a schedule, kept out of ticketq.py so a small
# board that does not need it does not pay for it. Documentation: the docstrings below
# (help(), editors; the .pyi stubs carry the types). mpy-cross and freezing drop them,
# ticketq deploy strips them for a board that compiles source.
"""ticketq.audit: what a person needs to check a ticketq schedule, from the REPL or a host.

Not needed by a board at run time (ticketq never imports it), so a small board that does not
use it does not pay for it. ``Trace.record`` is the one hot-path piece: it allocates nothing.
"""
from array import array
from ticketq.core import _int, oldest

_NAMES = ("LOW", "NORMAL", "HIGH", "CRITICAL")


class Trace:
    # A ring of the last `size` pops, preallocated: record() allocates nothing, so it can
    # stay attached to a queue on the hot path (q.trace = Trace(16)).
    """A preallocated ring of the last ``size`` pops of a queue.

    Attach it with ``q.trace = Trace(16)``: every ``q.pop()`` then calls
    ``record(id, class, seq, promoted)`` (a LaneQueue adds the lane for lanes other than 0;
    a keyed one the key), which writes four preallocated slots (three ``array('i')`` and a
    ``bytearray``) and allocates nothing, so it can stay on for months. Memory: 13 bytes per
    entry plus the object.
    """
    def __init__(self, size):
        """``size``: 1 <= size <= 2**24 entries. Raises TypeError for a non-int, ValueError out
        of range (ints, bools and int subclasses: the rule of ticketq's docstring, "Integers").
        """
        size = _int(size, 1, 0x1000000, "trace size")  # as a queue's capacity: 13 B an entry
        self.size = size
        self._i = array("i", range(size))
        self._s = array("i", range(size))
        self._l = array("i", range(size))  # the lane: a fixed lane or a key (< 2**30)
        self._f = bytearray(size)  # class | 4 if promoted by aging
        self._pos = 0
        self.count = 0

    def record(self, job_id, cls, seq, promoted, lane=0):
        """Called by ``TicketQueue.pop``: id (0..2**30-1), class (0..3), sequence number
        (0..2**30-1), whether aging promoted the ticket; by ``LaneQueue.pop`` also the lane
        (0..29; keyed: the key, 0..2**30-1) when it is not 0. O(1); no allocation.
        """
        p = self._pos
        self._i[p] = job_id
        self._s[p] = seq
        self._f[p] = cls | 4 if promoted else cls
        self._l[p] = lane
        p += 1
        self._pos = 0 if p == self.size else p
        if self.count < 0x3FFFFFFF:  # saturates: stays a small int, so record never allocates
            self.count += 1

    def entries(self, lanes=False):
        # [(id, class, seq, promoted), ...], oldest first, with the lane last if `lanes`.
        # Allocates (REPL use).
        """``[(id, class, seq, promoted), ...]``, oldest first, at most ``size``; with
        ``lanes=True``, ``(id, class, seq, promoted, lane)``. Allocates.
        """
        n = min(self.count, self.size)
        out = []
        for j in range(self._pos - n, self._pos):
            f = self._f[j]
            e = (self._i[j], f & 3, self._s[j], f & 4 > 0)
            out.append(e + (self._l[j],) if lanes else e)
        return out

    def __repr__(self):
        """One line per entry: ``<id> <CLASS> seq=<n>[ lane=<l>][ (aged)]`` (the lane when it
        is not 0). Allocates.
        """
        return "\n".join("%d %s seq=%d%s%s" % (i, _NAMES[c], s, " lane=%d" % l if l else "",
                                               " (aged)" if p else "")
                         for i, c, s, p, l in self.entries(True))


def _seq(q, key):
    # The outside sequence number of a queued ticket's key (see ticketq.py).
    s = (key & 0x1FFFFFFF) + q._nb
    return s if s >= 0 else s + 0x40000000


def _lane_order(q):
    # A LaneQueue's tickets in pop order, [(slot, class, turn), ...]: each class drained
    # by its rotation from its cursor; turn counts the table entries read from the cursor up
    # to the ticket's own (1 = the cursor's entry). Allocates (REPL use).
    out = []
    n = q.lanes
    size = len(q._tb)
    for c in (3, 2, 1, 0):
        lists = []
        left = 0
        for l in range(n):
            s = []
            j = q._hd[c * n + l]
            while j >= 0:
                s.append(j)
                j = q._nx[j]
            lists.append(s)
            left += len(s)
        p = q._cur[c]
        turn = 0
        while left:
            s = lists[q._tb[p]]
            p = p + 1 if p + 1 < size else 0
            turn += 1
            if s:
                out.append((s.pop(0), c, turn))
                left -= 1
    return out


def tickets(q):
    # [(id, class, seq), ...] in pop order; for a LaneQueue (id, class, seq, lane). Allocates
    # (REPL use); leaves the queue as is.
    """The queued tickets in pop order, ``[(job_id, class, seq), ...]``; for a LaneQueue
    ``[(job_id, class, seq, lane), ...]``, each class drained by its rotation from its
    cursor; for keyed lanes the lane is the key, and each class's ring is played out as pop
    would (the head's turn count, the weights as they are now). The order pops take if no
    ticket is removed and aging promotes none meanwhile (pushes never reorder queued
    tickets; on keyed lanes a set_lane may). The queue is not changed. Allocates: O(n log n)
    for a TicketQueue, O(n * W / w) for a LaneQueue, O(n + lanes) for keyed lanes. For the
    REPL and tests.
    """
    k = q._k
    d = q._d
    out = []
    if getattr(q, "_m", 0):  # keyed lanes (ticketq.keyed)
        for j, c, _ in q._korder():
            i = d[j]
            out.append((i if i >= 0 else ~i, c, _seq(q, k[j]), q._key[q._ln[j]]))
        return out
    if hasattr(q, "lanes"):
        for j, c, _ in _lane_order(q):
            i = d[j]
            out.append((i if i >= 0 else ~i, c, _seq(q, k[j]), q._ln[j]))
        return out
    for j in sorted(range(len(q)), key=lambda j: k[j]):
        i = d[j]
        out.append((i if i >= 0 else ~i, 1 - (k[j] >> 29), _seq(q, k[j])))
    return out


def _find(q, job_id):
    # What explain says of the oldest queued ticket with this id (the one remove would
    # take), as a dict; None when there is none. Reads the queue's slots; changes nothing.
    if job_id < 0:  # no id is negative (push refuses them); ~x in a slot is a promoted id
        return None
    j = oldest(q._k, q._d, len(q), job_id)
    if j < 0:
        return None
    key = q._k[j]
    t = {"id": job_id, "key": key, "cls": 1 - (key >> 29), "seq": _seq(q, key),
         "aged": q._d[j] < 0, "lane": None}
    if hasattr(q, "lanes"):
        keyed = getattr(q, "_m", 0)
        order = q._korder() if keyed else _lane_order(q)
        t["place"] = [e[0] for e in order].index(j)  # in the pop order
        t["turn"] = order[t["place"]][2]
        l = q._ln[j]
        t["lane"] = q._key[l] if keyed else l
        i = q._hd[t["cls"] * (q._m if keyed else q.lanes) + l]
        t["rank"] = 1  # 1 = the head of its lane in its class
        while i != j:
            i = q._nx[i]
            t["rank"] += 1
    return t


def _describe(t):
    return "job %d is %s, seq %d%s%s" % (
        t["id"], _NAMES[t["cls"]], t["seq"],
        "" if t["lane"] is None else ", lane %d (%s in its lane)" % (t["lane"], _nth(t["rank"])),
        " (promoted by aging)" if t["aged"] else "")


def _nth(n):
    return "%d%s" % (n, "th" if 10 <= n % 100 < 20 else {1: "st", 2: "nd", 3: "rd"}.get(
        n % 10, "th"))


def explain(q, a, b):
    # Why the queued ticket with id a pops before or after the one with id b, in words.
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
    the "Integers" rule of ticketq's docstring (TypeError ``"a must be int"``), any int value.
    Allocates. O(n) (a LaneQueue: O(n * W / w)).
    """
    a = _int(a, None, None, "a")
    b = _int(b, None, None, "b")
    ta = _find(q, a)
    tb = _find(q, b)
    if ta is None or tb is None:
        return "job %d is not queued" % (a if ta is None else b)
    if a == b:
        return _describe(ta)
    lanes = ta["lane"] is not None
    if (ta["place"] > tb["place"]) if lanes else ta["key"] > tb["key"]:
        ta, tb = tb, ta
    if ta["cls"] != tb["cls"]:
        why = "its class is higher, and a higher class always pops first (strict priority)"
    elif ta["lane"] == tb["lane"]:
        why = "both are in one %sclass and it was pushed earlier (FIFO by sequence number)" % (
            "lane of one " if lanes else "")
    elif getattr(q, "_m", 0):  # keyed lanes: the ring decides (ticketq.keyed)
        why = q._kwhy(ta, tb, _NAMES, _nth)
    else:
        c = _NAMES[ta["cls"]]
        why = ("both are %s but in different lanes, so the weighted rotation decides (weights "
               "%s, a table of %d entries, the %s cursor at entry %d): it reaches lane %d's "
               "turn for job %d at the %s entry from the cursor, lane %d's for job %d at the "
               "%s; each lane is FIFO, and the rotation, not the sequence number, orders "
               "lanes" % (c, ":".join([str(w) for w in q.weights]), len(q._tb), c,
                          q._cur[ta["cls"]], ta["lane"], ta["id"], _nth(ta["turn"]),
                          tb["lane"], tb["id"], _nth(tb["turn"])))
        if tb["key"] & 0x1FFFFFFF < ta["key"] & 0x1FFFFFFF:  # internal: no wrap, push order
            why += " (job %d was pushed earlier)" % tb["id"]
    return "%s; %s. Job %d pops first: %s." % (_describe(ta), _describe(tb), ta["id"], why)


def max_wait(capacity, aging, cls):
    # Upper bound on the pops of other tickets that can come before a ticket of class
    # `cls` pops, whatever is pushed meanwhile (the proof sketch: the docstring below).
    # None: unbounded (strict priority starves lower classes).
    """Upper bound on the pops of *other* tickets that can come before a ticket of class
    ``cls`` (0..3) pops, whatever is pushed meanwhile; None where there is no bound.
    ``capacity`` and ``aging`` take the constructor's ranges; TypeError/ValueError naming
    the argument otherwise (ticketq's docstring, "Integers").

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
    capacity = _int(capacity, 1, 0x1000000, "capacity")
    aging = _int(aging, 0, 0x3FFFFFFF, "aging")
    cls = _int(cls, 0, 3, "cls")
    if cls == 3:
        return capacity - 1
    if not aging:
        return None
    return aging * ((capacity - 1) * 3 + 3 - cls) + capacity - 1


def lane_max_wait(q, lane, cls):
    # max_wait for a ticket of class `cls` in lane `lane` of LaneQueue q, read from its
    # table (the proof: the docstring below). None: unbounded (strict priority).
    """Upper bound on the pops of *other* tickets that can come before a ticket of class
    ``cls`` (0..3) in ``lane`` of ``q`` pops, whatever is pushed meanwhile; None where there
    is no bound. Read from the queue's table, lane bounds and aging. ``lane`` and ``cls``
    follow the "Integers" rule of ticketq's docstring (TypeError ``"cls must be int"``, ValueError
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
    if not hasattr(q, "lanes"):  # a TicketQueue has no lanes: say so, not AttributeError
        raise TypeError("q must be a LaneQueue (a TicketQueue: max_wait(q.capacity, q.aging, cls))")
    if getattr(q, "_m", 0):  # the bounds depend on the lanes active during a wait
        raise TypeError("keyed lanes: docs/lanes.md, Theorem K2")
    lane = _int(lane, 0, q.lanes - 1, "lane")  # plain ints (ticketq's docstring, "Integers")
    cls = _int(cls, 0, 3, "cls")
    t = q._tb
    size = len(t)
    pos = [p for p in range(size) if t[p] == lane]
    w = len(pos)
    b = q.lane_capacity[lane]
    top = 0  # most entries read before a lane's b-th turn, from a start just past a turn
    for i in range(w):
        top = max(top, pos[(i + b) % w] + (i + b) // w * size - pos[i] - 1)
    if cls == 3:
        return top
    if not q.aging:
        return None
    return q.aging * ((q.capacity - 1) * 3 + 3 - cls) + top

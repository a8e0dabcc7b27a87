# ticketq_audit: what a person needs to check a schedule, kept out of ticketq.py so a small
# board that does not need it does not pay for it. Full documentation: ticketq_audit.pyi.
from array import array
from ticketq_heap import _int, oldest

_NAMES = ("LOW", "NORMAL", "HIGH", "CRITICAL")


class Trace:
    # A ring of the last `size` pops, preallocated: record() allocates nothing, so it can
    # stay attached to a queue on the hot path (q.trace = Trace(16)).
    def __init__(self, size):
        size = _int(size, 1, 0x1000000, "trace size")  # as a queue's capacity: 13 B an entry
        self.size = size
        self._i = array("i", range(size))
        self._s = array("i", range(size))
        self._l = array("i", range(size))  # the lane: a fixed lane or a key (< 2**30)
        self._f = bytearray(size)  # class | 4 if promoted by aging
        self._pos = 0
        self.count = 0

    def record(self, job_id, cls, seq, promoted, lane=0):
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
        n = min(self.count, self.size)
        out = []
        for j in range(self._pos - n, self._pos):
            f = self._f[j]
            e = (self._i[j], f & 3, self._s[j], f & 4 > 0)
            out.append(e + (self._l[j],) if lanes else e)
        return out

    def __repr__(self):
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
    k = q._k
    d = q._d
    out = []
    if getattr(q, "_m", 0):  # keyed lanes (ticketq_keyed)
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
    elif getattr(q, "_m", 0):  # keyed lanes: the ring decides (ticketq_keyed)
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
    # `cls` pops, whatever is pushed meanwhile (see ticketq_audit.pyi for the proof sketch).
    # None: unbounded (strict priority starves lower classes).
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
    # table (see ticketq_audit.pyi for the proof). None: unbounded (strict priority).
    if not hasattr(q, "lanes"):  # a TicketQueue has no lanes: say so, not AttributeError
        raise TypeError("q must be a LaneQueue (a TicketQueue: max_wait(q.capacity, q.aging, cls))")
    if getattr(q, "_m", 0):  # the bounds depend on the lanes active during a wait
        raise TypeError("keyed lanes: docs/lanes.md, Theorem K2")
    lane = _int(lane, 0, q.lanes - 1, "lane")  # plain ints (ticketq.pyi, "Integers")
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

# ticketq_audit: what a person needs to check a schedule, kept out of ticketq.py so a small
# board that does not need it does not pay for it. Full documentation: ticketq_audit.pyi.
from array import array
from ticketq_heap import _int

_NAMES = ("LOW", "NORMAL", "HIGH", "CRITICAL")


class Trace:
    # A ring of the last `size` pops, preallocated: record() allocates nothing, so it can
    # stay attached to a queue on the hot path (q.trace = Trace(16)).
    def __init__(self, size):
        size = _int(size, 1, 0x1000000, "trace size")  # as a queue's capacity: 9 B an entry
        self.size = size
        self._i = array("i", range(size))
        self._s = array("i", range(size))
        self._f = bytearray(size)  # class | 4 if promoted by aging
        self._pos = 0
        self.count = 0

    def record(self, job_id, cls, seq, promoted):
        p = self._pos
        self._i[p] = job_id
        self._s[p] = seq
        self._f[p] = cls | 4 if promoted else cls
        p += 1
        self._pos = 0 if p == self.size else p
        if self.count < 0x3FFFFFFF:  # saturates: stays a small int, so record never allocates
            self.count += 1

    def entries(self):
        # [(id, class, seq, promoted), ...], oldest first. Allocates (REPL use).
        n = min(self.count, self.size)
        out = []
        for j in range(self._pos - n, self._pos):
            f = self._f[j]
            out.append((self._i[j], f & 3, self._s[j], f > 3))
        return out

    def __repr__(self):
        return "\n".join("%d %s seq=%d%s" % (i, _NAMES[c], s, " (aged)" if p else "")
                         for i, c, s, p in self.entries())


def tickets(q):
    # [(id, class, seq), ...] in pop order. Allocates (REPL use); leaves the queue as is.
    k = q._k
    d = q._d
    out = []
    for j in sorted(range(len(q)), key=lambda j: k[j]):
        i = d[j]
        s = (k[j] & 0x1FFFFFFF) + q._nb
        out.append((i if i >= 0 else ~i, 1 - (k[j] >> 29), s if s >= 0 else s + 0x40000000))
    return out


def _find(q, job_id):
    # (key, class, seq, promoted) of the oldest queued ticket with this id: the one
    # TicketQueue.remove would take. Reads the queue's slots; changes nothing.
    best = None
    if job_id < 0:  # no id is negative (push refuses them); ~x below is a promoted id
        return None
    for j in range(len(q)):
        x = q._d[j]
        if x == job_id or ~x == job_id:
            key = q._k[j]
            if best is None or key & 0x1FFFFFFF < best[0] & 0x1FFFFFFF:
                best = (key, x < 0)
    if best is None:
        return None
    key, aged = best
    s = (key & 0x1FFFFFFF) + q._nb
    return key, 1 - (key >> 29), s if s >= 0 else s + 0x40000000, aged


def _describe(job_id, t):
    return "job %d is %s, seq %d%s" % (
        job_id, _NAMES[t[1]], t[2], " (promoted by aging)" if t[3] else "")


def explain(q, a, b):
    # Why the queued ticket with id a pops before or after the one with id b, in words.
    a = _int(a, None, None, "a")
    b = _int(b, None, None, "b")
    ta = _find(q, a)
    tb = _find(q, b)
    if ta is None or tb is None:
        return "job %d is not queued" % (a if ta is None else b)
    if a == b:
        return _describe(a, ta)
    if ta[0] > tb[0]:
        a, b, ta, tb = b, a, tb, ta
    if ta[1] != tb[1]:
        why = "its class is higher, and a higher class always pops first (strict priority)"
    else:
        why = "both are in one class and it was pushed earlier (FIFO by sequence number)"
    return "%s; %s. Job %d pops first: %s." % (_describe(a, ta), _describe(b, tb), a, why)


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

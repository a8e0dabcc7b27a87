# ticketq_lanes: fair lanes. A ticket queue whose classes are each split into per-key FIFO
# lanes (a device, a peer, a tenant), served in a fixed weighted rotation, so that one chatty
# source cannot delay the others of its class. Full documentation, the rule and its proofs:
# ticketq_lanes.pyi and docs/lanes.md; run-time docstrings are kept out (RAM on a board).
#
# The rule, stated once. Higher class first, as in TicketQueue. Within a class, the lane
# table (table() below: each lane l appears weights[l] times in W = sum(weights) entries,
# spread by a proportionate-fair EDF schedule) is read as a ring from the class's cursor:
# the first entry whose lane has a ticket of that class names the lane; its oldest ticket
# pops and the cursor moves just past that entry. Nothing else moves a cursor, and no clock
# is read: the rotation is a function of the operation order alone.
#
# Storage, all allocated in __init__ (13 bytes a slot, W + 28 bytes a lane):
#   _k, _d    as in TicketQueue (ticketq_heap's key layout, ~id once aging promoted it), but
#             an unordered pool: live tickets in slots 0 .. n-1, a hole filled by the last
#   _ln       the lane of each slot (bytearray)
#   _nx, _pv  links of the doubly linked (class, lane) lists, -1 at the ends (array('h'))
#   _hd, _tl  head and tail slot of list x = class * lanes + lane, -1 when empty
#   _cnt, _lc tickets queued in each lane (all classes) and each lane's bound
#   _mk       per class, bit l set while lane l has a ticket of that class (lanes <= 30)
#   _cur      per class, the cursor: the table entry where the next scan starts
#   _tb       the lane table (bytearray of W entries)
# The invariant: each (class, lane) list holds its tickets in increasing sequence order
# (pushes append the newest; aging inserts in order; renumbering keeps order).
# Sequence numbers, renumbering, the digest, the trace and aging's count are TicketQueue's
# (the same steps in push and pop below); oldest() and renumber() from ticketq_heap work on
# the pool because they only need the live tickets in slots 0 .. n-1.
#
# Hot paths (push, pop, peek, remove, len, lane_len) allocate nothing and keep every
# integer a small int: bit masks below 2**30, links and counts below 2**15.
#
# The base class is the bytecode TicketQueue on every path (ticketq.PATH): this class
# replaces push, pop, peek and remove, and the viper class under it would only turn the
# shared fields into properties over an array, halving the speed of a push+pop (measured
# on the 32-bit unix port: 13.6 us against 6.7 us at 120 queued). So on the viper path a
# LaneQueue is no instance of ticketq.TicketQueue; ticketq_base.QueueBase is the class
# every queue shares.
from array import array
import ticketq
from ticketq import TicketQueue
if ticketq.PATH == "viper":
    from ticketq_viper import BytecodeQueue as TicketQueue
from ticketq_heap import oldest, renumber, _int
from ticketq_base import QueueFull, _FULL, _EMPTY, _err

try:
    from micropython import const
except ImportError:
    const = lambda x: x

_MASK = const(0x3FFFFFFF)  # 2**30 - 1: sequence numbers and ids are 30-bit
_SMASK = const(0x1FFFFFFF)  # internal sequence bits of a key
_LANES = const(30)  # a class's lanes are bits of one small int
_SLOTS = const(0x7FFF)  # links are array('h'); also the largest total weight (W * W < 2**30)


class LaneFull(QueueFull):
    pass


class LanesFull(QueueFull):
    pass


_LFULL = LaneFull("ticket lane full")


def _lane_full(lane, bound):
    # Says which lane and its bound; under heap_lock (formatting allocates) the preallocated
    # instance, as ticketq_base._err does for the queue's own bound.
    try:
        return LaneFull("lane %d full (%d tickets)" % (lane, bound))
    except MemoryError:
        return _LFULL


def _per_lane(v, n, hi, what):
    # Ints, one per lane, from a list, tuple or array (as it is), or from a number 1..hi: for
    # weights (n = 0), that many lanes of weight 1; for lane capacities, n times that bound.
    if isinstance(v, (list, tuple, array, bytes, bytearray)):
        return v
    v = _int(v, 1, hi, what)  # the plain int of an int, bool or int subclass, or TypeError
    return [1] * v if not n else [v] * n


def _weights(weights):
    # The weights as a tuple of ints, checked: 1..30 lanes, each 1..32767, the sum too.
    if weights is None:  # forgotten (a fleet lane queue's default): say what to pass
        raise TypeError("weights: the lanes' weights, as weights=(2, 1), or a number of "
                        "lanes of weight 1")
    weights = _per_lane(weights, 0, _LANES, "lanes")
    _int(len(weights), 1, _LANES, "lanes")
    weights = tuple([_int(w, 1, _SLOTS, "weight") for w in weights])
    total = 0
    for w in weights:
        total += w
    if total > _SLOTS:
        raise ValueError("total weight must be 1..%d" % _SLOTS)
    return weights


def _bounds(v, capacity, n):
    # Each lane's bound as a tuple of ints, checked: None (capacity for every lane), an int
    # 1..capacity for every lane, or one int 1..capacity per lane.
    v = _per_lane(capacity if v is None else v, n, capacity, "lane capacity")
    if len(v) != n:
        raise ValueError("lane capacity: one per lane")
    return tuple([_int(b, 1, capacity, "lane capacity") for b in v])  # plain ints


def table(weights):
    # The lane table: entry p (0 <= p < W) is the lane of slot p of a proportionate-fair
    # schedule of one server among the lanes, lane l's share weights[l] / W. Lane l's j-th
    # turn (j = 0 .. w - 1) is released at floor(j * W / w) and due by ceil((j + 1) * W / w);
    # each slot goes to the released turn due first, the lower lane on a tie (EDF). EDF meets
    # every due date (in any span of slots, the turns released and due inside it are no more
    # than its slots), which keeps every lane within one turn of its share (docs/lanes.md).
    # O(W * lanes); every product below W * W < 2**30.
    weights = _weights(weights)
    n = len(weights)
    total = 0
    for w in weights:
        total += w
    t = bytearray(total)
    done = array("h", range(n))
    for l in range(n):
        done[l] = 0
    for p in range(total):
        b = -1
        bd = 0
        for l in range(n):
            w = weights[l]
            j = done[l]
            if j * total < (p + 1) * w:  # released: floor(j * W / w) <= p (so j < w)
                e = ((j + 1) * total + w - 1) // w
                if b < 0 or e < bd:
                    b = l
                    bd = e
        t[p] = b
        done[b] += 1
    return t


class LaneQueue(TicketQueue):
    # Fixed lanes keep these class defaults (two instance attributes would cost each fixed
    # queue 64 B on the unix port); keyed lanes set their own.
    max_lanes = None
    _m = 0

    def __init__(self, capacity, weights=None, lane_capacity=None, first_seq=0, aging=0,
                 max_lanes=None):
        capacity = _int(capacity, 1, _SLOTS, "capacity")  # a plain int (ticketq.pyi, "Integers")
        if max_lanes is not None:
            # Keyed lanes: ticketq_keyed, loaded by the first keyed queue (so a board using
            # only fixed lanes needs no room for it; deploy.imports, under an `if`, skips it).
            from ticketq_keyed import keyed
            keyed(self, capacity, weights, lane_capacity, aging, max_lanes)
            TicketQueue.__init__(self, capacity, first_seq, 0)  # checks first_seq, clears
            return
        self.weights = _weights(weights)
        n = len(self.weights)
        self.lane_capacity = _bounds(lane_capacity, capacity, n)
        self.lanes = n
        self._tb = table(self.weights)
        self._w = len(self._tb)
        self._lc = array("h", self.lane_capacity)
        self._cnt = array("h", range(n))
        self._hd = array("h", range(4 * n))
        self._tl = array("h", range(4 * n))
        self._mk = array("i", range(4))
        self._cur = array("h", range(4))
        self._ln = bytearray(capacity)
        self._nx = array("h", range(capacity))
        self._pv = array("h", range(capacity))
        self._p = 0
        TicketQueue.__init__(self, capacity, first_seq, aging)  # checks them, calls clear()

    def clear(self):
        TicketQueue.clear(self)
        for x in range(4 * self.lanes):
            self._hd[x] = -1
            self._tl[x] = -1
        for l in range(self.lanes):
            self._cnt[l] = 0
        for c in range(4):
            self._mk[c] = 0
            self._cur[c] = 0
        self.last_lane = -1

    def lane_len(self, lane):
        return self._cnt[_int(lane, 0, self.lanes - 1, "lane")]

    def push(self, job_id, priority, lane=0):
        try:
            # 0 + x: MicroPython cannot add an int subclass to an int (TypeError), so one
            # goes to the checker, which hands back its plain int (ticketq.pyi, "Integers")
            p = job_id >> 30 or (0 + priority) >> 2 or (0 + lane) >> 5 or lane >= self.lanes \
                or type(job_id + priority + lane) is not int  # an int-like that is no int
        except TypeError:  # not an int
            p = 1
        if p:
            _int(job_id, 0, _MASK, "job id")  # raises the specific error
            priority = _int(priority, 0, 3, "priority")
            lane = _int(lane, 0, self.lanes - 1, "lane")
        n = self._n
        if n >= self.capacity:
            raise _err(_FULL)
        if self._cnt[lane] >= self._lc[lane]:
            raise _lane_full(lane, self._lc[lane])
        # As in TicketQueue: the free slot takes the id first, before anything changes.
        self._d[n] = job_id
        p = (1 - priority) << 29
        s = self._nxt
        if s >= self._lim:  # as in TicketQueue.push: keep the last quarter exact, pack older
            w = renumber(self._k, n, s - (self._lim >> 2))
            s -= w
            w += self._nb
            self._nb = w if w < 0 else w - _MASK - 1
        self._nxt = s + 1
        self._k[n] = p + s
        self._ln[n] = lane
        self._link(n, priority, lane, self._tl[priority * self.lanes + lane])
        self._cnt[lane] += 1
        self._n = n + 1
        s += self._nb
        return s if s >= 0 else s + _MASK + 1

    def _link(self, j, c, l, a):
        # Put slot j into list (c, l) after slot a (a < 0: at the head).
        x = c * self.lanes + l
        if a < 0:
            b = self._hd[x]
            self._hd[x] = j
            self._mk[c] |= 1 << l
        else:
            b = self._nx[a]
            self._nx[a] = j
        self._pv[j] = a
        self._nx[j] = b
        if b < 0:
            self._tl[x] = j
        else:
            self._pv[b] = j

    def _unlink(self, j):
        # Take slot j out of its list (the slot itself stays as it is).
        l = self._ln[j]
        c = 1 - (self._k[j] >> 29)
        x = c * self.lanes + l
        a = self._pv[j]
        b = self._nx[j]
        if a < 0:
            self._hd[x] = b
            if b < 0:
                self._mk[c] &= ~(1 << l)
        else:
            self._nx[a] = b
        if b < 0:
            self._tl[x] = a
        else:
            self._pv[b] = a

    def _cut(self, j):
        # Remove the ticket in slot j: unlink it, then move the last ticket into the hole.
        self._unlink(j)
        self._cnt[self._ln[j]] -= 1
        n = self._n - 1
        self._n = n
        if j < n:
            k = self._k
            k[j] = k[n]
            self._d[j] = self._d[n]
            l = self._ln[n]
            self._ln[j] = l
            a = self._pv[n]
            b = self._nx[n]
            self._pv[j] = a
            self._nx[j] = b
            x = (1 - (k[n] >> 29)) * self.lanes + l
            if a < 0:
                self._hd[x] = j
            else:
                self._nx[a] = j
            if b < 0:
                self._tl[x] = j
            else:
                self._pv[b] = j

    def _pick(self):
        # The slot of the next ticket (the rule at the top); its table entry goes to _p.
        if not self._n:
            raise _err(_EMPTY)
        mk = self._mk
        c = 3
        m = mk[3]
        while not m:
            c -= 1
            m = mk[c]
        t = self._tb
        w = self._w
        p = self._cur[c]
        l = t[p]
        while not m >> l & 1:
            p += 1
            if p == w:
                p = 0
            l = t[p]
        self._p = p
        return self._hd[c * self.lanes + l]

    def peek(self):
        i = self._d[self._pick()]
        return i if i >= 0 else ~i

    def pop(self):
        j = self._pick()
        key = self._k[j]
        i = self._d[j]
        l = self._ln[j]
        p = self._p + 1
        self._cur[1 - (key >> 29)] = p if p < self._w else 0
        self._cut(j)
        self.last_lane = l
        # Then TicketQueue.pop's bookkeeping, the same step for step, and the lane. (Not a
        # method both share: such methods in ticketq.py cost the micro:bit 784 B of heap,
        # measured once with tools/devtest.py --emulate microbit, and TicketQueue's pops ~4%
        # of their speed; test_lanes pins the two together on every interpreter.)
        c = 1 - (key >> 29)
        s = (key & _SMASK) + self._nb
        if s < 0:
            s = s + _MASK + 1
        self.last_priority = c
        self.last_seq = s
        p = i < 0
        if p:
            i = ~i
        # The digest: TicketQueue's fold (rotate left 5 within 30 bits, xor the id, rotate
        # again, xor sequence and class << 28), then, for a lane other than 0, one more
        # rotation and xor of the lane, so that lane 0 keeps TicketQueue's digest.
        g = self.digest
        g = ((g & 0x1FFFFFF) << 5 | g >> 25) ^ i
        g = ((g & 0x1FFFFFF) << 5 | g >> 25) ^ s ^ c << 28
        if l:
            g = ((g & 0x1FFFFFF) << 5 | g >> 25) ^ l
        self.digest = g
        if self.trace is not None:
            if l:
                self.trace.record(i, c, s, p, l)
            else:
                self.trace.record(i, c, s, p)
        if self.aging:
            self._left -= 1
            if self._left <= 0:
                self._left = self.aging
                self._promote()
        return i

    def remove(self, job_id):
        # The oldest queued ticket with this id (pushed first), in any lane and class.
        job_id = _int(job_id, 0, _MASK, "job id")
        j = oldest(self._k, self._d, self._n, job_id)
        if j < 0:
            return False
        self._cut(j)
        return True

    def _promote(self):
        # Aging: the oldest ticket below the top class moves up one class, keeping its lane
        # and sequence, marked ~id; it joins the higher class's list of its lane in sequence
        # order (and so that class's rotation). O(n) scan + O(length of that list).
        k = self._k
        j = oldest(k, self._d, self._n, -1)
        if j < 0:
            return
        self._unlink(j)
        k[j] -= 0x20000000
        i = self._d[j]
        if i >= 0:
            self._d[j] = ~i
        c = 1 - (k[j] >> 29)
        l = self._ln[j]
        s = k[j] & _SMASK
        a = self._tl[c * self.lanes + l]
        while a >= 0 and k[a] & _SMASK > s:
            a = self._pv[a]
        self._link(j, c, l, a)

    def set_lane(self, lane, weight=None, bound=None):
        # Keyed lanes bind their own (ticketq_keyed); fixed lanes' weights are fixed.
        raise TypeError("needs keyed lanes (LaneQueue(capacity, max_lanes=N))")

    lane_settings = set_lane

    def __repr__(self):
        # TicketQueue's, renamed, with each lane's tickets / bound. Allocates.
        if self.max_lanes is not None:
            return "<LaneQueue%s lanes=%d/%d>" % (TicketQueue.__repr__(self)[12:-1],
                                                  self.lanes, self._m)
        return "<LaneQueue%s lanes=%s>" % (TicketQueue.__repr__(self)[12:-1], ",".join(
            ["%d/%d" % (self._cnt[l], self._lc[l]) for l in range(self.lanes)]))

# ticketq.keyed: keyed lanes for ticketq.lanes.LaneQueue, LaneQueue(capacity, max_lanes=N):
# lanes named by an int key, made on first push, gone when empty, served by a ring per
# class. Documentation: the docstrings below (help(), editors; the .pyi stubs carry the
# types). mpy-cross and freezing drop them, ticketq deploy strips them for a board that
# compiles source.
#
# A module of its own, imported by the first keyed LaneQueue: a board that uses only fixed
# lanes neither compiles nor stores it (it would double ticketq.lanes.py: compiling from
# source takes about three times a module's size of free heap, and the micro:bit's firmware
# freezes ticketq.lanes but has no flash to spare for this). The functions below are
# LaneQueue methods (self is the queue): keyed() puts them on the class once, under the
# names they have here, and binds the public ones onto the keyed instance (self.push =
# self._kpush ...), so a keyed queue finds them first, calls them as bound methods (no
# allocation, as any method call), and a fixed-lane queue runs exactly the code it ran
# before.
"""ticketq.keyed: keyed lanes for ``ticketq.lanes.LaneQueue``: ``LaneQueue(capacity,
max_lanes=N)`` makes a lane per int key (0 <= key < 2**30) at its first push and frees it
when it empties, at most N at once (``LanesFull`` beyond, naming the key), each with a weight
(1..32767) and a bound (1..capacity) set at any time with ``set_lane``. Each class is served
by a ring of its lanes: a lane's turn is ``weight`` pops in a row, then it moves to the tail.

Imported by the first keyed LaneQueue, never by users: ``keyed(q)`` puts the functions below
on the class once, under their own names, and binds the public ones onto the keyed instance,
so a fixed-lane queue runs exactly the code it ran before. All storage (the key table, the
rings, per-lane settings) is preallocated by the constructor: push, pop, peek, remove and
lane_len allocate nothing (heap_lock tests) and touch only small ints; push and pop are
O(log n) plus O(1) expected for the key lookup (a hash table with linear probing).
Errors are LaneQueue's: TypeError/ValueError for a bad key or setting, LaneFull, LanesFull,
QueueFull, QueueEmpty; the queue unchanged. Guide: docs/lanes.md, "Keyed lanes".

Design sources: deficit round robin (Shreedhar and Varghese, 1995) with quantum w and
one-ticket packets for the ring; EchoMQ's ring of serviceable lanes and BullMQ Pro's group
round robin (state kept only for lanes that hold tickets); docs/lanes.md, "Why a ring".
"""
from array import array
from ticketq.core import TicketQueue, oldest, renumber, _int, _FULL, _EMPTY, _err

try:
    from micropython import const
except ImportError:
    const = lambda x: x

_MASK = const(0x3FFFFFFF)  # 2**30 - 1: sequence numbers, ids and keys are 30-bit
_SMASK = const(0x1FFFFFFF)  # internal sequence bits of a key
_SLOTS = const(0x7FFF)  # links are array('h'): the largest weight too
# What this module needs of ticketq.lanes (LaneQueue, LanesFull, _lane_full), and _LSFULL:
# module globals that keyed() sets at the first keyed queue, from what LaneQueue.__init__
# hands it; nothing here runs before that. lanes imports keyed, never the other way (no
# import circle; tests/test_import_cycles.py).


def _lanes_full(key, most):
    # A push for a new key while max_lanes lanes exist: names the key and max_lanes (under
    # heap_lock, the preallocated instance).
    try:
        return LanesFull("no lane for key %d: max_lanes (%d) lanes exist" % (key, most))
    except MemoryError:
        return _LSFULL


_NAMES = ("_kclear", "_find", "_klane_len", "_kpush", "_kcut", "_kfree", "_khead", "_kpeek",
          "_kpop", "_kremove", "_kset_lane", "_klane_settings", "_korder", "_kwhy")


# Keyed lanes (max_lanes=N, no weights): lanes named by an int key 0 <= key < 2**30, made
# by their first push, gone when their last ticket leaves; served by a ring per class
# (docs/lanes.md, "Keyed lanes"). The rule, stated once. Per class c, R_c is a FIFO of the
# lanes that have a ticket of class c, and _u[c] counts the pops its head has taken in
# its current turn. A push appends the ticket to its lane's class list and, if that list
# was empty, the lane to the tail of R_c. A pop takes the highest class whose ring is not
# empty, the head h of its ring, h's oldest ticket of that class; then, if h has no more
# tickets of the class, h leaves R_c (_u[c] = 0), else if _u[c] + 1 reaches h's weight
# (read now), h moves to the tail (_u[c] = 0). A remove that empties a lane's class list
# takes the lane out of that ring (_u[c] = 0 if it was the head). Nothing else moves a
# ring: no clock, no set_lane.
#
# Storage, all allocated by keyed() (14 bytes a slot, ~46 bytes a lane, M = max_lanes = _m):
#   _k, _d, _nx, _pv  as for fixed lanes; _ln the lane slot of each ticket (array('h'))
#   _hd, _tl          head and tail ticket of list x = class * M + lane slot, -1 if empty
#   _rn, _rp          ring links, at the same x: next and previous lane slot in R_c
#   _rh, _rt, _u      per class: ring head and tail lane slot (-1: empty), the head's pops
#   _key, _kw, _lc, _cnt per lane slot: its key (-1 free), weight, bound, tickets queued
#   _fr               free lane slots, a stack: _fr[0 .. M - lanes - 1]
#   _ht               the key table: open addressing, linear probing, H = a power of two
#                     >= 2 * M entries (load <= 1/2), each a lane slot or -1; deletion by
#                     backward shift, so no tombstones: O(1) expected per lookup.
# Every integer stays small: keys and ids below 2**30 are only compared, masked,
# xor-ed and hashed with products below 2**30.
def keyed(self, capacity, weights, lane_capacity, aging, most, lanes):
    """Checks the arguments and allocates everything (LaneQueue.__init__ then runs
    TicketQueue's, which calls clear()). ``lanes``: (LaneQueue, LanesFull, _lane_full) of
    ticketq.lanes, kept here at the first call.
    """
    global LaneQueue, LanesFull, _lane_full, _LSFULL
    if "LaneQueue" not in globals():
        LaneQueue, LanesFull, _lane_full = lanes
        _LSFULL = LanesFull("max_lanes lanes exist")
    most = _int(most, 1, capacity, "max_lanes")
    if weights is not None:
        raise ValueError("max_lanes is for keyed lanes: give no weights")
    if lane_capacity is not None:
        raise ValueError("lane_capacity needs fixed lanes (keyed: set_lane(key, bound=))")
    if _int(aging, 0, _MASK, "aging"):
        raise ValueError("aging needs fixed lanes")
    self.max_lanes = most
    self._m = most
    self.weights = None
    self.lane_capacity = None
    h = 2
    while h < 2 * most:
        h <<= 1
    self._hm = h - 1
    self._ht = array("h", range(h))
    self._ln = array("h", range(capacity))
    self._nx = array("h", range(capacity))
    self._pv = array("h", range(capacity))
    self._hd = array("h", range(4 * most))
    self._tl = array("h", range(4 * most))
    self._rn = array("h", range(4 * most))
    self._rp = array("h", range(4 * most))
    self._rh = array("h", range(4))
    self._rt = array("h", range(4))
    self._u = array("h", range(4))
    self._key = array("i", range(most))
    self._kw = array("h", range(most))
    self._lc = array("h", range(most))
    self._cnt = array("h", range(most))
    self._fr = array("h", range(most))
    if not hasattr(LaneQueue, "_kpush"):
        g = globals()
        for n in _NAMES:
            setattr(LaneQueue, n, g[n])
    self.push = self._kpush
    self.pop = self._kpop
    self.peek = self._kpeek
    self.remove = self._kremove
    self.clear = self._kclear
    self.lane_len = self._klane_len
    self.set_lane = self._kset_lane
    self.lane_settings = self._klane_settings


def _kclear(self):
    """LaneQueue.clear for keyed lanes (bound as ``q.clear``): drops every ticket, every
    lane with its settings (weight, bound) and every ring with its turn counts; the sequence
    goes on. O(max_lanes); no allocation on MicroPython. See LaneQueue.clear.
    """
    TicketQueue.clear(self)
    for x in range(4 * self._m):
        self._hd[x] = -1
        self._tl[x] = -1
    for c in range(4):
        self._rh[c] = -1
        self._rt[c] = -1
        self._u[c] = 0
    for x in range(self._hm + 1):
        self._ht[x] = -1
    m = self._m
    for s in range(m):
        self._key[s] = -1
        self._cnt[s] = 0
        self._fr[s] = m - 1 - s  # slot 0 is taken first
    self.lanes = 0
    self.last_lane = -1


def _find(self, key):
    # The lane slot of this key, or ~i (negative) for the empty table entry i where it
    # would go. The hash: two 15-bit halves times odd 15-bit constants (products below
    # 2**30), folded; then linear probing.
    h = (key & 0x7FFF) * 0x6B43 ^ (key >> 15) * 0x4F1B
    m = self._hm
    i = (h ^ h >> 13) & m
    s = self._ht[i]
    k = self._key
    while s >= 0:
        if k[s] == key:
            return s
        i = (i + 1) & m
        s = self._ht[i]
    return ~i


def _klane_len(self, lane):
    """LaneQueue.lane_len for keyed lanes (bound as ``q.lane_len``): tickets queued
    under key ``lane`` (0 <= key < 2**30), all classes; 0 for a key with no lane.
    TypeError/ValueError for a bad key. O(1) expected; no allocation. See LaneQueue.lane_len.
    """
    s = self._find(_int(lane, 0, _MASK, "lane"))
    return self._cnt[s] if s >= 0 else 0


def _kpush(self, job_id, priority, lane=0):
    """LaneQueue.push for keyed lanes (bound as ``q.push``): ``lane`` is a key,
    0 <= key < 2**30; a key with no lane gets one (weight 1, bound capacity, at the tail of
    its class's ring). Returns the sequence number. Raises TypeError/ValueError for bad input,
    QueueFull, LaneFull (the key's ``set_lane`` bound), LanesFull for a new key while
    ``max_lanes`` lanes exist; the queue unchanged, no sequence number used up. O(1)
    expected (the key table; renumbering aside); no allocation. See LaneQueue.push for the
    rest.
    """
    try:
        # As the fixed push; xor, not +, for the int-like test: a sum of an id and a key
        # can pass 2**30 (no small int), their xor cannot.
        p = job_id >> 30 or (0 + priority) >> 2 or (0 + lane) >> 30 \
            or type(job_id ^ priority ^ lane) is not int
    except TypeError:
        p = 1
    if p:
        _int(job_id, 0, _MASK, "job id")
        priority = _int(priority, 0, 3, "priority")
        lane = _int(lane, 0, _MASK, "lane")
    n = self._n
    if n >= self.capacity:
        raise _err(_FULL)
    f = self._find(lane)
    if f < 0:
        if self.lanes >= self._m:
            raise _lanes_full(lane, self._m)
    elif self._cnt[f] >= self._lc[f]:
        raise _lane_full(lane, self._lc[f])
    self._d[n] = job_id
    p = (1 - priority) << 29
    s = self._nxt
    if s >= self._lim:  # as in TicketQueue.push
        w = renumber(self._k, n, s - (self._lim >> 2))
        s -= w
        w += self._nb
        self._nb = w if w < 0 else w - _MASK - 1
    self._nxt = s + 1
    self._k[n] = p + s
    if f < 0:  # a new lane: the free slot on top of the stack, weight 1, bound capacity
        self.lanes += 1
        p = self._fr[self._m - self.lanes]
        self._ht[~f] = p
        self._key[p] = lane
        self._kw[p] = 1
        self._lc[p] = self.capacity
        f = p
    self._ln[n] = f
    # Append slot n to list (priority, f); a list that was empty puts its lane at the
    # tail of the class's ring.
    x = priority * self._m + f
    a = self._tl[x]
    self._pv[n] = a
    self._nx[n] = -1
    self._tl[x] = n
    if a < 0:
        self._hd[x] = n
        a = self._rt[priority]
        self._rp[x] = a
        self._rn[x] = -1
        self._rt[priority] = f
        if a < 0:
            self._rh[priority] = f
        else:
            self._rn[priority * self._m + a] = f
    else:
        self._nx[a] = n
    self._cnt[f] += 1
    self._n = n + 1
    s += self._nb
    return s if s >= 0 else s + _MASK + 1


def _kcut(self, j):
    # Remove the ticket in slot j: unlink it (a list left empty takes its lane out of
    # the ring, _u = 0 if it was the head; a lane left with no ticket is freed), then
    # move the last ticket into the hole.
    m = self._m
    l = self._ln[j]
    c = 1 - (self._k[j] >> 29)
    x = c * m + l
    a = self._pv[j]
    b = self._nx[j]
    if a < 0:
        self._hd[x] = b
    else:
        self._nx[a] = b
    if b < 0:
        self._tl[x] = a
    else:
        self._pv[b] = a
    if a < 0 and b < 0:  # out of R_c
        a = self._rp[x]
        b = self._rn[x]
        if a < 0:
            self._rh[c] = b
            self._u[c] = 0
        else:
            self._rn[c * m + a] = b
        if b < 0:
            self._rt[c] = a
        else:
            self._rp[c * m + b] = a
    b = self._cnt[l] - 1
    self._cnt[l] = b
    if not b:  # the lane ceases to exist: its key leaves the table (backward shift)
        self._kfree(l)
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
        x = (1 - (k[n] >> 29)) * m + l
        if a < 0:
            self._hd[x] = j
        else:
            self._nx[a] = j
        if b < 0:
            self._tl[x] = j
        else:
            self._pv[b] = j


def _kfree(self, s):
    # Lane slot s is empty: its key's table entry (probed for from its hash) is deleted
    # and the slot goes back on the free stack.
    t = self._ht
    m = self._hm
    key = self._key[s]
    h = (key & 0x7FFF) * 0x6B43 ^ (key >> 15) * 0x4F1B
    i = (h ^ h >> 13) & m
    while t[i] != s:
        i = (i + 1) & m
    # Backward-shift deletion: later entries of the probe run whose home is not in
    # (i, j] move into the hole.
    j = i
    while 1:
        j = (j + 1) & m
        x = t[j]
        if x < 0:
            break
        key = self._key[x]
        h = (key & 0x7FFF) * 0x6B43 ^ (key >> 15) * 0x4F1B
        h = (h ^ h >> 13) & m
        if (j - h) & m >= (j - i) & m:
            t[i] = x
            i = j
    t[i] = -1
    self._key[s] = -1
    self._fr[self._m - self.lanes] = s
    self.lanes -= 1


def _khead(self):
    # (class, head lane slot) of the next pop.
    if not self._n:
        raise _err(_EMPTY)
    r = self._rh
    c = 3
    h = r[3]
    while h < 0:
        c -= 1
        h = r[c]
    return c * self._m + h


def _kpeek(self):
    """LaneQueue.peek for keyed lanes (bound as ``q.peek``): the job id pop() would
    return (the head lane of the highest non-empty class's ring); nothing changes. Raises
    QueueEmpty. O(1); no allocation. See LaneQueue.peek.
    """
    i = self._d[self._hd[self._khead()]]
    return i if i >= 0 else ~i


def _kpop(self):
    """LaneQueue.pop for keyed lanes (bound as ``q.pop``): the oldest ticket of the
    head lane of the highest non-empty class's ring, then the ring's turn rule (a head that
    has taken ``weight`` pops in a row moves to the tail); ``last_lane`` is the key, and the
    key is folded into ``digest``. A lane left with no ticket ceases to exist. Raises
    QueueEmpty (queue unchanged). O(1) expected; no allocation. See LaneQueue.pop.
    """
    x = self._khead()
    m = self._m
    c = x // m
    h = x - c * m
    j = self._hd[x]
    key = self._k[j]
    i = self._d[j]
    l = self._key[h]
    self._kcut(j)
    if self._rh[c] == h:  # still in the ring: count the turn against its weight now
        u = self._u[c] + 1
        if u >= self._kw[h]:
            u = 0
            b = self._rn[x]
            if b >= 0:  # to the tail
                a = self._rt[c]
                self._rh[c] = b
                self._rp[c * m + b] = -1
                self._rn[c * m + a] = h
                self._rp[x] = a
                self._rn[x] = -1
                self._rt[c] = h
        self._u[c] = u
    self.last_lane = l
    # Then TicketQueue.pop's bookkeeping, as the fixed pop does, with the key in place of
    # the lane (keyed lanes have no aging).
    s = (key & _SMASK) + self._nb
    if s < 0:
        s = s + _MASK + 1
    self.last_priority = c
    self.last_seq = s
    p = i < 0
    if p:
        i = ~i
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
    return i


def _kremove(self, job_id):
    """LaneQueue.remove for keyed lanes (bound as ``q.remove``): removes the oldest
    queued ticket with this id; True if one was. A lane left with no ticket of that class
    leaves the ring (the head's turn count restarts if it was the head); one left with no
    ticket ceases to exist. TypeError/ValueError for a bad id (queue unchanged). O(n); no
    allocation. See LaneQueue.remove.
    """
    job_id = _int(job_id, 0, _MASK, "job id")
    j = oldest(self._k, self._d, self._n, job_id)
    if j < 0:
        return False
    self._kcut(j)
    return True


def _kset_lane(self, lane, weight=None, bound=None):
    """LaneQueue.set_lane for keyed lanes (bound as ``q.set_lane``): the weight
    (1..32767) and/or bound (1..capacity) of key ``lane``'s existing lane, from the next pop
    and push on; None keeps a setting. TypeError/ValueError for a bad argument, ValueError
    for a key with no lane ("lane 7 has no tickets ... push first"); nothing changed then.
    O(1) expected; no allocation (except the error messages). See LaneQueue.set_lane.
    """
    # A lane's weight and bound, from the next pop and push on; nothing moves now.
    lane = _int(lane, 0, _MASK, "lane")
    if weight is not None:
        weight = _int(weight, 1, _SLOTS, "weight")
    if bound is not None:
        bound = _int(bound, 1, self.capacity, "lane capacity")
    s = self._find(lane)
    if s < 0:
        raise ValueError("lane %d has no tickets (a board keeps settings only while its "
                         "lane exists: push first)" % lane)
    if weight is not None:
        self._kw[s] = weight
    if bound is not None:
        self._lc[s] = bound


def _klane_settings(self, lane):
    """LaneQueue.lane_settings for keyed lanes (bound as ``q.lane_settings``):
    ``(tickets, weight, bound)`` of key ``lane``'s lane, None if it has none.
    TypeError/ValueError for a bad key. O(1) expected; allocates (a tuple). See
    LaneQueue.lane_settings.
    """
    # (tickets, weight, bound) of a keyed lane; None when it has no tickets. Allocates.
    s = self._find(_int(lane, 0, _MASK, "lane"))
    return (self._cnt[s], self._kw[s], self._lc[s]) if s >= 0 else None


def _korder(self):
    # For ticketq.audit: the tickets in pop order, [(slot, class, turn), ...], each class's
    # ring played out as pop plays it; turn counts the pops of that class from now (1 = the
    # next). Allocates (REPL use).
    out = []
    m = self._m
    for c in (3, 2, 1, 0):
        ring = []
        x = self._rh[c]
        while x >= 0:
            ring.append(x)
            x = self._rn[c * m + x]
        lists = {}
        for x in ring:
            s = []
            j = self._hd[c * m + x]
            while j >= 0:
                s.append(j)
                j = self._nx[j]
            lists[x] = s
        u = self._u[c]
        turn = 0
        while ring:
            x = ring[0]
            turn += 1
            out.append((lists[x].pop(0), c, turn))
            u += 1
            if not lists[x]:
                ring.pop(0)
                u = 0
            elif u >= self._kw[x]:
                ring.append(ring.pop(0))
                u = 0
    return out


def _kwhy(self, ta, tb, names, nth):
    # For ticketq.audit.explain: why ta pops before tb, both queued in one class and
    # different lanes (ta, tb: its dicts). Allocates.
    c = ta["cls"]
    ring = []
    x = self._rh[c]
    while x >= 0:
        ring.append("%d (weight %d)" % (self._key[x], self._kw[x]))
        x = self._rn[c * self._m + x]
    why = ("both are %s but in different lanes, so the ring of %s lanes decides (head "
           "first: %s; the head has used %d of its turn): job %d pops at the %s %s pop "
           "from now, job %d at the %s; each lane is FIFO, and the ring, not the sequence "
           "number, orders lanes" % (names[c], names[c], ", ".join(ring), self._u[c],
                                     ta["id"], nth(ta["turn"]), names[c], tb["id"],
                                     nth(tb["turn"])))
    if tb["key"] & 0x1FFFFFFF < ta["key"] & 0x1FFFFFFF:
        why += " (job %d was pushed earlier)" % tb["id"]
    return why

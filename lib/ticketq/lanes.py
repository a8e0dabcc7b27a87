# ticketq.lanes: fair lanes. A ticket queue whose classes are each split into per-key FIFO
# lanes (a device, a peer, a tenant), served in a fixed weighted rotation, so that one
# chatty source cannot delay the others of its class. Documentation: the docstrings below
# (help(), editors; the .pyi stubs carry the types). mpy-cross and freezing drop them,
# ticketq deploy strips them for a board that compiles source.
#
# The rule, stated once. Higher class first, as in TicketQueue. Within a class, the lane
# table (table() below: each lane l appears weights[l] times in W = sum(weights) entries,
# spread by a proportionate-fair EDF schedule) is read as a ring from the class's cursor:
# the first entry whose lane has a ticket of that class names the lane; its oldest ticket
# pops and the cursor moves just past that entry. Nothing else moves a cursor, and no clock
# is read: the rotation is a function of the operation order alone.
#
# Storage, all allocated in __init__ (13 bytes a slot, W + 28 bytes a lane):
#   _k, _d    as in TicketQueue (ticketq.core's key layout, ~id once aging promoted it), but
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
# (the same steps in push and pop below); oldest() and renumber() from ticketq.core work on
# the pool because they only need the live tickets in slots 0 .. n-1.
#
# Hot paths (push, pop, peek, remove, len, lane_len) allocate nothing and keep every
# integer a small int: bit masks below 2**30, links and counts below 2**15.
#
# The base class is the bytecode TicketQueue on every path (ticketq.PATH): this class
# replaces push, pop, peek and remove, and the viper class under it would only turn the
# shared fields into properties over an array, halving the speed of a push+pop (measured
# on the 32-bit unix port: 13.6 us against 6.7 us at 120 queued). So on the viper path a
# LaneQueue is no instance of ticketq.TicketQueue; ticketq.core.QueueBase is the class
# every queue shares.
"""ticketq.lanes: fair lanes, a ticket queue whose classes are split into weighted FIFO lanes.

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
  ``ticketq.audit.lane_max_wait``.
- *Order.* A push never reorders queued tickets: within a class each lane's tickets take
  that lane's next turns of the table, whatever other lanes do.
- *Aging* (``aging=N``): every N pops the oldest ticket (pushed first) below CRITICAL (any
  lane) moves up one class, keeping its lane and sequence number, and joins that lane's list
  of the higher class in sequence order, so it takes part in that class's rotation. The
  wait bound becomes ``N*((capacity - 1)*3 + 3 - c) + G`` pops, G the top-class figure
  above (``ticketq.audit.lane_max_wait``).

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
queue (measured once on the 32-bit unix port with gc.mem_alloc(), ticketq.keyed already
imported: LaneQueue(64, max_lanes=8) 2256 B, LaneQueue(64, max_lanes=64) 4832 B). The code
is in ``ticketq.keyed``, imported by the first keyed queue (a board that uses only fixed
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
``ticketq.QueueBase`` is the class every queue shares). A LaneQueue with one lane pops
exactly what a TicketQueue pops on either path, digest included (tests/test_differential.py).
"""
from array import array
from ticketq.core import TicketQueue, oldest, renumber, _int, QueueFull, _FULL, _EMPTY, _err

try:
    from micropython import const
except ImportError:
    const = lambda x: x

_MASK = const(0x3FFFFFFF)  # 2**30 - 1: sequence numbers and ids are 30-bit
_SMASK = const(0x1FFFFFFF)  # internal sequence bits of a key
_LANES = const(30)  # a class's lanes are bits of one small int
_SLOTS = const(0x7FFF)  # links are array('h'); also the largest total weight (W * W < 2**30)


class LaneFull(QueueFull):
    """Raised by push when the ticket's lane holds ``lane_capacity[lane]`` tickets; the queue
    is unchanged (no sequence number spent) and other lanes still take pushes.

    A QueueFull, so ``except QueueFull`` catches both bounds; the queue's own bound raises a
    plain QueueFull ("ticket queue full") and is checked first. The message names the lane
    and its bound, ``"lane 2 full (4 tickets)"``; under ``micropython.heap_lock()``, where a
    message cannot be built, a preallocated instance ``"ticket lane full"`` is raised.
    """
    pass


class LanesFull(QueueFull):
    """Raised by push on a keyed queue for a key that has no lane while ``max_lanes`` lanes
    exist; the queue is unchanged (no sequence number spent), and keys that have a lane
    still take pushes. A QueueFull (not a LaneFull). The queue's own bound is checked
    first. The message names the key and max_lanes, ``"no lane for key 7: max_lanes (4)
    lanes exist"``; under ``micropython.heap_lock()`` the preallocated instance
    ``"max_lanes lanes exist"`` is raised.
    """
    pass


_LFULL = LaneFull("ticket lane full")


def _lane_full(lane, bound):
    # Says which lane and its bound; under heap_lock (formatting allocates) the preallocated
    # instance, as ticketq.core._err does for the queue's own bound.
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
    """A bounded ticket queue with weighted fair lanes inside each priority class.
    """
    max_lanes = None
    _m = 0

    def __init__(self, capacity, weights=None, lane_capacity=None, first_seq=0, aging=0,
                 max_lanes=None):
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
        ticketq's docstring, "Integers"), ValueError for a value out of range: "lanes must be 1..30", "weight must
        be 1..32767", "total weight must be 1..32767", "lane capacity must be 1..<capacity>",
        "lane capacity: one per lane", "capacity must be 1..32767"; keyed: "max_lanes must
        be 1..<capacity>", "max_lanes is for keyed lanes: give no weights", "lane_capacity
        needs fixed lanes (keyed: set_lane(key, bound=))", "aging needs fixed lanes".
        Without weights and without max_lanes: the TypeError for weights None above.
        """
        capacity = _int(capacity, 1, _SLOTS, "capacity")  # a plain int (ticketq's docstring, "Integers")
        if max_lanes is not None:
            # Keyed lanes: ticketq.keyed, loaded by the first keyed queue (so a board using
            # only fixed lanes needs no room for it; deploy.imports, under an `if`, skips it).
            from ticketq.keyed import keyed
            keyed(self, capacity, weights, lane_capacity, aging, max_lanes, (LaneQueue, LanesFull, _lane_full))
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
        """Drop every ticket; reset digest, the aging count, last_* and every cursor (so the
        schedule after clear() is that of a new queue); keyed: every lane (and its settings)
        and every ring, with their turn counts. The sequence goes on.
        """
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
        """Tickets queued in this lane, all classes. Raises TypeError/ValueError for an
        unknown lane (keyed: a key out of 0..2**30 - 1; a key with no lane has 0). O(1)
        (keyed: expected); no allocation.
        """
        return self._cnt[_int(lane, 0, self.lanes - 1, "lane")]

    def push(self, job_id, priority, lane=0):
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
        try:
            # 0 + x: MicroPython cannot add an int subclass to an int (TypeError), so one
            # goes to the checker, which hands back its plain int (ticketq's docstring, "Integers")
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
        """Job id of the ticket pop() would return; nothing changes. Raises QueueEmpty.
        """
        i = self._d[self._pick()]
        return i if i >= 0 else ~i

    def pop(self):
        """Remove the next ticket (the rule above) and return its job id; set
        ``last_priority``, ``last_seq``, ``last_lane``; fold it into ``digest``: TicketQueue's
        fold, then, for a lane other than 0, one more rotate-left-5 and xor of the lane
        (keyed: of the key). Keyed: the head of the highest non-empty class's ring, then
        the ring's turn rule (module docstring). Raises QueueEmpty (queue unchanged). O(1)
        plus skipped table entries (keyed: O(1) expected); no allocation.
        """
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
        # measured once with ticketq devtest --emulate microbit, and TicketQueue's pops ~4%
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
        """Remove the oldest queued ticket (pushed first) with this id, whatever its
        lane and class; True if one was removed. Cursors do not move. Keyed: if that was
        its lane's last ticket of its class, the lane leaves that ring (the head's turn
        count restarts if it was the head); no other lane moves; a lane left with no ticket
        ceases to exist. Raises TypeError/ValueError for an id push would refuse (queue
        unchanged). O(n); no allocation.
        """
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
        # Keyed lanes bind their own (ticketq.keyed); fixed lanes' weights are fixed.
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
        O(1) expected; no allocation (except the error messages).
        """
        raise TypeError("needs keyed lanes (LaneQueue(capacity, max_lanes=N))")

    def lane_settings(self, lane):
        # Keyed lanes bind their own (ticketq.keyed); fixed lanes have no settings to read.
        """Keyed lanes: ``(tickets, weight, bound)`` of the key's lane (tickets queued in it,
        all classes; weight 1..32767; bound 1..capacity), None if the key has no lane.
        TypeError on a fixed-lane queue (as set_lane's), TypeError/ValueError for a bad key
        ("lane must be 0..1073741823"). O(1) expected; allocates (a tuple).
        """
        raise TypeError("needs keyed lanes (LaneQueue(capacity, max_lanes=N))")

    def __repr__(self):
        # TicketQueue's, renamed, with each lane's tickets / bound. Allocates.
        """``<LaneQueue n/capacity CRITICAL=c HIGH=h NORMAL=m LOW=l lanes=a/A,b/B,...>``:
        TicketQueue's, with each lane's tickets/bound (allocates); keyed: ``lanes=n/max_lanes``.
        """
        if self.max_lanes is not None:
            return "<LaneQueue%s lanes=%d/%d>" % (TicketQueue.__repr__(self)[12:-1],
                                                  self.lanes, self._m)
        return "<LaneQueue%s lanes=%s>" % (TicketQueue.__repr__(self)[12:-1], ",".join(
            ["%d/%d" % (self._cnt[l], self._lc[l]) for l in range(self.lanes)]))

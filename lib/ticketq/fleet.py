# ticketq.fleet: ticketq.TicketQueue's contract kept in Redis or Valkey, shared by many
# boards and gateway processes. Documentation: the docstrings below (help(), editors; the
# .pyi stubs carry the types). mpy-cross and freezing drop them, ticketq deploy strips them
# for a board that compiles source.
#
# Every change of state happens in the server, inside one Redis Function of the ticketq
# library (fleet/*.lua, loaded once per server by ticketq fleet install), so each call is
# atomic whichever client makes it. This module only checks arguments (with ticketq's own
# checker, so the errors are TicketQueue's), names the keys, calls the functions by name
# (FCALL tq<VERSION>_<op>) and reads their replies. It runs unchanged on CPython (with a
# redis-py client) and on MicroPython boards with sockets (with ticketq.resp.Redis): any
# object with redis-py's execute_command(*args) will do. Not for the micro:bit: no socket.
#
# Dropped connections: every call that changes the queue carries (client number, call
# number); the server keeps each client's last reply per kind of call and replays it when
# the same call comes again. A call that meets a network error is sent again, the same, up
# to `retries` times (the client reconnects); a pop that still got no reply is sent again,
# the same, by the next pop, which so returns the ticket the lost reply carried.
"""ticketq.fleet: the queue's contract kept in Redis or Valkey (7.0 or later), for a fleet
of boards and gateway processes that share one backlog: ``FleetQueue`` (ticketq.TicketQueue's
rule) and ``FleetLaneQueue`` (ticketq.lanes.LaneQueue's fair lanes). Guide: docs/fleet.md.

    import redis
    from ticketq.fleet import FleetQueue

    q = FleetQueue(redis.Redis(), "jobs", 256)   # made on first open, checked after
    q.push(42, 2)                                 # -> sequence number 0 <= s < 2**30
    job = q.pop(30000)                            # leased for 30 s by the server's clock
    ...
    q.ack(q.last_lease)

Server side: every change of state is one call of a Redis Function of the
``ticketq_<VERSION>`` library (fleet/core.lua, queue.lua, lease.lua, lanes.lua, keyed.lua,
age.lua; loaded once per server with ``ticketq fleet install``), so each operation is
atomic whichever client makes it, and no client holds the Lua. This module checks arguments
(with the board classes' own checkers: the same TypeError and ValueError, with the same
words, raised before anything is sent), names the queue's keys (one hash tag, one Redis
Cluster slot), calls the functions by name (``FCALL tq<VERSION>_<op>``) and reads the replies.

Same contract as TicketQueue: higher class first, then FIFO by a sequence number the server
assigns ((first_seq + pushes) mod 2**30, never a client's clock); bounded, QueueFull at push
changes nothing and spends no number; remove takes the oldest queued ticket of an id;
QueueEmpty on an empty queue; optional deterministic aging; the same 30-bit digest formula
over the pops (of every client: the digest is the queue's, kept in the server). One
difference: order stays exact for 2**62 pushes (a ticket's score is its class only, 0..3,
and its place within the class a fixed-width member holding the push counter as two exact
parts; then push raises FleetError TQEXHAUSTED, it never wraps), so a ticket that waited
through more than 2**27 later pushes keeps its sequence number, where TicketQueue renumbers
it (see TicketQueue.push). Checked by tests/test_fleet_conformance.py against TicketQueue
with hypothesis.

Fair lanes: ``FleetLaneQueue(conn, name, capacity, weights, lane_capacity)`` (or
``max_lanes=N`` for keyed lanes) is a FleetQueue whose pushes take a lane and whose pops follow LaneQueue's
rule step for step, run in the server (fleet/lanes.lua): within a class the lane table (W =
sum(weights) entries, ``ticketq.lanes.table``'s pfair/EDF table, computed by the server
once at creation, O(W * lanes), ~0.15 s for 30 lanes and W = 32760; ``table`` holds it as
sent) is read as a ring from the class's cursor to the first entry whose lane has a ticket
of that class. Fed the same operations, a FleetLaneQueue and a LaneQueue pop the same
tickets, with the same sequence numbers, lanes, digest and errors (LaneFull, LanesFull,
QueueFull; tests/test_fleet_lanes_conformance.py). Everything else is inherited. A lease
that ends without an ack puts the ticket back at its sequence place in its lane and moves
no cursor: the lane gets no extra turn. Differences from LaneQueue: capacity up to 2**24
(LaneQueue: 32767); sequence numbers stay exact where a board renumbers.

Leases: ``pop(lease_ms)`` leases the ticket until the server's TIME + lease_ms (1 <=
lease_ms < 2**30 ms; 0, the default: no lease, the ticket leaves the queue); ``ack`` ends it; otherwise it comes back to exactly its place (class
and sequence) when the lease runs out, its delivery count raised, and after
``max_deliveries`` deliveries it goes to the dead-letter list instead. Leased tickets count
against the capacity (and a lane's bound): they may come back. Every time is in ms of the
server's clock; ``pop_until`` takes a ``ticketq.ticks.Deadline`` (ticks of the client).

Clients: any object with redis-py's ``execute_command(*args)``: a ``redis.Redis`` on CPython
(``decode_responses`` either way), or ``ticketq.resp.Redis`` on a board with sockets (esp32,
Pico W, the unix port). Each call that changes the queue carries (client number, call
number); the server keeps each client's last reply per kind of call and replays it to the
same call sent again, so the ``retries`` after a dropped connection (this module's,
redis-py's own) never push or pop twice, and a pop whose reply was lost is sent again by the
next pop, which so returns that ticket. Threads may share one FleetQueue (one call in flight
at a time, by a lock), but the last_* attributes are the last pop's of any thread: give
each consumer thread its own. After os.fork the child takes a new client number on its
first call. Not for the micro:bit (no sockets, no RAM): boards without a network get
tickets through ticketq gateway.

Shapes and ranges: ids, classes (0..3), sequence numbers, the digest, pop numbers and every
count are ints 0 <= v < 2**30 (small ints on a 32-bit board); capacity 1..2**24; a batch
(push_many, pop_many, ack_pop) carries at most 4096 items. Batch pops return lists of
``(id, class, seq, lease token or None)``.

Errors: TypeError/ValueError for a bad argument (TicketQueue's words, nothing sent);
QueueFull, LaneFull, LanesFull, QueueEmpty as the board classes raise them; FleetError (its
message starts with the server's code: TQNOQUEUE, TQCONFIG, TQLAYOUT, TQKIND, TQTYPE,
TQSTALE, TQEXHAUSTED, TQEXPIRED, TQARG) when the server or the queue is not what this client
expects, the queue unchanged; a network error (OSError, redis-py's ConnectionError) once
the retries are spent; NotDurable (a FleetError) with num_replicas >= 1 when the replicas
did not confirm a write in time (the write was applied on the primary: see NotDurable).

Cost: one network round trip per call (a batch: one for up to 4096 items); in the server
push, pop, remove and ack are O(log n) (sorted sets), tickets and info O(n). This module
allocates (a network client does): it is not for a heap_lock'ed hot path.

Design sources: BullMQ's commands (one server function per operation, atomic, the contract
at the function) and its stalled-job redelivery; SQS's visibility timeout and dead-letter
queue (maxReceiveCount) for leases; Redis Functions (FUNCTION LOAD, FCALL) and hash tags for
Cluster; idempotent retries by (client, call) numbers as in Kafka's idempotent producer.
"""
from ticketq.core import _int, QueueFull, QueueEmpty
from ticketq.ticks import timeout, Deadline
from ticketq.lanes import LaneFull, _lane_full, _weights, _bounds  # noqa: F401 (LaneFull: API)
import ticketq.lanes

try:  # one call in flight per queue object, whichever thread makes it
    from _thread import allocate_lock
except ImportError:  # a MicroPython without threads
    allocate_lock = None
try:
    from os import getpid
except ImportError:  # MicroPython: no fork either
    getpid = None

VERSION = 1  # of the server library (ticketq_1) and the key layout it reads
_MASK = 0x3FFFFFFF
# The keys of one queue, in the order every function takes them (fleet/core.lua).
_BATCH = 4096  # the most tickets or tokens one batch call carries (fleet/queue.lua BATCH_MAX)
# the server functions that take (client, call) numbers and are replayed (core.lua IDEM_OPS, with
# their lane and keyed names)
_IDEM = ("push", "pop", "remove", "clear", "ack", "release", "dead", "pushn", "popn", "ackpop",
         "revive", "lpush", "lpop", "kpush", "kpop", "kremove", "kclear", "kack", "krelease",
         "kdead", "krevive")
_SUFFIXES = ("meta", "ready", "ids", "promo", "leased", "deliv", "wake", "dead", "idem", "idemt")
_WAKE = 6


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
    queue.
    """
    pass


class NotDurable(FleetError):
    """A call that changes the queue ran on the primary, but the replicas did not confirm it
    in time (FleetQueue(..., num_replicas=N) and N >= 1): ``WAIT N wait_timeout`` counted
    fewer than N replicas, or ``WAITAOF`` fewer fsyncs than asked, or the server refused
    WAIT/WAITAOF (the error's text is in the message). The write WAS applied on the primary:
    it is there now, and is lost only if the primary is lost (crash, failover) before a
    replica gets it. Never raised with num_replicas=0.

    Attributes: ``op`` (the server function: "push", "lpush", "pop", "ack", ...), ``call``
    (client number, call number) of a replayable call, else None; ``reply`` (the server's
    reply to it, as it came); ``job_id``, ``seq``, ``lease`` (the ticket's id, sequence
    number, lease token, where the call says them: a push's id and seq, a pop's ticket and
    lease, an ack's or release's token; ``seq`` a list for push_many), ``asked`` (N),
    ``acked`` (replicas WAIT counted), ``aof`` (None: no WAITAOF sent; else (local fsyncs,
    replica fsyncs) as WAITAOF answered), ``timeout_ms`` (wait_timeout).

    What to do: make the same call again, with the same arguments, on the same queue
    object (push(42, 2) again, pop() again, ack(token) again): it is sent as the same call
    (the same client and call number), which the server replays (its recorded answer; the
    write is not applied again: no second push, no second lease), then waits again; it
    returns the first call's answer once the replicas confirm (or raises NotDurable again).
    A pop's ticket is held for that retry by the lease (the next pop() sends the unanswered
    pop again, as after a lost reply). A call with other arguments in between is a new
    call. Or accept the risk and go on: the write is on the primary.
    """
    def __init__(self, msg, op, reply=None, call=None, job_id=None, seq=None, lease=None,
                 asked=0, acked=0, aof=None, timeout_ms=0):
        super().__init__(msg)  # (MicroPython: no Exception.__init__ to call by name)
        self.op = op
        self.reply = reply
        self.call = call
        self.job_id = job_id
        self.seq = seq
        self.lease = lease
        self.asked = asked
        self.acked = acked
        self.aof = aof
        self.timeout_ms = timeout_ms


# The server functions that change nothing a failover could lose (reads): every other FCALL
# is waited for when num_replicas >= 1 (age writes only its clock marks: not a ticket's state).
_READS = ("info", "kinfo", "peek", "lpeek", "kpeek", "tickets", "ltickets", "ktickets", "lanes",
          "klane", "kscan", "age", "ltable")


def _net(e):
    # A network failure, worth sending the same call again: OSError (sockets, timeouts,
    # ticketq.resp) or redis-py's ConnectionError/TimeoutError (and their subclasses).
    if isinstance(e, OSError):
        return True
    for c in getattr(type(e), "__mro__", ()):
        if c.__name__ in ("ConnectionError", "TimeoutError"):
            return True
    return False


def _answer(e):
    # An error reply of the server (redis-py's ResponseError and its subclasses,
    # ticketq.resp's RespError): the connection is still in step. Anything else raised
    # inside a call (a network error, KeyboardInterrupt, a signal handler's exception) may
    # leave a reply on its way, which the next command would read as its own.
    mro = getattr(type(e), "__mro__", None) or (type(e),)
    for c in mro:
        if c.__name__ in ("ResponseError", "RespError"):
            return True
    return False


class _Free:
    # The lock of a MicroPython without threads: nothing to hold.
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def _new_lock():
    # One call in flight per queue object. Held only by `with`, so that no interrupt can
    # come between taking it and the block that gives it back.
    return allocate_lock() if allocate_lock else _Free()


def _single(fn):
    # a one-ticket pop's function name (tq<V>_pop, a lane queue's tq<V>_lpop, a keyed lane
    # queue's tq<V>_kpop), not a batch's
    return fn.endswith("_pop") or fn.endswith("_lpop") or fn.endswith("_kpop")


def _text(v):
    return v.decode() if isinstance(v, bytes) else v


class FleetQueue:
    # What a lane queue (ticketq.fleet) changes: the prefix of its pop and peek
    # functions' names, and where the ":" of a lease token is (its member is a byte longer).
    """A bounded priority queue of integer job tickets in Redis/Valkey (TicketQueue's API).
    """
    _L = ""
    _COLON = 25

    def __init__(self, conn, name, capacity=None, first_seq=0, aging=0, max_deliveries=8,
                 prefix="tq", retries=3, slice_ms=2000, num_replicas=0, wait_timeout=1000):
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
        conn: a client object (redis-py's, ticketq.resp.Redis), never a URL: a str or bytes
        raises TypeError naming what to pass (``redis.Redis.from_url(url)``). FleetError
        messages are the server's "TQ<CODE> ticketq: ..." without Redis's note of the
        function and line (`` script: tq1_open, on @user_function:59``).

        Durable writes (named after redis-py's ``wait(num_replicas, timeout)``):
        num_replicas 0..2**30-1, 0 (the default) off. With N >= 1, every call that changes
        the queue (open, push, push_many, pop and pop_until (leased or not), pop_many,
        ack_pop, ack, release, touch, remove, clear, dead, requeue, destroy, a lane queue's
        lpush/lpop, a keyed lane queue's set_lane, pause, resume; every FCALL but the reads
        info, peek, tickets, lanes, lane, busiest, age) is followed on the same connection,
        in the same round trip (redis-py: a pipeline, one connection of the pool; Redis
        Cluster: the pipeline of the node that owns the queue's slot; ticketq.resp:
        execute_many), by ``WAIT N wait_timeout`` and, where the server has WAITAOF (Valkey
        9, Redis >= 7.2; detected once per connection by sending ``WAITAOF 0 0 1`` and
        ``INFO persistence``, never from a version number) and its appendonly is on, by
        ``WAITAOF 1 N wait_timeout``: numlocal 1 (the primary's own fsync) and N replicas'
        fsyncs. With appendonly off on the primary no WAITAOF is sent (numlocal 0 would
        still wait for replicas' fsyncs, which replicas without AOF never give): WAIT only.
        The call returns only when WAIT counted N replicas (and WAITAOF 1 local and N
        replica fsyncs); otherwise NotDurable (the write was applied on the primary; the
        same call again is its replay-safe retry: see NotDurable). wait_timeout: ms,
        1..2**30-1 (WAIT's 0, block for ever, is refused), default 1000; keep it below the
        client's socket timeout (ticketq.resp: 10 s); a write that is not confirmed takes up
        to 2 x wait_timeout (WAIT, then WAITAOF). An ACL user needs +wait, +waitaof (where
        it exists) and +info besides its functions (fleetctl grant --durable).
        Cost: the replicas' round trip on every write (docs/fleet-durable.md).
        """
        if isinstance(conn, (str, bytes)):
            raise TypeError("conn: a client, not a URL: FleetQueue(redis.Redis.from_url(url), "
                            "name) on CPython, FleetQueue(ticketq.resp.Redis.from_url(url), name) "
                            "on a board")
        if capacity is not None:
            _int(capacity, 1, 0x1000000, "capacity")
        f = _int(first_seq, 0, _MASK, "first_seq")
        a = _int(aging, 0, _MASK, "aging")
        m = _int(max_deliveries, 0, _MASK, "max_deliveries")
        if capacity is None and (f or a or m != 8):
            # opening takes the queue's own settings: other ones would be silently unused
            raise ValueError("first_seq, aging and max_deliveries need a capacity (without one "
                             "the queue's own settings are taken)")
        _int(retries, 0, 100, "retries")
        _int(slice_ms, 1, 0x1FFFFFFF, "slice_ms")
        _int(num_replicas, 0, _MASK, "num_replicas")
        _int(wait_timeout, 1, _MASK, "wait_timeout")
        for s, what in ((name, "name"), (prefix, "prefix")):
            if type(s) is not str:
                raise TypeError(what + " must be str")
            if "{" in s or "}" in s or not (s or what == "prefix"):
                raise ValueError(what + (" must be a str without { }" if what == "prefix" else
                                         " must be a non-empty str without { }"))
        self.conn = conn
        self.name = name
        self.keys = [prefix + "{" + name + "}:" + s for s in _SUFFIXES]
        self._kb = [k.encode() for k in self.keys]  # sent as bytes: no encoding per call
        self.retries = retries
        self.slice_ms = slice_ms
        self.trace = None
        self.last_priority = -1
        self.last_seq = -1
        self.last_lease = None  # the lease token of the last leased pop
        self.last_deliveries = 0
        self.last_pop = -1  # the server's number of the last pop (its order among all clients')
        self._client = 0  # no replay records until the server gives a number
        self._op = 0
        self._pending = None  # a pop sent without an answer: the next pop sends it again
        self._extra = []  # tickets of a lost batch sent again, not yet handed over
        self._seen = None  # the pop whose trace records were taken (_nrec of them)
        self._nrec = self._nseen = 0
        self.recovered = []  # tickets of a lost batch pop that a pop() sent again (_popcall)
        self._dirty = 0  # a call was cut off: drop the idle connections before the next one
        self.num_replicas = int(num_replicas)  # WAIT for this many replicas after each write
        self.wait_timeout = int(wait_timeout)  # ms, WAIT's and WAITAOF's timeout
        self.waitaof = None  # None: not asked yet (this connection); else (has WAITAOF, aof on)
        self._unconfirmed = {}  # function -> the call that raised NotDurable: its retry
        self._lock = _new_lock()
        self._pid = getpid() if getpid else 0
        r = self._open((0 if capacity is None else int(capacity), int(first_seq), int(aging),
                        int(max_deliveries)))
        self.capacity, self.first_seq, self.aging, self.max_deliveries = r[:4]
        self._client = _text(r[4])

    def _open(self, args):
        return self._call("open", args)

    # ---- the calls

    # Replay records are per (client number, kind of call), so the calls of one client
    # number must never overlap: a retry of a push after another push was recorded would
    # push again. Hence one call in flight per queue object (the lock, for threads sharing
    # it), a new client number in a forked child (which must also leave the parent's
    # unanswered pop to the parent), and a new one when the call numbers would wrap round.

    def _args(self, op, args, idem=False):
        a = ["FCALL", "tq%d_%s" % (VERSION, op), len(self._kb)]  # type: list
        a.extend(self._kb)
        if idem:
            if self._op >= _MASK:  # 2**30 - 1 calls: a new number, never a reused pair
                self._new_client()
            self._op += 1
            a.append(self._client)
            a.append(self._op)
        a.extend(args)
        return a

    def _send(self, a):
        # Sends a call; a network error sends it again, the same (replayed if it ran), up to
        # `retries` times. Anything raised that is not the server's answer (a network error,
        # KeyboardInterrupt, a signal handler's exception, at any point of the call) first
        # drops the client's idle connections: a reply still on its way must never be read
        # as the next command's. A call refused as TQEXPIRED (its client's replay records
        # were dropped, nothing ran) is sent with a new client number when it was never sent
        # before; one sent before (it may have run) raises FleetError: its outcome is unknown.
        n = 0
        renewed = 0
        while 1:
            try:
                if self._dirty:  # the last drop was itself cut off: finish it first
                    self._drop()
                    self._dirty = 0
                if self.num_replicas and a[0] == "FCALL" and a[1][a[1].find("_") + 1:] not in _READS:
                    return self._durable(a)
                return self.conn.execute_command(*a)
            except NotDurable:  # the server answered everything: the connection is in step
                raise
            except BaseException as e:
                # The flag is set before any call (where an interrupt could land), so an
                # interrupt during the drop below still leaves it to the next call.
                self._dirty = 1
                if not _answer(e):
                    self._drop()
                self._dirty = 0
                if not isinstance(e, Exception):
                    raise
                if not _net(e):
                    e = self._error(e)
                    if n == 0 and not renewed and str(e).startswith("TQEXPIRED"):
                        self._renew(a)
                        renewed = 1
                        continue
                    raise e
                if n >= self.retries:
                    raise
                n += 1

    # ---- durable writes: WAIT (and WAITAOF) on the connection that made the write

    def _durable(self, a):
        # The call, then WAIT (and WAITAOF) in one round trip on one connection (WAIT counts
        # the replicas that have this connection's last write). A cluster's redirection
        # (MOVED, ASK, TRYAGAIN: the call did not run) is followed here, since the call goes
        # to the slot's node directly: at most 5 times. Returns the call's reply, or raises
        # its error, or NotDurable.
        n, t = self.num_replicas, self.wait_timeout
        ask = None
        last = FleetError("TQMOVED ticketq: the queue's slot kept moving (5 redirections)")
        for _ in range(5):
            if self.waitaof is None:
                self.waitaof = self._detect()
            cmds = [a, ("WAIT", n, t)]
            if self.waitaof[0] and self.waitaof[1]:
                cmds.append(("WAITAOF", 1, n, t))
            try:
                res = self._pipe(cmds, ask)
            except Exception as e:
                if _net(e):  # a cluster's node gone (failover): its slot map read again
                    try:
                        self._refresh()
                    except Exception:
                        pass
                raise
            if ask is not None:
                res = res[1:]  # ASKING's +OK
            r = res[0]
            if not isinstance(r, Exception):
                self._confirm(a, r, res[1], res[2] if len(res) > 2 else None)
                return r
            last = r
            kind = type(r).__name__
            if kind == "MovedError":
                self._refresh()
                ask = None
            elif kind == "AskError":
                ask = (getattr(r, "host", None), getattr(r, "port", None))
            elif kind in ("TryAgainError", "ClusterDownError"):
                import time
                time.sleep(0.05)
                self._refresh()
            else:
                raise r
        raise last

    def _confirm(self, a, r, w, f):
        # NotDurable unless WAIT counted num_replicas and WAITAOF (if sent) 1 and them.
        n = self.num_replicas
        err = w if isinstance(w, Exception) else (f if isinstance(f, Exception) else None)
        aof = None if f is None or isinstance(f, Exception) else (int(f[0]), int(f[1]))
        acked = -1 if isinstance(w, Exception) else int(w)
        if err is None and acked >= n and (aof is None or (aof[0] >= 1 and aof[1] >= n)):
            return
        fn = _text(a[1])
        op = fn[fn.find("_") + 1:]
        k = 3 + len(self.keys)
        call = None
        args = a[k:]
        if op in _IDEM:
            call = (a[k], a[k + 1])
            args = a[k + 2:]
        job = seq = lease = None
        if op in ("push", "lpush", "kpush"):
            job, seq = args[0], r
        elif op in ("pushn",):
            job, seq = [args[j] for j in range(1, len(args), 2)], r
        elif op in ("pop", "lpop", "kpop") and isinstance(r, list) and r[0] >= 0:
            job, seq, lease = r[0], r[2], r[5] or None  # as last_lease would be
        elif op in ("ack", "kack", "release", "krelease", "touch", "ktouch"):
            lease = args[0]
        elif op in ("remove", "kremove"):
            job = args[0]
        what = "%s%s%s%s" % (op, "" if job is None else " job %r" % (job,),
                             "" if seq is None else " seq %r" % (seq,),
                             "" if lease is None else " lease %s" % _text(lease))
        if err is not None:
            why = "the server refused the wait: %s" % err
        elif acked < n:
            why = "WAIT %d %d: %d of %d replicas acknowledged it" % (n, self.wait_timeout, acked, n)
        else:
            f2 = aof or (0, 0)
            why = "WAITAOF 1 %d %d: fsynced locally %d, by %d of %d replicas" % (
                n, self.wait_timeout, f2[0], f2[1], n)
        raise NotDurable("TQNOTDURABLE ticketq: %s ran on the primary of %s but may be lost in a "
                         "failover (%s; call %s): make the same call again to wait again, it is "
                         "replayed, not applied twice" % (what, self.keys[0][:-5], why, call),
                         op, r, call, job, seq, lease, n, max(acked, 0), aof, self.wait_timeout)

    def _detect(self):
        # (has WAITAOF, appendonly on) of the server this connection reaches, asked once per
        # connection: WAITAOF 0 0 1 returns at once where the command exists ("unknown
        # command" where not: Redis 7.0), INFO persistence says aof_enabled.
        res = self._pipe([("WAITAOF", 0, 0, 1), ("INFO", "persistence")])
        w, i = res
        if isinstance(w, Exception):
            m = str(w).lower()
            if "replica" in m:
                # a replica now (a failover; a cluster's slot map out of date): nothing ran;
                # a network error, so the call is sent again on a new connection (and map)
                self._refresh()
                raise OSError("durable write: the node reached is a replica now: %s" % w)
            if "unknown command" not in m:
                raise w  # NOPERM (an ACL user without +waitaof) and the like: say so
            has = False
        else:
            has = True
        if isinstance(i, Exception):
            raise i
        if isinstance(i, dict):
            aof = str(i.get("aof_enabled", 0)) == "1"
        else:
            aof = b"aof_enabled:1" in (i if isinstance(i, bytes) else str(i).encode())
        return (has, aof)

    def _refresh(self):
        # A cluster's slot map read again (after MOVED), if this client has one.
        nm = getattr(self.conn, "nodes_manager", None)
        if nm is not None:
            nm.initialize()

    def _pipe(self, cmds, ask=None):
        # Commands in one round trip on one connection; replies in order, an error reply as
        # its exception (not raised). ticketq.resp: execute_many; redis-py: a pipeline (it
        # takes one connection of the pool for all of them); RedisCluster: the pipeline of
        # the node owning the queue's slot (a cluster pipeline would route WAIT, which has no
        # key, to any node), or of `ask` (host, port) after ASK, ASKING first.
        c = self.conn
        em = getattr(c, "execute_many", None)
        if em is not None:
            return em(cmds)
        if getattr(c, "get_node_from_key", None) is not None:
            node = c.get_node(host=ask[0], port=ask[1]) if ask else None
            if node is None or node.redis_connection is None:
                if ask:
                    self._refresh()
                    node = c.get_node(host=ask[0], port=ask[1])
                if node is None or node.redis_connection is None:
                    node = c.get_node_from_key(self.keys[0])
                    if node.redis_connection is None:
                        self._refresh()
                        node = c.get_node_from_key(self.keys[0])
            c = node.redis_connection
        if ask:
            cmds = [("ASKING",)] + list(cmds)
        if getattr(c, "pipeline", None) is None:  # a client with one connection: in turn
            out = []
            for x in cmds:
                try:
                    out.append(c.execute_command(*x))
                except Exception as e:
                    if not _answer(e):
                        raise
                    out.append(e)
            return out
        p = c.pipeline(transaction=False)
        try:
            for x in cmds:
                p.execute_command(*x)
            return p.execute(raise_on_error=False)
        finally:
            p.reset()

    def _drop(self):
        # Close the client's idle connections (the one the interrupted call used went back
        # to redis-py's pool; ticketq.resp has one): the next call connects anew. Connections
        # other threads are using stay theirs.
        self.waitaof = None  # asked again of the next connection (it may be another server)
        c = self.conn
        try:
            one = getattr(c, "connection", None)  # redis-py's single_connection_client
            if one is not None:
                one.disconnect()
            pools = []
            p = getattr(c, "connection_pool", None)
            if p is not None:
                pools.append(p)
            nodes = getattr(c, "get_nodes", None)  # redis.cluster.RedisCluster
            if nodes is not None:
                for node in nodes():
                    r = getattr(node, "redis_connection", None)
                    if r is not None:
                        pools.append(r.connection_pool)
            for p in pools:
                try:
                    p.disconnect(inuse_connections=False)
                except TypeError:
                    p.disconnect()
            if one is None and not pools:
                close = getattr(c, "close", None)  # ticketq.resp.Redis
                if close is not None:
                    close()
        except Exception:  # closing is best effort: the next call reconnects or fails plainly
            pass

    def _renew(self, a):
        # The idempotent call `a` again under a new client number (its records expired).
        k = 3 + len(self.keys)
        self._new_client()
        self._op += 1
        a[k] = self._client
        a[k + 1] = self._op

    def _forked(self):
        if getpid is not None and getpid() != self._pid:
            # A forked child: its own lock, client number and call numbers; the parent's
            # unanswered pop is the parent's to send again.
            self._pid = getpid()
            self._lock = _new_lock()
            self._pending = None
            self._extra = []
            self._unconfirmed = {}  # the parent's unconfirmed calls are the parent's to retry
            self._op = 0
            if self._client:
                self._new_client()

    def _new_client(self):
        # A fresh client number from the server, its call numbers from 1 again
        self._client = _text(self._send(self._args("client", ())))
        self._op = 0

    def _call(self, op, args=(), idem=False):
        self._forked()
        with self._lock:
            a = self._args(op, args, idem)
            if self._unconfirmed:
                a = self._again(a, idem)
            try:
                r = self._send(a)
            except NotDurable:
                self._unconfirmed[a[1]] = a  # the same call again is its retry (NotDurable)
                raise
            if self._unconfirmed:
                self._unconfirmed.pop(a[1], None)
            return r

    def _again(self, a, idem):
        # A call like the one that raised NotDurable (same function, same keys, same
        # arguments) is its retry: sent as it was (same client and call number), so the
        # server replays it.
        u = self._unconfirmed.get(a[1])
        if u is None:
            return a
        b = 3 + len(self.keys)
        k = b + (2 if idem else 0)
        if len(u) == len(a) and u[:b] == a[:b] and u[k:] == a[k:]:
            return u
        del self._unconfirmed[a[1]]  # another call of that kind: its record is replaced
        return a

    def _error(self, e):
        # Server answers that mean "this server or this queue is not what the client
        # expects" become one clear FleetError; anything else stays as it came.
        msg = str(e)
        if "unction not found" in msg:
            return FleetError("the ticketq_%d library is not loaded in this server (run: "
                              "ticketq fleet install --url ...; a server with only an older "
                              "library cannot serve this client): %s" % (VERSION, msg))
        if msg.startswith("WRONGTYPE"):
            # a key written over after this queue object opened it (open checks all ten
            # types; calls trust them: docs/fleet.md, "Key types")
            k = msg.find(" script: ")
            return FleetError("TQTYPE ticketq: queue %s: a key of the queue holds another type, so "
                              "another program wrote there (open the queue again to have it named): "
                              "%s" % (self.keys[0][:-5], msg[:k] if k > 0 else msg))
        if msg.startswith("TQ"):
            k = msg.find(" script: ")  # Redis's note of the function and line: not for people
            return FleetError(msg[:k] if k > 0 else msg)
        return e

    # ---- TicketQueue's interface

    def push(self, job_id, priority):
        """Queue a ticket; return its sequence number. QueueFull when queued + leased tickets
        reach the capacity (nothing stored, no number spent); TypeError/ValueError as
        TicketQueue.push, before anything is sent. One round trip; O(log n) in the server.
        """
        _int(job_id, 0, _MASK, "job id")
        _int(priority, 0, 3, "priority")
        s = self._call("push", (int(job_id), int(priority)), True)
        if s < 0:
            raise QueueFull("ticket queue full")
        return s

    def _popcall(self, op, args):
        # Called with the lock held. The pop is `_pending` from before it is sent until
        # the public call (pop, pop_until, pop_many, ack_pop) hands its ticket over, in its
        # own frame, under the lock, as its last step (the end of pop: issue 34): whatever
        # stops it before (a network error, an interrupt at any point, NotDurable), the
        # next pop sends it again, the same, and the server replays its reply while that
        # still holds (core.lua idem): the ticket is handed over then, not leased to nobody.
        # A lost pop is answered by the next pop(); a lost batch (or a lost pop before a
        # batch) is sent again on its own first, and the tickets its reply carried wait in
        # `_extra` (moved there in the statement that ends that pop's turn as pending): a
        # batch call returns them before its own, a pop() moves them to `recovered`. None is
        # dropped.
        fn = "tq%d_%s" % (VERSION, op)
        p = self._pending
        if p is not None and (p[1] != fn or not _single(fn)):
            jobs = self._jobs(self._sendpop(p), p)
            self._extra, self._pending = self._extra + jobs, None
            p = None
        return self._sendpop(p or self._args(op, args, True))

    def _sendpop(self, a):
        self._pending = a
        try:
            r = self._send(a)
        except Exception as e:
            # NotDurable: the pop ran, its reply came, the replicas did not confirm it: it
            # stays pending, so the next pop sends it again (replayed while its lease holds)
            if isinstance(e, NotDurable):
                raise
            if isinstance(e, FleetError) or _answer(e):
                self._pending = None  # the server answered (an error): never sent again
            raise
        if self._seen is not a:  # (a replay after an interrupt: trace records taken once)
            self._seen, self._nrec = a, 0
        self._nseen = 0
        if _single(a[1]):
            if r[0] >= 0:
                self._popped(r)
        else:
            b = self._first(a)
            for j in range(r[b]):
                k = b + 2 + 7 * j
                self._popped(r[k:k + 7])
        return r

    def _first(self, a):
        # where a batch pop's reply {k, next expiry, tickets...} starts: after ack_pop's acks
        return a[7 + len(self.keys)] if a[1].endswith("_ackpop") else 0

    def _jobs(self, r, a):
        # the tickets of a pop's reply (any kind) as pop_many gives them
        if _single(a[1]):
            return [(r[0], r[1], r[2], _text(r[5]) or None)] if r[0] >= 0 else []
        return self._batch(r, self._first(a))

    def _batch(self, r, b):
        # the tickets of a batch pop's reply whose {k, next expiry, ...} starts at r[b]
        out = []
        for j in range(r[b]):
            k = b + 2 + 7 * j
            out.append((r[k], r[k + 1], r[k + 2], _text(r[k + 5]) or None))
        return out

    def _popped(self, r):
        # pop's reply {id, class, seq, promoted, deliveries, token, pop number (, lane)}.
        i, c, s = r[0], r[1], r[2]
        self.last_priority = c
        self.last_seq = s
        self.last_deliveries = r[4]
        self.last_lease = r[5] or None
        self.last_pop = r[6]
        self._nseen += 1
        if self.trace is not None and self._nseen > self._nrec:
            self._nrec = self._nseen
            self.trace.record(i, c, s, r[3] == 1, r[7] if len(r) > 7 else 0)

    def pop(self, lease_ms=0):
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
        first, so no reply is read by another call. O(log n).
        """
        _int(lease_ms, 0, _MASK, "lease_ms")
        self._forked()
        with self._lock:
            j = self._popcall(self._L + "pop", (int(lease_ms),))[0]
            # The hand-over, the last step, in this frame: no call, no backward jump (where
            # CPython delivers a signal) between it and the return.
            if self._extra:
                self.recovered, self._extra = self.recovered + self._extra, []
            self._pending = None
        if j < 0:
            raise QueueEmpty("ticket queue empty")
        return j

    def pop_until(self, deadline, lease_ms=0):
        # Blocks in the server (BLPOP on the wake key), never in a loop of polls: each
        # wait is recomputed from deadline.remaining(), cut to the next lease expiry (a
        # ticket comes back then) and to slice_ms (shorter than the socket timeout).
        # pop_until(2000), a timeout where the Deadline goes, is refused before the first
        # pop is sent (that pop would take, and maybe lease, a ticket).
        """pop, waiting for a ticket until ``deadline`` (a ticketq.ticks.Deadline) passes:
        in the server (BLPOP on the wake key; a push or a release wakes it), each wait
        recomputed from deadline.remaining() and cut to the next lease expiry (as the last
        pop saw it) and to slice_ms, and below 3/4 of the connection's own socket timeout
        (redis-py's socket_timeout, a RedisCluster's nodes' too, ticketq.resp's timeout) if
        that is shorter, so the deadline is kept within one socket timeout; no polling. An expired lease wakes no blocked waiter
        (nothing runs in the server then): a lease taken while it waited is noticed within
        slice_ms. Raises ticketq.ticks.Timeout (a QueueEmpty) at the deadline.
        A deadline that is not a Deadline (``pop_until(2000)``, ``None``): TypeError before
        anything is sent, so no ticket is popped or leased.
        """
        if not isinstance(deadline, Deadline):
            raise TypeError("deadline: a Deadline, as Deadline(2000)")
        _int(lease_ms, 0, _MASK, "lease_ms")
        self._forked()
        while 1:
            with self._lock:
                r = self._popcall(self._L + "pop", (int(lease_ms),))
                if self._extra:  # the hand-over, as pop's
                    self.recovered, self._extra = self.recovered + self._extra, []
                self._pending = None
                if r[0] >= 0:
                    return r[0]
            left = deadline.remaining()
            if left == 0:
                raise timeout()
            t = self.slice_ms
            c = self._wait_cap()
            if c < t:
                t = c
            if left is not None and left < t:
                t = left
            if 0 < r[1] < t:
                t = r[1]
            # Not under the lock: other threads' calls go on meanwhile (on their own
            # connection with redis-py's pool; ticketq.resp has one, which waits).
            self._send(["BLPOP", self.keys[_WAKE], "%d.%03d" % (t // 1000, t % 1000)])

    def _wait_cap(self):
        # The longest BLPOP wait the connection's own socket timeout lets through (redis-py's
        # socket_timeout, ticketq.resp's timeout), with a margin for the round trip: a wait
        # the client gives up on first is retried (FleetQueue's retries times redis-py's
        # own, with backoff) far past the deadline. No timeout known: slice_ms alone.
        c = self.conn
        s = getattr(c, "timeout", None)
        if s is None:
            # redis-py's Redis (its pool's), or RedisCluster (its nodes manager's, which
            # every node's connections take)
            k = getattr(getattr(c, "connection_pool", None), "connection_kwargs", None)
            if not isinstance(k, dict):
                k = getattr(getattr(c, "nodes_manager", None), "connection_kwargs", None)
            s = k.get("socket_timeout") if isinstance(k, dict) else None
        if isinstance(s, (int, float)) and type(s) is not bool and 0 < s * 750 < self.slice_ms:
            return int(s * 750) or 1
        return self.slice_ms

    # ---- batches: many tickets in one call, one round trip, one replay record

    def push_many(self, items):
        """Queue 1..4096 tickets, (job_id, priority) pairs, in order, all or none, in one
        call (one round trip, one replay record: sent again after a lost reply it pushes
        nothing more); return their sequence numbers, in the items' order.

        TypeError for an item that is not a (job_id, priority) pair, TypeError/ValueError
        as push's for its values, ValueError for 0 or over 4096 items: nothing sent.
        QueueFull if they do not all fit (queued + leased + len(items) > capacity): none
        pushed, no sequence number spent. FleetError TQKIND on a FleetLaneQueue.
        O(k log n) in the server, a fixed number of Redis commands for any k.
        """
        a = [0]
        k = 0
        for it in items:
            if type(it) not in (tuple, list) or len(it) != 2:
                raise TypeError("push_many: (job id, priority) pairs, not %r" % (it,))
            try:
                _int(it[0], 0, _MASK, "job id")
                _int(it[1], 0, 3, "priority")
            except (TypeError, ValueError) as e:
                # push's words, and which of up to 4096 items it was (nothing sent)
                raise type(e)("push_many item %d %r: %s" % (k, tuple(it), e))
            k += 1
            a.append(int(it[0]))
            a.append(int(it[1]))
        n = len(a) // 2
        if not 1 <= n <= _BATCH:
            raise ValueError("push_many: 1 to %d (job id, priority) pairs, not %d" % (_BATCH, n))
        a[0] = n
        r = self._call("pushn", a, True)
        if not isinstance(r, list):
            raise QueueFull("ticket queue full: the %d tickets do not all fit (none pushed)" % n)
        self.last_seq = r[-1]
        return r

    def pop_many(self, count, lease_ms=0):
        """Take up to count (1..4096) tickets in one call, the ones count pops in a row would
        take (same order, digest, aging, leases); return [(job_id, priority, seq, token),
        ...] (token: the lease token, None when lease_ms is 0), [] when nothing is queued
        (never QueueEmpty). last_* are the last ticket's. A lost reply is sent again by the
        next pop of any kind, on its own, and replayed without the tickets whose lease no
        longer holds (they went back to the queue); a batch call returns the tickets of such
        a lost call before its own (so the list may be longer than count), pop() keeps them
        in recovered. TypeError/ValueError for count or lease_ms (as pop's);
        FleetError TQKIND on a FleetLaneQueue. O(k log n); without aging a fixed number of
        Redis commands, with aging one pop's per ticket.
        """
        _int(count, 1, _BATCH, "count")
        _int(lease_ms, 0, _MASK, "lease_ms")
        self._forked()
        with self._lock:
            own = self._batch(self._popcall("popn", (int(lease_ms), int(count))), 0)
            out = self._extra + own  # (read after the call: it may add a lost batch's)
            self._extra, self._pending = [], None  # the hand-over, as pop's
            return out

    def ack_pop(self, tokens, count=1, lease_ms=0):
        """A worker loop's step in one call: ack every lease token of tokens (a list, 0..4096;
        each True when its lease still held and is now done, False otherwise, as ack), then
        pop_many(count, lease_ms) (count 0..4096; 0: ack only). Returns (acked, jobs).
        One replay record for the whole call: sent again after a lost reply, it acks nothing
        twice and returns its tickets while their leases hold. TypeError for a str or bytes
        in place of the list and for a token that is not one (ValueError for a malformed
        one): the whole call refused, nothing sent; TypeError/ValueError for count and
        lease_ms. FleetError TQKIND on a FleetLaneQueue. O((t + k) log n).
        """
        if isinstance(tokens, (str, bytes)):
            raise TypeError("ack_pop: a list of lease tokens (one token: [token])")
        toks = [self._token(t) for t in tokens]
        if len(toks) > _BATCH:
            raise ValueError("ack_pop: at most %d tokens, not %d" % (_BATCH, len(toks)))
        _int(count, 0, _BATCH, "count")
        _int(lease_ms, 0, _MASK, "lease_ms")
        a = [int(lease_ms), int(count), len(toks)]  # type: list
        a.extend(toks)
        n = len(toks)
        self._forked()
        with self._lock:
            r = self._popcall("ackpop", a)
            out = ([x == 1 for x in r[:n]], self._extra + self._batch(r, n))
            self._extra, self._pending = [], None  # the hand-over, as pop's
            return out

    def peek(self):
        """Job id of the next ticket, not removed. QueueEmpty. O(1).
        """
        i = self._call(self._L + "peek")
        if i < 0:
            raise QueueEmpty("ticket queue empty")
        return i

    def remove(self, job_id):
        """Remove the oldest queued (not leased) ticket with this id: True, or False if
        none. TypeError/ValueError as TicketQueue.remove. O(log n) (an index by id).
        """
        _int(job_id, 0, _MASK, "job id")
        return self._call("remove", (int(job_id),), True) == 1

    def full(self):
        """True when queued + leased tickets reach the capacity: a push raises QueueFull.
        Asks the server (its capacity too: ``capacity`` is what open found).
        """
        r = self._call("info")
        return r[0] + r[1] >= r[2]  # the server's capacity: the queue may have been made again

    def clear(self):
        """Drop every queued and leased ticket; reset the digest and the aging count. The
        sequence goes on; the dead-letter list stays.
        """
        self._call("clear", (), True)
        self.last_priority = -1
        self.last_seq = -1

    def __len__(self):
        """Queued tickets (not leased ones): what pop can take now.
        """
        return self._call("info")[0]

    @property
    def digest(self):
        """The queue's schedule digest (0 <= digest < 2**30) over every pop since creation
        or clear(), whichever client popped: TicketQueue's formula.
        """
        return self._call("info")[3]

    def __repr__(self):
        r = self._call("info")
        return "<FleetQueue %s %d/%d CRITICAL=%d HIGH=%d NORMAL=%d LOW=%d leased=%d>" % (
            self.keys[0][:-5], r[0], r[2], r[4], r[5], r[6], r[7], r[1])

    # ---- leases

    def _token(self, token):
        if not isinstance(token, (bytes, str)):
            raise TypeError("lease token must be str or bytes (what pop(lease_ms) left in last_lease)")
        t = _text(token)
        k = self._COLON
        # <class 0-3><24 hex digits (+ a lane digit)>:<deliveries>, as the server writes it
        if (len(t) < k + 2 or t[k] != ":" or t[0] not in "0123"
                or [c for c in t[1:25] if c not in "0123456789abcdef"]
                or [c for c in t[25:k] if c not in "0123456789abcdefghijklmnopqrst"]
                or [c for c in t[k + 1:] if c not in "0123456789"]):
            raise ValueError("lease token: what pop(lease_ms) left in last_lease")
        return token

    def ack(self, token):
        """The leased job is done: True; False if the lease is no longer held (it ran out:
        the ticket is queued again or leased to another consumer, so the job runs again).
        A token that is not str or bytes: TypeError; not a token: ValueError (nothing sent).
        """
        return self._call("ack", (self._token(token),), True) == 1

    def release(self, token):
        """The leased job was not done: 1 back to its place at once, 2 dead-lettered (it has
        been delivered max_deliveries times), 0 the lease is no longer held.
        """
        return self._call("release", (self._token(token),), True)

    def touch(self, token, lease_ms):
        """Extend a held lease to the server's TIME + lease_ms: True, or False if not held.
        """
        _int(lease_ms, 1, _MASK, "lease_ms")
        return self._call("touch", (self._token(token), int(lease_ms))) == 1

    # ---- the host's view

    def info(self):
        """{"queued", "leased", "capacity", "digest", "classes": (LOW, NORMAL, HIGH,
        CRITICAL queued), "dead", "next_expiry_ms" (-1: nothing leased)}.
        """
        r = self._call("info")
        return {"queued": r[0], "leased": r[1], "capacity": r[2], "digest": r[3],
                "classes": (r[7], r[6], r[5], r[4]), "dead": r[8], "next_expiry_ms": r[9]}

    def oldest_age(self):
        """How long the oldest queued (not leased) ticket has waited, by the server's clock:
        (min_ms, max_ms), its age lies between the two; max_ms None when it is older than
        every mark the server keeps; None when nothing is queued. The server keeps marks
        (push counter, TIME) written by these calls only, at most one a second, at most 64
        (fleet/age.lua), so push and pop cost nothing more: the resolution max_ms - min_ms
        is the time between the calls around the ticket's push (at least 1 s). Call it
        regularly (the dashboard, the exporter and fleetctl stats do) for a fine one.
        Expired leases are given back first, as info. O(64 + lists) in the server.
        """
        r = self._call("age")
        if r[0] < 0:
            return None
        return (r[0], None if r[1] < 0 else r[1])

    def tickets(self):
        """Every queued ticket in pop order: (id, class, seq, promoted). O(n).
        """
        r = self._call("tickets")
        return [(r[j], r[j + 1], r[j + 2], r[j + 3] == 1) for j in range(0, len(r), 4)]

    def dead(self, count=10):
        """Take up to count dead-lettered tickets off their list, oldest first: (id, class,
        seq, deliveries). Replayed as push and pop: a lost reply loses no letter.
        """
        _int(count, 1, _MASK, "count")
        r = self._call("dead", (int(count),), True)  # it takes them: replayed if sent again
        return self._letters(r)

    def _letters(self, r):
        # dead's reply: 4 numbers a letter (a lane queue's: 5, its lane last)
        return [(r[j], r[j + 1], r[j + 2], r[j + 3]) for j in range(0, len(r), 4)]

    def requeue(self, count=100):
        """Take up to count (1..1000) dead letters, oldest first, and push each again as a
        push would: its class (a lane queue: its own lane, see FleetLaneQueue.requeue), a
        new sequence number, no delivery counted. Returns (done, refused): done the letters
        pushed, [(id, class, seq)] in order; refused None, or the refusal that stopped the
        call, an exception instance (not raised) with push's words: QueueFull. The refused
        letter and those after it stay dead letters, at the head of the list, in order:
        none is lost. One server call, atomic, replayed if sent again after a lost reply
        (never run twice). O(k log n).
        """
        _int(count, 1, 1000, "count")
        r = self._call("revive", (int(count),), True)
        done = [self._revived(r[j:j + 4]) for j in range(2, 2 + 4 * r[1], 4)]
        return done, (None if r[0] == 0 else self._refusal(r[0], r[2 + 4 * r[1]:]))

    def _revived(self, t):
        return (t[0], t[1], t[2])

    def _refusal(self, code, t):
        return QueueFull("ticket queue full")

    def destroy(self):
        """Delete every key of the queue, its settings and counter too.
        """
        return self._call("destroy")


# --------------------------------------------------------------------------------------
# FleetLaneQueue: ticketq.lanes.LaneQueue's contract kept in Redis or Valkey: fair lanes
# for a fleet's shared backlog, the same rule as on a board, so the same operations pop the
# same tickets with the same digest. Documentation: the docstrings below (help(), editors;
# the .pyi stubs carry the types), docs/lanes.md ("The fleet tier") and docs/fleet.md.
#
# A FleetQueue (leases, replay of lost replies, pop_until, dead letters: all inherited)
# whose server functions are lanes.lua's: lopen, lpush, lpop, lpeek, lanes, ltickets. The
# lane table is computed by the server from the weights (one table for every client, however
# it talks to the server); this module checks arguments with ticketq.lanes' own checkers
# (the same TypeError/ValueError, the same words, before anything is sent), raises LaneFull
# and QueueFull as LaneQueue does, and reads the replies. Not for the micro:bit: no socket.

# the board's keyed lanes (issue 24) define LanesFull: then one class for both
if hasattr(ticketq.lanes, "LanesFull"):
    LanesFull = getattr(ticketq.lanes, "LanesFull")
else:
    class LanesFull(QueueFull):
        pass

# Keyed lanes (fleet/keyed.lua): the functions a keyed queue's calls go to, and its two
# more keys (the rings, the lanes hash), after the ten of every queue.
_KEYED = {"client": "kclient", "lpop": "kpop", "lpeek": "kpeek", "remove": "kremove",
          "info": "kinfo", "clear": "kclear", "destroy": "kdestroy", "ack": "kack",
          "release": "krelease", "touch": "ktouch", "dead": "kdead", "revive": "krevive"}


class LanePaused(Exception):
    """FleetLaneQueue.requeue's refusal of a dead letter whose keyed lane is paused (resume
    it first): the letter stays dead. A push to a paused lane is not refused.
    """
    pass
_KEYMAX = 64
_HEX = "0123456789abcdef"


def _key(lane):
    # A lane key as sent: an int 0..2**30-1 as its decimal, a str of 1..64 UTF-8 bytes as
    # is ("7" and 7 are one lane). TypeError/ValueError before anything is sent.
    if isinstance(lane, int) or type(lane) is bool:  # _int's rule: its plain int value
        return str(_int(lane, 0, _MASK, "lane key"))
    if type(lane) is not str:
        raise TypeError("lane key must be int or str, not %s" % type(lane).__name__)
    try:
        n = len(lane.encode("utf-8"))
    except ValueError:  # UnicodeError: a lone surrogate ("\ud800", from os.fsdecode of a bad byte)
        raise ValueError("lane key must be a str of 1..%d UTF-8 bytes, not %r" % (_KEYMAX, lane))
    if n < 1 or n > _KEYMAX:
        raise ValueError("lane key must be a str of 1..%d UTF-8 bytes, not %d" % (_KEYMAX, n))
    return lane


def _shown(k):
    # a key as sent, in a message: an int key as the board writes it (7), a str key quoted
    # ('chat-7'); "7" is lane 7
    if k == "0" or (k[:1] in "123456789" and k.isdigit() and len(k) <= 10 and int(k) <= _MASK):
        return k
    return repr(k)


def _reply_key(v):
    # The server's key: an int (a canonical decimal in range), else the str.
    return v if type(v) is int else _text(v)


def _fold(key):
    # What the digest folds for a key (fleet/keyed.lua fold_of): the int, or for a str
    # h = 5381, h = (h * 33 + byte) mod 2**30 over its UTF-8 bytes.
    if type(key) is int:
        return key
    h = 5381
    for b in key.encode("utf-8"):
        h = (h * 33 + b) % (_MASK + 1)
    return h

def _no_batch(what):
    # The batch calls are a plain queue's: a lane queue's pop follows its lane table one
    # ticket at a time (lanes.lua), so they are refused before anything is sent.
    return FleetError("TQKIND ticketq: %s is FleetQueue's only: a lane queue (FleetLaneQueue) "
                      "pushes, pops and acks one ticket per call" % what)


def _ints(v):
    # "3,1,2" (bytes or str) -> (3, 1, 2)
    return tuple([int(x) for x in _text(v).split(",")])


def _csv(v):
    return ",".join([str(x) for x in v])


class FleetLaneQueue(FleetQueue):
    """A bounded priority queue of integer job tickets with weighted fair lanes, in Redis.
    """
    _L = "l"
    _COLON = 26

    def __init__(self, conn, name, capacity=None, weights=None, lane_capacity=None, first_seq=0,
                 aging=0, max_deliveries=8, prefix="tq", retries=3, slice_ms=2000,
                 max_lanes=None, num_replicas=0, wait_timeout=1000):
        """Open the lane queue `name`, creating it if it does not exist and a capacity is given.

        capacity: 1..2**24. weights, lane_capacity, first_seq, aging: as LaneQueue's (the same
        checks, the same TypeError/ValueError words, before anything is sent). Without a
        capacity the queue's own settings are taken (ValueError if weights or lane_capacity
        are given then); with one they must match an existing queue's (FleetError
        TQCONFIG). A plain FleetQueue of that name is refused (FleetError TQKIND), and a
        FleetQueue refuses a lane queue the same way. max_deliveries, prefix, retries,
        slice_ms, num_replicas, wait_timeout (durable writes, NotDurable): as FleetQueue's.

        A capacity without weights makes (or opens) a KEYED lane queue (docs/lanes.md,
        "Keyed lanes on the fleet"): a lane per key, made by its first push, gone when it
        holds no ticket. max_lanes 1..2**24 (None: no limit) only then; aging > 0 is
        ValueError "aging needs fixed lanes"; lane_capacity is ValueError (set a key's bound
        with set_lane). Opening by name (no capacity) finds either kind. An existing keyed
        queue with another max_lanes: FleetError TQCONFIG; a fixed lane queue opened as
        keyed (or the other way): TQKIND.
        """
        self.keyed = False
        self._max_lanes = 0
        if max_lanes is not None:
            _int(max_lanes, 1, 0x1000000, "max_lanes")
            if capacity is None or weights is not None:
                raise ValueError("max_lanes is for a new keyed lane queue (a capacity and no "
                                 "weights)")
            self._max_lanes = int(max_lanes)
        if capacity is None:
            if weights is not None or lane_capacity is not None:
                raise ValueError("weights and lane capacity need a capacity (without one the "
                                 "queue's own settings are taken)")
            self._lanes_args = ("", "")
        elif weights is None:
            # keyed lanes (fleet/keyed.lua): a lane per key, made on first push
            _int(capacity, 1, 0x1000000, "capacity")
            if lane_capacity is not None:
                raise ValueError("lane_capacity needs weights (fixed lanes); a keyed lane's "
                                 "bound is set per key: set_lane(key, bound=n)")
            if _int(aging, 0, _MASK, "aging"):
                raise ValueError("aging needs fixed lanes")
            self.keyed = True
        else:
            _int(capacity, 1, 0x1000000, "capacity")
            w = _weights(weights)
            self._lanes_args = (_csv(w), _csv(_bounds(lane_capacity, int(capacity), len(w))))
        self.last_lane = -1
        FleetQueue.__init__(self, conn, name, capacity, first_seq, aging, max_deliveries, prefix,
                            retries, slice_ms, num_replicas, wait_timeout)

    def _open(self, args):
        if not self.keyed:
            try:
                return self._open_fixed(args)
            except FleetError as e:
                if not (str(e).startswith("TQKIND") and "keyed" in str(e) and args[0] == 0):
                    raise
            self.keyed = True  # an existing keyed queue, opened by name
        self.keys = self.keys + [self.keys[0][:-4] + "ring", self.keys[0][:-4] + "lanes"]
        if getattr(self, "_kb", None) is not None:  # a FleetQueue that sends its keys encoded
            self._kb = [k.encode() for k in self.keys]
        r = self._call("kopen", args + (self._max_lanes,))
        self.max_lanes = r[5] or None
        self._L = "k"
        return r

    def _args(self, op, args, idem=False):
        if self.keyed:
            op = _KEYED.get(op, op)
        return FleetQueue._args(self, op, args, idem)

    def _open_fixed(self, args):
        r = self._call("lopen", args + self._lanes_args)
        self.weights = _ints(r[5])
        self.lane_capacity = _ints(r[6])
        self.lanes = len(self.weights)
        t = r[7]
        if not isinstance(t, bytes):
            t = t.encode()
        # The server's table: one base-32 digit a lane, as ticketq.lanes.table's entries.
        self.table = bytearray([c - 48 if c < 58 else c - 87 for c in t])
        return r

    def push(self, job_id, priority, lane=0):
        """Queue a ticket at the tail of its lane in its class; return its sequence number.

        job_id 0..2**30-1, priority 0..3, lane 0..lanes-1 (TypeError/ValueError as
        LaneQueue.push, before anything is sent). QueueFull ("ticket queue full") when queued
        plus leased tickets reach the capacity; LaneFull ("lane 2 full (4 tickets)") when the
        lane's queued plus leased tickets reach its bound; the capacity is checked first; in
        both cases nothing is stored and no sequence number is spent. No cursor moves.
        One round trip; O(log n) in the server.

        Keyed lanes: lane is the key, an int 0..2**30-1 or a str of 1..64 UTF-8 bytes (7 and
        "7" are one lane; TypeError/ValueError before sending). Refusals in this order:
        QueueFull, LaneFull ("lane 'a' full (its bound)"), LanesFull (a new key while
        max_lanes lanes exist). The lane joins the tail of its class's ring if it was not in
        it and is serviceable. O(log n + log L) for L lanes.
        """
        _int(job_id, 0, _MASK, "job id")
        _int(priority, 0, 3, "priority")
        if self.keyed:
            k = _key(lane)
            s = self._call("kpush", (int(job_id), int(priority), k), True)
            if s == -1:
                raise QueueFull("ticket queue full")
            if s == -2:  # the board's words: the bound read back (one more call, only here)
                raise LaneFull("lane %s full (%d tickets)" % (_shown(k), self._call("klane", (k,))[7]))
            if s == -3:
                raise LanesFull("no lane for key %s: max_lanes (%d) lanes exist" % (_shown(k), self.max_lanes))
            return s
        _int(lane, 0, self.lanes - 1, "lane")
        s = self._call("lpush", (int(job_id), int(priority), int(lane)), True)
        if s == -1:
            raise QueueFull("ticket queue full")
        if s == -2:
            raise _lane_full(int(lane), self.lane_capacity[lane])
        return s

    def push_many(self, items):
        """Not for a lane queue: FleetError TQKIND before anything is sent (a lane queue's
        pop follows its lane table one ticket per call; push, pop and ack one at a time).
        """
        raise _no_batch("push_many")

    def pop_many(self, count, lease_ms=0):
        """Not for a lane queue: FleetError TQKIND before anything is sent.
        """
        raise _no_batch("pop_many")

    def ack_pop(self, tokens, count=1, lease_ms=0):
        """Not for a lane queue: FleetError TQKIND before anything is sent.
        """
        raise _no_batch("ack_pop")

    def _popped(self, r):
        if self.keyed:
            self.last_lane = k = _reply_key(r[7])
            r = list(r)
            r[7] = _fold(k)  # the trace records what the digest folds
        else:
            self.last_lane = r[7]
        FleetQueue._popped(self, r)

    def _token(self, token):
        if not self.keyed:
            return FleetQueue._token(self, token)
        if not isinstance(token, (bytes, str)):
            raise TypeError("lease token must be str or bytes (what pop(lease_ms) left in last_lane)")
        t = _text(token)
        # <class 0-3><24 hex digits>.<lane ordinal>:<deliveries>, as keyed.lua writes it
        c = t.find(":")
        a, d = (t, "") if c < 0 else (t[:c], t[c + 1:])
        o = a[26:]
        if (len(a) < 27 or a[0] not in "0123" or a[25] != "."
                or [c for c in a[1:25] if c not in _HEX] or not o.isdigit() or not d.isdigit()):
            raise ValueError("lease token: what pop(lease_ms) left in last_lease")
        return token

    # ---- dead letters keep their lane

    def dead(self, count=10):
        """Take up to count dead-lettered tickets off their list, oldest first: (id, class,
        seq, deliveries, lane); lane the lane number (fixed lanes) or the key (keyed lanes),
        None for a letter written before letters recorded their lane. Replayed as push and
        pop: a lost reply loses no letter.
        """
        return FleetQueue.dead(self, count)

    def _letters(self, r):
        return [(r[j], r[j + 1], r[j + 2], r[j + 3], self._lane_of(r[j + 4])) for j in range(0, len(r), 5)]

    def _lane_of(self, v):
        # a letter's lane as the server sends it: -1 none, else the lane or key
        return None if v == -1 else (_reply_key(v) if self.keyed else v)

    def requeue(self, count=100):
        """Take up to count (1..1000) dead letters, oldest first, and push each again into
        its own lane (the lane number it had, or its key; a letter without one, written
        before letters recorded it: lane 0, key 0) and class, as a push would: a new
        sequence number, no delivery counted, the lane's bound and max_lanes checked, its
        ceiling counted when it pops. Returns (done, refused): done [(id, class, seq, lane)]
        in order; refused None, or the refusal that stopped the call, an exception instance
        (not raised) with push's words: QueueFull, LaneFull, LanesFull, or LanePaused (a
        keyed lane that is paused refuses a dead letter, though not a push: resume it
        first). The refused letter and those after it stay dead letters, at the head of the
        list, in order: none is lost. One server call, atomic, replayed if sent again after
        a lost reply (never run twice). O(k (log n + log L)).
        """
        return FleetQueue.requeue(self, count)

    def _revived(self, t):
        return (t[0], t[1], t[2], self._lane_of(t[3]))

    def _refusal(self, code, t):
        lane = self._lane_of(t[2])
        if code == -2:
            if self.keyed:
                return LaneFull("lane %s full (%d tickets)" % (_shown(str(lane)), t[3]))
            return _lane_full(t[2], t[3])  # a fixed lane: the server's lane number
        if code == -3:
            return LanesFull("no lane for key %s: max_lanes (%d) lanes exist" % (_shown(str(lane)), t[3]))
        if code == -4:
            return LanePaused("lane %s is paused: resume it to requeue its dead letters" % _shown(str(lane)))
        return QueueFull("ticket queue full")

    # ---- keyed lanes: per-key settings and inspection

    def _keyed_only(self):
        if not self.keyed:
            raise TypeError("a keyed lane queue's call (this queue has fixed lanes)")

    def set_lane(self, key, weight=None, bound=None, ceiling=None):
        """Keyed lanes: set a key's weight (1..32767, default 1), bound (1..capacity tickets
        queued plus leased, default capacity) and in-flight ceiling (1..capacity leased at
        once, default capacity); None leaves one unchanged. Takes effect at once (a weight at
        the head's next pop; a lane that stops or starts being serviceable leaves or joins
        the rings). Kept for a key without a lane too (one hash field) until all are the
        defaults again. Returns {"weight", "bound", "ceiling", "paused"}. TypeError on a
        fixed lane queue; TypeError/ValueError for bad values, before sending. O(log n + log L).
        """
        self._keyed_only()
        k = _key(key)
        a = [k]
        for v, lo, hi, what in ((weight, 1, 32767, "weight"), (bound, 1, self.capacity, "bound"),
                                (ceiling, 1, self.capacity, "ceiling")):
            a.append("" if v is None else str(_int(v, lo, hi, what)))
        a.append("")
        r = self._call("kset", tuple(a))
        return {"weight": r[0], "bound": r[1], "ceiling": r[2], "paused": r[3] == 1}

    def pause(self, key):
        """Keyed lanes: no ticket of this key pops until resume (they stay queued; leases run
        on). The lane leaves every ring. Remembered for a key with no lane too.
        """
        self._keyed_only()
        self._call("kset", (_key(key), "", "", "", 1))

    def resume(self, key):
        """Keyed lanes: undo pause; the lane joins the tail of each ring where it has a
        queued ticket (no credit kept).
        """
        self._keyed_only()
        self._call("kset", (_key(key), "", "", "", 0))

    def lane(self, key):
        """Keyed lanes: {"exists", "queued": (LOW, NORMAL, HIGH, CRITICAL), "leased", "held",
        "weight", "bound", "ceiling", "paused"} of one key. O(log n).
        """
        self._keyed_only()
        r = self._call("klane", (_key(key),))
        return {"exists": r[0] == 1, "queued": tuple(r[1:5]), "leased": r[5], "held": sum(r[1:6]),
                "weight": r[6], "bound": r[7], "ceiling": r[8], "paused": r[9] == 1}

    def busiest(self, n=10, step=1000):
        """Keyed lanes: the n lanes holding the most tickets, [{"key", "queued", "leased"}],
        most first, ties by the key's text. Walks every lane in server calls of `step`
        (HSCAN): O(L), for operators, not a hot path.
        """
        self._keyed_only()
        _int(n, 1, 0x1000000, "n")
        _int(step, 1, 100000, "step")
        out = []
        cur = "0"
        while 1:
            r = self._call("kscan", (cur, step))
            cur = _text(r[0])
            for j in range(1, len(r), 3):
                out.append((r[j + 1] + r[j + 2], r[j + 1], r[j + 2], _reply_key(r[j])))
            out.sort(key=lambda x: (-x[0], str(x[3])))
            del out[n:]
            if cur == "0":
                break
        return [{"key": x[3], "queued": x[1], "leased": x[2]} for x in out]

    def clear(self):
        """Drop every queued and leased ticket; reset digest, aging count, last_* and every
        cursor (the schedule after clear() is a new queue's). The sequence goes on.
        """
        FleetQueue.clear(self)
        self.last_lane = -1

    def lane_info(self):
        """{"cursors": the table entry each class's next scan starts at (LOW .. CRITICAL),
        "queued": per lane, tickets queued, "held": per lane, queued plus leased (what its
        bound counts)}. Keyed lanes: {"lanes": lanes holding tickets now, "max_lanes"}.
        """
        if self.keyed:
            r = self._call("kinfo")
            return {"lanes": r[10], "max_lanes": r[11] or None}
        r = self._call("lanes")
        n = self.lanes
        return {"cursors": tuple(r[:4]), "queued": tuple([r[4 + 2 * l] for l in range(n)]),
                "held": tuple([r[5 + 2 * l] for l in range(n)])}

    def lane_len(self, lane):
        """Tickets of this lane queued now (not leased), all classes. TypeError/ValueError
        for an unknown lane, before anything is sent. Keyed lanes: lane is a key (0 for a
        key with no lane).
        """
        if self.keyed:
            return sum(self._call("klane", (_key(lane),))[1:5])
        _int(lane, 0, self.lanes - 1, "lane")
        return self._call("lanes")[4 + 2 * lane]

    def tickets(self):
        """Every queued ticket in pop order (were nothing pushed and aging off): (id, class,
        seq, promoted, lane); ticketq.audit.tickets of a LaneQueue gives (id, class, seq,
        lane) in the same order. O(n * lanes + W) in the server. Keyed lanes: (id, class,
        seq, False, key) of the tickets of serviceable lanes, in the order pops would take
        them (ticketq.audit.tickets of a keyed LaneQueue gives (id, class, seq, key));
        tickets of paused lanes or lanes at their ceiling are not listed. O(n + L).
        """
        if self.keyed:
            r = self._call("ktickets")
            return [(r[j], r[j + 1], r[j + 2], False, _reply_key(r[j + 4])) for j in range(0, len(r), 5)]
        r = self._call("ltickets")
        return [(r[j], r[j + 1], r[j + 2], r[j + 3] == 1, r[j + 4]) for j in range(0, len(r), 5)]

    def __repr__(self):
        i = self.info()
        if self.keyed:
            return "<FleetLaneQueue %s keyed %d/%d lanes=%d leased=%d>" % (
                self.keys[0][:-5], i["queued"], i["capacity"], self.lane_info()["lanes"], i["leased"])
        h = self.lane_info()["held"]
        return "<FleetLaneQueue %s %d/%d CRITICAL=%d HIGH=%d NORMAL=%d LOW=%d leased=%d lanes=%s>" % (
            self.keys[0][:-5], i["queued"], i["capacity"], i["classes"][3], i["classes"][2],
            i["classes"][1], i["classes"][0], i["leased"],
            ",".join(["%d/%d" % (h[l], self.lane_capacity[l]) for l in range(self.lanes)]))

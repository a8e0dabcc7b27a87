# Host only (CPython): a producer/consumer load on one fleet queue whose clients log every
# acknowledged push, pop and ack with the ticket's id and the client's own monotonic times
# (sent, answered), and the checks that read only those logs and the queue's end state
# (test_fleet_failover.py, test_fleet_cluster_ha.py).
#
#   load = Load(connect, name, producers=2, consumers=3)   # connect(i) -> a client object
#   load.start(); ... kill servers ...; load.stop(drain_conn)
#   r = check(load)        # {"lost": [...], "double": [...], "twice": [...], ...}
#
# What the checks count, per ticket id (ids are unique: each is pushed once):
# - lost: a push that returned (acknowledged) whose ticket was neither acked (ack returned
#   True) nor is still queued or leased at the end;
# - twice: a ticket acked (ack returned True) more than once;
# - double: two pops of one ticket that the server cannot both have made legitimately. A pop
#   runs at some instant e within [sent, answered] of its call (a call sent again after a
#   network error: from its first sending), and its lease lasts lease_ms of the server's
#   clock (the same host clock here): a ticket can come back only after that lease ran
#   out, so two pops of it less than lease_ms apart (for every choice of their instants
#   within their intervals, less a margin for the clocks' ms resolution) held it at once.
#   A pop before a pop whose ack returned True must have expired before that pop; a pop
#   after it means an acked ticket came back. Both are counted here ("came_back" separates
#   the second kind). A lease that expired and was popped again is not a double hold.
# - phantom: a popped id no producer ever pushed.
import threading
import time

from ticketq import QueueEmpty, QueueFull
from ticketq.fleet import FleetQueue, NotDurable

LEASE_MS = 1500
MARGIN = 0.05  # s: the server's TIME is read in ms; client stamps in s


def now():
    return time.monotonic()


class Load:
    def __init__(self, connect, name, producers=2, consumers=3, capacity=2000, lease_ms=LEASE_MS,
                 qkw=None, pause=0.002):
        self.connect = connect  # connect(i) -> a fresh client (redis-py, ticketq.resp, RedisCluster)
        self.name = name
        self.np, self.nc = producers, consumers
        self.capacity = capacity
        self.lease_ms = lease_ms
        self.qkw = dict(qkw or {})  # more FleetQueue keywords (durability)
        self.pause = pause
        self.pushed = {}  # id -> (sent, answered): acknowledged pushes
        self.unknown_push = set()  # ids whose push raised (may or may not be queued)
        self.pops = []  # (id, who, token, sent, answered)
        self.acks = []  # (id, who, token, sent, answered, ok)
        self.unknown_ack = []  # (id, who, token)
        self.samples = {}  # the first message of each kind of error
        self.errors = {}  # the exceptions the clients met, by type name: count
        self.stopping = threading.Event()
        self.draining = threading.Event()
        self.threads = []
        self.lock = threading.Lock()

    def queue(self, i):
        return FleetQueue(self.connect(i), self.name, self.capacity, 0, 0, 0, **self.qkw)

    def _err(self, e):
        k = type(e).__name__
        if k == "FleetError":  # by its code: TQEXPIRED, ...
            k += " " + str(e).split(" ")[0]
        with self.lock:
            self.errors[k] = self.errors.get(k, 0) + 1
            self.samples.setdefault(k, "%s: %s" % (threading.current_thread().name, str(e)[:300]))

    def start(self):
        self.queue(0)  # made once, before any client runs (max_deliveries 0: never dead)
        for p in range(self.np):
            self.threads.append(threading.Thread(target=self._produce, args=(p,), daemon=True, name="p%d" % p))
        for c in range(self.nc):
            self.threads.append(threading.Thread(target=self._consume, args=(c,), daemon=True, name="c%d" % c))
        for t in self.threads:
            t.start()
        return self

    def _open(self, i):
        while not self.stopping.is_set():
            try:
                return self.queue(i)
            except Exception as e:  # the primary down: open again
                self._err(e)
                time.sleep(0.05)
        return None

    def _again(self, fn, *args):
        # fn(*args); NotDurable (the replicas did not confirm in time): the same call again,
        # as its docstring says (replayed, never applied twice), for up to ~30 s
        for _ in range(300):
            try:
                return fn(*args)
            except NotDurable as e:
                self._err(e)
                time.sleep(0.1)
        return fn(*args)

    def _produce(self, p):
        q = self._open(p)
        k = 0
        while q is not None and not (self.stopping.is_set() or self.draining.is_set()):
            i = (p + 1) * 1000000 + k
            k += 1
            t0 = now()
            while True:
                try:
                    self._again(q.push, i, k % 4)
                    self.pushed[i] = (t0, now())
                    break
                except QueueFull:
                    time.sleep(0.01)
                except Exception as e:  # a network error once the retries are spent, NotDurable
                    self._err(e)
                    self.unknown_push.add(i)
                    time.sleep(0.05)
                    break
            time.sleep(self.pause)

    def _consume(self, c):
        who = "c%d" % c
        q = self._open(100 + c)
        first = None  # when a pop whose reply was lost was first sent (the next pop resends it)
        seen = set()
        while q is not None and not self.stopping.is_set():
            t0 = now() if first is None else first
            try:
                i = self._again(q.pop, self.lease_ms)
            except QueueEmpty:
                first = None
                time.sleep(0.01)
                continue
            except Exception as e:
                self._err(e)
                if first is None:
                    first = t0
                time.sleep(0.05)
                continue
            first = None
            tok = q.last_lease
            self.pops.append((i, who, tok, t0, now()))
            if i % 7 == 0 and i not in seen:  # a crashed worker: its lease runs out, it comes back
                seen.add(i)
                continue
            time.sleep(0.002)
            a0 = now()
            try:
                ok = self._again(q.ack, tok)
            except Exception as e:
                self._err(e)
                self.unknown_ack.append((i, who, tok))
                continue
            self.acks.append((i, who, tok, a0, now(), bool(ok)))

    def stop(self, probe, drain_secs=60.0):
        # Stop the producers, let the consumers empty the queue (the crashed workers' leases
        # run out), then stop them. probe: a FleetQueue on its own client.
        self.draining.set()
        end = now() + drain_secs
        while now() < end:
            try:
                inf = probe.info()
                if inf["queued"] == 0 and inf["leased"] == 0:
                    break
            except Exception as e:
                self._err(e)
            time.sleep(0.1)
        self.stopping.set()
        for t in self.threads:
            t.join(60)
        alive = [t for t in self.threads if t.is_alive()]
        assert not alive, "clients still running: %r" % alive
        self.end = end_state(probe)


def end_state(q):
    # ids still queued or leased at the end (the leased ones read as fleetctl leased does)
    import fleet_server

    ids = set(t[0] for t in q.tickets())
    for row in fleet_server.fleetctl.leased(q.conn, q):
        ids.add(row[0] if isinstance(row, (tuple, list)) else row["id"])
    return ids


def check(load, lease_ms=None):
    lease = (lease_ms or load.lease_ms) / 1000.0
    acked = {}
    for i, who, tok, a0, a1, ok in load.acks:
        if ok:
            acked.setdefault(i, []).append((who, tok, a0, a1))
    pops = {}
    for p in load.pops:
        pops.setdefault(p[0], []).append(p)
    # an ack that raised (a network error once the retries were spent) may have run: its
    # ticket gone is no loss (the client was not told it was acked, nor that it was not)
    maybe = set(x[0] for x in load.unknown_ack)
    lost = sorted(i for i in load.pushed if i not in acked and i not in load.end and i not in maybe)
    twice = sorted(i for i, v in acked.items() if len(v) > 1)
    phantom = sorted(i for i in pops if i not in load.pushed and i not in load.unknown_push)
    double = []
    came_back = []
    for i, ps in pops.items():
        if len(ps) < 2:
            continue
        ps.sort(key=lambda p: p[3])
        done = set(tok for who, tok, a0, a1 in acked.get(i, ()))
        for x in range(len(ps)):
            for y in range(x + 1, len(ps)):
                a, b = ps[x], ps[y]
                # the widest the two instants can be apart: less than the lease, both held
                if max(b[4] - a[3], a[4] - b[3]) < lease - MARGIN:
                    double.append((i, a, b))
                elif a[2] in done and b[3] + MARGIN > a[4]:
                    came_back.append((i, a, b))  # popped again after an ack that returned True
                elif b[2] in done and a[3] + lease - MARGIN > b[4]:
                    double.append((i, a, b))  # a still held it when b, later acked, popped it
    return {"pushed": len(load.pushed), "unknown_push": len(load.unknown_push), "pops": len(load.pops),
            "acked": len(acked), "unknown_ack": len(load.unknown_ack), "end": len(load.end),
            "lost": lost, "twice": twice, "double": double, "came_back": came_back, "phantom": phantom,
            "errors": dict(load.errors), "samples": dict(load.samples),
            "history": dict((i, history(load, i)) for i in (lost + twice)[:5])}


def history(load, i):
    # everything the clients logged about ticket i, for a failure's message
    return {"push": load.pushed.get(i), "pops": [p for p in load.pops if p[0] == i],
            "acks": [a for a in load.acks if a[0] == i],
            "unknown_acks": [a for a in load.unknown_ack if a[0] == i]}


def summary(r):
    # one line for the test's output and docs/fleet-ops.md's table
    return ("pushed %d (+%d unknown), pops %d, acked %d (+%d unknown), left %d; lost %d, acked twice %d, "
            "held twice %d, came back %d, phantom %d; client errors %s" % (
                r["pushed"], r["unknown_push"], r["pops"], r["acked"], r["unknown_ack"], r["end"], len(r["lost"]),
                len(r["twice"]), len(r["double"]), len(r["came_back"]), len(r["phantom"]), r["errors"]))

# Keyed lanes on the fleet (issue 24; fleet/keyed.lua, ticketq.fleet keyed mode), host
# only (a real redis-server; on MicroPython the tests skip): the rule's cases one by one
# (lease end puts the lane at the ring's tail with no extra turn, ceiling, pause, weights
# changed mid-turn), the wait bound of docs/lanes.md on a skewed workload, a lane costing
# nothing once empty, bad input refused with nothing changed, kinds and layouts never mixed
# up, exactly-once under an interrupt at every point of a push, pop and ack, a Redis
# Cluster node, and the board's keyed LaneQueue against the fleet when the board has it.
from support import IS_MICROPYTHON, raises, skip

if not IS_MICROPYTHON:
    import fleet_server
    from ticketq_tools import fleetctl
    import keyedmodel
    import ticketq.audit as tqaudit
    from ticketq.core import QueueEmpty, QueueFull
    from ticketq.fleet import FleetError, FleetQueue
    from ticketq.fleet import FleetLaneQueue, LaneFull, LanesFull

LONG = 600000


def host():
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    return fleet_server.shared()


def keyed(conn, tag, cap=64, **kw):
    return FleetLaneQueue(conn, fleet_server.fresh_name(tag), cap, **kw)


def drain(q, lease=0):
    out = []
    while True:
        try:
            out.append((q.pop(lease), getattr(q, "last_lane", None)))
        except QueueEmpty:
            return out


def dump(conn, q):
    # every key of the queue, as bytes (DUMP), but the replay records' clock
    return [(k, conn.dump(k)) for k in q.keys if not k.endswith(":idemt")]


def test_round_robin_by_key_and_weights():
    conn = host().client()
    q = keyed(conn, "rr")
    for i, k in enumerate(["a", "a", "a", "b", 7, "7", "c"]):
        q.push(i, 1, k)
    # all weights 1: plain round robin in the order the lanes joined; "7" is lane 7
    assert drain(q) == [(0, "a"), (3, "b"), (4, 7), (6, "c"), (1, "a"), (5, 7), (2, "a")]
    q.set_lane("a", weight=3)
    for i in range(6):
        q.push(i, 2, "a" if i < 4 else "b")
    q.push(9, 3, "z")  # a higher class first, whatever the rings
    assert drain(q) == [(9, "z"), (0, "a"), (1, "a"), (2, "a"), (4, "b"), (3, "a"), (5, "b")]


def test_one_lane_is_a_ticket_queue():
    conn = host().client()
    q = keyed(conn, "one")
    p = FleetQueue(conn, fleet_server.fresh_name("plain"), 64)
    for i in range(20):
        c = (i * 7) % 4
        assert q.push(i, c, 5) == p.push(i, c)
    for _ in range(20):
        assert q.pop() == p.pop() and q.last_seq == p.last_seq
    # the digest folds key 5 in (lane != 0), so it differs from the plain queue's; with key 0
    # it is the plain digest, as a fixed lane queue's lane 0
    z = keyed(conn, "zero")
    p = FleetQueue(conn, fleet_server.fresh_name("plain"), 64)
    for i in range(5):
        z.push(i, 1, 0)
        p.push(i, 1)
    drain(z)
    drain(p)
    assert z.digest == p.digest


def test_lease_end_puts_the_lane_at_the_tail_without_an_extra_turn():
    conn = host().client()
    q = keyed(conn, "lease")
    m = keyedmodel.KeyedModel(64)
    for i, k in enumerate(["a", "b", "c", "a", "b", "c"]):
        q.push(i, 1, k)
        m.push(i, 1, k)
    q.set_lane("a", weight=2)
    m.set_lane("a", 2)
    assert q.pop(LONG) == 0 and q.last_lane == "a"  # a's first; a still head (weight 2)
    ta = q.last_lease
    mt = m.pop(True)[4]
    assert q.pop(LONG) == 3  # a's second: its turn ends, it goes to the tail: b, c, a
    t3 = q.last_lease
    m.pop(True)
    assert q.release(ta) == 1 and m.release(mt) == 1  # 0 back, before 3's place: a in ring
    assert [x[0] for x in drain(q)] == [1, 2, 0, 4, 5]
    assert [m.pop()[0] for _ in range(5)] == [1, 2, 0, 4, 5]
    assert q.ack(t3)
    # a lane that had left the ring (its only ticket leased) rejoins at the TAIL on release
    for i, k in enumerate(["x", "y", "z"]):
        q.push(10 + i, 1, k)
    assert q.pop(LONG) == 10
    tx = q.last_lease
    q.push(13, 1, "y")
    assert q.release(tx) == 1  # x joins behind y and z: no position kept, no extra turn
    assert [x[0] for x in drain(q)] == [11, 12, 10, 13]
    # an expired lease does the same (the server's clock)
    q.push(20, 1, "p")
    q.push(21, 1, "r")
    assert q.pop(LONG) == 20
    t = q.last_lease
    q.push(22, 1, "r")
    assert q.touch(t, 1)
    fleet_server_sleep(30)
    assert drain(q) == [(21, "r"), (20, "p"), (22, "r")]
    assert q.last_deliveries == 1 and q.info()["leased"] == 0


def fleet_server_sleep(ms):
    import time

    time.sleep(ms / 1000.0)


def test_ceiling_and_pause():
    conn = host().client()
    q = keyed(conn, "ceil")
    for i in range(4):
        q.push(i, 1, "hot")
    q.push(10, 1, "cold")
    q.push(11, 1, "cold")
    q.set_lane("hot", ceiling=2)
    assert q.pop(LONG) == 0
    t0 = q.last_lease
    assert q.pop(LONG) == 10
    assert q.pop(LONG) == 1  # hot now holds 2 leases: its ceiling; out of the ring
    t1 = q.last_lease
    assert q.lane("hot") == {"exists": True, "queued": (0, 2, 0, 0), "leased": 2, "held": 4,
                             "weight": 1, "bound": 64, "ceiling": 2, "paused": False}
    assert q.pop(LONG) == 11
    raises(QueueEmpty, q.pop)  # only hot's tickets are queued, and hot is at its ceiling
    assert q.peek.__call__ and raises(QueueEmpty, q.peek)
    assert q.ack(t0)  # back under: hot rejoins
    assert q.pop() == 2
    q.pause("hot")
    raises(QueueEmpty, q.pop)
    q.push(12, 1, "cold")
    assert q.pop() == 12
    assert q.lane("hot")["paused"]
    q.resume("hot")
    assert q.pop() == 3
    assert q.ack(t1)
    # pausing a key with no lane is remembered (one field) until resumed
    q.pause("later")
    q.push(30, 1, "later")
    raises(QueueEmpty, q.pop)
    q.set_lane("later", ceiling=64)
    raises(QueueEmpty, q.pop)
    q.resume("later")
    assert q.pop() == 30


def test_a_weight_changed_mid_turn_counts_at_once():
    conn = host().client()
    q = keyed(conn, "midw")
    for i in range(4):
        q.push(i, 1, "a")
    q.push(9, 1, "b")
    q.set_lane("a", weight=3)
    assert q.pop() == 0 and q.pop() == 1
    q.set_lane("a", weight=1)  # used 2 >= 1: the turn ends at its next pop
    assert q.pop() == 2 and q.pop() == 9 and q.pop() == 3


def test_bounds_and_max_lanes():
    conn = host().client()
    q = keyed(conn, "bound", 5, max_lanes=2)
    assert q.max_lanes == 2
    q.set_lane("a", bound=2)
    q.push(1, 1, "a")
    q.push(2, 1, "a")
    e = raises(LaneFull, q.push, 3, 1, "a")
    assert str(e) == "lane 'a' full (2 tickets)"
    q.push(4, 1, "b")
    e = raises(LanesFull, q.push, 5, 1, "c")
    assert isinstance(e, QueueFull) and str(e) == "no lane for key 'c': max_lanes (2) lanes exist"
    e = raises(LanesFull, q.push, 5, 1, "7")
    assert str(e) == "no lane for key 7: max_lanes (2) lanes exist"
    assert q.push(6, 1, "b") == 3  # no number spent by the refusals
    q.push(7, 1, "b")
    raises(QueueFull, q.push, 8, 1, "b")
    assert drain(q) == [(1, "a"), (4, "b"), (2, "a"), (6, "b"), (7, "b")]
    assert q.push(5, 1, "c") == 5


def test_lanes_cost_nothing_once_empty():
    conn = host().client()
    q = keyed(conn, "mem", 5000)
    q.set_lane("kept", weight=2)  # a setting: one field, until reset to the default
    q.push(0, 0, "warm")
    drain(q)
    base = dump(conn, q)
    before = conn.info("memory")["used_memory"]
    for i in range(3000):
        q.push(i, i % 4, i if i % 2 else "chat-%d" % i)
    assert q.lane_info()["lanes"] == 3000
    grown = conn.info("memory")["used_memory"]
    assert grown > before + 3000 * 100  # the lanes were there ...
    t = []
    for _ in range(1500):
        q.pop(LONG)
        t.append(q.last_lease)
    drain(q)
    for x in t:
        assert q.ack(x)
    assert q.lane_info()["lanes"] == 0
    after = dump(conn, q)
    # ... and nothing of them is left: the same keys, the same bytes but meta's counters
    assert [k for k, v in after if v is not None] == [k for k, v in base if v is not None]
    assert conn.hkeys(q.keys[11]) == [b"skept"] and not conn.exists(q.keys[10], q.keys[1], q.keys[2])
    assert conn.info("memory")["used_memory"] < before + 64 * 1024
    q.set_lane("kept", weight=1)
    assert not conn.exists(q.keys[11])


def test_bad_input_is_refused_and_changes_nothing():
    conn = host().client()
    q = keyed(conn, "bad", 8)
    q.push(1, 1, "a")
    before = dump(conn, q)
    for k, exc, msg in ((1.5, TypeError, "lane key must be int or str, not float"),
                        (None, TypeError, "lane key must be int or str, not NoneType"),
                        (b"a", TypeError, "lane key must be int or str, not bytes"),
                        (-1, ValueError, "lane key must be"),
                        (2 ** 30, ValueError, "lane key must be"),
                        ("", ValueError, "lane key must be a str of 1..64 UTF-8 bytes, not 0"),
                        ("\u00e9" * 33, ValueError, "lane key must be a str of 1..64 UTF-8 bytes, not 66")):
        e = raises(exc, q.push, 2, 1, k)
        assert str(e).startswith(msg), (k, e)
    raises(ValueError, q.push, 2, 4, "a")
    raises(TypeError, q.push, "2", 1, "a")
    raises(ValueError, q.set_lane, "a", 0)
    raises(ValueError, q.set_lane, "a", 32768)
    raises(ValueError, q.set_lane, "a", None, 9)
    raises(ValueError, q.set_lane, "a", None, None, 0)
    raises(TypeError, q.set_lane, "a", 1.0)
    raises(TypeError, q.pause, 1.0)
    raises(ValueError, q.ack, "1" + "0" * 24 + ":1")  # a fixed lane token, not a keyed one
    assert dump(conn, q) == before
    # the server's own checks (redis-cli and other callers), nothing written either
    for args, msg in (([0, 0, 2, 1, ""], "lane key must be 1..64 bytes, not 0"),
                      ([0, 0, 2, 1, "x" * 65], "lane key must be 1..64 bytes, not 65"),
                      ([0, 0, 2, 7, "a"], "priority must be an integer 0..3")):
        e = raises(Exception, conn.execute_command, "FCALL", "tq1_kpush", 12, *(q.keys + args))
        assert str(e).startswith("TQARG ticketq: " + msg), e
    for args, msg in ((["a", "0", "", "", ""], "weight must be an integer 1..32767"),
                      (["a", "", "9", "", ""], "bound must be an integer 1..8"),
                      (["a", "", "", "", "2"], "paused must be an integer 0..1")):
        e = raises(Exception, conn.execute_command, "FCALL", "tq1_kset", 12, *(q.keys + args))
        assert str(e).startswith("TQARG ticketq: " + msg), e
    e = raises(Exception, conn.execute_command, "FCALL", "tq1_kpush", 10, *(q.keys[:10] + [0, 0, 2, 1, "a"]))
    assert "expected 12 keys, got 10" in str(e)
    assert dump(conn, q) == before
    # settings that cannot be: refused before anything is sent, nothing created
    name = fleet_server.fresh_name("badnew")
    e = raises(ValueError, lambda: FleetLaneQueue(conn, name, 8, aging=2))
    assert str(e) == "aging needs fixed lanes"
    raises(ValueError, lambda: FleetLaneQueue(conn, name, 8, lane_capacity=2))
    raises(ValueError, lambda: FleetLaneQueue(conn, name, 8, [1, 1], max_lanes=2))
    raises(ValueError, lambda: FleetLaneQueue(conn, name, 8, max_lanes=0))
    assert conn.keys("*{%s}*" % name) == []


def test_kinds_and_layouts_are_never_mixed_up():
    srv = host()
    conn = srv.client()
    q = keyed(conn, "kind", 8, max_lanes=4)
    q.push(1, 1, "a")
    e = raises(FleetError, FleetQueue, conn, q.name)
    assert str(e).startswith("TQKIND") and "keyed lanes" in str(e)
    e = raises(FleetError, FleetLaneQueue, conn, q.name, 8, [1, 1])
    assert str(e).startswith("TQKIND")
    e = raises(FleetError, lambda: FleetLaneQueue(conn, q.name, 8, max_lanes=5))
    assert str(e).startswith("TQCONFIG") and "max_lanes 4" in str(e)
    r = FleetLaneQueue(conn, q.name)  # by name: the server says which kind
    assert r.keyed and r.max_lanes == 4 and r.capacity == 8 and r.pop() == 1 and r.last_lane == "a"
    assert fleetctl.open_queue(conn, q.name).keyed
    f = FleetLaneQueue(conn, fleet_server.fresh_name("fixed"), 8, [1, 1])
    e = raises(FleetError, FleetLaneQueue, conn, f.name, 8)
    assert str(e).startswith("TQKIND") and "no keyed lanes" in str(e)
    assert not FleetLaneQueue(conn, f.name).keyed
    for op in ("info", "push", "remove"):  # the shared functions refuse a keyed queue
        args = {"info": [], "push": [0, 0, 1, 1], "remove": [0, 0, 1]}[op]
        e = raises(Exception, conn.execute_command, "FCALL", "tq1_" + op, 10, *(q.keys[:10] + args))
        assert "TQKIND" in str(e), e


def test_another_librarys_version_refuses_a_keyed_queue_by_its_layout():
    host()
    srv = fleet_server.RedisServer().start()
    try:
        conn = srv.client()
        q = FleetLaneQueue(conn, "jobs", 4)
        q.push(3, 1, "k")
        fleetctl.install(conn, version=2)
        for op, n, args in (("kpush", 12, [0, 0, 5, 1, "k"]), ("lpush", 10, [0, 0, 5, 1, 0]), ("info", 10, [])):
            e = raises(Exception, conn.execute_command, "FCALL", "tq2_" + op, n, *(q.keys[:n] + args))
            assert "TQLAYOUT" in str(e) and "layout version 1:keyed" in str(e), e
        assert q.pop() == 3
    finally:
        srv.close()


def test_dead_letters_leave_their_lane():
    conn = host().client()
    q = keyed(conn, "dead", 8, max_deliveries=1)
    q.set_lane("a", bound=1)
    q.push(5, 2, "a")
    assert q.pop(LONG) == 5
    raises(LaneFull, q.push, 6, 2, "a")
    assert q.release(q.last_lease) == 2
    assert q.lane("a")["exists"] is False and q.lane_info()["lanes"] == 0
    assert q.dead() == [(5, 2, 0, 1, "a")]  # the letter keeps its key (tests/test_fleet_dead.py)
    assert q.push(6, 2, "a") == 1


def test_clear_keeps_settings_and_restarts_the_rings():
    conn = host().client()
    q = keyed(conn, "clr")
    q.set_lane("a", weight=2)
    for i in range(4):
        q.push(i, 1, "a" if i % 2 else "b")
    q.pop(LONG)
    q.clear()
    assert q.info()["queued"] == q.info()["leased"] == q.lane_info()["lanes"] == 0
    assert conn.hkeys(q.keys[11]) == [b"sa"] and q.lane("a")["weight"] == 2
    q.push(9, 1, "b")
    q.push(10, 1, "a")
    q.push(11, 1, "a")
    q.push(12, 1, "b")
    assert [x[0] for x in drain(q)] == [9, 10, 11, 12]


def test_busiest_lanes_and_one_lane():
    conn = host().client()
    q = keyed(conn, "busy", 500)
    for k in range(50):
        for i in range(k % 7):
            q.push(i, 1, k)
    for i in range(20):
        q.push(i, 2, "big")
    assert q.pop(LONG) == 0  # a lease still counts: the lane holds it
    top = q.busiest(3, step=7)
    assert top[0] == {"key": "big", "queued": 19, "leased": 1}
    assert [t["key"] for t in top[1:]] in ([6, 13], [13, 6], [6, 20], [13, 20])  # 6 each
    helds = [t["queued"] + t["leased"] for t in top]
    assert helds == sorted(helds, reverse=True) and helds[0] == 20 and len(top) == 3
    assert q.lane(13) == {"exists": True, "queued": (0, 6, 0, 0), "leased": 0, "held": 6, "weight": 1,
                          "bound": 500, "ceiling": 500, "paused": False}
    assert q.lane("13") == q.lane(13) and q.lane_len(13) == 6
    assert q.lane("nobody")["exists"] is False


def skewed(q, pushes, seed=5, others=20, weights=None):
    # One hot lane takes 90% of the pushes; after each push one pop (so the queue stays
    # busy). Returns, per other lane, the worst (wait, bound) of its tickets: wait = pops
    # of the class between its push and its pop; bound = (floor(j / w) + 1) * S + j with j
    # its queued tickets ahead in its lane at push time and S the largest sum of the other
    # lanes' weights seen during the wait (docs/lanes.md, "Keyed lanes").
    from rng import Rng

    r = Rng(seed)
    w = weights or {}
    for k, v in w.items():
        q.set_lane(k, weight=v)
    lanes = {}  # key -> queued [(id, pushed at pop number, j)]
    worst = {}
    waits = {}  # id -> (pop number at push, j, key, S so far)
    npop = [0]
    ident = [0]

    def others_sum(key):
        return sum(w.get(k, 1) for k, v in lanes.items() if v and k != key)

    def pop_one():
        i = q.pop()
        k = q.last_lane
        lanes[k].pop(0)
        at, j, key, s = waits.pop(i)
        wl = w.get(key, 1)
        wait = npop[0] - at
        bound = (j // wl + 1) * s + j
        if key != "hot":
            a = worst.get(key)
            if a is None or wait - bound > a[0] - a[1]:
                worst[key] = (wait, bound)
            assert wait <= bound, (key, wait, bound, j, s)
        npop[0] += 1
        for x in waits:
            at2, j2, key2, s2 = waits[x]
            waits[x] = (at2, j2, key2, max(s2, others_sum(key2)))

    for n in range(pushes):
        key = "hot" if r.next(10) else "k%d" % r.next(others)
        ident[0] += 1
        i = ident[0] & 0x3FFFFFFF
        lanes.setdefault(key, [])
        j = len(lanes[key])
        q.push(i, 1, key)
        lanes[key].append(i)
        waits[i] = (npop[0], j, key, others_sum(key))
        if n % 10 != 9:  # a little slower than pushes, so a backlog builds
            pop_one()
    while waits:
        pop_one()
    return worst


def test_skewed_workload_keeps_every_other_lane_within_its_wait_bound():
    conn = host().client()
    q = keyed(conn, "skew", 10000)
    worst = skewed(q, 600)
    assert len(worst) >= 10 and all(w <= b for w, b in worst.values())
    q2 = keyed(conn, "skew2", 10000)
    worst = skewed(q2, 600, seed=9, weights={"hot": 5, "k1": 3})
    assert len(worst) >= 10 and all(w <= b for w, b in worst.values())


# ---- exactly once: an interrupt at every point of a keyed push, pop and ack (the machinery
# of test_fleet_safety.py, which injects a KeyboardInterrupt or an application's exception
# before and after each send, read and parse of redis-py and of the board client)


def _safety():
    import test_fleet_safety as s

    return s


def kpop_scenario(lease, board=False):
    s = _safety()

    def run(srv, points, at):
        c = s.injecting_resp(srv, points) if board else s.injecting_client(srv, points)
        q = keyed(c, "ikpop", 16)
        for i, k in ((1, "a"), (2, "b"), (3, "a")):
            q.push(i, 1, k)
        got = []
        hit, r = s.interrupted(points, at, q.pop, lease)
        n = points.n
        if not hit:
            got.append(r)
            if lease:
                assert q.ack(q.last_lease)
        while True:
            try:
                got.append(q.pop(lease))
            except QueueEmpty:
                break
            if lease:
                assert q.last_deliveries == 1 and q.ack(q.last_lease)
        assert got == [1, 2, 3], (at, hit, got)
        assert q.push(50, 0, "z") == 3 and q.pop() == 50 and len(q) == 0
        assert q.info()["leased"] == 0 and q.lane_info()["lanes"] == 0
        return n
    return run


def kpush_scenario():
    s = _safety()

    def run(srv, points, at):
        q = keyed(s.injecting_client(srv, points), "ikpush", 16)
        q.push(1, 1, "a")
        hit, r = s.interrupted(points, at, q.push, 9, 1, "b")
        n = points.n
        assert hit or r == 1
        sq = q.push(10, 1, "a")
        ids = [x[0] for x in drain(q)]
        assert ids in ([1, 9, 10], [1, 10]), (at, ids)
        assert hit or ids == [1, 9, 10]
        assert sq == len(ids) - 1
        return n
    return run


def kack_scenario():
    s = _safety()

    def run(srv, points, at):
        q = keyed(s.injecting_client(srv, points), "ikack", 16)
        watch = FleetLaneQueue(srv.client(install=False), q.name)
        q.set_lane("a", ceiling=1)
        q.push(1, 1, "a")
        q.push(2, 1, "a")
        assert q.pop(LONG) == 1
        token = q.last_lease
        hit, r = s.interrupted(points, at, q.ack, token)
        n = points.n
        ran = watch.info()["leased"] == 0
        assert hit or (r is True and ran)
        assert q.ack(token) is (not ran), (at, hit, ran)
        assert watch.info()["leased"] == 0
        assert q.pop(LONG) == 2 and q.ack(q.last_lease)  # the ceiling was given back once
        return n
    return run


def test_interrupt_at_every_point_of_keyed_calls():
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    s = _safety()
    for exc in (KeyboardInterrupt, s.Injected):
        s.every_point("kpop", kpop_scenario(0), exc)
        s.every_point("kpop lease", kpop_scenario(LONG), exc)
        s.every_point("kpop board", kpop_scenario(LONG, board=True), exc)
        s.every_point("kpush", kpush_scenario(), exc)
        s.every_point("kack", kack_scenario(), exc)


def test_a_lost_pop_reply_is_replayed_while_its_lease_holds():
    srv = host()
    import redis

    s = _safety()
    proxy = fleet_server.DropProxy(srv.port)
    try:
        conn = redis.Redis(host="127.0.0.1", port=proxy.port, retry_on_error=[],
                           retry=redis.retry.Retry(redis.backoff.NoBackoff(), 0))
        a = keyed(conn, "klost", 8)
        a.retries = 0
        b = FleetLaneQueue(srv.client(install=False), a.name)
        b.push(42, 1, "x")
        b.push(43, 1, "y")
        assert conn.execute_command("ECHO", fleet_server.DropProxy.MARK)
        raises(redis.ConnectionError, a.pop, LONG)
        assert b.info()["leased"] == 1
        assert a.pop(LONG) == 42 and a.last_deliveries == 1 and a.last_lane == "x"  # replayed
        assert a.ack(a.last_lease)
        s.expire_leases(b.conn, b)  # nothing leased: nothing changes
        assert a.pop() == 43 and b.info()["queued"] == 0 and b.lane_info()["lanes"] == 0
    finally:
        proxy.close()


def test_keyed_queue_on_a_cluster_node():
    host()
    srv = fleet_server.RedisServer(cluster=True).start()
    try:
        for conn in (srv.client(), srv.resp()):
            q = keyed(conn, "kcl", 16)
            for i in range(6):
                q.push(i, i % 4, "k%d" % (i % 3))
            assert q.pop(LONG) == 3 and q.ack(q.last_lease)
            q.set_lane("k0", weight=2, ceiling=1)
            q.pause("k1")
            assert q.lane("k1")["paused"] and q.busiest(2)
            assert q.remove(5) and q.peek() in (2, 1, 0)
            q.resume("k1")
            drain(q, LONG)
            q.clear()
            q.destroy()
    finally:
        srv.close()


def test_keyed_queue_on_a_three_master_cluster():
    host()
    import redis.cluster

    with fleet_server.Cluster(3) as cl:
        rc = cl.client(socket_timeout=2.0)
        names = ["chat-%d" % i for i in range(6)]  # queues spread over the masters
        for n in names:
            q = FleetLaneQueue(rc, n, 16)
            q.push(1, 1, "a")
            q.push(2, 1, "b")
            q.push(3, 1, "a")
            assert [x[0] for x in drain(q, LONG)] == [1, 2, 3]
            assert q.info()["leased"] == 3
            q.destroy()
        assert isinstance(rc, redis.cluster.RedisCluster)


# ---- the board's keyed LaneQueue (keyed-board, ticketq.lanes) against the fleet


def board_keyed(cap, max_lanes):
    from ticketq.lanes import LaneQueue

    try:
        return LaneQueue(cap, max_lanes=max_lanes)
    except TypeError:
        return None


def test_board_and_fleet_pop_the_same_with_int_keys():
    srv = host()
    if board_keyed(8, 4) is None:
        skip("ticketq.lanes.LaneQueue has no keyed lanes (max_lanes=) in this tree")
    from rng import Rng

    for conn in (srv.client(), srv.resp()):
        for seed in range(3):
            r = Rng(seed + 3)
            cap, ml = 12, 5
            t = board_keyed(cap, ml)
            f = keyed(conn, "kboard", cap, max_lanes=ml)
            m = keyedmodel.KeyedModel(cap, ml)
            for step in range(400):
                op = r.next(11)
                if op < 5:
                    args = (r.next(9), r.next(4), r.next(7) * 1000)
                    res = [_out(q.push, *args) for q in (t, f, m)]
                elif op == 10:
                    # a setting for a lane that exists (a board keeps them only while it does)
                    k = r.next(7) * 1000
                    if k not in m.lanes:
                        continue
                    w, b = r.next(3) + 1, r.next(cap) + 1
                    t.set_lane(k, w, b)
                    f.set_lane(k, w, b)
                    m.set_lane(k, w, b)
                    continue
                elif op < 8:
                    res = [_out(q.pop) for q in (t, f)] + [_out(lambda: m.pop()[0])]
                    if res[0][0] == "ok":
                        assert t.last_lane == f.last_lane == m.last_lane
                elif op == 8:
                    i = r.next(9)
                    res = [_out(q.remove, i) for q in (t, f, m)]
                else:
                    res = [_out(q.peek) for q in (t, f, m)]
                assert res[0] == res[1] == res[2], (seed, step, res)
                if res[0][0] != "ok" and res[0][0] != "empty":
                    assert msgs(t, f, op, args) if op < 5 else True
                assert t.digest == f.digest == m.digest
                if step % 20 == 0:  # the whole queue in pop order, as the board's audit gives it
                    assert [(x[0], x[1], x[2], x[4]) for x in f.tickets()] == tqaudit.tickets(t)
                for k in list(m.settings):  # the board forgot a vanished lane's settings
                    if k not in m.lanes:
                        del m.settings[k]
                        f.set_lane(k, 1, cap, cap)


def _out(fn, *a):
    # the model's exceptions carry no message: type names only; board and fleet: both
    try:
        return ("ok", fn(*a))
    except QueueFull as e:
        n = type(e).__name__
        return (n.rstrip("M"),) if n.endswith("M") else (n,)
    except QueueEmpty:
        return ("empty",)


def test_fleetctl_lanes_lane_set_pause_resume():
    srv = host()
    import json
    import os
    import subprocess
    import sys

    srv.client()
    name = fleet_server.fresh_name("kctl")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    def ctl(*a):
        p = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", "fleet"] + list(a) + ["--url", srv.url],
                           capture_output=True, text=True, timeout=60)
        return p.returncode, p.stdout, p.stderr

    assert ctl("create", name, "--capacity", "50", "--keyed", "--max-lanes", "9")[0] == 0
    for i, k in enumerate(["a", "a", "7", "b", "a"]):
        assert ctl("push", name, str(i), "--key", k)[0] == 0
    code, out, _ = ctl("lanes", name, "--top", "2", "--json")
    assert code == 0 and json.loads(out) == {"lanes": 3, "max_lanes": 9, "busiest": [
        {"key": "a", "queued": 3, "leased": 0}, {"key": 7, "queued": 1, "leased": 0}]}
    code, out, _ = ctl("lane-set", name, "a", "--weight", "3", "--ceiling", "2", "--json")
    d = json.loads(out)
    assert code == 0 and (d["weight"], d["ceiling"], d["bound"], d["queued"]) == (3, 2, 50, [0, 3, 0, 0])
    assert ctl("lane-pause", name, "7")[1].rstrip().endswith("PAUSED")
    q = FleetLaneQueue(srv.client(install=False), name)
    assert q.lane(7)["paused"] and [x[1] for x in drain(q)] == ["a", "a", "a", "b"]  # weight 3
    assert "PAUSED" not in ctl("lane-resume", name, "7")[1]
    assert q.pop() == 2 and q.last_lane == 7
    code, out, err = ctl("lane-set", name, "a", "--weight", "0")
    assert code == 2 and "weight must be 1..32767" in err
    code, out, err = ctl("push", name, "1")
    assert code == 2 and "has keyed lanes" in err
    assert ctl("list")[1].count("%s keyed" % name) == 1
    q.push(40, 2, "t")
    q.push(41, 1, 5)
    assert q.pop(LONG) == 40
    code, out, _ = ctl("leased", name, "--json")
    d = json.loads(out)
    assert code == 0 and [(x["id"], x["lane"], x["token"]) for x in d] == [(40, "t", q.last_lease.decode())]
    code, out, _ = ctl("tickets", name, "--json")
    assert code == 0 and [(x["id"], x["lane"]) for x in json.loads(out)["queued"]] == [(41, 5)]
    code, out, _ = ctl("peek", name)
    assert code == 0 and out.strip() == "41 NORMAL seq=%d lane=5" % q.tickets()[0][2]
    plain = fleet_server.fresh_name("kctlp")
    ctl("create", plain, "--capacity", "5")
    code, out, err = ctl("lane", plain, "a")
    assert code == 1 and "has no keyed lanes" in err
    # lane/lane-set --json name the key as tickets, leased and lanes do: an int for a
    # canonical decimal 0..2**30-1 (lane 7 and "7" are one lane), else the str ("07" is a
    # str lane); it was always the str, so "7" in one JSON document and 7 in another
    for arg, key in [("7", 7), ("0", 0), ("07", "07"), ("1073741824", "1073741824"), ("a", "a")]:
        code, out, err = ctl("lane", name, arg, "--json")
        assert code == 0 and json.loads(out)["key"] == key, (arg, out, err)
    code, out, _ = ctl("lane-set", name, "5", "--weight", "2", "--json")
    assert code == 0 and json.loads(out)["key"] == 5


def msgs(t, f, op, args):
    # a refused push: the board's words and the fleet's are the same
    a = b = None
    try:
        t.push(*args)
    except QueueFull as e:
        a = (type(e).__name__, str(e))
    try:
        f.push(*args)
    except QueueFull as e:
        b = (type(e).__name__, str(e))
    assert a == b and a is not None, (a, b)
    return True


def test_a_key_that_is_not_utf8_is_refused_with_the_keys_words():
    # Was a lib bug (lib/ticketq/fleet.py, the key check): a str key with a lone
    # surrogate ("\ud800", e.g. from os.fsdecode of a bad byte) cannot be UTF-8, and it is
    # refused with the codec's own words ("'utf-8' codec can't encode character '\ud800'
    # ... surrogates not allowed": a ValueError, but not one that says what a key must be).
    # Expected: a ValueError that starts "lane key must be", as every other bad key's, and
    # nothing sent (that part holds already).
    conn = host().client()
    q = keyed(conn, "surrogate", 8)
    q.push(1, 1, "a")
    before = dump(conn, q)
    for call in (lambda: q.push(2, 1, "\ud800"), lambda: q.set_lane("x\udcff", 2),
                 lambda: q.lane("\ud800")):
        e = raises(ValueError, call)
        assert str(e).startswith("lane key must be"), e
    assert dump(conn, q) == before


def test_a_queue_opened_as_keyed_says_how_to_open_it():
    # FleetLaneQueue(conn, name, capacity) (keyed) on a plain or a fixed-lane queue said only
    # "has no keyed lanes" (for a plain queue too, which has no lanes at all), where every
    # other TQKIND says which class opens the queue.
    conn = host().client()
    plain = FleetQueue(conn, fleet_server.fresh_name("kplain"), 8)
    plain.push(1, 1)
    fixed = FleetLaneQueue(conn, fleet_server.fresh_name("kfixed"), 8, [2, 1])
    fixed.push(2, 1, 1)
    for q, want in ((plain, "ticketq.fleet.FleetQueue"), (fixed, "ticketq.fleet.FleetLaneQueue(conn, name)")):
        before = (q.tickets(), q.digest)
        e = raises(FleetError, FleetLaneQueue, conn, q.name, 8)
        assert str(e).startswith("TQKIND") and "no keyed lanes" in str(e) and ("open it with " + want) in str(e), e
        assert (q.tickets(), q.digest) == before
    plain.destroy()
    fixed.destroy()


def test_fleetctl_peek_and_tickets_limit_read_only_the_first_lanes():
    # fleetctl peek and tickets --limit took a keyed queue's whole ticket list (ktickets,
    # O(n + L) in one server call: 2.6 s of a blocked server at 100,000 lanes) to show its
    # first ticket(s). ktickets with a limit k reads at most k lanes of each ring and k
    # tickets of each: the same first k tickets as the full list, in a few calls.
    conn = host().client()
    q = keyed(conn, "klimit", 2000)
    for i in range(600):
        q.push(i, i % 3, "dev%d" % (i % 300))
    q.set_lane("dev1", 3)
    q.set_lane("dev5", 2)
    q.pause("dev7")
    for _ in range(4):
        q.pop()  # part-way through a turn: used_c > 0 somewhere
    full = q.tickets()
    for k in (1, 2, 3, 7, 50, 299, 300, 301, 599, 1000):
        rows = fleetctl.ticket_rows(q, k)
        assert [(r["id"], fleetctl.CLASSES.index(r["class"]), r["seq"], r["lane"]) for r in rows] == \
            [(t[0], t[1], t[2], t[4]) for t in full[:k]], k
    assert fleetctl.ticket_rows(q) == fleetctl.ticket_rows(q, len(full))
    calls = conn.info("commandstats").get("cmdstat_zrangebyscore", {}).get("calls", 0)
    assert fleetctl.ticket_rows(q, 1)[0]["id"] == q.peek()
    n = conn.info("commandstats").get("cmdstat_zrangebyscore", {}).get("calls", 0) - calls
    assert n <= 12, n  # a lane and a ticket of each ring (and kreap's), not 300 lanes'
    e = raises(Exception, conn.execute_command, "FCALL", "tq1_ktickets", 12, *(q.keys + ["-1"]))
    assert "TQARG" in str(e) and "limit" in str(e), e
    q.destroy()


def test_fleetctl_requeue_on_a_keyed_queue_names_the_refusal():
    # requeue pushed a letter to lane 0 (letters did not record their lane), and fleetctl
    # reported a LanesFull as "queue full after requeueing 0 of 1 dead letters" with the
    # queue 1/10 full. A letter now goes back to its own key ("x"), and a refusal is told in
    # push's words; the letter stays a dead letter, nothing else changes.
    import time

    conn = host().client()
    q = keyed(conn, "krequeue", 10, max_lanes=1, max_deliveries=1)
    q.push(11, 2, "x")
    assert q.pop(1) == 11
    time.sleep(0.01)
    q.info()  # the lease ran out: a dead letter (one delivery at most)
    q.push(12, 1, "a")
    before = (q.tickets(), q.digest, conn.lrange(q.keys[7], 0, -1))
    e = raises(fleetctl.Failure, fleetctl.requeue, q, 10)
    assert "no lane for key 'x': max_lanes (1) lanes exist" in str(e) and "queue full" not in str(e), e
    assert (q.tickets(), q.digest, conn.lrange(q.keys[7], 0, -1)) == before  # the letter is still dead
    q.pop()
    assert fleetctl.requeue(q, 10) == [(11, "HIGH", 2, "x")] and q.pop() == 11 and q.last_lane == "x"
    q.destroy()


def test_a_lane_that_becomes_serviceable_wakes_a_waiter():
    # resume, an ack that takes a lane under its ceiling, a raised ceiling: tickets that
    # could not pop now can, but no waiter was woken (only a push or a returned ticket woke
    # one), so a pop_until blocked in the server slept on to the end of its wait (2 s, or
    # up to the socket timeout's cap). Each now leaves the one wake token a push leaves.
    conn = host().client()
    q = keyed(conn, "kwake", 10)
    wake = q.keys[6]
    for case in ("resume", "ack", "ceiling"):
        q.clear()
        if case == "resume":
            q.push(1, 1, "a")
            q.pause("a")
            act = lambda: q.resume("a")  # noqa: E731
        else:
            q.set_lane("a", ceiling=1)
            q.push(1, 1, "a")
            q.push(2, 1, "a")
            q.pop(60000)
            tok = q.last_lease
            act = (lambda: q.ack(tok)) if case == "ack" else (lambda: q.set_lane("a", ceiling=2))  # noqa: E731
        conn.delete(wake)  # a waiter that came now would block: nothing can pop
        raises(QueueEmpty, q.pop)
        act()
        assert conn.llen(wake) == 1, case  # one token: a blocked waiter's BLPOP returns
        assert q.pop() in (1, 2) and q.last_lane == "a", case
        q.set_lane("a", ceiling=10)
        q.resume("a")
    q.destroy()

# Host only (CPython and real servers): durable writes (issue 34, 1). A primary with one or
# two replicas (tests/fleet_replicas.py: --replicaof on free loopback ports, all stopped at
# the end, also on failure). FleetQueue(..., num_replicas=N) returns from a write only
# once WAIT (and WAITAOF where the server has it and appendonly is on) confirms N
# replicas; otherwise NotDurable names the write; the write is on the primary; the same
# call again is replayed, never applied twice. Through redis-py and the board client
# (ticketq.resp, execute_many), plain, lane and keyed lane queues. TICKETQ_FLEET_SERVER=valkey
# runs it against Valkey 9 (WAITAOF present), otherwise Debian's Redis 7.0 (absent).
from support import IS_MICROPYTHON, raises, skip

if not IS_MICROPYTHON:
    import fleet_replicas
    import fleet_server
    from ticketq.core import QueueEmpty
    from ticketq.fleet import FleetError, FleetLaneQueue, FleetQueue, NotDurable

_sets = {}


def replicated(n):
    # One deployment of n replicas per test process (started on first use, stopped at exit).
    if IS_MICROPYTHON:
        skip("starts redis-servers (host only)")
    if n not in _sets:
        import atexit

        rs = fleet_replicas.Replicated(n).start()
        atexit.register(rs.close)
        _sets[n] = rs
    rs = _sets[n]
    rs.wait_online()
    return rs


def conn_of(rs, client):
    return rs.primary.resp() if client == "resp" else rs.primary.client()


def has_waitaof():
    return fleet_server.server_kind() == "valkey"


def check_durable_ok(n, client):
    rs = replicated(n)
    c = conn_of(rs, client)
    q = FleetQueue(c, fleet_server.fresh_name("dur"), 16, max_deliveries=1, num_replicas=n,
                   wait_timeout=5000)
    # detected from the server: Valkey 9 has WAITAOF, Debian's Redis 7.0 does not; both
    # primaries run with appendonly yes here
    assert q.waitaof == (has_waitaof(), True), q.waitaof
    assert q.push(1, 2) == 0
    assert q.push_many([(2, 1), (3, 1)]) == [1, 2]
    assert q.pop(60000) == 1 and q.ack(q.last_lease)
    assert q.pop(60000) == 2 and q.release(q.last_lease) == 2  # max_deliveries 1: dead
    assert q.requeue() == ([(2, 1, 3)], None)
    jobs = q.pop_many(2, 60000)
    assert [j[0] for j in jobs] == [3, 2]
    assert q.touch(jobs[0][3], 60000)
    acked, more = q.ack_pop([jobs[0][3], jobs[1][3]], 0)
    assert acked == [True, True] and more == []
    q.push(4, 0)
    assert q.remove(4) and not q.remove(4)
    assert q.dead() == [] and len(q) == 0 and q.info()["leased"] == 0
    q.clear()
    q.destroy()


def test_durable_one_replica_redis_py():
    check_durable_ok(1, "redis-py")


def test_durable_two_replicas_board_client():
    check_durable_ok(2, "resp")


def test_durable_lane_queues():
    rs = replicated(1)
    for client in ("redis-py", "resp"):
        c = conn_of(rs, client)
        q = FleetLaneQueue(c, fleet_server.fresh_name("durl"), 16, (2, 1), num_replicas=1,
                           wait_timeout=5000)
        assert q.push(5, 1, 1) == 0
        assert q.pop(60000) == 5 and q.last_lane == 1 and q.ack(q.last_lease)
        k = FleetLaneQueue(c, fleet_server.fresh_name("durk"), 16, num_replicas=1, wait_timeout=5000)
        assert k.push(6, 1, "a") == 0
        k.set_lane("a", weight=3)
        k.pause("a")
        k.resume("a")
        assert k.pop(60000) == 6 and k.ack(k.last_lease)


def test_not_durable_names_the_write_and_its_retry_is_replayed():
    rs = replicated(1)
    for client in ("redis-py", "resp"):
        c = conn_of(rs, client)
        name = fleet_server.fresh_name("nd")
        q = FleetQueue(c, name, 16, num_replicas=1, wait_timeout=200)
        watch = FleetQueue(rs.primary.client(install=False), name)
        q.push(1, 2)
        with rs.paused(0):  # SIGSTOP: the replica acks nothing
            e = raises(NotDurable, q.push, 7, 2)
            assert isinstance(e, FleetError)
            assert (e.op, e.job_id, e.seq, e.asked, e.acked, e.timeout_ms) == ("push", 7, 1, 1, 0, 200), e.__dict__
            assert e.call is not None and e.call[0] == q._client
            assert str(e).startswith("TQNOTDURABLE") and "push job 7 seq 1" in str(e), str(e)
            if has_waitaof():
                assert e.aof == (1, 0), e.aof  # fsynced here, by no replica
            else:
                assert e.aof is None
            # the write WAS applied on the primary
            assert [t[0] for t in watch.tickets()] == [1, 7]
            # retried while the replica is still stopped: NotDurable again, still one push
            e2 = raises(NotDurable, q.push, 7, 2)
            assert e2.call == e.call and e2.seq == 1
            assert [t[0] for t in watch.tickets()] == [1, 7]
            # a leased pop: NotDurable names the ticket and the lease
            p = raises(NotDurable, q.pop, 60000)
            assert (p.op, p.job_id, p.seq) == ("pop", 1, 0) and p.lease, p.__dict__
            assert watch.info()["leased"] == 1
        # the replica back: the same calls again are replayed (same answer, no second write)
        assert q.push(7, 2) == 1
        assert [t[0] for t in watch.tickets()] == [7]  # 1 leased, 7 queued once
        assert q.pop(60000) == 1 and q.last_lease == p.lease and q.last_deliveries == 1
        assert watch.info()["leased"] == 1 and [t[0] for t in watch.tickets()] == [7]
        token = q.last_lease
        with rs.paused(0):
            a = raises(NotDurable, q.ack, token)
            assert a.op == "ack" and a.lease == token and a.reply == 1
        assert q.ack(token) is True  # replayed: True, the ack it made (not False: "not held")
        assert watch.info()["leased"] == 0
        # a push with other arguments after a NotDurable one is a new push
        with rs.paused(0):
            raises(NotDurable, q.push, 8, 0)
        assert q.push(9, 0) == 3
        assert [t[0] for t in watch.tickets()] == [7, 8, 9]
        # every replay wrote its counter, so a WAIT on any connection covered it
        assert int(c.execute_command("HGET", q.keys[0], "replays")) >= 3
        q.destroy()


def test_two_replicas_one_stopped():
    rs = replicated(2)
    c = rs.primary.client()
    q2 = FleetQueue(c, fleet_server.fresh_name("nd2"), 8, num_replicas=2, wait_timeout=200)
    q1 = FleetQueue(c, q2.name, num_replicas=1, wait_timeout=5000)
    with rs.paused(1):
        e = raises(NotDurable, q2.push, 3, 3)
        assert (e.asked, e.acked) == (2, 1), e.__dict__
        assert q1.push(4, 3) == 1  # one replica is enough for that one
    assert q2.push(3, 3) == 0  # replayed once both are back
    assert [t[0] for t in q1.tickets()] == [3, 4]


def test_num_replicas_checked():
    if IS_MICROPYTHON:
        skip("host only")
    c = fleet_server.shared().client()
    # FleetQueue(conn, name, capacity, first_seq, aging, max_deliveries, prefix, retries,
    # slice_ms, num_replicas, wait_timeout): checked before anything is sent
    for bad, exc in ((-1, ValueError), (1 << 30, ValueError), (2.5, TypeError)):
        raises(exc, FleetQueue, c, "x", 4, 0, 0, 8, "tq", 3, 2000, bad)
    for bad in (0, -5, 1 << 30):
        raises(ValueError, FleetQueue, c, "x", 4, 0, 0, 8, "tq", 3, 2000, 1, bad)
    assert c.exists("tq{x}:meta") == 0


def test_no_replica_is_not_durable_and_off_by_default():
    # the shared server has no replica: off (the default) nothing waits; on, every write
    # raises NotDurable, the read calls none
    if IS_MICROPYTHON:
        skip("host only")
    srv = fleet_server.shared()
    name = fleet_server.fresh_name("norep")
    q = FleetQueue(srv.client(), name, 8)
    assert q.push(1, 1) == 0 and q.num_replicas == 0 and q.waitaof is None
    e = raises(NotDurable, lambda: FleetQueue(srv.resp(), name, 8, num_replicas=1, wait_timeout=50))
    assert e.op == "open" and e.acked == 0
    q.conn = srv.resp()
    q.num_replicas, q.wait_timeout = 1, 50
    assert len(q) == 1 and q.tickets() and q.info()["queued"] == 1 and q.peek() == 1
    raises(NotDurable, q.pop)
    q.num_replicas = 0
    assert q.pop() == 1  # the pending pop, replayed
    raises(QueueEmpty, q.pop)


def test_cluster_waits_on_the_slot_owner():
    # A 3-master cluster without replicas: WAIT goes to the node that owns the queue's
    # slot, on the connection that made the write (no CROSSSLOT, no random node): NotDurable
    # with 0 replicas, the push applied there once, and its retry replayed.
    if IS_MICROPYTHON:
        skip("starts a cluster (host only)")
    with fleet_server.Cluster(3) as cl:
        rc = cl.client(socket_timeout=5)
        q = FleetQueue(rc, "durc", 8)
        raises(NotDurable, lambda: FleetQueue(rc, "durc", num_replicas=1, wait_timeout=50))
        d = FleetQueue(rc, "durc")
        d.num_replicas, d.wait_timeout = 1, 50
        e = raises(NotDurable, d.push, 5, 1)
        assert (e.op, e.job_id, e.acked) == ("push", 5, 0)
        raises(NotDurable, d.push, 5, 1)
        assert [t[0] for t in q.tickets()] == [5]
        rc.close()


BOARD = """
from ticketq.resp import Redis
from ticketq.fleet import FleetQueue, NotDurable
port, name, phase = int(ARGS[0]), ARGS[1], ARGS[2]
if phase == "ok":
    q = FleetQueue(Redis("127.0.0.1", port), name, 8, num_replicas=1, wait_timeout=300)
else:  # opened with durability off (the replica is stopped: a durable open would raise)
    q = FleetQueue(Redis("127.0.0.1", port), name)
    q.num_replicas = 1
if phase == "ok":
    print("ok", q.waitaof[0], q.push(4, 1), q.pop(60000), q.ack(q.last_lease))
else:
    try:
        q.push(5, 2)
        print("no error")
    except NotDurable as e:
        print("notdurable", e.op, e.job_id, e.seq, e.acked, e.asked)
"""


def test_durable_on_the_micropython_unix_port():
    # The board client as a board runs it: ticketq.resp's execute_many and FleetQueue's
    # durable path on the 32-bit MicroPython unix port, against the replicated primary.
    rs = replicated(1)
    import os
    import subprocess
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(os.path.dirname(here), "tools"))
    from ticketq_tools import mpunix

    exe, how = mpunix.find()
    if exe is None:
        skip("no MicroPython unix port: %s" % how)
    rs.primary.client()  # the library loaded
    env = dict(os.environ, MICROPYPATH=mpunix.micropypath())

    def board(name, phase):
        p = subprocess.run([exe, "-c", "ARGS = %r\n" % ([str(rs.primary.port), name, phase],) + BOARD],
                           env=env, capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stdout + p.stderr
        return p.stdout.split()

    name = fleet_server.fresh_name("mpd")
    assert board(name, "ok") == ["ok", str(has_waitaof()), "0", "4", "True"]
    with rs.paused(0):
        assert board(name, "stopped") == ["notdurable", "push", "5", "1", "0", "1"]
    assert [t[0] for t in FleetQueue(rs.primary.client(), name).tickets()] == [5]


def test_durable_interrupt_at_every_point():
    # An exception (KeyboardInterrupt, a signal handler's) at every send/read/parse point of
    # redis-py under a durable pop, push and ack (the write, WAIT and WAITAOF in one
    # pipeline): nothing lost, nothing twice, nothing leased to nobody, the connection in
    # step afterwards (test_fleet_safety's points and checks, on the replicated primary).
    rs = replicated(1)
    from test_fleet_safety import Injected, Points, injecting_client, interrupted

    rs.primary.client()  # the library loaded
    points = Points()
    for exc in (KeyboardInterrupt, Injected):
        points.exc = exc
        total = None
        at = 0
        while total is None or at <= total:
            c = injecting_client(rs.primary, points)
            q = FleetQueue(c, fleet_server.fresh_name("dpt"), 16, num_replicas=1, wait_timeout=5000)
            for i in (1, 2, 3):
                q.push(i, 1)
            hit, r = interrupted(points, at or None, q.pop, 60000)
            n = points.n
            got = [] if hit else [r]
            if not hit:
                assert q.ack(q.last_lease)
            hit2, r2 = interrupted(points, at or None, q.push, 9, 1)
            hit3, r3 = interrupted(points, at or None, q.ack, b"1" + b"0" * 24 + b":1")
            assert hit3 or r3 in (True, False)
            while True:
                try:
                    got.append(q.pop(60000))
                except QueueEmpty:
                    break
                assert q.ack(q.last_lease)
            got += [j[0] for j in q.recovered]
            want = [1, 2, 3, 9] if not hit2 or 9 in got else [1, 2, 3]
            assert sorted(got) == want and len(got) == len(set(got)), (exc, at, got)
            assert q.info()["leased"] == 0, (exc, at)
            assert q.push(50, 0) >= 3 and q.pop() == 50 and len(q) == 0
            q.destroy()
            if total is None:
                total = n
                assert total >= 6, total  # send, then the pipeline's reads
            at += 1


def test_acl_user_granted_durable():
    # fleetctl grant --durable: the user may run WAIT, INFO and (where it exists) WAITAOF
    # besides its functions, so its durable queue works; one granted without it is refused
    # (the server's NOPERM, raised at the first write: never a silent success).
    rs = replicated(1)
    import redis

    from ticketq_tools import fleetctl

    admin = rs.primary.client()
    name = fleet_server.fresh_name("dacl")
    FleetQueue(admin, name, 8)
    users = []
    try:
        for durable in (True, False):
            user = "dur%d-%s" % (durable, name.replace("-", ""))
            pw = fleetctl.grant([admin], user, "board", [name], durable=durable)
            users.append(user)
            c = redis.Redis(host="127.0.0.1", port=rs.primary.port, username=user, password=pw)
            if durable:
                q = FleetQueue(c, name, num_replicas=1, wait_timeout=5000)
                assert q.waitaof == (has_waitaof(), True)
                assert q.push(1, 1) == 0 and q.pop(60000) == 1 and q.ack(q.last_lease)
            else:
                e = raises(redis.ResponseError, lambda: FleetQueue(c, name, num_replicas=1))
                assert "no permissions" in str(e), e  # NOPERM (redis-py drops the code word)
            c.close()
    finally:
        for user in users:
            fleetctl.revoke([admin], user)

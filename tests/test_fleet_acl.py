# Host only: one Redis ACL user per board (ticketq fleet grant/rotate/revoke, issue 25),
# against a real server (tests/fleet_server.py: Debian's redis-server, or Valkey with
# TICKETQ_FLEET_SERVER=valkey). A board's user works its own queue through both clients
# (redis-py and the board client ticketq.resp, on CPython here), and everything else it
# tries is refused by the server with one error reply (NOPERM), the data left as it was.
from support import IS_MICROPYTHON, raises, skip

if not IS_MICROPYTHON:
    import os
    import subprocess
    import sys

    import fleet_server

    HERE = os.path.dirname(os.path.abspath(__file__))
    ROOT = os.path.dirname(HERE)
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    from ticketq_tools import fleetctl


def _setup(role="board", queues=1):
    # The shared server, an admin client, `queues` fresh queues (capacity 8) and a user
    # granted `role` on the first; returns (srv, admin, names, user, url).
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    import ticketq.fleet as fleet

    srv = fleet_server.shared()
    admin = srv.client()
    names = [fleet_server.fresh_name("acl") for _ in range(queues + 1)]
    for n in names:
        fleet.FleetQueue(admin, n, 8)
    user = fleet_server.fresh_name("u").replace("-", "_")
    pw = fleetctl.grant([admin], user, role, names[:queues])
    return srv, admin, names, user, fleetctl.user_url(srv.url, user, pw)


def _clients(url):
    import redis
    import ticketq.resp as resp

    return [("redis-py", redis.Redis.from_url(url, socket_timeout=5)),
            ("ticketq.resp", resp.Redis.from_url(url, 5))]


def _refused(fn, *args):
    # One error reply, from the server, saying it is a permission: redis-py's ResponseError
    # (NoPermissionError) or ticketq.resp's RespError; nothing else.
    import redis
    import ticketq.resp as resp

    e = raises((redis.ResponseError, resp.RespError), fn, *args)
    assert "NOPERM" in str(e) or "no permissions" in str(e).lower(), e
    return e


def test_a_board_user_works_its_own_queue_through_both_clients():
    import ticketq
    import ticketq.fleet as fleet
    from ticketq.ticks import Deadline

    srv, admin, names, user, url = _setup()
    try:
        for how, c in _clients(url):
            q = fleet.FleetQueue(c, names[0])
            assert q.push(7, ticketq.HIGH) >= 0, how
            assert q.push(8, ticketq.LOW) >= 0
            assert q.pop(lease_ms=30000) == 7, how
            q.ack(q.last_lease)
            d = Deadline(None)
            d.rearm(2000)
            assert q.pop_until(d, 30000) == 8, how  # BLPOP on its wake key
            q.release(q.last_lease)
            assert q.pop(30000) == 8
            q.ack(q.last_lease)
            assert len(q) == 0 and q.info()["leased"] == 0, how
            assert c.execute_command("PING") in (True, b"PONG")
    finally:
        fleetctl.revoke([admin], user)


def test_a_board_user_is_refused_everything_else():
    import ticketq.fleet as fleet

    srv, admin, names, user, url = _setup()
    other = names[1]
    before = admin.execute_command("FUNCTION", "LIST")
    admin.set("acl-canary", "1")
    try:
        for how, c in _clients(url):
            # Another queue's keys, through the library or directly.
            e = raises(Exception, fleet.FleetQueue, c, other)
            assert "NOPERM" in str(e) or "no permissions" in str(e).lower(), (how, e)
            _refused(c.execute_command, "HGETALL", "tq{%s}:meta" % other)
            _refused(c.execute_command, "GET", "acl-canary")
            # Its own queue: functions outside its role, commands outside the functions.
            q = fleetctl.open_queue(admin, names[0])
            _refused(c.execute_command, "FCALL", "tq%d_destroy" % fleet.VERSION,
                     len(q.keys), *q.keys)
            _refused(c.execute_command, "FCALL", "tq%d_clear" % fleet.VERSION,
                     len(q.keys), *q.keys)
            # The server: data, configuration, scripts, the library, users.
            for cmd in (("FLUSHALL",), ("FLUSHDB",), ("KEYS", "*"), ("SCAN", 0),
                        ("CONFIG", "GET", "*"), ("CONFIG", "SET", "save", ""),
                        ("EVAL", "return 1", 0), ("FUNCTION", "LOAD", "REPLACE", fleetctl.source()),
                        ("FUNCTION", "DELETE", "ticketq_%d" % fleet.VERSION),
                        ("FUNCTION", "FLUSH"), ("ACL", "LIST"), ("ACL", "SETUSER", user, "+@all"),
                        ("SHUTDOWN",), ("SELECT", 1), ("MONITOR",), ("CLIENT", "LIST")):
                _refused(c.execute_command, *cmd)
            # Refusals leave the connection usable (ticketq.resp: one connection).
            assert c.execute_command("PING") in (True, b"PONG"), how
        assert admin.execute_command("FUNCTION", "LIST") == before
        assert admin.get("acl-canary") == b"1"
        assert admin.exists("tq{%s}:meta" % other) and admin.exists("tq{%s}:meta" % names[0])
    finally:
        fleetctl.revoke([admin], user)
        admin.delete("acl-canary")


def test_a_producer_pushes_and_an_operator_manages_only_their_queues():
    import ticketq
    import ticketq.fleet as fleet

    srv, admin, names, user, url = _setup("producer")
    try:
        for how, c in _clients(url):
            q = fleet.FleetQueue(c, names[0])
            q.push(3, ticketq.NORMAL)
            _refused(q.pop)
            _refused(q.tickets)
    finally:
        fleetctl.revoke([admin], user)
    srv, admin, names, user, url = _setup("operator", queues=2)
    try:
        for how, c in _clients(url):
            q = fleet.FleetQueue(c, names[1])
            q.push(4, ticketq.NORMAL)
            assert [t[0] for t in q.tickets()] == [4]
            q.clear()
            assert q.dead(5) == [] and len(q) == 0
            raises(Exception, fleet.FleetQueue, c, names[2])
            for cmd in (("FLUSHALL",), ("FUNCTION", "DELETE", "ticketq_1"), ("ACL", "LIST"),
                        ("CONFIG", "GET", "*"), ("EVAL", "return 1", 0)):
                _refused(c.execute_command, *cmd)
    finally:
        fleetctl.revoke([admin], user)


def test_rotate_and_revoke_lock_the_old_password_out():
    srv, admin, names, user, url = _setup()
    import redis
    import ticketq.resp as resp

    board = resp.Redis.from_url(url, 5)
    assert board.execute_command("PING") == b"PONG"
    pw = fleetctl.rotate([admin], user)
    assert pw not in url
    # The board's connection was closed; it logs in again with the old password: refused.
    e = raises((resp.RespError, OSError), board.execute_command, "PING")
    e = raises(resp.RespError, board.execute_command, "PING")
    assert "WRONGPASS" in str(e), e
    new = fleetctl.user_url(srv.url, user, pw)
    assert resp.Redis.from_url(new, 5).execute_command("PING") == b"PONG"
    raises(ValueError, fleetctl.grant, [admin], user, "board", [names[0]])  # exists already
    assert fleetctl.revoke([admin], user) == 1
    raises(redis.AuthenticationError, redis.Redis.from_url(new).ping)
    raises(ValueError, fleetctl.revoke, [admin], user)
    raises(ValueError, fleetctl.rotate, [admin], user)
    for bad in ("default", "", "a b", "-x", "x" * 65):
        raises(ValueError, fleetctl.grant, [admin], bad, "board", [names[0]])
    for bad in ((["a{b"],), ([""],), (["a b"],), ([],)):
        raises(ValueError, fleetctl.grant, [admin], user + "x", "board", *bad)
    raises(ValueError, fleetctl.grant, [admin], user + "x", "root", [names[0]])
    assert admin.execute_command("ACL", "GETUSER", user + "x") is None


def test_a_queue_name_with_glob_characters_grants_that_queue_only():
    import ticketq
    import ticketq.fleet as fleet

    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    srv = fleet_server.shared()
    admin = srv.client()
    base = fleet_server.fresh_name("g")
    star, plain = base + "*", base + "x"
    for n in (star, plain):
        fleet.FleetQueue(admin, n, 4)
    user = base.replace("-", "_") + "u"
    url = fleetctl.user_url(srv.url, user, fleetctl.grant([admin], user, "board", [star]))
    try:
        for how, c in _clients(url):
            fleet.FleetQueue(c, star).push(1, ticketq.LOW)
            raises(Exception, fleet.FleetQueue, c, plain)  # "*" is no wildcard here
    finally:
        fleetctl.revoke([admin], user)


def test_fleetctl_prints_the_password_once_on_stdout_and_masks_it_elsewhere():
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    import ticketq.fleet as fleet

    srv = fleet_server.shared()
    admin = srv.client()
    q = fleet_server.fresh_name("cli")
    fleet.FleetQueue(admin, q, 4)
    user = q.replace("-", "_")
    tool = [sys.executable, "-m", "ticketq_tools.cli", "fleet"]
    admin_url = "redis://:adminpw@127.0.0.1:%d/0" % srv.port
    admin.execute_command("CONFIG", "SET", "requirepass", "adminpw")
    try:
        p = subprocess.run(tool + ["grant", user, "--queue", q, "--url", admin_url],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        lines = p.stdout.splitlines()
        assert len(lines) == 1 and lines[0].startswith("redis://%s:" % user), p.stdout
        pw = lines[0].split(":")[2].split("@")[0]
        assert len(pw) >= 32 and pw not in p.stderr and "adminpw" not in p.stdout + p.stderr
        assert "redis://:***@127.0.0.1" in p.stderr, p.stderr
        # Nor is it kept in the server in clear: ACL stores its SHA-256.
        assert pw.encode() not in b" ".join(admin.execute_command("ACL", "LIST"))
        p = subprocess.run(tool + ["grant", user, "--queue", q, "--url", admin_url],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 2 and "exists" in p.stderr and p.stdout == "", p.stderr
        p = subprocess.run(tool + ["rotate", user, "--url", admin_url], capture_output=True,
                           text=True, timeout=60)
        assert p.returncode == 0 and p.stdout.count("\n") == 1 and pw not in p.stdout, p.stderr
        p = subprocess.run(tool + ["revoke", user, "--url", admin_url], capture_output=True,
                           text=True, timeout=60)
        assert p.returncode == 0 and "revoked user %s on 1 of 1" % user in p.stdout, p.stderr
        assert "adminpw" not in p.stdout + p.stderr
    finally:
        admin.execute_command("CONFIG", "SET", "requirepass", "")


def test_a_board_user_on_every_master_of_a_cluster():
    # ACL users are per node: grant with one connection per master (fleetctl grant --url
    # ... --url ... --cluster) gives each the same user and password; redis-py's
    # RedisCluster then works the queue as that user, and is refused elsewhere.
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    import ticketq
    import ticketq.fleet as fleet
    from redis.cluster import RedisCluster

    with fleet_server.Cluster(3) as cl:
        rc = cl.client(socket_timeout=5)
        from redis.crc import key_slot

        names = ["c%d" % i for i in (1, 2, 0, 3, 4, 5)]
        per = 16384 // 3
        assert len(set(min(key_slot(n.encode()) // per, 2) for n in names[:3])) == 3  # every master
        for n in names:
            fleet.FleetQueue(rc, n, 4)
        admins = [n_.client(install=False) for n_ in cl.nodes]
        pw = fleetctl.grant(admins, "b1", "board", names[:3], cluster=True)
        url = fleetctl.user_url(cl.nodes[0].url, "b1", pw)
        u = RedisCluster.from_url(url, socket_timeout=5)
        for n in names[:3]:
            q = fleet.FleetQueue(u, n)
            q.push(5, ticketq.NORMAL)
            assert q.pop(30000) == 5
            q.ack(q.last_lease)
        for n in names[3:]:
            raises(Exception, fleet.FleetQueue, u, n)
        _refused(u.execute_command, "FLUSHALL")
        assert fleetctl.revoke(admins, "b1") == 3

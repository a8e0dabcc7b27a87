# The board client's contract tests: ticketq.fleet.FleetQueue over tqresp.Redis (the
# RESP2 client in lib/) against a real redis-server, beside a ticketq.TicketQueue fed the
# same operations. Plain asserts, so the same module runs
#   - under pytest on CPython, against the shared test server (fleet_server.shared());
#   - on the 32-bit MicroPython unix port, where test_fleet_board.py starts the server and
#     runs this module with TICKETQ_REDIS_PORT (and TICKETQ_REDIS_PROXY, a proxy that drops
#     replies on request) in the environment.
# Elsewhere (the WebAssembly VM: no sockets; the unix port stage of tools/test, which
# starts no server) every test says why it skips.
from rng import Rng
from support import IS_MICROPYTHON, raises, skip
from ticketq import TicketQueue, QueueFull, QueueEmpty

_env = []  # [(server port, proxy port)] once known


def _getenv(name):
    try:
        import os
    except ImportError:
        return None
    g = getattr(os, "getenv", None)
    if g is None:
        environ = getattr(os, "environ", None)
        return environ.get(name) if environ is not None else None
    return g(name)


def _server():
    # (server port, dropping proxy port or 0)
    if not _env:
        if IS_MICROPYTHON:
            try:
                import socket  # noqa: F401
            except ImportError:
                skip("no sockets on this interpreter (the board client needs them)")
            port = _getenv("TICKETQ_REDIS_PORT")
            if not port:
                skip("no redis-server given: test_fleet_board.py runs this module on the unix "
                     "port with one (TICKETQ_REDIS_PORT)")
            _env.append((int(port), int(_getenv("TICKETQ_REDIS_PROXY") or 0)))
        else:
            import fleet_server

            srv = fleet_server.shared()
            srv.client()  # the library loaded
            proxy = fleet_server.DropProxy(srv.port)
            _env.append((srv.port, proxy.port))
    return _env[0]


_run = []  # [a run number from the server's TIME, then the queue names used]


def _connect(tag, via_proxy=False):
    # (a board client, a queue name unique to this run); also test_fleet_lanes_contract's.
    port, proxy = _server()  # first: it skips where there are no sockets or no server
    import ticketq.resp as tqresp

    if via_proxy:
        if not proxy:
            skip("no dropping proxy given (TICKETQ_REDIS_PROXY)")
        port = proxy
    c = tqresp.Redis("127.0.0.1", port)
    # Queue names unique to this run, from the server's clock (no board clock is read).
    if not _run:
        t = c.execute_command("TIME")
        _run.append(int(t[0]) % 1000000 * 1000 + int(t[1]) // 1000)
    name = "board-%s-%d-%d" % (tag, _run[0], len(_run))
    _run.append(name)
    return c, name


def _queue(tag, cap, first=0, aging=0, via_proxy=False, retries=3, max_deliveries=8):
    from ticketq.fleet import FleetQueue

    c, name = _connect(tag, via_proxy)
    return FleetQueue(c, name, cap, first, aging, max_deliveries, "tq", retries), c


def _outcome(fn, *args):
    # What a call did: ("ok", value), or the exception's type and message (LaneFull, a
    # QueueFull, is told apart by its type and names its lane).
    try:
        return ("ok", fn(*args))
    except (QueueFull, QueueEmpty, TypeError, ValueError) as e:
        return (type(e).__name__, str(e))


def _same(t, f, name, *args):
    a = _outcome(getattr(t, name), *args)
    b = _outcome(getattr(f, name), *args)
    assert a == b, "%s%r: board %r, fleet %r" % (name, args, a, b)
    return a


def test_same_schedule_as_ticketqueue():
    f, c = _queue("same", 6, 0x3FFFFFF0, 2)
    t = TicketQueue(6, 0x3FFFFFF0, 2)
    r = Rng(11)
    bad = (-1, 0x3FFFFFFF + 1, 1.5, "2", None)
    for step in range(300):
        op = r.next(10)
        if op < 4:
            _same(t, f, "push", r.next(9), r.next(4))
        elif op == 4:
            _same(t, f, "push", bad[r.next(5)], r.next(4))
            _same(t, f, "push", r.next(9), (4, -1, 2.0, "1")[r.next(4)])
        elif op == 5:
            if _same(t, f, "pop")[0] == "ok":
                assert (t.last_priority, t.last_seq) == (f.last_priority, f.last_seq)
        elif op == 6:
            a = _outcome(t.pop)
            b = _outcome(f.pop, 60000)  # leased, then acked: the same as a pop
            assert a == b, (a, b)
            if a[0] == "ok":
                assert f.ack(f.last_lease)
                assert (t.last_priority, t.last_seq) == (f.last_priority, f.last_seq)
        elif op == 7:
            _same(t, f, "peek")
        elif op == 8:
            _same(t, f, "remove", r.next(9))
        elif r.next(8) == 0:
            _same(t, f, "clear")
        if step % 10 == 0:
            assert (len(t), t.full(), t.digest) == (len(f), f.full(), f.digest)
    assert (len(t), t.full(), t.digest) == (len(f), f.full(), f.digest)
    f.destroy()


def test_expired_lease_comes_back_in_place():
    from ticketq.ticks import sleep_ms

    f, c = _queue("lease", 8)
    for i in (1, 2, 3):
        f.push(i, 2)
    assert f.pop(60000) == 1
    tok = f.last_lease
    assert [x[0] for x in f.tickets()] == [2, 3]
    assert f.touch(tok, 1)  # let it run out now, by the server's clock
    sleep_ms(30)
    assert f.tickets() == [(1, 2, 0, False), (2, 2, 1, False), (3, 2, 2, False)]
    assert f.pop(60000) == 1 and f.last_deliveries == 2
    assert not f.ack(tok)  # the first delivery's token is fenced off
    assert f.ack(f.last_lease)
    f.destroy()


def test_pop_until_a_deadline():
    from ticketq.ticks import Deadline
    from ticketq.ticks import Timeout

    f, c = _queue("wait", 4)
    f.slice_ms = 100
    raises(Timeout, f.pop_until, Deadline(250))
    f.push(5, 3)
    assert f.pop_until(Deadline(1000)) == 5
    f.destroy()


def test_dropped_connection_duplicates_nothing():
    f, c = _queue("drop", 8, 0, 0, True)
    mark = b"drop-next-reply"
    assert c.execute_command("ECHO", mark) == mark
    assert f.push(7, 1) == 0  # the reply was lost; sent again, replayed
    f.push(8, 1)
    assert c.execute_command("ECHO", mark) == mark
    assert f.pop(60000) == 7 and f.last_deliveries == 1  # one lease, not two
    assert [x[0] for x in f.tickets()] == [8]
    assert f.info()["leased"] == 1
    assert f.ack(f.last_lease)
    assert c.connects == 3  # connected again after each of the two drops
    f.destroy()
    # dead() takes the letters it returns: its lost reply is replayed, no letter is lost.
    d, c = _queue("dropd", 4, 0, 0, True, 3, 1)
    d.push(8, 3)
    d.pop(60000)
    assert d.release(d.last_lease) == 2  # delivered once, max_deliveries 1: a dead letter
    assert c.execute_command("ECHO", mark) == mark
    assert d.dead(5) == [(8, 3, 0, 1)]
    assert d.dead(5) == [] and d.info()["dead"] == 0
    d.destroy()


def test_unanswered_pop_is_answered_by_the_next():
    f, c = _queue("pend", 8, 0, 0, True, 0)
    f.push(1, 0)
    f.push(2, 0)
    mark = b"drop-next-reply"
    assert c.execute_command("ECHO", mark) == mark
    raises(OSError, f.pop)  # no retries: the caller sees it
    assert f.pop() == 1  # the ticket the lost reply carried
    assert f.pop() == 2
    raises(QueueEmpty, f.pop)
    f.destroy()


def test_batches_one_call_each_and_replayed():
    # push_many, pop_many and ack_pop on the board client: the tickets and digest of single
    # calls in a row, and a lost reply (a batch pop, then an ack_pop) replayed, never run twice.
    f, c = _queue("batch", 16, 0, 0, True)
    t = TicketQueue(16)
    items = [(i, (i * 5) % 4) for i in range(9)]
    assert f.push_many(items) == list(range(9))
    for i, p in items:
        t.push(i, p)
    raises(QueueFull, f.push_many, [(1, 1)] * 8)  # 9 + 8 > 16: none pushed
    raises(TypeError, f.push_many, [(1, 1, 1)])
    mark = b"drop-next-reply"
    assert c.execute_command("ECHO", mark) == mark
    jobs = f.pop_many(4, 60000)  # the reply was lost; sent again, replayed
    want = [(t.pop(), t.last_priority, t.last_seq) for _ in range(4)]
    assert [j[:3] for j in jobs] == want and f.last_deliveries == 1
    assert f.info()["leased"] == 4
    assert c.execute_command("ECHO", mark) == mark
    acked, more = f.ack_pop([j[3] for j in jobs], 10, 60000)
    assert acked == [True] * 4 and f.info()["leased"] == 5  # the acks ran once
    assert [j[:3] for j in more] == [(t.pop(), t.last_priority, t.last_seq) for _ in range(5)]
    assert f.ack_pop([j[3] for j in more], 0) == ([True] * 5, [])
    assert f.digest == t.digest and len(f) == 0 and f.info()["leased"] == 0
    f.destroy()


def test_resp_client_connects_over_ipv6():
    # redis://[::1]:port: the socket takes the address's family (it was always IPv4). The
    # test server listens on ::1 too where the host has an IPv6 loopback.
    port, proxy = _server()
    import socket
    import ticketq.resp as tqresp

    try:
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        s.bind(socket.getaddrinfo("::1", 0, 0, socket.SOCK_STREAM)[0][-1])
        s.close()
    except (AttributeError, OSError) as e:
        skip("no IPv6 loopback here (%s)" % e)
    c = tqresp.Redis.from_url("redis://[::1]:%d/0" % port)
    assert c.execute_command("PING") == b"PONG" and c.connects == 1
    c.close()


def test_resp_client_replies_and_errors():
    port, proxy = _server()
    import ticketq.resp as tqresp

    c = tqresp.Redis.from_url("redis://127.0.0.1:%d/0" % port)
    assert (c.host, c.port, c.db, c.password) == ("127.0.0.1", port, 0, None)
    u = tqresp.Redis.from_url("redis://:pw@h:7/3")
    assert (u.host, u.port, u.db, u.password) == ("h", 7, 3, "pw")
    raises(ValueError, tqresp.Redis.from_url, "http://h")
    u = tqresp.Redis.from_url("redis://[::1]:7/2")  # IPv6 in brackets, as redis-py
    assert (u.host, u.port, u.db) == ("::1", 7, 2)
    assert tqresp.Redis.from_url("redis://[fe80::1]").port == 6379
    for bad in ("redis://[::1", "redis://[::1]7", "redis://[::1]:x"):
        raises(ValueError, tqresp.Redis.from_url, bad)
    assert c.execute_command("PING") == b"PONG"  # simple string
    k = "board-resp-%d" % port
    assert c.execute_command("DEL", k) in (0, 1)  # integer
    assert c.execute_command("GET", k) is None  # null bulk
    assert c.execute_command("RPUSH", k, "a", b"b\r\nc", 7) == 3
    assert c.execute_command("LRANGE", k, 0, -1) == [b"a", b"b\r\nc", b"7"]  # array, binary-safe
    raises(TypeError, c.execute_command, "GET", True)  # refused before sending
    raises(TypeError, c.execute_command, "GET", 1.5)
    e = raises(tqresp.RespError, c.execute_command, "INCR", k)  # an error reply
    assert str(e).startswith("WRONGTYPE")
    e = raises(tqresp.RespError, c.execute_command, "EVAL",
               "return {1, redis.error_reply('E inner'), 3}", 0)
    assert str(e) == "E inner"  # an error inside an array, the rest read too
    assert c.execute_command("ECHO", "still in step") == b"still in step"
    assert c.connects == 1
    c.execute_command("DEL", k)
    c.close()
    assert c.execute_command("PING") == b"PONG" and c.connects == 2


def test_resp_client_logs_in_as_the_urls_user():
    # redis://user:password@host (a Redis 6+ ACL user), as redis-py reads it: AUTH user
    # password. The user was dropped: AUTH password alone, the default user's login, so a
    # board was refused (WRONGPASS) or logged in as another user than the URL named.
    port, proxy = _server()
    import ticketq.resp as tqresp

    u = tqresp.Redis.from_url("redis://board:p:w@h:7/3")
    assert (u.host, u.port, u.db, u.username, u.password) == ("h", 7, 3, "board", "p:w")
    u = tqresp.Redis.from_url("redis://:pw@h")
    assert (u.username, u.password) == (None, "pw")
    admin = tqresp.Redis("127.0.0.1", port)
    user = "tqboard%d" % port
    assert admin.execute_command("ACL", "SETUSER", user, "on", ">s3cret:x", "~*", "+@all") == b"OK"
    try:
        c = tqresp.Redis.from_url("redis://%s:s3cret:x@127.0.0.1:%d/0" % (user, port))
        assert c.execute_command("ACL", "WHOAMI") == user.encode()
        c.close()
        bad = tqresp.Redis.from_url("redis://%s:wrong@127.0.0.1:%d/0" % (user, port))
        e = raises(tqresp.RespError, bad.execute_command, "PING")
        assert "WRONGPASS" in str(e)
    finally:
        admin.execute_command("ACL", "DELUSER", user)
        admin.close()


def test_bad_input_is_refused_before_anything_is_popped():
    # pop_until(2000), a timeout where the Deadline goes, and pop_until(None) are TypeErrors
    # naming the argument, raised before the pop is sent: nothing is popped or leased.
    # A lease token of another type is a TypeError (ticketq's int rule), a malformed one a
    # ValueError; a URL with a port that is not a number names that port.
    f, c = _queue("badin", 4)  # first: it skips where there are no sockets or no server
    import ticketq.resp as tqresp

    f.push(1, 2)
    f.push(2, 1)
    for d in (2000, None, 1.5, "2000"):
        e = raises(TypeError, f.pop_until, d)
        assert "deadline" in str(e), e
        e = raises(TypeError, f.pop_until, d, 60000)
        assert "deadline" in str(e), e
    assert [x[0] for x in f.tickets()] == [1, 2] and f.info()["leased"] == 0
    assert f.last_seq == -1
    for tok in (None, 5, 1.5, [b"x"]):
        e = raises(TypeError, f.ack, tok)
        assert "lease token" in str(e), e
        raises(TypeError, f.release, tok)
        raises(TypeError, f.touch, tok, 1000)
    for tok in ("", "x", b"y" * 30):
        raises(ValueError, f.ack, tok)
    for url, word in (("redis://h:abc/0", "abc"), ("redis://h:/0", "port"), ("redis://h:70000", "70000"),
                      ("redis://h:1/x", "x")):
        e = raises(ValueError, tqresp.Redis.from_url, url)
        assert word in str(e), (url, e)
    f.destroy()


class _Interrupt:
    # A reply stream on which Ctrl-C arrives during the next read (the command was sent and
    # its reply is on the way): the first readline raises KeyboardInterrupt.
    def __init__(self, f):
        self.f = f
        self.armed = True

    def write(self, data):
        return self.f.write(data)

    def flush(self):
        fl = getattr(self.f, "flush", None)
        if fl is not None:
            fl()

    def readline(self, size=-1):  # ticketq.resp reads at most max_line + 2 bytes a line
        if self.armed:
            self.armed = False
            raise KeyboardInterrupt
        return self.f.readline(size)

    def read(self, n):
        return self.f.read(n)

    def close(self):
        self.f.close()


def test_ctrl_c_during_a_call_closes_the_connection():
    # The reply of an interrupted command is still on its way: if the connection stayed
    # open, the next command would read that stale reply as its own.
    port, proxy = _server()
    import ticketq.resp as tqresp

    c = tqresp.Redis("127.0.0.1", port)
    assert c.execute_command("PING") == b"PONG"
    c._f = _Interrupt(c._f)
    raises(KeyboardInterrupt, c.execute_command, "ECHO", "first")
    assert c.execute_command("ECHO", "second") == b"second"
    assert c.connects == 2
    c.close()


def test_ctrl_c_while_connecting_leaves_no_half_set_up_connection():
    # Interrupted between connect and SELECT (or AUTH), the socket must not stay: the next
    # command would run on a connection that never selected its db.
    port, proxy = _server()
    import ticketq.resp as tqresp

    c = tqresp.Redis("127.0.0.1", port, db=3)
    k = "board-select-%d" % port

    def interrupted(args):
        del c._command  # once
        raise KeyboardInterrupt

    c._command = interrupted
    raises(KeyboardInterrupt, c.execute_command, "PING")
    assert c.execute_command("SET", k, "in db 3") == b"OK"
    d0 = tqresp.Redis("127.0.0.1", port)
    assert d0.execute_command("GET", k) is None  # not in db 0
    assert c.execute_command("GET", k) == b"in db 3"
    c.execute_command("DEL", k)
    c.close()
    d0.close()

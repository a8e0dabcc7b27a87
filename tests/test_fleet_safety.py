# Host only (CPython and a real redis-server): a ticket is never handed to two holders.
# - A pop whose reply was lost is sent again by the next pop, and the server replays the
#   recorded reply only while it still holds: a leased ticket whose lease ran out (the
#   outage outlasted it) is not handed out again with a stale token; the pop runs anew
#   (issue 20, 1). Plain and lane queues. Time is moved in the server (a lease's expiry
#   set into the past), plus one real short lease: no timing assumption.
# - Any exception raised at any point inside a call on redis-py (KeyboardInterrupt, a
#   signal handler's own exception), injected at the k-th send/read/parse of the
#   connection for every k, leaves the client in step: nothing lost, nothing twice, no
#   reply read by another call (issue 20, 2).
# - The queue object's lock is free after an exception raised at any bytecode of its
#   own code (issue 20, 3).
# - A client whose replay records were dropped (idle an hour) is never answered with a
#   duplicate: a call sent for the first time goes through under a new number, one sent
#   before raises FleetError TQEXPIRED (its outcome is unknown).
# - The server takes canonical integers only ("-0", "+1", "007" are TQARG).
from support import IS_MICROPYTHON, raises, skip

if not IS_MICROPYTHON:
    import dis
    import sys
    import time

    import redis

    import fleet_server
    import ticketq.resp as resp
    from ticketq.core import QueueEmpty
    from ticketq.fleet import FleetError, FleetQueue
    from ticketq.fleet import FleetLaneQueue

    LEASED, DELIV, IDEMT = 4, 5, 9
    CHECKS = set(dis.opmap[o] for o in ("RESUME", "JUMP_BACKWARD") if o in dis.opmap)


def host():
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    srv = fleet_server.shared()
    srv.client().close()  # the library loaded (this test's version of it)
    return srv


def make(kind, conn, tag, cap=16):
    name = fleet_server.fresh_name(tag)
    if kind == "lanes":
        return FleetLaneQueue(conn, name, cap, (2, 1))
    return FleetQueue(conn, name, cap)


def expire_leases(conn, q):
    # The outage outlasted every lease: each lease's expiry is moved into the past in the
    # server (what the server's clock does after lease_ms), so nothing depends on a sleep.
    for lm in conn.zrange(q.keys[LEASED], 0, -1):
        conn.zadd(q.keys[LEASED], {lm: 1}, xx=True)


# ---- 1. a replayed pop never returns a lease that delivery no longer holds


def lost_pop(kind, after):
    # Consumer A's leased pop runs in the server, its reply is lost, and A's retries run out
    # (retries=0: the outage outlasts them). Then after(q, b): what happens meanwhile.
    # Returns A's queue object (its pop still unanswered) and B's.
    srv = host()
    proxy = fleet_server.DropProxy(srv.port)
    conn = redis.Redis(host="127.0.0.1", port=proxy.port, retry_on_error=[],
                       retry=redis.retry.Retry(redis.backoff.NoBackoff(), 0))
    a = make(kind, conn, "lost", 8)
    a.retries = 0
    b = (FleetLaneQueue if kind == "lanes" else FleetQueue)(srv.client(install=False), a.name)
    b.push(42, 1)
    b.push(43, 1)
    assert conn.execute_command("ECHO", fleet_server.DropProxy.MARK)
    raises(redis.ConnectionError, a.pop, 60000)  # the server leased 42 to A; A never heard
    assert b.info()["leased"] == 1 and [t[0] for t in b.tickets()] == [43]
    after(b.conn, a, b)
    return proxy, a, b


def check_replay_after_lease_taken_by_another(kind):
    def after(conn, a, b):
        expire_leases(conn, a)
        assert b.pop(60000) == 42 and b.last_deliveries == 2  # B holds it now
        assert b.ack(b.last_lease)

    proxy, a, b = lost_pop(kind, after)
    try:
        # A's pop is sent again; its recorded reply (42, delivery 1) no longer holds: it is
        # not replayed, the pop runs anew and takes the next ticket, with a lease it holds.
        assert a.pop(60000) == 43
        assert a.last_deliveries == 1 and a.last_seq == 1
        assert a.ack(a.last_lease)
        assert b.tickets() == [] and b.info()["leased"] == 0
        raises(QueueEmpty, a.pop)
    finally:
        proxy.close()


def test_replay_after_lease_taken_by_another_plain():
    check_replay_after_lease_taken_by_another("plain")


def test_replay_after_lease_taken_by_another_lanes():
    check_replay_after_lease_taken_by_another("lanes")


def check_replay_after_lease_ran_out(kind):
    def after(conn, a, b):
        expire_leases(conn, a)

    proxy, a, b = lost_pop(kind, after)
    try:
        # Nobody took it meanwhile: the new pop finds 42 back in its place, and leases it
        # again, as delivery 2 (the first delivery's token would be stale).
        assert a.pop(60000) == 42
        assert a.last_deliveries == 2 and a.last_lease.endswith(b":2")
        assert b.info()["leased"] == 1
        assert a.ack(a.last_lease)
        assert a.pop(60000) == 43 and a.ack(a.last_lease)
        assert b.info()["leased"] == 0 and b.tickets() == []
    finally:
        proxy.close()


def test_replay_after_lease_ran_out_plain():
    check_replay_after_lease_ran_out("plain")


def test_replay_after_lease_ran_out_lanes():
    check_replay_after_lease_ran_out("lanes")


def test_replay_while_lease_holds_is_the_same_delivery():
    proxy, a, b = lost_pop("plain", lambda conn, a, b: None)
    try:
        assert a.pop(60000) == 42 and a.last_deliveries == 1  # replayed: still A's lease
        assert b.info()["leased"] == 1 and [t[0] for t in b.tickets()] == [43]
        assert a.ack(a.last_lease)
    finally:
        proxy.close()


def test_replay_after_a_real_short_lease():
    # The same with the server's own clock: a 30 ms lease that the test waits out (until the
    # server says nothing is leased: a condition, not a guess at a duration).
    srv = host()
    proxy = fleet_server.DropProxy(srv.port)
    try:
        conn = resp.Redis("127.0.0.1", proxy.port)
        a = FleetQueue(conn, fleet_server.fresh_name("short"), 8, retries=0)
        b = FleetQueue(srv.client(install=False), a.name)
        b.push(7, 2)
        b.push(8, 2)
        assert conn.execute_command("ECHO", fleet_server.DropProxy.MARK)
        raises(OSError, a.pop, 30)
        end = time.monotonic() + 10
        while b.info()["leased"]:  # info reaps: 0 once the server's TIME passed the expiry
            assert time.monotonic() < end, "a 30 ms lease still held after 10 s"
            time.sleep(0.01)
        assert b.pop(60000) == 7 and b.ack(b.last_lease)
        assert a.pop(60000) == 8 and a.last_deliveries == 1 and a.ack(a.last_lease)
        assert b.info()["queued"] == 0 and b.info()["leased"] == 0
    finally:
        proxy.close()


def test_replay_of_an_empty_pop_is_a_new_pop():
    # An empty answer changed nothing: a pop sent again after it runs anew (and so takes a
    # ticket pushed since), rather than repeat "empty".
    srv = host()
    conn = fleet_server.Interrupting(srv.client(), "pop")
    q = FleetQueue(conn, fleet_server.fresh_name("empty"), 8)
    conn.armed = True
    raises(KeyboardInterrupt, q.pop)  # the server answered "empty"; the reply was not read
    q.push(5, 0)
    assert q.pop() == 5


# ---- 2. an exception at any point of a call on redis-py


class Injected(Exception):
    # What a signal handler of the application raises (SIGALRM timeouts and the like).
    pass


class Points:
    # Counts the points of a call on redis-py (before and after each send, read and parse)
    # and raises `exc` at point number `at`.
    def __init__(self):
        self.n = 0
        self.at = None
        self.exc = KeyboardInterrupt

    def hit(self):
        self.n += 1
        if self.at is not None and self.n == self.at:
            self.at = None
            raise self.exc("injected at point %d" % self.n)


def injecting_client(srv, points, single=False):
    class Conn(redis.Connection):
        def send_packed_command(self, *a, **k):
            points.hit()
            redis.Connection.send_packed_command(self, *a, **k)
            points.hit()

        def read_response(self, *a, **k):
            points.hit()
            r = redis.Connection.read_response(self, *a, **k)
            points.hit()
            return r

    class Client(redis.Redis):
        def parse_response(self, *a, **k):
            points.hit()
            r = redis.Redis.parse_response(self, *a, **k)
            points.hit()
            return r

    return Client(connection_pool=redis.ConnectionPool(host="127.0.0.1", port=srv.port,
                                                       connection_class=Conn),
                  single_connection_client=single)


def injecting_resp(srv, points):
    # The board client (ticketq.resp) with the same points: before and after each write
    # and each line read.
    class Board(resp.Redis):
        def _write(self, data):
            points.hit()
            resp.Redis._write(self, data)
            points.hit()

        def _line(self):
            points.hit()
            r = resp.Redis._line(self)
            points.hit()
            return r

    return Board("127.0.0.1", srv.port)


def every_point(op_name, run, exc):
    # run(at) runs one scenario with the exception at point `at` (None: nowhere) and checks
    # it; the count of a clean run says how many points there are to try.
    srv = host()
    srv.client()
    points = Points()
    points.exc = exc
    total = run(srv, points, None)
    assert total >= 4, (op_name, total)
    for at in range(1, total + 1):
        run(srv, points, at)
    return total


def interrupted(points, at, fn, *args):
    # Calls fn with the exception armed at `at` (counting from this call); returns
    # (raised?, result).
    points.n = 0
    points.at = at
    try:
        return False, fn(*args)
    except (KeyboardInterrupt, Injected):
        return True, None
    finally:
        points.at = None


def drain(q, lease):
    out = []
    while True:
        try:
            out.append(q.pop(lease))
        except QueueEmpty:
            return out
        if lease:
            assert q.last_deliveries == 1
            assert q.ack(q.last_lease)


def pop_scenario(kind, lease, single=False, board=False):
    def run(srv, points, at):
        c = injecting_resp(srv, points) if board else injecting_client(srv, points, single)
        q = make(kind, c, "ipop")
        for i in (1, 2, 3):
            q.push(i, 1)
        got = []
        hit, r = interrupted(points, at, q.pop, lease)
        n = points.n
        if not hit:
            got.append(r)
            if lease:
                assert q.ack(q.last_lease)
        got += drain(q, lease)
        # every ticket exactly once, in order, whatever was interrupted
        assert got == [1, 2, 3], (at, hit, got)
        # and the connection is in step: each answer is the answer to its own call
        assert q.push(50, 0) == 3 and q.pop() == 50 and len(q) == 0
        assert q.info()["leased"] == 0
        return n
    return run


def push_scenario(kind):
    def run(srv, points, at):
        q = make(kind, injecting_client(srv, points), "ipush")
        q.push(1, 1)
        hit, r = interrupted(points, at, q.push, 9, 1)
        n = points.n
        assert hit or r == 1
        s = q.push(10, 1)
        t = q.tickets()
        ids = [x[0] for x in t]
        # 9 is queued once if its push ran, never twice; 10's answer is its own seq
        assert ids in ([1, 9, 10], [1, 10]), (at, ids)
        assert hit or ids == [1, 9, 10]
        assert s == t[-1][2] == len(ids) - 1, (at, s, t)
        assert drain(q, 0) == ids
        return n
    return run


def ack_scenario(kind):
    def run(srv, points, at):
        q = make(kind, injecting_client(srv, points), "iack")
        watch = (FleetLaneQueue if kind == "lanes" else FleetQueue)(srv.client(install=False), q.name)
        q.push(1, 1)
        q.push(2, 1)
        assert q.pop(60000) == 1
        token = q.last_lease
        hit, r = interrupted(points, at, q.ack, token)
        n = points.n
        ran = watch.info()["leased"] == 0
        assert hit or (r is True and ran)
        # acking again answers whether this call finished it: never both, never neither
        assert q.ack(token) is (not ran), (at, hit, ran)
        assert watch.info()["leased"] == 0
        assert drain(q, 60000) == [2]
        return n
    return run


def test_interrupt_at_every_point_of_a_pop():
    for exc in (KeyboardInterrupt, Injected):
        every_point("pop", pop_scenario("plain", 0), exc)


def test_interrupt_at_every_point_of_a_leased_pop():
    for exc in (KeyboardInterrupt, Injected):
        every_point("pop lease", pop_scenario("plain", 60000), exc)


def test_interrupt_at_every_point_of_a_pop_single_connection_client():
    # redis.Redis(single_connection_client=True): its one connection is dropped
    for exc in (KeyboardInterrupt, Injected):
        every_point("pop single", pop_scenario("plain", 60000, True), exc)


def test_interrupt_at_every_point_of_a_pop_board_client():
    # ticketq.resp, the client a board with a network uses
    for exc in (KeyboardInterrupt, Injected):
        every_point("pop board", pop_scenario("plain", 60000, board=True), exc)
        every_point("lpop board", pop_scenario("lanes", 0, board=True), exc)


def test_interrupt_at_every_point_of_a_push():
    for exc in (KeyboardInterrupt, Injected):
        every_point("push", push_scenario("plain"), exc)


def test_interrupt_at_every_point_of_an_ack():
    for exc in (KeyboardInterrupt, Injected):
        every_point("ack", ack_scenario("plain"), exc)


def test_interrupt_at_every_point_lanes():
    for exc in (KeyboardInterrupt, Injected):
        every_point("lpop", pop_scenario("lanes", 60000), exc)
        every_point("lpush", push_scenario("lanes"), exc)
        every_point("lanes ack", ack_scenario("lanes"), exc)


# ---- 3. the lock after an exception at any bytecode of the queue's own code


WHERE = []


def at_bytecode(k, exc):
    # Raises exc at the k-th place in ticketq.fleet*.py where CPython can deliver an
    # asynchronous exception (a signal handler's: Ctrl-C, SIGALRM). CPython runs pending
    # signal handlers only where it checks for them: at RESUME and JUMP_BACKWARD (before
    # they run: opcode tracing raises there) and after a call returns (raised from the
    # callee's return event, the exception lands at the CALL, as a signal there does).
    # Not at every instruction: CPython's compiler relies on signals landing nowhere else
    # (a `with`'s exit sequence and `try:` NOPs are outside its exception table), so a
    # trace function raising there would test what no signal can do. C callees (no
    # frame) are not counted. Returns the count of places passed.
    count = [0]

    def hit(frame):
        count[0] += 1
        if count[0] == k:
            WHERE[:] = [frame.f_code.co_name, frame.f_lineno, frame.f_lasti]
            raise exc("injected at place %d" % k)

    def local(frame, event, arg):
        if event == "opcode" and frame.f_code.co_code[frame.f_lasti] in CHECKS:
            hit(frame)
        elif event == "return":
            hit(frame)
        return local

    def callee(frame, event, arg):
        if event == "return":
            hit(frame)
        return callee

    FLEET = "ticketq/fleet.py"  # the module's file, lib/ticketq/fleet.py

    def glob(frame, event, arg):
        if FLEET in frame.f_code.co_filename:
            frame.f_trace_opcodes = True
            return local
        if frame.f_back is not None and FLEET in frame.f_back.f_code.co_filename:
            return callee
        return None

    sys.settrace(glob)
    return count


def test_lock_is_free_after_an_interrupt_at_any_bytecode():
    if IS_MICROPYTHON:
        skip("CPython's opcode tracing")
    srv = host()
    conn = srv.client()
    total = None
    k = 0  # first a clean run (no bytecode 0): how many there are to try
    while total is None or k <= total:
        q = FleetQueue(conn, fleet_server.fresh_name("lock"), 8)
        for i in (1, 2, 3):
            q.push(i, 1)
        count = at_bytecode(k, KeyboardInterrupt)
        got = []
        token = None
        try:
            got.append(q.pop(60000))
            token = q.last_lease
            assert q.ack(token)
        except KeyboardInterrupt:
            pass
        finally:
            sys.settrace(None)
        if total is None:
            total = count[0]  # a clean run: how many bytecodes pop and ack take
            assert total > 10, total
        held = q._lock.locked()  # (not in the assert: pytest's message would repr q)
        assert not held, "lock held after place %d %r" % (k, WHERE)
        if token is not None:
            q.ack(token)  # an ack the interrupt stopped is made again (False if it ran)
        got += drain(q, 60000)
        # Nothing twice; a ticket not handed over is still leased (it comes back when the
        # lease runs out): at most the one whose reply the interrupt stopped on its way out.
        assert len(set(got)) == len(got), (k, got)
        orphans = q.info()["leased"]
        assert orphans <= 1 and len(got) + orphans == 3, (k, got, orphans)
        assert q.push(9, 0) == 3 and q.pop() == 9  # and every answer is its own call's
        k += 1
    assert total > 10


# ---- edges


def age_out(conn, q):
    # An hour idle, in the server: the client's stamp in idemt moved back over an hour,
    # then any other client's call drops its records (at most 8 clients a call).
    conn.zadd(q.keys[IDEMT], {q._client: 1}, xx=True)
    other = FleetQueue(conn, q.name)
    other.push(999, 0)
    assert other.remove(999)
    assert conn.zscore(q.keys[IDEMT], q._client) is None


def test_expired_records_never_duplicate():
    srv = host()
    conn = srv.client()
    q = FleetQueue(conn, fleet_server.fresh_name("idle"), 8)
    q.push(1, 1)
    old = q._client
    age_out(conn, q)
    # A call sent for the first time after the records went: under a new client number.
    assert q.push(2, 1) == 2  # (age_out's own push took 1)
    assert q._client != old
    assert [t[0] for t in q.tickets()] == [1, 2]
    # A push sent again (its first send may have run) whose records went: refused, never
    # pushed twice. Sent raw, as a resend is: (the old client, its call number).
    a = q._args("push", (3, 1), True)
    conn.execute_command(*a)  # the first send ran, then an hour idle
    age_out(conn, q)
    e = raises(redis.ResponseError, conn.execute_command, *a)
    assert str(e).startswith("TQEXPIRED"), e
    assert [t[0] for t in q.tickets()] == [1, 2, 3]
    # A pop is the exception: run as a new pop it cannot hand a ticket out twice.
    age_out(conn, q)
    p = q._args("pop", (0,), True)
    q._pending = p
    assert q.pop() == 1  # the pending pop, sent again, runs as a new pop
    assert [t[0] for t in q.tickets()] == [2, 3]


def test_expired_records_resend_raises():
    # Through the queue's own retry: the first send is lost on the network, the records go
    # meanwhile, the resend is refused: FleetError TQEXPIRED, nothing pushed twice.
    srv = host()
    conn = srv.client()
    q = FleetQueue(conn, fleet_server.fresh_name("idle2"), 8)
    sends = []

    class Flaky:
        def execute_command(self, *a):
            if a[1].endswith("_push") and not sends:
                sends.append(a)
                conn.execute_command(*a)  # it ran; the reply is lost; an hour idle
                age_out(conn, q)
                raise redis.ConnectionError("reply lost")
            return conn.execute_command(*a)

    q.conn = Flaky()
    e = raises(FleetError, q.push, 4, 2)
    assert "TQEXPIRED" in str(e)
    assert [t[0] for t in q.tickets()] == [4]


def test_server_takes_canonical_integers_only():
    srv = host()
    conn = srv.client()
    q = FleetQueue(conn, fleet_server.fresh_name("canon"), 8)
    for bad in ("-0", "+1", "007", "00", " 1", "1 ", "1e0", "0x1", "", "-"):
        a = q._args("push", (1, 1), True)
        a[-2] = bad
        e = raises(redis.ResponseError, conn.execute_command, *a)
        assert str(e).startswith("TQARG") and "job id" in str(e), (bad, e)
    a = q._args("push", (0, 1), True)
    assert conn.execute_command(*a) == 0
    assert [t[0] for t in q.tickets()] == [0]


def test_sigalrm_interrupts_lose_and_duplicate_nothing():
    # What signal timeouts, gevent and soft time limits do: a SIGALRM handler raising at
    # whatever point the interpreter is in (inside the queue's calls: the test's own
    # bookkeeping is not interrupted), every ~0.3-1.3 ms, through a stream of pushes, leased
    # pops and acks (plain and lane queues). Whatever the points hit: no ticket is delivered
    # twice, none is lost (each is delivered, still queued, or leased by a pop whose reply
    # an interrupt stopped at its end: it comes back when its lease runs out), and no call
    # reads another's reply.
    # In a process of its own: the signal lands in the libraries too, and one that lands
    # between the logging module's lock and its try (redis-py calls getLogger as it
    # connects) leaves that process-wide lock held: the next thread to connect then waits
    # for ever (seen: test_fleet_wait's pushing thread hung the whole pytest run).
    if IS_MICROPYTHON:
        skip("CPython's signal.setitimer")
    import os
    import subprocess

    here = os.path.dirname(os.path.abspath(__file__))
    path = os.pathsep.join([here, os.path.join(here, "..", "lib"), os.path.join(here, "..", "firmware")])
    env = dict(os.environ, PYTHONPATH=path)
    p = subprocess.run([sys.executable, "-c", "import test_fleet_safety as t; t.sigalrm_run()"],
                       cwd=here, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, (p.stdout + p.stderr)[-3000:]
    assert "sigalrm_run: ok" in p.stdout, p.stdout[-3000:]


def sigalrm_run():
    import gc
    import random
    import signal

    srv = host()
    for kind in ("plain", "lanes"):
        rnd = random.Random(20)
        q = make(kind, srv.client(), "alrm", 1024)
        pushed, maybe, got = [], [], []
        fired = [0]
        stop = [False]
        armed = [False]

        def alarm(signum, frame):
            if stop[0]:
                return
            signal.setitimer(signal.ITIMER_REAL, rnd.uniform(0.0003, 0.0013))
            if armed[0]:
                fired[0] += 1
                raise Injected("SIGALRM")

        def call(fn, *a):
            armed[0] = True
            try:
                return fn(*a)
            finally:
                armed[0] = False

        gc.collect()  # no finalizer of another object runs while armed (a garbage pool's)
        gc.disable()
        old = signal.signal(signal.SIGALRM, alarm)
        signal.setitimer(signal.ITIMER_REAL, 0.001)
        try:
            for i in range(1, 301):
                if i % 3:
                    try:
                        call(q.push, i, i % 4)
                        pushed.append(i)
                    except Injected:
                        maybe.append(i)
                    continue
                try:
                    got.append(call(q.pop, 600000))
                except (Injected, QueueEmpty):
                    continue
                tok = q.last_lease
                while True:
                    try:
                        call(q.ack, tok)
                        break
                    except Injected:
                        continue
        finally:
            stop[0] = True  # (first: an alarm from here on raises nothing, arms nothing)
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
            gc.enable()
        assert fired[0] > 20, fired
        got += drain(q, 600000)
        assert len(set(got)) == len(got), got
        orphans = q.info()["leased"]
        assert set(got) <= set(pushed) | set(maybe)
        assert len(set(pushed) - set(got)) <= orphans, (sorted(set(pushed) - set(got)), orphans)
        assert q.push(9999, 0) >= 0 and q.pop() == 9999  # in step
    print("sigalrm_run: ok")

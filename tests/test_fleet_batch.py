# Host only (CPython and a real redis-server): the batch calls of FleetQueue (issue 21):
# push_many, pop_many and ack_pop. Each is one FCALL with one replay record: the same
# answers as the single calls in a row (order, sequence numbers, digest, aging), all or none
# for push_many, bad input refused before anything is sent, and exactly once through lost
# replies (a proxy that drops the connection), an exception at every point of the call
# (test_fleet_safety's injection), and a replay after leases ran out. A lane queue refuses
# them by name.
from support import IS_MICROPYTHON, raises, skip

if not IS_MICROPYTHON:
    import redis

    import fleet_server
    from ticketq import TicketQueue
    from ticketq.core import QueueEmpty, QueueFull
    from ticketq.fleet import FleetError, FleetQueue
    from ticketq.fleet import FleetLaneQueue
    from test_fleet_safety import Injected, Points, expire_leases, injecting_client, injecting_resp, interrupted

M30 = 1 << 30


def host():
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    srv = fleet_server.shared()
    srv.client().close()  # the library loaded (this test's version of it)
    return srv


def fcalls(conn):
    return conn.info("commandstats").get("cmdstat_fcall", {}).get("calls", 0)


def test_push_many_is_pushes_in_a_row_all_or_none():
    srv = host()
    conn = srv.client()
    q = FleetQueue(conn, fleet_server.fresh_name("pm"), 6, 5)
    t = TicketQueue(6, 5)
    assert q.push_many([(7, 1), (8, 3), (9, 1)]) == [5, 6, 7]
    for i, c in [(7, 1), (8, 3), (9, 1)]:
        t.push(i, c)
    assert q.last_seq == 7
    n = fcalls(conn)
    raises(QueueFull, q.push_many, [(1, 0), (2, 0), (3, 0), (4, 0)])  # 3 + 4 > 6: none pushed
    assert len(q) == 3 and q.push(10, 0) == 8  # and no sequence number spent
    t.push(10, 0)
    assert fcalls(conn) == n + 3  # the refused call, the push, len's info
    # bad input: refused before anything is sent, naming the bad item
    n = fcalls(conn)
    for bad, exc in [([], ValueError), ([(1, 4)], ValueError), ([(1, 1), (M30, 1)], ValueError),
                     ([(1, 1), ("2", 1)], TypeError), ([(1, 1, 1)], TypeError), ([5], TypeError),
                     ([(1, 1)] * 4097, ValueError), ([(1.5, 1)], TypeError)]:
        raises(exc, q.push_many, bad)
    assert fcalls(conn) == n and len(q) == 4
    # the server's own checks, for other callers (redis-cli)
    for args in [(2, 1, 1), (1, 1, 4), (1, "x", 1), (0,), (4097,)]:
        e = raises(Exception, conn.execute_command, "FCALL", "tq1_pushn", 10, *(q.keys + [0, 0] + list(args)))
        assert str(e).startswith("TQARG"), e
    got = []
    while 1:
        try:
            got.append((q.pop(), q.last_priority, q.last_seq))
        except QueueEmpty:
            break
    want = [(t.pop(), t.last_priority, t.last_seq) for _ in range(4)]
    assert got == want and q.digest == t.digest
    q.destroy()


def test_pop_many_is_pops_in_a_row():
    # The same tickets, classes, sequence numbers, promotions and digest as count single
    # pops, with and without aging (aging promotes between two pops of a batch).
    srv = host()
    conn = srv.client()
    for aging in (0, 3):
        a = FleetQueue(conn, fleet_server.fresh_name("popm"), 64, 0, aging)
        b = FleetQueue(conn, fleet_server.fresh_name("pop1"), 64, 0, aging)
        items = [(i, (i * 7) % 4) for i in range(40)]
        a.push_many(items)
        for i, c in items:
            b.push(i, c)
        got = []
        for k in (1, 5, 13, 30):  # the last one finds only 21 left
            got += [(j[0], j[1], j[2]) for j in a.pop_many(k)]
        want = []
        for _ in range(40):
            want.append((b.pop(), b.last_priority, b.last_seq))
        assert got == want, aging
        assert a.digest == b.digest and a.last_seq == b.last_seq
        assert a.pop_many(3) == [] and len(a) == 0
        raises(ValueError, a.pop_many, 0)
        raises(ValueError, a.pop_many, 4097)
        raises(ValueError, a.pop_many, 1, -1)
        a.destroy()
        b.destroy()


def test_ack_pop_acks_then_leases_the_next():
    srv = host()
    conn = srv.client()
    q = FleetQueue(conn, fleet_server.fresh_name("ackpop"), 16)
    q.push_many([(i, 1) for i in range(6)])
    jobs = q.pop_many(2, 60000)
    assert [j[0] for j in jobs] == [0, 1] and all(j[3] for j in jobs)
    assert q.info()["leased"] == 2
    acked, nxt = q.ack_pop([j[3] for j in jobs], 3, 60000)
    assert acked == [True, True] and [j[0] for j in nxt] == [2, 3, 4]
    assert q.info()["leased"] == 3 and len(q) == 1
    # a token whose lease no longer holds (acked already) is False, the rest go on
    acked, nxt2 = q.ack_pop([jobs[0][3], nxt[0][3]], 0, 60000)
    assert acked == [False, True] and nxt2 == []
    # without a lease the popped tickets leave the queue: no token
    acked, nxt3 = q.ack_pop([nxt[1][3], nxt[2][3]], 5)
    assert acked == [True, True] and nxt3 == [(5, 1, 5, None)]
    assert q.info()["leased"] == 0 and len(q) == 0
    assert q.info()["classes"] == (0, 0, 0, 0)
    n = fcalls(conn)
    raises(TypeError, q.ack_pop, jobs[0][3])  # a str, not a list
    raises(ValueError, q.ack_pop, ["nope"])
    raises(TypeError, q.ack_pop, [jobs[0][3], 5])
    raises(ValueError, q.ack_pop, [], -1)
    raises(ValueError, q.ack_pop, [], 1, M30)
    assert fcalls(conn) == n
    q.destroy()


def test_lane_queue_refuses_batches_by_name():
    srv = host()
    conn = srv.client()
    q = FleetLaneQueue(conn, fleet_server.fresh_name("lanesb"), 8, (2, 1))
    n = fcalls(conn)
    for call in (lambda: q.push_many([(1, 1)]), lambda: q.pop_many(2), lambda: q.ack_pop([], 1)):
        e = raises(FleetError, call)
        assert "TQKIND" in str(e) and "FleetLaneQueue" in str(e)
    assert fcalls(conn) == n
    # and the server refuses them too (redis-cli): TQKIND, nothing changed
    e = raises(Exception, conn.execute_command, "FCALL", "tq1_pushn", 10, *(q.keys + [0, 0, 1, 5, 1]))
    assert "TQKIND" in str(e)
    assert len(q) == 0
    q.destroy()


def proxied(srv):
    proxy = fleet_server.DropProxy(srv.port)
    conn = redis.Redis(host="127.0.0.1", port=proxy.port, retry_on_error=[],
                       retry=redis.retry.Retry(redis.backoff.NoBackoff(), 0))
    return proxy, conn


def drop_next(conn):
    assert conn.execute_command("ECHO", fleet_server.DropProxy.MARK) == fleet_server.DropProxy.MARK


def test_lost_batch_replies_are_replayed():
    srv = host()
    proxy, conn = proxied(srv)
    try:
        q = FleetQueue(conn, fleet_server.fresh_name("dropb"), 16)
        drop_next(conn)
        assert q.push_many([(1, 1), (2, 1), (3, 2)]) == [0, 1, 2]  # sent again: replayed
        assert sorted(t[0] for t in q.tickets()) == [1, 2, 3]  # pushed once
        drop_next(conn)
        jobs = q.pop_many(2, 60000)
        assert [(j[0], j[2]) for j in jobs] == [(3, 2), (1, 0)]
        assert q.last_deliveries == 1 and q.info()["leased"] == 2  # not leased twice
        drop_next(conn)
        acked, nxt = q.ack_pop([j[3] for j in jobs], 2, 60000)
        assert acked == [True, True] and [j[0] for j in nxt] == [2]  # acks not run twice
        assert q.info()["leased"] == 1 and q.last_deliveries == 1
        assert q.ack_pop([nxt[0][3]], 0) == ([True], [])
        assert q.info()["leased"] == 0 and len(q) == 0
        assert proxy.dropped == 3
    finally:
        proxy.close()


def test_batch_pop_replay_drops_only_the_leases_that_ran_out():
    # A's pop_many(3) leased three tickets; its reply was lost and its retries ran out.
    # Meanwhile the leases ran out and B took one of them. A's next pop_many sends the same
    # call again: the server replays it without the tickets whose lease that delivery no
    # longer holds, so no ticket is held by two consumers; the others went back in place.
    srv = host()
    proxy, conn = proxied(srv)
    try:
        a = FleetQueue(conn, fleet_server.fresh_name("lostb"), 16)
        a.retries = 0
        b = FleetQueue(srv.client(install=False), a.name)
        b.push_many([(40, 1), (41, 1), (42, 1), (43, 1)])
        drop_next(conn)
        raises(redis.ConnectionError, a.pop_many, 3, 60000)
        assert b.info()["leased"] == 3
        expire_leases(b.conn, a)
        assert b.pop(60000) == 40 and b.last_deliveries == 2  # B holds 40 now
        got = a.pop_many(3, 60000)  # the lost call again: 41 and 42 went back too
        assert got == [] or all(j[0] != 40 for j in got)
        # the reply is replayed without the lapsed leases (here all three ran out), and the
        # next batch pops anew: every ticket exactly once across A and B
        more = a.pop_many(5, 60000)
        ids = sorted([j[0] for j in got + more])
        assert ids == [41, 42, 43], (got, more)
        assert a.ack_pop([j[3] for j in got + more], 0)[0] == [True] * 3
        assert b.ack(b.last_lease) and b.info()["leased"] == 0 and len(b) == 0
    finally:
        proxy.close()


def test_lost_batch_pop_then_a_pop_of_another_kind_recovers_its_tickets():
    srv = host()
    proxy, conn = proxied(srv)
    try:
        a = FleetQueue(conn, fleet_server.fresh_name("kind"), 16)
        a.retries = 0
        a.push_many([(1, 1), (2, 1), (3, 1)])
        drop_next(conn)
        raises(redis.ConnectionError, a.pop_many, 2)  # no lease: its tickets left the queue
        assert a.recovered == []
        assert a.pop() == 3  # the lost pop_many is sent again first: 1 and 2 are kept
        assert [j[0] for j in a.recovered] == [1, 2]
        assert len(a) == 0
    finally:
        proxy.close()


# ---- an exception at every point of a batch call (test_fleet_safety's points)

def every_point(run):
    srv = host()
    points = Points()
    for exc in (KeyboardInterrupt, Injected):
        points.exc = exc
        total = run(srv, points, None)
        assert total >= 4, total
        for at in range(1, total + 1):
            run(srv, points, at)


def drain_many(q, lease):
    out = []
    while 1:
        jobs = q.pop_many(2, lease)
        if not jobs:
            return out
        for j in jobs:
            out.append(j[0])
        if lease:
            acked, nothing = q.ack_pop([j[3] for j in jobs], 0, lease)
            assert acked == [True] * len(jobs) and nothing == []


def test_interrupt_at_every_point_of_push_many():
    def run(srv, points, at):
        q = FleetQueue(injecting_client(srv, points), fleet_server.fresh_name("ipm"), 16)
        q.push(1, 1)
        hit, r = interrupted(points, at, q.push_many, [(9, 1), (8, 1)])
        n = points.n
        assert hit or r == [1, 2]
        s = q.push_many([(10, 1)])
        ids = [t[0] for t in q.tickets()]
        # 9 and 8 are queued once if the call ran, never twice, never one without the other
        assert ids in ([1, 9, 8, 10], [1, 10]), (at, ids)
        assert hit or ids == [1, 9, 8, 10]
        assert s == [len(ids) - 1]
        assert drain_many(q, 0) == ids
        q.destroy()
        return n
    every_point(run)


def test_interrupt_at_every_point_of_pop_many():
    for lease in (0, 60000):
        def run(srv, points, at, lease=lease):
            q = FleetQueue(injecting_client(srv, points), fleet_server.fresh_name("ipopm"), 16)
            q.push_many([(1, 1), (2, 1), (3, 1)])
            hit, r = interrupted(points, at, q.pop_many, 2, lease)
            n = points.n
            got = []
            if not hit:
                got = [j[0] for j in r]
                if lease:
                    assert q.ack_pop([j[3] for j in r], 0)[0] == [True, True]
            got += drain_many(q, lease)
            assert q.recovered == []  # a batch's lost tickets come back from the next batch
            # every ticket exactly once, in order, whatever was interrupted
            assert sorted(got) == [1, 2, 3] and len(got) == 3, (at, hit, got)
            assert q.push(50, 0) == 3 and q.pop() == 50 and len(q) == 0
            assert q.info()["leased"] == 0
            q.destroy()
            return n
        every_point(run)


def test_interrupt_at_every_point_of_ack_pop():
    def run(srv, points, at):
        q = FleetQueue(injecting_client(srv, points), fleet_server.fresh_name("iackpop"), 16)
        watch = FleetQueue(srv.client(install=False), q.name)
        q.push_many([(1, 1), (2, 1), (3, 1)])
        first = q.pop_many(1, 60000)
        hit, r = interrupted(points, at, q.ack_pop, [first[0][3]], 1, 60000)
        n = points.n
        ran = watch.info()["leased"] != 1 or [t[0] for t in watch.tickets()] != [2, 3]
        got = [1]
        if hit:
            # the next batch sends the lost one again first (replayed if it ran: 1 acked
            # once, 2 leased once) and returns its ticket before its own (nothing here)
            acked, jobs = q.ack_pop([], 0, 60000)
            assert acked == [] and [j[0] for j in jobs] == [2], (at, jobs)
            got += [j[0] for j in jobs]
            toks = [j[3] for j in jobs]
        else:
            assert r[0] == [True] and [j[0] for j in r[1]] == [2]
            got += [j[0] for j in r[1]]
            toks = [j[3] for j in r[1]]
        assert q.ack_pop(toks, 0)[0] == [True] * len(toks)
        got += drain_many(q, 60000)
        assert got == [1, 2, 3], (at, hit, ran, got)
        # 1's lease was ended by exactly one call: acking it again is False
        assert q.ack(first[0][3]) is False
        assert watch.info()["leased"] == 0 and len(watch) == 0
        q.destroy()
        return n
    every_point(run)


def test_interrupt_at_every_point_of_a_batch_board_client():
    # ticketq.resp, the client a board with a network uses
    def run(srv, points, at):
        q = FleetQueue(injecting_resp(srv, points), fleet_server.fresh_name("ibatchb"), 16)
        q.push_many([(1, 1), (2, 2), (3, 1)])
        hit, r = interrupted(points, at, q.pop_many, 2, 60000)
        n = points.n
        got = []
        if not hit:
            got = [j[0] for j in r]
            assert q.ack_pop([j[3] for j in r], 0)[0] == [True, True]
        got += drain_many(q, 60000)
        assert got == [2, 1, 3], (at, hit, got)
        assert q.info()["leased"] == 0
        q.destroy()
        return n
    every_point(run)


def test_replay_records_of_the_json_format_are_still_read():
    # The library kept replies as JSON before the batch work (issue 21); a call sent again
    # across the upgrade (the library reloaded under the same version) is replayed from such
    # a record as it was, not run again. Each current format round-trips too.
    import json

    srv = host()
    conn = srv.client()
    q = FleetQueue(conn, fleet_server.fresh_name("oldrec"), 8)
    q.push_many([(5, 2), (6, 1)])
    for op, args in (("pop", (60000,)), ("popn", (60000, 1)), ("pushn", (1, 7, 3)), ("push", (8, 0))):
        a = q._args(op, args, True)
        r1 = conn.execute_command(*a)
        assert conn.execute_command(*a) == r1  # the current format, replayed
        field = "%s:%s" % (q._client, op)
        old = conn.hget(q.keys[8], field).decode()
        plain = [x.decode() if isinstance(x, bytes) else x for x in r1] if isinstance(r1, list) else r1
        conn.hset(q.keys[8], field, old.split("|")[0] + "|" + json.dumps(plain))
        assert conn.execute_command(*a) == r1, (op, old)  # the JSON one, replayed the same
    assert [t[0] for t in q.tickets()] == [7, 8]  # nothing ran twice: 5 and 6 leased
    assert q.info()["leased"] == 2
    q.destroy()


def test_push_many_errors_name_the_bad_item():
    # Was a lib bug (lib/ticketq/fleet.py FleetQueue.push_many): docs/fleet.md's batch table
    # promises "TypeError/ValueError as push's, naming the first bad item, nothing sent", but
    # a bad value inside a pair raises push's bare message ("job id must be int", "priority
    # must be 0..3"), which does not say which of up to 4096 items it was. Expected: the
    # message names the item, by its index or its repr (a malformed pair's message already
    # gives its repr: "pairs, not (1, 1, 0)").
    srv = host()
    conn = srv.client()
    q = FleetQueue(conn, fleet_server.fresh_name("pmname"), 16)
    for items, bad, i, exc in [([(1, 1), ("2", 1)], ("2", 1), 1, TypeError),
                               ([(1, 1), (2, 1), (3, 4)], (3, 4), 2, ValueError),
                               ([(M30, 1)], (M30, 1), 0, ValueError)]:
        e = raises(exc, q.push_many, items)
        msg = str(e)
        assert repr(bad) in msg or ("item %d" % i) in msg or ("[%d]" % i) in msg, msg
    assert len(q) == 0 and q.tickets() == []
    q.destroy()


def test_the_largest_batches_run_whole():
    # 4096 items is push_many's and pop_many's documented limit, but from 4000 on the server
    # failed ("too many results to unpack": Lua 5.1 unpacks at most 8000 values, a ZADD of
    # 4000 tickets has 8000) after it had moved the push counter: 4000 sequence numbers
    # spent and no ticket stored. pop_many(4096, lease) likewise (HSET of 8192 values).
    srv = host()
    conn = srv.client()
    q = FleetQueue(conn, fleet_server.fresh_name("big"), 3 * 4096)
    t = TicketQueue(3 * 4096)
    for k in (3999, 4000, 4096):
        items = [((i * 7) % 1000, (i * 5) % 4) for i in range(k)]
        seqs = q.push_many(items)
        assert seqs == [t.push(i, c) for i, c in items]
    assert len(q) == 3999 + 4000 + 4096 and q.push(5, 1) == t.push(5, 1)  # no number lost
    for lease in (60000, 0, 60000):
        jobs = q.pop_many(4096, lease)
        assert [(j[0], j[1], j[2]) for j in jobs] == [(t.pop(), t.last_priority, t.last_seq) for _ in jobs]
        assert len(jobs) == min(4096, len(t) + len(jobs)) and all((j[3] is None) == (lease == 0) for j in jobs)
    assert len(jobs) == 3999 + 4000 + 4096 + 1 - 2 * 4096  # the last batch: what was left
    assert q.digest == t.digest and q.info()["leased"] == 4096 + len(jobs) and len(q) == 0
    q.push_many([(9, 2)] * 4096)
    for _ in range(4096):
        t.push(9, 2)
    toks = [j[3] for j in q.pop_many(4096, 60000)] + [j[3] for j in jobs]  # 8000 tokens: too many
    raises(ValueError, q.ack_pop, toks, 1)
    acked, nxt = q.ack_pop(toks[:4096], 0)
    assert acked == [True] * 4096 and nxt == []
    for _ in range(4096):
        t.pop()
    assert q.digest == t.digest and len(q) == len(t) == 0
    q.destroy()

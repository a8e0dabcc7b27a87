# Host only (CPython and a real redis-server): bad input to the fleet queue. Bad arguments
# get TicketQueue's errors and are refused before anything is sent (the server's FCALL
# count does not move); a server or a queue that is not what the client expects (library
# missing or of another version, a queue of another layout, a key of another type, a
# settings mismatch) is a clear FleetError, never a silent reorder.
from support import IS_MICROPYTHON, raises, skip

if not IS_MICROPYTHON:
    import fleet_server  # first: it puts tools/ on sys.path
    from ticketq_tools import fleetctl
    from ticketq import TicketQueue
    from ticketq.fleet import FleetQueue, FleetError
    from ticketq.ticks import Deadline
    from ticketq.core import QueueEmpty
    from ticketq.ticks import timeout

M30 = 1 << 30


def host_only():
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    return fleet_server.shared()


def fcalls(conn):
    return conn.info("commandstats").get("cmdstat_fcall", {}).get("calls", 0)


def outcome(fn, *args):
    try:
        return ("ok", fn(*args))
    except (TypeError, ValueError) as e:
        return (type(e).__name__, str(e))


def test_bad_arguments_are_refused_before_sending():
    srv = host_only()
    for conn in (srv.client(), srv.resp()):
        q = FleetQueue(conn, fleet_server.fresh_name("bad"), 4)
        t = TicketQueue(4)
        q.push(7, 1)
        t.push(7, 1)
        before = q.tickets()
        watch = srv.client(install=False)
        n = fcalls(watch)
        for args in [(-1, 0), (M30, 0), (1.0, 0), ("1", 0), (None, 0), (1, -1), (1, 4), (1, 2.0), (1, "3"),
                     (1, None), (2 ** 64, 1), (1, 2 ** 64)]:
            a, b = outcome(t.push, *args), outcome(q.push, *args)
            assert a[0] != "ok" and a == b, (args, a, b)
        for v in (-1, M30, 1.5, "7", None):
            a, b = outcome(t.remove, v), outcome(q.remove, v)
            assert a[0] != "ok" and a == b, (v, a, b)
        for v in (-1, M30, 0.5, "10", None):
            assert raises(ValueError if type(v) is int else TypeError, q.pop, v)
        for tok in ("", "x", b"y" * 30, 5, None, "1" * 24 + ":1"):
            raises((ValueError, TypeError), q.ack, tok)
            raises((ValueError, TypeError), q.release, tok)
        raises(ValueError, q.touch, "1" * 25 + ":1", 0)
        assert fcalls(watch) == n, "a refused call reached the server"
        assert q.tickets() == before


def test_names_and_settings():
    srv = host_only()
    conn = srv.client()
    raises(TypeError, FleetQueue, conn, b"jobs", 4)
    raises(ValueError, FleetQueue, conn, "", 4)
    raises(ValueError, FleetQueue, conn, "a{b}", 4)
    raises(ValueError, FleetQueue, conn, "jobs", 4, 0, 0, 8, "x{")
    raises(ValueError, FleetQueue, conn, "jobs", 4, 0, 0, -1)
    name = fleet_server.fresh_name("cfg")
    q = FleetQueue(conn, name, 4, 10, 2, 3)
    q.push(1, 1)
    same = FleetQueue(conn, name)  # no capacity: take the queue's settings
    assert (same.capacity, same.first_seq, same.aging, same.max_deliveries) == (4, 10, 2, 3)
    assert same.pop() == 1 and same.last_seq == 10
    e = raises(FleetError, FleetQueue, conn, name, 8)
    assert "exists with capacity 4" in str(e)
    e = raises(FleetError, FleetQueue, conn, fleet_server.fresh_name("none"))
    assert "TQNOQUEUE" in str(e)
    # settings without a capacity were taken silently and the queue's own used instead:
    # refused, before anything is sent (FleetLaneQueue refuses weights the same way)
    n = fcalls(conn)
    for what, args in (("first_seq", (5,)), ("aging", (0, 2)), ("max_deliveries", (0, 0, 3))):
        e = raises(ValueError, FleetQueue, conn, name, None, *args)
        assert "need a capacity" in str(e) and what in str(e), e
    assert fcalls(conn) == n
    assert FleetQueue(conn, name, None, 0, 0, 8).max_deliveries == 3  # the defaults: it opens


def test_wrong_type_keys_are_a_clear_error():
    srv = host_only()
    conn = srv.client()
    name = fleet_server.fresh_name("type")
    q = FleetQueue(conn, name, 4)
    q.push(3, 2)
    conn.delete(q.keys[1])
    conn.set(q.keys[1], "not a zset")  # another program wrote over the ready set
    e = raises(FleetError, q.push, 4, 2)
    assert "TQTYPE" in str(e) and name in str(e)
    e = raises(FleetError, FleetQueue, conn, name, 4)  # opening checks every key's type
    assert "TQTYPE" in str(e) and "holds a string" in str(e) and q.keys[1] in str(e)
    conn.delete(*q.keys)


def test_missing_or_old_library_is_a_clear_error():
    host_only()
    srv = fleet_server.RedisServer().start()  # its own server: the libraries change here
    try:
        conn = srv.client(install=False)
        e = raises(FleetError, FleetQueue, conn, "jobs", 4)
        assert "ticketq_1 library is not loaded" in str(e)
        fleetctl.install(conn, version=0)  # only an older library on the server
        e = raises(FleetError, FleetQueue, conn, "jobs", 4)
        assert "not loaded" in str(e)
        # A queue made by that older library (layout 0), then the current library beside it:
        # the new client refuses the old layout by name, it never reads it as its own.
        old = ["tq{jobs}:" + s for s in ("meta", "ready", "ids", "promo", "leased", "deliv", "wake", "dead",
                                         "idem", "idemt")]
        conn.execute_command("FCALL", "tq0_open", 10, *(old + [4, 0, 0, 8]))
        conn.execute_command("FCALL", "tq0_push", 10, *(old + [0, 0, 5, 1]))
        fleetctl.install(conn)
        e = raises(FleetError, FleetQueue, conn, "jobs", 4)
        assert "TQLAYOUT" in str(e) and "layout version 0" in str(e)
        assert conn.zcard("tq{jobs}:ready") == 1  # untouched
    finally:
        srv.close()


def test_server_checks_arguments_too():
    # redis-cli or another client calling the functions directly gets a specific error.
    srv = host_only()
    conn = srv.client()
    q = FleetQueue(conn, fleet_server.fresh_name("srv"), 4)
    # (Lua's tonumber also reads "1e3", "0x10" and " 7": only decimal digits are integers here)
    for args in [("x", 1), (-1, 1), (M30, 1), (1, 4), (1, "1.5"), ("1e3", 1), (1, "0x1"), (" 7", 1), ("7 ", 1)]:
        e = raises(Exception, conn.execute_command, "FCALL", "tq1_push", 10, *(q.keys + [0, 0] + list(args)))
        assert str(e).startswith("TQARG"), e
    assert len(q) == 0


def test_key_types_are_checked_at_open_and_meta_by_every_call():
    # The ten keys' types are checked when a queue object opens the queue (and by client()),
    # not by every call (ten TYPE calls were a third of a push's server time: issue 21).
    # docs/fleet-ops.md, "Key types" (Connections): a key another program wrote over after that is named by the
    # next open (TQTYPE, nothing written); a call that meets it fails with FleetError TQTYPE
    # naming the queue (possibly part way: Redis keeps a script's writes before an error), or,
    # if it does not touch that key, runs. The meta hash is read first by every call, so a
    # meta written over is refused by every call before anything is written.
    srv = host_only()
    watch = srv.client()
    from ticketq.fleet import FleetLaneQueue

    for conn in (srv.client(), srv.resp()):
        for lanes in (False, True):
            name = fleet_server.fresh_name("types")
            if lanes:
                q = FleetLaneQueue(conn, name, 8, [2, 1], None, 0, 2, 1)
                push = lambda: q.push(9, 1, 1)  # noqa: E731
                reopen = lambda: FleetLaneQueue(conn, name)  # noqa: E731
            else:
                q = FleetQueue(conn, name, 8, 0, 2, 1)
                push = lambda: q.push(9, 1)  # noqa: E731
                reopen = lambda: FleetQueue(conn, name)  # noqa: E731
            for i in range(4):
                push()
            q.push(5, 2)
            q.pop(60000)
            q.release(q.last_lease)  # max_deliveries 1: dead-lettered
            q.pop(60000)
            tok = q.last_lease
            q.pop()
            assert sum(watch.exists(k) for k in q.keys) >= 8, q.keys  # most keys hold something
            calls = [("push", push), ("pop", q.pop), ("pop leased", lambda: q.pop(1000)), ("peek", q.peek),
                     ("remove", lambda: q.remove(9)), ("clear", q.clear), ("ack", lambda: q.ack(tok)),
                     ("release", lambda: q.release(tok)), ("touch", lambda: q.touch(tok, 1000)),
                     ("dead", q.dead), ("info", q.info), ("tickets", q.tickets), ("len", lambda: len(q)),
                     ("full", q.full), ("digest", lambda: q.digest),
                     ("pop_until", lambda: q.pop_until(Deadline(0)))]
            if lanes:
                calls.append(("lanes", q.lane_info))
            for k in q.keys:
                saved = watch.dump(k)  # None for a key that holds nothing now
                watch.delete(k)
                watch.set(k, "another program's")
                before = dict((x, watch.dump(x)) for x in q.keys)
                e = raises(FleetError, reopen)
                assert "TQTYPE" in str(e) and k in str(e), (k, e)
                assert dict((x, watch.dump(x)) for x in q.keys) == before
                for what, call in calls:
                    try:
                        call()
                    except FleetError as e:
                        assert "TQTYPE" in str(e) and name in str(e), (what, k, e)
                    except (QueueEmpty, type(timeout())):
                        pass
                    if k == q.keys[0]:  # meta: refused before anything is written
                        after = dict((x, watch.dump(x)) for x in q.keys)
                        assert after == before, (what, k, [x for x in q.keys if after[x] != before[x]])
                watch.delete(k)
                if saved is not None:
                    watch.restore(k, 0, saved)
            q.destroy()


def one_ticket(conn, tag, lanes, lane):
    # A new queue (lanes: a FleetLaneQueue of weights 1:1) holding ticket 7 of class 1
    from ticketq.fleet import FleetLaneQueue

    name = fleet_server.fresh_name(tag)
    if lanes:
        q = FleetLaneQueue(conn, name, 4, (1, 1), 4)
        q.push(7, 1, lane)
    else:
        q = FleetQueue(conn, name, 4)
        q.push(7, 1)
    return q


def test_a_pop_refused_by_the_server_is_not_sent_again():
    # Only a pop whose reply never arrived is sent again, unchanged, by the next pop. A pop
    # the server answered with an error (a wrong-type key, a missing library) was answered:
    # the next pop must be the one asked for. It was resent instead, so pop(lease_ms=30000)
    # after a refused pop() took the ticket with no lease (lost if that consumer died).
    srv = host_only()
    watch = srv.client(install=False)
    for conn in (srv.client(), srv.resp()):
        for lanes in (False, True):
            q = one_ticket(conn, "refused", lanes, 0)
            # the (empty) leased set's key, written over: a pop reads it first (expired leases
            # go back before anything else), so the server refuses the pop before any write
            watch.set(q.keys[4], "another program's")
            e = raises(FleetError, q.pop)
            assert "TQTYPE" in str(e)
            watch.delete(q.keys[4])
            assert q.pop(lease_ms=30000) == 7
            assert q.last_lease is not None, "the refused pop(0) was sent again: no lease"
            assert q.info()["leased"] == 1
            q.destroy()


def test_a_foreign_hash_at_the_meta_key_is_named_as_such():
    # A hash at <prefix>{<name>}:meta without ticketq's fields is another program's: opening
    # with a capacity said "no queue ... (create it with a capacity)", to a caller who gave
    # one, and left them guessing. It is a TQTYPE naming the key, and nothing is written.
    srv = host_only()
    watch = srv.client(install=False)
    for conn in (srv.client(), srv.resp()):
        name = fleet_server.fresh_name("foreign")
        meta = "tq{" + name + "}:meta"
        watch.hset(meta, "owner", "another program")
        for args in ((4,), ()):
            e = raises(FleetError, FleetQueue, conn, name, *args)
            assert "TQTYPE" in str(e) and meta in str(e) and "another program" in str(e), e
            assert "create it with a capacity" not in str(e), e
        assert watch.hgetall(meta) == {b"owner": b"another program"}
        assert watch.keys("tq{" + name + "}:*") == [meta.encode()]
        watch.delete(meta)
        e = raises(FleetError, FleetQueue, conn, name)  # nothing there: still TQNOQUEUE
        assert "TQNOQUEUE" in str(e)


def test_a_string_that_is_no_lease_token_is_refused_before_sending():
    # ack/release/touch document "not a token: ValueError (nothing sent)"; only the length and
    # the ":" were checked, so a bad class digit, a non-hex member or a delivery count that is
    # no number went to the server and came back as a quiet False / 0.
    srv = host_only()
    watch = srv.client(install=False)
    for lanes in (False, True):
        q = one_ticket(srv.client(), "token", lanes, 1)
        q.pop(30000)
        good = q.last_lease.decode()
        k = good.index(":")
        bads = ["4" + good[1:], "x" + good[1:], good[:3] + "g" + good[4:], good[:3] + "A" + good[4:],
                good[:k + 1] + "abc", good[:k + 1] + "-1", good[:k + 1] + " 1", good + "\n",
                good[:k + 1] + "1:2", good[:k + 1] + "1.0"]
        n = fcalls(watch)
        for bad in bads:
            for call in (q.ack, q.release, lambda t: q.touch(t, 1000)):
                e = raises(ValueError, call, bad)
                assert "lease token" in str(e), (bad, e)
                raises(ValueError, call, bad.encode())
        assert fcalls(watch) == n, "a string that is no token reached the server"
        assert q.touch(good, 1000) and q.ack(good)
        q.destroy()


def test_the_prefix_error_says_what_a_prefix_may_be():
    # An empty prefix is taken (keys "{name}:meta"); the error said "non-empty" for it.
    srv = host_only()
    conn = srv.client()
    n = fcalls(conn)
    e = raises(ValueError, FleetQueue, conn, "p", 4, 0, 0, 8, "a}")
    assert str(e) == "prefix must be a str without { }", e
    e = raises(ValueError, FleetQueue, conn, "", 4)
    assert str(e) == "name must be a non-empty str without { }", e
    assert fcalls(conn) == n
    name = fleet_server.fresh_name("noprefix")
    q = FleetQueue(conn, name, 4, prefix="")
    assert q.keys[0] == "{" + name + "}:meta"
    q.destroy()

# Host only (CPython and a real redis-server): bad input to the fleet's lanes. Bad
# arguments get LaneQueue's errors and are refused before anything is sent (the server's
# FCALL count does not move); the server checks them too, for redis-cli and other
# callers, and refuses before writing (the queue's keys are byte for byte the same);
# a plain queue and a lane queue are never mistaken for each other (TQKIND), a lane
# queue's settings must match (TQCONFIG), and a library of another version refuses a lane
# queue by its layout name (TQLAYOUT). Also: dead letters leave their lane's count.
from support import IS_MICROPYTHON, raises
from test_fleet_errors import fcalls, host_only, outcome  # host_only skips on MicroPython

if not IS_MICROPYTHON:
    import fleet_server  # first: it puts tools/ on sys.path
    from ticketq_tools import fleetctl
    from ticketq.fleet import FleetQueue, FleetError
    from ticketq.fleet import FleetLaneQueue
    from ticketq.lanes import LaneQueue, LaneFull

M30 = 1 << 30


def dump(conn, q):
    # Every key of the queue, as the server serialises it: "nothing changed" means this.
    return [(k, conn.dump(k)) for k in q.keys]


def test_bad_arguments_are_refused_before_sending():
    srv = host_only()
    for conn in (srv.client(), srv.resp()):
        q = FleetLaneQueue(conn, fleet_server.fresh_name("lbad"), 6, [2, 1, 1], [3, 2, 2])
        t = LaneQueue(6, [2, 1, 1], [3, 2, 2])
        for i, l in ((1, 0), (2, 2)):
            q.push(i, 1, l)
            t.push(i, 1, l)
        watch = srv.client(install=False)
        before = dump(watch, q)
        n = fcalls(watch)
        for args in [(1, 1, 3), (1, 1, -1), (1, 1, 30), (1, 1, 2 ** 40), (1, 1, 1.0), (1, 1, "0"), (1, 1, None),
                     (1, 1, b"1"), (-1, 1, 0), (M30, 0, 0), (1, 4, 0), (1, "3", 0), (None, 1, 7)]:
            a, b = outcome(t.push, *args), outcome(q.push, *args)
            assert a[0] != "ok" and a == b, (args, a, b)
        for v in (3, -1, 1.5, "0", None):
            a, b = outcome(t.lane_len, v), outcome(q.lane_len, v)
            assert a[0] != "ok" and a == b, (v, a, b)
        for tok in ("", "x" * 27, "1" * 25 + ":1", 5, None):  # a plain queue's token shape too
            raises((ValueError, TypeError), q.ack, tok)
        assert fcalls(watch) == n, "a refused call reached the server"
        assert dump(watch, q) == before
        q.destroy()


def test_the_server_checks_lane_arguments_too_and_writes_nothing():
    srv = host_only()
    conn = srv.client()
    q = FleetLaneQueue(conn, fleet_server.fresh_name("lsrv"), 4, [1, 1, 1])
    q.push(9, 2, 1)
    before = dump(conn, q)
    for lane in ("3", "-1", "x", "1.5", ""):
        e = raises(Exception, conn.execute_command, "FCALL", "tq1_lpush", 10, *(q.keys + [0, 0, 5, 1, lane]))
        assert str(e).startswith("TQARG ticketq: lane must be an integer 0..2"), e
    name = fleet_server.fresh_name("lsrv")
    keys = ["tq{%s}:%s" % (name, s) for s in ("meta", "ready", "ids", "promo", "leased", "deliv", "wake", "dead",
                                              "idem", "idemt")]
    for w, b, msg in (("", "", "lanes must be 1..30, not 0"), (",".join(["1"] * 31), "", "lanes must be 1..30"),
                      ("1,0", "4,4", "weight must be an integer 1..32767"), ("1,x", "4,4", "weight must be"),
                      ("20000,20000", "4,4", "total weight must be 1..32767, not 40000"),
                      ("1,1", "4", "lane capacity: one per lane (2), not 1"),
                      ("1,1", "4,5", "lane capacity must be an integer 1..4, not 5")):
        e = raises(Exception, conn.execute_command, "FCALL", "tq1_lopen", 10, *(keys + [4, 0, 0, 8, w, b]))
        assert str(e).startswith("TQARG ticketq: " + msg), (w, b, e)
        if "lane capacity" not in msg:  # the weights are what is wrong: ltable says so too
            e = raises(Exception, conn.execute_command, "FCALL", "tq1_ltable", 0, w)
            assert str(e).startswith("TQARG ticketq: "), e
    assert conn.keys("*{%s}*" % name) == []
    assert dump(conn, q) == before
    q.destroy()


def test_a_plain_queue_and_a_lane_queue_are_never_mixed_up():
    srv = host_only()
    conn = srv.client()
    lanes = FleetLaneQueue(conn, fleet_server.fresh_name("kind"), 4, [1, 1])
    plain = FleetQueue(conn, fleet_server.fresh_name("kind"), 4)
    lanes.push(1, 1, 1)
    plain.push(2, 1)
    before = (dump(conn, lanes), dump(conn, plain))
    e = raises(FleetError, FleetQueue, conn, lanes.name)
    assert "TQKIND" in str(e) and "has lanes: open it with ticketq.fleet.FleetLaneQueue" in str(e)
    e = raises(FleetError, FleetLaneQueue, conn, plain.name)
    assert "TQKIND" in str(e) and "has no lanes" in str(e)
    for op, args in (("push", [0, 0, 5, 1]), ("pop", [0, 0, 0]), ("peek", []), ("tickets", [])):
        e = raises(Exception, conn.execute_command, "FCALL", "tq1_" + op, 10, *(lanes.keys + args))
        assert str(e).startswith("TQKIND"), (op, e)
    for op, args in (("lpush", [0, 0, 5, 1, 0]), ("lpop", [0, 0, 0]), ("lpeek", []), ("ltickets", []),
                     ("lanes", [])):
        e = raises(Exception, conn.execute_command, "FCALL", "tq1_" + op, 10, *(plain.keys + args))
        assert str(e).startswith("TQKIND"), (op, e)
    assert (dump(conn, lanes), dump(conn, plain)) == before
    # The calls both kinds share work on a lane queue: info, remove, clear, the leases.
    assert lanes.info()["classes"] == (0, 1, 0, 0) and lanes.remove(1) and len(lanes) == 0
    lanes.destroy()
    plain.destroy()


def test_settings_must_match_and_can_be_taken():
    srv = host_only()
    conn = srv.client()
    name = fleet_server.fresh_name("lcfg")
    q = FleetLaneQueue(conn, name, 6, [3, 1], [4, 2], 5, 2, 3)
    same = FleetLaneQueue(conn, name)  # no capacity: the queue's own settings
    assert (same.capacity, same.weights, same.lane_capacity, same.first_seq, same.aging, same.max_deliveries) == (
        6, (3, 1), (4, 2), 5, 2, 3)
    assert list(same.table) == [0, 0, 0, 1]
    assert FleetLaneQueue(conn, name, 6, [3, 1], [4, 2], 5, 2, 3).lanes == 2  # all the same: fine
    for w, b in (([3, 1], [4, 3]), ([1, 3], [4, 2]), ([3, 1, 1], [4, 2, 1])):
        e = raises(FleetError, FleetLaneQueue, conn, name, 6, w, b, 5, 2, 3)
        assert "TQCONFIG" in str(e) and "exists with weights 3,1 and lane capacity 4,2" in str(e), e
    e = raises(FleetError, FleetLaneQueue, conn, name, 7, [3, 1], [4, 2], 5, 2, 3)
    assert "TQCONFIG" in str(e) and "exists with capacity 6" in str(e)
    raises(ValueError, FleetLaneQueue, conn, name, None, [3, 1])  # weights need a capacity
    e = raises(FleetError, FleetLaneQueue, conn, fleet_server.fresh_name("none"))
    assert "TQNOQUEUE" in str(e)
    q.destroy()


def test_another_librarys_version_refuses_a_lane_queue_by_its_layout():
    host_only()
    srv = fleet_server.RedisServer().start()  # its own server: the libraries change here
    try:
        conn = srv.client()
        q = FleetLaneQueue(conn, "jobs", 4, [1, 1])
        q.push(3, 1, 1)
        fleetctl.install(conn, version=2)  # beside it, a library of another version
        keys = ["tq{jobs}:" + s for s in ("meta", "ready", "ids", "promo", "leased", "deliv", "wake", "dead",
                                          "idem", "idemt")]
        for op, args in (("push", [0, 0, 5, 1]), ("lpush", [0, 0, 5, 1, 0]), ("info", [])):
            e = raises(Exception, conn.execute_command, "FCALL", "tq2_" + op, 10, *(keys + args))
            assert "TQLAYOUT" in str(e) and "layout version 1:lanes" in str(e), e
        assert q.tickets() == [(3, 1, 0, False, 1)]
    finally:
        srv.close()


def test_dead_letters_leave_their_lane_and_free_its_bound():
    srv = host_only()
    q = FleetLaneQueue(srv.client(), fleet_server.fresh_name("ldead"), 8, [1, 1], [1, 4], 0, 0, 2)
    q.push(7, 2, 0)
    for n in (1, 2):
        assert q.pop(60000) == 7 and q.last_deliveries == n and q.last_lane == 0
        raises(LaneFull, q.push, 8, 2, 0)  # held while leased
        assert q.release(q.last_lease) == n  # 1 back, then 2 dead-lettered
    assert q.lane_info() == {"cursors": (0, 0, 1, 0), "queued": (0, 0), "held": (0, 0)}  # HIGH moved
    assert q.dead(5) == [(7, 2, 0, 2, 0)]  # with its lane (tests/test_fleet_dead.py)
    assert q.push(8, 2, 0) == 1
    q.destroy()

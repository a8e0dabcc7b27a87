# Dead letters keep their lane (host only: a real redis-server, or Valkey with
# TICKETQ_FLEET_SERVER=valkey). A ticket that exhausts its deliveries goes to the dead list
# with its class and its lane (a fixed lane queue's lane number, a keyed queue's key), and
# requeue (FleetQueue.requeue, one server call: revive / krevive) pushes it back into that
# lane as a push would: the lane's bound, max_lanes, and (keyed) a paused lane refuse it
# with push's words, nothing changed for the refused letter and the ones after it; a
# ceiling does not refuse (the ticket waits, as a pushed one does). Old letters, written
# before letters recorded their lane, are read and requeue to lane 0 / key 0 as before.
# Replay: an exception at every point of a requeue (redis-py and the board client), and a
# connection failure at every point, which the client answers by sending the same call
# again: the server replays its reply, never requeues twice, never loses a letter.
from support import IS_MICROPYTHON, raises, skip

if not IS_MICROPYTHON:
    import json
    import os
    import subprocess
    import sys

    import fleet_server
    from ticketq.core import QueueFull
    from ticketq.fleet import FleetLaneQueue, FleetQueue, LaneFull, LanePaused, LanesFull

    ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

LONG = 600000


def host():
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    srv = fleet_server.shared()
    srv.client().close()  # the library loaded
    return srv


def bury(q, job_id, cls, lane=None):
    # one dead letter: pushed, leased, released on its last delivery (max_deliveries 1)
    if lane is None:
        q.push(job_id, cls)
    else:
        q.push(job_id, cls, lane)
    assert q.pop(LONG) == job_id
    assert q.release(q.last_lease) == 2


def state(conn, q):
    # what a refused requeue must leave as it was (the replay records aside)
    return (q.tickets(), q.digest, conn.lrange(q.keys[7], 0, -1), len(q), q.info()["leased"],
            sorted((k, v) for k, v in conn.hgetall(q.keys[0]).items() if k != b"clients"),
            sorted(conn.hgetall(q.keys[-1]).items()) if getattr(q, "keyed", False) else None)


KEYS = ["a", 7, "07", "with space, and comma", "\u00e9t\u00e9 \u2603", "x" * 64, 0, 1073741823]


def test_keyed_dead_letters_keep_their_key_and_go_back_into_it():
    conn = host().client()
    q = FleetLaneQueue(conn, fleet_server.fresh_name("kdl"), 64, max_deliveries=1)
    for i, k in enumerate(KEYS):
        bury(q, 100 + i, i % 4, k)
    assert q.lane_info()["lanes"] == 0  # a dead letter leaves its lane: no lane left
    # read without taking them: the key as the server names it ("7" is lane 7)
    from ticketq_tools import fleetctl

    rows = fleetctl.dead_letters(conn, q)
    assert [(r["id"], r["lane"]) for r in rows] == [(100 + i, k) for i, k in enumerate(KEYS)]
    done, refused = q.requeue(3)
    assert refused is None
    assert [(t[0], t[1], t[3]) for t in done] == [(100 + i, i % 4, k) for i, k in enumerate(KEYS[:3])]
    seqs = [t[2] for t in done]
    assert seqs == list(range(len(KEYS), len(KEYS) + 3))  # new numbers, in order
    done, refused = q.requeue(100)
    assert refused is None and [t[3] for t in done] == KEYS[3:]
    assert q.info()["dead"] == 0 and q.requeue(5) == ([], None)
    # each ticket is in its own lane, with its class, and pops from there
    for i, k in enumerate(KEYS):
        assert q.lane(k)["queued"][i % 4] == 1, k
    got = {}
    for _ in KEYS:
        i = q.pop()
        got[i] = (q.last_lane, q.last_priority)
    assert got == dict((100 + i, (k, i % 4)) for i, k in enumerate(KEYS))
    # dead() takes letters with their keys
    bury(q, 9, 2, "zz")
    bury(q, 8, 1, 5)
    assert q.dead(10) == [(9, 2, len(KEYS) + 8, 1, "zz"), (8, 1, len(KEYS) + 9, 1, 5)]
    q.destroy()


def test_fixed_lane_dead_letters_keep_their_lane():
    conn = host().client()
    q = FleetLaneQueue(conn, fleet_server.fresh_name("fdl"), 16, [2, 1, 1], max_deliveries=1)
    for i, l in enumerate([2, 0, 1, 2]):
        bury(q, 10 + i, 1 + i % 2, l)
    assert q.lane_info()["held"] == (0, 0, 0)
    done, refused = q.requeue()
    assert refused is None and [(t[0], t[1], t[3]) for t in done] == [(10, 1, 2), (11, 2, 0), (12, 1, 1), (13, 2, 2)]
    assert q.lane_info()["queued"] == (1, 1, 2)
    assert sorted((t[0], t[4]) for t in q.tickets()) == [(10, 2), (11, 0), (12, 1), (13, 2)]
    bury(q, 11, 2, 0)
    assert q.dead() == [(11, 2, 5, 1, 0)]  # the requeued 11 (seq 5) popped first: lane 0 is FIFO
    q.destroy()


def test_plain_queue_letters_are_as_before():
    conn = host().client()
    q = FleetQueue(conn, fleet_server.fresh_name("pdl"), 4, max_deliveries=1)
    bury(q, 3, 3)
    bury(q, 4, 0)
    assert conn.lrange(q.keys[7], 0, -1) == [b"3 3 0 1", b"4 0 1 1"]  # no lane field
    assert q.requeue(1) == ([(3, 3, 2)], None)
    assert q.dead() == [(4, 0, 1, 1)]
    q.destroy()


def test_old_letters_without_a_lane_requeue_to_lane_0():
    # Letters written before letters recorded their lane ("<id> <class> <seq> <deliveries>")
    # stay readable; they requeue to lane 0 (key 0), as every letter did before.
    conn = host().client()
    k = FleetLaneQueue(conn, fleet_server.fresh_name("kold"), 8)
    f = FleetLaneQueue(conn, fleet_server.fresh_name("fold"), 8, [1, 1])
    p = FleetQueue(conn, fleet_server.fresh_name("pold"), 8)
    for q in (k, f, p):
        conn.rpush(q.keys[7], "21 2 5 8", "22 1 6 8")
    from ticketq_tools import fleetctl

    assert [r["lane"] for r in fleetctl.dead_letters(conn, k)] == [None, None]
    assert k.dead(1) == [(21, 2, 5, 8, None)] and f.dead(1) == [(21, 2, 5, 8, None)]
    assert p.dead(1) == [(21, 2, 5, 8)]
    assert k.requeue() == ([(22, 1, 0, 0)], None) and k.lane(0)["queued"][1] == 1
    assert f.requeue() == ([(22, 1, 0, 0)], None) and f.lane_info()["queued"] == (1, 0)
    assert p.requeue() == ([(22, 1, 0)], None) and p.tickets() == [(22, 1, 0, False)]
    for q in (k, f, p):
        q.destroy()


def test_a_refused_letter_and_the_ones_after_it_stay_dead():
    conn = host().client()
    q = FleetLaneQueue(conn, fleet_server.fresh_name("kref"), 6, max_deliveries=1, max_lanes=3)
    for i, key in enumerate(["ok", "full", "ok", "paused", "new"]):
        bury(q, 30 + i, 1, key)
    q.set_lane("full", bound=1)
    q.push(1, 0, "full")  # lane "full" at its bound
    # 1. the lane at its bound: push's words, the first letter requeued, the rest kept
    before = conn.lrange(q.keys[7], 1, -1)
    done, refused = q.requeue(10)
    assert [t[0] for t in done] == [30]
    assert type(refused) is LaneFull and str(refused) == "lane 'full' full (1 tickets)"
    e = raises(LaneFull, q.push, 31, 1, "full")
    assert str(e) == str(refused)  # the same words as a push's refusal
    assert conn.lrange(q.keys[7], 0, -1) == before  # the refused letter first, in order
    s = state(conn, q)
    assert q.requeue(10)[1] is not None and state(conn, q) == s  # refused again: nothing moved
    q.pop()  # "ok" pops first (its ring turn), then "full"'s ticket
    assert q.pop() == 1 and q.last_lane == "full"
    # 2. a paused lane refuses a dead letter (not a push)
    q.pause("paused")
    done, refused = q.requeue(10)
    assert [t[0] for t in done] == [31, 32]
    assert type(refused) is LanePaused and "lane 'paused' is paused" in str(refused)
    assert [int(x.split()[0]) for x in conn.lrange(q.keys[7], 0, -1)] == [33, 34]
    q.resume("paused")
    # 3. max_lanes lanes without the letter's key: LanesFull, as a push ("paused" makes
    # the third lane, "new" would be a fourth)
    done, refused = q.requeue(10)
    assert [t[0] for t in done] == [33] and type(refused) is LanesFull
    assert str(refused) == "no lane for key 'new': max_lanes (3) lanes exist"
    assert str(raises(LanesFull, q.push, 3, 0, "new")) == str(refused)
    # 4. the queue full: QueueFull
    while len(q) + q.info()["leased"] < 6:
        q.push(4, 0, "ok")
    assert q.lane_info()["lanes"] == 3
    done, refused = q.requeue(10)
    assert done == [] and type(refused) is QueueFull and str(refused) == "ticket queue full"
    assert [int(x.split()[0]) for x in conn.lrange(q.keys[7], 0, -1)] == [34]
    q.destroy()


def test_a_ceiling_does_not_refuse_a_letter():
    # as a push: the ticket is queued; it pops once the lane is under its ceiling
    conn = host().client()
    q = FleetLaneQueue(conn, fleet_server.fresh_name("kceil"), 8, max_deliveries=1)
    bury(q, 40, 2, "c")
    q.set_lane("c", ceiling=1)
    q.push(41, 2, "c")
    assert q.pop(LONG) == 41  # the lane at its ceiling: no longer serviceable
    done, refused = q.requeue()
    assert refused is None and [t[0] for t in done] == [40]
    assert q.lane("c")["queued"][2] == 1 and q.tickets() == []  # queued, not poppable yet
    assert q.ack(q.last_lease)
    assert q.pop() == 40 and q.last_lane == "c"
    q.destroy()


def test_fixed_lane_bound_refuses_with_push_words():
    conn = host().client()
    q = FleetLaneQueue(conn, fleet_server.fresh_name("fref"), 8, [1, 1], [8, 1], max_deliveries=1)
    bury(q, 50, 1, 1)
    q.push(51, 1, 1)
    s = state(conn, q)
    done, refused = q.requeue()
    assert done == [] and type(refused) is LaneFull
    assert str(refused) == str(raises(LaneFull, q.push, 52, 1, 1)) == "lane 1 full (1 tickets)"
    assert state(conn, q) == s
    q.destroy()


def test_bad_count_is_refused_before_sending():
    conn = host().client()
    q = FleetLaneQueue(conn, fleet_server.fresh_name("kbad"), 8)
    for bad, exc in ((0, ValueError), (1001, ValueError), ("3", TypeError), (None, TypeError)):
        raises(exc, q.requeue, bad)
    e = raises(Exception, conn.execute_command, "FCALL", "tq1_krevive", 12, *(q.keys + ["0", "0", "1001"]))
    assert "TQARG" in str(e) and "count" in str(e), e
    q.destroy()


# ---- replay: an exception, or a lost connection, at every point of a requeue


def _safety():
    import test_fleet_safety as s

    return s


def requeue_scenario(kind, board=False, lost=False):
    # Three letters (lanes "a", "b", "a"; fixed: 1, 0, 1), one requeue of all of them,
    # interrupted at point `at`. Each letter then exists exactly once: requeued (in its
    # lane) or still a dead letter, and a second requeue finishes the job. With `lost`
    # (a connection failure, which the client answers by sending the call again) the call
    # returns its whole answer: the server replayed it.
    s = _safety()

    def run(srv, points, at):
        c = s.injecting_resp(srv, points) if board else s.injecting_client(srv, points)
        name = fleet_server.fresh_name("irq")
        if kind == "keyed":
            q = FleetLaneQueue(c, name, 16, max_deliveries=1)
            lanes = ["a", "b", "a"]
        else:
            q = FleetLaneQueue(c, name, 16, [1, 1], max_deliveries=1)
            lanes = [1, 0, 1]
        for i, l in enumerate(lanes):
            bury(q, 60 + i, 1, l)
        hit, r = s.interrupted(points, at, q.requeue, 10)
        n = points.n
        if lost or not hit:
            assert r is not None and r[1] is None and [(t[0], t[3]) for t in r[0]] == list(zip((60, 61, 62), lanes)), (at, r)
        watch = FleetLaneQueue(srv.client(install=False), name)
        queued = sorted((t[0], t[4]) for t in watch.tickets())
        dead = [int(x.split()[0]) for x in srv.client(install=False).lrange(q.keys[7], 0, -1)]
        assert sorted([t[0] for t in queued] + dead) == [60, 61, 62], (at, queued, dead)
        assert queued in ([], sorted(zip((60, 61, 62), lanes))), (at, queued)
        done, refused = q.requeue(10)
        assert refused is None and len(done) == len(dead)
        assert sorted((t[0], t[4]) for t in watch.tickets()) == sorted(zip((60, 61, 62), lanes))
        assert [q.pop() for _ in range(3)] and len(q) == 0 and q.info()["dead"] == 0
        q.destroy()
        return n
    return run


def test_interrupt_at_every_point_of_a_requeue():
    host()
    s = _safety()
    for exc in (KeyboardInterrupt, s.Injected):
        s.every_point("krevive", requeue_scenario("keyed"), exc)
        s.every_point("revive", requeue_scenario("fixed"), exc)
        s.every_point("krevive board", requeue_scenario("keyed", board=True), exc)


def test_a_connection_lost_at_every_point_of_a_requeue_is_replayed():
    # builtin ConnectionError is an OSError: the client (redis-py's connection or the board
    # client) drops the connection and sends the same call, the same call number, again
    host()
    s = _safety()
    s.every_point("krevive lost", requeue_scenario("keyed", lost=True), ConnectionError)
    s.every_point("revive lost", requeue_scenario("fixed", lost=True), ConnectionError)
    s.every_point("krevive board lost", requeue_scenario("keyed", board=True, lost=True), ConnectionError)


def test_a_requeue_sent_again_is_replayed_not_run_twice():
    conn = host().client()
    q = FleetLaneQueue(conn, fleet_server.fresh_name("krep"), 8, max_deliveries=1)
    bury(q, 70, 1, "r")
    bury(q, 71, 2, "s")
    q.requeue(1)  # takes a client number
    call = ["FCALL", "tq1_krevive", 12] + q.keys + [q._client, 999, 1]
    first = conn.execute_command(*call)
    assert first[:2] == [0, 1] and first[2] == 71
    bury(q, 72, 3, "t")  # CRITICAL: it pops before the requeued ones
    assert conn.execute_command(*call) == first  # the same reply, nothing more requeued
    assert [int(x.split()[0]) for x in conn.lrange(q.keys[7], 0, -1)] == [72]
    q.destroy()


def test_fleetctl_dead_and_requeue_name_the_lane():
    srv = host()
    conn = srv.client()
    q = FleetLaneQueue(conn, fleet_server.fresh_name("kctl"), 8, max_deliveries=1)
    bury(q, 80, 3, "dev 1")
    bury(q, 81, 1, 12)

    def ctl(*a):
        p = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", "fleet"] + list(a) + ["--url", srv.url],
                           capture_output=True, text=True, timeout=60)
        return p.returncode, p.stdout, p.stderr

    code, out, _ = ctl("dead", q.name, "--json")
    assert code == 0 and [(r["id"], r["lane"]) for r in json.loads(out)] == [(80, "dev 1"), (81, 12)]
    code, out, _ = ctl("dead", q.name)
    assert out.splitlines() == ["80 CRITICAL seq=0 lane=dev 1 deliveries=1", "81 NORMAL seq=1 lane=12 deliveries=1"]
    q.pause(12)
    code, out, err = ctl("requeue", q.name)
    assert code == 1 and "lane 12 is paused" in err and "requeued 1 dead letters" in err, err
    assert out == "requeued 80 CRITICAL seq=2 lane=dev 1\n", out  # printed before the refusal
    assert q.dead(5) == [(81, 1, 1, 1, 12)]
    assert [t[0] for t in q.tickets()] == [80] and q.lane("dev 1")["queued"][3] == 1
    q.destroy()

# Host only (CPython): the oldest queued ticket's age (issue 22), fleet/age.lua's marks read
# through FleetQueue.oldest_age, fleetctl stats (text and --json) and the exporter's gauge,
# against a real redis-server (tests/fleet_server.py). Push and pop are not touched: the
# marks are written by the age calls only, at most one a second of server time, at most 64.
from support import IS_MICROPYTHON, skip

if not IS_MICROPYTHON:
    import os
    import sys
    import time


def _setup():
    if IS_MICROPYTHON:
        skip("host only: a real redis-server")
    import fleet_server

    return fleet_server.shared().client()


def _ms(conn):
    t = conn.time()
    return int(t[0]) * 1000 + int(t[1]) // 1000


def _marks(conn, q):
    v = conn.hget(q.keys[0], "am")
    return [tuple(int(x) for x in m.split(":")) for m in v.decode().split()] if v else []


def test_age_bounds_hold_by_the_server_clock():
    from ticketq.fleet import FleetQueue

    conn = _setup()
    q = FleetQueue(conn, "age-bounds", 10)
    q.destroy()
    q = FleetQueue(conn, "age-bounds", 10)
    assert q.oldest_age() is None  # nothing queued (and a first mark is taken)
    assert len(_marks(conn, q)) == 1
    assert q.oldest_age() is None
    assert len(_marks(conn, q)) == 1  # less than 1 s later: no second mark
    time.sleep(1.05)
    t0 = _ms(conn)
    q.push(1, 1)  # pushed after the first mark, before the second
    t1 = _ms(conn)
    time.sleep(1.05)
    a = q.oldest_age()  # second mark now
    t2 = _ms(conn)
    assert len(_marks(conn, q)) == 2
    lo, hi = a
    assert hi is not None and 0 <= lo <= t2 - t0 and hi >= a[0]
    assert lo == 0  # no mark after its push but the one just taken
    time.sleep(1.05)  # a third mark: the push lies between marks 1 and 2
    assert q.oldest_age()[1] is not None
    # the bound, exactly: the true age (t - push time) lies in [lo, hi] at the call's time
    push_lo, push_hi = t0, t1  # the push happened in [t0, t1] by the server's clock
    call = _ms(conn)
    lo, hi = q.oldest_age()
    after = _ms(conn)
    assert lo <= after - push_lo and hi >= call - push_hi, (lo, hi, call, after, push_lo, push_hi)
    assert hi - lo >= 1000  # two marks a second apart at least
    # the oldest goes, the next one is measured: pushed after the latest mark
    q.push(2, 1)
    q.pop()
    lo, hi = q.oldest_age()
    assert hi is not None and lo == 0 and hi < 5000
    q.pop()
    assert q.oldest_age() is None
    q.destroy()


def test_marks_are_bounded_and_thinned_evenly():
    # 80 marks one second apart, written as the server would have (synthetic times in the
    # past): the next age call keeps 64, and the bounds still bracket the ticket.
    from ticketq.fleet import FleetQueue

    conn = _setup()
    q = FleetQueue(conn, "age-thin", 200)
    q.destroy()
    q = FleetQueue(conn, "age-thin", 200)
    now = _ms(conn)
    marks = []
    for k in range(80):  # mark k: k pushes so far, (100 - k) s ago
        marks.append("0:%d:%d" % (k, now - (100 - k) * 1000))
    for i in range(80):
        q.push(i, 1)
    conn.hset(q.keys[0], "am", " ".join(marks))
    for _ in range(30):  # the oldest 30 go: marks at or below the oldest ticket's go first
        q.pop()
    lo, hi = q.oldest_age()  # ticket 30 (counter 30): between marks 30 and 31
    m = _marks(conn, q)
    assert len(m) == 64
    assert [c for _, c, _ in m] == sorted(c for _, c, _ in m)
    # 81 marks (the 80 and the call's own): the oldest 17 go, each with the next one still at
    # or below the oldest ticket's counter (30): no queued ticket needed them
    assert m[0][1] == 17 and m[-1][1] == 80
    assert 70000 - 2000 <= hi <= 70000 + 2000 and 69000 - 2000 <= lo <= 69000 + 2000, (lo, hi)
    assert lo <= hi
    q.destroy()
    # every mark above the oldest ticket: the inner mark whose removal leaves the smallest
    # gap goes, so the gaps stay even (none more than two of the old ones)
    q = FleetQueue(conn, "age-thin", 200)
    q.push(1, 1)  # counter 0
    now = _ms(conn)
    conn.hset(q.keys[0], "am", " ".join("0:%d:%d" % (k, now - (100 - k) * 1000) for k in range(1, 81)))
    lo, hi = q.oldest_age()
    m = _marks(conn, q)
    assert len(m) == 64 and m[0][1] == 1 and m[-1][1] == 1  # the first kept; the call's own last
    gaps = [b[2] - a[2] for a, b in zip(m, m[1:])]
    assert max(gaps[:-1]) <= 2000, gaps
    assert hi is None and 99000 - 2000 <= lo <= 99000 + 2000  # pushed before the first mark
    q.destroy()


def test_lane_queue_and_stats_and_gauge():
    conn = _setup()
    import json
    import subprocess

    from ticketq.fleet import FleetLaneQueue

    import fleet_server
    from ticketq_tools import fleetctl

    q = FleetLaneQueue(conn, "age-lanes", 50, [2, 1])
    q.destroy()
    q = FleetLaneQueue(conn, "age-lanes", 50, [2, 1])
    q.push(5, 0, 1)  # LOW, lane 1: the oldest, though it pops last
    q.push(6, 3, 0)
    lo, hi = q.oldest_age()
    assert lo == 0 and hi is None  # older than the first mark
    s = fleetctl.stats(conn, q)
    assert s["oldest_age_ms"]["min"] >= 0 and s["oldest_age_ms"]["max"] is None
    srv = fleet_server.shared()
    tool = "fleet"
    p = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", tool, "stats", "age-lanes", "--url", srv.url, "--json"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    j = json.loads(p.stdout)
    assert set(j["oldest_age_ms"]) == {"min", "max"}
    p = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", tool, "stats", "age-lanes", "--url", srv.url],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "oldest queued ticket: " in p.stdout, p.stdout
    # the exporter's gauge: seconds, the lower bound
    from prometheus_client import CollectorRegistry, generate_latest
    from ticketq_tools import fleetmetrics

    reg = CollectorRegistry()
    reg.register(fleetmetrics.QueueCollector(conn, ["age-lanes"], ctl=fleetctl))
    text = generate_latest(reg).decode()
    line = [l for l in text.splitlines() if l.startswith('ticketq_oldest_age_seconds{queue="age-lanes"}')]
    assert len(line) == 1 and float(line[0].split()[-1]) >= 0.0, text
    q.pop()
    q.pop()
    reg2 = CollectorRegistry()
    reg2.register(fleetmetrics.QueueCollector(conn, ["age-lanes"], ctl=fleetctl))
    assert "ticketq_oldest_age_seconds{" not in generate_latest(reg2).decode()  # nothing queued
    assert fleetctl.stats(conn, q)["oldest_age_ms"] is None
    q.destroy()


def test_keyed_lane_queue_age_stats_and_gauge():
    # A keyed lane queue's client sends its twelve keys to tq1_age: age.lua took ten only, so
    # oldest_age, fleetctl stats (and so the dashboard's panel and the exporter) failed on
    # every keyed queue with "TQARG ticketq: expected 10 keys, got 12".
    conn = _setup()
    import json
    import subprocess

    from ticketq.fleet import FleetLaneQueue

    import fleet_server
    from ticketq_tools import fleetctl

    q = FleetLaneQueue(conn, "age-keyed", 50)
    q.destroy()
    q = FleetLaneQueue(conn, "age-keyed", 50)
    assert q.keyed and q.oldest_age() is None  # nothing queued
    q.push(5, 0, "sensor-a")  # LOW: the oldest, though it pops last
    q.push(6, 3, 7)
    before = (q.tickets(), q.digest, len(q))
    lo, hi = q.oldest_age()
    assert lo >= 0 and (hi is None or hi >= lo)
    assert (q.tickets(), q.digest, len(q)) == before  # a read: nothing moved
    time.sleep(1.05)
    lo2, hi2 = q.oldest_age()
    assert lo2 >= 1000 or (hi2 is not None and hi2 >= 1000), (lo2, hi2)
    s = fleetctl.stats(conn, q)
    assert s["kind"] == "keyed" and s["queued"] == 2 and set(s["oldest_age_ms"]) == {"min", "max"}
    srv = fleet_server.shared()
    tool = "fleet"
    p = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", tool, "stats", "age-keyed", "--url", srv.url, "--json"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["oldest_age_ms"]["min"] >= 0
    p = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", tool, "stats", "age-keyed", "--url", srv.url],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "oldest queued ticket: " in p.stdout, (p.stdout, p.stderr)
    from prometheus_client import CollectorRegistry, generate_latest
    from ticketq_tools import fleetmetrics

    reg = CollectorRegistry()
    reg.register(fleetmetrics.QueueCollector(conn, ["age-keyed"], ctl=fleetctl))
    text = generate_latest(reg).decode()
    line = [l for l in text.splitlines() if l.startswith('ticketq_oldest_age_seconds{queue="age-keyed"}')]
    assert len(line) == 1 and float(line[0].split()[-1]) >= 0.0, text
    # a lease that runs out gives its ticket back first, as for the other kinds
    assert q.pop(1) == 6
    time.sleep(0.01)
    assert q.oldest_age() is not None and q.info()["leased"] == 0
    q.pop()
    q.pop()
    assert q.oldest_age() is None and fleetctl.stats(conn, q)["oldest_age_ms"] is None
    q.destroy()


def test_keyed_age_reads_a_bounded_number_of_lanes():
    # One age call on a keyed queue reads at most 256 (class, lane) heads per class, the
    # lanes made first: with more lanes in a class, max is None ("at least min", a lower
    # bound), and with 256 or fewer both bounds are known again. A walk of every head held
    # the server 0.7 to 1.9 s at 100,000 lanes on each call.
    conn = _setup()
    from ticketq.fleet import FleetLaneQueue

    q = FleetLaneQueue(conn, "age-keyed-many", 1000)
    q.destroy()
    q = FleetLaneQueue(conn, "age-keyed-many", 1000)
    assert q.oldest_age() is None  # the first mark, before every push
    time.sleep(1.05)
    for k in range(300):
        q.push(k, 1, k)
        q.push(1000 + k, 1, k)
    calls = conn.info("commandstats").get("cmdstat_zrangebyscore", {}).get("calls", 0)
    lo, hi = q.oldest_age()
    n = conn.info("commandstats").get("cmdstat_zrangebyscore", {}).get("calls", 0) - calls
    assert n <= 4 * 257 + 4, n  # at most 257 a class (the 257th says "more"), whatever the lanes
    assert lo >= 0 and hi is None, (lo, hi)  # 300 lanes of NORMAL: a lower bound only
    for k in range(256, 300):
        q.remove(k)
        q.remove(1000 + k)
    lo, hi = q.oldest_age()
    assert hi is not None and 0 <= lo <= hi, (lo, hi)  # 256 lanes: every head read, both known
    q.destroy()


def test_oldest_head_needs_the_high_words_to_tie():
    # age.lua's before(): of the ready heads, the oldest is the least (hi, lo) pair; lo
    # decides only when the hi words tie. The older ticket (hi h, lo 2**30 - 1, HIGH) is
    # the head read first, the younger (hi h + 1, lo 0, LOW) after it: a comparison that
    # lets lo decide whatever the hi words (issue 34 #6) takes the younger one, and its
    # marks say "pushed after t2" where the oldest was pushed between t1 and t2.
    conn = _setup()
    import fleet_server
    from ticketq.fleet import FleetQueue

    for hi in (0, 2 ** 31 - 1):
        q = FleetQueue(conn, fleet_server.fresh_name("agehw"), 8)
        conn.hset(q.keys[0], mapping={"hi": hi, "lo": (1 << 30) - 1})
        q.push(1, 2)  # counter (hi, 2**30 - 1)
        q.push(2, 0)  # counter (hi + 1, 0): after the carry
        now = _ms(conn)
        # mark 1 (100 s ago): the next push would take (hi, 2**30 - 1): ticket 1 came after;
        # mark 2 (50 s ago): the next push would take (hi + 1, 0): 1 came before, 2 after
        conn.hset(q.keys[0], "am", "%d:%d:%d %d:0:%d" % (hi, (1 << 30) - 1, now - 100000,
                                                         hi + 1, now - 50000))
        lo, top = q.oldest_age()
        assert 50000 <= lo <= top and 100000 <= top <= 100000 + 60000, (hi, lo, top)
        assert lo <= 50000 + 60000, (hi, lo, top)
        q.destroy()

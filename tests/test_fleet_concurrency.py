# Host only (CPython and a real redis-server): several producer and consumer processes on
# one fleet queue at once, redis-py and the board client (ticketq.resp) mixed. Nothing is
# lost, nothing is delivered twice while its lease holds (the leases here outlast the
# test, so every ticket is delivered exactly once), each class is FIFO for each producer
# in the server's order of pops, the capacity is never passed (producers meet QueueFull
# and wait: backpressure), and the server's pop numbers are one gapless total order.
from support import IS_MICROPYTHON, skip

if not IS_MICROPYTHON:
    import os
    import subprocess
    import sys
    import threading
    import time

    import fleet_server
    from ticketq.fleet import FleetQueue

    PROCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fleet_procs.py")


def spawn(*args):
    return subprocess.Popen([sys.executable, PROCS] + [str(a) for a in args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def lines(p, timeout=120):
    out, err = p.communicate(timeout=timeout)
    assert p.returncode == 0, err
    return [l.split() for l in out.splitlines()]


def test_producers_and_consumers_at_once():
    if IS_MICROPYTHON:
        skip("starts a redis-server and processes (host only)")
    srv = fleet_server.shared()
    conn = srv.client()
    cap, producers, count = 24, 3, 80
    q = FleetQueue(conn, fleet_server.fresh_name("conc"), cap)
    seen_over = []
    stop = []

    def watch():  # the capacity is never passed, queued and leased together
        while not stop:
            i = q.info()
            if i["queued"] + i["leased"] > cap:
                seen_over.append(i)
            time.sleep(0.002)

    w = threading.Thread(target=watch)
    w.start()
    prods = [spawn("produce", srv.port, q.name, ("resp", "redis-py")[p % 2], p + 1, count)
             for p in range(producers)]
    # The consumers start once the queue is full: the producers (240 tickets for 24 slots)
    # must meet QueueFull whatever the machine's speed, then go on as consumers make room.
    t0 = time.monotonic()
    while not q.full():
        assert time.monotonic() - t0 < 60, "the producers never filled the queue"
        time.sleep(0.01)
    consumers = [spawn("consume", srv.port, q.name, kind, 600000, 4000)
                 for kind in ("redis-py", "resp", "redis-py", "resp")]
    pushed, refused = [], 0
    for p in prods:
        for l in lines(p):
            if l[0] == "pushed":
                pushed.append(tuple(int(x) for x in l[1:]))
            else:
                refused += int(l[1])
    got = []
    for c in consumers:
        got += [tuple(int(x) for x in l[1:]) for l in lines(c) if l[0] == "got"]
    stop.append(1)
    w.join()
    assert not seen_over, seen_over[:3]
    assert refused > 0  # the queue filled: producers waited on QueueFull
    # nothing lost, nothing twice
    assert len(pushed) == producers * count
    assert sorted(g[0] for g in got) == sorted(t[0] for t in pushed)
    assert all(g[4] == 1 and g[5] == 1 for g in got)  # first delivery, acked
    # the server's pop numbers: a gapless total order over all consumers
    got.sort(key=lambda g: g[3])
    base = got[0][3]
    assert [g[3] - base for g in got] == list(range(len(got)))
    # each ticket popped with the class and sequence number its push got
    assert {g[0]: (g[1], g[2]) for g in got} == {t[0]: (t[1], t[2]) for t in pushed}
    # FIFO within each class for each producer, in the server's order of pops
    for p in range(1, producers + 1):
        for c in range(4):
            mine = [g[0] for g in got if g[0] // 100000 == p and g[1] == c]
            assert mine == sorted(mine), (p, c)
    assert len(q) == 0 and q.info()["leased"] == 0
    q.destroy()

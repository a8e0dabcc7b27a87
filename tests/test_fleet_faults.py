# Host only (CPython and a real redis-server): faults.
# - A consumer SIGKILLed mid-job (sidekiq#6829, resque#93: BRPOP loses in-flight work):
#   its ticket comes back when the lease runs out, in its original place, and is
#   delivered again with its count raised.
# - redis-server itself SIGKILLed and restarted, with the AOF on (appendfsync always):
#   nothing acknowledged reappears (acked tickets stay gone, acknowledged pushes stay),
#   nothing queued or leased is lost, the digest and the counter go on, and the library
#   is still loaded (functions are part of the dataset).
from support import IS_MICROPYTHON, skip

if not IS_MICROPYTHON:
    import os
    import signal
    import subprocess
    import sys
    import time

    import fleet_server
    from ticketq.ticks import Deadline
    from ticketq.fleet import FleetQueue

    HERE = os.path.dirname(os.path.abspath(__file__))


def test_killed_consumer_ticket_comes_back_in_its_place():
    if IS_MICROPYTHON:
        skip("starts a redis-server and processes (host only)")
    srv = fleet_server.shared()
    q = FleetQueue(srv.client(), fleet_server.fresh_name("kill"), 8)
    for i in (1, 2, 3):
        q.push(i, 1)
    q.push(4, 0)
    p = subprocess.Popen([sys.executable, os.path.join(HERE, "fleet_procs.py"), "hold", str(srv.port), q.name,
                          "resp", "3000"], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().split() == ["holding", "1", "0"]
        p.send_signal(signal.SIGKILL)  # mid-job: popped, leased, never acked
        p.wait(10)
    finally:
        if p.poll() is None:
            p.kill()
    # While the lease holds, the others go on without it.
    assert q.pop(60000) == 2
    assert q.ack(q.last_lease)
    assert [t[0] for t in q.tickets()] == [3, 4] and q.info()["leased"] == 1
    # Then it comes back: before 3 (pushed after it), with its sequence number.
    d = Deadline(20000)
    while q.info()["leased"] and not d.expired():  # the server's clock ends the lease
        time.sleep(0.05)
    assert q.tickets() == [(1, 1, 0, False), (3, 1, 2, False), (4, 0, 3, False)]
    assert q.pop_until(d, 60000) == 1
    assert (q.last_seq, q.last_priority, q.last_deliveries) == (0, 1, 2)
    assert q.ack(q.last_lease)
    assert [q.pop(), q.pop()] == [3, 4]


def test_redis_restart_with_aof_keeps_every_acknowledged_write():
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    with fleet_server.RedisServer(appendonly=True) as srv:
        conn = srv.client()
        q = FleetQueue(conn, "jobs", 64, aging=3)
        for k in range(20):
            q.push(k, k % 4)
        acked = []
        for _ in range(5):
            acked.append(q.pop(600000))
            assert q.ack(q.last_lease)
        held = []
        for _ in range(3):
            q.pop(600000)
            held.append((q.last_lease, q.last_seq))
        q.pop()
        q.pop()
        before = (q.tickets(), q.digest, q.info())
        seq_next = q.push(99, 3)
        assert q.remove(99)
        srv.restart(signal.SIGKILL)  # a crash, not a clean shutdown
        conn = srv.client(install=False)  # the library must still be there
        q = FleetQueue(conn, "jobs")
        assert (q.tickets(), q.digest) == before[:2]
        after = q.info()
        assert after["leased"] == 3 and after["queued"] == before[2]["queued"]
        assert not set(acked) & set(t[0] for t in q.tickets())  # nothing acked came back
        for token, _ in held:
            assert q.ack(token)  # the leases survived, and are still acked once
        assert q.push(98, 3) == seq_next + 1  # the counter went on, no number reused


def test_the_server_is_the_one_asked_for():
    # tools/test runs these modules against Valkey too (TICKETQ_FLEET_SERVER=valkey): check
    # that the server under test is the one named, so a Valkey stage cannot pass on Redis.
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    info = fleet_server.shared().client(install=False).info("server")
    if fleet_server.server_kind() == "valkey":
        assert info.get("server_name") == "valkey" and "valkey_version" in info, info
    else:
        assert "valkey_version" not in info and info.get("server_name") != "valkey", info

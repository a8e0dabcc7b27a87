# Host only (CPython and a real redis-server): FleetQueue.pop_until(deadline), the blocking
# pop. It waits in the server (BLPOP on the queue's wake key), each wait recomputed from
# deadline.remaining() and cut to the next lease expiry, so it neither polls nor sleeps
# past its deadline; a waiter that dies or is interrupted loses no ticket.
# The "no busy loop" checks count the server's commands (INFO commandstats), not time, so
# a slow machine cannot fail them.
from support import IS_MICROPYTHON, raises, skip

if not IS_MICROPYTHON:
    import threading
    import time

    import fleet_server
    from ticketq.ticks import Deadline
    from ticketq.fleet import FleetQueue
    from ticketq.ticks import Timeout


def setup(cap=8, **kw):
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    srv = fleet_server.shared()
    q = FleetQueue(srv.client(), fleet_server.fresh_name("wait"), cap, **kw)
    return srv, q


def calls(srv):
    s = srv.client(install=False).info("commandstats")
    return s.get("cmdstat_fcall", {}).get("calls", 0), s.get("cmdstat_blpop", {}).get("calls", 0)


def test_a_queued_ticket_is_returned_at_once():
    srv, q = setup()
    q.push(4, 1)
    assert q.pop_until(Deadline(0)) == 4  # even with a deadline already due
    raises(Timeout, q.pop_until, Deadline(0))


def test_timeout_waits_in_the_server_without_polling():
    srv, q = setup(slice_ms=5000)
    f0, b0 = calls(srv)
    t0 = time.monotonic()
    e = raises(Timeout, q.pop_until, Deadline(400))
    waited = time.monotonic() - t0
    f1, b1 = calls(srv)
    assert waited >= 0.35  # the deadline's 400 ms (ticks are whole ms; BLPOP's own timer)
    assert b1 - b0 <= 3 and f1 - f0 <= 4, (b1 - b0, f1 - f0)  # one wait, and a last look or two
    assert isinstance(e, Timeout)


def test_a_push_wakes_the_waiter():
    srv, q = setup(slice_ms=20000)
    other = FleetQueue(srv.client(), q.name)
    threading.Timer(0.2, other.push, (11, 3)).start()
    f0, b0 = calls(srv)
    assert q.pop_until(Deadline(60000), 60000) == 11
    f1, b1 = calls(srv)
    assert b1 - b0 <= 2, b1 - b0  # woken by the push, not by a timeout: no second wait needed
    assert q.ack(q.last_lease)


def test_slices_when_the_deadline_is_far_or_never():
    srv, q = setup(slice_ms=100)
    other = FleetQueue(srv.client(), q.name)
    f0, b0 = calls(srv)

    def push_after_three_waits():  # whatever the machine's speed
        while calls(srv)[1] - b0 < 3:
            time.sleep(0.01)
        other.push(12, 0)

    t = threading.Thread(target=push_after_three_waits)
    t.start()
    assert q.pop_until(Deadline(None)) == 12  # never expires: waits in 100 ms slices
    t.join()
    f1, b1 = calls(srv)
    assert b1 - b0 >= 3
    assert f1 - f0 <= b1 - b0 + 3  # one pop per slice (and the pushes): no loop of polls


def test_an_expiring_lease_wakes_the_waiter():
    srv, q = setup(slice_ms=60000)
    other = FleetQueue(srv.client(), q.name)
    q.push(13, 2)
    assert other.pop(300) == 13  # leased for 300 ms and never acked
    f0, b0 = calls(srv)
    assert q.pop_until(Deadline(60000)) == 13  # the wait was cut to the lease's expiry
    assert q.last_deliveries == 2
    f1, b1 = calls(srv)
    assert b1 - b0 <= 3


def test_many_waiters_each_get_one_ticket():
    # The single wake token is passed on by each claim that leaves work behind: four
    # waiters, four pushes in a burst, four tickets claimed, none waits out its deadline.
    srv, q = setup(slice_ms=30000)
    got = []
    lock = threading.Lock()

    def waiter():
        w = FleetQueue(srv.client(), q.name, slice_ms=30000)
        try:
            i = w.pop_until(Deadline(20000))
        except Timeout:
            i = None
        with lock:
            got.append(i)

    ts = [threading.Thread(target=waiter) for _ in range(4)]
    for t in ts:
        t.start()
    time.sleep(0.3)
    for i in range(4):
        q.push(20 + i, 1)
    t0 = time.monotonic()
    for t in ts:
        t.join(30)
    assert sorted(got) == [20, 21, 22, 23]
    assert time.monotonic() - t0 < 19  # nobody waited for its deadline


def test_a_killed_waiter_loses_nothing():
    srv, q = setup()
    import subprocess
    import sys

    code = ("import sys; sys.path[:0] = %r\n"
            "import redis, ticketq.fleet, ticketq.ticks\n"
            "q = ticketq.fleet.FleetQueue(redis.Redis(port=%d), %r)\n"
            "print('waiting', flush=True)\n"
            "q.pop_until(ticketq.ticks.Deadline(None), 60000)\n" % (sys.path, srv.port, q.name))
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "waiting"
        time.sleep(0.3)  # blocked in BLPOP (or about to be)
        p.kill()
        p.wait(10)
    finally:
        if p.poll() is None:
            p.kill()
    q.push(14, 1)
    assert q.pop_until(Deadline(5000)) == 14


def test_an_expired_lease_wakes_no_blocked_waiter_it_is_noticed_within_slice_ms():
    # What docs/fleet-delivery.md says: nothing runs in the server when a lease runs out, so a waiter
    # already blocked when the lease was taken is not woken by its expiry; it notices at the
    # end of its current wait, at most slice_ms later.
    srv, q = setup(slice_ms=1500)
    got = []
    waiter = threading.Thread(target=lambda: got.append(q.pop_until(Deadline(20000))))
    waiter.start()
    c = srv.client()
    while not [x for x in c.client_list() if "b" in x["flags"] and x["cmd"] == "blpop"]:
        time.sleep(0.01)  # until the waiter is blocked in its BLPOP
    # Another consumer's push and 100 ms lease, taken with no wake token left behind (as when
    # it is taken between the waiter's pop and its BLPOP), atomically.
    p = c.pipeline(transaction=True)
    p.execute_command("FCALL", "tq1_push", 10, *(q.keys + [0, 0, 13, 2]))
    p.execute_command("FCALL", "tq1_pop", 10, *(q.keys + [0, 0, 100]))
    p.delete(q.keys[6])
    p.execute()
    time.sleep(0.6)  # the lease ran out 0.5 s ago
    assert got == [] and waiter.is_alive()  # not woken by it
    waiter.join(10)
    assert got == [13] and q.last_deliveries == 2  # noticed when the slice ended


def test_each_wait_is_cut_below_the_connections_socket_timeout():
    # slice_ms (2 s) must stay below the socket timeout, else every BLPOP times out on the
    # client's side and is retried (FleetQueue's retries times redis-py's 10, with backoff):
    # pop_until(Deadline(1000)) on a redis-py client with socket_timeout=0.5 raised
    # redis' TimeoutError after ~40 s. Each wait is cut below the connection's own timeout
    # (redis-py's socket_timeout, ticketq.resp's timeout), so the deadline holds.
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    srv = fleet_server.shared()
    srv.client()  # the library loaded
    name = fleet_server.fresh_name("sockto")
    for conn in (srv.client(install=False, socket_timeout=0.5), srv.resp(timeout=0.5)):
        q = FleetQueue(conn, name, 4)
        t = time.time()
        raises(Timeout, q.pop_until, Deadline(1500))
        took = time.time() - t
        assert 1.4 < took < 5, took
        q.push(3, 1)  # the connection still answers
        assert q.pop_until(Deadline(1000)) == 3

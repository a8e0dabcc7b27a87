# Host only (CPython and a real redis-server): dropped connections. A call whose reply is
# lost (the server ran it) is sent again with the same client and call number, and the
# server replays its reply: no ticket is pushed twice, no pop takes a second ticket, and
# a pop that still got no answer is answered by the next pop, with the same ticket.
# Checked through a proxy that really drops the TCP connection before the reply, for
# redis-py and for the board client (ticketq.resp) on CPython; test_fleet_board.py does
# the same on the MicroPython unix port.
from support import IS_MICROPYTHON, raises, skip

if not IS_MICROPYTHON:
    import redis

    import fleet_server
    import ticketq.resp as tqresp
    from ticketq.fleet import FleetQueue


def setup(kind):
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    srv = fleet_server.shared()
    srv.client()  # the library loaded
    proxy = fleet_server.DropProxy(srv.port)
    if kind == "resp":
        conn = tqresp.Redis("127.0.0.1", proxy.port)
    else:
        # redis-py's own retries are turned off here, so that the queue's are what is tested
        conn = redis.Redis(host="127.0.0.1", port=proxy.port, retry_on_error=[],
                           retry=redis.retry.Retry(redis.backoff.NoBackoff(), 0))
    return srv, proxy, conn


def drop_next(conn):
    assert conn.execute_command("ECHO", fleet_server.DropProxy.MARK) == fleet_server.DropProxy.MARK


def check_lost_replies_are_replayed(kind):
    srv, proxy, conn = setup(kind)
    try:
        q = FleetQueue(conn, fleet_server.fresh_name("drop"), 8)
        drop_next(conn)
        assert q.push(1, 1) == 0  # reply lost, sent again, replayed
        assert q.push(2, 1) == 1
        assert [t[0] for t in q.tickets()] == [1, 2]  # pushed once each
        drop_next(conn)
        assert q.pop(60000) == 1
        assert q.last_deliveries == 1  # replayed, not leased a second time
        assert [t[0] for t in q.tickets()] == [2] and q.info()["leased"] == 1
        assert q.ack(q.last_lease)
        drop_next(conn)
        assert q.remove(2) and len(q) == 0
        # dead() takes the letters it returns: a lost reply is replayed, not a letter lost.
        d = FleetQueue(conn, fleet_server.fresh_name("dropd"), 8, 0, 0, 1)
        d.push(8, 3)
        d.pop(60000)
        assert d.release(d.last_lease) == 2  # delivered once, max_deliveries 1: a dead letter
        drop_next(conn)
        assert d.dead(5) == [(8, 3, 0, 1)]
        assert d.dead(5) == [] and d.info()["dead"] == 0
        assert proxy.dropped == 4
    finally:
        proxy.close()


def test_lost_replies_are_replayed_redis_py():
    check_lost_replies_are_replayed("redis-py")


def test_lost_replies_are_replayed_board_client():
    check_lost_replies_are_replayed("resp")


def test_unanswered_pop_is_answered_by_the_next_pop():
    srv, proxy, conn = setup("resp")
    try:
        q = FleetQueue(conn, fleet_server.fresh_name("pend"), 8, retries=0)
        q.push(5, 2)
        q.push(6, 2)
        drop_next(conn)
        raises(OSError, q.pop)  # no retries left: the caller sees the network error
        assert q.push(7, 0) == 2  # another kind of call in between
        assert q.pop() == 5  # the ticket the lost reply carried, not a second one
        assert [t[0] for t in q.tickets()] == [6, 7]
        assert conn.connects == 2  # connected again after the drop
    finally:
        proxy.close()


def test_interrupted_pop_loses_no_ticket():
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    srv = fleet_server.shared()
    conn = fleet_server.Interrupting(srv.client(), "pop")
    q = FleetQueue(conn, fleet_server.fresh_name("intr"), 8)
    q.push(3, 1)
    q.push(4, 1)
    conn.armed = True
    raises(KeyboardInterrupt, q.pop)  # the server popped 3; the caller never saw it
    assert q.pop() == 3  # the next pop hands it over
    assert q.pop() == 4

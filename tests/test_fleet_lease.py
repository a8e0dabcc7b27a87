# Host only (CPython and a real redis-server): leases. A leased ticket counts against the
# capacity, comes back to its ORIGINAL place when its lease runs out (not at the back of
# its class, not in another class: BullMQ #1915/#1929, bull #1925), is delivered again
# with its count raised, goes to the dead-letter list after max_deliveries, and a late
# ack of a lease that ran out changes nothing (the delivery count fences the token).
# Expiry is the server's TIME: a test shortens a lease with touch(token, 1) and waits a
# little longer than that, so a slow machine only makes the wait longer, never the result
# different.
import time

from support import IS_MICROPYTHON, raises, skip

if not IS_MICROPYTHON:
    import fleet_server
    from ticketq import QueueFull, QueueEmpty
    from ticketq.fleet import FleetQueue

LONG = 600000  # a lease that does not run out during a test


def queue(cap=8, **kw):
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    srv = fleet_server.shared()
    return FleetQueue(srv.client(), fleet_server.fresh_name("lease"), cap, **kw)


def expire(q, token):
    # Let a held lease run out now (the server's clock decides; 1 ms from now).
    assert q.touch(token, 1)
    time.sleep(0.02)


def test_expired_lease_comes_back_to_its_original_place():
    q = queue()
    for i, c in [(1, 1), (2, 1), (3, 1), (4, 2), (5, 0)]:
        q.push(i, c)
    assert q.pop(LONG) == 4  # HIGH first
    t4 = q.last_lease
    assert q.pop(LONG) == 1
    t1 = q.last_lease
    assert q.pop(LONG) == 2
    t2 = q.last_lease
    assert [t[0] for t in q.tickets()] == [3, 5]
    expire(q, t2)
    expire(q, t1)
    expire(q, t4)
    # Back in class and sequence order, ahead of 3 (pushed after them), 4 still HIGH.
    assert q.tickets() == [(4, 2, 3, False), (1, 1, 0, False), (2, 1, 1, False), (3, 1, 2, False),
                           (5, 0, 4, False)]
    assert q.pop() == 4 and q.last_deliveries == 2 and q.last_seq == 3  # this delivery included
    assert q.pop(LONG) == 1 and q.last_deliveries == 2  # its second delivery
    assert q.ack(q.last_lease)
    assert [q.pop(), q.pop(), q.pop()] == [2, 3, 5]


def test_leased_tickets_count_against_capacity():
    q = queue(2)
    q.push(1, 0)
    q.push(2, 0)
    assert q.pop(LONG) == 1
    tok = q.last_lease
    assert len(q) == 1 and q.full()
    raises(QueueFull, q.push, 3, 3)  # the leased ticket may come back: no room for 3
    assert q.ack(tok)
    assert not q.full()
    assert q.push(3, 3) == 2


def test_late_ack_is_fenced_and_changes_nothing():
    q = queue()
    q.push(7, 1)
    assert q.pop(LONG) == 7
    first = q.last_lease
    expire(q, first)
    assert q.pop(LONG) == 7 and q.last_deliveries == 2  # another consumer has it now
    second = q.last_lease
    assert first != second
    assert not q.ack(first)  # the first consumer's late ack: the lease is not its own
    assert not q.release(first)
    assert not q.touch(first, LONG)
    assert q.info()["leased"] == 1
    assert q.ack(second)
    assert q.info()["leased"] == 0 and len(q) == 0
    assert not q.ack(second)  # once only


def test_release_and_dead_letter_after_max_deliveries():
    q = queue(max_deliveries=3)
    q.push(9, 2)
    q.push(10, 2)
    for n in (1, 2):
        assert q.pop(LONG) == 9 and q.last_deliveries == n
        assert q.release(q.last_lease) == 1  # back at once, still first
    assert q.pop(LONG) == 9 and q.last_deliveries == 3
    assert q.release(q.last_lease) == 2  # the third delivery failed too: dead-lettered
    assert q.tickets() == [(10, 2, 1, False)]
    assert q.info()["dead"] == 1
    # The expiry path dead-letters the same way.
    assert q.pop(LONG) == 10
    tok = q.last_lease
    for n in (2, 3):
        expire(q, tok)
        assert q.pop(LONG) == 10 and q.last_deliveries == n
        tok = q.last_lease
    expire(q, tok)
    raises(QueueEmpty, q.pop)
    assert q.dead(10) == [(9, 2, 0, 3), (10, 2, 1, 3)]  # id, class, seq, deliveries; taken off
    assert q.dead(10) == [] and q.info()["dead"] == 0
    assert not q.full() and q.info()["leased"] == 0


def test_touch_extends_a_lease():
    q = queue()
    q.push(1, 1)
    q.pop(5000)
    tok = q.last_lease
    assert q.info()["next_expiry_ms"] <= 5000
    assert q.touch(tok, LONG)
    assert q.info()["next_expiry_ms"] > 5000  # now LONG from the server's clock
    assert q.info()["leased"] == 1 and len(q) == 0
    assert q.ack(tok)


def test_remove_and_clear_with_leases():
    q = queue()
    q.push(4, 1)
    q.push(4, 1)
    assert q.pop(LONG) == 4
    tok = q.last_lease
    assert q.remove(4)  # the queued one; a leased ticket is not queued
    assert not q.remove(4)
    q.push(5, 0)
    q.clear()  # drops leased tickets too
    assert q.info()["leased"] == 0 and len(q) == 0
    assert not q.ack(tok)
    assert q.push(6, 0) == 3  # the sequence goes on


def test_aging_promotion_survives_a_lease():
    q = queue(aging=1)
    for i, c in [(1, 0), (2, 3), (3, 3)]:
        q.push(i, c)
    assert q.pop() == 2  # then aging promotes 1: LOW -> NORMAL
    assert q.tickets() == [(3, 3, 2, False), (1, 1, 0, True)]
    assert q.pop() == 3  # and again: NORMAL -> HIGH
    assert q.pop(LONG) == 1 and q.last_priority == 2
    expire(q, q.last_lease)
    assert q.tickets() == [(1, 2, 0, True)]  # back as it left: HIGH, promoted


def test_wait_hint_is_the_next_lease_expiry():
    q = queue()
    q.push(1, 1)
    q.pop(5000)
    i = q.info()
    assert 0 < i["next_expiry_ms"] <= 5000
    q.ack(q.last_lease)
    assert q.info()["next_expiry_ms"] == -1


def _server_ms(conn):
    # The server's TIME in ms, as the library's Lua reads it (s * 1000 + floor(us / 1000)).
    s, us = conn.time()
    return s * 1000 + us // 1000


def test_a_lease_has_run_out_when_the_servers_clock_reaches_its_end():
    # A lease taken or touched at TIME t for L ms is held while the server's clock (ms) is
    # below t + L; at t + L it has run out, and the next call puts the ticket back. The
    # test learns t exactly (TIME read before and after touch in the same ms), waits for
    # the server's clock to reach t + 1 and pops at once; when TIME read after that pop is
    # still t + 1, the pop ran with its `now` equal to the lease's end. Every round checks
    # the contract; the exact ones (most, on an idle machine) check the boundary itself.
    from ticketq import QueueEmpty as Empty

    q = queue(max_deliveries=0)
    conn = fleet_server.shared().client()
    q.push(1, 1)
    assert q.pop(LONG) == 1
    exact = 0
    for _ in range(200):
        tok = q.last_lease
        before = _server_ms(conn)
        assert q.touch(tok, 1)
        if _server_ms(conn) != before:
            # its end is not known to the ms: hold it again (it may have run out already)
            if not q.touch(tok, LONG):
                assert q.pop(LONG) == 1
            continue
        end = before + 1
        now = _server_ms(conn)
        while now < end:
            now = _server_ms(conn)
        try:
            got = q.pop(LONG)  # reaps first: the lease ran out, the ticket is back
        except Empty:
            got = None
        after = _server_ms(conn)
        assert got == 1, (now, end, after)
        if now == after == end:
            exact += 1
            if exact == 5:
                break
    if not exact:
        skip("no call landed in the lease's last ms in 200 tries (a busy machine)")
    assert q.ack(q.last_lease)
    q.destroy()

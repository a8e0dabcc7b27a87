# Host only (CPython and a real redis-server): the fleet queue keeps FIFO within a class
# for 2**62 pushes, and says so, not silently wraps, after the last one.
# BullMQ's score priority * 2**32 + counter lost FIFO where a double stops being exact
# (taskforcesh/bullmq#4249, at 2**53) and where Lua's 32-bit bit.band wrapped the counter
# (#2597, at 2**31). Here the score is the class only (0..3) and the counter lives in the
# fixed-width member as two parts, hi < 2**32 and lo < 2**30, each exact in Lua.
# The test starts the counter just before each dangerous point (it sets the queue's meta
# fields itself: 2**62 real pushes would take a few thousand years) and pushes across it.
from support import IS_MICROPYTHON, raises, skip

if not IS_MICROPYTHON:
    import fleet_server
    from ticketq.fleet import FleetQueue, FleetError

M30 = 1 << 30
# (hi, lo) starts: across 2**30, 2**31 (#2597), 2**52, 2**53 (#4249), and the very end.
STARTS = [(0, M30 - 3), (1, M30 - 3), (2 ** 22 - 1, M30 - 3), (2 ** 23 - 1, M30 - 3), (2 ** 32 - 2, M30 - 3)]


def host_only():
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    return fleet_server.shared()


def test_fifo_across_every_dangerous_counter():
    srv = host_only()
    conn = srv.client()
    for hi, lo in STARTS:
        q = FleetQueue(conn, fleet_server.fresh_name("edge"), 64, first_seq=5)
        conn.hset(q.keys[0], mapping={"hi": hi, "lo": lo})
        pushed = []
        for k in range(12):  # two classes interleaved, 6 each, across the carry
            c = (0, 2)[k % 2]
            s = q.push(100 + k, c)
            assert s == (5 + lo + k) % M30  # (first_seq + pushes) mod 2**30
            pushed.append((100 + k, c, s))
        # The stored tickets: scores are the class bands only, members distinct, fixed width.
        stored = conn.zrange(q.keys[1], 0, -1, withscores=True)
        assert sorted(set(sc for _, sc in stored)) == [1.0, 3.0]
        assert len(set(m for m, _ in stored)) == 12 and set(len(m) for m, _ in stored) == {24}
        got = [(q.pop(), q.last_priority, q.last_seq) for _ in range(12)]
        want = [t for t in pushed if t[1] == 2] + [t for t in pushed if t[1] == 0]
        assert got == want, (hi, lo, got)
        q.destroy()


def test_after_2_62_pushes_push_says_so_and_changes_nothing():
    srv = host_only()
    conn = srv.client()
    q = FleetQueue(conn, fleet_server.fresh_name("end"), 8)
    conn.hset(q.keys[0], mapping={"hi": 2 ** 32 - 1, "lo": M30 - 2})
    assert q.push(1, 1) == M30 - 2
    assert q.push(2, 1) == M30 - 1  # the 2**62-th push: the last counter there is
    before = (q.tickets(), conn.hgetall(q.keys[0]))
    e = raises(FleetError, q.push, 3, 1)
    assert "TQEXHAUSTED" in str(e)
    assert (q.tickets(), conn.hgetall(q.keys[0])) == before
    assert [q.pop(), q.pop()] == [1, 2]  # the queue still pops what it holds, in order
    q.destroy()


def test_fixed_width_members_order_ids_as_numbers():
    # Equal scores order by member bytes: "10" sorts before "9" unless widths are fixed
    # (django-tasks-scheduler PR #403). Ids 9, 10, 100, ... in one class come out FIFO.
    srv = host_only()
    q = FleetQueue(srv.client(), fleet_server.fresh_name("ids"), 16)
    ids = [9, 10, 100, 1000, 2, M30 - 1, 0, 99]
    for i in ids:
        q.push(i, 1)
    assert [q.pop() for _ in ids] == ids
    q.destroy()


def test_aging_promotes_the_oldest_across_the_counter_carry():
    # Aging promotes the oldest ticket below CRITICAL (pushed first: ticketq's docstring). Across the
    # carry a ticket pushed before it has the larger low part of its counter (lo near 2**30,
    # hi 0) than one pushed after it (lo 0, hi 1): it is still the older one, and the fleet
    # queue promotes it as a TicketQueue with the same pushes does.
    from ticketq import TicketQueue

    srv = host_only()
    conn = srv.client()
    for hi in (0, 2 ** 31 - 1):  # the first carry, and one where hi crosses 2**31 (#2597)
        q = FleetQueue(conn, fleet_server.fresh_name("agecarry"), 16, aging=1)
        conn.hset(q.keys[0], mapping={"hi": hi, "lo": M30 - 2})
        t = TicketQueue(16, M30 - 2, 1)
        for i, c in ((1, 0), (2, 0), (3, 1), (4, 2), (5, 1), (6, 0)):  # 3.. after the carry
            assert q.push(i, c) == t.push(i, c)
        got = [(q.pop(), q.last_priority, q.last_seq) for _ in range(6)]
        want = [(t.pop(), t.last_priority, t.last_seq) for _ in range(6)]
        assert got == want, (hi, got, want)
        assert got[:2] == [(4, 2, 1), (1, 1, M30 - 2)], got  # 1, not 3, was promoted first
        assert q.digest == t.digest
        q.destroy()


def test_aging_older_needs_the_high_words_to_tie():
    # older(a, b) in fleet/core.lua compares (hi, lo) pairs: lo decides only when the hi
    # words tie. Here the older ticket (lo near 2**30, hi h) is the head first looked at
    # (class 1) and the younger one (hi h + 1, lo 0) comes after (class 0), so a comparison
    # that lets lo decide whatever the hi words ("ah < bh or al < bl", issue 34 #6) promotes
    # the younger one: the classes then differ from TicketQueue's with the same pushes.
    from ticketq import TicketQueue

    srv = host_only()
    conn = srv.client()
    for hi in (0, 2 ** 31 - 1):
        q = FleetQueue(conn, fleet_server.fresh_name("agehi"), 16, aging=1)
        conn.hset(q.keys[0], mapping={"hi": hi, "lo": M30 - 2})
        t = TicketQueue(16, M30 - 2, 1)
        for i, c in ((1, 3), (2, 1), (3, 0), (4, 0)):  # 3 and 4 after the carry
            assert q.push(i, c) == t.push(i, c)
        got = [(q.pop(), q.last_priority, q.last_seq) for _ in range(4)]
        want = [(t.pop(), t.last_priority, t.last_seq) for _ in range(4)]
        assert got == want, (hi, got, want)
        # after each pop aging promotes the oldest: 2 (pushed before 3) to HIGH first
        assert got == [(1, 3, M30 - 2), (2, 2, M30 - 1), (3, 1, 0), (4, 1, 1)], got
        assert q.digest == t.digest
        q.destroy()

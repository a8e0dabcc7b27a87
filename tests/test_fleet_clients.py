# Host only (CPython and a real redis-server): one FleetQueue object used by several threads,
# a forked process, a very long-lived client, a queue deleted and made again. The replay
# records are per (client number, kind of call): two calls of one client number must never
# overlap or repeat a call number, else a push is answered with another push's reply (and
# never stored) or a pop hands out a ticket another process already got. Both clients:
# redis-py and the board client (ticketq.resp) on CPython.
import os
import sys

from support import IS_MICROPYTHON, raises, skip

if not IS_MICROPYTHON:
    import threading

    import fleet_server
    from ticketq.fleet import FleetQueue, FleetError, _MASK


def clients():
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    srv = fleet_server.shared()
    # the board client with room for tickets() of the 1200 tickets below (4 items each:
    # ticketq.resp's default max_items, 4096, holds 1024 of them, as its stub says)
    return srv, (("redis-py", srv.client), ("resp", lambda: srv.resp(max_items=8192)))


def test_threads_sharing_a_queue_push_each_ticket_once():
    srv, kinds = clients()
    for kind, make in kinds:
        q = FleetQueue(make(), fleet_server.fresh_name("thr"), 4000)
        got, errors = {}, []

        def producer(t):
            try:
                for j in range(150):
                    got[t * 1000 + j] = q.push(t * 1000 + j, 1)
            except Exception as e:  # noqa: BLE001 (reported below)
                errors.append(repr(e))

        threads = [threading.Thread(target=producer, args=(t,)) for t in range(8)]
        switch = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)  # threads switch as often as they can: races show
        try:
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        finally:
            sys.setswitchinterval(switch)
        assert errors == [], (kind, errors[:3])
        # Each push stored its ticket once, and was told that ticket's own sequence number.
        stored = dict((x[0], x[2]) for x in q.tickets())
        assert len(q) == 1200 and stored == got, (kind, len(q), len(stored))
        q.destroy()


def fork(fn):
    # Run fn() in a forked child; its exit status says whether it returned True.
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            code = 0 if fn() else 3
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def test_a_forked_child_gets_its_own_client_number():
    srv, kinds = clients()
    for kind, make in kinds:
        q = FleetQueue(make(), fleet_server.fresh_name("fork"), 16)
        assert q.push(1, 1) == 0
        assert fork(lambda: q.push(2, 1) == 1) == 0, kind
        # The parent's next push has the call number the child's push had: with the same
        # client number it was answered with the child's reply and stored nothing.
        assert q.push(3, 1) == 2, kind
        assert [t[0] for t in q.tickets()] == [1, 2, 3], kind
        q.destroy()


def test_a_forked_child_leaves_the_parents_unanswered_pop_to_the_parent():
    srv, kinds = clients()
    for kind, make in kinds:
        conn = fleet_server.Interrupting(make(), "pop")
        q = FleetQueue(conn, fleet_server.fresh_name("forkp"), 16)
        for i in (1, 2, 3):
            q.push(i, 1)
        conn.armed = True
        raises(KeyboardInterrupt, q.pop, 60000)  # the server leased 1; the parent never saw it
        assert fork(lambda: q.pop(60000) == 2) == 0, kind  # not the parent's 1 a second time
        assert q.pop(60000) == 1, kind  # the parent's unanswered pop, answered
        assert q.info()["leased"] == 2
        q.destroy()


def test_call_numbers_never_wrap_into_an_old_record():
    srv, kinds = clients()
    for kind, make in kinds:
        q = FleetQueue(make(), fleet_server.fresh_name("wrap"), 16)
        assert q.push(1, 1) == 0  # recorded as this client's push number 1
        q._op = _MASK - 1  # as after 2**30 - 2 calls (of other kinds than push)
        assert q.remove(99) is False  # call number 2**30 - 1
        assert q.remove(98) is False  # the last number: the next one must not be 1 again
        assert q.push(2, 1) == 1  # with call number 1 again it was push(1)'s reply, replayed
        assert q.push(3, 1) == 2
        assert [t[0] for t in q.tickets()] == [1, 2, 3], kind
        q.destroy()


def test_a_queue_made_again_refuses_the_old_queues_clients():
    srv, kinds = clients()
    for kind, make in kinds:
        name = fleet_server.fresh_name("again")
        old = FleetQueue(make(), name, 2)
        old.destroy()
        new = FleetQueue(make(), name, 4)  # its client numbers count from 1 again
        assert new.push(5, 1) == 0
        assert not old.full(), kind  # the server's capacity (4), not the one cached at open (2)
        e = raises(FleetError, old.push, 6, 1)  # never the new client's replayed reply
        assert "TQSTALE" in str(e), (kind, e)
        raises(FleetError, old.pop)
        assert [t[0] for t in new.tickets()] == [5]
        again = FleetQueue(make(), name)  # opened again: a number of this queue
        assert again.push(6, 1) == 1
        new.destroy()

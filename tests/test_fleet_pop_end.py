# Host only (CPython and a real redis-server): the end of pop (issue 34, 4). An interrupt
# (KeyboardInterrupt, a signal handler's exception) at any place of a pop where CPython
# can deliver one, after the server ran the pop, must not leave the ticket leased to
# nobody: the pop stays pending until the public call hands its ticket over, as its last
# step, under the lock, so the next pop sends it again and the server replays it (the
# same ticket, the same lease). Places: every RESUME and JUMP_BACKWARD of ticketq/fleet.py
# and every return of a Python function it calls (test_fleet_safety.at_bytecode's model),
# for pop, pop_until, pop_many and ack_pop, leased or not, plain and lane queues,
# redis-py and the board client (ticketq.resp). The one place left is the hand-over
# itself: the return of the public call to its caller (a signal there lands in the
# caller, after the call returned, where no library can see whether the caller stored the
# value). There the ticket is bounded by its lease: it comes back when the lease runs out,
# delivered again with its count raised; an unleased pop (lease_ms 0: at most once) loses
# it. Both are asserted below, at exactly that place and nowhere else.
from support import IS_MICROPYTHON, skip

if not IS_MICROPYTHON:
    import dis
    import sys

    import fleet_server
    from ticketq.core import QueueEmpty
    from ticketq.fleet import FleetLaneQueue, FleetQueue

    CHECKS = set(dis.opmap[o] for o in ("RESUME", "JUMP_BACKWARD") if o in dis.opmap)
    PUBLIC = ("pop", "pop_until", "pop_many", "ack_pop")
    LEASED = 4


def places(k, where):
    # Raises KeyboardInterrupt at the k-th place of ticketq/fleet.py (as
    # test_fleet_safety.at_bytecode), recording in `where` the function, its line and
    # whether it was a return (the exception then lands in that function's caller).
    count = [0]

    def hit(frame, ret):
        count[0] += 1
        if count[0] == k:
            where[:] = [frame.f_code.co_name, frame.f_lineno, ret,
                        frame.f_back.f_code.co_name if frame.f_back else None]
            raise KeyboardInterrupt("injected at place %d" % k)

    def local(frame, event, arg):
        if event == "opcode" and frame.f_code.co_code[frame.f_lasti] in CHECKS:
            hit(frame, False)
        elif event == "return":
            hit(frame, True)
        return local

    def callee(frame, event, arg):
        if event == "return":
            hit(frame, True)
        return callee

    def glob(frame, event, arg):
        if "ticketq/fleet.py" in frame.f_code.co_filename:
            frame.f_trace_opcodes = True
            return local
        if frame.f_back is not None and "ticketq/fleet.py" in frame.f_back.f_code.co_filename:
            return callee
        return None

    sys.settrace(glob)
    return count


def make(kind, client, srv):
    conn = srv.resp() if client == "resp" else srv.client()
    name = fleet_server.fresh_name("end")
    if kind == "lanes":
        return FleetLaneQueue(conn, name, 16, (2, 1)), conn
    return FleetQueue(conn, name, 16), conn


def call(q, how, lease):
    # one pop of each public kind; returns the job ids the caller got
    if how == "pop":
        return [q.pop(lease)]
    if how == "pop_until":
        from ticketq.ticks import Deadline
        return [q.pop_until(Deadline(5000), lease)]
    if how == "pop_many":
        return [j[0] for j in q.pop_many(1, lease)]
    return [j[0] for j in q.ack_pop([], 1, lease)[1]]


def drain(q, lease):
    # pops to the end; a lost batch's tickets that a pop() sent again come back in
    # `recovered` (first: they were taken first), their leases acked as well
    out = []
    while True:
        try:
            out.append(q.pop(lease))
        except QueueEmpty:
            break
        if lease:
            assert q.ack(q.last_lease)
    back = list(q.recovered)
    del q.recovered[:]
    for j in back:
        if lease:
            assert q.ack(j[3])
    return [j[0] for j in back] + out


def check(kind, client, how, lease):
    srv = fleet_server.shared()
    k = 0
    total = None
    handovers = 0
    while total is None or k <= total:
        q, conn = make(kind, client, srv)
        for i in (1, 2, 3):
            q.push(i, 1)
        where = []
        count = places(k, where)
        got = []
        hit = False
        try:
            got = call(q, how, lease)
        except KeyboardInterrupt:
            hit = True
        finally:
            sys.settrace(None)
        if total is None:
            total = count[0]
            assert total >= 8, total
        if lease:
            for _ in got:
                assert q.ack(q.last_lease)
        last = hit and where[2] and where[0] in PUBLIC and where[3] not in PUBLIC
        rest = drain(q, lease)
        if not last:
            # the ticket the interrupted pop took is handed over by the next pop: nothing
            # leased to nobody, nothing twice, FIFO kept
            assert got + rest == [1, 2, 3], (k, where, got, rest)
            assert q.info()["leased"] == 0, (k, where)
        else:
            # the hand-over itself: the call returned, its value never reached the caller
            handovers += 1
            assert got == [] and rest == [2, 3], (k, where, rest)
            if lease:
                # bounded by the lease: still leased to the lost caller, then back in its
                # place once the server's clock passes its end (moved there for the test),
                # delivered again with its count raised
                assert q.info()["leased"] == 1, (k, where)
                for lm in conn.execute_command("ZRANGE", q.keys[LEASED], 0, -1):
                    conn.execute_command("ZADD", q.keys[LEASED], "XX", 1, lm)
                assert q.pop(lease) == 1 and q.last_deliveries == 2
                assert q.ack(q.last_lease)
            else:
                assert q.info()["leased"] == 0 and len(q) == 0  # at most once: gone
        q.destroy()
        k += 1
    # exactly one place is the hand-over (the public call's own return)
    assert handovers == 1, handovers
    return total


def test_end_of_pop_every_place_redis_py():
    if IS_MICROPYTHON:
        skip("CPython's opcode tracing, a redis-server (host only)")
    for how in PUBLIC:
        for lease in (60000, 0):
            check("plain", "redis-py", how, lease)


def test_end_of_pop_every_place_board_client():
    if IS_MICROPYTHON:
        skip("CPython's opcode tracing, a redis-server (host only)")
    for how in ("pop", "pop_many"):
        for lease in (60000, 0):
            check("plain", "resp", how, lease)


def test_end_of_pop_every_place_lanes():
    if IS_MICROPYTHON:
        skip("CPython's opcode tracing, a redis-server (host only)")
    for client in ("redis-py", "resp"):
        for how in ("pop", "pop_until"):
            check("lanes", client, how, 60000)

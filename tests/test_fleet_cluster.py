# Host only (CPython and a real redis-server): what docs/fleet-ops.md claims for Redis Cluster (Connections).
# Every key of one queue is <prefix>{<name>}:<part>, so all of them hash to one slot (the
# CRC16 rule, computed here with redis-py's redis.crc.key_slot, as a cluster client does);
# every key a function touches is one of the keys it is given (FCALL's key list: checked in
# the Lua source); and the whole contract runs on a one-node cluster, a server in cluster
# mode that refuses any call whose keys span slots (CROSSSLOT), and on a 3-master cluster
# through redis-py's RedisCluster, many queues over the three masters' slots. Resharding,
# MOVED/ASK redirections mid-call and failover are not tested here.
from support import IS_MICROPYTHON, raises, skip

if not IS_MICROPYTHON:
    import os
    import re
    import time

    from redis.cluster import RedisCluster
    from redis.crc import key_slot

    import fleet_server
    from ticketq.ticks import Deadline
    from ticketq.fleet import FleetQueue
    from ticketq.fleet import FleetLaneQueue
    from ticketq.ticks import Timeout

    ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def host_only():
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")


def test_every_key_of_a_queue_is_in_the_slot_of_its_name():
    host_only()
    srv = fleet_server.shared()
    conn = srv.client()
    names = ["jobs", "a", "b:c", "x y", "ünïcode", "1234567890" * 10, "tq", "{".join([]) or "z"]
    for prefix in ("tq", "", "app:", "a:b:c:", "app/"):
        for name in names:
            for cls in (FleetQueue, FleetLaneQueue):
                q = cls(conn, name + "-" + cls.__name__, 4, *(([1, 2],) if cls is FleetLaneQueue else ()),
                        prefix=prefix)
                slots = set(key_slot(k.encode()) for k in q.keys)
                assert slots == {key_slot((name + "-" + cls.__name__).encode())}, (prefix, name, q.keys)
                assert all(k.startswith(prefix + "{" + q.name + "}:") for k in q.keys)
                q.destroy()


def test_every_key_a_function_touches_is_a_key_it_was_given():
    # In fleet/*.lua every redis.call names its keys as keys[...] (or unpack(keys)): none is
    # built from a string, which a cluster would not route (and Redis does not check on a
    # single node).
    host_only()
    keyless = {"TIME"}
    for part in fleet_server.fleetctl.PARTS:  # every part, keyed.lua too
        with open(os.path.join(ROOT, "fleet", part), encoding="utf-8") as f:
            text = f.read()
        code = re.sub(r"--[^\n]*", "", text)  # comments may name redis.call
        calls = re.findall(r"redis\.call\('(\w+)'((?:(?!redis\.call)[^\n])*)", code)
        # queue.lua's bulk(cmd, key, a) is the one redis.call whose command is a variable:
        # its key is the one its callers pass, each keys[...], checked as calls of their own
        dyn = code.count("redis.call(cmd, key, ")
        assert dyn == (1 if part == "queue.lua" else 0), part
        calls += re.findall(r"\bbulk\('(\w+)'((?:[^\n])*)", code)
        assert calls and len(calls) == code.count("redis.call(") - dyn + code.count("bulk('"), part
        for cmd, rest in calls:
            if cmd in keyless:
                continue
            args = rest.split(", ")[1:]  # the first is "" (after the command's name)
            for k in (args if cmd == "DEL" else args[:1]):
                assert re.match(r"keys\[\w+\]|unpack\(keys\)", k), (part, cmd, rest)


def exercise(q, lanes):
    # Every call of the queue: each would be refused (CROSSSLOT) if its keys spanned slots.
    push = (lambda i, c: q.push(i, c, i % 2)) if lanes else q.push
    for i in range(6):
        push(i, i % 4)
    assert q.peek() == 3 and len(q) == 6 and not q.full()
    assert q.pop(60000) == 3
    assert q.touch(q.last_lease, 60000) and q.release(q.last_lease) == 1
    assert q.pop(60000) == 3 and q.release(q.last_lease) == 2  # max_deliveries 2: dead
    assert q.dead(5) == ([(3, 3, 3, 2, 1)] if lanes else [(3, 3, 3, 2)])  # a lane queue's letter keeps its lane
    assert q.requeue(5) == ([], None)  # revive: its keys in the queue's slot too
    assert q.pop(60000) == 2 and q.ack(q.last_lease)
    assert q.remove(5) and len(q.tickets()) == 3 and q.info()["queued"] == 3
    if lanes:
        assert sum(q.lane_info()["queued"]) == 3
    assert q.pop_until(Deadline(1000)) == 1
    q.clear()
    raises(Timeout, q.pop_until, Deadline(50))
    return q.destroy()


def test_the_contract_runs_on_a_cluster_node():
    host_only()
    srv = fleet_server.RedisServer(cluster=True).start()
    try:
        for conn in (srv.client(), srv.resp()):
            for lanes in (False, True):
                name = fleet_server.fresh_name("cl")
                if lanes:
                    q = FleetLaneQueue(conn, name, 8, [1, 1], None, 0, 0, 2, prefix="app:")
                else:
                    q = FleetQueue(conn, name, 8, 0, 0, 2, prefix="app:")
                assert exercise(q, lanes) >= 1
        # The control: a call given the keys of two queues (two slots) is refused.
        a = FleetQueue(srv.client(), "a", 4)
        b = FleetQueue(srv.client(), "b", 4)
        assert key_slot(a.keys[0].encode()) != key_slot(b.keys[0].encode())
        e = raises(Exception, srv.client().execute_command, "FCALL", "tq1_info", 10, *(a.keys[:5] + b.keys[5:]))
        assert "same slot" in str(e), e  # CROSSSLOT
    finally:
        srv.close()


class Waits:
    # A RedisCluster whose BLPOP waits are recorded (seconds), for pop_until's bound.
    def __init__(self, rc):
        self.rc, self.waits = rc, []

    def execute_command(self, *a):
        if a[0] == "BLPOP":
            self.waits.append(float(a[-1]))
        return self.rc.execute_command(*a)

    def __getattr__(self, name):
        return getattr(self.rc, name)


def check_deadline_through_cluster(rc):
    # pop_until keeps its deadline within one socket timeout through RedisCluster: every
    # server-side wait is cut to 3/4 of the nodes' socket_timeout (1.0 s here), so no wait
    # outlives the client's read and none is retried past the deadline (issue 20, 4: it
    # was still blocked after 8 s, and raised redis' TimeoutError after 44 s).
    w = Waits(rc)
    q = FleetQueue(w, fleet_server.fresh_name("dl"), 4)
    assert q._wait_cap() == 750
    t0 = time.monotonic()
    raises(Timeout, q.pop_until, Deadline(1500))
    took = time.monotonic() - t0
    assert w.waits and max(w.waits) <= 0.75, w.waits
    assert took < 1.5 + 1.0, took
    q.destroy()


def test_pop_until_keeps_its_deadline_through_redis_cluster():
    host_only()
    srv = fleet_server.RedisServer(cluster=True).start()
    try:
        srv.client()
        check_deadline_through_cluster(RedisCluster(host="127.0.0.1", port=srv.port, socket_timeout=1.0))
    finally:
        srv.close()


def test_three_masters_many_queues_over_the_slots():
    # A 3-master cluster, the library on every master: queues whose names hash to slots on
    # every master each run the whole contract through redis-py's RedisCluster (which
    # routes each FCALL by its keys), plain and lane queues.
    host_only()
    with fleet_server.Cluster(3) as cl:
        rc = cl.client(socket_timeout=1.0)
        # four queue names on each master (a name's slot is its hash: drawn until each has
        # four; twelve names drawn at random missed a master in one run of 40 or so)
        per = dict((s.port, []) for s in cl.nodes)
        while min(len(v) for v in per.values()) < 4:
            n = fleet_server.fresh_name("m")
            p = rc.get_node_from_key(n).port
            if len(per[p]) < 4:
                per[p].append(n)
        names = [n for i in range(4) for v in sorted(per.values()) for n in v[i:i + 1]]
        assert len(names) == 12
        for i, name in enumerate(names):
            lanes = i % 2 == 1
            if lanes:
                q = FleetLaneQueue(rc, name, 8, [1, 1], None, 0, 0, 2, prefix="app:")
            else:
                q = FleetQueue(rc, name, 8, 0, 0, 2, prefix="app:")
            assert exercise(q, lanes) >= 1
        check_deadline_through_cluster(rc)
        rc.close()

# Host only (CPython and a real redis-server): what docs/fleet.md claims for Redis Cluster.
# Every key of one queue is <prefix>{<name>}:<part>, so all of them hash to one slot (the
# CRC16 rule, computed here with redis-py's redis.crc.key_slot, as a cluster client does);
# every key a function touches is one of the keys it is given (FCALL's key list: checked in
# the Lua source); and the whole contract runs on a one-node cluster, a server in cluster
# mode that refuses any call whose keys span slots (CROSSSLOT). A multi-node cluster
# (resharding, MOVED/ASK redirections, failover) is not tested here.
from support import IS_MICROPYTHON, raises, skip

if not IS_MICROPYTHON:
    import os
    import re

    from redis.crc import key_slot

    import fleet_server
    from ticketq_deadline import Deadline
    from ticketq_fleet import FleetQueue
    from ticketq_fleetlanes import FleetLaneQueue
    from ticketq_wait import Timeout

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
    for part in ("core.lua", "queue.lua", "lease.lua", "lanes.lua"):
        with open(os.path.join(ROOT, "fleet", part), encoding="utf-8") as f:
            text = f.read()
        calls = re.findall(r"redis\.call\('(\w+)'((?:(?!redis\.call)[^\n])*)", text)
        assert calls and len(calls) == text.count("redis.call("), part
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
    assert q.dead(5) == [(3, 3, 3, 2)]
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

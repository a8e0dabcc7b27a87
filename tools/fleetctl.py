#!/usr/bin/env python3
"""The fleet queue's server side: load the ticketq library of Redis Functions into a Redis
or Valkey server (7.0 or later), and look at a queue from the host.

    .venv/bin/python tools/fleetctl.py install --url redis://127.0.0.1:6379/0
    .venv/bin/python tools/fleetctl.py info jobs --url ... [--prefix tq]
    .venv/bin/python tools/fleetctl.py tickets jobs --url ...     # queued tickets, pop order
                                                                  # (plain or lane queue)
    .venv/bin/python tools/fleetctl.py dead jobs --url ... [--count 10]   # take dead letters
                                      # (shown first, taken once the output went through)
    .venv/bin/python tools/fleetctl.py grant board7 --queue jobs [--queue more] \
                                      [--role board|producer|operator] --url ... [--url ...]
    .venv/bin/python tools/fleetctl.py rotate board7 --url ... [--url ...]
    .venv/bin/python tools/fleetctl.py revoke board7 --url ... [--url ...]

The library is fleet/core.lua + queue.lua + lease.lua + lanes.lua, loaded as one Redis
library named ticketq_<VERSION> (FUNCTION LOAD REPLACE), its functions tq<VERSION>_<op>;
VERSION is ticketq_fleet.VERSION. Load it once per server (it is part of the dataset: it
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

Exit: 0 done (also when the reader of its output went away: ... | head), 1 a Redis
error, 2 usage.
"""
import argparse
import hashlib
import os
import re
import secrets
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LUA = os.path.join(ROOT, "fleet")
# One file per concern, in load order: each may use what the ones before it define.
PARTS = ("core.lua", "queue.lua", "lease.lua", "lanes.lua")
if os.path.join(ROOT, "lib") not in sys.path:
    sys.path.insert(0, os.path.join(ROOT, "lib"))

import ticketq_fleet  # noqa: E402
import ticketq_fleetlanes  # noqa: E402


def source(version=None):
    """The library's source as FUNCTION LOAD takes it, for `version` (default: the
    client's ticketq_fleet.VERSION; tests load other versions to check the errors)."""
    v = ticketq_fleet.VERSION if version is None else version
    text = ["#!lua name=ticketq_%d" % v, "local V = %d" % v]
    for part in PARTS:
        with open(os.path.join(LUA, part), encoding="utf-8") as f:
            text.append("-- ---- fleet/%s\n%s" % (part, f.read()))
    return "\n".join(text)


def install(conn, version=None):
    """FUNCTION LOAD REPLACE the library into the server behind `conn` (a redis-py client
    or ticketq_resp.Redis). Returns the library name."""
    name = conn.execute_command("FUNCTION", "LOAD", "REPLACE", source(version))
    return name.decode() if isinstance(name, bytes) else name


def open_queue(conn, name, prefix="tq"):
    """The existing fleet queue `name`: a FleetQueue, or a FleetLaneQueue if it has lanes
    (the server tells which: a plain open of a lane queue is refused, TQKIND, changing
    nothing)."""
    try:
        return ticketq_fleet.FleetQueue(conn, name, prefix=prefix)
    except ticketq_fleet.FleetError as e:
        if "TQKIND" not in str(e):
            raise
    return ticketq_fleetlanes.FleetLaneQueue(conn, name, prefix=prefix)


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
          "lanes", "ack", "release", "touch")
_PRODUCER = ("open", "lopen", "client", "push", "lpush", "info", "lanes")
ROLES = {"board": _BOARD, "producer": _PRODUCER, "operator": None}  # None: every function
# Commands a role runs outside the functions: BLPOP (pop_until waits on the wake key).
_EXTRA = {"board": ("blpop",), "producer": (), "operator": ("blpop", "lrange")}
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
    rules += ["+fcall|tq%d_%s" % (ticketq_fleet.VERSION, f) for f in fns]
    rules += ["+" + c for c in lua_commands() + list(_EXTRA[role])]
    rules += ["~%s{%s}:*" % (_glob(prefix), _glob(q)) for q in queues]
    return rules


def _check_user(user):
    if not _USER_OK.match(user or "") or user == "default":
        raise ValueError("user: 1 to 64 of A-Z a-z 0-9 . _ - (not starting with . _ -), "
                         "not 'default', not %r" % (user,))


def _hash(password):
    return "#" + hashlib.sha256(password.encode()).hexdigest()


def grant(conns, user, role, queues, prefix="tq", db=0, cluster=False):
    """Create ACL user `user` with `role` on `queues` on every server of `conns` (redis-py
    clients or ticketq_resp.Redis), with one new random password, returned (and kept
    nowhere else). ValueError if the user exists on any of them (nothing changed then)."""
    _check_user(user)
    rules = acl_rules(role, queues, prefix, db, cluster)
    for c in conns:
        if c.execute_command("ACL", "GETUSER", user) is not None:
            raise ValueError("user %s exists already (rotate its password, or revoke it first)"
                             % user)
    password = secrets.token_urlsafe(24)  # 192 bits, A-Z a-z 0-9 - _: no URL escaping
    for c in conns:
        c.execute_command("ACL", "SETUSER", user, *(rules + [_hash(password)]))
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


def connect(url):
    import redis

    return redis.Redis.from_url(url)


def main(argv=None):
    p = argparse.ArgumentParser(description="Load the ticketq fleet library into Redis/Valkey; inspect a queue; "
                                "grant, rotate or revoke a board's own Redis user.")
    p.add_argument("command", choices=["install", "source", "info", "tickets", "dead", "grant", "rotate", "revoke"])
    p.add_argument("queue", nargs="?", help="the queue name (info, tickets, dead); the user (grant, rotate, revoke)")
    p.add_argument("--url", action="append", help="redis://[:password@]host:port/db (default "
                   "redis://127.0.0.1:6379/0); grant, rotate, revoke: once per server (a cluster's masters)")
    p.add_argument("--prefix", default="tq", help="key prefix (default tq)")
    p.add_argument("--count", type=int, default=10, help="dead letters to take (dead)")
    p.add_argument("--queue", dest="queues", action="append", metavar="Q",
                   help="grant: a queue the user may use (repeat for several)")
    p.add_argument("--role", default="board", choices=sorted(ROLES), help="grant: what the user may do (default board)")
    p.add_argument("--cluster", action="store_true", help="grant: also allow reading the cluster's slots")
    a = p.parse_args(argv)
    urls = a.url or ["redis://127.0.0.1:6379/0"]
    acl = a.command in ("grant", "rotate", "revoke")
    if len(urls) > 1 and not acl:
        p.error("--url: once, except for grant, rotate and revoke")
    url = urls[0]
    if a.command == "source":
        print(source())
        return 0
    if a.command != "install" and not a.queue:
        p.error("%s needs a %s" % (a.command, "user" if acl else "queue name"))
    if a.queues and a.command != "grant":
        p.error("--queue is for grant (the queue of %s is its first argument)" % a.command)
    if a.count < 1:
        p.error("--count: at least 1")
    import redis

    def hide(text):
        for u in urls:
            text = text.replace(u, safe_url(u))
        return text

    try:
        try:
            if acl:
                conns = [connect(u) for u in urls]
                if a.command == "grant":
                    db = _db(url)
                    pw = grant(conns, a.queue, a.role, a.queues or [], a.prefix, db, a.cluster)
                    # The one line with the password: stdout, once. Nothing else shows it.
                    print(user_url(url, a.queue, pw))
                    sys.stdout.flush()
                    print("granted %s on %s to user %s on %s" % (a.role, ", ".join(a.queues), a.queue,
                          ", ".join(safe_url(u) for u in urls)), file=sys.stderr)
                elif a.command == "rotate":
                    print(user_url(url, a.queue, rotate(conns, a.queue)))
                    sys.stdout.flush()
                    print("new password for user %s; its connections were closed" % a.queue, file=sys.stderr)
                else:
                    n = revoke(conns, a.queue)
                    print("revoked user %s on %d of %d servers" % (a.queue, n, len(conns)))
                return 0
            conn = connect(url)
            q = None if a.command == "install" else open_queue(conn, a.queue, a.prefix)
        except ValueError as e:  # a URL redis-py cannot read, a queue name or prefix with { }
            p.error(hide(str(e)))
        if a.command == "install":
            print("loaded %s into %s" % (install(conn), safe_url(url)))
            return 0
        if a.command == "info":
            print(repr(q))
            if hasattr(q, "lanes"):
                li = q.lane_info()
                print("lanes: weights %s, queued %s, held %s (bounds %s), cursors %s" % (
                    ":".join(map(str, q.weights)), li["queued"], li["held"], q.lane_capacity, li["cursors"]))
            i = q.info()
            print("leased=%d dead=%d digest=%08x %s" % (
                i["leased"], i["dead"], i["digest"], "no lease" if i["next_expiry_ms"] < 0
                else "next lease expiry in %d ms" % i["next_expiry_ms"]))
        elif a.command == "tickets":
            for t in q.tickets():
                print("%d %s seq=%d%s%s" % (t[0], ("LOW", "NORMAL", "HIGH", "CRITICAL")[t[1]], t[2],
                                            " lane=%d" % t[4] if len(t) > 4 else "", " promoted" if t[3] else ""))
        else:
            # Taking a letter removes it: show them first (read, not taken), and take only
            # what was shown once the output is through (a closed pipe, ... | head, takes
            # none). dead() takes the oldest: the ones shown, unless another taker was faster.
            shown = [tuple(int(x) for x in e.split()) for e in conn.lrange(q.keys[7], 0, a.count - 1)]
            for t in shown:
                print("%d class=%d seq=%d deliveries=%d" % t)
            sys.stdout.flush()
            taken = q.dead(len(shown)) if shown else []
            if taken != shown:
                print("tools/fleetctl.py: another consumer took dead letters meanwhile: took %r" % (taken,),
                      file=sys.stderr)
                return 1
        return 0
    except (redis.RedisError, ticketq_fleet.FleetError) as e:
        print("tools/fleetctl.py: %s" % hide(str(e)), file=sys.stderr)
        return 1


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

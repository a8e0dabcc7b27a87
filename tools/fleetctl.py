#!/usr/bin/env python3
"""The fleet queue's server side: load the ticketq library of Redis Functions into a Redis
or Valkey server (7.0 or later), and look at a queue from the host.

    .venv/bin/python tools/fleetctl.py install --url redis://127.0.0.1:6379/0
    .venv/bin/python tools/fleetctl.py info jobs --url ... [--prefix tq]
    .venv/bin/python tools/fleetctl.py tickets jobs --url ...     # queued tickets, pop order
                                                                  # (plain or lane queue)
    .venv/bin/python tools/fleetctl.py dead jobs --url ... [--count 10]   # take dead letters
                                      # (shown first, taken once the output went through)

The library is fleet/core.lua + queue.lua + lease.lua + lanes.lua, loaded as one Redis
library named ticketq_<VERSION> (FUNCTION LOAD REPLACE), its functions tq<VERSION>_<op>;
VERSION is ticketq_fleet.VERSION. Load it once per server (it is part of the dataset: it
survives restarts with persistence and reaches replicas); clients, boards included, call
the functions by name and never hold the Lua. Libraries of other versions may stay loaded
beside it (their functions have other names) while old clients drain.

Exit: 0 done (also when the reader of its output went away: ... | head), 1 a Redis
error, 2 usage.
"""
import argparse
import os
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


def connect(url):
    import redis

    return redis.Redis.from_url(url)


def main(argv=None):
    p = argparse.ArgumentParser(description="Load the ticketq fleet library into Redis/Valkey; inspect a queue.")
    p.add_argument("command", choices=["install", "source", "info", "tickets", "dead"])
    p.add_argument("queue", nargs="?", help="the queue name (info, tickets, dead)")
    p.add_argument("--url", default="redis://127.0.0.1:6379/0", help="redis://[:password@]host:port/db")
    p.add_argument("--prefix", default="tq", help="key prefix (default tq)")
    p.add_argument("--count", type=int, default=10, help="dead letters to take (dead)")
    a = p.parse_args(argv)
    if a.command == "source":
        print(source())
        return 0
    if a.command != "install" and not a.queue:
        p.error("%s needs a queue name" % a.command)
    if a.count < 1:
        p.error("--count: at least 1")
    import redis

    try:
        try:
            conn = connect(a.url)
            q = None if a.command == "install" else open_queue(conn, a.queue, a.prefix)
        except ValueError as e:  # a URL redis-py cannot read, a queue name or prefix with { }
            p.error(str(e).replace(a.url, safe_url(a.url)))
        if a.command == "install":
            print("loaded %s into %s" % (install(conn), safe_url(a.url)))
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
        print("tools/fleetctl.py: %s" % str(e).replace(a.url, safe_url(a.url)), file=sys.stderr)
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

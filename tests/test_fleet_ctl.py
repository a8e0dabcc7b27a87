# Host only (CPython and a real redis-server): ticketq fleet as an operator uses it
# (issue 22): list, stats, peek, leased, dead (read without taking), requeue, clear/destroy
# behind --yes, push/pop, --json on every read command, the class by name and the digest in
# hex everywhere; errors a person can act on, each condition with its own exit code (the
# table in docs/fleet.md, "Exit codes").
from support import IS_MICROPYTHON, skip

if not IS_MICROPYTHON:
    import contextlib
    import io
    import json
    import os
    import subprocess
    import sys
    import time

    import fleet_server
    from ticketq.fleet import FleetQueue

    ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    from ticketq_tools import fleetctl


def host():
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")


def ctl(*args):
    # fleetctl.main in this process: (exit code, stdout, stderr)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = fleetctl.main([str(a) for a in args])
        except SystemExit as e:  # argparse's usage errors
            code = e.code
    return code, out.getvalue(), err.getvalue()


def test_operator_commands_on_a_plain_queue():
    host()
    srv = fleet_server.shared()
    srv.client()  # the library loaded (fleetctl install)
    name = fleet_server.fresh_name("ctl")
    u = ("--url", srv.url)
    assert ctl("create", name, "--capacity", 8, "--max-deliveries", 1, *u)[0] == 0
    code, out, err = ctl("create", name, "--capacity", 8, *u)
    assert code == 1 and "exists already" in err
    for i, c in ((1, "high"), (2, "LOW"), (3, "critical")):
        code, out, err = ctl("push", name, i, "--class", c, *u)
        assert code == 0 and out.startswith("pushed %d %s seq=" % (i, c.upper())), (out, err)
    q = FleetQueue(srv.client(), name)
    assert len(q) == 3
    code, out, _ = ctl("list", "--json", *u)
    assert code == 0 and {"name": name, "kind": "plain"} in json.loads(out)
    # peek takes nothing
    code, out, _ = ctl("peek", name, "--json", *u)
    assert json.loads(out) == {"id": 3, "class": "CRITICAL", "seq": 2, "promoted": False, "lane": None}
    assert len(q) == 3
    # pop with a lease: leased shows who was taken, its token and when it expires
    code, out, _ = ctl("pop", name, "--lease-ms", 60000, "--json", *u)
    popped = json.loads(out)
    assert popped["id"] == 3 and popped["class"] == "CRITICAL" and popped["token"]
    code, out, _ = ctl("leased", name, "--json", *u)
    (row,) = json.loads(out)
    assert row["id"] == 3 and row["token"] == popped["token"] and row["deliveries"] == 1
    assert 50000 < row["expires_in_ms"] <= 60000
    code, out, _ = ctl("tickets", name, "--json", *u)
    t = json.loads(out)
    assert [r["id"] for r in t["queued"]] == [1, 2] and [r["id"] for r in t["leased"]] == [3]
    code, out, _ = ctl("tickets", name, "--limit", 1, *u)
    assert out.splitlines() == ["1 HIGH seq=0", "3 CRITICAL seq=2 leased expires_in_ms=%s"
                                % out.splitlines()[1].rsplit("=", 1)[1]]
    code, out, _ = ctl("stats", name, "--json", *u)
    s = json.loads(out)
    assert (s["queued"], s["leased"], s["dead"], s["capacity"]) == (2, 1, 0, 8)
    assert s["per_class"] == {"LOW": 1, "NORMAL": 0, "HIGH": 1, "CRITICAL": 0}
    assert s["digest"] == "%08x" % q.digest and s["pops"] == 1 and 0 < s["next_expiry_ms"] <= 60000
    # the lease given back once: max_deliveries 1, a dead letter; dead shows it, twice
    assert q.release(popped["token"]) == 2
    for _ in range(2):
        code, out, _ = ctl("dead", name, *u)
        assert code == 0 and out == "3 CRITICAL seq=2 deliveries=1\n"
    assert json.loads(ctl("dead", name, "--json", *u)[1]) == [
        {"id": 3, "class": "CRITICAL", "seq": 2, "deliveries": 1, "lane": None}]  # lane: a lane queue's
    code, out, _ = ctl("requeue", name, *u)
    assert code == 0 and out == "requeued 3 CRITICAL seq=3\n"
    assert q.info()["dead"] == 0 and q.peek() == 3
    # a plain pop (no lease) takes it for good
    code, out, _ = ctl("pop", name, *u)
    assert out == "3 CRITICAL seq=3\n" and len(q) == 2 and q.info()["leased"] == 0
    # clear and destroy need --yes (a usage error, nothing dropped)
    for cmd in ("clear", "destroy"):
        code, out, err = ctl(cmd, name, *u)
        assert code == 2 and "--yes" in err and len(q) == 2
    assert ctl("clear", name, "--yes", *u)[0] == 0 and len(q) == 0
    assert ctl("destroy", name, "--yes", *u)[0] == 0
    assert name not in [r["name"] for r in json.loads(ctl("list", "--json", *u)[1])]
    code, out, err = ctl("pop", name, *u)
    assert code == fleetctl.EXIT_NOQUEUE


def test_operator_commands_on_a_lane_queue():
    host()
    srv = fleet_server.shared()
    srv.client()  # the library loaded (fleetctl install)
    name = fleet_server.fresh_name("ctll")
    u = ("--url", srv.url)
    assert ctl("create", name, "--capacity", 8, "--weights", "2,1", *u)[0] == 0
    assert ctl("push", name, 5, "--lane", 1, *u)[0] == 0
    assert ctl("push", name, 6, "--class", "low", *u)[0] == 0
    code, out, _ = ctl("stats", name, "--json", *u)
    s = json.loads(out)
    assert s["kind"] == "lanes" and s["per_lane"] == [
        {"lane": 0, "weight": 2, "queued": 1, "held": 1, "bound": 8},
        {"lane": 1, "weight": 1, "queued": 1, "held": 1, "bound": 8}]
    code, out, _ = ctl("tickets", name, *u)
    assert out.splitlines() == ["5 NORMAL seq=0 lane=1", "6 LOW seq=1 lane=0"]
    code, out, _ = ctl("stats", name, *u)
    assert "lane 0: weight 2, queued 1, held 1 of 8" in out and "CRITICAL=0 HIGH=0 NORMAL=1 LOW=1" in out
    code, out, _ = ctl("pop", name, "--lease-ms", 60000, "--json", *u)
    popped = json.loads(out)
    assert (popped["id"], popped["class"], popped["lane"]) == (5, "NORMAL", 1)
    (row,) = json.loads(ctl("leased", name, "--json", *u)[1])
    assert (row["id"], row["class"], row["lane"], row["seq"], row["token"]) == (5, "NORMAL", 1, 0, popped["token"])
    code, out, _ = ctl("tickets", name, *u)
    assert out.splitlines()[0] == "6 LOW seq=1 lane=0"
    assert out.splitlines()[1].startswith("5 NORMAL seq=0 lane=1 leased expires_in_ms=")
    assert ctl("destroy", name, "--yes", *u)[0] == 0
    code, out, err = ctl("push", name, 1, "--lane", 9, *u)
    assert code == fleetctl.EXIT_NOQUEUE


def test_errors_say_what_to_do_with_one_exit_code_each():
    host()
    srv = fleet_server.shared()
    srv.client()
    u = ("--url", srv.url)
    # a missing queue names the command that makes it; no server internals
    code, out, err = ctl("stats", "nosuchqueue", *u)
    assert code == fleetctl.EXIT_NOQUEUE == 6
    assert "ticketq fleet create nosuchqueue --capacity" in err and "script:" not in err
    assert "user_function" not in err and "create it with a capacity" not in err
    # a refused connection: one line, about a second at most, exit 4
    port = fleet_server.free_port()
    t = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", "fleet", "stats", "q",
                        "--url", "redis://127.0.0.1:%d/0" % port], capture_output=True, text=True, timeout=60)
    took = time.monotonic() - t
    assert p.returncode == fleetctl.EXIT_UNREACHABLE == 4, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "cannot reach" in p.stderr
    # (the interpreter's own start is in `took`: the connection itself is refused at once,
    # with no retries; a generous bound that still fails the old 15.8 s / 4.6 s)
    assert took < 4, took
    # a wrong user or password: exit 4, said as such
    code, out, err = ctl("stats", "q", "--url", "redis://nobody:nopass@127.0.0.1:%d/0" % srv.port)
    assert code == fleetctl.EXIT_AUTH == 5 and "refused the user name or password" in err
    assert "nopass" not in err
    # the library not loaded: exit 6, with the command that loads it
    with fleet_server.RedisServer() as bare:
        code, out, err = ctl("stats", "q", "--url", bare.url)
        assert code == fleetctl.EXIT_NOLIB == 7 and "ticketq fleet install --url" in err, err
        # a server that needs a password, asked without one, says so
        bare.client(install=False).config_set("requirepass", "s3cret")
        code, out, err = ctl("stats", "q", "--url", bare.url)
        assert code == fleetctl.EXIT_AUTH and "needs a password" in err and "redis://:PASSWORD@" in err, err
        url = "redis://:s3cret@127.0.0.1:%d/0" % bare.port
        assert ctl("install", "--url", url)[0] == 0
        import redis

        redis.Redis.from_url(url).config_set("requirepass", "")
    # usage: exit 2, argparse's own words for a misspelled option
    code, out, err = ctl("stats", "q", "--urll", srv.url)
    assert code == 2 and "unrecognized arguments: --urll" in err
    # ... also where a required option is misspelled (argparse would say "required" first)
    code, out, err = ctl("create", "q", "--capcity", 5, *u)
    assert code == 2 and "unrecognized arguments: --capcity" in err, err
    code, out, err = ctl("create", "q", *u)
    assert code == 2 and "required: --capacity" in err, err
    code, out, err = ctl("grant", "u7", "--qeue", "q", *u)
    assert code == 2 and "unrecognized arguments: --qeue" in err, err
    code, out, err = ctl("grant", "u7", *u)
    assert code == 2 and "required: --queue" in err, err
    code, out, err = ctl("dead", "q", "--count", 0, *u)
    assert code == 2 and "--count 0" in err


def test_the_exit_code_table_in_the_docs_is_the_tools_table():
    host()
    from ticketq_tools import exitcodes

    with open(os.path.join(ROOT, "docs", "fleet.md")) as f:
        text = f.read().split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0].isdigit():
            rows[int(cells[0])] = cells[1]
    assert rows == exitcodes.TABLE
    # and the tools use those numbers
    assert (fleetctl.EXIT_UNREACHABLE, fleetctl.EXIT_AUTH, fleetctl.EXIT_NOQUEUE, fleetctl.EXIT_NOLIB) == (
        exitcodes.UNREACHABLE, exitcodes.AUTH, exitcodes.NO_QUEUE, exitcodes.NO_LIBRARY)


def test_the_servers_totals_count_each_event_once():
    # meta's acked, returned, buried, expired (fleet/core.lua, lease.lua): one each per
    # event, never again when a call is sent again and replayed, and shown by stats.
    host()
    srv = fleet_server.shared()
    conn = srv.client()
    q = FleetQueue(conn, fleet_server.fresh_name("tot"), 8, 0, 0, 2)
    for i in range(1, 5):
        q.push(i, 1)
    q.pop(60000)
    a = q._args("ack", (q.last_lease,), True)
    assert q._send(list(a)) == 1 and q._send(list(a)) == 1  # the same call again: replayed
    q.pop(60000)
    q.release(q.last_lease)  # back (returned), delivered once
    q.pop(60000)  # the same ticket (2), delivered twice now
    q.release(q.last_lease)  # max_deliveries 2: buried
    q.pop(1)  # ticket 3, a 1 ms lease
    time.sleep(0.05)
    code, out, _ = ctl("stats", q.name, "--json", "--url", srv.url)  # info reaps it: expired, returned
    t = json.loads(out)["totals"]
    assert t == {"pushed": 4, "popped": 4, "acked": 1, "returned": 2, "buried": 1, "expired": 1}, t
    code, out, _ = ctl("stats", q.name, "--url", srv.url)
    assert "totals: pushed=4 popped=4 acked=1 returned=2 buried=1 expired=1" in out
    q.destroy()


def test_an_operator_user_runs_the_operator_commands():
    # grant --role operator gives what fleetctl's reads and requeue need on its queues, and
    # no more (list, a SCAN of every key, is the admin's: exit 5, said as such).
    host()
    srv = fleet_server.shared()
    admin = srv.client()
    name = fleet_server.fresh_name("op")
    q = FleetQueue(admin, name, 4, 0, 0, 1)
    q.push(1, 2)
    q.pop(60000)
    q.release(q.last_lease)  # a dead letter
    q.push(2, 1)
    q.pop(60000)
    user = "op" + name.replace("-", "")[-20:]
    url = fleetctl.user_url(srv.url, user, fleetctl.grant([admin], user, "operator", [name]))
    try:
        for cmd in (["stats", name, "--json"], ["tickets", name], ["peek", name], ["leased", name],
                    ["dead", name], ["requeue", name], ["push", name, 7], ["pop", name]):
            code, out, err = ctl(*(cmd + ["--url", url]))
            assert code == 0 and "password" not in err, (cmd, code, err)
        assert q.info()["dead"] == 0 and [t[0] for t in q.tickets()] == [7]
        code, out, err = ctl("list", "--url", url)
        assert code == fleetctl.EXIT_AUTH and "may not" in err, err
    finally:
        fleetctl.revoke([admin], user)
        q.destroy()


def test_bad_pushes_are_refused_with_the_queue_unchanged():
    host()
    srv = fleet_server.shared()
    srv.client()
    name = fleet_server.fresh_name("bp")
    u = ("--url", srv.url)
    assert ctl("create", name, "--capacity", 1, *u)[0] == 0
    q = FleetQueue(srv.client(), name)
    for args, want in (([-1], "job id"), ([1 << 30], "job id"), ([1, "--lane", 1], "--lane 1"),
                       ([1, "--class", "urgent"], "--class")):
        code, out, err = ctl("push", name, *(args + list(u)))
        assert code == 2 and want in err and "Traceback" not in err, (args, err)
    assert len(q) == 0
    assert ctl("push", name, 1, *u)[0] == 0
    code, out, err = ctl("push", name, 2, *u)
    assert code == 1 and "full" in err and "nothing pushed" in err, err
    assert [t[0] for t in q.tickets()] == [1]
    q.destroy()
    lname = fleet_server.fresh_name("bpl")
    assert ctl("create", lname, "--capacity", 4, "--weights", "1,1", *u)[0] == 0
    code, out, err = ctl("push", lname, 1, "--lane", 2, *u)
    assert code == 2 and "lane" in err, err
    assert ctl("destroy", lname, "--yes", *u)[0] == 0

# Host only (CPython and a real redis-server): ticketq gateway, the fleet's bridge to a
# board's worker. It acks only what the board accepted and ran, releases what failed (so
# the fleet delivers it again, then dead-letters it), and respects the board's
# backpressure (Worker.submit answers None when full: that ticket goes back to its place).
# The same fleet content on the in-process worker and on the MicroPython unix port (driven
# over mpremote's raw REPL, as a board is) gives the same run lines.
from support import IS_MICROPYTHON, skip

if not IS_MICROPYTHON:
    import os
    import sys

    import fleet_server
    from ticketq.fleet import FleetQueue

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))

# fleet id -> (job name, class); handoff-10 raises OSError on every run (firmware/workload.py)
JOBS = {1: ("telemetry-1", 1), 2: ("sync-2", 0), 3: ("consensus-3", 3), 4: ("handoff-10", 2),
        5: ("telemetry-5", 1), 6: ("handoff-6", 2), 7: ("sync-7", 0)}


def fill(srv, max_deliveries=2, lanes=None):
    # The fleet queue of JOBS; with lanes (weights), a lane queue, job i in lane (i + 1) % lanes.
    conn = srv.client()
    if lanes:
        from ticketq.fleet import FleetLaneQueue

        q = FleetLaneQueue(conn, fleet_server.fresh_name("gwl"), 16, lanes, None, 0, 0, max_deliveries)
    else:
        q = FleetQueue(conn, fleet_server.fresh_name("gw"), 16, 0, 0, max_deliveries)
    names = "names:" + q.name
    for i, (name, cls) in JOBS.items():
        conn.hset(names, i, name)
        if lanes:
            q.push(i, cls, (i + 1) % len(lanes))
        else:
            q.push(i, cls)
    return q, names


def gateway(srv, q, names, *target):
    from ticketq_tools import gateway

    out = []
    code = gateway.main(["--url", srv.url, "--queue", q.name, "--names", names, "--idle-ms", "800",
                         "--lease-ms", "20000"] + list(target), out.append)
    assert code == 0, out
    return out


def check_outcome(q, out):
    acks = [l.split()[2] for l in out if l.startswith("ack ")]
    fails = [l for l in out if l.startswith("release ") and "failed: OSError" in l]
    assert sorted(acks) == sorted(n for i, (n, c) in JOBS.items() if i != 4)
    assert len(fails) == 2 and all("handoff-10" in l for l in fails)  # delivered twice, failed twice
    assert len(q) == 0 and q.info()["leased"] == 0
    # then dead-lettered: id, class, seq, deliveries (and a lane queue's letter: its lane)
    assert q.dead(10) == ([(4, 2, 3, 2, 1)] if hasattr(q, "lanes") else [(4, 2, 3, 2)])


def test_gateway_acks_what_ran_and_releases_what_failed():
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    srv = fleet_server.shared()
    q, names = fill(srv)
    out = gateway(srv, q, names, "--local", "--capacity", "1")
    check_outcome(q, out)
    # A window of one: the board ran the fleet's order, class first, FIFO within a class,
    # and the failed ticket came back to its place each time.
    runs = [l.split()[2] for l in out if l.startswith("run ")]
    assert runs == ["consensus-3", "handoff-10", "handoff-10", "handoff-6", "telemetry-1", "telemetry-5",
                    "sync-2", "sync-7"]


def test_gateway_respects_the_boards_backpressure():
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    srv = fleet_server.shared()
    q, names = fill(srv, 6)
    out = gateway(srv, q, names, "--local", "--capacity", "2", "--window", "4")
    refused = [l for l in out if "refused: board full" in l]
    assert refused  # the window asked for more than the board holds: it said no
    acks = [l.split()[2] for l in out if l.startswith("ack ")]
    assert sorted(acks) == sorted(n for i, (n, c) in JOBS.items() if i != 4)  # nothing lost
    assert len(q) == 0 and q.info()["leased"] == 0
    assert [d[0] for d in q.dead(10)] == [4]  # the failing one, after max_deliveries


def test_gateway_drives_the_unix_port_like_a_board():
    if IS_MICROPYTHON:
        skip("starts a redis-server and the unix port (host only)")
    from ticketq_tools import mpunix

    exe, how = mpunix.find()
    if exe is None:
        skip("no MicroPython unix port: %s" % how)
    srv = fleet_server.shared()
    q, names = fill(srv)
    out = gateway(srv, q, names, "--unix", "--capacity", "3")
    check_outcome(q, out)
    assert any("MicroPython" in l or "unix" in l for l in out if l.startswith("== gateway"))
    q2, names2 = fill(srv)
    local = gateway(srv, q2, names2, "--local", "--capacity", "3")
    runs = [l for l in out if l.startswith("run ")]
    assert runs == [l for l in local if l.startswith("run ")]  # the same jobs, ids, seqs, digests


def test_gateway_pulls_from_a_lane_queue():
    # The gateway opens a lane queue as such and takes its tickets in the rotation's order;
    # acks, releases and dead letters as for a plain queue, and every lane ends empty.
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    srv = fleet_server.shared()
    q, names = fill(srv, lanes=[2, 1])
    order = [t[0] for t in q.tickets()]
    assert order != sorted(order, key=lambda i: (-JOBS[i][1], i))  # not the plain queue's order
    out = gateway(srv, q, names, "--local", "--capacity", "1", "--window", "1")
    assert any("(lanes 2:1)" in l for l in out if l.startswith("== gateway"))
    check_outcome(q, out)
    ran = [int(l.split()[1]) for l in out if l.startswith("ack ") or l.startswith("release ")]
    first = [i for k, i in enumerate(ran) if i not in ran[:k]]
    assert first == order  # one ticket at a time: run in the fleet's pop order
    assert q.lane_info()["held"] == (0, 0)


def test_fleetctl_reads_a_lane_queue():
    # ticketq fleet info and tickets open a lane queue as such (and a plain one as before).
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    import contextlib
    import io

    from ticketq_tools import fleetctl

    srv = fleet_server.shared()
    q, names = fill(srv, lanes=[2, 1])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert fleetctl.main(["tickets", q.name, "--url", srv.url]) == 0
        assert fleetctl.main(["info", q.name, "--url", srv.url]) == 0
    lines = out.getvalue().splitlines()
    assert lines[:len(JOBS)] == ["%d %s seq=%d lane=%d" % (i, ("LOW", "NORMAL", "HIGH", "CRITICAL")[c], s, l)
                                 for i, c, s, p, l in q.tickets()]
    assert lines[len(JOBS)].startswith("%s lanes: 7/16 queued, 0 leased, 0 dead, digest " % q.name)
    assert "lane 0: weight 2, queued 4, held 4 of 16" in out.getvalue()
    assert "lane 1: weight 1, queued 3, held 3 of 16" in out.getvalue()
    assert "no lease" in out.getvalue() and "-1 ms" not in out.getvalue()  # not "expiry in -1 ms"
    q.pop(60000)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert fleetctl.main(["info", q.name, "--url", srv.url]) == 0
    assert ", 1 leased, " in out.getvalue() and "next lease expiry in " in out.getvalue()
    q.destroy()


def _cli(tool, args):
    # `ticketq <tool>` as a user runs it: exit status and stderr
    import subprocess

    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    p = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", tool] + args,
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stderr


def test_fleet_tools_refuse_bad_arguments_as_usage_errors():
    # Exit 2 and one line saying what is wrong, never a traceback, nothing leased.
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    srv = fleet_server.shared()
    q, names = fill(srv)
    cases = [
        ("fleet", ["info", q.name, "--url", "notaurl"], "Redis URL"),
        ("fleet", ["info", "a{b", "--url", srv.url], "name must be"),
        ("fleet", ["dead", q.name, "--url", srv.url, "--count", "0"], "--count"),
        ("gateway", ["--queue", q.name, "--local", "--url", "notaurl"], "Redis URL"),
        ("gateway", ["--queue", "a{b", "--local", "--url", srv.url], "name must be"),
        ("gateway", ["--queue", q.name, "--local", "--url", srv.url, "--capacity", "0"], "--capacity"),
        ("gateway", ["--queue", q.name, "--local", "--url", srv.url, "--capacity", "-3"], "--capacity"),
        ("gateway", ["--queue", q.name, "--local", "--url", srv.url, "--max", "-1"], "--max"),
        ("gateway", ["--queue", q.name, "--local", "--url", srv.url, "--idle-ms", "-5"], "--idle-ms"),
        ("gateway", ["--queue", q.name, "--local", "--url", srv.url, "--timeout", "0"], "--timeout"),
        ("gateway", ["--queue", q.name, "--local", "--url", srv.url, "--kind", "bogus"], "--kind"),
        ("gateway", ["--queue", q.name, "--local", "--url", srv.url, "--window", "0"], "--window"),
        ("gateway", ["--queue", q.name, "--local", "--url", srv.url, "--lease-ms", "0"], "--lease-ms"),
        # past what a lease or a Deadline takes: a traceback once the board was set up
        ("gateway", ["--queue", q.name, "--local", "--url", srv.url, "--lease-ms", "1073741824"], "--lease-ms"),
        ("gateway", ["--queue", q.name, "--local", "--url", srv.url, "--idle-ms", "536870912"], "--idle-ms"),
        ("gateway", ["--queue", q.name, "--local", "--url", srv.url, "--capacity", "16777217"], "--capacity"),
    ]
    opts = ("--max", "--idle-ms", "--timeout", "--window", "--lease-ms", "--capacity")
    for tool, args, want in cases:
        code, err = _cli(tool, args)
        assert code == 2 and "Traceback" not in err and want in err, (tool, args, code, err[-1500:])
        # the error line names the option that is wrong, and its value, not its neighbours
        line = err.strip().splitlines()[-1]
        assert not [o for o in opts if o != want and o in line], line
        if want in opts:
            assert args[-1] in line, line
    assert len(q) == len(JOBS) and q.info()["leased"] == 0


def test_gateway_gives_back_the_leases_of_jobs_it_did_not_run():
    # Stopping after --max jobs, the tickets still on the board go back to their places at
    # once: they were held for the lease's whole 20 s, hidden from every other consumer.
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    srv = fleet_server.shared()
    q, names = fill(srv)
    from ticketq_tools import gateway

    out = []
    assert gateway.main(["--url", srv.url, "--queue", q.name, "--names", names, "--lease-ms", "20000",
                         "--local", "--capacity", "8", "--max", "2"], out.append) == 0
    assert [l.split()[0] for l in out if l.split()[0] in ("ack", "release")][:2] == ["ack", "release"]
    assert q.info()["leased"] == 0 and len(q) == len(JOBS) - 1, (q.info(), out)
    back = [l for l in out if l.endswith("(stopped: not run)")]
    assert len(back) == len(JOBS) - 2, out


def test_gateway_refuses_a_name_of_an_unknown_kind_before_taking_anything():
    # A --names entry whose kind has no job function stopped the gateway with a traceback
    # when its ticket came up, the leases of the tickets on the board still held. The names
    # are checked first: a usage error, exit 2, nothing leased.
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    srv = fleet_server.shared()
    q, names = fill(srv)
    conn = srv.client()
    conn.hset(names, 6, "bogus-6")
    code, err = _cli("gateway", ["--url", srv.url, "--queue", q.name, "--names", names, "--local",
                                    "--idle-ms", "300"])
    assert code == 2 and "Traceback" not in err and "bogus-6" in err, (code, err[-1500:])
    assert len(q) == len(JOBS) and q.info()["leased"] == 0
    conn.delete(names)
    conn.set(names, "not a hash")
    code, err = _cli("gateway", ["--url", srv.url, "--queue", q.name, "--names", names, "--local"])
    assert code == 2 and "Traceback" not in err and names in err, (code, err[-1500:])
    assert len(q) == len(JOBS) and q.info()["leased"] == 0
    q.destroy()


def test_gateway_gives_back_every_lease_when_a_name_added_while_running_is_bad():
    # A name written after the start whose kind is unknown stops the gateway (exit 1, one
    # line): the tickets it held go back to their places, none stays leased.
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    srv = fleet_server.shared()
    q, names = fill(srv)
    from ticketq_tools import gateway

    orig = gateway.Gateway

    class Late(orig):
        def name_of(self, i):
            if i == 4:
                srv.client(install=False).hset(names, 4, "bogus-4")
            return orig.name_of(self, i)

    out = []
    gateway.Gateway = Late
    try:
        code = gateway.main(["--url", srv.url, "--queue", q.name, "--names", names, "--local",
                             "--lease-ms", "20000", "--idle-ms", "300"], out.append)
    finally:
        gateway.Gateway = orig
    assert code == 1, out
    assert q.info()["leased"] == 0, (q.info(), out)
    assert 4 in [t[0] for t in q.tickets()]
    q.destroy()


def test_fleetctl_into_a_closed_pipe_exits_quietly():
    # ticketq fleet source | head: the reader goes away; no BrokenPipeError traceback.
    if IS_MICROPYTHON:
        skip("host only")
    import subprocess

    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    r, w = os.pipe()
    os.close(r)  # the reader is gone before the first byte is written
    p = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", "fleet", "source"],
                       stdout=w, stderr=subprocess.PIPE, text=True, timeout=60)
    os.close(w)
    assert p.returncode == 0 and p.stderr == "", (p.returncode, p.stderr[-1500:])


def test_fleetctl_dead_into_a_closed_pipe_takes_no_letter():
    # fleetctl.py dead ... | head: quiet, exit 0. dead only reads the letters (requeue takes
    # them), so they stay on the list whatever the pipe does.
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")
    import subprocess

    srv = fleet_server.shared()
    q = FleetQueue(srv.client(), fleet_server.fresh_name("deadpipe"), 4, 0, 0, 1)
    for i in (1, 2):
        q.push(i, 1)
        q.pop(60000)
        q.release(q.last_lease)
    assert q.info()["dead"] == 2
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    r, w = os.pipe()
    os.close(r)
    p = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", "fleet", "dead", q.name,
                        "--url", srv.url], stdout=w, stderr=subprocess.PIPE, text=True, timeout=60)
    os.close(w)
    assert p.returncode == 0 and p.stderr == "", (p.returncode, p.stderr[-1500:])
    assert q.info()["dead"] == 2
    p = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", "fleet", "dead", q.name,
                        "--url", srv.url, "--count", "1"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout == "1 NORMAL seq=0 deliveries=1\n", (p.stdout, p.stderr)
    assert q.dead(5) == [(1, 1, 0, 1), (2, 1, 1, 1)]
    q.destroy()


def test_sigterm_stops_the_gateway_as_ctrl_c_does():
    # systemd and docker stop a service with SIGTERM: the gateway stops through the same
    # path as Ctrl-C (the board's leases given back) and exits 143; it died at once, exit
    # -15, its leases held until they ran out.
    if IS_MICROPYTHON:
        skip("starts a redis-server and a gateway process (host only)")
    import signal
    import subprocess

    srv = fleet_server.shared()
    q = FleetQueue(srv.client(), fleet_server.fresh_name("term"), 4)
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    p = subprocess.Popen([sys.executable, "-m", "ticketq_tools.cli", "gateway", "--url", srv.url,
                          "--queue", q.name, "--local", "--idle-ms", "60000"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, PYTHONUNBUFFERED="1"))  # its first line, at once
    try:
        line = p.stdout.readline()  # "== gateway: ...": set up, now waiting for tickets
        assert line.startswith("== gateway"), (line, p.stderr.read() if p.poll() is not None else "")
        p.send_signal(signal.SIGTERM)
        err = p.communicate(timeout=60)[1]
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 143 and "SIGTERM" in err and "Traceback" not in err, (p.returncode, err)
    assert q.info()["leased"] == 0
    q.destroy()

# Host only (CPython and a real redis-server): ticketq gateway through outages (issue 20, 5).
# - The fleet's server goes away and comes back (SIGKILLed, restarted with its AOF): the
#   gateway says so once each way, waits with capped jittered backoff, and goes on; every
#   job runs and is acked, none twice.
# - The board is lost mid-run: its leases are given back at once (not when they run out),
#   the board is opened again, and the jobs run there.
# - Ctrl-C while a ticket is on its way to the board (popped, not yet submitted) leaves
#   nothing leased, and prints the same release lines as any stop.
# - Passwords in Redis URLs are never printed (fleetctl, the gateway): redis://:***@host.
from support import IS_MICROPYTHON, raises, skip

if not IS_MICROPYTHON:
    import os
    import signal
    import sys
    import threading
    import time

    import fleet_server
    from ticketq.fleet import FleetQueue

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))


def host():
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")


def wait_for(cond, what, secs=30.0):
    end = time.monotonic() + secs
    while not cond():
        assert time.monotonic() < end, what
        time.sleep(0.02)


def test_gateway_survives_its_fleet_going_away():
    host()
    from ticketq_tools import gateway

    with fleet_server.RedisServer(appendonly=True) as srv:
        q = FleetQueue(srv.client(), "jobs", 32)
        for i in range(1, 4):
            q.push(i, 1)
        out = []
        box = []

        def run():
            box.append(gateway.main(["--url", srv.url, "--queue", "jobs", "--local", "--max", "6",
                                     "--lease-ms", "60000"], out.append))

        t = threading.Thread(target=run, daemon=True)
        t.start()
        wait_for(lambda: len([l for l in out if l.startswith("ack ")]) == 3, "first 3 acks: %r" % out)
        srv.restart(signal.SIGKILL)  # the gateway is waiting in pop_until: its socket dies
        wait_for(lambda: any(l.startswith("== fleet unreachable") for l in out) or not t.is_alive(),
                 "no outage line: %r" % out)
        q = FleetQueue(srv.client(install=False), "jobs")
        for i in range(4, 7):
            q.push(i, 1)
        t.join(60)
        assert not t.is_alive() and box == [0], (box, out)
    acks = [int(l.split()[1]) for l in out if l.startswith("ack ")]
    assert acks == [1, 2, 3, 4, 5, 6], out
    states = [l.split(":")[0] for l in out if l.startswith("== fleet")]
    assert states == ["== fleet unreachable", "== fleet back"], out


def test_gateway_survives_its_board_going_away():
    host()
    from ticketq_tools import gateway

    srv = fleet_server.shared()
    q = FleetQueue(srv.client(), fleet_server.fresh_name("gwb"), 32)
    for i in range(1, 7):
        q.push(i, 1)
    out = []
    boards = []

    class Flaky(gateway.LocalWorker):
        # the first board dies at its third step, holding jobs; the second one works
        steps = 0

        def step(self):
            if len(boards) == 1:
                Flaky.steps += 1
                if Flaky.steps == 3:
                    raise OSError("board gone (USB unplugged)")
            return gateway.LocalWorker.step(self)

    def reopen():
        boards.append(Flaky(4, out.append))
        return boards[-1]

    gw = gateway.Gateway(q, reopen(), lease_ms=60000, out=out.append)
    sleeps = []
    gateway.supervise(gw, 6, None, reopen, out.append, sleep=sleeps.append)
    assert len(boards) == 2
    lost = [l for l in out if l.startswith("== board")]
    assert [l.split(":")[0] for l in lost] == ["== board lost", "== board back"], out
    given = [l for l in out if l.endswith("(board lost: not run)")]
    assert len(given) == 4, out  # the window of 4 (refilled after each job that ran)
    acks = sorted(int(l.split()[1]) for l in out if l.startswith("ack "))
    assert acks == [1, 2, 3, 4, 5, 6], out
    assert q.info()["leased"] == 0 and len(q) == 0
    assert len(sleeps) == 1 and 0 < sleeps[0] <= 10.0


def test_backoff_is_capped_and_jittered():
    host()
    from ticketq_tools import gateway

    b = gateway.Backoff(0.1, 2.0)
    d = [b.next() for _ in range(40)]
    assert all(0.05 <= x <= 2.0 for x in d)
    assert max(d[:3]) <= 0.4 and min(d[10:]) >= 1.0  # grows, then stays below its cap
    assert len(set(d[10:])) > 1  # jittered
    b.reset()
    assert b.next() <= 0.1


def test_ctrl_c_with_a_ticket_on_its_way_to_the_board_leaves_nothing_leased():
    host()
    from ticketq_tools import gateway

    srv = fleet_server.shared()
    q = FleetQueue(srv.client(), fleet_server.fresh_name("gwc"), 32)
    for i in range(1, 4):
        q.push(i, 1)
    out = []

    class Slow(gateway.LocalWorker):
        def submit(self, name, cls):
            if name.endswith("-2"):
                raise KeyboardInterrupt  # Ctrl-C during the board's round trip
            return gateway.LocalWorker.submit(self, name, cls)

    gw = gateway.Gateway(q, Slow(4, out.append), lease_ms=60000, out=out.append)
    raises(KeyboardInterrupt, gateway.supervise, gw, None, None, None, out.append)
    gw.give_back(quiet=True)  # what main does on any stop
    assert q.info()["leased"] == 0, (q.info(), out)
    back = sorted(int(l.split()[1]) for l in out if l.endswith("(stopped: not run)"))
    assert back == [1, 2], out  # 1 on the board, 2 on its way
    assert [t[0] for t in q.tickets()] == [1, 2, 3]


def test_ctrl_c_inside_a_pop_leaves_nothing_leased():
    # The interrupt cut the pop's reply off (the server leased the ticket): give_back sends
    # the pop again, gets the same lease replayed, and releases it.
    host()
    from ticketq_tools import gateway

    srv = fleet_server.shared()
    conn = fleet_server.Interrupting(srv.client(), "pop")
    q = FleetQueue(conn, fleet_server.fresh_name("gwp"), 32)
    q.push(1, 1)
    out = []
    gw = gateway.Gateway(q, gateway.LocalWorker(4, out.append), lease_ms=60000, out=out.append)
    conn.armed = True
    raises(KeyboardInterrupt, gateway.supervise, gw, None, None, None, out.append)
    assert q.info()["leased"] == 1
    gw.give_back(quiet=True)
    assert q.info()["leased"] == 0 and [t[0] for t in q.tickets()] == [1], out
    assert out == ["release 1 telemetry-1 (stopped: not run)"], out


def test_passwords_are_never_printed():
    host()
    import subprocess

    from ticketq_tools import fleetctl

    assert fleetctl.safe_url("redis://:s3cret@h:6379/0") == "redis://:***@h:6379/0"
    assert fleetctl.safe_url("redis://bob:s3cret@[::1]:6379/2") == "redis://bob:***@[::1]:6379/2"
    assert fleetctl.safe_url("rediss://:p%40ss@h/0") == "rediss://:***@h/0"
    assert fleetctl.safe_url("redis://h:6379/0") == "redis://h:6379/0"
    srv = fleet_server.shared()
    url = "redis://:s3cret@127.0.0.1:%d/0" % srv.port  # (this server asks for none)
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    for tool, args in (("fleet", ["install", "--url", url]),
                       ("gateway", ["--url", url, "--queue", "x", "--local", "--max", "1"])):
        p = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", tool] + args,
                           capture_output=True, text=True, timeout=60)
        text = p.stdout + p.stderr
        assert "s3cret" not in text and "redis://:***@127.0.0.1:" in text, (tool, text)
        assert "Traceback" not in text, (tool, text)


def test_ctrl_c_and_sigterm_with_the_unix_port_leave_nothing_leased():
    # The gateway as an operator runs it, on the MicroPython unix port (each submit and step
    # a raw-REPL round trip), stopped by Ctrl-C (SIGINT) or SIGTERM at several moments of
    # its run: nothing stays leased, and every ticket it had is named in a release line.
    host()
    import subprocess

    from ticketq_tools import mpunix

    exe, how = mpunix.find()
    if exe is None:
        skip("no MicroPython unix port: %s" % how)
    srv = fleet_server.shared()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    for sig, code, after in ((signal.SIGINT, 130, 1), (signal.SIGTERM, 143, 2), (signal.SIGINT, 130, 4)):
        q = FleetQueue(srv.client(), fleet_server.fresh_name("gwu"), 64)
        for i in range(1, 41):
            q.push(i, i % 4)
        # preexec_fn: Ctrl-C's default, as for a command in a terminal's foreground. Started from
        # a shell's background job (`./tools/test &`, nohup), this process and its children
        # inherit SIGINT ignored, and Python then keeps it ignored: the gateway ran on past
        # the signal and the test timed out (twice, in clean-clone runs started that way).
        p = subprocess.Popen([sys.executable, "-m", "ticketq_tools.cli", "gateway", "--url", srv.url,
                              "--queue", q.name, "--unix", "--capacity", "4", "--lease-ms", "600000"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=dict(os.environ, PYTHONUNBUFFERED="1"),
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        lines = []
        try:
            while len([l for l in lines if l.startswith("ack ")]) < after:
                line = p.stdout.readline()
                assert line, (lines, p.stderr.read())
                lines.append(line.rstrip("\n"))
            p.send_signal(sig)
            rest, err = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
        lines += rest.splitlines()
        assert p.returncode == code and "Traceback" not in err, (sig, p.returncode, err)
        info = q.info()
        assert info["leased"] == 0, (sig, after, info, lines, err)
        acked = [int(l.split()[1]) for l in lines if l.startswith("ack ")]
        back = [int(l.split()[1]) for l in lines if l.endswith("(stopped: not run)")]
        assert back, lines  # the board held tickets: each named in its release line
        assert len(set(acked)) == len(acked) and not set(acked) & set(back), lines
        assert info["queued"] == 40 - len(acked), (info, lines)
        q.destroy()

# Host only (CPython and a real redis-server): errors a person can act on (issue 22) outside
# fleetctl itself: the gateway's setup (one line, fast, the exit code of tools/ticketq_tools/exitcodes.py),
# its --names and --lease-ms checks, FleetQueue given a URL, a new lane queue without
# weights, and the board client (ticketq.resp) at a server that wants a password.
from support import IS_MICROPYTHON, skip

if not IS_MICROPYTHON:
    import os
    import subprocess
    import sys
    import time

    import fleet_server
    from ticketq.fleet import FleetQueue

    ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    from ticketq_tools import exitcodes


def host():
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")


def gw(*args):
    t = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", "gateway"] + [str(a) for a in args],
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr, time.monotonic() - t


def test_gateway_setup_errors_one_line_each_with_its_code():
    host()
    srv = fleet_server.shared()
    srv.client()
    # refused: one line, fast (no 15.8 s of retries), exit 4
    code, out, err, took = gw("--url", "redis://127.0.0.1:%d/0" % fleet_server.free_port(),
                              "--queue", "x", "--local")
    assert code == exitcodes.UNREACHABLE and len(err.strip().splitlines()) == 1, err
    assert "cannot reach" in err and "Traceback" not in err and took < 4, (err, took)
    # no such queue: names the command that creates it, no server internals, exit 6
    code, out, err, _ = gw("--url", srv.url, "--queue", "nosuch", "--local")
    assert code == exitcodes.NO_QUEUE and "ticketq fleet create nosuch --capacity" in err, err
    assert "script:" not in err and "user_function" not in err
    # a wrong password: exit 5
    code, out, err, _ = gw("--url", "redis://nobody:pw@127.0.0.1:%d/0" % srv.port, "--queue", "x", "--local")
    assert code == exitcodes.AUTH and "refused the user name or password" in err and ":pw@" not in err, err
    # a misspelled option is argparse's "unrecognized", not "one of ... is required"
    code, out, err, _ = gw("--url", srv.url, "--queue", "x", "--locl")
    assert code == exitcodes.USAGE and "unrecognized arguments: --locl" in err, err
    code, out, err, _ = gw("--url", srv.url, "--queue", "x")
    assert code == exitcodes.USAGE and "one of the arguments --connect --unix --local is required" in err
    code, out, err, _ = gw("--url", srv.url, "--qeue", "x", "--local")  # the required --queue misspelled
    assert code == exitcodes.USAGE and "unrecognized arguments: --qeue" in err, err
    code, out, err, _ = gw("--url", srv.url, "--local")
    assert code == exitcodes.USAGE and "required: --queue" in err, err


def test_gateway_names_are_checked_by_the_workload_rules_and_keys_are_job_ids():
    host()
    srv = fleet_server.shared()
    conn = srv.client()
    q = FleetQueue(conn, fleet_server.fresh_name("gwn"), 4)
    names = "names:" + q.name
    conn.hset(names, mapping={"1": "sync-1", "2": "sync", "x7": "sync-7", "007": "sync-8", "3": "nokind-3"})
    code, out, err, _ = gw("--url", srv.url, "--queue", q.name, "--local", "--names", names)
    assert code == exitcodes.USAGE and "Traceback" not in err, err
    assert "x7: unknown key" in err and "007: unknown key" in err  # not fleet job ids
    assert "2 -> job sync: a job name is <kind>-<number>" in err  # the workload's own rule
    assert "3 -> job nokind-3: no job kind 'nokind'" in err
    assert "1 ->" not in err  # the good entry is not named
    conn.delete(names)
    q.destroy()


def test_a_lease_shorter_than_a_board_round_trip_is_warned_about_once():
    host()
    from ticketq_tools import gateway

    srv = fleet_server.shared()
    q = FleetQueue(srv.client(), fleet_server.fresh_name("gwl"), 8)
    for i in range(1, 4):
        q.push(i, 1)
    lines = []

    class SlowBoard(gateway.LocalWorker):
        def submit(self, name, cls):
            time.sleep(0.05)  # a board 50 ms away
            return gateway.LocalWorker.submit(self, name, cls)

    g = gateway.Gateway(q, SlowBoard(8, lines.append), lease_ms=20, out=lines.append)
    while g.take(None):
        pass
    warn = [l for l in lines if l.startswith("== warning: --lease-ms 20 is shorter than one board round trip")]
    assert len(warn) == 1, lines
    # a lease longer than the round trip: no warning
    q2 = FleetQueue(srv.client(), fleet_server.fresh_name("gwl"), 8)
    q2.push(1, 1)
    lines2 = []
    g2 = gateway.Gateway(q2, SlowBoard(8, lines2.append), lease_ms=60000, out=lines2.append)
    assert g2.take(None) and not [l for l in lines2 if "warning" in l]
    g.give_back(quiet=True)
    g2.give_back(quiet=True)
    q.destroy()
    q2.destroy()


def test_fleetqueue_given_a_url_and_a_lane_queue_without_weights_say_what_to_pass():
    host()
    from ticketq.fleet import FleetLaneQueue

    srv = fleet_server.shared()
    for url in ("redis://127.0.0.1:6379/0", b"redis://127.0.0.1:6379/0"):
        try:
            FleetQueue(url, "jobs")
        except TypeError as e:
            assert "redis.Redis.from_url(url)" in str(e) and "ticketq.resp.Redis.from_url" in str(e)
        else:
            raise AssertionError("a URL was taken as a client")
    conn = srv.client()
    name = fleet_server.fresh_name("lw")
    # Without weights: a keyed lane queue (issue 24), a lane per key, not an error
    q = FleetLaneQueue(conn, name, 8)
    assert q.keyed and conn.hget("tq{%s}:meta" % name, "v").endswith(b":keyed")
    q.destroy()
    assert not conn.exists("tq{%s}:meta" % name)


def test_board_client_at_a_server_that_wants_a_password_says_so():
    host()
    import ticketq.resp as resp

    from ticketq_tools import fleetctl

    with fleet_server.RedisServer() as srv:
        srv.client()
        srv.client(install=False).config_set("requirepass", "s3cret")
        c = resp.Redis("127.0.0.1", srv.port)
        # an FCALL of 10 keys: Redis answers "unauthenticated multibulk length" to it
        for args in (("PING",), ("FCALL", "tq1_info", 10) + tuple("k%d" % i for i in range(10))):
            try:
                c.execute_command(*args)
            except resp.RespError as e:
                msg = str(e)
                assert msg.startswith("NOAUTH the server needs a password: ") and "redis://:PASSWORD@" in msg, msg
            else:
                raise AssertionError("no error without a password")
            c.close()
        c = resp.Redis.from_url("redis://:wrong@127.0.0.1:%d/0" % srv.port)
        try:
            c.execute_command("PING")
        except resp.RespError as e:
            assert str(e).startswith("WRONGPASS the server refused the user name or password"), e
            assert fleetctl.explain(e)[0] == exitcodes.AUTH
        else:
            raise AssertionError("a wrong password was taken")
        c = resp.Redis.from_url("redis://:s3cret@127.0.0.1:%d/0" % srv.port)
        assert c.execute_command("PING") == b"PONG"
        c.close()


def test_gateway_board_unreachable_is_exit_4_as_for_tools_run():
    host()
    try:
        import mpremote  # noqa: F401
    except ImportError:
        skip("no mpremote (tools/setup)")
    import tempfile

    srv = fleet_server.shared()
    conn = srv.client()
    q = FleetQueue(conn, fleet_server.fresh_name("gwb"), 4)
    q.push(1, 1)
    tty = os.path.join(tempfile.mkdtemp(prefix="ticketq-"), "no-such-tty")
    code, out, err, _ = gw("--url", srv.url, "--queue", q.name, "--connect", tty, "--timeout", "2")
    assert code == exitcodes.UNREACHABLE and "Traceback" not in err and tty in err, (code, err)
    assert len(q) == 1 and q.info()["leased"] == 0  # nothing taken
    q.destroy()


def test_a_port_that_is_not_redis_is_said_so_exit_4():
    # something that answers HTTP where the Redis URL points (as a proxy does): fleetctl and
    # the gateway say it is not Redis (redis-py's "Protocol Error: b'HTTP/1.1 400 ...'" was
    # exit 1)
    host()
    import socket
    import threading

    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(4)
    stop = []

    def serve():
        while not stop:
            try:
                c, _ = ls.accept()
            except OSError:
                return
            try:
                c.recv(4096)
                c.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            except OSError:
                pass
            c.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        url = "redis://127.0.0.1:%d/0" % ls.getsockname()[1]
        p = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", "fleet", "stats", "q", "--url", url],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == exitcodes.UNREACHABLE and "does not answer as a Redis server" in p.stderr, p.stderr
        code, out, err, _ = gw("--url", url, "--queue", "q", "--local")
        assert code == exitcodes.UNREACHABLE and "does not answer as a Redis server" in err, err
    finally:
        stop.append(1)
        ls.close()

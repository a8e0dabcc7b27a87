# Host only (CPython and a real redis-server): Prometheus metrics (issue 22) from
# `fleetctl exporter` and the gateway's --metrics-port, scraped over loopback HTTP and read
# with prometheus_client's own parser: depth per class and lane, leased, dead, capacity, the
# next lease expiry, pushed/popped totals, the gateway's outcomes and lease expiries, and
# the latency of server calls.
from support import IS_MICROPYTHON, skip

if not IS_MICROPYTHON:
    import os
    import signal
    import subprocess
    import sys
    import urllib.request

    import fleet_server
    from ticketq.fleet import FleetQueue

    ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    sys.path.insert(0, os.path.join(ROOT, "tools"))


def host():
    if IS_MICROPYTHON:
        skip("starts a redis-server (host only)")


def scrape(url):
    from prometheus_client.parser import text_string_to_metric_families

    with urllib.request.urlopen(url, timeout=30) as r:
        assert r.status == 200
        text = r.read().decode()
    samples = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples


def start(args, first):
    # a tool as a process; read stdout up to the line starting with `first`: (proc, url)
    # SIGINT at its default (stop() sends it), even when this test runs in a background job,
    # which inherits SIGINT ignored (test_fleet_gateway_outages says more)
    p = subprocess.Popen([sys.executable] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, PYTHONUNBUFFERED="1"),
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lines = []
    while True:
        line = p.stdout.readline()
        assert line, (lines, p.stderr.read() if p.poll() is not None else "")
        lines.append(line)
        if line.startswith(first):
            return p, line.split(" at ")[-1].split(" on ")[-1].strip()


def stop(p):
    if p.poll() is None:
        p.send_signal(signal.SIGINT)
        try:
            p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()


def test_fleetctl_exporter_serves_the_queues_numbers():
    host()
    from ticketq.fleet import FleetLaneQueue

    srv = fleet_server.shared()
    conn = srv.client()
    q = FleetQueue(conn, fleet_server.fresh_name("mx"), 16, 0, 0, 1)
    for i, c in ((1, 3), (2, 1), (3, 1), (4, 0)):
        q.push(i, c)
    q.pop(60000)  # 1 leased
    q.pop(60000)
    q.release(q.last_lease)  # 2: one delivery of at most 1: a dead letter
    lq = FleetLaneQueue(conn, fleet_server.fresh_name("mxl"), 8, (2, 1))
    lq.push(9, 2, 1)
    p, url = start(["-m", "ticketq_tools.cli", "fleet", "exporter", "--url", srv.url, "--port", "0",
                    "--queue", q.name, "--queue", lq.name], "== exporter")
    try:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/metrics"), url
        m = scrape(url)
        Q = (("queue", q.name),)

        def cls(c):
            return (("class", c), ("queue", q.name))
        assert (m[("ticketq_queued", cls("NORMAL"))], m[("ticketq_queued", cls("LOW"))],
                m[("ticketq_queued", cls("CRITICAL"))]) == (1, 1, 0)
        assert m[("ticketq_leased", Q)] == 1 and m[("ticketq_dead", Q)] == 1 and m[("ticketq_capacity", Q)] == 16
        assert m[("ticketq_pushed_total", Q)] == 4 and m[("ticketq_popped_total", Q)] == 2
        assert 0 < m[("ticketq_next_lease_expiry_seconds", Q)] <= 60
        L = (("lane", "1"), ("queue", lq.name))
        assert m[("ticketq_lane_queued", L)] == 1 and m[("ticketq_lane_weight", L)] == 1
        assert m[("ticketq_lane_weight", (("lane", "0"), ("queue", lq.name)))] == 2
        assert m[("ticketq_up", ())] == 1
        # the scrape's own server calls were timed, by call
        assert m[("ticketq_server_call_seconds_count", (("op", "tq1_info"),))] >= 2
        q.push(5, 2)
        m = scrape(url)
        assert m[("ticketq_pushed_total", Q)] == 5 and m[("ticketq_queued", cls("HIGH"))] == 1
        # a queue gone: left out, ticketq_up 0, the error counted
        lq.destroy()
        m = scrape(url)
        assert m[("ticketq_up", ())] == 0 and m[("ticketq_scrape_errors_total", ())] >= 1
        assert ("ticketq_lane_queued", L) not in m and m[("ticketq_leased", Q)] == 1
    finally:
        stop(p)
    q.destroy()


def test_gateway_metrics_port():
    host()
    srv = fleet_server.shared()
    conn = srv.client()
    q = FleetQueue(conn, fleet_server.fresh_name("mxg"), 16)
    for i in range(1, 5):
        q.push(i, 1)
    p, url = start(["-m", "ticketq_tools.cli", "gateway", "--url", srv.url, "--queue", q.name, "--local",
                    "--metrics-port", "0"], "== metrics on")
    try:
        # wait for the four jobs to be acked (the gateway's lines), then scrape
        n = 0
        while n < 4:
            line = p.stdout.readline()
            assert line, p.stderr.read() if p.poll() is not None else ""
            n += line.startswith("ack ")
        m = scrape(url)
        assert m[("ticketq_gateway_jobs_total", (("outcome", "acked"),))] == 4
        assert m[("ticketq_gateway_jobs_total", (("outcome", "released"),))] == 0
        assert m[("ticketq_gateway_lease_expiries_total", ())] == 0
        assert m[("ticketq_popped_total", (("queue", q.name),))] == 4
        assert m[("ticketq_queued", (("class", "NORMAL"), ("queue", q.name)))] == 0
        # the gateway's own calls to the fleet, timed by call
        assert m[("ticketq_server_call_seconds_count", (("op", "tq1_ack"),))] == 4
        assert m[("ticketq_server_call_seconds_count", (("op", "tq1_pop"),))] >= 4
    finally:
        stop(p)
    assert q.info()["leased"] == 0
    q.destroy()


def test_without_prometheus_client_the_exporter_says_what_to_install():
    host()
    srv = fleet_server.shared()
    srv.client()
    code = ("import sys; sys.modules['prometheus_client'] = None; sys.path[:0] = [%r, %r]; from ticketq_tools import fleetctl; "
            "sys.exit(fleetctl.main(['exporter', '--url', %r, '--port', '0']))"
            % (os.path.join(ROOT, "tools"), os.path.join(ROOT, "lib"), srv.url))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "pip install prometheus_client" in p.stderr, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr

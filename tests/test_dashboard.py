# Host only (CPython): the fleet dashboard (ticketq dashboard) in a REAL headless browser,
# Debian's chromium driven by selenium through Debian's chromium-driver (tools/setup installs
# both, and selenium from requirements-dev.txt). A real redis-server with a password
# (tests/fleet_server.py) holds the queues; the assertions are on the DOM the browser built
# after the page's scripts ran. Where chromium, chromedriver or selenium is missing the
# browser tests skip, saying which; the HTTP-level and helper tests run anyway. On
# MicroPython (tests/mprun.py) every test skips: nothing here runs on a board.
from support import IS_MICROPYTHON, skip

PASSWORD = "s3cret-dash"
HOSTILE = '<img src=x onerror="window.__xss=1">&amp;"q\''

if not IS_MICROPYTHON:
    import http.client
    import json
    import os
    import re
    import shutil
    import subprocess
    import sys
    import time

    HERE = os.path.dirname(os.path.abspath(__file__))
    ROOT = os.path.dirname(HERE)
    for _p in (os.path.join(ROOT, "tools"), HERE):
        if _p not in sys.path:
            sys.path.insert(0, _p)


def _host():
    if IS_MICROPYTHON:
        skip("host only: a redis-server, the dashboard process and a browser")
    from ticketq_tools import dashboard
    import fleet_server

    return dashboard, fleet_server


def _browser_missing():
    dashboard, _ = _host()
    if not dashboard.chromium_exe():
        return "chromium not installed (tools/setup installs Debian's chromium)"
    if not shutil.which("chromedriver"):
        return "chromedriver not installed (tools/setup installs Debian's chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium not installed (requirements-dev.txt)"
    return None


class Filled:
    # A password-protected redis-server with three queues: "jobs" (plain: 3 dead letters, 2
    # leased, 4 queued), "uplinks" (lanes 3,1) and one whose name is markup. Stopped on exit.
    def __enter__(self):
        _, fleet_server = _host()
        from ticketq.fleet import FleetQueue
        from ticketq.fleet import FleetLaneQueue

        self.srv = srv = fleet_server.RedisServer().start()
        try:
            r = srv.client()
            r.config_set("requirepass", PASSWORD)
            r.close()
            self.url = "redis://:%s@127.0.0.1:%d/0" % (PASSWORD, srv.port)
            self.conn = conn = srv.client(install=False, password=PASSWORD)
            jobs = FleetQueue(conn, "jobs", 100, max_deliveries=1)
            for i in (501, 502, 503):
                jobs.push(i, 2)
            for _ in range(3):
                jobs.pop(1)  # 1 ms leases, run out: dead letters (max_deliveries=1)
            time.sleep(0.01)
            jobs.info()
            for i in range(10, 16):
                jobs.push(i, i % 4)
            jobs.pop(60000)
            jobs.pop(60000)
            up = FleetLaneQueue(conn, "uplinks", 100, [3, 1])
            for i in range(8):
                up.push(100 + i, 1, 0)
            up.push(900, 1, 1)
            FleetQueue(conn, HOSTILE, 10).push(7, 3)
        except BaseException:
            srv.close()
            raise
        return self

    def __exit__(self, *exc):
        self.conn.close()
        self.srv.close()


class Browser:
    # Headless chromium through chromedriver (selenium), quit on exit; skips when missing.
    def __enter__(self):
        why = _browser_missing()
        if why:
            skip(why)
        dashboard, _ = _host()
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        os.environ.setdefault("SE_OFFLINE", "true")  # never let selenium fetch a driver or browser
        opts = webdriver.ChromeOptions()
        opts.binary_location = dashboard.chromium_exe()
        for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--window-size=1280,1400"):
            opts.add_argument(a)
        self.drv = webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver")), options=opts)
        self.drv.set_script_timeout(20)
        return self.drv

    def __exit__(self, *exc):
        self.drv.quit()


def _start(url, actions, interval=0.3):
    dashboard, _ = _host()
    s = dashboard.Sampler(url, interval=interval).start()
    return s, dashboard.Dashboard(s, "127.0.0.1", 0, actions).start()


def _wait(drv, js, secs=20):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        v = drv.execute_script(js)
        if v:
            return v
        time.sleep(0.1)
    raise AssertionError("the page never got there: %s\n%s" % (js, drv.page_source[:3000]))


def _load(drv, dash, samples=0):
    drv.get(dash.url)
    _wait(drv, "return +document.body.dataset.refreshed >= 1")
    if samples:  # enough samples for rates: the page redraws every second
        _wait(drv, "return document.querySelectorAll('section[data-queue=\"jobs\"] polyline').length > 0")


def _text(drv, css):
    return drv.execute_script("return Array.from(document.querySelectorAll(arguments[0])).map(e => e.textContent)", css)


def _post(drv, token=None, queue="jobs"):
    # POST /api/requeue from inside the page (same origin), with or without the token
    return drv.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "const h = {'Content-Type': 'application/json'}; if (arguments[0] !== null) h['X-Ticketq-Token'] = arguments[0];"
        "fetch('/api/requeue', {method: 'POST', headers: h, body: JSON.stringify({queue: arguments[1]})})"
        ".then(r => r.json().then(b => done([r.status, b])))", token, queue)


def test_page_shows_queues_classes_lanes_leases_dead_rates():
    with Browser() as browser, Filled() as f:
        _page_shows_queues_classes_lanes_leases_dead_rates(f.srv, f.url, f.conn, browser)


def _page_shows_queues_classes_lanes_leases_dead_rates(srv, url, conn, browser):
    s, d = _start(url, actions=False)
    try:
        time.sleep(1.0)  # a few samples, for the rates
        _load(browser, d, samples=2)
        # the queue list: every queue, by its own name, as text (the markup one included)
        heads = browser.execute_script(
            "return Array.from(document.querySelectorAll('section.queue')).map(s => s.dataset.queue)")
        assert sorted(heads) == sorted(["jobs", "uplinks", HOSTILE])
        jobs = "section[data-queue=\"jobs\"] "
        assert _text(browser, jobs + "[data-k=queued] b") == ["4"]
        assert _text(browser, jobs + "[data-k=leased] b") == ["2"]
        assert _text(browser, jobs + "[data-k=dead] b") == ["3"]
        # the oldest queued ticket's age, from the server's age marks (fleet/age.lua)
        assert re.match(r"^(at least \d+\.\d s|\d+\.\d s to \d+\.\d s)$", _text(browser, jobs + "[data-k=oldest] b")[0])
        # classes by name, as fleetctl shows them: 10..15 pushed with class i % 4, two popped
        cls = browser.execute_script(
            "const t = document.querySelector(arguments[0] + 'table');"
            "return [Array.from(t.rows[0].cells).map(c => c.textContent), Array.from(t.rows[1].cells).map(c => c.textContent)]",
            jobs)
        assert cls[0] == ["CRITICAL", "HIGH", "NORMAL", "LOW"]
        assert sum(int(x) for x in cls[1]) == 4
        # leased tickets with their expiry (server clock, about 60 s)
        leased = browser.execute_script(
            "return Array.from(document.querySelectorAll(arguments[0] + 'table.leased tr')).slice(1)"
            ".map(r => Array.from(r.cells).map(c => c.textContent))", jobs)
        assert len(leased) == 2
        for row in leased:
            assert row[1] in ("CRITICAL", "HIGH", "NORMAL", "LOW")
            assert 30.0 < float(row[5].split()[0]) <= 60.0
        # dead letters, read without taking them, and no requeue button (read-only)
        dead = _text(browser, jobs + "table.dead tr td:first-child")
        assert dead == ["501", "502", "503"]
        assert browser.execute_script("return document.querySelectorAll('button.requeue').length") == 0
        assert _text(browser, "#mode") == ["read-only"]
        # lanes: weights, and how far each is from its fair share (lane 0 holds 8 of 9 queued
        # tickets with 3/4 of the weight: +14 points; lane 1: 1/9 against 1/4: -14)
        lanes = browser.execute_script(
            "return Array.from(document.querySelectorAll('section[data-queue=\"uplinks\"] table.lanes tr')).slice(1)"
            ".map(r => Array.from(r.cells).map(c => c.textContent))")
        assert [(r[0], r[1], r[2]) for r in lanes] == [("0", "3", "8"), ("1", "1", "1")]
        assert lanes[0][5:] == ["75%", "89%", "+14 pts"] and lanes[1][5:] == ["25%", "11%", "-14 pts"]
        # rates over time: an SVG line per counter
        series = browser.execute_script(
            "return Array.from(document.querySelectorAll(arguments[0] + 'svg.rates polyline')).map(p => p.dataset.series)", jobs)
        assert "pushed" in series and "popped" in series
        # the server shown with its password masked, and the password nowhere in the page
        assert _text(browser, "#server") == ["redis://:***@127.0.0.1:%d/0" % srv.port]
        assert PASSWORD not in browser.page_source
        # the markup name is text: no <img> was made, its onerror never ran
        assert browser.execute_script("return document.querySelectorAll('img').length") == 0
        assert browser.execute_script("return window.__xss === undefined")
        # actions refused without the flag: even with the page's (empty) token, from its origin
        status, body = _post(browser, token="")
        assert status == 403 and "--allow-actions" in body["error"]
        assert conn.llen("tq{jobs}:dead") == 3
    finally:
        d.stop()
        s.stop()


def test_requeue_button_with_allow_actions():
    with Browser() as browser, Filled() as f:
        _requeue_button_with_allow_actions(f.srv, f.url, f.conn, browser)


def _requeue_button_with_allow_actions(srv, url, conn, browser):
    # the one command, as a user starts it: ticketq dashboard --allow-actions --port 0
    p = subprocess.Popen([sys.executable, "-m", "ticketq_tools.cli", "dashboard", "--url", url,
                          "--port", "0", "--interval", "0.5", "--allow-actions"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()
        assert PASSWORD not in line
        m = re.search(r"on (http://127\.0\.0\.1:\d+/) \(actions allowed\)", line)
        assert m, line + p.stderr.read() if p.poll() is not None else line
        browser.get(m.group(1))
        _wait(browser, "return +document.body.dataset.refreshed >= 1")
        assert _text(browser, "#mode") == ["actions allowed"]
        # without the token, or with a wrong one: refused, nothing taken
        assert _post(browser, token=None)[0] == 403
        assert _post(browser, token="x" * 43)[0] == 403
        assert conn.llen("tq{jobs}:dead") == 3
        # the button: the letters go back to their class, the page shows it
        browser.find_element("css selector", "section[data-queue=\"jobs\"] button.requeue").click()
        _wait(browser, "const r = document.querySelector('section[data-queue=\"jobs\"] .result');"
              "return r && r.dataset.status === '200' && r.textContent")
        assert conn.llen("tq{jobs}:dead") == 0
        _wait(browser, "return document.querySelector('section[data-queue=\"jobs\"] [data-k=dead] b').textContent === '0'")
        ids = set(int(m[16:24], 16) for m in (x.decode() for x in conn.zrange("tq{jobs}:ready", 0, -1)))
        assert {501, 502, 503} <= ids
        assert _text(browser, "section[data-queue=\"jobs\"] table.dead tr td") == []
    finally:
        p.terminate()
        p.wait(10)
        p.stdout.close()
        p.stderr.close()


def test_http_guards():
    with Filled() as f:
        _http_guards(f.srv, f.url, f.conn)


def _http_guards(srv, url, conn):
    # Without a browser: the page's headers, the Host check, POST refused when read-only.
    s, d = _start(url, actions=False, interval=5)
    try:
        c = http.client.HTTPConnection("127.0.0.1", d.port, timeout=10)
        c.request("GET", "/")
        r = c.getresponse()
        assert r.status == 200
        assert "script-src 'self'" in r.getheader("Content-Security-Policy")
        assert b'name="ticketq-token" content=""' in r.read()
        c.request("GET", "/api/state", headers={"Host": "evil.example:%d" % d.port})  # DNS rebinding
        r = c.getresponse()
        r.read()
        assert r.status == 421
        c.request("GET", "/api/state")
        r = c.getresponse()
        st = json.loads(r.read())
        assert st["ok"] and st["actions"] is False and st["server"] == "redis://:***@127.0.0.1:%d/0" % srv.port
        assert PASSWORD not in json.dumps(st)
        c.request("POST", "/api/requeue", body=b'{"queue": "jobs"}', headers={"X-Ticketq-Token": ""})
        r = c.getresponse()
        assert r.status == 403 and "read-only" in json.loads(r.read())["error"]
        c.close()
    finally:
        d.stop()
        s.stop()


def test_a_keyed_queue_is_sampled():
    # A keyed lane queue (a lane per key): its panel was only an error ("TQARG ticketq:
    # expected 10 keys, got 12", from the age call) until age.lua served keyed queues. The
    # state carries its numbers and its leased ticket's key as the text it is (the page puts
    # it in with textContent: the browser tests check that for a hostile queue name).
    with Filled() as f:
        from ticketq.fleet import FleetLaneQueue

        k = FleetLaneQueue(f.conn, "keyed-dash", 100)
        k.push(99, 3, HOSTILE)
        assert k.pop(600000) == 99
        for i in range(30):
            k.push(i, i % 4, "dev-%d" % (i % 10))
        s, d = _start(f.url, actions=False, interval=5)
        try:
            st = s.sample()
            assert st["ok"], st
            [p] = [q for q in st["queues"] if q["name"] == "keyed-dash"]
            assert p["error"] is None, p["error"]
            assert p["stats"]["kind"] == "keyed" and p["stats"]["queued"] == 30
            assert p["stats"]["oldest_age_ms"]["min"] >= 0
            assert [(x["id"], x["lane"]) for x in p["leased"]] == [(99, HOSTILE)]
        finally:
            d.stop()
            s.stop()


def test_cross_origin_post_refused():
    with Filled() as f:
        _cross_origin_post_refused(f.srv, f.url, f.conn)


def _cross_origin_post_refused(srv, url, conn):
    s, d = _start(url, actions=True, interval=5)
    try:
        c = http.client.HTTPConnection("127.0.0.1", d.port, timeout=10)
        c.request("POST", "/api/requeue", body=b'{"queue": "nope"}',
                  headers={"X-Ticketq-Token": d.token, "Origin": "http://evil.example"})
        r = c.getresponse()
        assert r.status == 403 and "cross-origin" in json.loads(r.read())["error"]
        c.request("POST", "/api/requeue", body=b'{"queue": "nope"}', headers={"X-Ticketq-Token": d.token})
        r = c.getresponse()
        assert r.status == 404 and "no queue nope" in json.loads(r.read())["error"]
        c.close()
    finally:
        d.stop()
        s.stop()


def test_a_bad_requeue_body_names_the_field_and_its_range():
    # POST /api/requeue (no browser) with a count out of range, or not a whole number, or no
    # queue name: a 400 saying which field and what it takes (count: 1..2**29, fleetctl
    # requeue --count's range), not only the body's shape; nothing is requeued.
    with Filled() as f:
        from ticketq.fleet import FleetQueue

        s, d = _start(f.url, actions=True, interval=5)
        try:
            def post(body):
                c = http.client.HTTPConnection("127.0.0.1", d.port, timeout=10)
                c.request("POST", "/api/requeue", body=json.dumps(body).encode(),
                          headers={"X-Ticketq-Token": d.token, "Content-Type": "application/json"})
                r = c.getresponse()
                out = (r.status, json.loads(r.read())["error"])
                c.close()
                return out

            jobs = FleetQueue(f.conn, "jobs")  # its settings from the server
            dead = jobs.info()["dead"]
            assert dead == 3, dead
            for count, shown in ((0, "0"), (-1, "-1"), ((1 << 29) + 1, "536870913"), ("5", '"5"'),
                                 (1.5, "1.5"), (True, "true"), (None, "null")):
                status, error = post({"queue": "jobs", "count": count})
                assert status == 400, (count, status, error)
                assert error == ('"count": %s: at most this many dead letters, a whole number 1..536870912 '
                                 "(leave it out for all)" % shown), (count, error)
            for body in ({"count": 1}, {"queue": 7}):
                status, error = post(body)
                assert status == 400 and error.startswith('"queue": the queue\'s name, a string'), (body, error)
            status, error = post(["jobs"])
            assert status == 400 and error == 'a JSON body {"queue": NAME[, "count": N]}', error
            assert jobs.info()["dead"] == dead  # nothing requeued
        finally:
            d.stop()
            s.stop()


def test_lane_rows_top_n_and_fair_share():
    dashboard, _ = _host()
    per_lane = [{"lane": "k%d" % i, "weight": 1 + (i % 3), "queued": i, "held": i + 1, "bound": 50}
                for i in range(12)]
    rows, more, more_held = dashboard.lane_rows(per_lane, 5)
    assert [r["lane"] for r in rows] == ["k11", "k10", "k9", "k8", "k7"]
    assert more == 7 and more_held == sum(i + 1 for i in range(7))
    active_w = sum(1 + (i % 3) for i in range(1, 12))  # lane k0 has nothing queued: no share
    top = rows[0]
    assert abs(top["share"] - 3.0 / active_w) < 1e-12
    assert abs(top["backlog"] - 11.0 / 66) < 1e-12
    assert abs(top["off"] - (11.0 / 66 - 3.0 / active_w)) < 1e-12
    assert dashboard.lane_rows([], 8) == ([], 0, 0)


def test_rates_between_samples():
    dashboard, _ = _host()
    t = {k: 0 for k in dashboard.RATE_KEYS}
    h = [(1000, dict(t)), (3000, dict(t, pushed=10, popped=4)), (4000, dict(t, pushed=5))]
    r = dashboard.rates(h)
    assert r[0]["t"] == 3000 and r[0]["pushed"] == 5.0 and r[0]["popped"] == 2.0
    assert r[1]["pushed"] is None and r[1]["popped"] is None  # counters went down: no rate


def test_start_errors_are_fleetctls():
    with Filled() as f:
        _start_errors_are_fleetctls(f.srv, f.url, f.conn)


def _start_errors_are_fleetctls(srv, url, conn):
    # one line and fleetctl's exit code: no password 5, a wrong one 5, unreachable 4, a bad
    # option 2 (argparse), a port already taken 2
    tool = "dashboard"

    def run(*args):
        return subprocess.run([sys.executable, "-m", "ticketq_tools.cli", tool] + list(args), capture_output=True, text=True, timeout=60)

    p = run("--url", "redis://127.0.0.1:%d/0" % srv.port)
    assert p.returncode == 5 and "needs a password" in p.stderr, p.stderr
    p = run("--url", "redis://:wrong@127.0.0.1:%d/0" % srv.port)
    assert p.returncode == 5 and "redis://:***@" in p.stderr and "wrong" not in p.stderr, p.stderr
    p = run("--url", "redis://127.0.0.1:%d/0" % _host()[1].free_port())
    assert p.returncode == 4 and "cannot reach" in p.stderr, p.stderr
    p = run("--interval", "0")
    assert p.returncode == 2 and "--interval" in p.stderr
    p = run("--lane-scan", "0")
    assert p.returncode == 2 and "--lane-scan 0: 1..100000" in p.stderr, p.stderr
    s, d = _start(url, actions=False, interval=5)
    try:
        p = run("--url", url, "--port", str(d.port))
        assert p.returncode == 2 and "cannot serve on 127.0.0.1:%d" % d.port in p.stderr, p.stderr
        assert PASSWORD not in p.stderr + p.stdout
    finally:
        d.stop()
        s.stop()


def test_a_non_loopback_bind_warns_and_takes_any_host():
    with Filled() as f:
        p = subprocess.Popen([sys.executable, "-m", "ticketq_tools.cli", "dashboard", "--url", f.url,
                              "--bind", "0.0.0.0", "--port", "0"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        try:
            first, second = p.stdout.readline(), p.stdout.readline()
            assert "(read-only)" in first and second.startswith("== warning: serving on 0.0.0.0, not loopback"), (
                first, second)
            port = int(re.search(r":(\d+)/ ", first).group(1))
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            c.request("GET", "/api/state", headers={"Host": "dashboard.example:%d" % port})
            r = c.getresponse()
            assert r.status == 200 and json.loads(r.read())["ok"]
            c.close()
        finally:
            p.terminate()
            p.wait(10)
            p.stdout.close()
            p.stderr.close()


# ---- keyed lane queues: the busiest lanes, with bounded reads (docs/fleet-ops.md, "The dashboard in detail")


def _keyed_server():
    _, fleet_server = _host()
    return fleet_server.shared()


def test_keyed_lanes_are_read_in_bounded_steps_and_find_the_busiest():
    dashboard, fleet_server = _host()
    from ticketq.fleet import FleetLaneQueue

    conn = _keyed_server().client()
    q = FleetLaneQueue(conn, fleet_server.fresh_name("dkeyed"), 10000)
    for i in range(3000):  # 3000 lanes of one ticket, and one lane of seven
        q.push(i, 1, "dev-%d" % i)
    for i in range(7):
        q.push(i, 2, "hot")
    q.set_lane("hot", weight=4)
    # a small walk per call: never more than ceil(scan / 1000) kscan calls and 2 * top klane
    memo = {}
    calls = lambda: dict((k, v["calls"]) for k, v in conn.info("commandstats").items() if k == "cmdstat_fcall")  # noqa: E731
    found = None
    for n in range(1, 40):
        before = calls().get("cmdstat_fcall", 0)
        rows, walk = dashboard.keyed_lanes(q, 3, 300, memo)
        fcalls = calls().get("cmdstat_fcall", 0) - before
        assert fcalls <= 1 + 2 * 3 + 1, fcalls  # kscan, klane of the rows (new and old), kinfo
        assert walk["lanes"] == 3001 and not walk["complete"] and 0 < walk["walked"] <= 300
        if rows and rows[0]["key"] == "hot":
            found = n
            break
    # a lane is walked once a pass: 6001 fields (k, o of each lane and hot's s) in steps of 300
    assert found is not None and found <= 6001 // 300 + 2, found
    assert rows[0] == {"key": "hot", "queued": 7, "leased": 0, "held": 7, "weight": 4, "bound": 10000,
                       "ceiling": 10000, "paused": False}
    # and it stays shown, its numbers read again at each call, while it stays the busiest
    q.pop(60000)
    rows, walk = dashboard.keyed_lanes(q, 3, 300, memo)
    assert rows[0]["key"] == "hot" and (rows[0]["queued"], rows[0]["leased"]) == (6, 1)
    # a queue whose lanes fit in one walk: exactly fleetctl's busiest
    small = FleetLaneQueue(conn, fleet_server.fresh_name("dsmall"), 100)
    for i, k in enumerate(["b", "a", "b", 7, "c", "b", 7]):
        small.push(i, 1, k)
    small.pause("c")
    rows, walk = dashboard.keyed_lanes(small, 3, 2000, {})
    assert walk == {"lanes": 4, "walked": 4, "complete": True}
    assert [(r["key"], r["queued"]) for r in rows] == [(b["key"], b["queued"]) for b in small.busiest(3)]
    assert [r["key"] for r in dashboard.keyed_lanes(small, 9, 2000, {})[0]] == ["b", 7, "a", "c"]
    q.destroy()
    small.destroy()


def test_page_shows_keyed_lanes_and_dead_letters_lanes():
    with Browser() as browser:
        dashboard, fleet_server = _host()
        from ticketq.fleet import FleetLaneQueue

        srv = _keyed_server()
        conn = srv.client()
        name = fleet_server.fresh_name("dpage")
        q = FleetLaneQueue(conn, name, 64, max_deliveries=1)
        for i, k in enumerate(["gw", "gw", "gw", HOSTILE, HOSTILE, 12]):
            q.push(i, 1, k)
        q.set_lane("gw", weight=3)
        q.pause(12)
        assert q.pop(60000) == 0 and q.last_lane == "gw"  # one in flight
        q.push(40, 2, HOSTILE)
        assert q.pop(60000) == 40 and q.release(q.last_lease) == 2  # a dead letter, with its key
        s = dashboard.Sampler(srv.url, names=[name], interval=0.3).start()
        d = dashboard.Dashboard(s, "127.0.0.1", 0, False).start()
        try:
            _load(browser, d)
            sel = 'section[data-queue="%s"] ' % name
            _wait(browser, "return document.querySelectorAll(arguments[0]).length > 0".replace(
                "arguments[0]", json.dumps(sel + "table.keyed tr")))
            rows = browser.execute_script(
                "return Array.from(document.querySelectorAll(arguments[0])).slice(1)"
                ".map(r => [r.dataset.key].concat(Array.from(r.cells).map(c => c.textContent)))", sel + "table.keyed tr")
            assert rows == [
                ["gw", "gw", "2", "1", "3", "3", "64", "64", ""],
                [HOSTILE, HOSTILE, "2", "0", "2", "1", "64", "64", ""],
                ["12", "12", "1", "0", "1", "1", "64", "64", "paused"]], rows
            assert _text(browser, sel + "h3")[:2] == ["Classes", "Keyed lanes (busiest 3 of 3)"]
            assert _text(browser, sel + "p.keyed-walk") == ["every lane read at this sample"]
            dead = browser.execute_script(
                "return Array.from(document.querySelectorAll(arguments[0])).slice(1)"
                ".map(r => Array.from(r.cells).map(c => c.textContent))", sel + "table.dead tr")
            assert dead == [["40", "HIGH", "6", HOSTILE, "1"]]
            # keys are text: no element made of the markup key, its onerror never ran
            assert browser.execute_script("return document.querySelectorAll('img').length") == 0
            assert browser.execute_script("return window.__xss === undefined")
        finally:
            d.stop()
            s.stop()
            q.destroy()


def test_requeue_action_puts_keyed_letters_back_into_their_lanes():
    # POST /api/requeue on a keyed queue (no browser): each letter back into its own key's
    # lane; a paused lane's letter is refused (409, the refusal's words) and stays dead with
    # the ones after it; resumed, they go back.
    dashboard, fleet_server = _host()
    from ticketq.fleet import FleetLaneQueue

    srv = _keyed_server()
    conn = srv.client()
    name = fleet_server.fresh_name("dreq")
    q = FleetLaneQueue(conn, name, 16, max_deliveries=1)
    for i, k in enumerate(["a", "p", "b"]):
        q.push(i, 2, k)
        assert q.pop(60000) == i and q.release(q.last_lease) == 2
    q.pause("p")
    s = dashboard.Sampler(srv.url, names=[name], interval=5).start()
    d = dashboard.Dashboard(s, "127.0.0.1", 0, True).start()
    try:
        def post():
            c = http.client.HTTPConnection("127.0.0.1", d.port, timeout=10)
            c.request("POST", "/api/requeue", body=json.dumps({"queue": name}).encode(),
                      headers={"X-Ticketq-Token": d.token, "Content-Type": "application/json"})
            r = c.getresponse()
            out = (r.status, json.loads(r.read()))
            c.close()
            return out

        status, body = post()
        assert status == 409 and "lane 'p' is paused" in body["error"], body
        assert [t[4] for t in q.tickets()] == ["a"]
        assert [int(x.split()[0]) for x in conn.lrange(q.keys[7], 0, -1)] == [1, 2]
        q.resume("p")
        status, body = post()
        assert status == 200 and [(r["id"], r["lane"]) for r in body["requeued"]] == [(1, "p"), (2, "b")], body
        assert sorted(t[4] for t in q.tickets()) == ["a", "b", "p"] and q.info()["dead"] == 0
    finally:
        d.stop()
        s.stop()
        q.destroy()

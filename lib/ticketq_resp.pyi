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
less than that (FleetQueue.slice_ms, 2 s by default, against 10 s here). No TLS, no RESP3,
no pub/sub, no pipelining. Not for the micro:bit (no socket module there).

One command in flight per connection: threads that share one wait for each other (by a
lock, where the interpreter has ``_thread``); after os.fork the child connects anew on its
first command instead of reading replies meant for the parent.
"""

from typing import Any, Optional, Union


class RespError(Exception):
    """An error reply from the server (its text, e.g. "TQLAYOUT ticketq: ..."): the command
    was refused; the connection stays in step."""


class Redis:
    host: str
    port: int
    timeout: float
    """Seconds for connecting and for each reply."""
    password: Optional[str]
    db: int
    username: Optional[str]
    """A Redis 6+ ACL user: AUTH username password (None: AUTH password, the default user)."""
    connects: int
    """Connections made so far (1 after the first command; more after reconnects)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 6379, timeout: float = 10,
                 password: Optional[str] = None, db: int = 0,
                 username: Optional[str] = None) -> None:
        """Nothing is connected until the first command."""

    @classmethod
    def from_url(cls, url: str, timeout: float = 10) -> "Redis":
        """``redis://[[user]:password@]host[:port][/db]`` (a user logs in as that ACL user,
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
        RespError for an error reply, OSError for a network failure (connection closed),
        TypeError for an argument of another type (nothing sent). Interrupted while waiting
        for the reply (KeyboardInterrupt), it closes the connection before the exception goes
        on, so the next command cannot read the interrupted one's reply as its own."""

from typing import Any, List, Optional, Sequence, Union

MAX_BULK: int  # 65536, the default max_bulk
MAX_ITEMS: int  # 4096
MAX_DEPTH: int  # 4
MAX_LINE: int  # 1024


class RespError(Exception):
    ...


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
        ...

    @classmethod
    def from_url(cls, url: str, timeout: float = 10, ca: Optional[bytes] = None,
                 server_hostname: Optional[str] = None) -> "Redis":
        ...

    def connect(self) -> None:
        ...

    def close(self) -> None:
        ...

    def execute_command(self, *args: Union[bytes, str, int]) -> Any:
        ...

    def execute_many(self, commands: Sequence[Sequence[Union[bytes, str, int]]]) -> List[Any]:
        ...

    # for subclasses (ticketq.sentinel.Redis): one command on the open connection, no lock
    # taken; send encoded commands and read n replies (0: one reply)
    def _command(self, args: Sequence[Union[bytes, str, int]]) -> Any:
        ...

    def _send(self, data: bytes, n: int = 0) -> Any:
        ...

from typing import Any, List, Optional, Sequence, Tuple

import ticketq.resp


class Redis(ticketq.resp.Redis):
    sentinels: List[Tuple[str, int]]
    """The sentinels asked, in turn, at every (re)connection."""
    service: str
    """The master's name the sentinels monitor."""

    def __init__(self, sentinels: Sequence[Tuple[str, int]], service: str, timeout: float = 10,
                 password: Optional[str] = None, db: int = 0, username: Optional[str] = None,
                 **kw: Any) -> None:
        ...

    def connect(self) -> None:
        ...

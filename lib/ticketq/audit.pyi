from typing import List, Optional

from ticketq import TicketQueue
from ticketq.lanes import LaneQueue


class Trace:

    size: int
    """Entries kept, >= 1."""

    count: int
    """Pops recorded since construction (may exceed ``size``; the oldest are overwritten);
    saturates at 2**30 - 1 so that it stays a small int and ``record`` never allocates."""

    def __init__(self, size: int) -> None:
        ...

    def record(self, job_id: int, cls: int, seq: int, promoted: bool, lane: int = 0) -> None:
        ...

    def entries(self, lanes: bool = False) -> List[tuple]:
        ...

    def __repr__(self) -> str:
        ...


def tickets(q: TicketQueue) -> List[tuple]:
    ...


def explain(q: TicketQueue, a: int, b: int) -> str:
    ...


def max_wait(capacity: int, aging: int, cls: int) -> Optional[int]:
    ...


def lane_max_wait(q: LaneQueue, lane: int, cls: int) -> Optional[int]:
    ...

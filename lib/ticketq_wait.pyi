from typing import Callable, Optional

from ticketq import QueueEmpty, TicketQueue
from ticketq_ticks import Deadline


class Timeout(QueueEmpty):
    ...


def timeout() -> Timeout:
    ...


def pop_until(q: TicketQueue, deadline: Deadline,
              sleep: Optional[Callable[[int], object]] = None, poll_ms: int = 10) -> int:
    ...

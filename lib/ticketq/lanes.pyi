from typing import Optional, Sequence, Tuple, Union

from ticketq import QueueFull, TicketQueue


class LaneFull(QueueFull):
    ...


class LanesFull(QueueFull):
    ...


# Shared with ticketq.fleet (not API): the argument checkers (any value in; TypeError or
# ValueError for a bad one) and the LaneFull it raises.
def _weights(weights: object) -> Tuple[int, ...]: ...
def _bounds(v: object, capacity: int, n: int) -> Tuple[int, ...]: ...
def _lane_full(lane: int, bound: int) -> LaneFull: ...


def table(weights: Sequence[int]) -> bytearray:
    ...


class LaneQueue(TicketQueue):

    lanes: int
    """Fixed lanes: the number of lanes, 1..30, fixed at construction; lanes are 0 .. lanes
    - 1. Keyed lanes: the number of lanes that exist now, 0..max_lanes. Read only."""

    max_lanes: Optional[int]
    """Keyed lanes: the most lanes that may exist at once, 1..capacity. Fixed lanes: None."""

    weights: Optional[Tuple[int, ...]]
    """Fixed lanes: each lane's weight, 1..32767, sum at most 32767 (W). Keyed: None (each
    lane's weight is set with ``set_lane``). Read only."""

    lane_capacity: Optional[Tuple[int, ...]]
    """Fixed lanes: each lane's bound, 1..capacity tickets (all classes together). Keyed:
    None (``set_lane``). Read only."""

    last_lane: int
    """Lane of the ticket the last pop() returned (keyed: its key); -1 before the first pop
    and after clear()."""

    def __init__(self, capacity: int, weights: Union[None, int, Sequence[int]] = None,
                 lane_capacity: Union[None, int, Sequence[int]] = None,
                 first_seq: int = 0, aging: int = 0,
                 max_lanes: Optional[int] = None) -> None:
        ...

    def push(self, job_id: int, priority: int, lane: int = 0) -> int:
        ...

    def pop(self) -> int:
        ...

    def peek(self) -> int:
        ...

    def remove(self, job_id: int) -> bool:
        ...

    def lane_len(self, lane: int) -> int:
        ...

    def set_lane(self, lane: int, weight: Optional[int] = None,
                 bound: Optional[int] = None) -> None:
        ...

    def lane_settings(self, lane: int) -> Optional[Tuple[int, int, int]]:
        ...

    def clear(self) -> None:
        ...

    def __repr__(self) -> str:
        ...

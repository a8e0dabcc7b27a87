from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from ticketq_fleet import FleetQueue, Job, Token
from ticketq_lanes import LaneFull as LaneFull
from ticketq import QueueFull


class LanesFull(QueueFull):
    """A push for a new key while ``max_lanes`` keyed lanes hold tickets (nothing changed).
    ticketq_lanes' own class when the board's keyed lanes define one, else this one."""


LaneKey = Union[int, str]


class FleetLaneQueue(FleetQueue):

    lanes: int
    """Number of lanes, 1..30, read from the server."""
    weights: Tuple[int, ...]
    """Each lane's weight (1..32767, sum W <= 32767), read from the server."""
    lane_capacity: Tuple[int, ...]
    """Each lane's bound, 1..capacity tickets, queued plus leased, read from the server."""
    table: bytearray
    """The lane table the server computed: W entries, each a lane (ticketq_lanes.table's)."""
    last_lane: Union[int, str]
    """Lane of the ticket the last pop returned; -1 before the first pop and after clear().
    Keyed lanes: the key, an int for a canonical decimal key 0..2**30-1, else the str."""
    keyed: bool
    """True for a keyed lane queue (made without weights: a lane per key, fleet/keyed.lua);
    then lanes, weights, lane_capacity and table are absent."""
    max_lanes: Optional[int]
    """Keyed lanes: the most lanes at once (LanesFull beyond), None for no limit."""

    def __init__(self, conn: Any, name: str, capacity: Optional[int] = None,
                 weights: Union[None, int, Sequence[int]] = None,
                 lane_capacity: Union[None, int, Sequence[int]] = None, first_seq: int = 0,
                 aging: int = 0, max_deliveries: int = 8, prefix: str = "tq", retries: int = 3,
                 slice_ms: int = 2000, max_lanes: Optional[int] = None) -> None:
        ...

    def push(self, job_id: int, priority: int, lane: LaneKey = 0) -> int:
        ...

    def pop(self, lease_ms: int = 0) -> int:
        ...

    def peek(self) -> int:
        ...

    def push_many(self, items: Sequence[Tuple[int, int]]) -> List[int]:
        ...

    def pop_many(self, count: int, lease_ms: int = 0) -> List[Job]:
        ...

    def ack_pop(self, tokens: Sequence[Token], count: int = 1,
                lease_ms: int = 0) -> Tuple[List[bool], List[Job]]:
        ...

    def lane_len(self, lane: LaneKey) -> int:
        ...

    def lane_info(self) -> Dict[str, Any]:
        ...

    def clear(self) -> None:
        ...

    def set_lane(self, key: LaneKey, weight: Optional[int] = None, bound: Optional[int] = None,
                 ceiling: Optional[int] = None) -> Dict[str, Any]:
        ...

    def pause(self, key: LaneKey) -> None:
        ...

    def resume(self, key: LaneKey) -> None:
        ...

    def lane(self, key: LaneKey) -> Dict[str, Any]:
        ...

    def busiest(self, n: int = 10, step: int = 1000) -> List[Dict[str, Any]]:
        ...

    def tickets(self) -> List[Tuple[int, int, int, bool, int]]:  # type: ignore[override]
        ...

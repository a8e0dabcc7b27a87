# ticketq_lanes: DEPRECATED module name, kept for one release (0.1.x). Since issue 23,
# fair lanes are in the package module ticketq.lanes:
# write `from ticketq.lanes import ...`. This module re-exports the same objects (the
# very ones, so `except ticketq_lanes.X` still catches) and goes away in 0.2.0.
"""Deprecated: ``ticketq.lanes`` under its 0.1.0 name ``ticketq_lanes``."""
from ticketq.lanes import (TicketQueue, oldest, renumber, _int, QueueFull, _FULL, _EMPTY, _err,
    LaneFull, LanesFull, _LFULL, _lane_full, _per_lane, _weights, _bounds, table, LaneQueue)  # noqa: F401

try:  # CPython warns; a MicroPython without the names stays quiet
    import warnings

    warnings.warn("ticketq_lanes is deprecated: import ticketq.lanes", DeprecationWarning, 2)
except (ImportError, NameError):  # no warnings module, or no DeprecationWarning
    pass

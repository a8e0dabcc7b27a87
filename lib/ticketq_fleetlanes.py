# ticketq_fleetlanes: DEPRECATED module name, kept for one release (0.1.x). Since issue 23,
# the fleet clients are in the package module ticketq.fleet:
# write `from ticketq.fleet import ...`. This module re-exports the same objects (the
# very ones, so `except ticketq_fleetlanes.X` still catches) and goes away in 0.2.0.
"""Deprecated: ``ticketq.fleet`` under its 0.1.0 name ``ticketq_fleetlanes``."""
from ticketq.fleet import (_int, QueueFull, LaneFull, _lane_full, _weights, _bounds,
    FleetQueue, FleetError, _MASK, _text, LanesFull, _KEYED, _KEYMAX, _HEX, _key, _shown,
    _reply_key, _fold, _no_batch, _ints, _csv, FleetLaneQueue)  # noqa: F401

try:  # CPython warns; a MicroPython without the names stays quiet
    import warnings

    warnings.warn("ticketq_fleetlanes is deprecated: import ticketq.fleet", DeprecationWarning, 2)
except (ImportError, NameError):  # no warnings module, or no DeprecationWarning
    pass

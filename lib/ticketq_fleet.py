# ticketq_fleet: DEPRECATED module name, kept for one release (0.1.x). Since issue 23,
# the fleet clients are in the package module ticketq.fleet:
# write `from ticketq.fleet import ...`. This module re-exports the same objects (the
# very ones, so `except ticketq_fleet.X` still catches) and goes away in 0.2.0.
"""Deprecated: ``ticketq.fleet`` under its 0.1.0 name ``ticketq_fleet``."""
from ticketq.fleet import (_int, QueueFull, QueueEmpty, timeout, Deadline, VERSION, _MASK,
    _BATCH, _SUFFIXES, _WAKE, FleetError, _net, _answer, _Free, _new_lock, _single, _text,
    FleetQueue)  # noqa: F401

try:  # CPython warns; a MicroPython without the names stays quiet
    import warnings

    warnings.warn("ticketq_fleet is deprecated: import ticketq.fleet", DeprecationWarning, 2)
except (ImportError, NameError):  # no warnings module, or no DeprecationWarning
    pass

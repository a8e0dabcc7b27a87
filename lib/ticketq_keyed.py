# ticketq_keyed: DEPRECATED module name, kept for one release (0.1.x). Since issue 23,
# keyed lanes' internals are in the package module ticketq.keyed:
# write `from ticketq.keyed import ...`. This module re-exports the same objects (the
# very ones, so `except ticketq_keyed.X` still catches) and goes away in 0.2.0.
"""Deprecated: ``ticketq.keyed`` under its 0.1.0 name ``ticketq_keyed``."""
from ticketq.keyed import (oldest, renumber, _int, _FULL, _EMPTY, _err, LaneQueue, LanesFull,
    _lane_full, TicketQueue, _LSFULL, _lanes_full, _NAMES, keyed, _kclear, _find, _klane_len,
    _kpush, _kcut, _kfree, _khead, _kpeek, _kpop, _kremove, _kset_lane, _klane_settings,
    _korder, _kwhy)  # noqa: F401

try:  # CPython warns; a MicroPython without the names stays quiet
    import warnings

    warnings.warn("ticketq_keyed is deprecated: import ticketq.keyed", DeprecationWarning, 2)
except (ImportError, NameError):  # no warnings module, or no DeprecationWarning
    pass

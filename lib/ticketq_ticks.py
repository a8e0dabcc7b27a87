# ticketq_ticks: DEPRECATED module name, kept for one release (0.1.x). Since issue 23,
# ticks, deadlines and the blocking pop are in the package module ticketq.ticks:
# write `from ticketq.ticks import ...`. This module re-exports the same objects (the
# very ones, so `except ticketq_ticks.X` still catches) and goes away in 0.2.0.
"""Deprecated: ``ticketq.ticks`` under its 0.1.0 name ``ticketq_ticks``."""
from ticketq.ticks import (ticks_ms, ticks_add, ticks_diff, sleep_ms, Deadline, TICKS_PERIOD,
    TICKS_MAX, _ms, FakeClock)  # noqa: F401

try:  # CPython warns; a MicroPython without the names stays quiet
    import warnings

    warnings.warn("ticketq_ticks is deprecated: import ticketq.ticks", DeprecationWarning, 2)
except (ImportError, NameError):  # no warnings module, or no DeprecationWarning
    pass

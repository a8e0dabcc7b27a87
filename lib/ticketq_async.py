# ticketq_async: DEPRECATED module name, kept for one release (0.1.x). Since issue 23,
# the asyncio wait's names are in the package module ticketq.aio:
# write `from ticketq.aio import ...`. This module re-exports the same objects (the
# very ones, so `except ticketq_async.X` still catches) and goes away in 0.2.0.
"""Deprecated: ``ticketq.aio`` under its 0.1.0 name ``ticketq_async``."""
from ticketq.aio import (Deadline, timeout, _sleep_ms, _alarm, AsyncTickets)  # noqa: F401

try:  # CPython warns; a MicroPython without the names stays quiet
    import warnings

    warnings.warn("ticketq_async is deprecated: import ticketq.aio", DeprecationWarning, 2)
except (ImportError, NameError):  # no warnings module, or no DeprecationWarning
    pass

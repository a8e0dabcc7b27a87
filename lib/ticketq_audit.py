# ticketq_audit: DEPRECATED module name, kept for one release (0.1.x). Since issue 23,
# the audit tools are in the package module ticketq.audit:
# write `from ticketq.audit import ...`. This module re-exports the same objects (the
# very ones, so `except ticketq_audit.X` still catches) and goes away in 0.2.0.
"""Deprecated: ``ticketq.audit`` under its 0.1.0 name ``ticketq_audit``."""
from ticketq.audit import (_int, oldest, _NAMES, Trace, _seq, _lane_order, tickets, _find,
    _describe, _nth, explain, max_wait, lane_max_wait)  # noqa: F401

try:  # CPython warns; a MicroPython without the names stays quiet
    import warnings

    warnings.warn("ticketq_audit is deprecated: import ticketq.audit", DeprecationWarning, 2)
except (ImportError, NameError):  # no warnings module, or no DeprecationWarning
    pass

# ticketq_resp: DEPRECATED module name, kept for one release (0.1.x). Since issue 23,
# the RESP client's classes are in the package module ticketq.resp:
# write `from ticketq.resp import ...`. This module re-exports the same objects (the
# very ones, so `except ticketq_resp.X` still catches) and goes away in 0.2.0.
"""Deprecated: ``ticketq.resp`` under its 0.1.0 name ``ticketq_resp``."""
from ticketq.resp import (RespError, _said, MAX_BULK, MAX_ITEMS, MAX_DEPTH, MAX_LINE, _limit,
    _enc, _wrap, _num, Redis)  # noqa: F401

try:  # CPython warns; a MicroPython without the names stays quiet
    import warnings

    warnings.warn("ticketq_resp is deprecated: import ticketq.resp", DeprecationWarning, 2)
except (ImportError, NameError):  # no warnings module, or no DeprecationWarning
    pass

# ticketq_viper: DEPRECATED module name, kept for one release (0.1.x). Since issue 23,
# the viper hot path's names are in the package module ticketq.viper:
# write `from ticketq.viper import ...`. This module re-exports the same objects (the
# very ones, so `except ticketq_viper.X` still catches) and goes away in 0.2.0.
"""Deprecated: ``ticketq.viper`` under its 0.1.0 name ``ticketq_viper``."""
from ticketq.viper import (BytecodeQueue, promote, renumber, _int, _err, _FULL, _EMPTY, PATH,
    _IDMAX, _THIRTY, _slot, TicketQueue, _run, selfcheck, WHY)  # noqa: F401

try:  # CPython warns; a MicroPython without the names stays quiet
    import warnings

    warnings.warn("ticketq_viper is deprecated: import ticketq.viper", DeprecationWarning, 2)
except (ImportError, NameError):  # no warnings module, or no DeprecationWarning
    pass

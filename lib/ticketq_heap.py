# ticketq_heap: DEPRECATED module name, kept for one release (0.1.x). Since issue 23,
# the heap and the queue are in the package module ticketq.core:
# write `from ticketq.core import ...`. This module re-exports the same objects (the
# very ones, so `except ticketq_heap.X` still catches) and goes away in 0.2.0.
"""Deprecated: ``ticketq.core`` under its 0.1.0 name ``ticketq_heap``."""
from ticketq.core import (up, down, delete, oldest, promote, renumber, _int)  # noqa: F401

try:  # CPython warns; a MicroPython without the names stays quiet
    import warnings

    warnings.warn("ticketq_heap is deprecated: import ticketq.core", DeprecationWarning, 2)
except (ImportError, NameError):  # no warnings module, or no DeprecationWarning
    pass

# ticketq_base: DEPRECATED name, kept for one release (0.1.x): QueueBase and the exceptions
# now live in ticketq_core, with the rest of the queue (issue 23). Import them from ticketq
# (ticketq.QueueFull, ticketq.QueueEmpty, ticketq.QueueBase); this module goes away in the
# next minor version.
"""Deprecated: ``QueueBase``, ``QueueFull`` and ``QueueEmpty`` under their old module name
(import them from ``ticketq``)."""
from ticketq_core import QueueBase, QueueFull, QueueEmpty, _FULL, _EMPTY, _err, _DIG0  # noqa: F401

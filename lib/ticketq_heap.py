# ticketq_heap: DEPRECATED name, kept for one release (0.1.x): the binary heap now lives in
# ticketq_core, with the queue it serves (issue 23). Import from ticketq_core (or use
# ticketq.TicketQueue); this module goes away in the next minor version.
"""Deprecated: the heap functions of ``ticketq_core``, under their old module name."""
from ticketq_core import up, down, delete, oldest, promote, renumber, _int, const  # noqa: F401

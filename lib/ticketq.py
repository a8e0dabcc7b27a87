# ticketq: a clock-free, preallocated priority queue of integer job tickets.
# Full documentation (shapes, ranges, errors, complexity): ticketq.pyi.
#
# The code lives in two modules, imported here in this order on purpose. A BBC micro:bit
# v1 (MicroPython 1.9.2, ~10 KB heap) compiles a whole module in RAM before running any of
# it, so a module that imported the heap itself would compile the heap after its own
# parse had fragmented the heap, and fail with MemoryError. Compiling ticketq_heap first,
# then ticketq_queue, from this tiny module, works on that board.
import ticketq_heap  # noqa: F401  (compile order, see above)
# The public names only: a star import would copy every global of ticketq_queue into
# this module's dict (200 B more on the micro:bit).
from ticketq_queue import TicketQueue, QueueFull, QueueEmpty, LOW, NORMAL, HIGH, CRITICAL  # noqa: F401

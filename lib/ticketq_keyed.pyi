# Deprecated name of ticketq.keyed (one release).
from ticketq.keyed import oldest as oldest
from ticketq.keyed import renumber as renumber
from ticketq.keyed import LaneQueue as LaneQueue
from ticketq.keyed import LanesFull as LanesFull
from ticketq.keyed import TicketQueue as TicketQueue
from ticketq.keyed import keyed as keyed

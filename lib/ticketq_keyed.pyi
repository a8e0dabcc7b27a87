# Deprecated name of ticketq.keyed (one release).
from ticketq.lanes import LaneQueue as LaneQueue
from ticketq.lanes import LanesFull as LanesFull
from ticketq import TicketQueue as TicketQueue
from ticketq.keyed import keyed as keyed  # no stub: keyed.py is read

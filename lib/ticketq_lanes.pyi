# Deprecated name of ticketq.lanes (one release).
from ticketq import TicketQueue as TicketQueue
from ticketq import QueueFull as QueueFull
from ticketq.lanes import LaneFull as LaneFull
from ticketq.lanes import LanesFull as LanesFull
from ticketq.lanes import table as table
from ticketq.lanes import LaneQueue as LaneQueue

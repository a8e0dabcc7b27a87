# Deprecated name of ticketq.lanes (one release).
from ticketq.lanes import TicketQueue as TicketQueue
from ticketq.lanes import oldest as oldest
from ticketq.lanes import renumber as renumber
from ticketq.lanes import QueueFull as QueueFull
from ticketq.lanes import LaneFull as LaneFull
from ticketq.lanes import LanesFull as LanesFull
from ticketq.lanes import table as table
from ticketq.lanes import LaneQueue as LaneQueue

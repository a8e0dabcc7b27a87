# Deprecated name of ticketq.aio (one release).
from ticketq.ticks import Deadline as Deadline
from ticketq.ticks import timeout as timeout
from ticketq.aio import AsyncTickets as AsyncTickets

# Deprecated name of ticketq.aio (one release).
from ticketq.aio import Deadline as Deadline
from ticketq.aio import timeout as timeout
from ticketq.aio import AsyncTickets as AsyncTickets

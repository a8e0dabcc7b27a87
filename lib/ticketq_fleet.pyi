# Deprecated name of ticketq.fleet (one release).
from ticketq import QueueFull as QueueFull
from ticketq import QueueEmpty as QueueEmpty
from ticketq.ticks import timeout as timeout
from ticketq.ticks import Deadline as Deadline
from ticketq.fleet import VERSION as VERSION
from ticketq.fleet import FleetError as FleetError
from ticketq.fleet import FleetQueue as FleetQueue

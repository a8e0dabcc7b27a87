# Deprecated name of ticketq.fleet (one release).
from ticketq.fleet import QueueFull as QueueFull
from ticketq.fleet import QueueEmpty as QueueEmpty
from ticketq.fleet import timeout as timeout
from ticketq.fleet import Deadline as Deadline
from ticketq.fleet import VERSION as VERSION
from ticketq.fleet import FleetError as FleetError
from ticketq.fleet import FleetQueue as FleetQueue

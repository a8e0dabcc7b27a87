# Deprecated name of ticketq.fleet (one release).
from ticketq import QueueFull as QueueFull
from ticketq.fleet import LaneFull as LaneFull
from ticketq.fleet import FleetQueue as FleetQueue
from ticketq.fleet import FleetError as FleetError
from ticketq.fleet import LanesFull as LanesFull
from ticketq.fleet import FleetLaneQueue as FleetLaneQueue

# Deprecated name of ticketq.ticks (one release).
from ticketq import QueueEmpty as QueueEmpty
from ticketq.ticks import sleep_ms as sleep_ms
from ticketq.ticks import Deadline as Deadline
from ticketq.ticks import Timeout as Timeout
from ticketq.ticks import timeout as timeout
from ticketq.ticks import pop_until as pop_until

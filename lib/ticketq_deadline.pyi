# Deprecated name of ticketq.ticks (one release).
from ticketq.ticks import ticks_ms as ticks_ms
from ticketq.ticks import ticks_add as ticks_add
from ticketq.ticks import ticks_diff as ticks_diff
from ticketq.ticks import sleep_ms as sleep_ms
from ticketq.ticks import Deadline as Deadline

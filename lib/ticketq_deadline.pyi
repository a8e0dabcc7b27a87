from ticketq_ticks import Deadline as Deadline
from ticketq_ticks import sleep_ms as sleep_ms
from ticketq_ticks import ticks_add as ticks_add
from ticketq_ticks import ticks_diff as ticks_diff
from ticketq_ticks import ticks_ms as ticks_ms

# Deprecated name of ticketq.ticks (one release).
def ticks_add(t: int, delta: int) -> int: ...  # ticketq.ticks._ticks_add
def ticks_diff(a: int, b: int) -> int: ...  # ticketq.ticks._ticks_diff
from ticketq.ticks import ticks_ms as ticks_ms
from ticketq.ticks import sleep_ms as sleep_ms

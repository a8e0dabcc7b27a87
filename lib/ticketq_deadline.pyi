"""ticketq_deadline: the tick functions and ``Deadline``, the part of ``ticketq_ticks`` that a
board's firmware imports.

Everything here is re-exported by ``ticketq_ticks`` and documented there (see
``ticketq_ticks.pyi``); import ``ticketq_ticks`` in applications and tests. This module exists
so that a board short of RAM (the BBC micro:bit v1: ~9.8 KB of heap) compiles only what runs:
about 1.2 KB of RAM once imported there, against 1.9 KB with ``FakeClock``.
"""

from ticketq_ticks import Deadline as Deadline
from ticketq_ticks import sleep_ms as sleep_ms
from ticketq_ticks import ticks_add as ticks_add
from ticketq_ticks import ticks_diff as ticks_diff
from ticketq_ticks import ticks_ms as ticks_ms

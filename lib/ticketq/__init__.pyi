from array import array
from typing import Any, Optional

from ticketq.core import QueueBase as QueueBase  # the base every queue class shares (no stub: core.py is read)

LOW: int  # 0
NORMAL: int  # 1
HIGH: int  # 2
CRITICAL: int  # 3: pops first

PATH: str
"""The hot path in use: ``"c"`` (the C core, module ``_ticketq``: docs/c-core.md), ``"viper"``
(ticketq.viper) or ``"bytecode"``; see "Hot paths"."""

WHY: Optional[str]
"""Why not a faster path: ``None`` on the C path; on the viper path why not the C core
(``"no C core: no module named '_ticketq'"``, ``"no C core: _ticketq blocked in sys.modules"``,
``"no C core: ticketq.ccore: self-check failed ..."``); on the bytecode path ``str()`` of the exception
that kept ``ticketq.viper`` out (its message; empty only for an exception raised without
one). E.g. ``"no module named 'ticketq.viper'"`` (the micro:bit), ``"invalid micropython
decorator"`` (the WebAssembly VM), ``"ticketq.viper: 32-bit ports only"`` (CPython, a 64-bit
unix port), ``"ticketq.viper blocked in sys.modules"`` (the bytecode path forced, by either name),
``"ticketq.viper: self-check failed: ..."`` (the import's self-check found the viper class
wrong: docs/armv6m-frozen-viper.md). Set once, at the first ``import ticketq``."""

__version__: str
"""The library's version, ``"MAJOR.MINOR.PATCH"``: the same in ``package.json`` (mip),
``manifest.py`` (frozen builds) and the ``ticketq`` pip package (CHANGELOG.md). Not on a
BBC micro:bit v1: ``ticketq deploy`` leaves the line out there, where its two names cost
``import ticketq`` 0.3 KB of heap (docs/install.md)."""


class QueueFull(Exception):
    ...


class QueueEmpty(Exception):
    ...


class TicketQueue:

    capacity: int
    """Number of slots, fixed at construction, 1 <= capacity <= 2**24. Read only, by
    contract: it is a plain attribute (a property would slow every push on a board), and
    assigning it breaks the queue (the arrays keep their size)."""

    aging: int
    """Promote the oldest ticket (pushed first) below CRITICAL one class every ``aging`` pops;
    0 = off. 0 <= aging <= 2**30 - 1 (a small int). Checked by the constructor only: it may
    be reassigned between pops, to a plain int in that range, but the assignment is not
    checked (a property would slow every pop on a board). The viper class refuses a non-int
    there (TypeError). The bytecode class stores whatever it is given: None turns aging off
    without an error, a float promotes on its own arithmetic, and a str raises TypeError in
    a later pop, after that pop's ticket has left the queue."""

    last_priority: int
    """Class (0..3) of the ticket the last pop() returned; -1 before the first pop since
    construction or clear() (as the digest, it describes the schedule since then)."""

    last_seq: int
    """Sequence number (0 <= s < 2**30) of the ticket the last pop() returned; -1 before the
    first pop since construction or clear()."""

    digest: int
    """Schedule digest, 0 <= digest < 2**30: a pure function of the pops since construction
    or clear(). Two boards compare whole schedules by comparing this one number."""

    trace: Any
    """None, or an object whose ``record(id, cls, seq, promoted)`` pop calls (see
    ticketq.audit.Trace: a preallocated ring of the last K pops; a LaneQueue passes the
    lane too, ``record(id, cls, seq, promoted, lane)``, for lanes other than 0)."""

    def __init__(self, capacity: int, first_seq: int = 0, aging: int = 0) -> None:
        ...

    def push(self, job_id: int, priority: int, /) -> int:
        ...

    def pop(self) -> int:
        ...

    def peek(self) -> int:
        ...

    def remove(self, job_id: int) -> bool:
        ...

    def full(self) -> bool:
        ...

    def clear(self) -> None:
        ...

    def __len__(self) -> int:
        ...

    def __repr__(self) -> str:
        ...

    # Not API: what the subclass ticketq.lanes.LaneQueue shares (its slots hold the same
    # keys and ids, unordered), declared so that the type checker sees it.
    _k: array  # keys, ((1 - class) << 29) + internal sequence, slots 0 .. len - 1
    _d: array  # job ids, ~id once aging promoted the ticket
    _n: int
    _nxt: int  # the next internal sequence number (tests fast-forward a queue holding no
    # CRITICAL ticket by adding to it: as that many CRITICAL pushes each popped at once, the
    # digest and last_* aside; below _lim, so no renumbering is skipped)
    _nb: int  # outside sequence = internal + _nb, modulo 2**30
    _lim: int  # the internal counter's limit (tests narrow it)
    _left: int  # pops to the next promotion

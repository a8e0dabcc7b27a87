"""shell: the worker at the REPL, for a person over ``mpremote``.

::

    $ mpremote connect /dev/ttyACM0 repl          # or socket://127.0.0.1:PORT (emulator)
    >>> from shell import *
    >>> w = boot(kinds=KINDS)                     # KINDS: from workload import KINDS
    >>> w.submit("handoff-1", "CRITICAL")         # -> 1 (job id), or None: backpressure
    >>> w.submit("sync-1", "LOW")
    >>> w                                         # <Worker <TicketQueue 2/32 ...> ran=0 next=handoff-1>
    >>> w.ls()                                    # queued tickets in pop order, with names
    >>> w.step()                                  # run one job, prints its log line
    >>> w.run(500)                                # run until a deadline 500 ms from now
    >>> w.cancel("sync-1")                        # by name or id -> True / False
    >>> w.log()                                   # the last runs (the log ring)
    >>> w.summary()                               # counts per class, final digest

Kept out of ``worker`` so that a board that only runs jobs does not pay for it: it imports
``ticketq.audit`` and ``ticketq.ticks`` besides, and the BBC micro:bit v1 has no RAM left
for it beside the library and the worker; there, drive ``worker.Worker`` directly
(``w.submit(name, 2, fn)``, ``w.step()``, ``w.run(500)``, ``w.cancel(i)``, ``w.stats``).
"""

from typing import Callable, Dict, Iterable, List, Optional, Union

from worker import CLASSES, Worker


class Shell(Worker):
    """A Worker with REPL conveniences: class names, job kinds, cancel by name, the log
    ring, ``ls``/``summary``/``repr`` and the heartbeat."""

    echo: Optional[Callable[[str], object]]
    """Where run lines and the ``full``/``cancel`` messages go (the ``out`` given to the
    constructor; None: nowhere). The worker's own ``out`` is the shell's line keeper."""

    lines: List[Optional[str]]
    """The log ring: the last ``logsize`` run lines (``log()`` prints them in order)."""

    nlines: int
    """Run lines seen so far."""

    led: Optional[Callable[[int], object]]
    """Heartbeat: called as ``led(pops & 1)`` after every job (``boot`` sets it from the
    board profile); ``None``: no heartbeat."""

    def __init__(self, capacity: int, aging: int = 0, clock: Optional[object] = None,
                 out: Optional[Callable[[str], object]] = print, logsize: int = 8) -> None:
        """As ``Worker``, plus ``logsize`` (>= 1): entries in the log ring."""

    kinds: Dict[str, Callable[[str], object]]
    """Job kinds: ``kind -> fn(name)``. A job's kind is its name up to the first ``-``
    (``"handoff-7"`` is a ``handoff``). Class attribute ``{}``; ``boot(kinds=...)`` sets it."""

    def submit(self, name: str, cls: Union[int, str],
               fn: Optional[Callable[[str], object]] = None) -> Optional[int]:
        """Worker.submit, where ``cls`` may be a class name (``"HIGH"``) and ``fn`` defaults
        to ``kinds[kind of name]``. ValueError for an unknown class name (``job_class``) or,
        without ``fn``, an unknown kind (``job_kind``; TypeError for a name that is not a
        str), nothing submitted. On backpressure
        also prints ``full <name> <CLASS>`` through ``echo`` and returns None."""

    def cancel(self, job: Union[int, str]) -> bool:
        """Worker.cancel by id, or by name: the oldest queued job of that name (the lowest
        sequence number, on the 2**30 ring; ids say nothing of age, they are reused). On
        success also prints ``cancel <id> <name> <CLASS>`` through ``echo``. False if no
        such job is queued."""

    def log(self, out: Callable[[str], object] = print) -> None:
        """Print what ran: the log ring, oldest first (the last ``min(nlines, logsize)``
        run lines, exactly as they were printed when the jobs ran)."""

    def ls(self, out: Callable[[str], object] = print) -> None:
        """Print the queued tickets in pop order: ``<id> <name> <CLASS> seq=<n>`` (the class
        they hold now, after any promotion by aging). Allocates (sorts a copy)."""

    def summary(self, out: Callable[[str], object] = print) -> None:
        """Print ``summary ran=.. failed=.. cancelled=.. refused=.. queued=.. digest=........``
        then one line per class, CRITICAL first, with the same four counters. Every
        submitted job is in exactly one of ran, cancelled, refused or queued."""

    def __repr__(self) -> str:
        """``<Worker <TicketQueue n/capacity CRITICAL=..> ran=N next=<name or ->>``."""


def job_class(cls: Union[int, str]) -> int:
    """The class number of a class name (``"HIGH"`` -> 2) or of a number (returned as it
    is, for Worker.submit to check). ValueError ``class 'X': LOW, NORMAL, HIGH or
    CRITICAL`` for any other name: the same message at the REPL, in the workload player
    and from tools/run driving a board, on every interpreter."""


def job_kind(name: str, kinds: Iterable[str]) -> str:
    """A job's kind, its name up to the first ``-`` (``"handoff-7"`` -> ``"handoff"``).
    ValueError ``job NAME: no job kind 'K' (the kinds)`` when it is not one of ``kinds``;
    TypeError when ``name`` is not a str."""


def boot(capacity: Optional[int] = None, aging: int = 0,
         kinds: Optional[Dict[str, Callable[[str], object]]] = None,
         out: Optional[Callable[[str], object]] = print) -> Shell:
    """A Shell set up from the board profile ``board.py`` (on a board: beside this file).

    capacity: queue slots; None: ``board.CAPACITY`` (32 when there is no board.py).
    aging: passed to the queue (0: strict priority).
    kinds: the job kinds (e.g. ``workload.KINDS``).
    out: the log line sink.
    The heartbeat comes from ``board.HEARTBEAT``: ``"microbit"`` blinks the centre pixel
    of the 5x5 display (``microbit.display``); a pin number or name (``2``, ``"LED"``) is
    driven through ``machine.Pin``; ``None``, or a board where the module or the pin is
    missing, gives no heartbeat (never an error).
    """

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

Kept out of ``worker`` so that a board that only runs jobs does not pay for it: on the
BBC micro:bit v1 it does not fit beside the library and the worker (about 2.4 KB of heap
once imported, measured on MicroPython 1.9.2); there, drive ``worker.Worker`` directly
(``w.submit(name, 2, fn)``, ``w.step()``, ``w.run(500)``, ``w.cancel(i)``, ``w.log()``).
"""

from typing import Callable, Dict, Optional, Union

from worker import CLASSES, Worker


class Shell(Worker):
    """A Worker with REPL conveniences. Same constructor as Worker."""

    kinds: Dict[str, Callable[[str], object]]
    """Job kinds: ``kind -> fn(name)``. A job's kind is its name up to the first ``-``
    (``"handoff-7"`` is a ``handoff``). Class attribute ``{}``; ``boot(kinds=...)`` sets it."""

    def submit(self, name: str, cls: Union[int, str],
               fn: Optional[Callable[[str], object]] = None) -> Optional[int]:
        """Worker.submit, where ``cls`` may be a class name (``"HIGH"``) and ``fn`` defaults
        to ``kinds[kind of name]`` (KeyError if there is none). On backpressure also
        prints ``full <name> <CLASS>`` through ``out`` and returns None."""

    def cancel(self, job: Union[int, str]) -> bool:
        """Worker.cancel by id, or by name: the queued job of that name with the lowest id
        (the oldest). On success also prints ``cancel <id> <name> <CLASS>`` through
        ``out``. False if no such job is queued."""

    def ls(self, out: Callable[[str], object] = print) -> None:
        """Print the queued tickets in pop order: ``<id> <name> <CLASS> seq=<n>`` (the class
        they hold now, after any promotion by aging). Allocates (sorts a copy)."""

    def summary(self, out: Callable[[str], object] = print) -> None:
        """Print ``summary ran=.. failed=.. cancelled=.. refused=.. queued=.. digest=........``
        then one line per class, CRITICAL first, with the same four counters. Every
        submitted job is in exactly one of ran, cancelled, refused or queued."""

    def __repr__(self) -> str:
        """``<Worker <TicketQueue n/capacity CRITICAL=..> ran=N next=<name or ->>``."""


def boot(capacity: Optional[int] = None, aging: int = 0,
         kinds: Optional[Dict[str, Callable[[str], object]]] = None,
         out: Optional[Callable[[str], object]] = print) -> Shell:
    """A Shell set up from the board profile ``board.py`` (on a board: beside this file).

    capacity: queue slots; default ``board.CAPACITY`` (32 when there is no board.py).
    aging: passed to the queue (0: strict priority).
    kinds: the job kinds (e.g. ``workload.KINDS``).
    out: the log line sink.
    The heartbeat comes from ``board.HEARTBEAT``: ``"microbit"`` blinks the centre pixel
    of the 5x5 display (``microbit.display``); a pin number or name (``2``, ``"LED"``) is
    driven through ``machine.Pin``; ``None``, or a board where the module or the pin is
    missing, gives no heartbeat (never an error).
    """

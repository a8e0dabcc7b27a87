"""worker: the job runner of the ticketq firmware, sized for a BBC micro:bit v1.

The queue (``ticketq.TicketQueue``) holds only job ids; the worker owns the id-to-job table
``jobs[id] = (name, fn, class, pops at push)`` and runs a job as ``fn(name)``. It admits a
job with a priority class (LOW..CRITICAL, 0..3), runs the next ticket (highest class, then
lowest sequence number; with aging, the queue's promotions apply), and when idle waits for
new work with a ``ticketq_ticks.Deadline`` through ``ticketq_wait.pop_until``.

Backpressure: ``submit`` on a full queue returns ``None`` (ids start at 1, so ``if not
w.submit(...)`` works; ``is None`` says it best), counts the refusal in ``stats`` and leaves
the queue unchanged. It does not raise: a refusal is an expected answer under load, not an
error, and a REPL line or a workload loop handles it without try/except. Nothing is dropped silently: every submitted job is either
refused (None), cancelled (``cancel`` returned True), or run (one log record).

Failures: a job that raises an ``Exception`` is recorded with the exception's class name
(``OSError``) and counted as failed; the worker goes on with the next ticket.
``KeyboardInterrupt`` (Ctrl-C at the REPL) and ``SystemExit`` are not caught.

The log: one record per run in a preallocated ring of ``logsize`` entries, and, when ``out``
is set, one printed line per run, with no timestamp, so two boards that get the same
submissions in the same order print identical lines and can be compared with ``diff``::

    run <id> <name> <CLASS>[><CLASS run at>] seq=<n> waited=<pops> digest=<8 hex> <result>
    run 32 handoff-10 CRITICAL seq=31 waited=0 digest=1dcddb2e OSError
    run 20 sync-2 LOW>NORMAL seq=19 waited=18 digest=07c26c26 ok

``<CLASS>`` is the class the job was submitted with; ``>CLASS`` follows when aging promoted
the ticket and names the class it popped at. ``seq`` is the ticket's sequence number,
``waited`` the pops of other tickets between its push and its pop (pop count at run minus
pop count at push), ``digest`` the queue's schedule digest after this pop (``%08x``) and
``<result>`` ``ok`` or the exception's class name (never its message: messages differ
between interpreters).

Time: ticks only, through ``ticketq_ticks``; the wall clock is never read. Pass a
``ticketq_ticks.FakeClock`` to drive ``run`` from a test.

Memory (MicroPython): the queue's arrays, ``stats`` (16 ints) and the log ring (5 ints, two
references per entry) are allocated in ``__init__``. Measured on the BBC micro:bit v1
(MicroPython 1.9.2 under QEMU): importing this module takes about 2.3 KB of heap (comments
cost nothing), a ``Worker(32)`` about 0.7 KB (``logsize=8``; 0.95 KB with 16) plus the
queue's 256 bytes of arrays. The micro:bit's C stack allows only a few nested Python calls:
the deepest path here is ``run`` -> ``pop_until`` -> ``TicketQueue.pop`` (only when idle);
``step``/``run`` call the job and then ``line`` one after the other, never nested. Call them
from the REPL or a shallow main loop. ``submit`` allocates the table entry (a
tuple and a dict slot). ``step``/``run`` allocate nothing themselves: only what the job does,
what ``out`` does with the line, and the line itself when ``out`` is set (proved under
``micropython.heap_lock()`` on the MicroPython VM, with ``out=None``); a failing job
allocates its exception and the name of its class.

Runs unchanged on CPython >= 3.9 and MicroPython 1.9.2. The REPL conveniences (class names,
job kinds, cancel by name, ls, summary, heartbeat, boot from ``board.py``) are in ``shell``.

At the REPL (``mpremote connect PORT repl``), with the worker alone::

    >>> from worker import Worker
    >>> w = Worker(32)
    >>> def blink(name): print("job", name)
    >>> w.submit("blink-1", 2, blink)      # 1, or None: the queue is full (backpressure)
    >>> w.q                                # <TicketQueue 1/32 CRITICAL=0 HIGH=1 ...>
    >>> w.step()                           # run one job; prints its log line
    >>> w.run(500)                         # run until a deadline 500 ms from now
    >>> w.log()                            # what ran
"""

from array import array
from typing import Callable, Dict, List, Optional, Tuple

from ticketq import TicketQueue
from ticketq_ticks import Deadline

CLASSES: Tuple[str, str, str, str]
"""``("LOW", "NORMAL", "HIGH", "CRITICAL")``: a class's name is ``CLASSES[class]``."""


class Worker:
    """A ticket queue, its id-to-job table, a run loop and a log."""

    q: TicketQueue
    """The queue of job ids (``ticketq.TicketQueue(capacity, 0, aging)``)."""

    jobs: Dict[int, Tuple[str, Callable[[str], object], int, int]]
    """The id-to-job table of queued jobs: ``id -> (name, fn, class, pops at push)``.
    An entry leaves the table when its ticket pops (the job runs) or is cancelled. Feed
    ``q`` only through ``submit``: a ticket with no table entry makes the run raise
    KeyError."""

    out: Optional[Callable[[str], object]]
    """Where each run's log line goes (``print`` by default; ``list.append`` in tests;
    ``None``: no line, the run is still recorded in the ring)."""

    led: Optional[Callable[[int], object]]
    """Heartbeat: called as ``led(pops & 1)`` after every job (``shell.boot`` sets it from
    the board profile); ``None``: no heartbeat."""

    pops: int
    """Tickets popped (jobs run) so far."""

    runs: int
    """Jobs run so far (== pops); the log ring holds the last ``min(runs, logsize)``."""

    stats: array
    """``array('i')`` of 16 counters, ``stats[4 * r + class]`` with r = 0 ran, 1 failed
    (a subset of ran), 2 cancelled, 3 refused by backpressure."""

    def __init__(self, capacity: int, aging: int = 0, clock: Optional[object] = None,
                 out: Optional[Callable[[str], object]] = print, logsize: int = 8) -> None:
        """Allocate the queue, the table, the counters and the log ring.

        capacity: queue slots (1 .. 2**24; 32 on a micro:bit: 256 bytes).
        aging: 0 (strict priority) or N > 0: the queue promotes the oldest ticket below
            CRITICAL one class every N pops (``ticketq.TicketQueue(aging=N)``).
        clock: None for the board's tick counter, or any object with ``ticks_ms()`` and
            ``sleep_ms(ms)`` (``ticketq_ticks.FakeClock`` in tests); used by ``run``.
        out: the log line sink (see ``out``).
        logsize: entries in the log ring (>= 1).
        """

    def submit(self, name: str, cls: int, fn: Callable[[str], object]) -> Optional[int]:
        """Admit job ``fn`` (run later as ``fn(name)``) with priority class ``cls`` (0..3).

        Returns its job id (1 .. 2**30 - 1, increasing; it wraps after 2**30 - 1
        submissions), or ``None`` when the queue is full: backpressure. A refused job is
        counted in ``stats`` (refused) and not queued; the queue, the table and the id
        counter are unchanged. The submitter decides what to do: retry after a ``step``,
        shed the job and log it, or slow its source down.

        Raises ValueError/TypeError (from ``TicketQueue.push``) for a class outside 0..3,
        with nothing changed. Allocates the table entry. O(log n).
        """

    def cancel(self, i: int) -> bool:
        """Cancel the queued job with id ``i``: its ticket leaves the queue
        (``TicketQueue.remove``) and its entry leaves the table; counted as cancelled.

        Returns True if it was queued, False if not (already run, cancelled, refused or
        unknown); nothing changes then. O(n) search in the queue, O(log n) repair.
        """

    def step(self) -> Optional[int]:
        """Run one job: pop the next ticket, run its job, record and print its log line.

        Returns the job id that ran (also when the job raised: the failure is recorded,
        not propagated), or ``None`` at once if the queue is empty (no waiting).
        """

    def run(self, ms: Optional[int] = None,
            sleep: Optional[Callable[[int], object]] = None) -> int:
        """Run tickets until a deadline ``ms`` milliseconds from now; return how many ran.

        A deadline (``ticketq_ticks.Deadline``, preallocated and re-armed: no allocation)
        is checked before each ticket; a job that started before it runs to its end (jobs
        are never preempted). While tickets are queued they are popped directly; when the
        queue is empty the worker waits for new work with ``ticketq_wait.pop_until``: it sleeps in slices of at most 10 ms computed from the
        deadline's ``remaining()``, so it never sleeps past the deadline and an early
        wake-up never extends the wait; a ticket that arrives during the wait runs at once.

        ms: milliseconds (int, < 2**29); 0 or negative runs nothing; ``None`` runs for ever
            (a board's main loop; Ctrl-C stops it).
        sleep: called as ``sleep(ms)`` for each idle slice instead of the clock's
            ``sleep_ms``: pass ``machine.lightsleep`` to save power, or a function that
            polls a UART or a sensor and submits new work (it may return early).
        """

    def line(self, k: int) -> str:
        """The log line of ring entry ``k`` (``0 <= k < logsize``); allocates the string."""

    def log(self, out: Callable[[str], object] = print) -> None:
        """Print what ran: the log ring, oldest first (the last ``min(runs, logsize)``
        run lines, exactly as they were printed when the jobs ran)."""

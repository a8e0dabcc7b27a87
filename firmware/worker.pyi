"""worker: the job runner of the ticketq firmware, sized for a BBC micro:bit v1.

The queue (``ticketq.TicketQueue``) holds only job ids; the worker owns the id-to-job table
and runs a job as ``fn(name)``. It admits a job with a priority class (LOW..CRITICAL, 0..3),
runs the next ticket (highest class, then the one pushed first; with aging, the queue's
promotions apply), and when idle waits for new work with a ``ticketq.ticks.Deadline``.

The job table is preallocated in ``__init__``: three tables of ``capacity + 2`` slots,
``names``, ``fns`` and ``meta`` (pops at push mod 2**28, shifted left 2, or'ed with the
class), indexed by job id. A job's id is its slot: the **lowest free slot**, so ids run
``1 .. capacity`` (slot 0 is never used, so an id is never 0; the last slot is a spare that
only a refused submission probes). Ids are deterministic: the same submissions, runs and
cancels, in the same order, give the same ids on every interpreter and board. An id names
its job while the job is queued; once the job has run or been cancelled its id is free and
goes to the next job submitted (so ``cancel`` an id only while its job is queued).

Backpressure: ``submit`` on a full queue returns ``None`` (ids start at 1, so ``if not
w.submit(...)`` works; ``is None`` says it best), counts the refusal in ``stats`` and leaves
the queue and the table unchanged. It does not raise: a refusal is an expected answer under
load, not an error, and a REPL line or a workload loop handles it without try/except.
Nothing is dropped silently: every submitted job is either refused (None), cancelled
(``cancel`` returned True), or run (one log line).

Failures: a job that raises an ``Exception`` is recorded with the exception's class name
(``OSError``) and counted as failed; the worker goes on with the next ticket.
``KeyboardInterrupt`` (Ctrl-C at the REPL) and ``SystemExit`` are not caught.

The log: when ``out`` is set, one line per run, with no timestamp, so two boards that get
the same submissions in the same order print identical lines and can be compared with
``diff``::

    run <id> <name> <CLASS>[><CLASS run at>] seq=<n> waited=<pops> digest=<8 hex> <result>
    run 9 handoff-10 CRITICAL seq=31 waited=0 digest=0bc05eae OSError
    run 5 sync-5 LOW>NORMAL seq=23 waited=9 digest=153b097c ok

``<CLASS>`` is the class the job was submitted with; ``>CLASS`` follows when aging promoted
the ticket and names the class it popped at. ``seq`` is the ticket's sequence number,
``waited`` the pops of other tickets between its push and its pop, ``digest`` the queue's
schedule digest after this pop (``%08x``) and ``<result>`` ``ok`` or the exception's class
name (never its message: messages differ between interpreters). ``shell.Shell`` keeps the
last lines (``log()``), counts them up (``summary()``) and blinks a heartbeat LED.

Time: ticks only, through ``ticketq.ticks`` (its tick functions and ``Deadline``); the wall clock is never read. Pass a ``ticketq.ticks.FakeClock`` to drive
``run`` from a test.

Memory, measured on the BBC micro:bit v1 (MicroPython 1.9.2 under QEMU; see
``boards/microbit/board.py``): importing this module takes about 1.9 KB of heap (it imports
``ticketq`` and ``ticketq.ticks``; figures of 0.1.0, when ``pop_until`` was a module of its
own, that this import left out), compiling it about 2.9 KB more
for a moment, and a ``Worker(32)`` about 0.7 KB besides its queue's. ``submit``,
``cancel``, ``step`` and ``run`` allocate nothing themselves: only what the job does, what
``out`` does with the line, and the line itself when ``out`` is set (proved under
``micropython.heap_lock()`` on the MicroPython VM, with ``out=None``); a failing job
allocates its exception and the name of its class. The micro:bit's 1.8 KB C stack allows
only a few nested Python calls: the deepest path is ``run`` -> ``step`` -> the job; call
``run``/``step`` from the REPL or a shallow main loop.

Runs unchanged on CPython >= 3.9 and MicroPython 1.9.2.

At the REPL (``mpremote connect PORT repl``), with the worker alone (on a micro:bit, import
the library first: ``import ticketq`` before ``import worker``)::

    >>> import ticketq
    >>> from worker import Worker
    >>> w = Worker(32)
    >>> job = lambda name: print("job", name)
    >>> w.submit("blink-1", 2, job)          # 1, or None: the queue is full (backpressure)
    >>> w.q                                  # the queue
    >>> w.step()                             # run one job; prints its log line
    >>> w.cancel(1)                          # True if it was still queued
    >>> w.run(500)                           # run until a deadline 500 ms from now
"""

from array import array
from typing import Callable, List, Optional, Tuple

from ticketq import TicketQueue

CLASSES: Tuple[str, str, str, str]
"""``("LOW", "NORMAL", "HIGH", "CRITICAL")``: a class's name is ``CLASSES[class]``."""


class Worker:
    """A ticket queue, its preallocated id-to-job table, a run loop and a log line."""

    q: TicketQueue
    """The queue of job ids (``ticketq.TicketQueue(capacity, 0, aging)``). Feed it only
    through ``submit``: a ticket with no table entry would make ``step`` call None."""

    names: List[Optional[str]]
    """``names[id]``: the name of the queued job with this id, None for a free slot."""

    fns: List[Optional[Callable[[str], object]]]
    """``fns[id]``: the function of the queued job with this id, None for a free slot."""

    meta: array
    """``array('i')``: ``meta[id] = (pops at push mod 2**28) << 2 | class`` of the queued job
    with this id (stale for a free slot)."""

    stats: array
    """``array('i')`` of 16 counters, ``stats[4 * r + class]`` with r = 0 ran, 1 failed
    (a subset of ran), 2 cancelled, 3 refused by backpressure."""

    out: Optional[Callable[[str], object]]
    """Where each run's log line goes (``print`` by default; ``list.append`` in tests;
    ``None``: no line, nothing formatted)."""

    pops: int
    """Tickets popped (jobs run) so far."""

    def __init__(self, capacity: int, aging: int = 0, clock: Optional[object] = None,
                 out: Optional[Callable[[str], object]] = print) -> None:
        """Allocate the queue, the job table, the counters and the run deadline.

        capacity: queue slots (1 .. 2**24; 32 on a micro:bit).
        aging: 0 (strict priority) or N > 0: the queue promotes the oldest ticket below
            CRITICAL one class every N pops (``ticketq.TicketQueue(aging=N)``).
        clock: None for the board's tick counter, or any object with ``ticks_ms()`` and
            ``sleep_ms(ms)`` (``ticketq.ticks.FakeClock`` in tests); used by ``run``.
        out: the log line sink (see ``out``).
        """

    def submit(self, name: str, cls: int, fn: Callable[[str], object]) -> Optional[int]:
        """Admit job ``fn`` (run later as ``fn(name)``) with priority class ``cls`` (0..3).

        Returns its job id, the lowest free slot (1 .. capacity), or ``None`` when the
        queue is full: backpressure. A refused job is counted in ``stats`` (refused) and not
        queued; the queue and the table are unchanged. The submitter decides what to do:
        retry after a ``step``, shed the job and log it, or slow its source down.

        Raises TypeError for a ``None`` name (None marks a free slot) or a ``fn`` that is
        not callable, and ValueError/TypeError (from ``TicketQueue.push``) for a class
        outside 0..3, full queue or not; nothing changes then. O(capacity) to find the slot (a C loop),
        O(log n) to queue; allocates nothing.
        """

    def cancel(self, job: int) -> bool:
        """Cancel the queued job with id ``job``: its ticket leaves the queue
        (``TicketQueue.remove``) and its slot is freed; counted as cancelled.

        Returns True if it was queued, False if not (already run, cancelled, refused or
        unknown, negative or too large); nothing changes then. TypeError if ``job`` is not an
        int (a bool neither: an id is what submit returned). O(n) search in the queue,
        O(log n) repair; allocates nothing.
        """

    def step(self) -> Optional[int]:
        """Run one job: pop the next ticket, free its slot, run its job, count it and print
        its log line.

        Returns the job id that ran (also when the job raised: the failure is recorded,
        not propagated), or ``None`` at once if the queue is empty (no waiting). A job may
        submit new jobs, even into the slot it ran from, cancel jobs, or call ``step``
        itself (its own log line still says its own class, sequence and digest). A
        ``KeyboardInterrupt`` (or other non-``Exception``) from a job is counted as a run
        and propagates: the counters still add up.
        """

    def run(self, ms: Optional[int] = None,
            sleep: Optional[Callable[[int], object]] = None) -> int:
        """Run tickets until a deadline ``ms`` milliseconds from now; return how many ran.

        A deadline (``ticketq.ticks.Deadline``, preallocated and re-armed: no allocation)
        is checked before each ticket; a job that started before it runs to its end (jobs
        are never preempted). While tickets are queued they run one after the other; when
        the queue is empty the worker waits for new work with the rules of
        ``ticketq.ticks.pop_until`` (the loop is the worker's own): it
        sleeps in slices of at most 10 ms computed from the deadline's ``remaining()``, so
        it never sleeps past the deadline and an early wake-up never extends the wait; a
        ticket that arrives during the wait runs at once.

        ms: milliseconds (int, < 2**29); 0 or negative runs nothing; ``None`` runs for ever
            (a board's main loop; Ctrl-C stops it).
        sleep: called as ``sleep(ms)`` for each idle slice instead of the clock's
            ``sleep_ms``: pass ``machine.lightsleep`` to save power, or a function that
            polls a UART or a sensor and submits new work (it may return early).

        Not re-entrant: a job that calls ``run`` gets RuntimeError (its one preallocated
        Deadline belongs to the outer run); ``step`` may be called from a job.
        """

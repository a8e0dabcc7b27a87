# worker: runs jobs on a board in the order a ticketq.TicketQueue gives. Full documentation
# is in worker.pyi; no run-time docstrings (a micro:bit keeps them in RAM; comments are
# free). Runs unchanged on CPython >= 3.9 and MicroPython 1.9.2. The REPL conveniences
# (class names, job kinds, cancel by name, ls, log, summary, heartbeat, boot from the
# board profile) are in shell.py, which a micro:bit has no room for.
#
# The job table is preallocated: a job's id is its slot, and the slot holds names[id],
# fns[id] and meta[id] = pops at push (mod 2**28) << 2 | class; names[id] is None while the
# slot is free. A new job takes the lowest free slot, so ids are 1 .. capacity (slot 0 is
# never used: an id is never 0) and deterministic: the same submissions, runs and cancels
# give the same ids. An id names its job only while the job is queued: once it has run or
# been cancelled, the id goes to the next job submitted. The queue holds the ids only; a
# job is fn(name).
#
# Every run, when `out` is set, gives one line with no timestamp in it, so two boards given
# the same submissions print the same lines (shell.Shell keeps the last ones, for log()):
#   run <id> <name> <CLASS>[><CLASS it ran at>] seq=<n> waited=<pops> digest=<8 hex> ok|<Error>
from array import array

from ticketq import TicketQueue, QueueFull
from ticketq.ticks import Deadline, sleep_ms

CLASSES = ("LOW", "NORMAL", "HIGH", "CRITICAL")


def _name(e):
    # The exception's class name, the same on every interpreter: CPython's finer built-in
    # classes (FileNotFoundError, RecursionError, ModuleNotFoundError, UnicodeDecodeError)
    # are logged as the MicroPython class they belong to, so two boards' logs still compare.
    t = type(e)
    if getattr(t, "__module__", "") == "builtins":  # CPython only (names, not classes:
        for c in t.__mro__:  # the micro:bit has no UnicodeError to refer to)
            if c.__name__ in ("OSError", "RuntimeError", "ImportError", "UnicodeError"):
                return c.__name__
    n = getattr(t, "__name__", None)
    if n is None:  # MicroPython built without MICROPY_CPYTHON_COMPAT (the micro:bit's
        n = repr(t)[8:-2]  # 1.9.2) has no type.__name__: its repr is "<class 'OSError'>"
    return n


class Worker:
    def __init__(self, capacity, aging=0, clock=None, out=print):
        self.q = TicketQueue(capacity, 0, aging)
        n = capacity + 2  # slot 0 unused; one spare, so a full queue still has a free slot
        self.names = [None] * n
        self.fns = [None] * n
        self.meta = array("i", range(n))
        # stats[4 * r + class], r: 0 ran, 1 failed, 2 cancelled, 3 refused (backpressure)
        self.stats = array("i", [0] * 16)
        self.out = out
        self.pops = 0
        self._dl = Deadline(None, clock)  # re-armed by run(): no allocation there
        self._sleep = sleep_ms if clock is None else clock.sleep_ms  # run()'s idle slices
        self._running = False

    def submit(self, name, cls, fn):
        if name is None or not callable(fn):  # None marks a free slot in the table
            raise TypeError("submit(name, cls, fn): a name and a callable")
        i = self.names.index(None, 1)  # the lowest free slot (the spare one if full)
        try:
            self.q.push(i, cls)  # a bad class raises here, full or not
        except QueueFull:
            self.stats[12 + (cls + 0)] += 1
            return None  # backpressure: refused and counted; queue and table unchanged
        cls = cls + 0  # an int subclass as its int: MicroPython mixes no int with one
        self.names[i] = name
        self.fns[i] = fn
        self.meta[i] = (self.pops & 0xFFFFFFF) << 2 | cls
        return i

    def cancel(self, job):
        i = job
        if type(i) is not int:  # bools too: an id is what submit returned
            raise TypeError("cancel(job): a job id, as submit returned it")
        if not 0 < i < len(self.names) or not self.q.remove(i):  # an unknown id: False
            return False
        self.stats[8 + (self.meta[i] & 3)] += 1
        self.names[i] = self.fns[i] = None
        return True

    def step(self):
        q = self.q
        if not q:
            return None
        i = q.pop()
        # What the log line says of this pop, read now: the job may step the worker itself.
        p = q.last_priority  # the class it ran at: higher if aging promoted it
        s = q.last_seq
        g = q.digest
        c = self.meta[i]
        w = (self.pops - (c >> 2)) & 0xFFFFFFF  # pops of other tickets while it waited
        c &= 3
        name = self.names[i]
        fn = self.fns[i]
        self.names[i] = self.fns[i] = None  # freed before the job runs: it may submit
        self.pops = self.pops + 1 & 0xFFFFFFF  # waits are counted mod 2**28: a small int
        r = "ok"
        try:
            fn(name)
        except Exception as e:
            # The class name only: messages differ between interpreters, logs must not.
            r = _name(e)
            self.stats[4 + c] += 1
        finally:  # counted even when Ctrl-C (KeyboardInterrupt) stops the job and the caller
            self.stats[c] += 1
        if self.out:
            self.out("run %d %s %s%s seq=%d waited=%d digest=%08x %s" % (
                i, name, CLASSES[c], "" if p == c else ">" + CLASSES[p], s, w, g, r))
        return i

    def run(self, ms=None, sleep=None):
        # Run tickets until the deadline passes; a job started before it runs to its end.
        # Idle, it waits for work as ticketq.ticks.pop_until does (written out here since
        # 0.1.0, when pop_until's module cost a micro:bit 0.7 KB more): slices of at most 10 ms computed from remaining() every
        # time, so never past the deadline, and a sleep that returns early (or submits new
        # work) costs one more check, never a longer wait.
        if self._running:  # its one Deadline would be re-armed under the outer run
            raise RuntimeError("Worker.run inside a job: not re-entrant (step is)")
        d = self._dl
        d.rearm(ms)
        sleep = sleep or self._sleep
        self._running = True
        n = 0
        try:
            while 1:
                r = d.remaining()
                if r == 0:
                    return n
                if self.step() is None:
                    sleep(10 if r is None or r > 10 else r)
                else:
                    n += 1
        finally:
            self._running = False

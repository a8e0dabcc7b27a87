# worker: runs jobs on a board in the order a ticketq.TicketQueue gives. Full documentation
# is in worker.pyi; run-time docstrings are kept out because a micro:bit keeps them in RAM,
# comments cost nothing. Runs unchanged on CPython >= 3.9 and MicroPython 1.9.2. What only a
# person at the REPL needs (class names, job kinds, cancel by name, ls, summary, heartbeat,
# boot from the board profile) is in shell.py, so a board short of RAM can leave it out.
#
# The queue holds job ids only; the worker owns the id-to-job table
#   jobs[id] = (name, fn, class, pops at push)
# and a job is fn(name). Every run is one record in a preallocated ring (the log) and, when
# `out` is set, one line with no timestamp in it, so two boards given the same submissions
# print the same lines:
#   run <id> <name> <CLASS>[><CLASS it ran at>] seq=<n> waited=<pops> digest=<8 hex> ok|<Error>
from array import array

import ticketq_ticks as tt
from ticketq import TicketQueue, QueueFull
from ticketq_wait import pop_until, Timeout

CLASSES = ("LOW", "NORMAL", "HIGH", "CRITICAL")


class Worker:
    def __init__(self, capacity, aging=0, clock=None, out=print, logsize=8):
        self.q = TicketQueue(capacity, 0, aging)
        self.jobs = {}
        self.out = out
        self.led = None  # led(on), called after each job: the heartbeat (see shell.boot)
        self._dl = tt.Deadline(None, clock)  # re-armed by run(): no allocation there
        self.pops = self.runs = self._id = 0
        # stats[4 * r + class], r: 0 ran, 1 failed, 2 cancelled, 3 refused (backpressure)
        self.stats = array("i", [0] * 16)
        # The log ring: 5 ints a run (id, class | class run at << 2, seq, waited, digest),
        # the job's name and its result ("ok" or the exception's class name).
        self._lg = array("i", [0] * (5 * logsize))
        self._ln = [None] * logsize
        self._lr = [None] * logsize

    def submit(self, name, cls, fn):
        i = self._id % 0x3FFFFFFF + 1  # ids 1 .. 2**30 - 1, never 0
        try:
            self.q.push(i, cls)
        except QueueFull:
            # Backpressure: refused and counted, queue unchanged; None tells the submitter.
            self.stats[12 + cls] += 1
            return None
        self._id = i
        self.jobs[i] = (name, fn, cls, self.pops)
        return i

    def cancel(self, i):
        if not self.q.remove(i):
            return False
        self.stats[8 + self.jobs.pop(i)[2]] += 1
        return True

    def step(self):
        if not self.q:
            return None
        i = self.q.pop()
        k = self._run(i)
        if self.out:  # called here, not in _run: one Python call level less (micro:bit stack)
            self.out(self.line(k))
        return i

    def run(self, ms=None, sleep=None):
        # Run tickets until the deadline passes; a job started before it runs to its end.
        # Idle, ticketq_wait.pop_until sleeps in slices from the deadline, never past it,
        # through sleep(ms) if given (which may submit new work), else the clock's.
        d = self._dl
        d.rearm(ms)
        n = 0
        q = self.q
        while not d.expired():
            if q:  # busy: pop here, one Python call level less than through pop_until
                i = q.pop()
            else:
                try:
                    i = pop_until(q, d, sleep)
                except Timeout:
                    break
            k = self._run(i)
            if self.out:
                self.out(self.line(k))
            n += 1
        return n

    def _run(self, i):
        q = self.q
        name, fn, c, p = self.jobs.pop(i)
        w = self.pops - p  # pops of other tickets while this one waited
        self.pops += 1
        r = "ok"
        try:
            fn(name)
        except Exception as e:
            # The class name only: messages differ between interpreters, logs must not.
            r = repr(e).split("(")[0]
            self.stats[4 + c] += 1
        self.stats[c] += 1
        k = self.runs % len(self._ln)
        self.runs += 1
        g = self._lg
        j = 5 * k
        g[j] = i
        g[j + 1] = c | q.last_priority << 2
        g[j + 2] = q.last_seq
        g[j + 3] = w
        g[j + 4] = q.digest
        self._ln[k] = name
        self._lr[k] = r
        if self.led:
            self.led(self.pops & 1)
        return k

    def line(self, k):
        g = self._lg
        j = 5 * k
        c = g[j + 1]
        s = CLASSES[c & 3]
        if c >> 2 != c & 3:  # promoted by aging
            s += ">" + CLASSES[c >> 2]
        return "run %d %s %s seq=%d waited=%d digest=%08x %s" % (
            g[j], self._ln[k], s, g[j + 2], g[j + 3], g[j + 4], self._lr[k])

    def log(self, out=print):
        n = len(self._ln)
        for k in range(self.runs - min(self.runs, n), self.runs):
            out(self.line(k % n))

# shell: the worker at the REPL, for a person over mpremote. Full documentation is in
# shell.pyi (no run-time docstrings: a micro:bit keeps them in RAM). Not deployed on the
# micro:bit (no RAM to spare there); the boards with more RAM and the host VM have it.
#   >>> from shell import *
#   >>> w = boot()                          # board.py: queue capacity, heartbeat LED
#   >>> w.submit("handoff-1", "CRITICAL")   # job id, or None: queue full (backpressure)
#   >>> w                                   # the queue and what runs next
#   >>> w.ls(); w.step(); w.run(500)        # tickets; run one; run until a 500 ms deadline
#   >>> w.cancel("sync-3"); w.log(); w.summary()
from ticketq.audit import tickets
from ticketq.ticks import ticks_diff
from worker import Worker, CLASSES


def _led(hb):
    # led(on) for the board's heartbeat LED, or None; guarded: no module, no pin, no LED.
    try:
        if hb == "microbit":
            from microbit import display
            return lambda on: display.set_pixel(2, 2, 9 * on)
        if hb is not None:
            import machine
            return machine.Pin(hb, machine.Pin.OUT).value
    except Exception:
        pass


def job_class(cls):
    # A class number from a class name ("HIGH") or a number: the same error on every path
    # (the REPL, the workload player, tools/run driving a board) and every interpreter.
    if type(cls) is str:
        if cls not in CLASSES:
            raise ValueError("class %r: LOW, NORMAL, HIGH or CRITICAL" % cls)
        return CLASSES.index(cls)
    return cls


def job_kind(name, kinds):
    # A job's kind, its name up to the first "-", which must be one of `kinds`.
    if type(name) is not str:
        raise TypeError("job name: a str, as 'sync-3'")
    kind = name.split("-")[0]
    if kind not in kinds:
        raise ValueError("job %s: no job kind %r (%s)" % (name, kind, ", ".join(sorted(kinds))))
    return kind


class Shell(Worker):
    kinds = {}  # job kind -> fn(name); a job's kind is its name up to the first "-"

    def __init__(self, capacity, aging=0, clock=None, out=print, logsize=8):
        # The worker's run lines come to _line, which keeps the last `logsize` for log()
        # and passes them on to `echo` (the `out` given here), as the other messages.
        if type(logsize) is not int or logsize < 1:  # checked before anything is allocated
            raise ValueError("logsize: at least 1 line")
        Worker.__init__(self, capacity, aging, clock, self._line)
        self.echo = out
        self.led = None  # led(on), called after each job: the heartbeat (see boot)
        self.lines = [None] * logsize
        self.nlines = 0

    def _line(self, s):
        self.lines[self.nlines % len(self.lines)] = s
        self.nlines += 1
        if self.led:
            self.led(self.pops & 1)
        if self.echo:
            self.echo(s)

    def submit(self, name, cls, fn=None):
        cls = job_class(cls)
        i = Worker.submit(self, name, cls, fn or self.kinds[job_kind(name, self.kinds)])
        if i is None and self.echo:
            self.echo("full %s %s" % (name, CLASSES[cls]))
        return i

    def cancel(self, job):
        if type(job) is str:  # by name: the oldest queued job with this name
            t = [(s, i) for i, c, s in tickets(self.q) if self.names[i] == job]
            if not t:
                return False
            # Sequence numbers wrap at 2**30; queued ones lie within 2**29 of each other,
            # so ticks_diff orders them (the same ring arithmetic).
            job = min(t, key=lambda x: ticks_diff(x[0], t[0][0]))[1]
        i = job if type(job) is int and 0 < job < len(self.names) else 0
        name = self.names[i]  # read before the slot is freed (slot 0 is never used)
        c = self.meta[i] & 3
        if not Worker.cancel(self, job):
            return False
        if self.echo:
            self.echo("cancel %d %s %s" % (job, name, CLASSES[c]))
        return True

    def ls(self, out=print):
        for i, c, s in tickets(self.q):
            out("%d %s %s seq=%d" % (i, self.names[i], CLASSES[c], s))

    def log(self, out=print):
        n = len(self.lines)
        for k in range(max(self.nlines - n, 0), self.nlines):
            out(self.lines[k % n])

    def summary(self, out=print):
        s = self.stats
        t = [0, 0, 0, 0]
        for j in range(16):
            t[j >> 2] += s[j]
        out("summary ran=%d failed=%d cancelled=%d refused=%d queued=%d digest=%08x" % (
            t[0], t[1], t[2], t[3], len(self.q), self.q.digest))
        for c in (3, 2, 1, 0):
            out("  %-8s ran=%d failed=%d cancelled=%d refused=%d" % (
                CLASSES[c], s[c], s[4 + c], s[8 + c], s[12 + c]))

    def __repr__(self):
        q = self.q
        return "<Worker %r ran=%d next=%s>" % (q, self.pops, self.names[q.peek()] if q else "-")


def boot(capacity=None, aging=0, kinds=None, out=print):
    # A Shell set up from the board profile (board.py on the board; else 32 slots, no LED).
    try:
        import board
    except ImportError:
        board = None
    # another package's `board` module (Adafruit Blinka has one) is not a profile
    cap = getattr(board, "CAPACITY", 32)
    hb = getattr(board, "HEARTBEAT", None)
    w = Shell(cap if capacity is None else capacity, aging, None, out)
    w.led = _led(hb)
    if kinds:
        w.kinds = kinds
    return w

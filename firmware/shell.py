# shell: the worker at the REPL, for a person over mpremote. Full documentation is in
# shell.pyi (no run-time docstrings: a micro:bit keeps them in RAM).
#   >>> from shell import *
#   >>> w = boot()                          # board.py: queue capacity, heartbeat LED
#   >>> w.submit("handoff-1", "CRITICAL")   # job id, or None: queue full (backpressure)
#   >>> w                                   # the queue and what runs next
#   >>> w.ls(); w.step(); w.run(500)        # tickets; run one; run until a 500 ms deadline
#   >>> w.cancel("sync-3"); w.log(); w.summary()
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


class Shell(Worker):
    kinds = {}  # job kind -> fn(name); a job's kind is its name up to the first "-"

    def submit(self, name, cls, fn=None):
        if type(cls) is str:
            cls = CLASSES.index(cls)
        i = Worker.submit(self, name, cls, fn or self.kinds[name.split("-")[0]])
        if i is None and self.out:
            self.out("full %s %s" % (name, CLASSES[cls]))
        return i

    def cancel(self, job):
        if type(job) is str:  # by name: the oldest queued job with this name
            for i in sorted(self.jobs):
                if self.jobs[i][0] == job:
                    job = i
                    break
            else:
                return False
        t = self.jobs.get(job)
        if not Worker.cancel(self, job):
            return False
        if self.out:
            self.out("cancel %d %s %s" % (job, t[0], CLASSES[t[2]]))
        return True

    def ls(self, out=print):
        from ticketq_audit import tickets  # REPL only: not loaded until asked for

        for i, c, s in tickets(self.q):
            out("%d %s %s seq=%d" % (i, self.jobs[i][0], CLASSES[c], s))

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
        return "<Worker %r ran=%d next=%s>" % (q, self.runs, self.jobs[q.peek()][0] if q else "-")


def boot(capacity=None, aging=0, kinds=None, out=print):
    # A Shell set up from the board profile (board.py on the board; else 32 slots, no LED).
    try:
        import board
        cap, hb = board.CAPACITY, board.HEARTBEAT
    except ImportError:
        cap, hb = 32, None
    w = Shell(capacity or cap, aging, None, out)
    w.led = _led(hb)
    if kinds:
        w.kinds = kinds
    return w

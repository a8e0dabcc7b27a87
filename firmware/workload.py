# workload: the sample jobs of an edge mesh node, the sample workload, and a player for
# workload files. Full documentation (the line format) is in workload.pyi; no run-time
# docstrings (a micro:bit keeps them in RAM). Runs on CPython >= 3.9 and MicroPython 1.9.2.
#
# Line format, one command a line, fields split on whitespace:
#   # comment                 (and blank lines) ignored
#   queue <capacity> [<aging>] the worker's queue, at most once and first; else the board's
#   push <name> <CLASS>       submit job <name>: <kind>-<number>, as sync-3
#   cancel <name>             cancel the oldest queued job with this name
#   run [<n>]                 run up to n tickets (all queued ones if n is missing); never waits
from shell import boot, job_class, job_kind


def _work(name, rounds):
    # Deterministic busy work standing in for the real job: xorshift over the job number.
    x = int(name.split("-")[1]) + 1
    for _ in range(rounds):
        x ^= (x & 0x1FFFF) << 13
        x ^= x >> 17
        x ^= (x & 0x1FFFFFF) << 5
    return x


def consensus(name):  # tally one round of votes from the mesh neighbours
    return _work(name, 60)


def handoff(name):  # hand a relayed flow to the next hop; every 5th peer has left the mesh
    if _work(name, 20) % 5 == 0:
        raise OSError(113)  # EHOSTUNREACH
    return 0


def sync(name):  # push one chunk of background state to the gateway
    return _work(name, 120)


def telemetry(name):  # sample and pack the node's sensors
    return _work(name, 30)


KINDS = {"consensus": consensus, "handoff": handoff, "sync": sync, "telemetry": telemetry}


def _digits(s):
    # ASCII digits only: CPython's str.isdigit also takes "²" and "١", MicroPython's not.
    for ch in s:
        if ch not in "0123456789":
            return False
    return s != ""


def _fields(line):
    # Split on ASCII whitespace only, as MicroPython's str.split() does (CPython's splits
    # on Unicode spaces too): the same fields, so the same verdict, on every interpreter.
    for ch in "\t\r\n\x0b\x0c":
        line = line.replace(ch, " ")
    return [f for f in line.split(" ") if f]


def _num(s, what):
    # A whole number from a workload field, or the same ValueError on every interpreter.
    if not _digits(s[1:] if s[:1] == "-" else s):
        raise ValueError("%s: %r is not a whole number" % (what, s))
    return int(s)


def _check_push(name, cls):
    # A pushed job must be one the player can run: a class, a known kind and a number, as
    # "sync-3" (the job functions seed their work with it).
    job_class(cls)
    job_kind(name, KINDS)
    if not _digits(name.split("-", 1)[-1]):  # no "-": the whole name, a known kind
        raise ValueError("job %s: a job name is <kind>-<number>, as sync-3" % name)


def play(lines, w=None, out=print):
    # Feed workload lines (any iterable of str) to worker w; returns the worker. Every bad
    # line stops the run with its number, before anything of it happens.
    n = 0
    for line in lines:
        n += 1
        a = _fields(line)
        if not a or a[0][0] == "#":
            continue
        op = a[0]
        try:
            if op == "queue" and 1 < len(a) < 4:
                if w is not None:  # a fresh worker would drop what is queued and counted
                    raise ValueError("queue: only once, before the first push, cancel or run")
                w = boot(_num(a[1], "capacity"), _num(a[2], "aging") if len(a) > 2 else 0, KINDS, out)
                continue
            if op == "push" and len(a) == 3:
                _check_push(a[1], a[2])
            elif op == "run" and len(a) == 2 and _num(a[1], "run") < 0:
                raise ValueError("run: a count >= 0")
            elif not ((op == "cancel" and len(a) == 2) or (op == "run" and len(a) < 3)):
                for f in a[1:]:
                    if f[0] == "#":
                        raise ValueError("a # comment takes a line of its own")
                raise ValueError("not a command: queue, push, cancel or run (workload.pyi)")
            if w is None:
                w = boot(None, 0, KINDS, out)
            if op == "push":
                w.submit(a[1], a[2])
            elif op == "cancel":
                if not w.cancel(a[1]) and out:
                    out("cancel %s: not queued" % a[1])
            else:
                k = int(a[1]) if len(a) > 1 else -1
                while k and w.step() is not None:
                    k -= 1
        except ValueError as e:
            raise ValueError("workload line %d: %s (%s)" % (n, line.strip(), e))
    if w is None:  # a file of comments only: a worker that ran nothing
        w = boot(None, 0, KINDS, out)
    return w


def lines(path):
    # The lines of a file, read one at a time (micro:bit files are not iterable).
    f = open(path)
    try:
        while True:
            s = f.readline()
            if not s:
                break
            yield s
    finally:
        f.close()


def sample(ticks=48, seed=0x2545F49):
    # The sample workload, deterministic: each tick a telemetry job (NORMAL), every other
    # tick a sync chunk (LOW; every third one supersedes, so cancels, the one before), and
    # every 8th tick, or at random (1 in 11), a burst of consensus votes (HIGH) and relay
    # handoffs (CRITICAL) that can overrun the 16-slot queue; some rounds are aborted (a
    # cancel). The worker runs 2 tickets a tick. x: xorshift on 30 bits, as tests' Rng.
    x = seed
    b = 0
    yield "queue 16 6"
    for t in range(ticks):
        x ^= (x & 0x1FFFF) << 13
        x ^= x >> 17
        x ^= (x & 0x1FFFFFF) << 5
        yield "push telemetry-%d NORMAL" % t
        if t % 2 == 0:
            yield "push sync-%d LOW" % (t // 2)
            if t % 6 == 4:
                yield "cancel sync-%d" % (t // 2 - 1)
        if t % 8 == 7 or x % 11 == 0:
            for i in range(3 + x % 6):
                yield "push consensus-%d HIGH" % (b + i)
            for i in range(1 + x % 3):
                yield "push handoff-%d CRITICAL" % (b + i)
            if x % 2:
                yield "cancel consensus-%d" % b
            b += 10
        yield "run 2"
    yield "run"


def main(path=None, out=print):
    # Play the file at path (else the sample), print the summary; returns the worker.
    w = play(lines(path) if path else sample(), None, out)
    if out:
        w.summary(out)
    return w

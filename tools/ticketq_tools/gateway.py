#!/usr/bin/env python3
"""The fleet gateway: leases tickets from a fleet queue (ticketq.fleet on Redis/Valkey) and
runs them on a board's worker (firmware/worker.py) that has no network of its own, acking
only what the board accepted and ran.

    ticketq gateway --url redis://HOST:6379/0 --queue jobs --connect /dev/ttyACM0
    ticketq gateway --url ... --queue jobs --unix     # the MicroPython unix port
    ticketq gateway --url ... --queue jobs --local    # firmware/worker.py here

Targets:
- --connect URL: a board over mpremote (as ticketq run: its profile deployed with
  ticketq deploy and verified, the worker's modules imported one at a time, the job
  functions of firmware/workload.py imported or sent), then one small raw-REPL command per
  submit and per step.
- --unix: the 32-bit MicroPython unix port (ticketq mpunix's find()), started here with
  lib/ and firmware/ on its MICROPYPATH, its REPL on a pseudo-terminal that mpremote's own
  transport reaches (socket://, bridged here); the same commands as a board gets.
- --local: firmware/worker.py imported in this CPython process (no MicroPython needed).

The loop: keep at most --window tickets on the board (default: the board's queue capacity),
each leased for --lease-ms (touched again when half of it has passed while the board still
holds the job); when the board has none, wait for the fleet with pop_until (blocking in the
server, no polling). A ticket goes to the board as worker.submit(name, class, fn): its name
is the fleet job id's entry in the --names hash, else "<--kind>-<id>", and its kind (the
name up to "-") picks the job function (firmware/workload.py's KINDS). submit returning None
is the board's backpressure: that ticket's lease is released at once (back to its place)
and no more are taken until the board has run one. Then the board runs its next job
(worker.step); a job that ran and said ok is acked; one that raised is released, so the
fleet delivers it again, and dead-letters it after the queue's max_deliveries.

The queue may be a plain fleet queue or one with fair lanes (ticketq.fleet.FleetLaneQueue): either
way the gateway takes tickets in the fleet's pop order (the lanes' rotation, for a lane
queue) and the board's worker, which has no lanes, orders what it holds by class again.

Stops after --max jobs ran, or after --idle-ms with nothing queued for it (default: never),
then releases the leases of the jobs still on the board (they go back to their places at
once). Prints the board's run lines and, per job, what was done with its lease:
    ack <fleet id> <name>   |   release <fleet id> <name> (failed: <Error>|refused: board full|stopped: not run)

Every --names entry must name a job of a known kind (checked before anything is leased: a
usage error otherwise); a name of an unknown kind written there later stops the gateway
(exit 1). However it stops (as asked, an error, Ctrl-C, SIGTERM, its output closed:
... | head), it first gives back the leases of the jobs still on the board, of the ticket on
its way to the board, and of a pop whose reply the interrupt cut off (sent again: the
server replays it), each with its line "release <fleet id> <name> (stopped: not run)".

Outages do not stop it; it prints one line per change of state and goes on:
    == fleet unreachable: <error>; retrying     (Redis/Valkey gone: connection refused,
    == fleet back                                reset, or silent for 10 s)
    == board lost: <error>; giving its leases back, opening it again
    == board back: worker on <where>
Between attempts it waits with capped, jittered exponential backoff (0.1 s doubling to at
most 10 s, each wait drawn from the upper half of its step). While the fleet is away the
board keeps its jobs; acks owed are sent when the fleet is back (one whose lease ran out
meanwhile says "(late: its lease had run out)": that job runs again elsewhere). A lost board's
jobs are released at once, "release <fleet id> <name> (board lost: not run)", then the board
is opened again (--unix: a new unix port; --connect: deployed again). Setup errors (the queue
missing, a bad URL or --names, an unreachable fleet or board) still fail at once, each with
its exit code (below).

URLs are printed with their password hidden, as redis-cli does: redis://:***@host:port/db.

Redis Sentinel: --sentinel HOST:PORT (once per sentinel) with --service NAME (the master's
name they monitor) finds the primary through them (redis-py's Sentinel.master_for): every
new connection asks the sentinels again, so after a failover the gateway's next attempt
reaches the new primary ("== fleet unreachable" / "== fleet back" meanwhile); --url then
gives only the user, password and db. A Redis Cluster is not followed (no MOVED/ASK):
give --url the master that owns the queue's slot.

Setup tries the fleet with one PING first (a 1 s connect, no retries), so a refused server,
a wrong password or a missing queue or library is one line at once. Every --names key must
be a fleet job id (decimal, 0..2**30-1) and every name a workload job name
(<known kind>-<number>, firmware/workload.py's rule): else a usage error naming each bad
entry (up to 5). A lease shorter than one round trip (a ticket's pop reply to the board's
answer to its submit) is warned about once: "== warning: --lease-ms N is shorter than one
board round trip (M ms): ...".

--metrics-port PORT serves Prometheus metrics on http://127.0.0.1:PORT/metrics (--metrics-bind
for another address; 0: a free port, printed as "== metrics on http://HOST:PORT/metrics"): the
queue's (as fleetctl exporter's), the gateway's jobs by outcome, its late acks (lease
expiries) and jobs on the board, and the latency of its calls to the fleet (docs/fleet.md,
"Metrics").

Exit (tools/ticketq_tools/exitcodes.py, the table in docs/fleet.md): 0 stopped as asked (or its output's
reader went away); 1 a fleet error that is no outage (FleetError) or a bad name; 2 usage
(a bad option, URL or --names); 4 the fleet or the board unreachable at setup; 5 password
needed or refused; 6 no such queue; 7 the library not loaded; 130 Ctrl-C; 143 SIGTERM.
"""

import argparse
import os
import pty
import socket
import subprocess
import sys
import threading
import time
import tty

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/, this package's parent
ROOT = os.path.dirname(HERE)
import ticketq_tools  # noqa: E402  (puts lib/ and firmware/ on sys.path: ticketq_tools/__init__.py)

from ticketq import QueueEmpty  # noqa: E402
from ticketq.ticks import Deadline, Timeout  # noqa: E402
from ticketq.fleet import FleetError  # noqa: E402
from ticketq_tools.fleetctl import open_queue, safe_url  # noqa: E402

CLASSES = ("LOW", "NORMAL", "HIGH", "CRITICAL")


class Stop(Exception):
    def __init__(self, msg, code=1):
        Exception.__init__(self, msg)
        self.code = code


class BoardLost(Exception):
    # The board stopped answering (or failed) in a submit or a step: what it held will not
    # run here; the gateway gives those leases back and opens the board again.
    pass


def fleet_down(e):
    # A network failure reaching the fleet (after FleetQueue's own retries): wait and retry.
    try:
        import redis
    except ImportError:
        return isinstance(e, OSError)
    return isinstance(e, (redis.ConnectionError, redis.TimeoutError, OSError))


class Backoff:
    # Capped, jittered exponential delays between attempts: base * 2**n seconds, at most
    # cap, each drawn uniformly from its upper half (so many gateways do not retry in step).
    def __init__(self, base=0.1, cap=10.0):
        self.base, self.cap, self.n = base, cap, 0

    def next(self):
        import random

        d = min(self.cap, self.base * (2 ** min(self.n, 30)))
        self.n += 1
        return d * random.uniform(0.5, 1.0)

    def reset(self):
        self.n = 0


def result_of(lines):
    """The worker's result word (ok or an error class) from a step's output lines."""
    for line in reversed(lines):
        if line.startswith("run "):
            return line.split()[-1]
    raise Stop("the board ran a job but printed no run line: %r" % (lines,))


# ---- the board's worker, three ways

class LocalWorker:
    """firmware/worker.py in this process."""

    def __init__(self, capacity, out):
        import worker
        import workload

        self.lines = []
        self.w = worker.Worker(capacity, out=self.lines.append)
        self.kinds = workload.KINDS
        self.capacity = capacity
        self.out = out
        self.where = "this process (CPython %s)" % sys.version.split()[0]

    def submit(self, name, cls):
        from shell import job_kind

        return self.w.submit(name, cls, self.kinds[job_kind(name, self.kinds)])

    def step(self):
        i = self.w.step()
        lines, self.lines[:] = list(self.lines), []
        for l in lines:
            self.out(l)
        return None if i is None else (i, result_of(lines))

    def close(self):
        pass


class LinkWorker:
    """A worker.Worker `w` on a MicroPython behind run.Link (mpremote's raw REPL): one small
    command per submit and per step."""

    def __init__(self, link, capacity, out):
        self.link, self.capacity, self.out = link, capacity, out
        self.where = link.where
        link.run("w=None\nimport gc\ngc.collect()\nw=Worker(%d)" % capacity, "Worker(%d)" % capacity)

    def submit(self, name, cls):
        from shell import job_kind

        import workload

        kind = job_kind(name, workload.KINDS)
        lines, i = self.link.call("w.submit(%r,%d,KINDS[%r])" % (name, cls, kind), "submit %s" % name)
        self.echo(lines)
        return None if i == "None" else int(i)

    def step(self):
        lines, i = self.link.call("w.step()", "step (run the next job)")
        self.echo(lines)
        return None if i == "None" else (int(i), result_of(lines))

    def echo(self, lines):
        for l in lines:
            self.out(l)

    def close(self):
        pass


class UnixPort:
    """The MicroPython unix port as a board: its REPL on a pseudo-terminal, bridged to a
    loopback TCP port so that mpremote's SerialTransport (socket://) drives its raw REPL.
    lib/ and firmware/ are on its MICROPYPATH: nothing to deploy. Its raw REPL must never
    get a soft reset (ctrl-D there ends the process), so this is not a deploy.Board."""

    def __init__(self, exe, timeout):
        from ticketq_tools import mpunix
        from mpremote.transport_serial import SerialTransport

        self.timeout = timeout
        master, slave = pty.openpty()
        tty.setraw(slave)  # bytes as the port writes them: no "\n" -> "\r\n" on the way
        env = dict(os.environ, MICROPYPATH=mpunix.micropypath())
        self.proc = subprocess.Popen([exe], stdin=slave, stdout=slave, stderr=slave, env=env,
                                     close_fds=True)
        os.close(slave)
        self.master = master
        self.srv = socket.socket()
        self.srv.bind(("127.0.0.1", 0))
        self.srv.listen(1)
        threading.Thread(target=self._bridge, daemon=True).start()
        self.t = SerialTransport("socket://127.0.0.1:%d" % self.srv.getsockname()[1], timeout=timeout)
        self.t.enter_raw_repl(soft_reset=False, timeout_overall=timeout)
        v = self.exec("import sys\nprint(tuple(sys.implementation.version[:3]))").strip()
        self.info = {"version": tuple(int(x) for x in v.strip("()").split(",") if x.strip())}

    def _bridge(self):
        import select

        c, _ = self.srv.accept()
        try:
            while True:
                r, _, _ = select.select([c, self.master], [], [])
                if c in r:
                    data = c.recv(4096)
                    if not data:
                        return
                    os.write(self.master, data)
                if self.master in r:
                    data = os.read(self.master, 4096)
                    if not data:
                        return
                    c.sendall(data)
        except OSError:
            return
        finally:
            c.close()

    def exec(self, cmd, timeout=10):
        from mpremote.transport import TransportExecError

        out, err = self.t.exec_raw(cmd, timeout=timeout)
        if err:
            raise TransportExecError(out.decode(errors="replace"), err.decode(errors="replace"))
        return out.decode(errors="replace")

    def mem_free(self):
        return int(self.exec("import gc\ngc.collect()\nprint(gc.mem_free())").strip())

    def close(self):
        try:
            self.t.close()
        except Exception:
            pass
        self.proc.kill()
        self.proc.wait()
        self.srv.close()
        os.close(self.master)


# ---- the gateway loop


def check_names(conn, names, kinds):
    """Every key of the --names hash must be a fleet job id (decimal 0..2**30-1) and every
    entry name a job of a kind in `kinds`, <kind>-<number> (firmware/workload.py's rule):
    checked before anything is leased (else the gateway would stop at that ticket, mid-run).
    Returns an error message naming up to 5 bad entries, or None."""
    from shell import job_kind

    t = conn.type(names)
    t = t.decode() if isinstance(t, bytes) else t
    if t == "none":
        return None
    if t != "hash":
        return "--names %s: a Redis hash of fleet job id -> job name, not a %s" % (names, t)
    import workload

    bad = []
    for k, v in sorted(conn.hgetall(names).items()):
        key = k.decode(errors="replace")
        if not (key == "0" or (key[:1] in "123456789" and key.isdigit() and int(key) < 1 << 30)):
            bad.append("%s: unknown key, not a fleet job id (0..2**30-1, written as decimal)" % key)
            continue
        try:  # a kind of `kinds`, then the workload's own rule for a job's name: <kind>-<number>
            name = v.decode(errors="replace")
            job_kind(name, kinds)
            workload._check_push(name, "NORMAL")
        except (TypeError, ValueError) as e:
            bad.append("%s -> %s" % (key, e))
    if bad:
        return "--names %s: %d bad entr%s: %s" % (
            names, len(bad), "y" if len(bad) == 1 else "ies", "; ".join(bad[:5]))
    return None


class Gateway:
    def __init__(self, fleet, board, names=None, kind="telemetry", lease_ms=30000, window=None,
                 out=print):
        self.fleet, self.board, self.out = fleet, board, out
        self.names, self.kind, self.lease_ms = names, kind, lease_ms
        self.window = window or board.capacity
        self.held = {}  # board job id -> [lease token, fleet id, name, host ms of the lease]
        self.inflight = None  # (token, fleet id, name): leased, on its way to the board
        self.todo = []  # (token, fleet id, name, result) a board ran whose ack/release failed
        self.ran = self.acked = self.released = self.refused = 0
        self.warned = False  # the --lease-ms warning, printed once
        self.late = 0  # acks refused because the lease had run out (the job runs again elsewhere)

    def name_of(self, i):
        if self.names is not None:
            n = self.fleet.conn.hget(self.names, i)
            if n:
                return n.decode() if isinstance(n, bytes) else n
        return "%s-%d" % (self.kind, i)

    def check(self, i, name):
        # A name whose kind has no job function (written to --names after the start: the
        # names were all checked then) stops the gateway before the board sees it.
        from shell import job_kind
        import workload

        try:
            job_kind(name, workload.KINDS)
        except (TypeError, ValueError) as e:
            raise Stop("fleet job %d in --names %s: %s" % (i, self.names, e))

    def take(self, wait):
        """Lease one ticket and hand it to the board. False when none came, or the board
        refused it (backpressure: its lease is released, the ticket is back in place)."""
        f = self.fleet
        try:
            i = f.pop_until(wait, self.lease_ms) if wait is not None else f.pop(self.lease_ms)
        except (QueueEmpty, Timeout):
            return False
        t0 = time.monotonic()  # the lease runs from here (its reply): the board's round trip
        token, cls = f.last_lease, f.last_priority
        # From here until the board has it (held) or refused it, this ticket is in flight:
        # a stop or a lost board in between gives its lease back too.
        self.inflight = (token, i, "%s-%d" % (self.kind, i))
        try:
            name = self.name_of(i)
            self.inflight = (token, i, name)
            self.check(i, name)
        except Stop:
            f.release(token)  # not ours to run: back to its place, then stop
            self.inflight = None
            raise
        try:
            b = self.board.submit(name, cls)
        except (Stop, KeyboardInterrupt, SystemExit):
            raise
        except Exception as e:
            raise BoardLost("submit %s: %s" % (name, e))
        if b is None:
            f.release(token)
            self.inflight = None
            self.refused += 1
            self.out("release %d %s (refused: board full)" % (i, name))
            return False
        now = time.monotonic()
        self.held[b] = [token, i, name, now]
        self.inflight = None
        rtt = (now - t0) * 1000
        if rtt >= self.lease_ms and not self.warned:
            self.warned = True
            self.out("== warning: --lease-ms %d is shorter than one board round trip (%d ms): "
                     "leases run out while the board holds their jobs, which then run twice; "
                     "give a longer --lease-ms" % (self.lease_ms, rtt))
        return True

    def keep_leases(self):
        # A job still on the board keeps its lease: touched once half of it has passed.
        now = time.monotonic()
        for h in self.held.values():
            if (now - h[3]) * 1000 >= self.lease_ms / 2:
                if self.fleet.touch(h[0], self.lease_ms):
                    h[3] = now

    def run_one(self):
        try:
            r = self.board.step()
        except (Stop, KeyboardInterrupt, SystemExit):
            raise
        except Exception as e:
            raise BoardLost("step: %s" % e)
        if r is None:
            return False
        b, result = r
        h = self.held.pop(b, None)
        if h is None:  # a job someone else gave the board: not ours to ack
            return True
        token, i, name, _ = h
        self.ran += 1
        # It ran: its ack (or release) is owed until the fleet has taken it, through an
        # outage of the fleet too.
        self.todo.append((token, i, name, result))
        self.settle()
        return True

    def settle(self):
        # Ack (or release) what the board ran, oldest first; a fleet error leaves the rest owed.
        while self.todo:
            token, i, name, result = self.todo[0]
            if result == "ok":
                ok = self.fleet.ack(token)
                self.acked += ok
                self.late += not ok
                self.todo.pop(0)
                self.out("ack %d %s%s" % (i, name, "" if ok else " (late: its lease had run out)"))
            else:
                self.fleet.release(token)
                self.released += 1
                self.todo.pop(0)
                self.out("release %d %s (failed: %s)" % (i, name, result))

    def give_back(self, quiet=False, why="stopped: not run"):
        # Stopped (or the board lost): the jobs still on the board will not run here, so their
        # tickets go back to their places now, not when their leases run out: the ticket on
        # its way to the board too, and a pop whose reply an interrupt cut off (FleetQueue
        # sends it again: replayed while its lease holds, then released). Each prints its
        # release line. quiet: best effort (the fleet may be what failed; what cannot be
        # released comes back when its lease runs out), and an output that fails is let be.
        f = self.fleet
        owed = [(token, i, name) for token, i, name, _ in self.held.values()]
        if self.inflight is not None:
            owed.append(self.inflight)
        try:
            if getattr(f, "_pending", None) is not None:
                i = f.pop(self.lease_ms)
                if f.last_lease:
                    owed.append((f.last_lease, i, "%s-%d" % (self.kind, i)))
        except QueueEmpty:
            pass
        except Exception:
            if not quiet:
                raise
        for token, i, name in owed:
            try:
                f.release(token)
            except Exception:
                if not quiet:
                    raise
                continue
            try:
                self.out("release %d %s (%s)" % (i, name, why))
            except Exception:
                if not quiet:
                    raise
        self.held.clear()
        self.inflight = None

    def run(self, max_jobs=None, idle_ms=None):
        idle = Deadline(None)
        while max_jobs is None or self.ran < max_jobs:
            self.settle()
            # Fill the board up to the window; wait in the server only when it has nothing.
            while len(self.held) < self.window:
                if self.held:
                    if not self.take(None):
                        break
                else:
                    idle.rearm(idle_ms)
                    if not self.take(idle):
                        if idle.expired():
                            return self.ran
                        break
            self.keep_leases()
            self.run_one()
        return self.ran


def supervise(gw, max_jobs, idle_ms, reopen, out, sleep=time.sleep, backoff=None):
    """gw.run until it stops as asked, through outages: the fleet unreachable (wait, retry
    with capped jittered backoff; the board keeps its jobs, their leases are touched again
    when the fleet is back, and the acks owed are sent then), the board lost (its leases
    given back, then reopen() with the same backoff until it answers). One line per change
    of state: "== fleet unreachable: ...", "== fleet back", "== board lost: ...", "== board
    back: ...". Only a stop as asked (--max, --idle-ms), a signal or a fatal error ends it."""
    backoff = backoff or Backoff()
    down = None  # None, "fleet" or "board"
    while True:
        try:
            if down == "fleet":
                gw.fleet.info()  # reachable again?
                out("== fleet back")
                down = None
                backoff.reset()
            if down == "board":
                gw.board = reopen()
                out("== board back: worker on %s" % gw.board.where)
                down = None
                backoff.reset()
            gw.run(max_jobs, idle_ms)
            return
        except BoardLost as e:
            if down != "board":
                out("== board lost: %s; giving its leases back, opening it again" % e)
                down = "board"
            gw.give_back(quiet=True, why="board lost: not run")
        except (Stop, FleetError):
            raise
        except Exception as e:
            if fleet_down(e):
                if down != "fleet":
                    out("== fleet unreachable: %s; retrying" % e)
                    down = "fleet"
            elif down != "board":  # (reopening a lost board failed: again, later)
                raise
        sleep(backoff.next())


def open_target(args, out):
    """(board worker, closer) for the chosen target."""
    if args.local:
        return LocalWorker(args.capacity or 32, out), None
    from ticketq_tools import run

    if args.unix:
        from ticketq_tools import mpunix

        exe, how = mpunix.find()
        if exe is None:
            raise Stop("no MicroPython unix port: %s" % how, 2)
        port = UnixPort(exe, args.timeout)
        link = run.Link(port, {"NAME": "unix"}, args.timeout)
        link.run("from worker import Worker\nfrom workload import KINDS", "import worker, workload")
        return LinkWorker(link, args.capacity or 32, out), port
    from ticketq_tools import deploy

    try:
        board = deploy.open_board(args.connect, args.timeout)
    except deploy.DeployError as e:  # no answer: unreachable (tools/ticketq_tools/exitcodes.py)
        from ticketq_tools import exitcodes

        raise Stop(str(e), exitcodes.UNREACHABLE)
    from ticketq_tools.devtest import pick_profile

    prof = pick_profile(board, args.board)
    deploy.deploy(board, prof, log=lambda s: None)
    link = run.Link(board, prof, args.timeout)
    run.prepare(link, prof, {}, out)
    return LinkWorker(link, args.capacity or prof.get("CAPACITY", 32), out), board


def main(argv=None, out=print):
    p = argparse.ArgumentParser(description="Lease tickets from a fleet queue and run them on a board's worker.")
    p.add_argument("--url", default="redis://127.0.0.1:6379/0", help="the fleet's Redis/Valkey")
    p.add_argument("--queue", help="the fleet queue's name (required)")
    p.add_argument("--prefix", default="tq", help="its key prefix (default tq)")
    p.add_argument("--sentinel", action="append", metavar="HOST:PORT", help="a Redis Sentinel to ask "
                   "for the primary (repeat for each; with --service; --url gives only user, password, db)")
    p.add_argument("--service", help="the master's name the sentinels monitor (with --sentinel)")
    # Neither --queue nor the group is required=True: argparse checks required options before
    # it looks at unknown ones, so --locl said "one of --connect --unix --local is required"
    # and --qeue "the following arguments are required: --queue". Both checked below.
    g = p.add_mutually_exclusive_group()
    g.add_argument("--connect", metavar="URL", help="a board over mpremote (/dev/ttyACM0, a0, u0, ...)")
    g.add_argument("--unix", action="store_true", help="the MicroPython unix port, started here")
    g.add_argument("--local", action="store_true", help="firmware/worker.py in this process")
    p.add_argument("--board", help="board profile (default: the board's sys.platform)")
    p.add_argument("--capacity", type=int, help="the board worker's queue capacity (default: the profile's, 32)")
    p.add_argument("--window", type=int, help="tickets on the board at once (default: its capacity)")
    p.add_argument("--lease-ms", type=int, default=30000, help="lease per ticket, ms (default 30000)")
    p.add_argument("--names", help="a Redis hash: fleet job id -> job name (<kind>-<n>)")
    p.add_argument("--kind", default="telemetry", help="the job kind of ids without a name (default telemetry)")
    p.add_argument("--max", type=int, help="stop after this many jobs ran")
    p.add_argument("--idle-ms", type=int, help="stop after this long with nothing to do")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds without an answer from a board")
    p.add_argument("--metrics-port", type=int, help="serve Prometheus metrics on "
                   "http://127.0.0.1:PORT/metrics (0: a free port, printed)")
    p.add_argument("--metrics-bind", default="127.0.0.1", help="the metrics' address (default 127.0.0.1)")
    a = p.parse_args(argv)  # a misspelled option: "unrecognized arguments: --locl", exit 2
    if a.queue is None:
        p.error("the following arguments are required: --queue")
    if bool(a.sentinel) != bool(a.service):
        p.error("--sentinel and --service go together")
    sentinels = None
    if a.sentinel:
        from ticketq_tools import fleetctl as _fc
        try:
            sentinels = _fc.sentinel_addresses(a.sentinel)
        except ValueError as e:
            p.error(str(e))
    if not (a.connect or a.unix or a.local):
        p.error("one of the arguments --connect --unix --local is required")
    # each bad value named with its option (--capacity 0 was once taken as "the default")
    # (a lease is at most 2**30 - 1 ms; --idle-ms is a Deadline, below 2**29 ms; a
    # TicketQueue holds at most 2**24)
    for opt, v, least, most in (("--lease-ms", a.lease_ms, 1, (1 << 30) - 1), ("--window", a.window, 1, None),
                                ("--capacity", a.capacity, 1, 1 << 24), ("--max", a.max, 0, None),
                                ("--idle-ms", a.idle_ms, 0, (1 << 29) - 1)):
        if v is not None and v < least:
            p.error("%s %d: at least %d" % (opt, v, least))
        if v is not None and most is not None and v > most:
            p.error("%s %d: at most %d" % (opt, v, most))
    if not a.timeout > 0:
        p.error("--timeout %s: more than 0 seconds" % a.timeout)
    if a.metrics_port is not None and not 0 <= a.metrics_port < 65536:
        p.error("--metrics-port %d: 0..65535" % a.metrics_port)
    import workload

    if a.kind not in workload.KINDS:  # else the first ticket without a name stops the gateway
        p.error("--kind %s: one of %s" % (a.kind, ", ".join(sorted(workload.KINDS))))
    closer = None
    url = safe_url(a.url)  # as every line shows it: redis://:***@host:port/db
    try:
        import redis

        from ticketq_tools import exitcodes
        from ticketq_tools import fleetctl

        def setup_error(e):
            code, msg = fleetctl.explain(e, a.url, a.queue, a.prefix)
            if isinstance(e, ValueError):  # the URL, a { } in a name
                code = exitcodes.USAGE
            return Stop(msg.replace(a.url, url), code)

        try:
            # First one PING that fails fast (a 1 s connect, no retries): a refused or wrong
            # server is one line at once, not FleetQueue's retries (15.8 s).
            if sentinels:
                from redis.backoff import NoBackoff
                from redis.retry import Retry

                probe = fleetctl.sentinel_client(sentinels, a.service, a.url, 1.0,
                                                 socket_connect_timeout=1.0, retry=Retry(NoBackoff(), 0))
            else:
                probe = fleetctl.connect(a.url, 1.0)
            probe.ping()
            probe.close()
            # A socket timeout, so that a fleet gone silent (no reset) is noticed: pop_until
            # cuts each server-side wait below it.
            kw = dict(socket_timeout=10, socket_connect_timeout=10)
            if a.metrics_port is not None:
                try:
                    from ticketq_tools import fleetmetrics
                    from prometheus_client import CollectorRegistry
                except ImportError as e:
                    raise Stop("--metrics-port needs the prometheus_client package (pip install "
                               "prometheus_client): %s" % e, exitcodes.USAGE)

                registry = CollectorRegistry()
                # every call of the gateway to the fleet timed, by call
                latency = fleetmetrics.new_latency(registry)
                if sentinels:  # every new connection asks the sentinels for the primary
                    conn = fleetctl.sentinel_client(sentinels, a.service, a.url,
                                                    redis_class=fleetmetrics.timed_class(latency), **kw)
                else:
                    conn = fleetmetrics.timed_client(a.url, latency, **kw)
            elif sentinels:
                conn = fleetctl.sentinel_client(sentinels, a.service, a.url, **kw)
            else:
                conn = redis.Redis.from_url(a.url, **kw)
            fleet = open_queue(conn, a.queue, a.prefix)
        except (redis.RedisError, FleetError, ValueError) as e:  # ValueError: the URL, a { } in a name
            raise setup_error(e)
        if a.names:
            try:
                bad = check_names(fleet.conn, a.names, workload.KINDS)
            except redis.RedisError as e:
                raise setup_error(e)
            if bad:
                raise Stop(bad, 2)
        board, closer = open_target(a, out)

        def reopen():
            # the board was lost: close what is left of it and open it again
            nonlocal closer
            if closer is not None:
                c, closer = closer, None
                try:
                    c.close()
                except Exception:
                    pass
            b, closer = open_target(a, out)
            return b

        gw = Gateway(fleet, board, a.names, a.kind, a.lease_ms, a.window, out)
        if a.metrics_port is not None:
            registry.register(fleetmetrics.QueueCollector(
                fleetctl.sentinel_client(sentinels, a.service, a.url, **kw) if sentinels else
                redis.Redis.from_url(a.url, **kw), [a.queue], a.prefix, ctl=fleetctl))
            registry.register(fleetmetrics.GatewayCollector(gw))
            try:
                mport = fleetmetrics.serve(a.metrics_port, a.metrics_bind, registry)
            except OSError as e:
                raise Stop("--metrics-port %d: %s" % (a.metrics_port, e), exitcodes.USAGE)
            out("== metrics on http://%s:%d/metrics" % (a.metrics_bind, mport))
        out("== gateway: fleet queue %s at %s%s -> worker on %s, window %d, lease %d ms" % (
            a.queue, url, " (lanes %s)" % ":".join(map(str, fleet.weights)) if hasattr(fleet, "lanes") else "",
            board.where, gw.window, a.lease_ms))
        try:
            supervise(gw, a.max, a.idle_ms, reopen, out)
        except BaseException:
            # Stopped by an error, Ctrl-C, SIGTERM or a closed output: the jobs still on the
            # board (and the one on its way there) will not be run by this gateway, so their
            # tickets go back now, each with its "release ... (stopped: not run)" line (best
            # effort: the fleet may be what failed; then they come back when their leases
            # run out).
            gw.give_back(quiet=True)
            raise
        gw.give_back()
        out("== %d jobs ran: %d acked, %d released (failed), %d refused by the board" % (
            gw.ran, gw.acked, gw.released, gw.refused))
        return 0
    except Stop as e:
        print("ticketq gateway: %s" % e, file=sys.stderr)
        return e.code
    except KeyboardInterrupt:
        print("ticketq gateway: interrupted; tickets still on the board were given back (or "
              "come back when their leases run out)", file=sys.stderr)
        return 130
    except Terminated:
        print("ticketq gateway: terminated (SIGTERM); tickets still on the board were given "
              "back (or come back when their leases run out)", file=sys.stderr)
        return 143
    except BrokenPipeError:  # gateway.py ... | head: the reader went away
        quiet_stdout()
        return 0
    finally:
        if closer is not None:
            closer.close()


def quiet_stdout():
    # After a BrokenPipeError on stdout: point it at /dev/null, so the interpreter's own
    # flush at exit does not print another traceback.
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


class Terminated(BaseException):
    # SIGTERM (systemd, docker stop, kill) as an exception, so a stop by the service manager
    # gives the board's leases back as Ctrl-C does; by default the process just died, and
    # the tickets stayed leased until their leases ran out.
    pass


def _terminate(signum, frame):
    raise Terminated()


if __name__ == "__main__":
    import signal

    signal.signal(signal.SIGTERM, _terminate)
    sys.exit(main())

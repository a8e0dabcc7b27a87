#!/usr/bin/env python3
"""The main job: the worker firmware plays a workload, printing each job as it runs (the
worker's log lines) and a summary. `tools/run` sets up first (tools/setup), then runs this.

    tools/run                                  # the sample workload on the host MicroPython VM
    tools/run --workload my.txt                # a workload file (format: firmware/workload.pyi)
    tools/run --emulate microbit               # the emulated BBC micro:bit v1 (QEMU) on
                                               #   ticketq's firmware (ticketq firmware microbit,
                                               #   built first if the cache lacks it)
    tools/run --emulate pico                   # the Raspberry Pi Pico in rp2040js on ticketq's
                                               #   firmware (ticketq firmware rp2, built first if
                                               #   the cache lacks it); fails if the heartbeat
                                               #   LED (GPIO 25) never toggles
    tools/run --emulate qemu-armv7m            # MicroPython's QEMU firmware, ticketq frozen:
                                               #   qemu-armv6m, qemu-armv7m, qemu-rv32
    tools/run --connect /dev/ttyACM0           # a board (also a0, u0, auto, socket://host:port);
    tools/run --connect u0 --board esp32       #   its profile by sys.platform, or --board
    tools/run --exec 'import ticketq; print(ticketq.__version__)'
                                               # a snippet on the host VM (micropython -c)

Targets:
- the host MicroPython VM (default; profile `host`): tools/mpvm/main.mjs loads the VM with
  tools/mpvm/vm.mjs and runs the firmware itself, `import workload; workload.main(FILE)`.
- a board (--connect URL, or --emulate microbit): its profile goes on with ticketq deploy
  (verified), the board is soft-reset, the modules worker.py needs are imported one at a
  time (the free heap is measured after each), and the job functions of
  firmware/workload.py are imported from the board's workload.py, or, where the profile
  does not put it on (the micro:bit has no room), sent as source. The host then reads the
  workload file with firmware/workload.py's own reader and parser (`lines`, `play`, run
  here on CPython) and drives a worker.Worker on the board with one small REPL command per
  submit, cancel and step, printing the board's lines as they come; the summary is
  `shell.Shell.summary` over the board's counters. The lines are the same as on the VM.
  A profile with BATCH (microbit-frozen: ticketq's micro:bit firmware) is fed in batches
  instead: one REPL command `B("...")` of at most BATCH characters of submits, cancels and
  steps (BatchWorker, BATCH_SRC), and the free heap after each batch is printed at the end
  (first, last, and the least in each half of the run).

- MicroPython's QEMU firmware (--emulate qemu-armv6m, qemu-armv7m, qemu-rv32: Cortex-M0 as
  on an RP2040, Cortex-M3 as on an RP2350 or stm32, RV32IMC as on an ESP32-C3), built and
  cached by ticketq mcu with the library frozen through manifest.py (viper=True): nothing
  is deployed (that firmware has no writable filesystem); firmware/*.py and the profile
  (rp2, or esp32 for qemu-rv32; --board another) as board.py are mounted with `mpremote
  mount`, then the run goes as on a board. The job lines are the VM's (ticketq mcu
  mainjob compares them).

The whole workload file is checked on the host before anything runs (firmware/workload.py's
own parser, with the library's checks, on CPython): a bad line stops the run there with one
line `FILE:LINE: reason`, naming any character that cannot be seen (a no-break space, a
byte order mark, a control character), and exit status 2.

If the board raises MemoryError, the run stops there with what did not fit and the free
heap (before it, and after a gc.collect()); a board that does not answer within --timeout
seconds stops it too. Never a hang, never a silent pass.

Exit status (tools/ticketq_tools/exitcodes.py, the table in docs/fleet.md): 0 the workload ran to its
summary; 1 it did not (an error on the board or the VM, no answer once running); 2 usage or
setup (a bad option, a bad workload file, no node, no VM, no profile, no emulator); 3 out of
memory (MemoryError), what did not fit named; 4 the board cannot be reached (no REPL at the
connect string). With --exec:
0, or 1 when the snippet raised (its traceback on stderr), or sys.exit's status, as
`micropython -c`.
"""

import argparse
import ast
import os
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/, this package's parent
ROOT = os.path.dirname(HERE)
MAIN_MJS = os.path.join(HERE, "mpvm", "main.mjs")
VM_PKG = os.path.join(HERE, "mpvm", "node_modules", "@micropython", "micropython-webassembly-pyscript")
SAMPLE = os.path.join(ROOT, "firmware", "workload.txt")
WORKER = os.path.join(ROOT, "firmware", "worker.py")
WORKLOAD = os.path.join(ROOT, "firmware", "workload.py")
import ticketq_tools  # noqa: E402  (puts lib/ and firmware/ on sys.path: ticketq_tools/__init__.py)

# One code per condition, shared with fleetctl and the gateway: tools/ticketq_tools/exitcodes.py
from ticketq_tools.exitcodes import OK, FAILED, NO_RAM, UNREACHABLE, USAGE as SETUP  # noqa: E402


class Stop(Exception):
    """The run cannot go on: message and exit status."""

    def __init__(self, msg, code=FAILED):
        Exception.__init__(self, msg)
        self.code = code


def say(line=""):
    print(line, flush=True)


def rel(path):
    r = os.path.relpath(path)
    return path if r.startswith("..") else r


# ---- the host MicroPython VM

def need_vm():
    """Stop (SETUP) unless node and the npm VM are there."""
    if not shutil.which("node"):
        raise Stop("node not found: the host MicroPython VM runs under Node.js >= 20 "
                   "(install nodejs, then tools/setup)", SETUP)
    if not os.path.isdir(VM_PKG):
        raise Stop("the MicroPython VM is not installed: run tools/setup "
                   "(or npm ci --prefix tools/mpvm)", SETUP)


def run_vm(args, prof, path):
    need_vm()
    try:
        import json

        with open(os.path.join(VM_PKG, "package.json")) as f:
            ver = "MicroPython %s " % json.load(f)["version"]
    except (OSError, ValueError, KeyError):
        ver = ""
    say("== worker firmware on the host %sVM (WebAssembly, Node.js %s): profile %s, workload %s" % (
        ver, subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip(),
        prof["NAME"], rel(path)))
    cmd = ["node", MAIN_MJS, "--board", prof["_path"], "--workload", path, "--heap", str(args.heap)]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, bufsize=1)  # stderr: ours
    killed = []
    timer = threading.Timer(args.timeout or 300, lambda: (killed.append(1), p.kill()))
    timer.start()
    n = 0
    try:
        for line in p.stdout:
            line = line.rstrip("\r\n")
            n += line.startswith("run ")
            say(line)
        code = p.wait()
    finally:
        timer.cancel()
        if p.poll() is None:
            p.kill()
            p.wait()
    secs = time.monotonic() - t0
    if killed:
        raise Stop("the VM did not finish within %g s (--timeout): stopped after %d jobs" % (
            args.timeout or 300, n))
    if code == NO_RAM:
        raise Stop("the firmware ran out of heap on the VM (MemoryError above; --heap %d)" % args.heap, NO_RAM)
    if code:
        raise Stop("the workload did not finish on the VM (node exited %d, after %d jobs)" % (code, n),
                   SETUP if code == 2 else FAILED)
    say("== %d jobs run on the host VM in %.1f s" % (n, secs))


# ---- a board over mpremote

def job_sources(path=WORKLOAD):
    """The job functions of workload.py and its KINDS table, as small stripped sources in
    source order: what KINDS needs from the module, nothing else (not play, sample...)."""
    from ticketq_tools import deploy

    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    kinds = [n for n in tree.body if isinstance(n, ast.Assign) and
             any(isinstance(t, ast.Name) and t.id == "KINDS" for t in n.targets)]
    if not kinds:
        raise Stop("%s has no KINDS table" % rel(path), SETUP)
    need, todo = set(), [kinds[0]]
    while todo:
        for node in ast.walk(todo.pop()):
            if isinstance(node, ast.Name) and node.id in defs and node.id not in need:
                need.add(node.id)
                todo.append(defs[node.id])
    nodes = [n for n in tree.body if n is kinds[0] or (isinstance(n, ast.FunctionDef) and n.name in need)]
    return [(getattr(n, "name", "KINDS"), deploy.strip_source(ast.unparse(n))) for n in nodes]


class Link:
    """Small REPL commands to the worker on a board, through deploy.Board (raw REPL; a
    garbled command is sent again). Errors become Stop: MemoryError -> NO_RAM."""

    def __init__(self, board, prof, timeout):
        self.board = board
        self.prof = prof
        self.timeout = timeout
        self.where = "%s (MicroPython %s)" % (prof["NAME"], ".".join(map(str, board.info["version"])))
        self.last_free = None  # (free heap in B, after what), the last measured

    def free(self, after=None):
        try:
            n = self.board.mem_free()
        except Exception:
            return None
        if after:
            self.last_free = (n, after)
        return n

    def run(self, cmd, what):
        """Run cmd on the board; its output lines (stripped)."""
        from mpremote.transport import TransportError, TransportExecError
        import serial

        try:
            out = self.board.exec(cmd, timeout=self.timeout)
        except TransportExecError as e:
            err = str(e.error_output or "").strip().splitlines()
            last = err[-1].strip() if err else "an error"
            if "MemoryError" in last:
                before = self.last_free
                now = self.free()
                raise Stop("does not fit: %s raised %s on %s; %s free before it%s%s" % (
                    what, last, self.where,
                    "%d B of heap were" % before[0] if before else "an unmeasured amount of heap was",
                    " (after %s)" % before[1] if before else "",
                    ", %d B after a gc.collect()" % now if now is not None else ""), NO_RAM)
            raise Stop("%s failed on %s: %s" % (what, self.where, last))
        except (TransportError, serial.SerialException, OSError) as e:
            raise Stop("%s: no answer from %s within %.0f s (%s)" % (
                what, self.where, self.timeout, str(e).strip() or type(e).__name__))
        return [l.rstrip("\r") for l in out.splitlines()]

    def call(self, expr, what):
        """Run print(expr): (the lines printed before, its value as text)."""
        lines = self.run("print(%s)" % expr, what)
        if not lines:
            raise Stop("%s: %s printed nothing" % (what, self.where))
        return lines[:-1], lines[-1].strip()


class BoardWorker:
    """What workload.play drives (submit, cancel, step; summary after it), done by the
    worker.Worker `w` on the board. Like shell.Shell: classes by name, jobs by kind,
    "full ..." and "cancel ..." lines; a cancel by name takes the oldest queued job of that
    name (ids in submission order, kept here)."""

    def __init__(self, link, kinds, capacity, aging, out):
        self.link, self.kinds, self.out = link, kinds, out
        self.queued = {}  # id -> (name, class) of the jobs queued on the board, oldest first
        self.ran = 0
        link.run("w=None\nimport gc\ngc.collect()\nw=Worker(%d,%d)" % (capacity, aging),
                 "Worker(%d, %d) (the queue and its job table)" % (capacity, aging))
        if link.prof.get("HEARTBEAT") and not link.prof.get("BATCH"):
            # the board's heartbeat LED, as shell.Shell drives it (shell.boot): toggled after
            # each job's line; nothing where the board has no such pin (QEMU) or no shell
            link.run(HEARTBEAT_SRC, "the heartbeat LED (shell._led(board.HEARTBEAT))")
        link.free("Worker(%d, %d)" % (capacity, aging))

    def submit(self, name, cls, fn=None):
        from shell import job_class, job_kind
        from worker import CLASSES

        cls = job_class(cls)
        kind = job_kind(name, self.kinds)
        lines, i = self.link.call("w.submit(%r,%d,KINDS[%r])" % (name, cls, kind), "submit %s" % name)
        self.echo(lines)
        if i == "None":
            if self.out:
                self.out("full %s %s" % (name, CLASSES[cls]))
            return None
        self.queued[int(i)] = (name, cls)
        return int(i)

    def cancel(self, job):
        from worker import CLASSES

        ids = [i for i, (n, c) in self.queued.items() if n == job or i == job]
        if not ids:
            return False
        i = ids[0]
        lines, ok = self.link.call("w.cancel(%d)" % i, "cancel %s" % job)
        self.echo(lines)
        if ok != "True":
            return False
        name, c = self.queued.pop(i)
        if self.out:
            self.out("cancel %d %s %s" % (i, name, CLASSES[c]))
        return True

    def step(self):
        lines, i = self.link.call("w.step()", "step (run the next job)")
        self.echo(lines)
        if i == "None":
            return None
        self.queued.pop(int(i), None)
        self.ran += 1
        return int(i)

    def echo(self, lines):
        for line in lines:
            if self.out:
                self.out(line)

    def summary(self, out=print):
        import shell

        stats, n, digest = ast.literal_eval(self.link.call(
            "repr((list(w.stats),len(w.q),w.q.digest))", "read the counters")[1])
        shell.Shell.summary(_Counters(stats, n, digest), out)


# Batched feeding (profiles with BATCH, the micro:bit's own firmware): one REPL command per
# job failed there after ~40 jobs, "MemoryError: parser could not allocate enough memory"
# with 5.5 KB free, the free heap falling job by job (each command's short string literals,
# the job names, are interned for good and fragment the heap). So the host sends the jobs in
# batches of at most BATCH characters, each one raw-REPL command `B("...")` calling
# this small function, sent once as source: submits, cancels and steps, separated by "|";
# the names are made on the board by str.split, freed when their jobs are done, so nothing
# grows run after run. After each batch the board prints its free heap (after a
# gc.collect()): the host shows it and checks that it does not drift.
BATCH_SRC = (
    "def B(s):\n"
    " for c in s.split('|'):\n"
    "  o=c[0]\n"
    "  if o=='s':\n"
    "   n,k,x=c[1:].split(' ')\n"
    "   print('=',w.submit(n,int(k),KINDS[x]))\n"
    "  elif o=='c':\n"
    "   print('=',w.cancel(int(c[1:])))\n"
    "  else:\n"
    "   w.step()\n"
    " c=s=n=x=None\n"
    " gc.collect()\n"
    " print('#',gc.mem_free())"
)


# The worker's log lines through this, on boards whose profile names a HEARTBEAT (not the
# micro:bit's batched feeding): the LED shows pops & 1 after each job, as shell.Shell does,
# so a Pico's LED (GPIO 25) blinks while tools/run drives it; the lines are unchanged.
HEARTBEAT_SRC = (
    "try:\n"
    " from shell import _led\n"
    " import board\n"
    " _hl=_led(getattr(board,'HEARTBEAT',None))\n"
    "except ImportError:\n"
    " _hl=None\n"
    "def _hb(s):\n"
    " if _hl:\n"
    "  _hl(w.pops&1)\n"
    " print(s)\n"
    "w.out=_hb"
)


class BatchWorker(BoardWorker):
    """BoardWorker in batches (see BATCH_SRC). Ops queue up here and go to the board when
    the batch is full, before a cancel (which needs the board's ids) and before the
    summary. step() is answered from the host's count of queued jobs, never below the
    board's (a submit counts until the board refuses it), so a `run n` sends at most n
    steps and the board runs exactly what the VM runs (a step on an empty queue does
    nothing)."""

    def __init__(self, link, kinds, capacity, aging, out, limit):
        self.pending = []  # (op text, (name, class) of a submit, else None)
        self.limit = limit
        self.guess = 0  # jobs queued on the board, as the host counts them (>= the truth)
        self.heap = []  # free heap after each batch (B after a gc.collect())
        BoardWorker.__init__(self, link, kinds, capacity, aging, out)
        self.boot_free = link.last_free  # (B, "Worker(capacity, aging)")
        link.run("import gc\n" + BATCH_SRC, "defining the batch feeder B (%d B of source)" % len(BATCH_SRC))

    def _add(self, op, sub=None):
        if self.pending and sum(len(o) + 1 for o, _ in self.pending) + len(op) > self.limit:
            self.flush()
        self.pending.append((op, sub))

    def flush(self):
        from worker import CLASSES

        if not self.pending:
            return
        ops, self.pending = self.pending, []
        subs = [sub for _, sub in ops if sub]
        answers = [sub for o, sub in ops if o[0] in "sc"]  # what each "= ..." line answers
        lines = self.link.run("B(%r)" % "|".join(o for o, _ in ops),
                              "a batch of %d ops from submit %s" % (len(ops), subs[0][0] if subs else "-"))
        k = 0
        for line in lines:
            if line.startswith("= "):
                val = line[2:].strip()
                sub = answers[k] if k < len(answers) else None
                k += 1
                if sub is None:
                    continue  # a cancel's answer: cancel() reads it
                if val == "None":
                    self.guess -= 1
                    if self.out:
                        self.out("full %s %s" % (sub[0], CLASSES[sub[1]]))
                else:
                    self.queued[int(val)] = sub
            elif line.startswith("# "):
                self.heap.append(int(line[2:]))
            else:
                if line.startswith("run "):
                    self.queued.pop(int(line.split()[1]), None)
                    self.ran += 1
                if self.out:
                    self.out(line)
        self.guess = len(self.queued)  # exact again: the board has answered every op
        return lines

    def submit(self, name, cls, fn=None):
        from shell import job_class, job_kind

        cls = job_class(cls)
        kind = job_kind(name, self.kinds)
        self._add("s%s %d %s" % (name, cls, kind), (name, cls))
        self.guess += 1
        return -1  # not known until the batch has run (workload.play does not read it)

    def cancel(self, job):
        from worker import CLASSES

        self.flush()
        ids = [i for i, (n, c) in self.queued.items() if n == job or i == job]
        if not ids:
            return False
        i = ids[0]
        self._add("c%d" % i)
        lines = self.flush()
        if "= True" not in lines:
            return False
        name, c = self.queued.pop(i)
        self.guess -= 1
        if self.out:
            self.out("cancel %d %s %s" % (i, name, CLASSES[c]))
        return True

    def step(self):
        if self.guess <= 0:
            return None
        self.guess -= 1
        self._add("r")
        return -1

    def summary(self, out=print):
        self.flush()
        BoardWorker.summary(self, out)
        h = self.heap
        if h:
            if self.boot_free:
                out("== heap free after %s: %d B" % (self.boot_free[1], self.boot_free[0]))
            half = max(1, len(h) // 2)
            out("== heap free after each of %d batches (after a gc.collect()): first %d B, last %d B; "
                "min %d B in the first half, %d B in the second" % (
                    len(h), h[0], h[-1], min(h[:half]), min(h[half:] or h)))


class _Counters:
    """What shell.Shell.summary reads: stats, len(q), q.digest."""

    def __init__(self, stats, n, digest):
        self.stats = stats
        self.q = self
        self.n = n
        self.digest = digest

    def __len__(self):
        return self.n


def prepare(link, prof, sizes, log):
    """Soft reset, then import what worker.Worker needs one module at a time, measuring
    the free heap after each; then the job functions. Returns (job kinds, free heap
    after the soft reset). The heap line is printed also when something does not fit."""
    from ticketq_tools import deploy

    link.board.soft_reset()
    boot = link.free("a soft reset")
    parts = ["%s B after a soft reset" % boot]
    try:
        for mod in [m for m, _ in deploy.import_order(WORKER)] + ["worker"]:
            link.run("import %s" % mod, "import %s (%s B of source on the board)" % (
                mod, sizes.get(mod + ".py", sizes.get(mod + ".mpy", "?"))))
            parts.append("import %s %s B" % (mod, link.free("import %s" % mod)))
        link.run("from worker import Worker", "from worker import Worker")
        if "workload.py" in [os.path.basename(f) for f in prof["FILES"]]:
            link.run("from workload import KINDS", "import workload (its job functions)")
            parts.append("import workload %s B" % link.free("import workload"))
            how = "imported from the board's workload.py"
        else:
            srcs = job_sources()
            for name, src in srcs:
                link.run(src, "defining %s of firmware/workload.py (%d B of source)" % (name, len(src)))
            parts.append("the job functions %s B" % link.free("the job functions"))
            how = "sent from firmware/workload.py (%s)" % ", ".join(n for n, _ in srcs)
        kinds = ast.literal_eval(link.call("repr(sorted(KINDS))", "list the job kinds")[1])
    finally:
        log("== heap free: " + ", after ".join(parts))
    log("== job kinds %s: %s" % (", ".join(kinds), how))
    return kinds, boot


def run_board(args, url, path, emulated):
    from ticketq_tools import deploy

    t0 = time.monotonic()
    try:
        board = deploy.open_board(url, args.timeout)
    except deploy.DeployError as e:  # no answer: unreachable (tools/ticketq_tools/exitcodes.py, docs/fleet.md)
        raise Stop(str(e), UNREACHABLE)
    with board:
        from ticketq_tools.devtest import pick_profile  # --board, else the profile named as its sys.platform

        try:
            prof = pick_profile(board, args.board or emulated)
        except deploy.DeployError as e:
            raise Stop(str(e), SETUP)
        say("== worker firmware on %s at %s: MicroPython %s (%s), %d B heap free; profile %s, workload %s" % (
            "an emulated " + emulated if emulated else "a board", url, ".".join(map(str, board.info["version"])),
            board.info["platform"], board.info["free"], prof["NAME"], rel(path)))
        from mpremote.transport import TransportError

        try:
            res = deploy.deploy(board, prof, log=lambda s: say("   " + s.strip()) if args.verbose else None)
        except (deploy.DeployError, TransportError) as e:
            raise Stop("deploy: %s" % (str(e).strip() or type(e).__name__))
        sizes = {r.name: r.size for r in res}
        say("== deployed %d files, %d B, verified (ticketq deploy, %.1f s)" % (
            len(res), sum(sizes.values()), time.monotonic() - t0))
        link = Link(board, prof, args.timeout)
        try:
            w, boot, secs = session(link, prof, path, sizes)
        except Stop:
            if not emulated:  # a real board: stop what it runs, leave it a fresh heap
                try:
                    board.recover()
                except Exception:
                    pass
            raise
        say("== %d jobs run on %s in %.1f s; %s B heap free after the session (%s after a soft reset)" % (
            w.ran, prof["NAME"], secs, link.free(), boot))
        if board.garbled:
            say("== (%d commands reached the board garbled and were sent again)" % board.garbled)
        try:
            board.soft_reset()  # leave it with a fresh heap
        except Exception:
            pass
        return w


# ---- MicroPython's QEMU firmware (ticketq mcu): a microcontroller ISA, ticketq frozen

# --emulate name: (ticketq mcu target, the board profile whose real boards that ISA runs)
QEMU_BOARDS = {
    "qemu-armv6m": ("armv6m", "rp2"),    # Cortex-M0: RP2040 (Pico)
    "qemu-armv7m": ("armv7m", "rp2"),    # Cortex-M3: RP2350 (Pico 2), stm32
    "qemu-rv32": ("rv32imc", "esp32"),   # RV32IMC: ESP32-C3
}


def run_qemu(args, path):
    """The main job on MicroPython's QEMU firmware for a target of ticketq mcu (built
    there, cached), with the library frozen as a board's manifest.py freezes it
    (viper=True). That firmware has no writable filesystem: instead of deploying, the
    profile (as board.py) and firmware/*.py are mounted with mpremote mount; the library
    is the frozen one. Then as on a board: prepare, play, summary."""
    from ticketq_tools import deploy
    from ticketq_tools import mcu
    import tempfile

    target, profile = QEMU_BOARDS[args.emulate]
    t0 = time.monotonic()
    try:
        prof = deploy.read_profile(args.board or profile)
        elf = mcu.firmware(target, True, log=lambda s: print("   " + s, file=sys.stderr, flush=True))
    except (deploy.DeployError, mcu.McuError) as e:
        raise Stop(str(e), SETUP)
    with tempfile.TemporaryDirectory(prefix="tq-run-") as tmp:
        names = []
        for fn in sorted(os.listdir(os.path.join(ROOT, "firmware"))):
            if fn.endswith((".py", ".txt")):
                shutil.copyfile(os.path.join(ROOT, "firmware", fn), os.path.join(tmp, fn))
                names.append(fn)
        with open(prof["_path"]) as f:
            board_py = deploy.profile_for_board(f.read(), prof["_path"])
        with open(os.path.join(tmp, "board.py"), "w") as f:
            f.write(board_py)
        sizes = {n: os.path.getsize(os.path.join(tmp, n)) for n in names + ["board.py"]}
        try:
            q = mcu.Qemu(target, elf).start()
        except mcu.McuError as e:
            raise Stop(str(e), SETUP)
        try:
            try:
                board = deploy.open_board(q.url, args.timeout)
            except deploy.DeployError as e:
                raise Stop(str(e), FAILED)
            with board:
                def mount():
                    t = board.t
                    if t.mounted:  # after a soft reset the board has lost it: mount again
                        t.serial = t.serial.orig_serial
                        t.mounted = False
                    t.mount_local(tmp)
                    t.exec("import sys\nsys.path.insert(0, '/remote')")

                reset = board.soft_reset

                def soft_reset():
                    reset()
                    mount()

                board.soft_reset = soft_reset
                mount()
                say("== worker firmware on an emulated %s (QEMU %s, %s: proves %s) at %s: MicroPython %s (%s), "
                    "%d B heap free; ticketq frozen (ticketq mcu), profile %s, workload %s" % (
                        args.emulate, mcu.TARGETS[target]["board"], mcu.TARGETS[target]["isa"],
                        mcu.TARGETS[target]["proves"], q.url, ".".join(map(str, board.info["version"])),
                        board.info["platform"], board.info["free"], prof["NAME"], rel(path)))
                say("== mounted %d files, %d B (mpremote mount: firmware/ and the profile as board.py), %.1f s" % (
                    len(sizes), sum(sizes.values()), time.monotonic() - t0))
                link = Link(board, prof, args.timeout)
                w, boot, secs = session(link, prof, path, sizes)
                where = link.call("ticketq.PATH if 'ticketq' in globals() else __import__('ticketq').PATH",
                                  "ask ticketq.PATH")[1]
                say("== %d jobs run on %s in %.1f s; %s B heap free after the session (%s after a soft "
                    "reset); ticketq's %s path" % (w.ran, args.emulate, secs, link.free(), boot, where))
        finally:
            q.stop()


# ---- the emulated Raspberry Pi Pico (rp2040js): ticketq's own RP2040 firmware

def run_pico(args, path):
    """The main job on the emulated Pico: ticketq firmware rp2's firmware (built if the cache
    lacks it) in rp2040js, its USB CDC on a pty (tools/ticketq_tools/pico.py), then as on a
    real Pico over mpremote: deploy the profile (rp2-frozen: nothing to put on, all is
    frozen), prepare, play, summary. The heartbeat LED (GPIO 25) must have toggled if any
    job ran: a run whose LED never changed fails (exit 1)."""
    from ticketq_tools import pico, rp2

    try:
        paths, info, _ = rp2.build("rp2", True, log=lambda s: print("   " + s, file=sys.stderr, flush=True))
    except rp2.BuildError as e:
        raise Stop("firmware: %s" % e, SETUP if e.code == 2 else FAILED)
    try:
        p = pico.Pico(paths["bin"]).start()
    except pico.PicoError as e:
        raise Stop(str(e), SETUP)
    try:
        say("== the emulated Raspberry Pi Pico (rp2040js, %s): ticketq's firmware %s (ticketq firmware rp2, %s, "
            "text %d B)" % (info["chip"], info["key"], info["board"], info["text"]))
        w = run_board(args, p.url, path, args.board or "rp2-frozen")
    finally:
        p.stop()
    end = (p.summary or "").split()  # [pico] end SIM_S CYCLES HOST_S EDGES
    say("== heartbeat LED (GPIO 25): %d changes over %d jobs%s" % (
        p.edges, w.ran, "; %s s simulated, %s CPU cycles, %s s host" % tuple(end[2:5]) if len(end) >= 6 else ""))
    if w.ran and not p.edges:
        raise Stop("the heartbeat LED (GPIO 25) never changed while %d jobs ran" % w.ran)


def session(link, prof, path, sizes=None, log=say):
    """The workload on the board behind `link`: prepare, play, summary. Returns (the
    BoardWorker, free heap after the soft reset, seconds the workload took)."""
    import workload

    kinds, boot = prepare(link, prof, sizes or {}, log)

    def boot_on_board(capacity=None, aging=0, kinds_=None, out=print):
        # workload.play's boot(): a fresh worker.Worker on the board (board.CAPACITY
        # when the workload gives none, as shell.boot)
        if prof.get("BATCH"):
            return BatchWorker(link, kinds, capacity or prof.get("CAPACITY", 32), aging, out, prof["BATCH"])
        return BoardWorker(link, kinds, capacity or prof.get("CAPACITY", 32), aging, out)

    t0 = time.monotonic()
    w = play(workload, boot_on_board, path, log)
    w.summary(log)
    return w, boot, time.monotonic() - t0


def play(workload, boot, path, out=say):
    """workload.play over the file's lines (workload.lines), with `boot` in place of
    shell.boot; an error names the workload line it came from."""
    seen = [0, ""]

    def numbered(lines):
        for line in lines:
            seen[0] += 1
            seen[1] = line.strip()
            yield line

    saved = workload.boot
    workload.boot = boot
    try:
        w = workload.play(numbered(workload.lines(path)), None, out)
        return w if w is not None else boot(None, 0, None, out)
    except (ValueError, KeyError, TypeError) as e:
        msg = str(e)
        if not msg.startswith("workload line"):
            msg = "workload line %d: %s: %s" % (seen[0], seen[1], msg)
        raise Stop("%s (%s)" % (msg, rel(path)))
    finally:
        workload.boot = saved


# ---- the workload file, checked whole before anything runs

class BadWorkload(Stop):
    """A workload file that does not pass the check: its message is the whole line."""

    def __init__(self, msg):
        Stop.__init__(self, msg, SETUP)


class _DryWorker:
    # What workload.play drives (submit, cancel, step), doing nothing: the file is only
    # read. The queue line's capacity and aging go through the library's own checks.
    def __init__(self, capacity, aging):
        from ticketq import TicketQueue

        if capacity is not None:
            TicketQueue(capacity, 0, aging)

    def submit(self, name, cls, fn=None):
        return 1

    def cancel(self, job):
        return True

    def step(self):
        return None


def _dry_boot(capacity=None, aging=0, kinds=None, out=None):
    return _DryWorker(capacity, aging)


def _unseen(line):
    """'; U+00A0 (NO-BREAK SPACE) at column 5' for the characters of a line that are not
    printable ASCII (what an editor may not show), or ''."""
    import unicodedata

    out = []
    for col, ch in enumerate(line.rstrip("\r\n"), 1):
        if " " <= ch <= "~" or ch == "\t":
            continue
        if ch == "\ufeff":
            name = "BYTE ORDER MARK"
        else:
            name = unicodedata.name(ch, "control character" if unicodedata.category(ch) == "Cc" else "unnamed")
        out.append("U+%04X (%s) at column %d" % (ord(ch), name, col))
    if not out:
        return ""
    return "; " + ", ".join(out[:3]) + (" and %d more" % (len(out) - 3) if len(out) > 3 else "")


def check_workload(path, shown=None):
    """Check the whole workload file at `path` with firmware/workload.py's own player
    (workload.play over a worker that does nothing), before anything of it runs. Returns
    None, or one line `FILE:LINE: reason` (FILE as `shown`), naming the characters of a
    bad line that are not printable ASCII. Lines end at "\\n" only, as MicroPython reads them."""
    import workload

    shown = shown or path
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        start = data.rfind(b"\n", 0, e.start) + 1
        return "%s:%d: not UTF-8 text: byte 0x%02x at column %d (the firmware reads UTF-8)" % (
            shown, data.count(b"\n", 0, e.start) + 1, data[e.start], e.start - start + 1)
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    seen = [0]

    def numbered():
        for line in lines:
            seen[0] += 1
            yield line

    saved = workload.boot
    workload.boot = _dry_boot
    try:
        workload.play(numbered(), None, None)
    except (ValueError, TypeError) as e:
        n = seen[0]
        line = lines[n - 1] if n else ""
        msg = str(e)
        head = "workload line %d: %s (" % (n, line.strip())  # workload.play's own wording
        if msg.startswith(head) and msg.endswith(")"):
            msg = msg[len(head):-1]
        return "%s:%d: %s%s" % (shown, n, msg, _unseen(line))
    finally:
        workload.boot = saved
    return None


# ---- a snippet on the VM

def run_exec(args, code):
    """tools/run --exec CODE: the snippet on the host VM (tools/mpvm/main.mjs --exec), its
    output as it comes; the exit status of the snippet (0, or 1 when it raised)."""
    need_vm()
    cmd = ["node", MAIN_MJS, "--heap", str(args.heap), "--exec", code]
    try:
        return subprocess.run(cmd, timeout=args.timeout or 300).returncode
    except subprocess.TimeoutExpired:
        raise Stop("the snippet did not finish within %g s (--timeout)" % (args.timeout or 300))


def positive(text):
    """argparse type: a number of seconds > 0."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number of seconds" % text)
    if not v > 0 or v != v or v == float("inf"):
        raise argparse.ArgumentTypeError("%s: give a number of seconds > 0" % text)
    return v


# ---- main

def main(argv=None):
    from ticketq_tools import firmware  # FIRMWARES, for --firmware (stdlib imports only)

    p = argparse.ArgumentParser(
        prog="tools/run",
        description="Run the worker firmware on a workload, printing each job as it runs and a summary: "
                    "on the host MicroPython VM (default), a board over mpremote, or the emulated micro:bit.",
        epilog="Workload format: firmware/workload.pyi (queue / push / cancel / run lines), checked whole "
               "before anything runs. Exit: 0 ran, 1 failed, 2 setup or usage (a bad option or workload "
               "file), 3 out of memory on the target, 4 the board cannot be reached (tools/ticketq_tools/exitcodes.py); with --exec, 0, 1 or sys.exit's as micropython -c.")
    p.add_argument("--workload", "-w", metavar="FILE", default=SAMPLE,
                   help="workload file (default: firmware/workload.txt, the sample of an edge mesh node)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--connect", "-c", metavar="URL",
                   help="a board: mpremote connect string (/dev/ttyACM0, a0, u0, auto, socket://host:port)")
    g.add_argument("--emulate", choices=["microbit", "pico"] + sorted(QEMU_BOARDS),
                   help="an emulated board, started and stopped here: microbit (the BBC micro:bit v1 in QEMU: see --firmware), "
                        "pico (the Raspberry Pi Pico in rp2040js, ticketq's firmware: ticketq firmware rp2), or "
                        "MicroPython's QEMU firmware with ticketq frozen (ticketq mcu builds it): qemu-armv6m "
                        "(RP2040's ISA), qemu-armv7m (RP2350, stm32), qemu-rv32 (ESP32-C3)")
    p.add_argument("--firmware", choices=firmware.FIRMWARES, default="ticketq",
                   help="with --emulate microbit: ticketq's own firmware, the library and worker frozen "
                        "(ticketq firmware microbit; built first if needed; the default and only choice: "
                        "Debian's stock hex is retired, it cannot compile the library, docs/microbit.md)")
    p.add_argument("--board", "-b", metavar="NAME",
                   help="board profile (boards/NAME/board.py or a path; default: host on the VM, the "
                        "emulated board's, or the board's sys.platform)")
    g.add_argument("--exec", "-x", metavar="CODE", dest="code",
                   help="run a snippet on the host MicroPython VM instead (lib/ and firmware/ importable), "
                        "as micropython -c does: tools/run --exec 'import ticketq; print(ticketq.__version__)'")
    p.add_argument("--timeout", type=positive, default=None,
                   help="seconds without an answer from a board (default 10), or for the whole run on "
                        "the VM (default 300)")
    p.add_argument("--heap", type=int, default=1024 * 1024, help="the VM's initial heap in bytes, 16384 .. 2**30 (default 1 MiB)")
    p.add_argument("--verbose", "-v", action="store_true", help="show each file deployed to a board")
    args = p.parse_args(argv)
    if not 16384 <= args.heap <= 1 << 30:  # the VM's memory ends at 2 GiB
        p.error("--heap: 16384 to 1073741824 bytes (1 GiB)")
    if args.code is not None and args.workload != SAMPLE:
        p.error("--exec runs a snippet, not a workload: give one of them")
    path = os.path.abspath(args.workload)  # from the directory tools/run was run in
    try:
        if args.code is not None:
            return run_exec(args, args.code)
        if not os.path.isfile(path):
            raise Stop("no workload file %s" % args.workload, SETUP)
        bad = check_workload(path, args.workload if path != SAMPLE else rel(path))
        if bad:  # nothing has run yet, anywhere
            raise BadWorkload(bad)
        if not (args.connect or args.emulate):
            from ticketq_tools import deploy

            try:
                prof = deploy.read_profile(args.board or "host")
            except deploy.DeployError as e:
                raise Stop(str(e), SETUP)
            run_vm(args, prof, path)
            return OK
        args.timeout = args.timeout or 10.0
        try:
            import mpremote  # noqa: F401
            from ticketq_tools import emu
        except ImportError as e:
            raise Stop("%s: run tools/setup (mpremote from PyPI)" % e, SETUP)
        if args.connect:
            run_board(args, args.connect, path, None)
            return OK
        if args.emulate in QEMU_BOARDS:
            run_qemu(args, path)
            return OK
        if args.emulate == "pico":
            run_pico(args, path)
            return OK
        from ticketq_tools import firmware

        try:
            hex_path, prof_name = firmware.for_emulator(args.firmware, log=lambda s: print(s, file=sys.stderr))
        except firmware.BuildError as e:
            raise Stop("firmware: %s" % e, SETUP if e.code == 2 else FAILED)
        except emu.EmuError as e:
            raise Stop(str(e), SETUP)
        try:
            with emu.microbit(firmware=hex_path) as url:
                run_board(args, url, path, args.board or prof_name)
        except emu.EmuError as e:
            raise Stop(str(e), SETUP)
        return OK
    except Stop as e:
        print(("%s" if isinstance(e, BadWorkload) else "tools/run: %s") % e, file=sys.stderr, flush=True)
        return e.code
    except KeyboardInterrupt:
        print("tools/run: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

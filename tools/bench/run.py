#!/usr/bin/env python3
"""Benchmark ticketq against the textbook priority queues on every interpreter (issue 6).

    .venv/bin/python tools/bench/run.py            # full run (a few minutes): writes
                                                   # BENCHMARKS.md, docs/bench.png,
                                                   # docs/bench-memory.png and
                                                   # tools/bench/results.json
    .venv/bin/python tools/bench/run.py --quick    # seconds-long smoke run into build/bench/
    options: --interp cpython,vm,unix,microbit,qemu-armv6m,qemu-armv7m,qemu-rv32  --out DIR  --no-plot

The kernels are in tools/bench/tqbench.py, one module that runs unchanged on CPython, the
MicroPython WebAssembly VM, the MicroPython unix port and the micro:bit. This script sends
them snippets through four drivers that all run "a list of snippets in one namespace, each
one's printed output back":
  cpython   a fresh `python -B tools/bench/cpy_worker.py`
  vm        `node tools/bench/vm.mjs` (one runPython call per snippet: that port frees
            garbage only between calls, so each timed section and memory reading gets one)
  unix      `micropython tools/bench/mp_worker.py`: the 32-bit unix port that tools/mpunix.py
            finds (viper and native emitters, like rp2/esp32/stm32 boards), with both of
            ticketq's hot paths side by side: the default (viper) and the bytecode class
  qemu-armv6m, qemu-armv7m, qemu-rv32
            MicroPython's QEMU firmware (tools/mcu.py: Cortex-M0, Cortex-M3, RV32IMC), ticketq
            frozen with viper=True, tqbench.py and mp_worker.py over `mpremote mount`; both
            hot paths against the firmware's C heapq (the "Microcontroller ISAs" table)
  microbit  an emulated BBC micro:bit v1 (tools/emu.py: QEMU + MicroPython 1.9.2) over
            mpremote; sources are uploaded stripped, and only what a phase needs
            (tools/bench/shake.py), because the board has ~9.6 KB of heap
Every reported figure is a ratio to a baseline measured in the same run (heapq with tuples,
or on the micro:bit a pure-Python heap of tuples), from medians of several runs with
gc.collect() before each timed section; the plain loop's own time is subtracted.
"""
import argparse
import ast
import json
import os
import re
import platform
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[0:0] = [HERE, os.path.join(ROOT, "tools")]
import shake  # noqa: E402

NAMES = {
    "tq": "ticketq.TicketQueue",
    "tqb": "ticketq, bytecode path forced",
    "hqt": "heapq, (class, seq, id) tuples",
    "hqi": "heapq, packed ints (C floor)",
    "pq": "queue.PriorityQueue",
    "sl": "sorted list + insort",
    "ph": "pure-Python heap of tuples",
}
TITLES = {
    "cpython": "CPython",
    "vm": "MicroPython WebAssembly VM",
    "unix": "MicroPython unix port (32-bit)",
    "microbit": "micro:bit v1, emulated",
}
# MicroPython's QEMU firmware of tools/mcu.py, ticketq frozen with viper=True: --interp name
# -> tools/mcu.py target
QEMU = {"qemu-armv6m": "armv6m", "qemu-armv7m": "armv7m", "qemu-rv32": "rv32imc"}
TITLES.update({
    "qemu-armv6m": "Cortex-M0 (armv6m, RP2040's ISA) under QEMU",
    "qemu-armv7m": "Cortex-M3 (armv7m, RP2350/stm32's ISA) under QEMU",
    "qemu-rv32": "RISC-V rv32imc (ESP32-C3's ISA) under QEMU",
})
ORDER = ("cpython", "vm", "unix", "microbit") + tuple(QEMU)
MICROPYTHONS = ("vm", "unix", "microbit") + tuple(QEMU)


def fills(cap):
    return (0, cap // 2, cap - 1)


def config(interp, quick):
    """What each interpreter runs: implementations, baseline, capacities, sizes."""
    if interp == "microbit":
        c = dict(impls=["tq", "ph", "sl"], base="ph", caps=(16, 32, 64), sweep_cap=64,
                 sweep=(0, 1, 3, 7, 15, 32, 63), n=300, reps=9, k=16, mem_cap=32, warm=100)
        if quick:
            # 16 slots: with 32 the queue's arrays took the block the board needs free to
            # parse the next command (MemoryError: parser could not allocate...)
            c.update(caps=(16,), sweep_cap=16, sweep=(0, 8, 15), n=50, reps=3, warm=20, mem_cap=16)
        return c
    c = dict(impls=["tq", "hqt", "hqi", "pq", "sl", "ph"], base="hqt", caps=(32, 256, 1024),
             sweep_cap=1024, sweep=(0, 1, 3, 7, 15, 31, 63, 127, 255, 512, 1023),
             n=4000, reps=9, k=64, mem_cap=128, warm=20000)
    if interp == "vm":
        # 3000 pairs a call: a tuple baseline's garbage (96 KB) fits the free heap
        c.update(impls=["tq", "hqt", "hqi", "sl", "ph"], n=3000, warm=5000, long_n=20000)
    if interp == "unix":
        # 20000 pairs a section, as issue 12 measured: the tuple baselines' garbage (640 KB)
        # fills the port's 1 MB heap, so their sections include the collections they cause
        c.update(impls=["tq", "tqb", "hqt", "hqi", "sl", "ph"], n=20000, reps=7, warm=20000)
    if interp in QEMU:
        # both paths against the firmware's own C heapq, on tuples and on packed ints; one
        # capacity (QEMU runs a few times slower than the unix port here)
        c.update(impls=["tq", "tqb", "hqt", "hqi"], caps=(256,), sweep_cap=256, sweep=(0, 128, 255),
                 n=2000, reps=5, warm=2000)
        if interp == "qemu-armv6m":
            # frozen armv6m viper code fails ticketq_viper's self-check on 1c3c201
            # (docs/armv6m-frozen-viper.md): the default path there is bytecode, and no
            # viper class is loaded to force
            c.update(impls=["tq", "hqt", "hqi"])
        if quick:
            c.update(sweep=(0, 128), n=400, reps=3, warm=400, long_n=0)
        return c
    if quick:
        c.update(sweep=(0, 16, 128, 512, 1023), n=c["n"] // 10, reps=3, warm=c["warm"] // 10,
                 long_n=0)
    return c


def cells(c):
    out = set((cap, f) for cap in c["caps"] for f in fills(cap))
    out |= set((c["sweep_cap"], f) for f in c["sweep"])
    return sorted(out)


# ---------------------------------------------------------------- steps
# A step is ("x", code, tag) (run code; if tag, keep its output), ("reset",) (micro:bit:
# soft reset, a fresh heap) or ("put", name, text) (micro:bit: write a file).

def X(code, tag=None):
    return ("x", code, tag)


def time_steps(c, impls=None, interleave=True, only=None):
    """Setup, then reps+1 timed sections per implementation and cell (the first is a
    warm-up). interleave: all implementations live at once and take turns, so a slow
    patch of the machine hits them alike; else one implementation at a time (micro:bit)."""
    impls = impls or c["impls"]
    n, reps = c["n"], c["reps"]
    steps = []
    w = min(64, c["sweep_cap"])  # the micro:bit's quick run: a 64-slot queue leaves no block to parse in
    for x in impls:  # warm-up (the VM's WebAssembly code tiers up in its first seconds)
        steps.append(X("S_%s=M.mk_%s(%d,%d);M.t_%s(S_%s,%d,%d);S_%s=None" % (x, x, w, w // 2, x, x, c["warm"], w // 2, x)))
    for cap, fill in only or cells(c):
        for x in impls:
            steps.append(X("S_%s=M.mk_%s(%d,%d)" % (x, x, cap, fill)))
        for r in range(reps + 1):
            b = fill + r * n
            order = impls[r % len(impls):] + impls[:r % len(impls)] if interleave else impls
            for x in order:
                steps.append(X("print(M.sec(M.t_%s,S_%s,%d,%d))" % (x, x, n, b), ("t", x, cap, fill, r)))
        steps.append(X(";".join("S_%s=None" % x for x in impls)))
    return steps


def long_steps(c):
    """The VM only: sections of long_n pairs, each in one runPython call. This port frees
    nothing during a call, so an allocating kernel's garbage piles up and the heap grows:
    the regime of a long-running program there (and of the issue's 0.6x figure)."""
    N = c.get("long_n")
    if not N:
        return []
    cap, fill = 256, 128
    impls = [x for x in ("tq", "hqt", "hqi", "ph") if x in c["impls"]]
    steps = [X("S_%s=M.mk_%s(%d,%d)" % (x, x, cap, fill)) for x in impls]
    for r in range(c["reps"] + 1):
        for x in impls:
            b = fill + r * N
            steps += FLUSH + [X("gc.collect();A=M.t_none(S_%s,%d,%d);print((A,M.t_%s(S_%s,%d,%d)))"
                                % (x, N, b, x, x, N, b), ("L", x, r))]
    steps.append(X(";".join("S_%s=None" % x for x in impls)))
    return steps


def alloc_steps(c, impls=None, ops=True):
    """Bytes allocated per push+pop pair (kernel minus plain loop), and per single
    ticketq operation (two rounds, the second reported)."""
    impls = impls or c["impls"]
    cap, k = c["mem_cap"], c["k"]
    h = cap // 2
    steps = []
    for x in impls:
        steps += [
            X("S=M.mk_%s(%d,%d);M.t_%s(S,%d,%d)" % (x, cap, h, x, k, h)),  # warm-up
            # the least of three: the first call may grow a list or box a float once
            X("print(min([M.alloc(M.t_none,S,%d,0) for _ in range(3)]))" % k, ("a0", x)),
            X("print(min([M.alloc(M.t_%s,S,%d,%d) for _ in range(3)]))" % (x, k, h + k), ("a", x)),
            X("S=None"),
        ]
    for x in ("tq", "tqb"):
        if ops and x in impls:
            steps += op_steps(c, x)
    return steps


def op_steps(c, x="tq"):
    """Bytes per single push, peek, remove, pop of ticketq (x: tq, or tqb for the bytecode
    path where the default is viper; tagged "op" and "opb")."""
    cap, k = c["mem_cap"], c["k"]
    tag = "op" if x == "tq" else "opb"
    steps = []
    for rnd in (0, 1):
        steps += [
            X("S=M.mk_%s(%d,0)" % (x, cap)),
            X("print(M.alloc(M.k_push,S,%d,0))" % k, (tag, "push", rnd, k)),
            X("print(M.alloc(M.k_peek,S,%d,0))" % k, (tag, "peek", rnd, k)),
            X("print(M.alloc(M.k_remove,S,%d,0))" % (k // 2), (tag, "remove", rnd, k // 2)),
            X("print(M.alloc(M.k_pop,S,%d,0))" % (k // 2), (tag, "pop", rnd, k // 2)),
            X("S=None"),
        ]
    return steps


FLUSH = [X("gc.collect()"), X("gc.collect()")]  # the VM lets go of garbage a call or two late


def storage_steps(c, impls=None):
    """Live bytes of a structure filled to capacity C and 2C (each reading after two calls
    that only collect, for the VM's sake): the slope is the storage per entry."""
    impls = impls or c["impls"]
    cap = c["mem_cap"]
    steps = [X("S=None;A=0;M.start_live()")]
    for x in impls:
        for m in (cap, 2 * cap):
            steps += FLUSH + [X("A=M.live()"), X("S=M.mk_%s(%d,%d)" % (x, m, m))] + FLUSH + [
                X("print(M.live()-A)", ("s", x, m)),
                X("S=None"),
            ]
    steps.append(X("M.stop_live()"))
    return steps


def host_plan(interp, c):
    if interp == "cpython":
        imp = [
            # find_spec first, so that the path finder's caches for lib/ are not counted
            # find_spec, import array and a first compile() beforehand, so that the path
            # finder's caches, the array module and the compiler's one-off set-up (~200 KB
            # on CPython 3.11) are not counted as ticketq's
            X("import gc, tracemalloc, importlib.util, array\nA=0\nimportlib.util.find_spec('ticketq')\n"
              "exec(compile('def f(a):\\n return a+1\\nclass C:\\n pass\\n','w','exec'))\n"
              "tracemalloc.start();gc.collect()\nA=tracemalloc.get_traced_memory()[0]"),
            X("import ticketq"),
            X("gc.collect();print(tracemalloc.get_traced_memory()[0]-A);tracemalloc.stop()",
              ("imp",)),
        ]
        ver = "import sys,platform;print(repr((sys.version.split()[0],platform.python_implementation())))"
    else:
        imp = [X("import gc\nA=0")] + FLUSH + [
            X("gc.collect();A=gc.mem_alloc()"),
            X("import ticketq"),
        ] + FLUSH + [X("gc.collect();print(gc.mem_alloc()-A)", ("imp",))]
        ver = ("import sys;print(repr((sys.version,'.'.join(str(v) for v in "
               "sys.implementation.version[:3]),sys.platform)))")
    steps = imp + [
        X(ver, ("ver",)),
        X("print(repr(ticketq.PATH))", ("path",)),
        X("import tqbench as M\nA=0;S=None\n" + ";".join("S_%s=None" % x for x in c["impls"])),
        X("print(repr((M.BISECT,M.NS)))", ("env",)),
    ]
    steps += alloc_steps(c) + storage_steps(c) + time_steps(c) + long_steps(c)
    return steps


MICROBIT_HAS = ("utime", "gc", "ticketq")  # what tqbench.py imports that the micro:bit has


def microbit_plan(c):
    """Phases, each from a soft reset, each with only the kernels it needs uploaded as
    tqb.py (stripped). ticketq is imported on its own first: on that board it needs most of
    the heap free to compile (docs/microbit.md)."""
    import deploy  # the library as tools/deploy.py puts it on the micro:bit (its DROP too)

    src = open(os.path.join(HERE, "tqbench.py")).read()
    drop = deploy.read_profile("microbit").get("DROP", ())
    lib = [(m + ".py", deploy.strip_source(open(os.path.join(ROOT, "lib", m + ".py")).read(), m, drop))
           for m in ("ticketq_core", "ticketq")]
    mem = "import gc;gc.collect();print((gc.mem_alloc(),gc.mem_free()))"
    steps = [("put", name, text) for name, text in lib]
    steps += [("reset",), X(mem, ("imp0",)), ("reset",), X("import ticketq"), X(mem, ("imp1",)),
              X("import sys,os;print(repr((sys.version,'.'.join(str(v) for v in "
                "sys.implementation.version),os.uname().machine)))", ("ver",))]

    def phase(roots, tq, tag, upload=True, apart=()):
        # Each try/except ImportError chain cut to the board's branch: less to compile.
        # apart: kernels compiled as a module of their own (tqa.py), so that each module
        # needs less free heap to compile; they are put into M after the import.
        code = shake.shake(src, roots, have=MICROBIT_HAS)
        more = shake.shake(src, list(apart), have=MICROBIT_HAS) if apart else ""
        # reset before the upload too: a phase may end with a heap too fragmented to parse
        out = [("reset",), ("put", "tqb.py", code)] if upload else []
        out += [("put", "tqa.py", more)] if upload and apart else []
        out.append(("reset",))
        if apart:  # first, at the bottom of the heap, where it splits no block the rest needs
            out.append(X("import tqa"))
        if tq:
            out.append(X("import ticketq"))
        out.append(X("import tqb as M\nimport gc\nA=0;S=None;S_%s=None" % tag))
        if apart:
            out.append(X("\n".join("M.%s=tqa.%s" % (n, n) for n in apart)))
        out += [X("gc.collect();print(gc.mem_free())", ("free", tag)),
                ("size", tag, len(code) + len(more))]
        return out

    # Largest queue that fits: ticketq capacity against the tuple heap's entries.
    steps += phase(["most_tq", "most_bytes"], True, "captq") + [X("print(M.most_tq(1,4096))", ("cap", "tq"))]
    steps += [X("print(M.most_bytes(1,8192))", ("block", "tq"))]
    steps += phase(["most_ph"], False, "capph") + [X("print(M.most_ph())", ("cap", "ph"))]
    # ... and with the library imported too, to tell its fixed cost from the cost per entry
    steps += phase(["most_ph"], True, "capphl") + [X("print(M.most_ph())", ("cap", "phl"))]
    mem = ["live", "start_live", "stop_live"]
    for x in c["impls"]:
        tq = x == "tq"
        # beside ticketq the heap is too small to compile everything at once: three phases
        roots = ["t_none", "t_" + x, "mk_" + x, "sec"] + ([] if tq else ["alloc"] + mem)
        # one cell per fresh heap: a tuple queue churned near its capacity can leave the heap
        # so fragmented that the board cannot parse the next command (recorded as MemoryError)
        for i, cell in enumerate(cells(c)):
            steps += phase(roots, tq, x, upload=i == 0)
            steps += time_steps(c, [x], interleave=False, only=[cell])
        steps += phase(roots, tq, x, upload=False)
        if tq:
            steps += phase(["mk_tq", "t_none", "t_tq"], True, "atq", apart=["alloc"])
        steps += alloc_steps(c, [x], ops=False)
        if tq:
            steps += phase(["mk_tq", "k_push", "k_peek", "k_remove", "k_pop"], True, "optq", apart=["alloc"])
            steps += op_steps(c)
            steps += phase(["mk_tq"] + mem, True, "stq")
        steps += storage_steps(c, [x])
    return steps


# ---------------------------------------------------------------- drivers

class RunError(RuntimeError):
    pass


def batch(cmd, steps, timeout, **kw):
    """Runs a worker on a JSON list of snippets like subprocess.run(capture_output=True):
    the worker writes "progress N" on stderr before step N; every 15 s this prints a line
    "   N/M steps, S s": N steps done of M, S seconds into the batch (long batches showed
    nothing for minutes). The progress lines are left out of the returned stderr."""
    import threading

    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kw)
    got = {"step": 0, "err": [], "out": ""}

    def read_err():
        for line in proc.stderr:
            if line.startswith("progress "):
                got["step"] = int(line.split()[1])  # steps done so far
            else:
                got["err"].append(line)

    def read_out():
        got["out"] = proc.stdout.read()

    readers = [threading.Thread(target=read_err, daemon=True), threading.Thread(target=read_out, daemon=True)]
    for t in readers:
        t.start()
    try:
        proc.stdin.write(json.dumps([s[1] for s in steps]))
        proc.stdin.close()
    except BrokenPipeError:
        pass
    t0 = time.time()
    last = t0
    while proc.poll() is None:
        time.sleep(0.2)
        now = time.time()
        if now - t0 > timeout:
            proc.kill()
            proc.wait()
            raise subprocess.TimeoutExpired(cmd, timeout)
        if now - last >= 15:
            last = now
            print("   %d/%d steps, %.0f s" % (got["step"], len(steps), now - t0), file=sys.stderr, flush=True)
    for t in readers:
        t.join(10)
    return subprocess.CompletedProcess(cmd, proc.returncode, got["out"], "".join(got["err"]))


def run_unix(steps, timeout):
    """Run the "x" steps on the MicroPython unix port in one batch; [(step, ok, text)]."""
    import mpunix

    exe, how = mpunix.find()
    if exe is None:
        raise RunError("no MicroPython unix port: %s" % how)
    env = dict(os.environ, MICROPYPATH=":".join([".frozen", os.path.join(ROOT, "lib"), HERE]))
    p = batch([exe, os.path.join(HERE, "mp_worker.py")], steps, timeout, cwd=ROOT, env=env)
    if p.returncode:
        raise RunError("%s exited %d: %s" % (exe, p.returncode, (p.stderr or p.stdout).strip()[-800:]))
    out = {}
    for part in p.stdout.split("\x02")[1:]:
        head, _, rest = part.partition("\n")
        text, _, status = rest.rpartition("\x03")
        out[int(head)] = (status.startswith("ok"), text if status.startswith("ok") else text + status[4:])
    if len(out) != len(steps):
        raise RunError("the unix port answered %d of %d steps" % (len(out), len(steps)))
    return [(s, out[i][0], out[i][1]) for i, s in enumerate(steps)]


def frames(text, steps, where):
    """mp_worker's framed output -> [(step, ok, text)]."""
    out = {}
    for part in text.split("\x02")[1:]:
        head, _, rest = part.partition("\n")
        body, _, status = rest.rpartition("\x03")
        try:
            out[int(head)] = (status.startswith("ok"), body if status.startswith("ok") else body + status[4:])
        except ValueError:
            continue
    if len(out) != len(steps):
        raise RunError("%s answered %d of %d steps" % (where, len(out), len(steps)))
    return [(s, out[i][0], out[i][1]) for i, s in enumerate(steps)]


def run_qemu(interp, steps, timeout):
    """Run the "x" steps on MicroPython's QEMU firmware for a target of tools/mcu.py
    (built there, cached; ticketq frozen with viper=True), in one batch: tqbench.py,
    mp_worker.py and the steps (steps.json) over `mpremote mount`."""
    import tempfile
    import mcu

    target = QEMU[interp]
    try:
        elf = mcu.firmware(target, True, log=lambda m: print("   " + m, file=sys.stderr, flush=True))
    except mcu.McuError as e:
        raise RunError(str(e))
    with tempfile.TemporaryDirectory(prefix="tq-bench-") as tmp:
        for fn in ("tqbench.py", "mp_worker.py"):
            shutil.copyfile(os.path.join(HERE, fn), os.path.join(tmp, fn))
        with open(os.path.join(tmp, "steps.json"), "w") as f:
            json.dump([s[1] for s in steps], f)
        try:
            with mcu.Qemu(target, elf) as q:
                code, lines = mcu.mpremote(q.url, "mount", tmp, "exec",
                                           "import json, mp_worker\nmp_worker.run(json.load(open('steps.json')))",
                                           timeout=timeout)
        except mcu.McuError as e:
            raise RunError(str(e))
    if code != 0:
        raise RunError("mpremote exited %s: %s" % (code, " | ".join(lines[-3:])))
    return frames("\n".join(lines), steps, "the %s firmware" % target)


def run_host(interp, steps, timeout):
    """Run the "x" steps on CPython or the VM in one batch; [(step, ok, text)]."""
    if interp == "unix":
        return run_unix(steps, timeout)
    if interp in QEMU:
        return run_qemu(interp, steps, timeout)
    if interp == "cpython":
        cmd = [sys.executable, "-B", os.path.join(HERE, "cpy_worker.py")]
    else:
        vm = os.path.join(ROOT, "tools", "mpvm", "node_modules", "@micropython")
        if not os.path.isdir(vm):
            raise RunError("the MicroPython VM is not installed (npm ci --prefix tools/mpvm, "
                           "or tools/setup)")
        if not shutil.which("node"):
            raise RunError("node not found")
        cmd = ["node", os.path.join(HERE, "vm.mjs")]
    p = batch(cmd, steps, timeout, cwd=ROOT)
    if p.returncode:
        raise RunError("%s exited %d: %s" % (cmd[0], p.returncode, p.stderr.strip()[-800:]))
    res = json.loads(p.stdout)
    return [(s, ok, text) for s, (ok, text) in zip(steps, res)]


def run_microbit(steps, log):
    try:
        from emu import microbit, connect, put_file, EmuError
        from mpremote.transport import TransportError
    except ImportError as e:
        raise RunError("micro:bit emulator tools missing (%s): run tools/setup" % e)
    out = []
    try:
        with microbit() as url:
            t = connect(url)
            try:
                for s in steps:
                    if s[0] == "put":
                        for attempt in range(3):  # the emulated UART can lose a byte
                            try:
                                put_file(t, s[1], s[2])
                                break
                            except EmuError:
                                if attempt == 2:
                                    raise
                    elif s[0] == "reset":
                        t.close()
                        t = connect(url, soft_reset=True)
                    elif s[0] == "size":
                        out.append((("x", "", ("size", s[1])), True, repr(s[2])))
                    else:
                        try:
                            ret, err = t.exec_raw(s[1], timeout=120)
                        except TransportError as e:
                            # no answer: the board may be wedged, so start again clean (the
                            # steps after this one in the phase then fail with NameError)
                            ret, err = b"", (str(e) or repr(e)).encode()
                            t.close()
                            t = connect(url, soft_reset=True)
                        if not err:
                            out.append((s, True, ret.decode()))
                        else:
                            msg = err.decode(errors="replace").strip().splitlines()
                            out.append((s, False, msg[-1] if msg else "error"))
                            log("  micro:bit: %s -> %s" % (s[1][:60], out[-1][2]))
            finally:
                t.close()
    except EmuError as e:
        raise RunError(str(e))
    return out


# ---------------------------------------------------------------- results

def collect(interp, c, results):
    """The raw outputs, parsed: {"t": {(x, cap, fill): [(none, t), ...]}, ...}."""
    R = {"t": {}, "memerr": set(), "long": {}, "a": {}, "a0": {}, "op": {}, "op0": {}, "opb": {}, "opb0": {},
         "s": {}, "errors": [], "tolerated": [], "misc": {}}
    for step, ok, text in results:
        tag = step[2] if step[0] == "x" else None
        if not tag:
            if not ok:
                R["errors"].append("%s: %s" % (step[1][:60], text.strip().splitlines()[-1:]))
                # the cell's cleanup after a baseline ran out of heap there cannot be parsed
                # either (the next phase starts from a soft reset): the same outcome
                m = re.match(r"S_(\w+)=None$", step[1])
                if m and m.group(1) != "tq" and "MemoryError" in text and \
                        any(k[0] == m.group(1) for k in R["memerr"]):
                    R["tolerated"].append(R["errors"][-1])
            continue
        if not ok:
            R["errors"].append("%r: %s" % (tag, text.strip().splitlines()[-1:]))
            if tag[0] == "t" and "MemoryError" in text:
                R["memerr"].add(tag[1:4])
                if tag[1] != "tq":
                    R["tolerated"].append(R["errors"][-1])
            continue
        lines = [l for l in text.strip().splitlines() if l.strip()]
        try:
            v = ast.literal_eval(lines[-1])
        except (ValueError, SyntaxError, IndexError):
            R["errors"].append("%r: unparsable %r" % (tag, text[-200:]))
            continue
        kind = tag[0]
        if kind == "t":
            if tag[4] > 0:  # rep 0 is the warm-up
                R["t"].setdefault(tag[1:4], []).append(v)
        elif kind == "L":
            if tag[2] > 0:
                R["long"].setdefault(tag[1], []).append(v)
        elif kind in ("a", "a0"):
            R[kind][tag[1]] = v
        elif kind in ("op", "opb"):
            R[kind if tag[2] == 1 else kind + "0"][tag[1]] = (v, tag[3])
        elif kind == "s":
            R["s"][(tag[1], tag[2])] = v
        else:
            R["misc"][tag if len(tag) > 1 else tag[0]] = v
    return R


def fatal(R):
    """The errors that fail a stage: all but a MemoryError in a timed section of a
    baseline (a tuple queue that outgrows the micro:bit's heap near its capacity: a
    measured outcome, reported as such)."""
    return [e for e in R["errors"] if e not in R["tolerated"]]


def per_pair(c, R, ns):
    """{(x, cap, fill): ns per pair} from medians, the plain loop subtracted."""
    out = {}
    for key, runs in R["t"].items():
        none = statistics.median(r[0] for r in runs)
        t = statistics.median(r[1] for r in runs)
        out[key] = max(t - none, 0) * ns / c["n"]
    return out


def analyse(interp, c, R):
    ns = R["misc"].get("env", ("python", 1000))[1]  # nanoseconds per tick
    pp = per_pair(c, R, ns)
    base = c["base"]
    ratio = {}
    for (x, cap, fill), v in pp.items():
        b = pp.get((base, cap, fill))
        if b:
            ratio[(x, cap, fill)] = v / b
    A = {"pp": pp, "ratio": ratio, "long": {}, "memerr": R["memerr"]}
    for x, runs in R["long"].items():
        none = statistics.median(v[0] for v in runs)
        A["long"][x] = max(statistics.median(v[1] for v in runs) - none, 0) * ns / c["long_n"]
    # bytes per pair: kernel minus loop
    A["alloc"] = {}
    for x in c["impls"]:
        if x in R["a"] and x in R["a0"]:
            a, a0 = R["a"][x], R["a0"][x]
            A["alloc"][x] = ((a[0] - a0[0]) / c["k"], (a[1] - a0[1]) / c["k"])
    A["ops"] = {op: (v[0] / k, v[1] / k) for op, (v, k) in R["op"].items()}
    A["ops_first"] = {op: (v[0] / k, v[1] / k) for op, (v, k) in R["op0"].items()}
    A["ops_b"] = {op: (v[0] / k, v[1] / k) for op, (v, k) in R["opb"].items()}
    A["storage"] = {}
    m = c["mem_cap"]
    for x in c["impls"]:
        if (x, m) in R["s"] and (x, 2 * m) in R["s"]:
            s1, s2 = R["s"][(x, m)], R["s"][(x, 2 * m)]
            per = (s2 - s1) / m
            A["storage"][x] = (per, s1 - per * m, s1 / m)
    return A


def fmt_ratio(v):
    if v is None:
        return "—"
    return "%.3f" % v if v < 0.1 else "%.2f" % v if v < 10 else "%.1f" % v


def fill_name(cap, fill):
    return "%d · %d" % (cap, fill)


def speedups(c, A, other, x="tq"):
    """ticketq's (x's) speed-up over `other` (other time / x's time) per table cell."""
    out = {}
    for cap in c["caps"]:
        for f in fills(cap):
            if (x, cap, f) in A["memerr"] or (other, cap, f) in A["memerr"]:
                continue
            t = A["pp"].get((x, cap, f))
            o = A["pp"].get((other, cap, f))
            if t and o:
                out[(cap, f)] = o / t
    return out


def span(d):
    if not d:
        return "—"
    lo, hi = min(d.values()), max(d.values())
    return "%.2f–%.2fx" % (lo, hi) if abs(hi - lo) >= 0.005 else "%.2fx" % lo


def time_table(c, A):
    cols = [(cap, f) for cap in c["caps"] for f in fills(cap)]
    head = "| implementation | " + " | ".join(fill_name(cap, f) for cap, f in cols) + " |"
    rule = "| --- | " + " | ".join("---:" for _ in cols) + " |"
    rows = [head, rule]
    for x in c["impls"]:
        cells_ = [fmt_ratio(A["ratio"].get((x, cap, f))) if (x, cap, f) not in A["memerr"]
                  else "MemoryError" for cap, f in cols]
        name = NAMES[x] + (" (baseline)" if x == c["base"] else "")
        rows.append("| %s | %s |" % (name, " | ".join(cells_)))
    return "\n".join(rows)


def b(v):
    if v is None:
        return "—"
    if abs(v - round(v)) < 0.05:
        return "%d" % round(v)
    return "%.1f" % v


def memory_table(interp, c, A):
    cpy = interp == "cpython"
    if cpy:
        head = ("| implementation | peak B above the start over %d pairs (tracemalloc) "
                "| storage B per entry | fixed B |" % c["k"])
    else:
        head = ("| implementation | B allocated per push+pop pair (gc.mem_alloc, gc off) "
                "| storage B per entry | fixed B |")
    rows = [head, "| --- |" + " ---: |" * 3]
    for x in c["impls"]:
        al = A["alloc"].get(x)
        st = A["storage"].get(x)
        cells_ = [b(al[1] * c["k"] if cpy else al[0]) if al else "—"]
        cells_ += [b(st[0]) if st else "—", b(st[1]) if st else "—"]
        rows.append("| %s | %s |" % (NAMES[x], " | ".join(cells_)))
    return "\n".join(rows)


def ops_line(interp, A, key="ops"):
    ops = A.get(key)
    if not ops:
        return "not measured"
    if interp == "cpython":
        return ", ".join("%s %s B" % (op, b(ops[op][1])) for op in ("push", "pop", "peek", "remove")
                         if op in ops) + " (tracemalloc peak per operation, CPython boxes ints)"
    return ", ".join("%s %s B" % (op, b(ops[op][0])) for op in ("push", "pop", "peek", "remove") if op in ops)


# ---------------------------------------------------------------- report

def machine_info():
    cpu = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info = {"cpu": "%s, %d cores" % (cpu, os.cpu_count() or 0), "os": platform.platform(),
            "python": platform.python_version()}
    try:
        info["node"] = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        pass
    try:
        q = subprocess.run(["qemu-system-arm", "--version"], capture_output=True, text=True).stdout
        info["qemu"] = q.splitlines()[0].strip() if q else ""
        fw = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "firmware-microbit-micropython"],
                            capture_output=True, text=True).stdout.strip()
        info["firmware"] = "firmware-microbit-micropython " + fw if fw else ""
    except OSError:
        pass
    try:
        info["vm_pkg"] = json.load(open(os.path.join(ROOT, "tools", "mpvm", "node_modules", "@micropython",
                                                     "micropython-webassembly-pyscript", "package.json")))["version"]
    except (OSError, ValueError, KeyError):
        pass
    return info


def interp_version(interp, R, info):
    v = R["misc"].get("ver")
    if interp == "cpython":
        return "CPython %s" % (v[0] if v else info["python"])
    if interp == "vm":
        return "MicroPython %s (%s, npm @micropython/micropython-webassembly-pyscript %s) under Node %s" % (
            v[1] if v else "?", v[2] if v else "?", info.get("vm_pkg", "?"), info.get("node", "?"))
    if interp == "unix":
        return "MicroPython %s (%s port, 32-bit x86 build of ../shared/micropython, default 1 MB heap); " \
               "ticketq.PATH %r by default" % (v[1] if v else "?", v[2] if v else "?", R["misc"].get("path"))
    if interp in QEMU:
        return "MicroPython %s (%s port, 1c3c201 built by tools/mcu.py, ticketq frozen with viper=True), in %s; " \
               "ticketq.PATH %r by default; QEMU time is not board time" % (
                   v[1] if v else "?", v[2] if v else "?", info.get("qemu", "QEMU"), R["misc"].get("path"))
    return "MicroPython %s on %s (%s), in %s" % (
        v[1] if v else "?", v[2] if v else "?", info.get("firmware", "?"), info.get("qemu", "QEMU"))


def headline(runs):
    """The headline figures, as Markdown bullets."""
    out = []
    for interp in ORDER:
        if interp not in runs or "A" not in runs[interp]:
            continue
        c, A = runs[interp]["c"], runs[interp]["A"]
        for x in [y for y in ("tq", "tqb") if y in c["impls"]]:
            sp = speedups(c, A, c["base"], x)
            mid = c["caps"][len(c["caps"]) // 2] if len(c["caps"]) > 1 else c["caps"][0]
            m = sp.get((mid, mid // 2))
            who = "ticketq" if x == "tq" else "ticketq with the bytecode path forced"
            if x == "tq" and interp == "unix":
                who = "ticketq (its default, %s path)" % runs[interp]["R"]["misc"].get("path")
            line = "**%s**: %s is %s the speed of %s (%s at %d queued of %d)" % (
                TITLES[interp], who, span(sp), NAMES[c["base"]], "%.2fx" % m if m else "—", mid // 2, mid)
            if interp != "microbit":
                fl = speedups(c, A, "hqi", x)
                line += "; %s of the C-speed floor (heapq on ints)" % span(fl)
            else:
                line += "; %s of the sorted list" % span(speedups(c, A, "sl"))
            out.append("- " + line + ".")
    mb = runs.get("microbit", {}).get("R")
    if mb:
        capq = mb["misc"].get(("cap", "tq"))
        capp = mb["misc"].get(("cap", "ph"))
        if capq and capp:
            capl = mb["misc"].get(("cap", "phl"))
            out.append("- **micro:bit RAM**: a TicketQueue of up to %d slots fits beside the library "
                       "(which takes %s B of the ~9.6 KB heap), against %d entries for the pure-Python "
                       "tuple heap alone before MemoryError, or %s entries with the library loaded "
                       "too." % (capq, (mb["misc"]["imp1"][0] - mb["misc"]["imp0"][0])
                                 if mb["misc"].get("imp1") and mb["misc"].get("imp0") else "?", capp, capl))
    for interp in MICROPYTHONS:
        if interp in runs and "A" in runs[interp]:
            A = runs[interp]["A"]
            if A["ops"]:
                out.append("- **%s**: bytes allocated per ticketq operation: %s%s." % (
                    TITLES[interp], ops_line(interp, A),
                    "; bytecode path forced: %s" % ops_line(interp, A, "ops_b") if A.get("ops_b") else ""))
    return out


def _speed_row(label, sp, bar):
    # One speed target row: met when every cell reaches `bar` times the baseline's speed.
    if not sp:
        status = "not run"
    elif min(sp.values()) >= bar:
        status = "met"
    else:
        status = "met in %d of %d cells" % (sum(v >= bar for v in sp.values()), len(sp))
    return "| %s | %s | %s |" % (label, span(sp), status)


def _pair(A, x, cap, fill):
    """(x's speed-up over heapq with tuples, x's time in multiples of the C floor's) in a cell."""
    t, h, f = (A["pp"].get((y, cap, fill)) for y in (x, "hqt", "hqi"))
    return (h / t if t and h else None, t / f if t and f else None)


def _unix_row(runs, x, fast, slow, path):
    # issue 12 on the unix port, 128 queued of 256: >= fast x heapq-tuples, <= slow x C floor
    label = ("native 32-bit MicroPython (unix port), %s: >= %dx heapq with tuples and <= %dx the "
             "C floor, at 128 queued" % (path, fast, slow))
    r = runs.get("unix", {})
    if "A" not in r or x not in r["c"]["impls"]:
        return "| %s | %s | not run |" % (label, r.get("error", "no unix port run") if r else "no unix port run")
    sp, fl = _pair(r["A"], x, 256, 128)
    if sp is None or fl is None:
        return "| %s | — | not measured |" % label
    met = sp >= fast and fl <= slow
    return "| %s | %.1fx heapq with tuples, %.2fx the C floor's time | %s |" % (
        label, sp, fl, "met" if met else "not met (%s)" % " and ".join(
            w for w, bad in (("speed-up", sp < fast), ("C floor", fl > slow)) if bad))


def _ops_row(interp, A, key, label):
    ops = A.get(key)
    if not ops:
        return None
    ok = all(v[0] == 0 for v in ops.values()) and len(ops) == 4
    return "| 0 B allocated per push, pop, peek, remove (%s) | %s | %s |" % (
        label, ops_line(interp, A, key), "met" if ok else "not met")


def targets(runs):
    rows = ["| target | measured | status |", "| --- | --- | --- |"]

    def get(interp):
        r = runs.get(interp, {})
        return (r.get("c"), r.get("A"), r.get("R")) if "A" in r else (None, None, None)

    path = runs.get("unix", {}).get("R", {}).get("misc", {}).get("path") or "viper"
    rows.append(_unix_row(runs, "tq", 20, 3, "default path (%s)" % path))
    rows.append(_unix_row(runs, "tqb", 5, 11, "bytecode path forced"))
    c, A, R = get("vm")
    if A:
        at = [(f, _pair(A, "tq", cap, f)[0]) for cap, f in ((32, 16), (256, 128))]
        ok = all(v is not None and v >= 1.0 for f, v in at)
        rows.append("| WebAssembly VM: >= 1.0x heapq with tuples at 16 and 128 queued | %s (all cells: %s) | %s |" % (
            ", ".join("%d queued %s" % (f, "%.2fx" % v if v else "—") for f, v in at),
            span(speedups(c, A, "hqt")), "met" if ok else "not met"))
    c, A, R = get("microbit")
    if A:
        rows.append(_speed_row("emulated micro:bit: >= 1.5x the pure-Python tuple heap (issue 6)",
                               speedups(c, A, "ph"), 1.5))
        capq, capp = R["misc"].get(("cap", "tq")), R["misc"].get(("cap", "ph"))
        rows.append("| emulated micro:bit: largest queue that fits | ticketq %s slots, tuple heap %s entries | measured |" % (capq, capp))
    for interp in MICROPYTHONS:
        c, A, R = get(interp)
        if A:
            for key, label in (("ops", TITLES[interp] + (", default path" if A.get("ops_b") else "")),
                               ("ops_b", TITLES[interp] + ", bytecode path forced")):
                row = _ops_row(interp, A, key, label)
                if row:
                    rows.append(row)
    for interp in MICROPYTHONS:  # CPython's array('i', range(n)) over-allocates a little
        c, A, R = get(interp)
        if A and "tq" in A["storage"]:
            per = A["storage"]["tq"][0]
            rows.append("| at most 8 B of storage per slot (%s) | %s B | %s |" % (
                TITLES[interp], b(per), "met" if per <= 8.05 else "not met"))
    return rows


ISA_CELL = (256, 128)  # capacity, queued: the cell of the ISA table (issue 18's figures)


def isa_rows(raw):
    """The rows of the ISA table from results.json's "runs" (so the committed figures can
    be checked against the committed results): per QEMU target and hot path, ticketq's
    speed against the firmware's C heapq on (class, seq, id) tuples and on packed ints at
    ISA_CELL, bytes allocated per push+pop pair, and issue 18's target (auto path within
    1.2x of heapq on ints: time ratio <= 1.2)."""
    cap, fill = ISA_CELL
    rows = []
    for interp in QEMU:
        r = raw.get(interp)
        if not r:
            continue
        if "ratio" not in r:
            rows.append("| %s | not run: %s | | | | |" % (TITLES[interp], r.get("error")))
            continue
        ratio, alloc = r["ratio"], r.get("alloc_per_pair", {})
        path = r["misc"].get(repr("path"), "?")
        for x, label in (("tq", "auto (%s)" % path), ("tqb", "bytecode (forced)")):
            t = ratio.get("%s/%d/%d" % (x, cap, fill))  # time relative to heapq on tuples
            hqi = ratio.get("hqi/%d/%d" % (cap, fill))
            if t is None and x == "tqb" and path == "bytecode":
                rows.append("| %s | %s | the default path is bytecode here | | | |" % (TITLES[interp], label))
                continue
            if t is None or not hqi:
                rows.append("| %s | %s | no figure | | | |" % (TITLES[interp], label))
                continue
            vs_i = t / hqi  # time relative to heapq on ints
            a = alloc.get(x)
            rows.append("| %s | %s | %s | %s | %s | %s |" % (
                TITLES[interp], label, _faster(1 / t), _faster(1 / vs_i),
                b(a[0]) if a else "—",
                ("met" if vs_i <= 1.2 else "not met (%.2fx)" % vs_i) if x == "tq" else "—"))
    return rows


def _faster(s):
    """'3.0x faster' / '1.7x slower' for a speed ratio s (> 1: ticketq is faster)."""
    return "%.1fx faster" % s if s >= 1 else "%.1fx slower" % (1 / s)


ISA_BEGIN = "<!-- ISA table: generated by tools/bench/run.py from tools/bench/results.json -->"
ISA_END = "<!-- end of the ISA table -->"


def isa_splice(text, raw):
    """BENCHMARKS.md with its ISA section replaced by the one of `raw` (results.json's
    runs), or put before "## How it is measured" (else at the end) when it has none."""
    sec = "\n".join(isa_section(raw)).rstrip("\n")
    if ISA_BEGIN in text:
        a, z = text.index(ISA_BEGIN), text.index(ISA_END) + len(ISA_END)
        return text[:a] + sec + text[z:]
    at = text.find("\n## How it is measured")
    if at < 0:
        return text.rstrip("\n") + "\n\n" + sec + "\n"
    return text[:at + 1] + sec + "\n\n" + text[at + 1:]


def isa_section(raw):
    rows = isa_rows(raw)
    if not rows:
        return []
    return [ISA_BEGIN, "## Microcontroller ISAs under QEMU (issue 18)", "",
            "MicroPython 1c3c201's QEMU port, built by `tools/mcu.py` with ticketq frozen (`viper=True`), "
            "each target in one run: ticketq's push+pop pair at %d queued of %d against the same "
            "firmware's C `heapq`, on (class, seq, id) tuples and on packed ints, both hot paths "
            "(the bytecode one forced with the viper class's base, `BytecodeQueue`). Ratios only: QEMU "
            "time is not board time (an emulated instruction costs what the host's translation makes "
            "it cost), but both sides ran on the same emulated firmware. Bytes per pair from "
            "`gc.mem_alloc`. Target (issue 18): the auto-selected path within 1.2x of `heapq` on "
            "plain ints, 0 B/op." % (ISA_CELL[1], ISA_CELL[0]), "",
            "| target | path | vs heapq, tuples | vs heapq, plain ints | B per pair | within 1.2x of heapq on ints |",
            "| --- | --- | --- | --- | --- | --- |"] + rows + [ISA_END, ""]


def raw_runs(runs):
    """results.json's "runs" for the runs of this process."""
    out = {}
    for interp, r in runs.items():
        if "A" not in r:
            out[interp] = {"config": r["c"], "error": r.get("error")}
            continue
        A, R = r["A"], r["R"]
        out[interp] = {
            "config": r["c"],
            "ns_per_pair": {"%s/%d/%d" % k: v for k, v in sorted(A["pp"].items())},
            "ratio": {"%s/%d/%d" % k: v for k, v in sorted(A["ratio"].items())},
            "alloc_per_pair": A["alloc"], "ticketq_ops": A["ops"], "ticketq_ops_bytecode": A["ops_b"],
            "storage": A["storage"],
            "misc": {repr(k): v for k, v in R["misc"].items()}, "errors": R["errors"],
            "memory_errors": ["%s/%d/%d" % k for k in sorted(R["memerr"])],
        }
    return out


def report(runs, info, plot_rel, quick, notes):
    L = ["# Benchmarks", ""]
    L += ["Generated by `.venv/bin/python tools/bench/run.py%s` (tools/bench/); do not edit by hand: "
          "notes come from tools/bench/notes.md." % (" --quick" if quick else ""), ""]
    if quick:
        L += ["**Quick smoke run: too few repetitions for the numbers to mean much.**", ""]
    L += ["## Machine and interpreters", ""]
    L.append("- machine: %s; %s" % (info["cpu"], info["os"]))
    for interp in ORDER:
        r = runs.get(interp)
        if not r:
            continue
        if "error" in r:
            L.append("- %s: **not run**: %s" % (TITLES[interp], r["error"]))
        else:
            L.append("- %s: %s" % (TITLES[interp], interp_version(interp, r["R"], info)))
    L += ["", "## Headline", ""] + headline(runs) + [""]
    L += ["## Targets (issues 6 and 12)", ""] + targets(runs) + [""]
    L += isa_section(json.loads(json.dumps(raw_runs(runs))))
    if plot_rel:
        mem_rel = plot_rel.replace("bench.png", "bench-memory.png")
        L += ["## Memory", "", "![storage per entry, and the largest queue on the micro:bit](%s)" % mem_rel, "",
              "Storage per queued entry of each implementation (the slope between two fill levels; "
              "tables below) and, on the emulated micro:bit, the largest TicketQueue that builds and "
              "fills beside the library against the entries a pure-Python heap of tuples takes "
              "before MemoryError, with the library loaded and alone.", ""]
    if plot_rel:
        L += ["## Cost against queued tickets", "",
              "![time per push+pop pair against queued tickets](%s)" % plot_rel, "",
              "Time per push+pop pair at a fill level (the queue holds that many tickets before "
              "the push and after the pop), relative to the baseline's time on an empty queue "
              "in the same run; log scale of queued tickets. The capacity is %s." % ", ".join(
                  "%d on %s" % (runs[i]["c"]["sweep_cap"], TITLES[i]) for i in ORDER
                  if i in runs and "A" in runs[i]), ""]
    for interp in ORDER:
        r = runs.get(interp)
        if not r or "A" not in r:
            continue
        c, A, R = r["c"], r["A"], r["R"]
        L += ["## %s" % TITLES[interp], ""]
        L += ["Time per push+pop pair relative to %s in the same cell (lower is faster; "
              "columns: capacity · queued tickets; median of %d runs of %d pairs, the plain loop's "
              "time subtracted)." % (NAMES[c["base"]], c["reps"], c["n"]), "", time_table(c, A), ""]
        L += ["Memory: allocation per pair at %d queued of %d (%d pairs, the plain loop's "
              "allocation subtracted); storage per entry is the slope between %d and %d entries, "
              "fixed is the rest." % (c["mem_cap"] // 2, c["mem_cap"], c["k"], c["mem_cap"], 2 * c["mem_cap"]),
              "", memory_table(interp, c, A), ""]
        L.append("- ticketq single operations, bytes allocated per call: %s." % ops_line(interp, A))
        if A.get("ops_b"):
            L.append("- the same with the bytecode path forced: %s." % ops_line(interp, A, "ops_b"))
        if A["long"].get("hqt") and A["long"].get("tq"):
            L.append("- One call of %d pairs at 128 queued of 256 (garbage is not freed during a call "
                     "on this port, so the heap grows): ticketq %.2fx the speed of heapq with tuples, "
                     "%.2fx of heapq on ints, %.2fx of the pure-Python heap (the tables above use "
                     "%d pairs a call, whose garbage fits the free heap)." % (
                         c["long_n"], A["long"]["hqt"] / A["long"]["tq"],
                         A["long"].get("hqi", 0) / A["long"]["tq"], A["long"].get("ph", 0) / A["long"]["tq"], c["n"]))
        if A["ops_first"] and A["ops_first"] != A["ops"]:
            L.append("- (first round, cold: %s.)" % ", ".join("%s %s B" % (op, b(v[0])) for op, v in A["ops_first"].items()))
        imp = R["misc"].get("imp")
        if interp == "microbit":
            i0, i1 = R["misc"].get("imp0"), R["misc"].get("imp1")
            if i0 and i1:
                L.append("- RAM taken by `import ticketq`: %d B (heap free after boot %d B, after the import %d B)."
                         % (i1[0] - i0[0], i0[1], i1[1]))
            caps = [R["misc"].get(("cap", "tq")), R["misc"].get(("cap", "ph"))]
            fq, fp = R["misc"].get(("free", "captq")), R["misc"].get(("free", "capph"))
            sq, sp_ = R["misc"].get(("size", "captq")), R["misc"].get(("size", "capph"))
            L.append("- Largest queue: TicketQueue(%s) builds and fills with the library and a %s-byte "
                     "search loop loaded (%s B free before, the largest free block %s B: each of the "
                     "two arrays needs one block); the pure-Python heap took %s tuples before "
                     "MemoryError with only its own %s-byte module loaded (%s B free before), and "
                     "%s with the ticketq library imported as well (%s B free)."
                     % (caps[0], sq, fq, R["misc"].get(("block", "tq")), caps[1], sp_, fp,
                        R["misc"].get(("cap", "phl")), R["misc"].get(("free", "capphl"))))
            L.append("- Insertion search of the sorted list: plain Python (no bisect module).")
        else:
            if imp is not None:
                L.append("- RAM taken by `import ticketq`: %d B (%s)." % (
                    imp, {"cpython": "tracemalloc", "unix": "gc.mem_alloc, before and after"}.get(
                        interp, "gc.mem_alloc, before and after, each in its own runPython call")))
            env = R["misc"].get("env")
            if env:
                L.append("- Insertion search of the sorted list: %s." % (
                    "bisect.insort (C)" if env[0] != "python" else "plain Python (no bisect module)"))
        if R["memerr"]:
            L.append("- MemoryError during the timed sections (the heap left too fragmented to "
                     "parse the next command) for: %s; those cells have no ratio." % ", ".join(
                         "%s at %d queued of %d" % (NAMES[x], f, cap) for x, cap, f in sorted(R["memerr"])))
        # (a step after a failed one in the same cell fails the same way: not listed)
        other = [e for e in R["errors"] if "MemoryError" not in e or not R["memerr"]]
        if other:
            L.append("- errors: %s" % "; ".join(other[:5]))
        L.append("")
    if notes:
        L += [notes.strip(), ""]
    md = "\n".join(L)
    fleet = fleet_module()  # the fleet tier's figures come from its own run
    res = fleet.committed()
    md = fleet.splice(md, res) if res and not quick else md
    keyed = fleet_module("keyed.py")  # and the keyed lanes' from theirs (tools/bench/keyed.py)
    res = keyed.committed()
    return keyed.splice(md, res) if res and not quick else md


def fleet_module(name="fleet.py"):
    """tools/bench/fleet.py (or keyed.py), loaded by its path (this module is also loaded by
    tests, with tools/bench not on sys.path)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("ticketq_bench_" + name[:-3], os.path.join(HERE, name))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


SPEED_DOC = os.path.join(ROOT, "docs", "speed.md")
SPEED_BEGIN = "<!-- speed table: generated by tools/bench/run.py from tools/bench/results.json -->"
SPEED_END = "<!-- end of the generated speed table -->"


def speed_block(raw):
    """docs/speed.md's table, from a full run's results.json: per interpreter and hot path,
    the speed-up over the baseline and the time against the C floor at 128 queued of 256
    (the micro:bit: 16 of 32, against its pure-Python tuple heap), and bytes per operation."""
    rows = ["| interpreter | ticketq's hot path | speed against %s | time against the C floor "
            "(heapq on ints) | bytes per push, pop, peek, remove |" % "the baseline, at 128 queued of 256",
            "| --- | --- | ---: | ---: | --- |"]
    for interp in ORDER:
        r = raw["runs"].get(interp)
        if not r or "ns_per_pair" not in r:
            continue
        ns, c = r["ns_per_pair"], r["config"]
        cell = "/32/16" if interp == "microbit" else "/256/128"
        path = r["misc"].get("'path'") or "bytecode"
        for x, ops in (("tq", r["ticketq_ops"]), ("tqb", r.get("ticketq_ops_bytecode"))):
            t = ns.get(x + cell)
            if not t:
                continue
            base = ns.get(c["base"] + cell)
            floor = ns.get("hqi" + cell)
            sp = "%.2fx %s" % (base / t, "the pure-Python tuple heap (16 of 32)" if interp == "microbit"
                               else "heapq with tuples") if base else "—"
            fl = "%.1fx" % (t / floor) if floor else "— (no heapq)"
            b_op = "/".join(b(ops[o][0 if interp != "cpython" else 1]) for o in ("push", "pop", "peek", "remove")
                            if o in ops) if ops else "—"
            if interp == "cpython":
                b_op += " (tracemalloc peak; CPython boxes ints)"
            name = "%s, bytecode forced" % TITLES[interp] if x == "tqb" else TITLES[interp]
            rows.append("| %s | %s | %s | %s | %s |" % (
                name, path if x == "tq" else "bytecode", sp, fl, b_op))
    return "\n".join([SPEED_BEGIN, ""] + rows + ["", SPEED_END])


def update_speed_doc(raw, path=SPEED_DOC):
    with open(path) as f:
        text = f.read()
    a, z = text.index(SPEED_BEGIN), text.index(SPEED_END) + len(SPEED_END)
    with open(path, "w") as f:
        f.write(text[:a] + speed_block(raw) + text[z:])


def plot(runs, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [i for i in ORDER if i in runs and "A" in runs[i]]
    fig, axes = plt.subplots(1, len(shown), figsize=(5.2 * len(shown), 4.2), squeeze=False)
    styles = {"tq": ("C3", "o", 2.4), "tqb": ("C5", "o", 1.6), "hqt": ("C0", "s", 1.4), "hqi": ("C2", "^", 1.4),
              "pq": ("C7", "x", 1.2), "sl": ("C1", "d", 1.2), "ph": ("C4", "v", 1.4)}
    for ax, interp in zip(axes[0], shown):
        c, A = runs[interp]["c"], runs[interp]["A"]
        cap = c["sweep_cap"]
        b0 = A["pp"].get((c["base"], cap, 0))
        if not b0:
            continue
        for x in c["impls"]:
            pts = sorted((f, A["pp"][(x, cap, f)] / b0) for (y, cp, f) in A["pp"] if y == x and cp == cap)
            if not pts:
                continue
            col, mk, lw = styles[x]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=col, marker=mk, lw=lw, ms=4,
                    label=NAMES[x])
        ax.set_xscale("symlog", base=2, linthresh=1)
        ax.set_xlim(0, cap * 1.1)
        ax.set_ylim(bottom=0)
        ax.set_title("%s (capacity %d)" % (TITLES[interp], cap), fontsize=10)
        ax.set_xlabel("queued tickets")
        ax.set_ylabel("time per push+pop pair\n(x %s at 0 queued)" % NAMES[c["base"]], fontsize=9)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)


def plot_memory(runs, path):
    """The memory picture: storage per entry of each implementation on each interpreter,
    and on the micro:bit the largest queue that fits beside the library."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [i for i in ("cpython", "vm", "microbit") if i in runs and "A" in runs[i] and runs[i]["A"]["storage"]]
    mb = runs.get("microbit", {}).get("R")
    caps = [(label, mb["misc"].get(key)) for label, key in (
        ("ticketq slots,\nlibrary loaded", ("cap", "tq")), ("tuple heap entries,\nlibrary loaded", ("cap", "phl")),
        ("tuple heap entries,\nalone", ("cap", "ph")))] if mb else []
    caps = [(l, v) for l, v in caps if v]
    panels = 1 + bool(caps)
    fig, axes = plt.subplots(1, panels, figsize=(5.6 * panels, 4.2), squeeze=False)
    ax = axes[0][0]
    colors = {"tq": "C3", "hqt": "C0", "hqi": "C2", "pq": "C7", "sl": "C1", "ph": "C4"}
    impls = [x for x in NAMES if any(x in runs[i]["A"]["storage"] for i in shown)]
    width = 0.8 / max(len(impls), 1)
    for k, x in enumerate(impls):
        xs = [j + (k - (len(impls) - 1) / 2) * width for j, i in enumerate(shown) if x in runs[i]["A"]["storage"]]
        ys = [runs[i]["A"]["storage"][x][0] for i in shown if x in runs[i]["A"]["storage"]]
        bars = ax.bar(xs, ys, width, color=colors[x], label=NAMES[x])
        if x == "tq":
            ax.bar_label(bars, fmt="%.0f B", fontsize=7)
    ax.set_xticks(range(len(shown)))
    ax.set_xticklabels([TITLES[i] for i in shown], fontsize=8)
    ax.set_ylabel("storage per entry (bytes)")
    ax.set_title("Bytes per queued ticket (lower is better)", fontsize=10)
    ax.legend(fontsize=7)
    ax.grid(True, axis="y", alpha=0.3)
    if caps:
        ax = axes[0][1]
        bars = ax.bar(range(len(caps)), [v for _, v in caps], color=["C3", "C4", "C4"][:len(caps)])
        ax.bar_label(bars, fontsize=8)
        ax.set_xticks(range(len(caps)))
        ax.set_xticklabels([l for l, _ in caps], fontsize=8)
        ax.set_ylabel("entries before MemoryError")
        ax.set_title("Largest queue on the micro:bit v1 (~9.6 KB heap)", fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)


def ensure_matplotlib(log):
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        pass
    req = os.path.join(HERE, "requirements.txt")
    if sys.prefix == sys.base_prefix:
        log("matplotlib missing: pip install -r %s (no plot this time)" % req)
        return False
    log("installing matplotlib into %s (tools/bench/requirements.txt)" % sys.prefix)
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "-r", req])
    if r.returncode:
        return False
    try:
        import matplotlib  # noqa: F401,F811
        return True
    except ImportError:
        return False


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="seconds-long smoke run (into build/bench/)")
    p.add_argument("--interp", default=",".join(ORDER),
                   help="comma list of %s (default: all)" % ", ".join(ORDER))
    p.add_argument("--out", help="folder for BENCHMARKS.md, the plot and results.json "
                   "(default: the repository (BENCHMARKS.md, docs/bench.png, tools/bench/results.json); "
                   "with --quick: build/bench/)")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--splice", action="store_true",
                   help="run the QEMU targets only (or those of --interp), put their runs into the committed "
                        "tools/bench/results.json and their table into BENCHMARKS.md; the rest stays as it is "
                        "(as the fleet tier's figures are spliced in from their own run)")
    args = p.parse_args(argv)
    if args.splice:
        return splice_main(args)
    interps = [i.strip() for i in args.interp.split(",") if i.strip()]
    for i in interps:
        if i not in TITLES:
            p.error("unknown interpreter %r" % i)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    out = args.out or (os.path.join(ROOT, "build", "bench") if args.quick else None)
    if out:
        md_path = os.path.join(out, "BENCHMARKS.md")
        plot_path = os.path.join(out, "bench.png")
        json_path = os.path.join(out, "results.json")
        plot_rel = "bench.png"
    else:
        md_path = os.path.join(ROOT, "BENCHMARKS.md")
        plot_path = os.path.join(ROOT, "docs", "bench.png")
        json_path = os.path.join(HERE, "results.json")
        plot_rel = "docs/bench.png"

    info = machine_info()
    runs = {}
    failed = False
    for interp in interps:
        c = config(interp, args.quick)
        t0 = time.time()
        log("== %s" % TITLES[interp])
        try:
            if interp == "microbit":
                results = run_microbit(microbit_plan(c), log)
            else:
                results = run_host(interp, host_plan(interp, c), timeout=1800)
        except (RunError, subprocess.TimeoutExpired, OSError) as e:
            log("   not run: %s" % e)
            runs[interp] = {"c": c, "error": str(e)}
            failed = True
            continue
        R = collect(interp, c, results)
        A = analyse(interp, c, R)
        runs[interp] = {"c": c, "R": R, "A": A}
        log("   %.0f s, %d steps, %d errors" % (time.time() - t0, len(results), len(R["errors"])))
        for e in R["errors"][:5]:
            log("   error: %s" % e)
        if fatal(R):  # a stage that did not measure what it set out to fails the run
            log("   FAILED: %d errors besides a baseline running out of heap" % len(fatal(R)))
            failed = True

    made_plot = False
    if not args.no_plot and ensure_matplotlib(log):
        os.makedirs(os.path.dirname(plot_path), exist_ok=True)
        plot(runs, plot_path)
        plot_memory(runs, plot_path.replace("bench.png", "bench-memory.png"))
        made_plot = True
    notes_path = os.path.join(HERE, "notes.md")
    notes = open(notes_path).read() if os.path.exists(notes_path) and not args.quick else ""
    md = report(runs, info, plot_rel if made_plot else None, args.quick, notes)
    os.makedirs(os.path.dirname(md_path), exist_ok=True)
    with open(md_path, "w") as f:
        f.write(md)
    raw = {"machine": info, "quick": args.quick, "runs": raw_runs(runs)}
    with open(json_path, "w") as f:
        json.dump(raw, f, indent=1, sort_keys=True)
        f.write("\n")
    if not out and set(interps) == set(ORDER):  # a full run into the repository
        update_speed_doc(raw)
        log("updated the generated table of %s" % SPEED_DOC)
    log("wrote %s%s, %s" % (md_path, ", %s, %s" % (plot_path, plot_path.replace("bench.png", "bench-memory.png"))
                                     if made_plot else "", json_path))
    print(md)
    return 1 if failed else 0


def splice_main(args):
    """--splice: the QEMU targets' runs into the committed results.json and BENCHMARKS.md."""
    given = [i.strip() for i in args.interp.split(",") if i.strip()]
    interps = [i for i in given if i in QEMU] if given != list(ORDER) else list(QEMU)
    if not interps:
        print("--splice: give QEMU targets (%s)" % ", ".join(QEMU), file=sys.stderr)
        return 2
    runs, failed = {}, False
    for interp in interps:
        c = config(interp, args.quick)
        t0 = time.time()
        print("== %s" % TITLES[interp], file=sys.stderr, flush=True)
        try:
            results = run_host(interp, host_plan(interp, c), timeout=1800)
        except (RunError, subprocess.TimeoutExpired, OSError) as e:
            print("   not run: %s" % e, file=sys.stderr)
            runs[interp] = {"c": c, "error": str(e)}
            failed = True
            continue
        R = collect(interp, c, results)
        runs[interp] = {"c": c, "R": R, "A": analyse(interp, c, R)}
        print("   %.0f s, %d steps, %d errors" % (time.time() - t0, len(results), len(R["errors"])),
              file=sys.stderr, flush=True)
        failed |= bool(fatal(R))
    out = args.out or (os.path.join(ROOT, "build", "bench") if args.quick else None)
    json_path = os.path.join(out, "results.json") if out else os.path.join(HERE, "results.json")
    md_path = os.path.join(out, "BENCHMARKS.md") if out else os.path.join(ROOT, "BENCHMARKS.md")
    committed = os.path.join(HERE, "results.json")
    raw = json.load(open(committed)) if os.path.exists(committed) else {"machine": machine_info(), "runs": {}}
    raw["runs"].update(json.loads(json.dumps(raw_runs(runs))))
    md = open(os.path.join(ROOT, "BENCHMARKS.md")).read()
    md = isa_splice(md, raw["runs"])
    if out:
        os.makedirs(out, exist_ok=True)
    with open(json_path, "w") as f:
        json.dump(raw, f, indent=1, sort_keys=True)
        f.write("\n")
    with open(md_path, "w") as f:
        f.write(md)
    print("\n".join(isa_section(raw["runs"])))
    print("wrote %s, %s" % (md_path, json_path), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

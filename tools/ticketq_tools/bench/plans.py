"""The steps of a benchmark run: for each interpreter, the list of snippets (timed sections,
allocation and memory readings) to send to tools/bench/tqbench.py's kernels; the micro:bit's
phases (each from a soft reset, only what a phase needs uploaded, tools/bench/shake.py).
"""
import os
import platform
import sys

from ticketq_tools.bench.common import HERE, QEMU, ROOT, fills, shake


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
    if interp == "unix-c":
        # the C core (default path there), the viper and bytecode classes, heapq: one process
        c.update(impls=["tq", "tqv", "tqb", "hqt", "hqi"], n=20000, reps=7, warm=20000)
    if interp == "unix":
        # 20000 pairs a section, as issue 12 measured: the tuple baselines' garbage (640 KB)
        # fills the port's 1 MB heap, so their sections include the collections they cause
        c.update(impls=["tq", "tqb", "hqt", "hqi", "sl", "ph"], n=20000, reps=7, warm=20000)
    if interp in ("pico", "pico-c"):
        # as the QEMU targets, on the firmware a Pico runs; tpo: push and pop timed apart at
        # 128 queued of 256 (pairs of n each), lk: bytes per pair under heap_lock
        # (1024 pairs a section: rp2040js counts cycles, so sections vary little, and the
        # emulator runs ~3-15 host s per simulated s on a shared 2-core machine)
        c.update(impls=["tq", "tqb", "hqt", "hqi"], caps=(256,), sweep_cap=256, sweep=(0, 128, 255),
                 n=1024, reps=5, warm=1024, long_n=0, tpo=(256, 128), lk=64)
        if interp == "pico-c":  # the C core (the default path there), the viper and bytecode classes
            c.update(impls=["tq", "tqv", "tqb", "hqt", "hqi"])
        if quick:  # a smoke run: the largest-queue searches stop at 1024 slots
            c.update(sweep=(128,), n=128, reps=2, warm=128, ram_hi=1 << 10)
        return c
    if interp in QEMU:
        # both paths against the firmware's own C heapq, on tuples and on packed ints; one
        # capacity (QEMU runs a few times slower than the unix port here)
        c.update(impls=["tq", "tqb", "hqt", "hqi"], caps=(256,), sweep_cap=256, sweep=(0, 128, 255),
                 n=2000, reps=5, warm=2000)
        if interp in ("qemu-armv7m-c", "qemu-rv32-c"):
            # the C core (the default path there), the viper and bytecode classes, heapq
            c.update(impls=["tq", "tqv", "tqb", "hqt", "hqi"])
        if interp == "qemu-armv6m":
            # frozen armv6m viper code fails ticketq.viper's self-check on 1c3c201
            # (docs/armv6m-frozen-viper.md): the default path there is bytecode, and no
            # viper class is loaded to force
            c.update(impls=["tq", "hqt", "hqi"])
        if interp == "qemu-armv6m-c":  # the C path against the bytecode class (no viper class)
            c.update(impls=["tq", "tqb", "hqt", "hqi"])
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


# the largest capacity m, lo <= m < hi, for which mk(m) builds (a binary search on the board)
_MOST = """def most(mk, lo, hi):
    while hi - lo > 1:
        m = (lo + hi) >> 1
        o = None
        gc.collect()
        try:
            o = mk(m)
            lo = m
        except MemoryError:
            hi = m
        o = None
    gc.collect()
    return lo
"""

# The emulated Pico's RAM phase, from a fresh heap (its own mpremote command, nothing
# mounted): gc.mem_free() before and after `import ticketq` and after the frozen worker, then
# the largest TicketQueue and the largest worker.Worker that build beside the worker (binary
# search on the capacity, as most_tq on the micro:bit), the queue's then filled and drained.
PICO_RAM = """import gc, sys
""" + _MOST + """def main():
    gc.collect()
    f0 = gc.mem_free()
    import ticketq
    gc.collect()
    f1 = gc.mem_free()
    try:
        import worker
    except ImportError:  # a firmware without the worker frozen
        worker = None
    gc.collect()
    f2 = gc.mem_free()
    blk = most(bytearray, 1, 1 << 20)
    cq = most(ticketq.TicketQueue, 1, 1 << 24)
    q = ticketq.TicketQueue(cq)
    for j in range(cq):
        q.push(j, j & 3)
    full = len(q)
    while q:
        q.pop()
    q = None
    return (f0, f1, f2, cq, full, ticketq.PATH, ticketq.WHY, sys.implementation._machine, blk)
print(repr(main()))
"""
# ... and the largest worker.Worker (the queue and its job table), from a fresh heap of its
# own: after the search above had filled the heap, a Worker of every size down to 2 failed
# with a MemoryError without message (measured once).
PICO_WORKER = """import gc
try:
    import worker
except ImportError:  # a firmware without the worker frozen
    worker = None
""" + _MOST + """print(most(worker.Worker, 1, 1 << 24) if worker else None)
"""


def pico_plan(c):
    """The emulated Pico's phases (ticketq_tools.bench.pico.run_pico): the RAM phase, then
    the QEMU targets' steps (host_plan) with push and pop timed apart and bytes per pair
    under heap_lock, over `mpremote mount`."""
    steps = host_plan("pico", c)
    cap, fill = c["tpo"]
    n, k = c["n"], c["lk"]
    for x in c["impls"]:
        steps.append(X("S_%s=M.mk_%s(%d,%d)" % (x, x, cap, fill)))
    for r in range(c["reps"] + 1):
        order = c["impls"][r % len(c["impls"]):] + c["impls"][:r % len(c["impls"])]
        for x in order:
            steps.append(X("print(M.sec2(M.tpo_%s,S_%s,%d,%d))" % (x, x, n, fill + r * n), ("tpo", x, cap, fill, r)))
    for x in c["impls"]:  # bytes per pair under heap_lock (a warm-up pass first)
        steps += [X("M.p_%s(S_%s,%d,%d)" % (x, x, k, 1 << 20)),
                  X("print(M.locked(M.p_%s,S_%s,%d,%d))" % (x, x, k, (1 << 20) + k), ("lk", x, k)),
                  X("print(M.locked(M.p_none,S_%s,%d,0))" % (x, k), ("lk0", x, k))]
    steps.append(X(";".join("S_%s=None" % x for x in c["impls"])))
    hi = "1 << %d" % (c.get("ram_hi", 1 << 24).bit_length() - 1)
    return [("exec", PICO_RAM.replace("1 << 24", hi), ("ram",)),
            ("exec", PICO_WORKER.replace("1 << 24", hi), ("worker",)), ("steps", steps)]


MICROBIT_HAS = ("utime", "gc", "ticketq")  # what tqbench.py imports that the micro:bit has


def microbit_plan(c):
    """Phases, each from a soft reset, each with only the kernels it needs uploaded as
    tqb.py (stripped). ticketq is imported on its own first: on that board it needs most of
    the heap free to compile (docs/microbit.md)."""
    # The library is frozen into ticketq's micro:bit firmware (ticketq firmware microbit), the
    # only one this runs on (the stock hex, whose flat file system cannot hold the package
    # ticketq/, is retired): nothing of it is uploaded.
    src = open(os.path.join(HERE, "tqbench.py")).read()
    mem = "import gc;gc.collect();print((gc.mem_alloc(),gc.mem_free()))"
    steps = [("reset",), X(mem, ("imp0",)), ("reset",), X("import ticketq"), X(mem, ("imp1",)),
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

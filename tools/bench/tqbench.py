# tqbench: the benchmark kernels of issue 6, one module for every interpreter: CPython,
# the MicroPython WebAssembly VM (tools/mpvm) and the BBC micro:bit (MicroPython 1.9.2).
# Plain Python 3.4 syntax (no f-strings), so it runs unchanged on all of them; what an
# interpreter lacks (heapq, bisect, queue, tracemalloc) is found by import and left out.
#
# tools/bench/run.py drives it: it sends small snippets (`S = mk_tq(256, 128)`, then
# `print(t_tq(S, n, b))` several times) and reads back what they print, so each timed
# section can be its own runPython call on the VM (that port frees garbage only between
# calls) and so the micro:bit (about 10 KB of heap) gets only the functions a phase needs:
# run.py uploads a copy with unused top-level definitions dropped (tools/bench/shake.py),
# comments and docstrings stripped.
#
# The implementations, each as mk_X(capacity, fill) -> structure holding `fill` tickets and
# t_X(structure, n, b) -> ticks taken by n push+pop pairs (the fill level stays constant):
#   tq   ticketq.TicketQueue (push(id, class), pop() -> id): the default hot path (viper
#        where the port compiles it, ticketq.PATH)
#   tqb  ticketq's bytecode class where the default is the viper one (the unix port)
#   hqt  heapq on (3 - class, sequence, id) tuples: the recipe of CPython's heapq docs
#   hqi  heapq on packed ints ((3 - class) << 26) + sequence: no ids, no tuples (C floor)
#   pq   queue.PriorityQueue of the same tuples (CPython only)
#   sl   a sorted list of (class, -sequence, id) tuples, bisect.insort (or a plain-Python
#        binary search where bisect is missing); pop() from the end is the next ticket
#   ph   a pure-Python binary heap of the same tuples as hqt: the textbook baseline where
#        there is no heapq (the micro:bit)
# Every baseline gets its sequence numbers from b + i (b: the count of earlier pushes), as
# the heapq recipe's counter does; ticketq numbers tickets itself. Classes come from CLS,
# 64 pseudo-random classes 0..3 (xorshift, as tests/support.Rng), the same for every run.
import gc

# The clock: now() and since(t) in units of NS nanoseconds.
try:
    from js import performance as _pf  # the WebAssembly VM: its ticks_us counts whole ms

    now = _pf.now
    NS = 1000000

    def since(t):
        return now() - t
except ImportError:
    try:
        from utime import ticks_us as now, ticks_diff as _td  # MicroPython

        NS = 1000

        def since(t):
            return _td(now(), t)
    except ImportError:
        from time import perf_counter_ns as now  # CPython

        NS = 1

        def since(t):
            return now() - t

try:
    from ticketq import TicketQueue
except ImportError:
    TicketQueue = None
try:
    from heapq import heappush, heappop
except ImportError:
    heappush = None
try:
    from bisect import insort
    BISECT = "bisect.insort"
except ImportError:
    BISECT = "python"
    insort = None
try:
    from queue import PriorityQueue
except ImportError:
    PriorityQueue = None
try:
    import tracemalloc as _tm
except ImportError:
    _tm = None


def _classes():
    x = 0x1234567
    b = bytearray(64)
    for i in range(64):
        x ^= (x & 0x1FFFF) << 13
        x ^= x >> 17
        x ^= (x & 0x1FFFFFF) << 5
        b[i] = x & 3
    return bytes(b)


CLS = _classes()


# ---- the loop alone (subtracted from every kernel's time)

def t_none(s, n, b):
    c = CLS
    t = now()
    for i in range(n):
        c[i & 63]
    return since(t)


# One timed section: (plain loop, kernel f), each after a collection.
def sec(f, s, n, b):
    gc.collect()
    a = t_none(s, n, b)
    gc.collect()
    return (a, f(s, n, b))


# ---- ticketq

def mk_tq(cap, fill):
    q = TicketQueue(cap)
    for j in range(fill):
        q.push(j, CLS[(j * 5) & 63])
    return q


def t_tq(q, n, b):
    c = CLS
    t = now()
    for i in range(n):
        q.push(i, c[i & 63])
        q.pop()
    return since(t)


def mk_tqb(cap, fill):
    # the bytecode class that ticketq.viper subclasses (ticketq's docstring, "Hot paths"),
    # from ticketq.core itself: importing ticketq.viper fails its self-check on frozen armv6m
    from ticketq.core import TicketQueue as BytecodeQueue
    q = BytecodeQueue(cap)
    for j in range(fill):
        q.push(j, CLS[(j * 5) & 63])
    return q


t_tqb = t_tq


def mk_tqv(cap, fill):
    # the viper class, where the default is the C core (the unix-c run: docs/c-core.md)
    from ticketq.viper import TicketQueue as V
    q = V(cap)
    for j in range(fill):
        q.push(j, CLS[(j * 5) & 63])
    return q


t_tqv = t_tq


# Single operations, for bytes allocated per operation (k of them, ids b .. b + k - 1).
def k_push(q, k, b):
    c = CLS
    for i in range(b, b + k):
        q.push(i, c[i & 63])


def k_peek(q, k, b):
    for i in range(k):
        q.peek()


def k_remove(q, k, b):
    for i in range(b, b + k):
        q.remove(i)


def k_pop(q, k, b):
    for i in range(k):
        q.pop()


# Largest capacity below hi whose queue can be built and filled (binary search).
def most_tq(lo, hi):
    while hi - lo > 1:
        m = (lo + hi) >> 1
        q = None
        gc.collect()
        try:
            q = TicketQueue(m)
            for j in range(m):
                q.push(j, CLS[j & 63])
            while q:
                q.pop()
            lo = m
        except MemoryError:
            hi = m
    q = None
    gc.collect()
    return lo


# Largest bytearray below hi that can be allocated now: the biggest free block.
def most_bytes(lo, hi):
    while hi - lo > 1:
        m = (lo + hi) >> 1
        a = None
        gc.collect()
        try:
            a = bytearray(m)
            lo = m
        except MemoryError:
            hi = m
    a = None
    gc.collect()
    return lo


# ---- push and pop timed apart (the emulated Pico): n pushes and n pops in rounds of 64
# (64 pushes timed, then 64 pops timed), so the fill level moves between f and f + 64;
# returns (ticks of the pushes, ticks of the pops). tpo_none is the same loops, empty.

def tpo_none(s, n, b):
    c = CLS
    tp = 0
    to = 0
    i = 0
    while i < n:
        t = now()
        for j in range(i, i + 64):
            c[j & 63]
        tp += since(t)
        t = now()
        for j in range(64):
            pass
        to += since(t)
        i += 64
    return (tp, to)


def tpo_tq(q, n, b):
    c = CLS
    tp = 0
    to = 0
    i = 0
    while i < n:
        t = now()
        for j in range(i, i + 64):
            q.push(j, c[j & 63])
        tp += since(t)
        t = now()
        for j in range(64):
            q.pop()
        to += since(t)
        i += 64
    return (tp, to)


tpo_tqb = tpo_tq
tpo_tqv = tpo_tq


def tpo_hqt(h, n, b):
    c = CLS
    tp = 0
    to = 0
    i = 0
    while i < n:
        t = now()
        for j in range(i, i + 64):
            heappush(h, (3 - c[j & 63], b + j, j))
        tp += since(t)
        t = now()
        for j in range(64):
            heappop(h)[2]
        to += since(t)
        i += 64
    return (tp, to)


def tpo_hqi(h, n, b):
    c = CLS
    tp = 0
    to = 0
    i = 0
    while i < n:
        t = now()
        for j in range(i, i + 64):
            heappush(h, ((3 - c[j & 63]) << 26) + b + j)
        tp += since(t)
        t = now()
        for j in range(64):
            heappop(h)
        to += since(t)
        i += 64
    return (tp, to)


# One section of tpo_X after tpo_none, each after a collection: ((none push, none pop),
# (push, pop)).
def sec2(f, s, n, b):
    gc.collect()
    a = tpo_none(s, n, b)
    gc.collect()
    return (a, f(s, n, b))


# Bytes that f(s, k, b) takes from the heap, under micropython.heap_lock() where it runs
# there: (True, gc.mem_free() before - after) when it ran locked (an allocation would have
# raised MemoryError), else (False, the same with the collector off instead).
def locked(f, s, k, b):
    import micropython
    gc.collect()
    a = gc.mem_free()
    micropython.heap_lock()
    try:
        f(s, k, b)
        ok = True
    except MemoryError:
        ok = False
    micropython.heap_unlock()
    if ok:
        return (True, a - gc.mem_free())
    gc.collect()
    gc.disable()
    a = gc.mem_free()
    f(s, k, b)
    a = a - gc.mem_free()
    gc.enable()
    return (False, a)


# k push+pop pairs, each kernel's loop without a clock (for locked())
def p_tq(q, k, b):
    c = CLS
    for i in range(b, b + k):
        q.push(i, c[i & 63])
        q.pop()


p_tqb = p_tq
p_tqv = p_tq


def p_hqt(h, k, b):
    c = CLS
    for i in range(b, b + k):
        heappush(h, (3 - c[i & 63], i, i))
        heappop(h)[2]


def p_hqi(h, k, b):
    c = CLS
    for i in range(b, b + k):
        heappush(h, ((3 - c[i & 63]) << 26) + i)
        heappop(h)


def p_none(s, k, b):
    c = CLS
    for i in range(b, b + k):
        c[i & 63]


# ---- heapq on tuples, heapq on packed ints

def mk_hqt(cap, fill):
    h = []
    for j in range(fill):
        heappush(h, (3 - CLS[(j * 5) & 63], j, j))
    return h


def t_hqt(h, n, b):
    c = CLS
    t = now()
    for i in range(n):
        heappush(h, (3 - c[i & 63], b + i, i))
        heappop(h)[2]
    return since(t)


def mk_hqi(cap, fill):
    h = []
    for j in range(fill):
        heappush(h, ((3 - CLS[(j * 5) & 63]) << 26) + j)
    return h


def t_hqi(h, n, b):
    c = CLS
    t = now()
    for i in range(n):
        heappush(h, ((3 - c[i & 63]) << 26) + b + i)
        heappop(h)
    return since(t)


# ---- queue.PriorityQueue (CPython)

def mk_pq(cap, fill):
    q = PriorityQueue()
    for j in range(fill):
        q.put_nowait((3 - CLS[(j * 5) & 63], j, j))
    return q


def t_pq(q, n, b):
    c = CLS
    t = now()
    for i in range(n):
        q.put_nowait((3 - c[i & 63], b + i, i))
        q.get_nowait()[2]
    return since(t)


# ---- sorted list: ascending (class, -sequence, id), so the next ticket is the last one

def pinsort(a, x):
    # bisect.insort (insert after equals) in plain Python, where bisect is missing
    lo = 0
    hi = len(a)
    while lo < hi:
        m = (lo + hi) >> 1
        if x < a[m]:
            hi = m
        else:
            lo = m + 1
    a.insert(lo, x)


if insort is None:
    insort = pinsort


def mk_sl(cap, fill):
    a = []
    for j in range(fill):
        insort(a, (CLS[(j * 5) & 63], -j, j))
    return a


def t_sl(a, n, b):
    c = CLS
    t = now()
    for i in range(n):
        insort(a, (c[i & 63], -(b + i), i))
        a.pop()[2]
    return since(t)


# ---- a pure-Python binary heap of tuples (the textbook, where there is no heapq)

def ppush(h, x):
    h.append(x)
    i = len(h) - 1
    while i:
        p = (i - 1) >> 1
        y = h[p]
        if y < x:
            break
        h[i] = y
        i = p
    h[i] = x


def ppop(h):
    x = h.pop()
    n = len(h)
    if not n:
        return x
    top = h[0]
    i = 0
    c = 1
    while c < n:
        if c + 1 < n and h[c + 1] < h[c]:
            c += 1
        y = h[c]
        if x < y:
            break
        h[i] = y
        i = c
        c = 2 * c + 1
    h[i] = x
    return top


def mk_ph(cap, fill):
    h = []
    for j in range(fill):
        ppush(h, (3 - CLS[(j * 5) & 63], j, j))
    return h


def t_ph(h, n, b):
    c = CLS
    t = now()
    for i in range(n):
        ppush(h, (3 - c[i & 63], b + i, i))
        ppop(h)[2]
    return since(t)


# Entries the pure-Python heap holds before MemoryError (on a board: run it alone).
def most_ph():
    h = []
    k = 0
    try:
        while 1:
            ppush(h, (3 - CLS[k & 63], k, k))
            k += 1
    except MemoryError:
        pass
    h = None
    gc.collect()
    return k


# ---- memory

# Bytes that f(s, k, b) allocates, as (allocated, peak): on MicroPython gc.mem_alloc()
# before and after with the collector off (every byte allocated counts, garbage too), so
# both are the same number; on CPython tracemalloc's (net growth, peak above the start).
def alloc(f, s, k, b):
    gc.collect()
    if _tm:
        _tm.start()
        a = _tm.get_traced_memory()[0]
        f(s, k, b)
        c, p = _tm.get_traced_memory()
        _tm.stop()
        return (c - a, p - a)
    gc.disable()
    a = gc.mem_alloc()
    f(s, k, b)
    a = gc.mem_alloc() - a
    gc.enable()
    return (a, a)


# Live bytes now (after a collection): gc.mem_alloc() on MicroPython, tracemalloc's current
# traced memory on CPython (between start_live() and stop_live()). On the VM the collection
# only takes effect between runPython calls: run.py calls this in a call of its own.
def live():
    gc.collect()
    if _tm:
        return _tm.get_traced_memory()[0]
    return gc.mem_alloc()


def start_live():
    if _tm:
        _tm.start()


def stop_live():
    if _tm:
        _tm.stop()

# No allocation in Deadline.remaining/expired/rearm (and in pop_until's return and timeout
# paths), proved inside micropython.heap_lock(), where any allocation raises MemoryError.
# Nothing may raise out of the locked region (this VM hangs then), so results go into a
# preallocated array and are checked after unlocking. CPython: skipped, visibly.
from array import array
from ticketq import TicketQueue, LOW
from ticketq_ticks import Deadline, FakeClock
from ticketq_wait import pop_until, Timeout
from support import skip

try:
    import micropython
    heap_lock = micropython.heap_lock
except (ImportError, AttributeError):
    heap_lock = None

HALF = 0x20000000


def spin(c, d, r, out):
    n = 0
    for i in range(400):
        t = (i * 7919) % 700 - 100  # -100 .. 599, zero and negatives included
        d.rearm(t)
        if t > 0:
            if d.remaining() != t or d.expired():
                n += 1
            c.advance(t)
        if not d.expired() or d.remaining() != 0:
            n += 1
        c.advance(HALF - 1)  # expiry stays latched
        if not d.expired():
            n += 1
        r.rearm(5000)
        if r.expired() or r.remaining() > 5000:
            n += 1
    d.rearm(None)
    d.rearm(HALF - 1)
    if d.remaining() != HALF - 1:
        n += 1
    d.rearm(None)
    if d.remaining() is not None or d.expired():
        n += 1
    out[0] = n


def waits(c, d, q, out):
    q.push(11, LOW)
    d.rearm(0)
    out[1] = pop_until(q, d)
    d.rearm(30)
    try:
        pop_until(q, d, None, 7)
    except Timeout:
        out[2] = c.sleeps


def run_locked(fn, a, b, c, d):
    # Fixed positional arguments: a *args call would allocate under the lock.
    if heap_lock is None:
        skip("needs micropython.heap_lock (MicroPython only)")
    err = [None]
    micropython.heap_lock()
    try:
        try:
            fn(a, b, c, d)
        except Exception as e:
            err[0] = e
    finally:
        micropython.heap_unlock()
    if err[0] is not None:
        raise err[0]


def test_remaining_expired_rearm_allocate_nothing():
    c = FakeClock(-100)
    out = array("i", [-1, -1, -1])
    run_locked(spin, c, Deadline(None, c), Deadline(None), out)
    assert out[0] == 0, out[0]


def test_pop_until_allocates_nothing():
    c = FakeClock(-100)
    q = TicketQueue(2)
    out = array("i", [-1, -1, -1])
    run_locked(waits, c, Deadline(None, c), q, out)
    assert out[1] == 11 and out[2] == 5, list(out)
    assert c.now == 0x3FFFFFFF - 69


def test_allocation_really_fails_under_lock():
    got = [None]

    def alloc(a, b, c, d):
        try:
            got[0] = [0, 1]
        except MemoryError:
            got[0] = 0

    run_locked(alloc, 0, 0, 0, 0)
    assert got[0] == 0

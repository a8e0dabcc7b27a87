# No allocation in Deadline.remaining/expired/rearm, proved inside micropython.heap_lock(),
# where any allocation raises MemoryError. Nothing may raise out of the locked region (the
# WebAssembly VM hangs then), so results go into a preallocated array and are checked after
# unlocking. The checks run in the test function itself, not in a helper: on the micro:bit
# (1.8 KB C stack) one more nested Python call overflows. pop_until: test_wait_heaplock.py.
# CPython: skipped, visibly.
from array import array
from ticketq.ticks import Deadline, FakeClock
from support import skip

try:
    import micropython
    heap_lock = micropython.heap_lock
except (ImportError, AttributeError):
    heap_lock = None

HALF = 0x20000000


def test_remaining_expired_rearm_allocate_nothing():
    if heap_lock is None:
        skip("needs micropython.heap_lock (MicroPython only)")
    c = FakeClock(-100)
    d = Deadline(None, c)
    r = Deadline(None)
    # wrong answers, one slot per check (the fake clock's remaining, expired, latched, the
    # real clock's remaining, the largest rearm, disarm), then 1 if anything raised, then
    # the real clock's largest remaining seen
    out = array("i", [0, 0, 0, 0, 0, 0, 0, 0])
    micropython.heap_lock()
    try:
        try:
            for i in range(400):
                t = (i * 7919) % 700 - 100  # -100 .. 599, zero and negatives included
                d.rearm(t)
                if t > 0:
                    if d.remaining() != t or d.expired():
                        out[0] += 1
                    c.advance(t)
                if not d.expired() or d.remaining() != 0:
                    out[1] += 1
                c.advance(HALF - 1)  # expiry stays latched
                if not d.expired():
                    out[2] += 1
                # The real clock: only what cannot depend on how long the emulator or the
                # machine stalls (expired() may be true after a 5 s stall; more left than
                # was armed never is).
                r.rearm(5000)
                left = r.remaining()
                if left > 5000:
                    out[3] += 1
                    if left > out[7]:
                        out[7] = left
            d.rearm(HALF - 1)
            if d.remaining() != HALF - 1:
                out[4] += 1
            d.rearm(None)
            if d.remaining() is not None or d.expired():
                out[5] += 1
        except Exception:
            out[6] = 1
    finally:
        micropython.heap_unlock()
    assert list(out) == [0, 0, 0, 0, 0, 0, 0, 0], list(out)


def test_allocation_really_fails_under_lock():
    if heap_lock is None:
        skip("needs micropython.heap_lock (MicroPython only)")
    got = [None]
    micropython.heap_lock()
    try:
        try:
            got[0] = [0, 1]
        except MemoryError:
            got[0] = 0
    finally:
        micropython.heap_unlock()
    assert got[0] == 0

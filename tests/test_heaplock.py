# No allocation on the hot paths, proved on MicroPython: thousands of mixed operations
# run inside micropython.heap_lock(), where any allocation raises MemoryError. Covers
# full and empty queues, remove, peek, len, aging, the digest and internal renumbering
# (counter narrowed) together with the outside sequence wrapping past 2**30. Small on
# purpose: it also runs on the micro:bit's 1.9.2 firmware. CPython has no heap_lock: the
# test is skipped there, visibly. test_heaplock_guard.py proves the lock really bites.
from ticketq import TicketQueue, QueueFull, QueueEmpty
from rng import Rng
from support import skip

try:
    from micropython import heap_lock, heap_unlock
except ImportError:
    heap_lock = None


def churn(q, r, steps, c):
    # Only small ints, preallocated objects, positional calls, exceptions caught by class.
    for _ in range(steps):
        op = r.next(16)
        try:
            if op < 7:
                q.push(r.next(40), r.next(4))
                c[0] += 1
            elif op < 12:
                q.pop()
                c[1] += 1
            elif op < 14:
                c[2] += q.remove(r.next(40))
            else:
                c[3] += q.peek() >= 0 and len(q) > 0 and q.last_seq >= 0 and q.digest >= 0
        except QueueFull:
            c[4] += 1
        except QueueEmpty:
            c[5] += 1


def test_mixed_operations_allocate_nothing():
    if heap_lock is None:
        skip("needs micropython.heap_lock (MicroPython only)")
    q = TicketQueue(12, first_seq=0x3FFFFF00, aging=3)
    q._lim = 64  # renumber every few dozen pushes; outside numbers wrap past 2**30 too
    r = Rng(2024)
    c = [0] * 6  # pushes, pops, removes, peeks, full, empty
    for _ in range(10):
        heap_lock()
        try:
            churn(q, r, 500, c)
        finally:
            heap_unlock()  # before anything can escape: an exception under the lock hangs some ports
    assert c[0] > 1000 and c[1] > 1000 and c[2] > 10 and c[3] > 100, c
    assert c[4] > 10 and c[5] > 10, c
    assert q.push(1, 0) < 0x3FFFFF00  # the outside sequence did wrap

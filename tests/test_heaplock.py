# No allocation on the hot paths, proved on MicroPython: thousands of mixed operations
# run inside micropython.heap_lock(), where any allocation raises MemoryError. Covers
# full and empty queues, remove, peek, len, aging, the digest and internal renumbering
# (counter narrowed) together with the outside sequence wrapping past 2**30.
# CPython has no heap_lock: the test is skipped there, visibly.
from ticketq import TicketQueue, QueueFull, QueueEmpty
from qcheck import check_heap
from rng import Rng
from support import skip

try:
    import micropython
    heap_lock = micropython.heap_lock
except (ImportError, AttributeError):
    heap_lock = None


def churn(q, r, steps, counts):
    # Everything here must allocate nothing: small ints, preallocated objects, method calls
    # with positional arguments, exceptions caught by class.
    for _ in range(steps):
        op = r.next(16)
        if op < 7:
            try:
                q.push(r.next(40), r.next(4))
                counts[0] += 1
            except QueueFull:
                counts[1] += 1
        elif op < 12:
            try:
                q.pop()
                counts[2] += 1
            except QueueEmpty:
                counts[3] += 1
        elif op < 14:
            if q.remove(r.next(40)):
                counts[4] += 1
        elif op == 14:
            try:
                q.peek()
            except QueueEmpty:
                counts[3] += 1
        elif len(q) > 1 and q.last_seq >= 0 and q.digest >= 0:
            counts[5] += 1


def run_locked(q, r, steps, counts):
    if heap_lock is None:
        skip("needs micropython.heap_lock (MicroPython only)")
    micropython.heap_lock()
    try:
        churn(q, r, steps, counts)
    finally:
        micropython.heap_unlock()


def test_mixed_operations_allocate_nothing():
    q = TicketQueue(12, first_seq=0x3FFFFF00, aging=3)
    q._lim = 64  # renumber every few dozen pushes; outside numbers wrap past 2**30 too
    r = Rng(2024)
    counts = [0] * 6  # pushes, full, pops, empty, removes, other
    for _ in range(10):
        run_locked(q, r, 500, counts)
        check_heap(q)
    assert counts[0] > 1000 and counts[2] > 1000, counts
    assert counts[1] > 10 and counts[3] > 10 and counts[4] > 10, counts
    assert q.push(1, 0) < 0x3FFFFF00  # the outside sequence did wrap


def test_allocation_really_fails_under_lock():
    # Guards the test above against a heap_lock that does nothing.
    if heap_lock is None:
        skip("needs micropython.heap_lock (MicroPython only)")
    got = None
    micropython.heap_lock()
    try:
        try:
            x = [0, 1]
        except MemoryError:
            got = "MemoryError"
    finally:
        micropython.heap_unlock()
    assert got == "MemoryError"

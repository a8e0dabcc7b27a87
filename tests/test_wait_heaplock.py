# No allocation in ticketq.ticks.pop_until's return and timeout paths, proved inside
# micropython.heap_lock() (see test_deadline_heaplock.py for the method). CPython: skipped.
from array import array
from ticketq import TicketQueue, LOW
from ticketq.ticks import Deadline, FakeClock
from ticketq.ticks import pop_until, Timeout
from support import skip

try:
    import micropython
    heap_lock = micropython.heap_lock
except (ImportError, AttributeError):
    heap_lock = None


def test_pop_until_allocates_nothing():
    if heap_lock is None:
        skip("needs micropython.heap_lock (MicroPython only)")
    c = FakeClock(-100)
    d = Deadline(None, c)
    q = TicketQueue(2)
    out = array("i", [-1, -1, 0])  # the popped id, the sleeps until the timeout, raised
    q.push(11, LOW)
    micropython.heap_lock()
    try:
        try:
            d.rearm(0)
            out[0] = pop_until(q, d)  # a ticket present at the deadline is returned
            d.rearm(30)
            try:
                pop_until(q, d, None, 7)
            except Timeout:
                out[1] = c.sleeps
        except Exception:
            out[2] = 1
    finally:
        micropython.heap_unlock()
    assert list(out) == [11, 5, 0], list(out)
    assert c.now == 0x3FFFFFFF - 69

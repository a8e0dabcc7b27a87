# How QueueFull and QueueEmpty are raised: a fresh instance each time while the heap can
# allocate (a preallocated one raised for ever grows its traceback on MicroPython).
import gc
import sys
import ticketq.core as core
from ticketq import TicketQueue, QueueFull, QueueEmpty, LOW
from support import raises, skip, IS_MICROPYTHON


def test_exceptions_are_distinct_classes():
    assert issubclass(QueueFull, Exception) and issubclass(QueueEmpty, Exception)
    assert not issubclass(QueueFull, QueueEmpty) and not issubclass(QueueEmpty, QueueFull)


def test_each_raise_outside_heap_lock_is_a_fresh_instance():
    # A single preallocated instance raised again and again grows its traceback on
    # MicroPython until the heap runs out; with the heap unlocked the queue raises a new one.
    q = TicketQueue(1)
    q.push(1, LOW)
    a = raises(QueueFull, q.push, 2, LOW)
    b = raises(QueueFull, q.push, 2, LOW)
    c = raises(QueueEmpty, TicketQueue(1).pop)
    assert a is not b and a is not core._FULL and c is not core._EMPTY


def test_repeated_raises_do_not_leak():
    q = TicketQueue(1)
    q.push(1, LOW)
    e = TicketQueue(1)

    def spin(n):
        for _ in range(n):
            try:
                q.push(2, LOW)
            except QueueFull:
                pass
            try:
                e.pop()
            except QueueEmpty:
                pass

    spin(50)
    if not IS_MICROPYTHON:
        skip("CPython frees each instance by reference counting; this check is for MicroPython")
    if sys.platform == "webassembly":
        skip("gc.collect() reclaims nothing during a run on the WebAssembly port")
    gc.collect()
    before = gc.mem_free()
    spin(2000)
    gc.collect()
    assert before - gc.mem_free() < 256, (before, gc.mem_free())

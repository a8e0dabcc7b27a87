# Guards test_heaplock against a heap_lock that does nothing: under the lock an
# allocation must raise MemoryError. MicroPython only; skipped visibly on CPython.
from support import skip

try:
    from micropython import heap_lock, heap_unlock
except ImportError:
    heap_lock = None


def test_allocation_really_fails_under_lock():
    if heap_lock is None:
        skip("needs micropython.heap_lock (MicroPython only)")
    got = None
    heap_lock()
    try:
        try:
            got = [0, 1]
        except MemoryError:
            got = "MemoryError"
    finally:
        heap_unlock()
    assert got == "MemoryError"

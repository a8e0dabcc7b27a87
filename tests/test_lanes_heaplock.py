# No allocation on a LaneQueue's hot paths, proved on MicroPython: thousands of mixed
# operations inside micropython.heap_lock(), where any allocation raises MemoryError. Full
# lanes, a full queue, an empty one, remove, peek, len, lane_len, aging, a trace with lanes,
# the digest and renumbering (counter narrowed) with the outside sequence wrapping past
# 2**30. CPython has no heap_lock: skipped there, visibly (test_heaplock_guard.py proves the
# lock bites). The heap is unlocked before anything can escape: an exception escaping under
# the lock hangs the WebAssembly VM.
from ticketq import QueueFull, QueueEmpty, LOW
from ticketq.lanes import LaneQueue, LaneFull
from ticketq.audit import Trace
from lanecheck import check_lanes, snapshot_lanes
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
                q.push(r.next(40), r.next(4), r.next(3))
                c[0] += 1
            elif op < 12:
                q.pop()
                c[1] += 1
            elif op < 13:
                c[2] += q.remove(r.next(40))
            else:
                c[3] += (q.peek() >= 0 and len(q) > 0 and q.last_seq >= 0 and q.digest >= 0
                         and q.lane_len(op - 13) >= 0 and q.last_lane >= 0)
        except LaneFull:  # before QueueFull: it is one
            c[4] += 1
        except QueueFull:
            c[5] += 1
        except QueueEmpty:
            c[6] += 1


def test_mixed_operations_allocate_nothing():
    if heap_lock is None:
        skip("needs micropython.heap_lock (MicroPython only)")
    q = LaneQueue(12, [3, 1, 2], lane_capacity=[6, 3, 12], first_seq=0x3FFFFF00, aging=3)
    q._lim = 64  # renumber every few dozen pushes; outside numbers wrap past 2**30 too
    q.trace = Trace(8)
    r = Rng(2025)
    c = [0] * 7  # pushes, pops, removes, peeks, lane full, queue full, empty
    err = None
    for _ in range(10):
        heap_lock()
        try:
            churn(q, r, 500, c)
        except Exception as e:  # kept, raised once the heap is unlocked
            err = e
        finally:
            heap_unlock()
        if err is not None:
            raise err
        check_lanes(q)
    assert c[0] > 1000 and c[1] > 1000 and c[2] > 10 and c[3] > 100, c
    assert c[4] > 10 and c[5] > 10 and c[6] > 10, c
    assert q.push(1, LOW, 0) < 0x3FFFFF00  # the outside sequence did wrap
    assert q.trace.count == c[1] and len(q.trace.entries(True)[0]) == 5


def test_a_full_lane_under_the_lock_raises_the_preallocated_instance_unchanged():
    if heap_lock is None:
        skip("needs micropython.heap_lock (MicroPython only)")
    q = LaneQueue(4, 2, lane_capacity=1)
    q.push(1, LOW, 0)
    before = snapshot_lanes(q)
    got = []
    for args in ((2, LOW, 0), (2, LOW, 2), (2, 4, 1), (-1, LOW, 1)):
        heap_lock()
        try:
            try:
                q.push(args[0], args[1], args[2])
                got.append(None)
            except LaneFull as e:
                got.append(e)
            except MemoryError:  # a bad argument: its message cannot be built
                got.append("MemoryError")
        finally:
            heap_unlock()
    assert str(got[0]) == "ticket lane full" and got[1:] == ["MemoryError"] * 3, got
    assert snapshot_lanes(q) == before

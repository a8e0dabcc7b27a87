# No allocation on a keyed LaneQueue's hot paths, proved on MicroPython: thousands of mixed
# operations inside micropython.heap_lock(), where any allocation raises MemoryError. Keys
# up to 2**30 - 1 made and freed (so key-table inserts and backward-shift deletions), keys
# that collide in the table, LanesFull, LaneFull, a full queue, an empty one, remove, peek,
# len, lane_len, set_lane, a trace, the digest, renumbering (counter narrowed) with the
# outside sequence wrapping past 2**30. CPython has no heap_lock: skipped there, visibly.
# The heap is unlocked before anything can escape (an exception escaping under the lock
# hangs the WebAssembly VM), as in test_lanes_heaplock.py.
from ticketq import QueueFull, QueueEmpty, LOW
from ticketq.lanes import LaneQueue, LaneFull, LanesFull
from ticketq.audit import Trace
from lanecheck import check_keyed, snapshot_keyed
from rng import Rng
from support import skip

try:
    from micropython import heap_lock, heap_unlock
except ImportError:
    heap_lock = None

# Preallocated keys: the largest, 0, and multiples of 2**15 times the table size, which
# all hash to one entry of a 16-entry table (max_lanes 5..8).
KEYS = (0x3FFFFFFF, 0, 7, 16 << 15, 32 << 15, 48 << 15, 64 << 15, 80 << 15, 123456789)


def churn(q, r, steps, c):
    # Only small ints, preallocated objects, positional calls, exceptions caught by class.
    for _ in range(steps):
        op = r.next(20)
        key = KEYS[r.next(9)]
        try:
            if op < 8:
                q.push(r.next(40), r.next(4), key)
                c[0] += 1
            elif op < 14:
                q.pop()
                c[1] += 1
            elif op < 15:
                c[2] += q.remove(r.next(40))
            elif op < 17:
                try:
                    q.set_lane(key, 1 + r.next(4), 1 + r.next(12))
                    c[3] += 1
                except MemoryError:  # a key with no lane: the message cannot be built
                    c[10] += 1
            else:
                c[4] += (q.peek() >= 0 and len(q) > 0 and q.last_seq >= 0 and q.digest >= 0
                         and q.lane_len(key) >= 0 and q.last_lane >= 0 and q.lanes > 0)
        except LanesFull:  # before QueueFull: both are
            c[5] += 1
        except LaneFull:
            c[6] += 1
        except QueueFull:
            c[7] += 1
        except QueueEmpty:
            c[8] += 1
        except ValueError:  # never: set_lane's refusal cannot build its message here
            c[9] += 1


def test_keyed_mixed_operations_allocate_nothing():
    if heap_lock is None:
        skip("needs micropython.heap_lock (MicroPython only)")
    q = LaneQueue(12, max_lanes=6, first_seq=0x3FFFFF00)
    q._lim = 64  # renumber every few dozen pushes; outside numbers wrap past 2**30 too
    q.trace = Trace(8)
    r = Rng(2026)
    c = [0] * 11  # pushes, pops, removes, sets, peeks, lanes full, lane full, queue full,
    err = None  # empty, set_lane refused, MemoryError
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
        check_keyed(q)
    assert c[0] > 1000 and c[1] > 1000 and c[2] > 10 and c[3] > 100 and c[4] > 100, c
    assert c[5] > 10 and c[6] > 10 and c[7] > 10 and c[8] > 10, c
    # set_lane's refusal (a key with no lane) formats a message: under the lock that is a
    # MemoryError, raised before anything changes (check_keyed above holds)
    assert c[9] == 0 and c[10] > 10, c
    assert q.push(1, LOW, 5) < 0x3FFFFF00  # the outside sequence did wrap
    assert q.trace.count == c[1] and len(q.trace.entries(True)[0]) == 5


def test_keyed_full_errors_under_the_lock_raise_the_preallocated_instances_unchanged():
    if heap_lock is None:
        skip("needs micropython.heap_lock (MicroPython only)")
    q = LaneQueue(4, max_lanes=2)
    q.push(1, LOW, 5)
    q.push(2, LOW, 6)
    q.set_lane(5, bound=1)
    before = snapshot_keyed(q)
    got = []
    for args in ((3, LOW, 5), (3, LOW, 7), (3, LOW, -1), (3, 4, 5)):
        heap_lock()
        try:
            try:
                q.push(args[0], args[1], args[2])
                got.append(None)
            except QueueFull as e:
                got.append(e)
            except MemoryError:  # a bad argument: its message cannot be built
                got.append("MemoryError")
        finally:
            heap_unlock()
    assert type(got[0]) is LaneFull and str(got[0]) == "ticket lane full", got
    assert type(got[1]) is LanesFull and str(got[1]) == "max_lanes lanes exist", got
    assert got[2:] == ["MemoryError"] * 2, got
    assert snapshot_keyed(q) == before

# No allocation in push, pop, peek, remove, len, full, bool and clear, on every queue class and both
# hot paths, proved inside micropython.heap_lock(): the bytecode TicketQueue, the viper one
# where the port compiles it, and LaneQueue (one lane and three, lane_len and last_lane
# too), each with aging off and no trace (the viper pop's fast path, which test_heaplock.py,
# with aging on, never takes), with aging and a trace (its bytecode tail), and with the
# internal counter narrowed so pushes renumber. CPython has no heap_lock: skipped there,
# visibly (test_heaplock_guard.py proves the lock bites). The heap is unlocked before
# anything escapes: an exception under the lock hangs the WebAssembly VM.
# (Not on the micro:bit: ticketq.lanes does not fit there; test_heaplock.py runs there.)
import ticketq
from ticketq import QueueFull, QueueEmpty
from ticketq.lanes import LaneQueue, LaneFull
from ticketq.audit import Trace
from rng import Rng
from support import skip

try:
    from micropython import heap_lock, heap_unlock
except ImportError:
    heap_lock = None


def makers():
    # [(name, make(capacity, first_seq, aging), lanes)]
    out = []
    if ticketq.PATH == "viper":
        import ticketq.viper as tqviper
        out.append(("bytecode", tqviper.BytecodeQueue, 0))
        out.append(("viper", tqviper.TicketQueue, 0))
    elif ticketq.PATH == "c":  # the C core (docs/c-core.md) beside the reference
        from ticketq.core import TicketQueue as Ref
        out.append(("bytecode", Ref, 0))
        out.append(("c", ticketq.TicketQueue, 0))
    else:
        out.append(("bytecode", ticketq.TicketQueue, 0))

    def lanes1(capacity, first_seq, aging):
        return LaneQueue(capacity, 1, None, first_seq, aging)

    def lanes3(capacity, first_seq, aging):
        return LaneQueue(capacity, [3, 1, 2], [5, 3, capacity], first_seq, aging)

    out.append(("lanes1", lanes1, 1))
    out.append(("lanes3", lanes3, 3))
    return out


def churn(q, r, steps, c, lanes):
    # Only small ints, preallocated objects, positional calls, exceptions caught by class.
    for _ in range(steps):
        op = r.next(20)
        try:
            if op < 2 and lanes:
                c[0] += q.push(r.next(40), r.next(4), r.next(lanes)) >= 0
            elif op < 7:
                c[0] += q.push(r.next(40), r.next(4)) >= 0  # LaneQueue: lane 0
            elif op < 14:
                c[1] += q.pop() >= 0 and q.last_seq >= 0 and q.last_priority >= 0
            elif op < 16:
                c[2] += q.remove(r.next(40))
            elif op < 18:
                c[3] += q.peek() >= 0
            elif op == 19 and r.next(8) == 0:
                q.clear()  # ticketq's docstrings: O(1), no allocation (LaneQueue: O(lanes))
            else:
                c[3] += len(q) >= 0 and (bool(q) or not q.full()) and q.digest >= 0
                if lanes:
                    c[3] += q.lane_len(r.next(lanes)) >= 0 and q.last_lane >= -1
        except LaneFull:  # before QueueFull: it is one
            c[4] += 1
        except QueueFull:
            c[4] += 1
        except QueueEmpty:
            c[5] += 1


def locked(q, seed, lanes):
    c = [0] * 6  # pushes, pops, removes, reads, full, empty
    r = Rng(seed)
    err = None
    for _ in range(4):
        heap_lock()
        try:
            churn(q, r, 400, c, lanes)
        except Exception as e:  # kept, raised once the heap is unlocked
            err = e
        finally:
            heap_unlock()
        if err is not None:
            raise err
    return c


def test_every_queue_class_allocates_nothing_on_its_hot_paths():
    if heap_lock is None:
        skip("needs micropython.heap_lock (MicroPython only)")
    for name, make, lanes in makers():
        for aging, trace, lim in ((0, False, 0), (3, True, 0), (0, False, 48), (2, True, 48)):
            q = make(10, 0x3FFFFF80, aging)
            if trace:
                q.trace = Trace(4)
            if lim:
                q._lim = lim  # renumbering every few dozen pushes
            c = locked(q, 77 + aging + lim, lanes)
            assert c[0] > 300 and c[1] > 300 and c[2] > 3 and c[3] > 100, (name, c)
            assert c[4] > 10 and c[5] > 10, (name, c)
            if trace:
                assert q.trace.count == c[1], (name, q.trace.count, c)
            if lim:
                q.clear()
                assert q.push(1, 0) < 0x3FFFFF80, name  # the outside sequence wrapped

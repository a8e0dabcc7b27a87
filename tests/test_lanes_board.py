# Fair lanes on a board with little RAM (the micro:bit on ticketq's firmware, where
# ticketq.lanes is frozen): the weighted rotation within a class, classes first, a lane's
# bound, and no allocation per push/pop/peek/remove under micropython.heap_lock(). Small
# enough to compile there; test_lanes and test_lanes_heaplock hold the full contract.
from ticketq import QueueFull, QueueEmpty, LOW, HIGH
from ticketq.lanes import LaneQueue, LaneFull
from support import skip, raises

try:
    from micropython import heap_lock, heap_unlock
except ImportError:
    heap_lock = None


def test_lanes_share_a_class_by_weight_and_classes_come_first():
    q = LaneQueue(16, (2, 1))
    for i in range(4):
        q.push(i, LOW, 0)
        q.push(10 + i, LOW, 1)
    q.push(99, HIGH, 1)
    got = [q.pop() for _ in range(7)]
    assert got[0] == 99
    assert got[1:] == [0, 1, 10, 2, 3, 11]
    assert len(q) == 2


def test_a_full_lane_is_refused_and_the_queue_unchanged():
    q = LaneQueue(8, (1, 1), 2)
    q.push(1, LOW, 0)
    q.push(2, LOW, 0)
    d = q.digest
    e = raises(LaneFull, q.push, 3, LOW, 0)
    assert isinstance(e, QueueFull)
    assert len(q) == 2 and q.digest == d and q.lane_len(0) == 2
    q.push(4, LOW, 1)
    assert q.lane_len(1) == 1


def test_hot_paths_allocate_nothing():
    if heap_lock is None:
        skip("needs micropython.heap_lock (MicroPython only)")
    q = LaneQueue(16, (3, 1))
    n = [0, 0]
    heap_lock()
    try:
        for i in range(200):
            try:
                q.push(i & 31, i & 3, i & 1)
            except QueueFull:
                n[0] += 1
            if i % 3 == 0:
                q.remove((i + 5) & 31)
            if i & 1:
                q.peek()
                q.pop()
                n[1] += 1
    finally:
        heap_unlock()
    assert n[1] == 100
    while q:
        q.pop()
    raises(QueueEmpty, q.pop)

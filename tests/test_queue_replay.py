# Determinism and a long random run against a sorted-list model, on every interpreter.
from ticketq import TicketQueue
from rng import Rng


def test_same_operations_same_schedule():
    # Two boards seeing the same pushes, pops and removes produce the same pops.
    logs = []
    for _ in range(2):
        q = TicketQueue(12, first_seq=77)
        r = Rng(99)
        log = []
        for _ in range(400):
            op = r.next(5)
            if op < 3 and not q.full():
                log.append(q.push(r.next(20), r.next(4)))
            elif op == 3 and q:
                log.append((q.pop(), q.last_priority, q.last_seq))
            else:
                log.append(q.remove(r.next(20)))
        logs.append((log, q.digest))
    assert logs[0] == logs[1]



# A long random run against a sorted-list model, on every interpreter (the hypothesis
# state machine in test_queue_model.py goes further, on CPython).
from ticketq import TicketQueue
from qcheck import check_heap
from rng import Rng


def test_random_against_sorted_model():
    q = TicketQueue(24)
    model = []  # [(-class, seq, id)], popped as min
    r = Rng(7)
    seq = 0
    for _ in range(600):
        op = r.next(7)
        if op < 3 and len(model) < 24:
            i, p = r.next(50), r.next(4)
            assert q.push(i, p) == seq
            model.append((-p, seq, i))
            seq += 1
        elif op < 5 and model:
            m = min(model)
            model.remove(m)
            assert (q.pop(), q.last_priority, q.last_seq) == (m[2], -m[0], m[1])
        elif op == 5 and model:
            assert q.peek() == min(model)[2]
        else:
            i = r.next(50)
            mine = [t for t in model if t[2] == i]
            assert q.remove(i) == bool(mine)
            if mine:
                model.remove(min(mine, key=lambda t: t[1]))
        assert len(q) == len(model)
        check_heap(q)

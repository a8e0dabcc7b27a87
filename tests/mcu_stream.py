# A fixed, deterministic stream of queue operations whose outcome is folded into one
# number: ticketq mcu runs it on every emulated target, install route and hot path, and on
# CPython, and the lines must be equal. It folds in what each call returns (push's sequence
# numbers, pop/peek's ids, remove's bool, len, last_priority, last_seq), the errors raised
# (QueueFull, QueueEmpty) and the digest, so a wrong value anywhere shows. Small ints only.
# Not a test module (no test_*); tests/test_mcu_stream.py pins its line on every interpreter.
from ticketq import TicketQueue, QueueFull, QueueEmpty
from rng import Rng

M = 0x3FFFFFFF


def fold(h, v):
    # (h * 31 + v) mod 2**30, kept small: v may be negative (-1 before the first pop)
    return ((h & 0x1FFFFFF) * 31 + (v & M)) & M


def stream(n=3000, seed=0x2468ACE, capacity=24, first_seq=0x3FFFFF00, aging=5):
    """(fold of every outcome, queue digest, ops done) for n ops on one queue."""
    q = TicketQueue(capacity, first_seq, aging)
    r = Rng(seed)
    h = 0
    for _ in range(n):
        op = r.next(10)
        if op < 5:
            try:
                h = fold(h, q.push(r.next(64), r.next(4)))
            except QueueFull:
                h = fold(h, 7)
        elif op < 8:
            try:
                h = fold(h, q.pop())
                h = fold(h, q.last_priority)
                h = fold(h, q.last_seq)
            except QueueEmpty:
                h = fold(h, 11)
        elif op < 9:
            h = fold(h, 1 if q.remove(r.next(64)) else 2)
        else:
            try:
                h = fold(h, q.peek())
            except QueueEmpty:
                h = fold(h, 13)
        h = fold(h, len(q))
    return h, q.digest, n


def line():
    """The line ticketq mcu compares: STREAM <fold> <digest> <ops>."""
    return "STREAM %08x %08x %d" % stream()


if __name__ == "__main__":
    print(line())

# ticketq_wait: a blocking pop bounded by a Deadline, for plain loops (no asyncio needed).
# Full documentation is in ticketq_wait.pyi.
from ticketq import QueueEmpty
from ticketq_heap import _int
from ticketq_deadline import sleep_ms, Deadline


class Timeout(QueueEmpty):
    pass


_TIMEOUT = Timeout("deadline passed, queue empty")


def timeout():
    # A fresh instance while the heap allows it (a preallocated one raised again and again
    # grows its traceback on MicroPython); under heap_lock, the preallocated one.
    try:
        return Timeout(_TIMEOUT.args[0])
    except MemoryError:
        return _TIMEOUT


def pop_until(q, deadline, sleep=None, poll_ms=10):
    # pop_until(q, 2000), a timeout where the Deadline goes, is the natural slip: say so
    # before anything happens (an int has no .clock, and a ticket would hide it).
    if not isinstance(deadline, Deadline):
        raise TypeError("deadline: a Deadline, as Deadline(2000)")
    # the one int rule (ticketq.pyi, "Integers"); 0 would spin for ever on a fake clock
    poll_ms = _int(poll_ms, 1, 0x1FFFFFFF, "poll_ms")
    c = deadline.clock
    while 1:
        # The queue first: a ticket present at the deadline (or with timeout 0) is returned.
        if len(q):
            return q.pop()
        r = deadline.remaining()
        if r == 0:
            raise timeout()
        # Each slice comes from remaining(), never from a running sum, so a sleep that
        # returns early (an interrupt, lightsleep) only costs one more loop.
        if r is None or r > poll_ms:
            r = poll_ms
        if sleep is not None:
            sleep(r)
        elif c is not None:
            c.sleep_ms(r)
        else:
            sleep_ms(r)

# README's "Waiting for work with a deadline" loop where every board runs it, the micro:bit
# too (its profile deploys ticketq.ticks and ticketq.ticks): one Deadline re-armed in the
# loop, pop_until on the board's own tick clock, Timeout when idle. Small on purpose, to
# compile beside the library on the micro:bit (test_wait.py, with FakeClock, does not).
from ticketq import TicketQueue, HIGH
from ticketq.ticks import Deadline, ticks_ms, ticks_diff
from ticketq.ticks import pop_until, Timeout


def test_the_readme_loop():
    q = TicketQueue(8)
    q.push(5, HIGH)
    d = Deadline(None)
    got = []
    t = ticks_ms()
    for _ in range(2):
        d.rearm(30)
        try:
            got.append(pop_until(q, d))
        except Timeout:
            got.append(-1)
    assert got == [5, -1] and ticks_diff(ticks_ms(), t) >= 30, got

# The blocking pop on a fake clock that starts just before the wrap: slices come from the
# deadline, early wake-ups never extend the wait, pushes during a sleep are seen.
from ticketq import TicketQueue, QueueEmpty, LOW, HIGH
from ticketq.ticks import Deadline, FakeClock, ticks_ms, ticks_diff
from ticketq.ticks import pop_until, Timeout
from support import raises


def setup(t, start=-100):
    c = FakeClock(start)
    return c, Deadline(t, c), TicketQueue(4)


def test_timeout_is_a_queue_empty():
    assert issubclass(Timeout, QueueEmpty)


def test_zero_wait_returns_at_once():
    c, d, q = setup(0)
    e = raises(Timeout, pop_until, q, d)
    assert "deadline" in str(e) and c.sleeps == 0
    q.push(7, LOW)
    assert pop_until(q, d) == 7 and c.sleeps == 0
    c, d, q = setup(-5)
    raises(Timeout, pop_until, q, d)
    assert c.sleeps == 0


def test_waits_exactly_to_the_deadline_in_slices():
    c, d, q = setup(1000)
    t0 = c.now
    got = []

    def sleep(ms):
        got.append(ms)
        c.sleep_ms(ms)

    raises(Timeout, pop_until, q, d, sleep, 300)
    assert got == [300, 300, 300, 100]
    assert ticks_diff(c.now, t0) == 1000 and c.now == 900  # crossed the wrap


def test_default_sleep_is_the_deadline_clock():
    c, d, q = setup(95)
    raises(Timeout, pop_until, q, d)  # poll_ms=10
    assert c.sleeps == 10 and c.now == 0x3FFFFFFF - 4


def test_early_wake_never_extends_the_wait():
    # A 2000 ms wait woken at 1500 ms still ends at 2000 ms, not 3500 ms.
    c, d, q = setup(2000)
    t0 = c.now
    got = []

    def sleep(ms):
        got.append(ms)
        c.sleep_ms(1500 if len(got) == 1 else ms)

    raises(Timeout, pop_until, q, d, sleep, 5000)
    assert got == [2000, 500]
    assert ticks_diff(c.now, t0) == 2000


def test_push_during_sleep_is_returned():
    c, d, q = setup(1000)
    q.push(3, LOW)
    q.pop()

    def sleep(ms):
        c.sleep_ms(ms)
        if c.sleeps == 3:
            q.push(9, LOW)
            q.push(8, HIGH)

    assert pop_until(q, d, sleep, 50) == 8
    assert c.sleeps == 3 and not d.expired()
    assert pop_until(q, d, sleep, 50) == 9 and c.sleeps == 3


def test_ticket_present_at_the_deadline_is_returned():
    c, d, q = setup(100)
    c.advance(100)
    q.push(4, LOW)
    assert d.expired() and pop_until(q, d) == 4


def test_forever_polls_until_a_push():
    c, d, q = setup(None)

    def sleep(ms):
        assert ms == 250
        c.sleep_ms(ms)
        if c.sleeps == 40:
            q.push(1, LOW)

    assert pop_until(q, d, sleep, 250) == 1 and c.sleeps == 40


def test_real_clock():
    q = TicketQueue(2)
    t0 = ticks_ms()
    raises(Timeout, pop_until, q, Deadline(30))
    assert ticks_diff(ticks_ms(), t0) >= 30
    q.push(5, LOW)
    assert pop_until(q, Deadline(30)) == 5


class Num(int):
    pass


def test_poll_ms_must_be_a_positive_int():
    # ticketq.pyi, "Integers": an int, a bool or an int subclass counts as its value; else
    # TypeError naming the argument; out of range a ValueError with the range. Raised
    # before anything is popped or slept.
    c = FakeClock()
    q = TicketQueue(1)
    for bad in (0, -5, 0x20000000):
        e = raises(ValueError, pop_until, q, Deadline(100, c), None, bad)
        assert str(e) == "poll_ms must be 1..536870911", str(e)
    q.push(4, LOW)
    for bad in (2.5, "10", None):
        e = raises(TypeError, pop_until, q, Deadline(100, c), None, bad)
        assert str(e) == "poll_ms must be int", str(e)
    assert c.sleeps == 0 and len(q) == 1
    q.pop()
    for ok in (Num(25), True):
        d = Deadline(50, c)
        raises(Timeout, pop_until, q, d, None, ok)
        assert d.expired()
    assert c.sleeps == 2 + 50


def test_the_deadline_must_be_a_deadline():
    # pop_until(q, 2000) is the natural slip (a timeout where a Deadline goes): a clear
    # TypeError, and the queue keeps its ticket.
    q = TicketQueue(2)
    q.push(3, HIGH)
    for bad in (2000, None, 1.5):
        e = raises(TypeError, pop_until, q, bad)
        assert "Deadline" in str(e), str(e)
    assert len(q) == 1 and q.peek() == 3

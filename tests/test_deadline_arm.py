# Deadline's arming rules on a fake clock: bad timeouts refused clearly, expiry latched past
# half the ring, rearm (a refused one changes nothing), and any object with ticks_ms() as the
# clock. The countdown itself: test_deadline.py.
from ticketq.ticks import Deadline, FakeClock
from support import raises

HALF = 0x20000000


def test_bad_timeouts_are_refused_clearly():
    c = FakeClock(-100)
    for t in (HALF, -HALF, HALF + 1, 2 * HALF, 2 ** 40, -(2 ** 40)):
        e = raises(ValueError, Deadline, t, c)
        assert "2**29" in str(e)
    for t in (1.5, 100.0, "100", b"100", [1]):
        e = raises(TypeError, Deadline, t, c)
        assert "int" in str(e)


class Num(int):
    pass


def test_bools_and_int_subclasses_are_ints():
    # ticketq's docstring, "Integers": the rule of the whole library (Deadline once refused bools
    # where the queue took them).
    c = FakeClock(-100)
    assert Deadline(True, c).remaining() == 1 and Deadline(False, c).expired()
    d = Deadline(Num(50), c)
    assert d.remaining() == 50 and type(d.remaining()) is int
    d.rearm(Num(-1))
    assert d.expired()
    e = raises(ValueError, Deadline, Num(HALF), c)
    assert "2**29" in str(e)


def test_expiry_is_latched_past_half_the_ring():
    # Raw ticks_diff would call the deadline 2**29 ms in the future again; once seen
    # passed, a deadline stays passed.
    c = FakeClock(-100)
    d = Deadline(10, c)
    c.advance(10)
    assert d.expired()
    for _ in range(4):
        c.advance(HALF - 3)
        assert d.expired() and d.remaining() == 0


def test_rearm():
    c = FakeClock(-100)
    d = Deadline(10, c)
    c.advance(50)
    assert d.expired()
    d.rearm(100)
    assert d.remaining() == 100
    c.advance(99)
    assert d.remaining() == 1 and not d.expired()
    c.advance(1)
    assert d.remaining() == 0 and d.expired()
    d.rearm(None)
    assert d.remaining() is None and not d.expired()
    d.rearm(0)
    assert d.expired()
    d.rearm(HALF - 1)
    assert d.remaining() == HALF - 1
    # A refused rearm leaves the deadline as it was.
    raises(ValueError, d.rearm, HALF)
    raises(TypeError, d.rearm, 2.5)
    assert d.remaining() == HALF - 1
    c.advance(HALF - 1)
    assert d.expired()


def test_clock_is_any_object():
    class Tick:
        t = 5

        def ticks_ms(self):
            return self.t

    k = Tick()
    d = Deadline(20, k)
    assert d.clock is k and d.remaining() == 20
    k.t = 24
    assert d.remaining() == 1
    assert Deadline(5).clock is None

# Deadline on a fake clock that starts just before the wrap, and on the real clock.
from ticketq_ticks import Deadline, FakeClock, ticks_ms, ticks_diff, sleep_ms
from support import raises

MAX = 0x3FFFFFFF
HALF = 0x20000000
STARTS = (-100, -1, 0, HALF - 1, HALF, 12345)


def walk(c, d, t):
    # d was armed with t > 0 ms at c's current tick: count down to 0 exactly at t.
    assert d.remaining() == t and not d.expired()
    c.advance(t - 1)
    assert d.remaining() == 1 and not d.expired()
    c.advance(1)
    assert d.remaining() == 0 and d.expired()
    c.advance(7)
    assert d.remaining() == 0 and d.expired()


def test_counts_down_across_the_wrap():
    for s in STARTS:
        for t in (1, 99, 100, 101, 250, HALF - 1):
            c = FakeClock(s)
            walk(c, Deadline(t, c), t)


def test_due_tick_on_zero_and_on_ticks_max():
    c = FakeClock(-100)
    d = Deadline(100, c)  # due on tick 0: no tick value is a sentinel
    assert d._at == 0
    walk(c, d, 100)
    c = FakeClock(-100)
    d = Deadline(99, c)  # due on TICKS_MAX
    assert d._at == MAX
    walk(c, d, 99)


def test_zero_and_negative_timeouts_expire_at_once():
    c = FakeClock(-100)
    for t in (0, -1, -50, -(HALF - 1)):
        d = Deadline(t, c)
        assert d.expired() and d.remaining() == 0
        c.advance(HALF + 3)
        assert d.expired() and d.remaining() == 0


def test_none_never_expires():
    c = FakeClock(-100)
    d = Deadline(None, c)
    for _ in range(5):
        assert d.remaining() is None and not d.expired()
        c.advance(HALF + 12345)


def test_bad_timeouts_are_refused_clearly():
    c = FakeClock(-100)
    for t in (HALF, -HALF, HALF + 1, 2 * HALF, 2 ** 40, -(2 ** 40)):
        e = raises(ValueError, Deadline, t, c)
        assert "2**29" in str(e)
    for t in (1.5, 100.0, "100", True, [1]):
        e = raises(TypeError, Deadline, t, c)
        assert "int" in str(e)


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
    walk(c, d, 100)
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


def test_real_clock():
    t0 = ticks_ms()
    d = Deadline(40)
    assert 0 < d.remaining() <= 40 and not d.expired()
    while not d.expired():
        sleep_ms(d.remaining())
    assert ticks_diff(ticks_ms(), t0) >= 40
    assert Deadline(0).expired() and Deadline(None).remaining() is None

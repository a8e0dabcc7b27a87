# Deadline on a fake clock that starts just before the wrap, and on the real clock: the
# countdown. Arming rules (bad timeouts, latching, rearm, any clock): test_deadline_arm.py.
from ticketq.ticks import Deadline, FakeClock, ticks_ms, ticks_diff, sleep_ms

MAX = 0x3FFFFFFF
HALF = 0x20000000
STARTS = (-100, -1, 0, HALF - 1, HALF, 12345)


def countdown(t):
    # (ms to advance, remaining() then) for a deadline armed with t > 0 ms: down to 0
    # exactly at t, and staying there. The tests walk it themselves rather than in a helper:
    # on the micro:bit (1.8 KB C stack) test -> helper -> expired -> remaining -> a
    # FakeClock's ticks_ms is one nested Python call too many.
    return ((0, t), (t - 1, 1), (1, 0), (7, 0))


def test_counts_down_across_the_wrap():
    for s in STARTS:
        for t in (1, 99, 100, 101, 250, HALF - 1):
            c = FakeClock(s)
            d = Deadline(t, c)
            for ms, left in countdown(t):
                c.advance(ms)
                assert d.remaining() == left and d.expired() == (left == 0), (s, t, ms)


def test_due_tick_on_zero_and_on_ticks_max():
    for t, due in ((100, 0), (99, MAX)):  # no tick value is a sentinel
        c = FakeClock(-100)
        d = Deadline(t, c)
        assert d._at == due
        for ms, left in countdown(t):
            c.advance(ms)
            assert d.remaining() == left and d.expired() == (left == 0), (t, ms)


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


def test_real_clock():
    t0 = ticks_ms()
    d = Deadline(40)
    r = d.remaining()
    assert 0 <= r <= 40  # 0 only if the machine stalled for all 40 ms: never a failure
    while not d.expired():
        sleep_ms(d.remaining())
    assert ticks_diff(ticks_ms(), t0) >= 40
    assert Deadline(0).expired() and Deadline(None).remaining() is None

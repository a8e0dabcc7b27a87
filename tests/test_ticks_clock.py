# The tick sources on every interpreter: the fake clock (anywhere on the ring, wrapping,
# counting sleeps) and the real ticks_ms/sleep_ms.
import ticketq.ticks as tt
from support import raises

MAX = 0x3FFFFFFF
HALF = 0x20000000


def test_ticks_ms_in_range_and_monotonic():
    a = tt.ticks_ms()
    for _ in range(200):
        b = tt.ticks_ms()
        assert 0 <= b <= MAX
        assert 0 <= tt.ticks_diff(b, a) < 10000  # monotonic; generous for a loaded machine
        a = b


def test_fake_clock_starts_anywhere_and_wraps():
    c = tt.FakeClock(-100)  # 100 ms before the wrap
    assert c.ticks_ms() == MAX - 99
    c.advance(99)
    assert c.ticks_ms() == MAX
    c.advance(1)
    assert c.ticks_ms() == 0
    c.advance(MAX)
    assert c.ticks_ms() == MAX
    c.advance(MAX + 1)  # a whole period: back to the same tick
    assert c.ticks_ms() == MAX
    c.advance(HALF + 7)
    assert c.ticks_ms() == HALF + 6
    assert tt.FakeClock().now == 0 and tt.FakeClock(MAX + 5).now == 4
    raises(ValueError, c.advance, -1)


def test_fake_clock_counts_sleeps():
    c = tt.FakeClock(MAX - 10)
    c.sleep_ms(5)
    c.sleep_ms(0)
    c.sleep_ms(-3)
    c.sleep_ms(20)
    assert c.sleeps == 4
    assert c.now == 14
    raises(TypeError, c.sleep_ms, 1.5)  # whole ms only, as ticks: nothing counted or moved
    assert c.sleeps == 4 and c.now == 14


def test_real_sleep_ms_waits():
    t0 = tt.ticks_ms()
    tt.sleep_ms(20)
    tt.sleep_ms(0)
    tt.sleep_ms(-5)
    assert 20 <= tt.ticks_diff(tt.ticks_ms(), t0) < 10000


class Num(int):
    pass


def test_fake_clock_keeps_the_one_int_rule():
    # ticketq.pyi, "Integers": an int subclass or a bool is its value, anything else a
    # TypeError naming the argument, raised before the clock moves or counts.
    c = tt.FakeClock(Num(5))
    c.advance(Num(3))
    c.sleep_ms(True)
    assert c.now == 9 and c.sleeps == 1
    assert str(raises(TypeError, tt.FakeClock, "5")) == "start must be int"
    assert str(raises(TypeError, c.advance, "5")) == "ms must be int"
    assert str(raises(TypeError, c.sleep_ms, None)) == "ms must be int"
    assert c.now == 9 and c.sleeps == 1

# Property tests (CPython only: imports hypothesis, so mprun reports it as skipped on
# MicroPython) of the tick arithmetic against its definition, for every position on the
# ring, including ticks exactly 2**29 apart, and of Deadline against a model.
from hypothesis import example, given, settings, strategies as st

# Every property runs with deadline=None: these are pure arithmetic, and a per-example time
# limit would only make a loaded CI machine fail them.

import ticketq.ticks as tt
from ticketq.ticks import Deadline, FakeClock

P = 2 ** 30
HALF = 2 ** 29
SMALL = range(-(2 ** 30), 2 ** 30)  # MicroPython small ints on a 32-bit port

ticks = st.integers(0, P - 1)
deltas = st.integers(-(HALF - 1), HALF - 1)
bad_deltas = st.one_of(st.integers(HALF, 2 ** 70), st.integers(-(2 ** 70), -HALF))
IMPLS = ((tt.ticks_add, tt.ticks_diff), (tt._ticks_add, tt._ticks_diff))  # the same on CPython


def diff_def(a, b):
    # The unique r with -2**29 <= r < 2**29 and r == a - b (mod 2**30).
    for r in ((a - b) % P, (a - b) % P - P):
        if -HALF <= r < HALF:
            return r
    raise AssertionError


@settings(deadline=None)
@given(ticks, deltas)
@example(0, 0)
@example(P - 1, 1)
@example(0, -1)
@example(P - 1, HALF - 1)
@example(HALF, -(HALF - 1))
def test_add_is_addition_mod_period(t, d):
    for add, _ in IMPLS:
        assert add(t, d) == (t + d) % P
    # Every intermediate of the definition is a small int.
    x = (t & (P - 1)) - HALF + d
    assert x in SMALL and (x & (P - 1)) ^ HALF in SMALL


@settings(deadline=None)
@given(ticks, bad_deltas)
@example(0, HALF)
@example(P - 1, -HALF)
def test_add_rejects_half_the_ring_or_more(t, d):
    for add, _ in IMPLS:
        try:
            add(t, d)
        except OverflowError as e:
            assert "2**29" in str(e)
        else:
            raise AssertionError("no OverflowError for %d" % d)


@settings(deadline=None)
@given(ticks, ticks)
@example(HALF, 0)
@example(0, HALF)
@example(P - 1, HALF - 1)
@example(HALF - 1, P - 1)
@example(0, P - 1)
@example(P - 1, 0)
def test_diff_matches_its_definition(a, b):
    for _, diff in IMPLS:
        r = diff(a, b)
        assert r == diff_def(a, b)
        assert -HALF <= r <= HALF - 1
        if (a - b) % P == HALF:
            assert r == -HALF  # exactly half the ring apart, in both orders
        else:
            assert diff(b, a) == -r
    y = (a & (P - 1)) - (b & (P - 1))
    assert y in SMALL and ((y & (P - 1)) ^ HALF) - HALF in SMALL


@settings(deadline=None)
@given(ticks, deltas)
def test_diff_inverts_add(t, d):
    for add, diff in IMPLS:
        assert diff(add(t, d), t) == d


@settings(deadline=None)
@given(ticks, st.integers(-HALF + 1, HALF - 1), st.lists(st.integers(0, 3 * HALF), max_size=8))
@example(P - 100, 100, [99, 1, 5])
@example(P - 100, 99, [99, 1])
@example(P - 100, HALF - 1, [HALF - 2, 1, HALF])
def test_deadline_matches_a_model(start, t, steps):
    # Model: ms elapsed since arming, with no wrap at all. Checked after each step, as the
    # contract requires (at least once per 2**29 ms after the deadline falls due).
    c = FakeClock(start)
    d = Deadline(t, c)
    elapsed = 0
    for s in [0] + steps:
        if elapsed < max(t, 0) and elapsed + s > t + HALF - 1:
            s = max(t, 0) - elapsed  # keep the check contract: stop at the deadline first
        c.advance(s)
        elapsed += s
        left = max(t - elapsed, 0)
        assert d.remaining() == left
        assert d.expired() == (left == 0)


@settings(max_examples=50, deadline=None)
@given(ticks)
def test_fake_clock_advance_wraps_in_small_ints(start):
    for ms in (0, 1, HALF - 1, HALF, P - 1, P, 3 * P + 5):
        c = FakeClock(start)
        c.advance(ms)
        assert c.now == (start + ms) % P

# Tick arithmetic on every interpreter (the clocks: test_ticks_clock.py). The definitions
# in Python (ticketq.ticks._ticks_add/_ticks_diff, present on every interpreter) are checked
# against known values and, on MicroPython, against the firmware's own
# time.ticks_add/ticks_diff, which ticketq.ticks then uses.
import ticketq.ticks as tt
from support import skip, IS_MICROPYTHON

MAX = 0x3FFFFFFF
HALF = 0x20000000
# Tick positions around every edge of the ring, and deltas up to the largest allowed.
EDGES = (0, 1, 99, HALF - 1, HALF, HALF + 1, MAX - 100, MAX - 1, MAX)
DELTAS = (0, 1, -1, 100, -100, HALF - 1, -(HALF - 1), 12345678, -12345678)


def test_constants():
    assert tt.TICKS_PERIOD == MAX + 1 and tt.TICKS_MAX == MAX


def impls():
    # The Python definitions, then the functions ticketq.ticks uses (when they differ).
    if tt._ticks_add is tt.ticks_add:
        return ((tt.ticks_add, tt.ticks_diff),)
    return ((tt._ticks_add, tt._ticks_diff), (tt.ticks_add, tt.ticks_diff))


def test_the_firmware_functions_are_used_where_they_exist():
    if not IS_MICROPYTHON:
        # CPython has no time.ticks_*: ticketq.ticks's own definitions stand in.
        assert tt.ticks_add is tt._ticks_add and tt.ticks_diff is tt._ticks_diff
        return
    try:
        import utime as time
    except ImportError:
        import time
    if time.ticks_add(0, -1) != MAX:
        skip("this port's ticks have a longer period than 2**30")
    assert tt.ticks_ms is time.ticks_ms and tt.ticks_add is time.ticks_add
    assert tt.ticks_diff is time.ticks_diff and tt.sleep_ms is time.sleep_ms


def test_add_and_diff_known_values():
    for add, diff in impls():
        assert add(MAX, 1) == 0 and add(0, -1) == MAX
        assert add(MAX - 99, 100) == 0 and add(MAX - 99, 99) == MAX
        assert add(0, HALF - 1) == HALF - 1 and add(0, -(HALF - 1)) == HALF + 1
        assert diff(0, MAX) == 1 and diff(MAX, 0) == -1
        # Exactly half the ring apart: -2**29 in both orders.
        assert diff(HALF, 0) == -HALF and diff(0, HALF) == -HALF
        assert diff(MAX, HALF - 1) == -HALF
        assert diff(HALF - 1, 0) == HALF - 1 and diff(HALF + 1, 0) == -(HALF - 1)


def test_add_then_diff_roundtrip_at_every_edge():
    for add, diff in impls():
        for t in EDGES:
            for d in DELTAS:
                u = add(t, d)
                assert 0 <= u <= MAX
                assert diff(u, t) == d and diff(t, u) == -d


def test_definitions_match_the_firmware():
    if not IS_MICROPYTHON:
        skip("compares with MicroPython's time.ticks_add/ticks_diff")
    try:
        import utime as time
    except ImportError:
        import time
    for a in EDGES:
        for d in DELTAS:
            assert tt._ticks_add(a, d) == time.ticks_add(a, d), (a, d)
        for b in EDGES:
            assert tt._ticks_diff(a, b) == time.ticks_diff(a, b), (a, b)


def test_add_rejects_half_the_ring():
    for add, _ in impls():  # the definitions first: they always check
        for d in (HALF - 1, -(HALF - 1)):
            add(5, d)
        for d in (HALF, -HALF, HALF + 1, 2 * HALF, -3 * HALF):
            try:
                add(5, d)
            except OverflowError:
                continue
            if IS_MICROPYTHON and add is tt.ticks_add:
                skip("this firmware's time.ticks_add predates the 2022 range check")
            assert False, "ticks_add(5, %d) did not raise" % d

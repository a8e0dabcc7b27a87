# Shared by the test modules on every interpreter (CPython, the MicroPython VM, a board).
# Plain asserts, no framework: pytest collects the test_* functions on CPython and
# tests/mprun.py calls them on MicroPython, as micropython-lib's own tests do.
import sys

try:
    from unittest import SkipTest  # pytest reports this exception as a skip
except ImportError:  # MicroPython without micropython-lib's unittest

    class SkipTest(Exception):
        pass


IS_MICROPYTHON = sys.implementation.name == "micropython"


def skip(why):
    # Visible on both sides: pytest lists it under "skipped", mprun prints "SKIP ...".
    try:
        import pytest
    except ImportError:
        raise SkipTest(why)
    pytest.skip(why)


def raises(exc, fn, *args):
    # The one helper the plain-assert style needs: call fn and return the exception it
    # raised, failing if it raised none or another kind.
    try:
        fn(*args)
    except exc as e:
        return e
    raise AssertionError("%s not raised by %s" % (exc.__name__, fn))


def check_heap(q):
    # The queue's invariants, read from its storage: heap order over the live slots,
    # unique sequence numbers, every key and id a small int (-2**30 <= v < 2**30).
    k = q._k
    d = q._d
    n = len(q)
    assert 0 <= n <= q.capacity
    assert len(k) == len(d) == q.capacity
    seen = set()
    for i in range(n):
        assert -0x40000000 <= k[i] <= 0x3FFFFFFF
        assert -0x40000000 <= d[i] <= 0x3FFFFFFF
        if i:
            assert k[(i - 1) >> 1] < k[i], "heap order broken at slot %d" % i
        s = k[i] & 0x1FFFFFFF
        assert s < q._nxt <= q._lim
        assert s not in seen
        seen.add(s)


class Rng:
    # xorshift on 30 bits: every intermediate stays a small int, so it runs under heap_lock
    # and gives the same stream on every interpreter.
    def __init__(self, seed=0x1234567):
        self.x = seed

    def next(self, n):
        x = self.x
        x ^= (x & 0x1FFFF) << 13
        x ^= x >> 17
        x ^= (x & 0x1FFFFFF) << 5
        self.x = x
        return x % n


def snapshot(q):
    # Everything that defines the queue's future behaviour, to prove an operation that
    # failed left it exactly as it was.
    n = len(q)
    return (list(q._k)[:n], list(q._d)[:n], q._nxt, q._nb, q._left, q.digest,
            q.last_priority, q.last_seq)

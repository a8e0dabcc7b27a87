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


def need_heap(nbytes, why):
    # Skip (visibly) on a MicroPython whose whole GC heap is below nbytes: the tests that
    # keep long logs of every op (host-sized, ~0.7-0.9 MB) run on CPython, the VM (1 MiB)
    # and the unix port, not on a board-sized heap (the emulated boards of tools/mcu.py
    # have 192 KB, like an RP2040), where they raise MemoryError on every target alike.
    if not IS_MICROPYTHON:
        return
    import gc

    gc.collect()
    total = gc.mem_free() + gc.mem_alloc()
    if total < nbytes:
        skip("%s needs ~%d KB of heap; this one has %d KB" % (why, nbytes // 1024, total // 1024))


def raises(exc, fn, *args):
    # The one helper the plain-assert style needs: call fn and return the exception it
    # raised, failing if it raised none or another kind.
    try:
        fn(*args)
    except exc as e:
        return e
    raise AssertionError("%s not raised by %s" % (exc.__name__, fn))

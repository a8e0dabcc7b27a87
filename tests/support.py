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

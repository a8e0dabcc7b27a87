# The library never reads wall-clock time (CPython only: it patches the time and datetime
# modules). Mid-wait the wall clock jumps back ten years; the waits still end on time, and
# no ticketq module ever called time.time, time.time_ns, time.localtime, time.gmtime,
# time.ctime, datetime.datetime.now/utcnow/today or datetime.date.today; and no module that
# runs on a board names a wall-clock reader in its code at all (a reader bound at import
# would escape the patching). Not for a board: MicroPython only skips it.
import sys
import time

from support import IS_MICROPYTHON, skip

YEARS = 10 * 365 * 86400


class WallClock:
    # Replaces the wall-clock readers with versions that are shifted by `offset` seconds and
    # record every call made from a ticketq module.
    def __init__(self):
        import datetime as dt

        self.dt = dt
        self.offset = 0
        self.calls = []
        self.saved = []

    def jump_back(self):
        self.offset -= YEARS

    def note(self, name):
        who = sys._getframe(2).f_globals.get("__name__", "")
        if who.startswith("ticketq"):
            self.calls.append((who, name))

    def install(self):
        dt = self.dt
        w = self

        def patch(obj, name, fn):
            self.saved.append((obj, name, getattr(obj, name)))
            setattr(obj, name, fn)

        def reader(name, scale):
            real = getattr(time, name)

            def fn(*args):
                w.note("time." + name)
                return real(*args) + w.offset * scale if scale else real(*args)

            patch(time, name, fn)

        for name, scale in (("time", 1), ("time_ns", 10 ** 9), ("localtime", 0),
                            ("gmtime", 0), ("ctime", 0)):
            reader(name, scale)

        class DateTime(dt.datetime):
            @classmethod
            def now(cls, tz=None):
                w.note("datetime.now")
                return dt.datetime.now(tz) + dt.timedelta(seconds=w.offset)

            @classmethod
            def utcnow(cls):
                w.note("datetime.utcnow")
                return dt.datetime.utcnow() + dt.timedelta(seconds=w.offset)

            @classmethod
            def today(cls):
                w.note("datetime.today")
                return cls.now()

        class Date(dt.date):
            @classmethod
            def today(cls):
                w.note("date.today")
                return dt.date.today() + dt.timedelta(seconds=w.offset)

        patch(dt, "datetime", DateTime)
        patch(dt, "date", Date)

    def restore(self):
        for obj, name, old in reversed(self.saved):
            setattr(obj, name, old)


def with_wall_clock(body):
    if IS_MICROPYTHON:
        skip("patches CPython's time and datetime modules")
    w = WallClock()
    w.install()
    try:
        elapsed = body(w)
    finally:
        w.restore()
    assert w.offset == -YEARS  # the jump did happen mid-wait
    assert not w.calls, w.calls
    return elapsed


def test_blocking_wait_ignores_the_wall_clock():
    from ticketq import TicketQueue
    import ticketq.ticks as tt
    from ticketq.ticks import Timeout, pop_until

    def body(w):
        q = TicketQueue(2)
        n = [0]

        def sleep(ms):
            n[0] += 1
            assert time.perf_counter() - t0 < 30, "the wait overran"  # fail, never hang
            if n[0] == 3:
                before = time.time()
                w.jump_back()
                assert time.time() < before - YEARS + 60  # the wall clock really went back
            tt.sleep_ms(ms)

        t0 = time.perf_counter()
        try:
            pop_until(q, tt.Deadline(300), sleep, 20)
        except Timeout:
            return time.perf_counter() - t0
        raise AssertionError("no Timeout")

    elapsed = with_wall_clock(body)
    # Never early; the upper bound only tells a wait that follows the wall clock (years)
    # from one that is late because the machine is loaded.
    assert 0.29 <= elapsed < 30, elapsed


def test_async_wait_ignores_the_wall_clock():
    try:
        import asyncio
    except ImportError:  # a port built without asyncio (MicroPython's QEMU port): as mprun's MAY_LACK
        skip("no asyncio here")

    from ticketq import LOW, TicketQueue
    import ticketq.ticks as tt
    from ticketq.aio import AsyncTickets
    from ticketq.ticks import Timeout

    async def main(w):
        a = AsyncTickets(TicketQueue(2))

        async def jumper():
            await asyncio.sleep(0.05)
            w.jump_back()
            a.wake()  # a spurious wake-up as well, right after the jump

        j = asyncio.create_task(jumper())
        t0 = time.perf_counter()
        try:
            await asyncio.wait_for(a.pop_until(tt.Deadline(300)), 30)  # fail, never hang
        except Timeout:
            pass
        took = time.perf_counter() - t0
        await j
        a.push(5, LOW)
        assert await a.pop_until(tt.Deadline(0)) == 5
        return took

    elapsed = with_wall_clock(lambda w: asyncio.run(main(w)))
    # Never early; the upper bound only tells a wait that follows the wall clock (years)
    # from one that is late because the machine is loaded.
    assert 0.29 <= elapsed < 30, elapsed


def test_ticks_ms_ignores_the_wall_clock():
    import ticketq.ticks as tt

    def body(w):
        a = tt.ticks_ms()
        w.jump_back()
        b = tt.ticks_ms()
        assert 0 <= tt.ticks_diff(b, a) < 10000  # the jump back of years did not show

    with_wall_clock(body)


def test_no_board_module_names_a_wall_clock_reader():
    # The patching above only sees calls made while it is installed; a reader bound at
    # import (`_now = time.time`) would slip past it. So the sources of every module that
    # runs on a board (lib/, firmware/) must not name one at all, in code (comments and
    # docstrings may: the stubs explain what is never read).
    if IS_MICROPYTHON:
        skip("reads the repository's sources (host only)")
    import ast
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    clocks = {"time", "utime"}  # modules whose wall-clock readers are named below
    wall = {"time", "time_ns", "localtime", "gmtime", "ctime", "mktime", "asctime", "strftime"}
    found = []
    for d in ("lib", "firmware"):
        for name in sorted(os.listdir(os.path.join(root, d))):
            if not name.endswith(".py"):
                continue
            path = os.path.join(root, d, name)
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read(), path)
            where = "%s/%s" % (d, name)
            for node in ast.walk(tree):
                if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                        and node.value.id in clocks and node.attr in wall):
                    found.append("%s:%d %s.%s" % (where, node.lineno, node.value.id, node.attr))
                elif isinstance(node, ast.Attribute) and node.attr == "RTC":  # machine.RTC
                    found.append("%s:%d .RTC" % (where, node.lineno))
                elif isinstance(node, ast.ImportFrom) and node.module in clocks:
                    found += ["%s:%d from %s import %s" % (where, node.lineno, node.module, a.name)
                              for a in node.names if a.name in wall]
                elif isinstance(node, (ast.Import, ast.ImportFrom)):
                    mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
                    found += ["%s:%d import %s" % (where, node.lineno, m) for m in mods if m == "datetime"]
    assert not found, found

# The asyncio pop: wakes on push or at the deadline, early wake-ups never extend the wait,
# a cancelled waiter loses no ticket. Each case_* coroutine is run by asyncio.run on CPython;
# the WebAssembly MicroPython VM has no asyncio.run (its loop is driven by the JS event loop
# only after the synchronous test call returns), so there the test_* wrappers skip, and an
# async runner may await the case_* coroutines directly. Paths that never suspend are driven
# by hand (coro.send) and run everywhere. No asyncio on the board: ImportError, skipped.
import asyncio
from ticketq import TicketQueue, LOW, HIGH
from ticketq.ticks import Deadline, ticks_ms, ticks_diff
import ticketq.aio as aio
from ticketq.aio import AsyncTickets
from ticketq.ticks import Timeout
from support import raises, skip

if hasattr(asyncio, "sleep_ms"):
    sleep_ms = asyncio.sleep_ms
else:

    def sleep_ms(ms):
        return asyncio.sleep(ms / 1000)


def run(case):
    if not hasattr(asyncio, "run"):
        skip("no asyncio.run: this VM's asyncio loop runs on the JS event loop")
    asyncio.run(case())


def now(coro):
    # Runs a coroutine that must finish without suspending; returns its value.
    try:
        coro.send(None)
    except StopIteration as e:
        return e.value if hasattr(e, "value") else e.args[0]
    raise AssertionError("the coroutine suspended")


def test_immediate_paths_do_not_suspend():
    a = AsyncTickets(TicketQueue(2))
    raises(Timeout, now, a.pop_until(Deadline(0)))
    raises(Timeout, now, a.pop_until(Deadline(-3)))
    a.push(4, LOW)
    assert now(a.pop_until(Deadline(0))) == 4
    a.push(5, LOW)
    assert now(a.pop_until(Deadline(None))) == 5
    assert a._w == []


def test_the_deadline_must_be_a_deadline():
    # A timeout where a Deadline goes is refused before anything happens: the ticket stays.
    a = AsyncTickets(TicketQueue(2))
    a.push(4, LOW)
    for bad in (2000, None):
        e = raises(TypeError, now, a.pop_until(bad))
        assert "Deadline" in str(e), str(e)
    assert len(a.q) == 1 and a._w == []


def test_push_takes_a_lane_for_a_lane_queue():
    # An AsyncTickets over a LaneQueue (fair lanes) pushes into any lane, not only lane 0.
    from ticketq.lanes import LaneQueue
    a = AsyncTickets(LaneQueue(4, [1, 1]))
    assert a.push(4, LOW, 1) == 0 and a.push(5, HIGH) == 1
    assert a.q.lane_len(1) == 1 and a.q.lane_len(0) == 1
    assert now(a.pop_until(Deadline(0))) == 5 and a.q.last_lane == 0
    assert now(a.pop_until(Deadline(0))) == 4 and a.q.last_lane == 1
    e = raises(ValueError, a.push, 6, LOW, 2)
    assert str(e) == "lane must be 0..1" and len(a.q) == 0
    # a lane for a TicketQueue: the library's message, not the interpreter's arity error
    # (which differs between CPython, the bytecode and the viper path); nothing pushed
    b = AsyncTickets(TicketQueue(4))
    e = raises(TypeError, b.push, 6, LOW, 0)
    assert str(e) == "lane: for a LaneQueue only" and len(b.q) == 0


async def later(ms, fn, *args):
    await sleep_ms(ms)
    fn(*args)


async def case_wakes_on_push():
    a = AsyncTickets(TicketQueue(2))
    t0 = ticks_ms()
    asyncio.create_task(later(30, a.push, 6, HIGH))
    assert await a.pop_until(Deadline(5000)) == 6
    assert ticks_diff(ticks_ms(), t0) < 4000  # woken by the push, not by the deadline
    asyncio.create_task(later(30, a.push, 7, LOW))
    assert await a.pop_until(Deadline(None)) == 7
    a.q.push(8, LOW)  # a direct push, then wake()
    asyncio.create_task(later(10, a.wake))
    assert await a.pop_until(Deadline(5000)) == 8


async def case_times_out_on_time():
    a = AsyncTickets(TicketQueue(2))
    t0 = ticks_ms()
    try:
        await a.pop_until(Deadline(60))
        assert False, "no Timeout"
    except Timeout:
        pass
    assert ticks_diff(ticks_ms(), t0) >= 60  # never early; how late depends on the machine
    assert a._w == []


async def case_early_wakes_never_extend():
    # Woken at 100, 200 and 300 ms with nothing queued. Each new alarm is computed from
    # remaining(): since a sleep never returns early, the k-th is at most 400 - 100*k ms.
    # A wait that restarted its timeout would ask for 400 again (and end at 700, not 400).
    # Checked on the alarms asked for, not on elapsed time, so a slow machine cannot fail it.
    asked = []
    real = aio._sleep_ms

    def spy(ms):
        asked.append(ms)
        return real(ms)

    aio._sleep_ms = spy
    try:
        a = AsyncTickets(TicketQueue(2))
        for ms in (100, 200, 300):
            asyncio.create_task(later(ms, a.wake))
        t0 = ticks_ms()
        try:
            await a.pop_until(Deadline(400))
            assert False, "no Timeout"
        except Timeout:
            pass
        assert ticks_diff(ticks_ms(), t0) >= 400
    finally:
        aio._sleep_ms = real
    # The first slice asks for all that is left (400, or less if a ms went by before it:
    # a loaded machine), each later one for what is left after ~100 ms more.
    assert 0 < asked[0] <= 400 and len(asked) >= 2, asked
    for k in range(1, len(asked)):
        assert 0 < asked[k] <= 400 - 100 * k, asked


async def case_cancelled_waiter_loses_no_ticket():
    a = AsyncTickets(TicketQueue(4))
    for race in (0, 1):
        w = asyncio.create_task(a.pop_until(Deadline(5000)))
        await sleep_ms(20)
        if race:
            a.push(1, LOW)  # wakes the waiter, then the cancel arrives before it runs
        w.cancel()
        try:
            await w
            assert False, "the cancelled waiter returned"
        except asyncio.CancelledError:
            pass
        if not race:
            a.push(1, LOW)
        assert len(a.q) == 1 and a._w == []
        assert await a.pop_until(Deadline(0)) == 1


async def case_many_waiters_share_the_pushes():
    a = AsyncTickets(TicketQueue(4))

    async def one():
        try:
            return await a.pop_until(Deadline(300))
        except Timeout:
            return -1

    ws = [asyncio.create_task(one()) for _ in range(3)]
    await sleep_ms(20)
    a.push(1, LOW)
    a.push(2, HIGH)
    got = await asyncio.gather(*ws)
    assert sorted(got) == [-1, 1, 2], got
    assert a._w == []


def test_wakes_on_push():
    run(case_wakes_on_push)


def test_times_out_on_time():
    run(case_times_out_on_time)


def test_early_wakes_never_extend():
    run(case_early_wakes_never_extend)


def test_cancelled_waiter_loses_no_ticket():
    run(case_cancelled_waiter_loses_no_ticket)


def test_many_waiters_share_the_pushes():
    run(case_many_waiters_share_the_pushes)

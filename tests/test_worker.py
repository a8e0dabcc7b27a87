# The worker firmware (firmware/worker.py) on every interpreter, without the REPL shell:
# the preallocated job table and its ids, backpressure, failing jobs, cancellation, the log
# line, the idle wait on a fake clock, and no allocation in submit, cancel or the run loop.
# Small enough for a board's device tests; the shell, the sample workload and the board
# profiles are in test_worker_shell.py. firmware/ must be on sys.path (tests/conftest.py on
# CPython, run.mjs on the VM).
from array import array
from ticketq import TicketQueue, LOW, NORMAL, HIGH, CRITICAL
from ticketq.ticks import FakeClock, ticks_diff, ticks_add
from support import skip, raises
from worker import Worker

try:
    import micropython
    heap_lock = micropython.heap_lock
except (ImportError, AttributeError):
    heap_lock = None


def nop(name):
    pass


def queued(w):
    # The ids in the job table: the table's slots that hold a job.
    return [i for i in range(len(w.names)) if w.names[i] is not None]


def fail(name):
    raise ValueError("bad sensor frame")


def test_jobs_run_in_class_then_fifo_order():
    w = Worker(8, out=None)
    ran = []
    for name, c in (("a", LOW), ("b", HIGH), ("c", NORMAL), ("d", HIGH), ("e", CRITICAL)):
        assert w.submit(name, c, ran.append) is not None
    assert len(w.q) == 5 and queued(w) == [1, 2, 3, 4, 5]
    while w.step() is not None:
        pass
    assert ran == ["e", "b", "d", "c", "a"]
    assert queued(w) == [] and w.pops == 5
    assert w.step() is None  # empty: returns at once


def test_ids_are_the_lowest_free_table_slots():
    w = Worker(4, out=None)
    assert [w.submit("a-%d" % n, LOW, nop) for n in range(5)] == [1, 2, 3, 4, None]
    assert w.cancel(3) and w.step() == 1  # free: 1 and 3
    assert w.submit("b-0", HIGH, nop) == 1 and w.submit("b-1", HIGH, nop) == 3
    assert w.submit("b-2", HIGH, nop) is None and queued(w) == [1, 2, 3, 4]
    assert [w.step() for _ in range(5)] == [1, 3, 2, 4, None]
    assert w.submit("c-0", LOW, nop) == 1  # an id is given again once its job is done
    assert w.names == [None, "c-0", None, None, None, None] and w.fns[1] is nop


def test_a_job_can_submit_into_the_slot_it_frees():
    out = []
    w = Worker(2, out=out.append)

    def chain(name):  # the queue was full when this ticket popped
        assert w.submit(name + "+", HIGH, nop) == 1

    w.submit("a", LOW, chain)
    w.submit("b", LOW, nop)
    assert w.step() == 1 and queued(w) == [1, 2] and w.names[1] == "a+"
    assert w.step() == 1 and w.step() == 2
    assert [x.split()[1:3] for x in out] == [["1", "a"], ["1", "a+"], ["2", "b"]]


def test_worker_submit_on_full_queue_returns_none_silently_counting():
    w = Worker(1, out=None)
    assert w.submit("a", LOW, nop) == 1
    assert w.submit("b", HIGH, nop) is None
    assert w.stats[12 + HIGH] == 1 and queued(w) == [1]
    raises(ValueError, w.submit, "c", 4, nop)  # a bad class is an error, not backpressure


def test_cancel_frees_the_slot_and_counts():
    w = Worker(4, out=None)
    a = w.submit("sync-1", LOW, nop)
    b = w.submit("sync-2", NORMAL, nop)
    assert w.cancel(a) is True and w.cancel(a) is False  # not queued any more
    assert queued(w) == [b] and len(w.q) == 1 and w.stats[8 + LOW] == 1
    assert w.cancel(999) is False and w.cancel(0) is False
    raises(TypeError, w.cancel, "sync-2")  # by name: shell.Shell.cancel
    assert w.step() == b and w.cancel(b) is False  # ran: cannot be cancelled


def test_failing_job_is_reported_and_the_worker_goes_on():
    out = []
    w = Worker(4, out=out.append)
    w.submit("telemetry-1", HIGH, fail)
    w.submit("sync-1", LOW, nop)
    assert w.step() == 1
    assert w.step() == 2
    assert out[0].startswith("run 1 telemetry-1 HIGH seq=0 waited=0 digest=")
    assert out[0].endswith(" ValueError")  # the class name, never the message
    assert out[1].endswith(" ok")
    assert w.stats[4 + HIGH] == 1 and w.stats[HIGH] == 1 and w.stats[LOW] == 1


def test_failing_jobs_do_not_stop_run():
    w = Worker(8, clock=FakeClock(), out=None)
    for n in range(6):
        w.submit("x-%d" % n, NORMAL, fail if n % 2 else nop)
    assert w.run(1000) == 6
    assert w.stats[NORMAL] == 6 and w.stats[4 + NORMAL] == 3 and not w.q


def test_log_line_carries_id_name_class_seq_waited_and_digest():
    out = []
    w = Worker(8, out=out.append)
    ref = TicketQueue(8)
    w.submit("sync-0", LOW, nop)
    ref.push(1, LOW)
    for n in range(3):
        w.submit("vote-%d" % n, HIGH, nop)
        ref.push(2 + n, HIGH)
    digests = []
    for _ in range(4):
        w.step()
        ref.pop()
        digests.append(ref.digest)
    assert out == [
        "run 2 vote-0 HIGH seq=1 waited=0 digest=%08x ok" % digests[0],
        "run 3 vote-1 HIGH seq=2 waited=1 digest=%08x ok" % digests[1],
        "run 4 vote-2 HIGH seq=3 waited=2 digest=%08x ok" % digests[2],
        "run 1 sync-0 LOW seq=0 waited=3 digest=%08x ok" % digests[3],
    ]
    assert w.q.digest == ref.digest
    # waited counts pops between push and pop, not pushes: a late push waits from then on
    w.submit("vote-9", HIGH, nop)
    w.step()
    assert " waited=0 " in out[-1] and " seq=4 " in out[-1]


def test_log_line_shows_promotion_by_aging():
    out = []
    w = Worker(8, aging=1, out=out.append)
    w.submit("sync-0", LOW, nop)
    w.submit("vote-0", HIGH, nop)
    w.submit("vote-1", HIGH, nop)
    w.step()  # vote-0; then aging promotes sync-0 LOW -> NORMAL
    w.step()  # vote-1; sync-0 NORMAL -> HIGH
    w.step()
    assert out[2].startswith("run 1 sync-0 LOW>HIGH seq=0 waited=2 digest="), out[2]
    assert out[0].startswith("run 2 vote-0 HIGH seq=1 ")  # not promoted: no ">"


class Clock(FakeClock):
    # A FakeClock that checks every sleep against a deadline tick and records it.
    def __init__(self, start):
        FakeClock.__init__(self, start)
        self.slept = []
        self.deadline = None

    def sleep_ms(self, ms):
        self.slept.append(ms)
        assert ms >= 0
        if self.deadline is not None:
            assert ticks_diff(self.deadline, ticks_add(self.now, ms)) >= 0, "slept past it"
        FakeClock.sleep_ms(self, ms)


def test_idle_wait_uses_the_fake_clock_and_never_sleeps_past_the_deadline():
    clock = Clock(-100)  # 100 ms before the tick counter wraps
    w = Worker(4, clock=clock, out=None)
    start = clock.now
    clock.deadline = ticks_add(start, 250)
    assert w.run(250) == 0
    assert ticks_diff(clock.now, start) == 250  # ended on the deadline, across the wrap
    assert sum(clock.slept) == 250 and max(clock.slept) <= 10 and len(clock.slept) >= 25
    assert w.run(0) == 0 and w.run(-5) == 0 and ticks_diff(clock.now, start) == 250


def test_idle_wait_runs_work_that_arrives_and_still_ends_on_time():
    clock = Clock(0x3FFFFF00)
    w = Worker(4, clock=clock, out=None)
    start = clock.now
    clock.deadline = ticks_add(start, 300)
    seen = []

    def job(name):
        seen.append((name, ticks_diff(clock.now, start)))
        clock.advance(20)  # the job itself takes 20 ms

    def sleep(ms):  # an idle slice in which a radio frame may arrive
        clock.sleep_ms(ms)
        t = ticks_diff(clock.now, start)
        if t in (100, 200):
            w.submit("handoff-%d" % t, CRITICAL, job)

    assert w.run(300, sleep) == 2
    assert seen == [("handoff-100", 100), ("handoff-200", 200)]
    assert ticks_diff(clock.now, start) == 300


def test_run_stops_at_the_deadline_between_jobs():
    clock = Clock(0)
    w = Worker(8, clock=clock, out=None)
    for n in range(6):
        w.submit("sync-%d" % n, LOW, lambda name: clock.advance(40))
    assert w.run(100) == 3  # started at 0, 40, 80; at 120 the deadline has passed
    assert len(w.q) == 3 and clock.slept == []  # never idle, never slept


def test_step_and_run_allocate_nothing():
    if heap_lock is None:
        skip("needs micropython.heap_lock (MicroPython only)")
    clock = FakeClock(-50)
    w = Worker(16, aging=3, clock=clock, out=None)
    for n in range(16):
        w.submit("t-%d" % n, n & 3, nop)
    got = [0, 0, None]
    micropython.heap_lock()
    try:
        try:
            for _ in range(8):
                w.step()
            got[0] = w.run(5)  # 8 tickets left: runs them, then idles until the deadline
            got[1] = w.run(0)
        except MemoryError as e:
            got[2] = e
    finally:
        micropython.heap_unlock()
    assert got[2] is None, "allocated in the run loop"
    assert got[0] == 8 and got[1] == 0 and w.pops == 16 and not w.q


def test_submit_and_cancel_allocate_nothing():
    if heap_lock is None:
        skip("needs micropython.heap_lock (MicroPython only)")
    w = Worker(4, out=None)
    name = "sync-1"
    got = array("i", [0, 0, 0, 0, 0, 0, 0])
    micropython.heap_lock()
    try:
        try:
            for k in range(5):  # the 5th is refused: backpressure allocates nothing either
                got[k] = w.submit(name, k & 3, nop) or -1
            got[5] = w.cancel(3)
            got[6] = w.step()
        except MemoryError:
            got[6] = -2
    finally:
        micropython.heap_unlock()
    assert list(got) == [1, 2, 3, 4, -1, 1, 4], list(got)


def test_failures_are_logged_with_the_same_class_name_everywhere():
    # CPython's FileNotFoundError, RecursionError, ModuleNotFoundError are logged as the
    # MicroPython classes they belong to, so two boards' logs compare line by line.
    lines = []
    w = Worker(4, out=lines.append)

    def missing(name):
        open("/no/such/file")

    def deep(name):
        deep(name)

    def noimport(name):
        __import__("no_such_module_here")

    for fn in (missing, deep, noimport, fail):
        w.submit("x", LOW, fn)
        w.step()
    assert [l.split()[-1] for l in lines] == ["OSError", "RuntimeError", "ImportError", "ValueError"]


def test_bad_submissions_and_unknown_cancels():
    w = Worker(2, out=None)
    raises(TypeError, w.submit, None, LOW, nop)  # None marks a free slot
    raises(TypeError, w.submit, "a", LOW, None)
    assert len(w.q) == 0
    assert w.cancel(-1) is False and w.cancel(99) is False and w.cancel(1) is False


def test_the_pop_counter_stays_a_small_int():
    w = Worker(2, out=None)
    w.pops = 0xFFFFFFF
    w.submit("a", LOW, nop)
    w.step()
    assert w.pops == 0


def test_a_job_may_step_the_worker_but_not_run_it():
    # step from inside a job: each log line still tells its own pop (class, seq, digest);
    # run from inside a job: RuntimeError, logged as the job's failure, the outer run goes on.
    lines = []
    w = Worker(4, out=lines.append)
    w.submit("outer", HIGH, lambda n: w.step())
    w.submit("inner", LOW, nop)
    assert w.step() == 1
    assert lines[0].startswith("run 2 inner LOW seq=1 waited=1 ")  # outer popped first
    assert lines[1].startswith("run 1 outer HIGH seq=0 waited=0 ") and lines[1].endswith(" ok")
    c = FakeClock()
    lines = []
    w = Worker(4, clock=c, out=lines.append)
    w.submit("nested", HIGH, lambda n: w.run(0))
    w.submit("after", LOW, nop)
    assert w.run(100) == 2 and len(w.q) == 0  # the inner run did not end the outer one
    assert lines[0].endswith(" RuntimeError") and lines[1].endswith(" ok")
    assert w.run(0) == 0  # and run works again afterwards


def test_an_interrupted_job_is_still_counted():
    # Ctrl-C (KeyboardInterrupt) inside a job stops the caller, but the job was popped and
    # ran: it is counted, so ran + cancelled + refused + queued still equals the submissions.
    def interrupt(name):
        raise KeyboardInterrupt

    w = Worker(4, out=None)
    w.submit("x", NORMAL, interrupt)
    raises(KeyboardInterrupt, w.step)
    assert w.stats[NORMAL] == 1 and len(w.q) == 0 and w.names[1] is None


def test_cancel_takes_job_ids_only():
    w = Worker(2, out=None)
    w.submit("a", LOW, nop)
    raises(TypeError, w.cancel, True)  # would have meant job 1
    raises(TypeError, w.cancel, "a")
    assert len(w.q) == 1 and w.cancel(1) is True


class Num(int):  # an IntEnum member's kind: the queue takes it as its int (ticketq.pyi)
    pass


def test_an_int_subclass_class_is_taken_as_its_int():
    # MicroPython does not mix ints with int subclasses: submit queued the ticket, then
    # failed on the job table (TypeError, the slot half filled, a stale class in the log),
    # and on a full queue raised instead of returning None.
    out = []
    w = Worker(1, out=out.append)
    assert w.submit("x", Num(HIGH), nop) == 1
    assert w.meta[1] & 3 == HIGH and w.names[1] == "x"
    assert w.submit("y", Num(CRITICAL), nop) is None and w.stats[12 + CRITICAL] == 1
    assert w.step() == 1 and out[-1].split()[3] == "HIGH", out

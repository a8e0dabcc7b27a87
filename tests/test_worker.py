# The worker firmware (firmware/worker.py, shell.py, workload.py) on every interpreter:
# backpressure, failing jobs, cancellation, the log line, determinism of the sample
# workload, the idle wait on a fake clock, and no allocation in the run loop.
# firmware/ must be on sys.path (tests/conftest.py on CPython, run.mjs on the VM).
from ticketq import TicketQueue, LOW, NORMAL, HIGH, CRITICAL
from ticketq_ticks import FakeClock, ticks_diff, ticks_add
from support import skip, raises, IS_MICROPYTHON
from worker import Worker, CLASSES
from shell import Shell, boot
import workload

try:
    import micropython
    heap_lock = micropython.heap_lock
except (ImportError, AttributeError):
    heap_lock = None


def nop(name):
    pass


def fail(name):
    raise ValueError("bad sensor frame")


def test_jobs_run_in_class_then_fifo_order():
    w = Worker(8, out=None)
    ran = []
    for name, c in (("a", LOW), ("b", HIGH), ("c", NORMAL), ("d", HIGH), ("e", CRITICAL)):
        assert w.submit(name, c, ran.append) is not None
    assert len(w.q) == 5 and len(w.jobs) == 5
    while w.step() is not None:
        pass
    assert ran == ["e", "b", "d", "c", "a"]
    assert w.jobs == {} and w.runs == w.pops == 5
    assert w.step() is None  # empty: returns at once


def test_backpressure_is_reported_and_nothing_is_dropped():
    out = []
    w = Shell(3, out=out.append)
    ids = [w.submit("j-%d" % n, c, nop) for n, c in enumerate((LOW, NORMAL, LOW, CRITICAL))]
    assert ids[:3] == [1, 2, 3] and ids[3] is None  # even CRITICAL cannot jump a full queue
    assert out == ["full j-3 CRITICAL"]
    assert len(w.q) == 3 and sorted(w.jobs) == [1, 2, 3]
    assert w.stats[12 + CRITICAL] == 1 and sum(w.stats[12 + c] for c in range(4)) == 1
    assert w.submit("j-4", "HIGH", nop) is None and out[-1] == "full j-4 HIGH"
    w.step()
    assert w.submit("j-5", "HIGH", nop) == 4  # room again: ids go on from the last admitted
    while w.step() is not None:
        pass
    runs = sum(w.stats[c] for c in range(4))
    refused = sum(w.stats[12 + c] for c in range(4))
    assert runs == 4 and refused == 2  # every submission ran or was refused


def test_worker_submit_on_full_queue_returns_none_silently_counting():
    w = Worker(1, out=None)
    assert w.submit("a", LOW, nop) == 1
    assert w.submit("b", HIGH, nop) is None
    assert w.stats[12 + HIGH] == 1 and list(w.jobs) == [1]
    raises(ValueError, w.submit, "c", 4, nop)  # a bad class is an error, not backpressure


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


def test_cancel_by_id_and_by_name():
    out = []
    w = Shell(8, out=out.append)
    ran = []
    a = w.submit("sync-1", LOW, ran.append)
    b = w.submit("sync-2", LOW, ran.append)
    w.submit("sync-2", NORMAL, ran.append)  # same name, later id
    assert w.cancel(a) is True
    assert w.cancel(a) is False  # not queued any more
    assert w.cancel("sync-2") is True  # the oldest of that name: id b
    assert b not in w.jobs and len(w.q) == 1
    assert w.cancel("nope") is False and w.cancel(999) is False
    assert out == ["cancel 1 sync-1 LOW", "cancel 2 sync-2 LOW"]
    w.step()
    assert ran == ["sync-2"] and w.cancel(3) is False  # ran: cannot be cancelled
    assert w.stats[8 + LOW] == 2 and w.stats[NORMAL] == 1


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


def test_log_ring_keeps_the_last_runs():
    w = Worker(8, out=None, logsize=3)
    for n in range(5):
        w.submit("t-%d" % n, NORMAL, nop)
    got = []
    w.log(got.append)
    assert got == []
    while w.step() is not None:
        pass
    w.log(got.append)
    assert [g.split()[2] for g in got] == ["t-2", "t-3", "t-4"]
    assert got[-1] == w.line(4 % 3)


def test_shell_repr_ls_and_summary():
    w = Shell(4, out=None)
    assert "ran=0 next=-" in repr(w)
    w.submit("a-1", "NORMAL", nop)
    w.submit("b-1", "CRITICAL", fail)
    assert "<TicketQueue 2/4" in repr(w) and "next=b-1" in repr(w)
    got = []
    w.ls(got.append)
    assert got == ["2 b-1 CRITICAL seq=1", "1 a-1 NORMAL seq=0"]
    w.step()
    w.cancel("a-1")
    w.submit("c-1", LOW, nop)
    got = []
    w.summary(got.append)
    assert got[0] == "summary ran=1 failed=1 cancelled=1 refused=0 queued=1 digest=%08x" % (
        w.q.digest)
    assert got[1] == "  CRITICAL ran=1 failed=1 cancelled=0 refused=0"
    assert got[3] == "  NORMAL   ran=0 failed=0 cancelled=1 refused=0"
    assert len(got) == 5


def test_heartbeat_blinks_per_job_and_is_guarded():
    from shell import _led
    for hb in (None, "microbit", 2, "LED"):
        led = _led(hb)  # None where the module or the pin is missing: never an error
        if led is not None:
            led(1)
            led(0)
    assert _led(None) is None
    w = Worker(4, out=None)
    seen = []
    w.led = seen.append
    for n in range(3):
        w.submit("a-%d" % n, LOW, fail if n == 1 else nop)
    while w.step() is not None:
        pass
    assert seen == [1, 0, 1]  # also after the failing job


def test_boot_reads_the_board_or_defaults():
    w = boot(out=None, kinds=workload.KINDS)
    assert w.q.capacity >= 1 and w.kinds is workload.KINDS
    assert boot(5, out=None).q.capacity == 5
    assert w.submit("sync-1", "LOW") == 1
    raises(KeyError, w.submit, "nosuchkind-1", "LOW")


def play(lines):
    out = []
    w = workload.play(lines, None, out.append)
    w.summary(out.append)
    return out, w


def test_workload_player_commands():
    out, w = play([
        "# a comment", "", "queue 3",
        "push telemetry-1 NORMAL", "push sync-1 LOW", "push handoff-10 CRITICAL",
        "push consensus-1 HIGH",  # full
        "cancel sync-1", "cancel sync-1", "run 1", "run",
    ])
    assert w.q.capacity == 3
    assert out[0] == "full consensus-1 HIGH"
    assert out[1] == "cancel 2 sync-1 LOW"
    assert out[2] == "cancel sync-1: not queued"
    assert out[3].startswith("run 3 handoff-10 CRITICAL seq=2 waited=0 ")
    assert out[3].endswith(" OSError")  # handoff-10: a peer that left the mesh
    assert out[4].startswith("run 1 telemetry-1 NORMAL seq=0 waited=1 ")
    assert out[5].startswith("summary ran=2 failed=1 cancelled=1 refused=1 queued=0 ")
    e = raises(ValueError, workload.play, ["queue 2", "push a"], None, None)
    assert "line 2" in str(e.args[0])


def test_same_workload_gives_the_same_log_and_digest():
    a, wa = play(workload.sample())
    b, wb = play(workload.sample())
    assert a == b and wa.q.digest == wb.q.digest
    # The golden values: the same on CPython, the MicroPython VM and a board.
    assert len([x for x in a if x.startswith("run ")]) == 106
    assert a[-5] == "summary ran=106 failed=4 cancelled=12 refused=8 queued=0 digest=0dc1cd90"
    assert "full handoff-70 CRITICAL" in a and "cancel sync-1: not queued" in a
    assert "run 32 handoff-10 CRITICAL seq=31 waited=0 digest=1dcddb2e OSError" in a
    c, wc = play(workload.sample(seed=7))
    assert wc.q.digest != wa.q.digest  # the digest tells schedules apart


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
    w = Worker(16, aging=3, clock=clock, out=None, logsize=4)
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
    assert got[0] == 8 and got[1] == 0 and w.runs == 16 and not w.q


def test_workload_file_is_the_sample():
    if IS_MICROPYTHON:
        skip("reads firmware/workload.txt from the repository (CPython only)")
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "firmware", "workload.txt")
    body = [s.rstrip("\n") for s in workload.lines(path)]
    assert [s for s in body if s and not s.startswith("#")] == list(workload.sample())
    out = []
    workload.main(path, out.append)
    assert out == play(workload.sample())[0]


def test_board_profiles_are_constants_that_ast_can_read():
    if IS_MICROPYTHON:
        skip("reads boards/*/board.py with ast (CPython only)")
    import ast
    import os
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    names = sorted(os.listdir(os.path.join(root, "boards")))
    assert set(["microbit", "rp2", "esp32", "host"]) <= set(names)
    for name in names:
        path = os.path.join(root, "boards", name, "board.py")
        tree = ast.parse(open(path).read(), path)
        prof = {}
        for node in tree.body:
            assert isinstance(node, ast.Assign) and len(node.targets) == 1, (path, node)
            prof[node.targets[0].id] = ast.literal_eval(node.value)
        assert sorted(prof) == ["CAPACITY", "FILES", "HEARTBEAT", "MPY", "NAME"], path
        assert prof["NAME"] == name and 1 <= prof["CAPACITY"] <= 1 << 24
        assert prof["HEARTBEAT"] is None or isinstance(prof["HEARTBEAT"], (int, str))
        assert prof["MPY"] in (True, False)
        assert "boards/%s/board.py" % name in prof["FILES"], path
        for f in prof["FILES"]:
            assert os.path.isfile(os.path.join(root, f)), (path, f)
        bases = [f.rsplit("/", 1)[-1] for f in prof["FILES"]]
        assert len(set(bases)) == len(bases), "flat filesystems need unique base names"
        for mod in ("ticketq.py", "ticketq_ticks.py", "ticketq_wait.py", "worker.py"):
            assert mod in bases, (path, mod)
    micro = os.path.join(root, "boards", "microbit", "board.py")
    assert "MPY = False" in open(micro).read() and "CAPACITY = 32" in open(micro).read()

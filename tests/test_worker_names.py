# A failed job's log line ends with its exception's class name, the same on every
# interpreter: worker._name. Small enough to run on the micro:bit beside the frozen worker,
# whose MicroPython 1.9.2 has no type.__name__ (MICROPY_CPYTHON_COMPAT is 0 there): the
# name then comes from the class's repr. Before that fallback, the first failing job on
# the micro:bit raised AttributeError out of Worker.step.
from worker import Worker, _name


class Refused(Exception):
    pass


class Unreachable(OSError):
    pass


# No helper builds the worker: on the micro:bit (a 1.8 KB C stack) test -> helper ->
# Worker() -> TicketQueue() is one call too deep ("maximum recursion depth exceeded").


def _job_oserror(name):
    raise OSError(113)


def _job_refused(name):
    raise Refused("no")


def _job_unreachable(name):
    raise Unreachable(113)


def test_a_built_in_failure_is_logged_by_its_class_name():
    lines = []
    w = Worker(4, out=lines.append)
    w.submit("job-1", 1, _job_oserror)
    assert w.step() == 1
    assert lines[0].split()[-1] == "OSError"


def test_a_failure_of_a_class_of_ones_own_is_logged_by_its_name():
    lines = []
    w = Worker(4, out=lines.append)
    w.submit("job-1", 1, _job_refused)
    assert w.step() == 1
    words = lines[0].split()
    assert words[-1] == "Refused"
    assert words[:4] == ["run", "1", "job-1", "NORMAL"]


def test_a_subclass_of_a_built_in_keeps_its_own_name():
    lines = []
    w = Worker(4, out=lines.append)
    w.submit("job-1", 1, _job_unreachable)
    assert w.step() == 1
    assert lines[0].split()[-1] == "Unreachable"


def test_name_gives_the_class_name_of_exceptions():
    assert _name(ValueError("x")) == "ValueError"
    assert _name(KeyError(1)) == "KeyError"
    assert _name(Refused()) == "Refused"

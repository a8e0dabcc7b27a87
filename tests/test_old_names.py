# The module names of 0.1.0 before issue 23 (CHANGELOG, "Deprecated"): the 14 flat modules
# lib/ticketq_*.py still import for one release, each re-exporting the very objects of the
# package module that replaced it, so old code keeps working unchanged: `except
# ticketq_lanes.LaneFull` still catches what ticketq.lanes raises, isinstance against an old
# name's class still holds. On CPython each warns DeprecationWarning once, at the importing
# line, naming the module to import instead. Runs on every interpreter (tests/mprun.py): a
# board that deploys none of the shims skips; one whose package module cannot load there
# (ticketq.viper without an emitter, ticketq.resp without sockets, ticketq.aio without
# asyncio) must fail the old name the same way.
import sys

import ticketq
import ticketq.core as core
import ticketq.ticks as ticks
from support import IS_MICROPYTHON, raises, skip

# old name -> (package module, public names the 0.1.0 module had, at least)
OLD = {
    "ticketq_heap": ("ticketq.core", ("up", "down", "delete", "oldest", "promote", "renumber")),
    "ticketq_base": ("ticketq.core", ("QueueFull", "QueueEmpty", "QueueBase", "delete", "oldest")),
    "ticketq_viper": ("ticketq.viper", ("TicketQueue", "BytecodeQueue", "PATH", "WHY", "selfcheck")),
    "ticketq_lanes": ("ticketq.lanes", ("LaneQueue", "LaneFull", "LanesFull", "QueueFull", "table")),
    "ticketq_keyed": ("ticketq.keyed", ("keyed", "LaneQueue", "LanesFull")),
    "ticketq_ticks": ("ticketq.ticks", ("ticks_ms", "ticks_add", "ticks_diff", "sleep_ms", "Deadline",
                                        "FakeClock", "TICKS_PERIOD", "TICKS_MAX")),
    "ticketq_deadline": ("ticketq.ticks", ("ticks_ms", "ticks_add", "ticks_diff", "sleep_ms", "Deadline")),
    "ticketq_softticks": ("ticketq.ticks", ("ticks_add", "ticks_diff", "ticks_ms", "sleep_ms")),
    "ticketq_wait": ("ticketq.ticks", ("pop_until", "Timeout", "timeout", "Deadline", "QueueEmpty")),
    "ticketq_async": ("ticketq.aio", ("AsyncTickets", "Deadline", "timeout")),
    "ticketq_audit": ("ticketq.audit", ("tickets", "explain", "Trace", "max_wait", "lane_max_wait")),
    "ticketq_fleet": ("ticketq.fleet", ("FleetQueue", "FleetError", "VERSION", "QueueFull", "QueueEmpty")),
    "ticketq_fleetlanes": ("ticketq.fleet", ("FleetLaneQueue", "FleetQueue", "FleetError", "LaneFull",
                                             "LanesFull", "QueueFull")),
    "ticketq_resp": ("ticketq.resp", ("Redis", "RespError", "MAX_BULK", "MAX_ITEMS", "MAX_DEPTH",
                                      "MAX_LINE")),
}
# Names the old module gave another name in the package: ticketq_softticks' definitions are
# ticketq.ticks's private _ticks_add/_ticks_diff (the public ticks_add is the firmware's
# where it has one).
RENAMED = {"ticketq_softticks": {"ticks_add": "_ticks_add", "ticks_diff": "_ticks_diff"}}
# A shim's own names: what it imports to warn, and the module attributes of every module.
OWN = ("warnings",)


def _module(name):
    # The module object of a dotted name, imported if it is not yet (MicroPython's
    # __import__ returns the top package, as CPython's does without a fromlist).
    top = __import__(name)
    for part in name.split(".")[1:]:
        top = getattr(top, part)
    return top


def _blocked(name):
    # A runner blocks the viper module to force the bytecode path (sys.modules[name] = None,
    # ticketq.PATH): then that import raises on CPython and gives None on MicroPython.
    mods = getattr(sys, "modules", None)
    return mods is not None and name in mods and mods[name] is None


def _load(old):
    """(old module, package module), or None when neither is on this interpreter (or a
    runner blocked one of them); fails when the package module loads and its old name does
    not, or the other way round."""
    new_name = OLD[old][0]
    if _blocked(old) or _blocked(new_name):
        return None
    try:
        new = _module(new_name)
    except Exception as e:  # noqa: BLE001 - viper without an emitter raises more than ImportError
        new = e
    try:
        mod = _module(old)
    except ImportError as e:
        if ("'%s'" % old) in str(e):
            return None  # the shim is not deployed here (a board profile's choice)
        mod = e
    except Exception as e:  # noqa: BLE001
        mod = e
    if isinstance(new, Exception):  # the package module cannot load here: nor can its old name
        assert isinstance(mod, Exception), "%s loads where %s cannot (%r)" % (old, new_name, new)
        return None
    assert not isinstance(mod, Exception), "%s fails where %s loads: %r" % (old, new_name, mod)
    return mod, new


def _same(old, mod, new):
    # Every name the old module has is the package module's very object (under its new
    # name for a renamed one), and the public names of 0.1.0 are all there.
    renamed = RENAMED.get(old, {})
    names = [n for n in dir(mod) if not n.startswith("__") and n not in OWN]
    for n in OLD[old][1]:
        assert n in names, "%s has no %s any more" % (old, n)
    for n in names:
        want = renamed.get(n, n)
        assert hasattr(new, want), "%s.%s is not in %s" % (old, n, OLD[old][0])
        assert getattr(mod, n) is getattr(new, want), "%s.%s is not %s.%s" % (old, n, OLD[old][0], want)
    return len(names)


def test_every_old_name_gives_the_package_modules_very_objects():
    loaded, checked = [], 0
    for old in sorted(OLD):
        got = _load(old)
        if got is None:
            continue
        loaded.append(old)
        checked += _same(old, got[0], got[1])
    if not IS_MICROPYTHON:  # the host has every module but the viper one (no emitter)
        assert len(OLD) == 14 and sorted(set(OLD) - set(loaded)) == ["ticketq_viper"], loaded
        assert checked >= 100, checked
    elif not loaded:
        skip("no deprecated module name is deployed here")


def test_the_old_names_catch_what_the_package_raises():
    if _load("ticketq_base") is None:
        skip("ticketq_base is not deployed here")
    import ticketq_base
    import ticketq_heap

    q = ticketq.TicketQueue(1)
    q.push(7, ticketq.HIGH)
    e = raises(ticketq_base.QueueFull, q.push, 8, ticketq.LOW)
    assert isinstance(e, core.QueueFull) and len(q) == 1
    assert ticketq_heap.oldest is core.oldest
    assert q.pop() == 7
    raises(ticketq_base.QueueEmpty, q.pop)
    # every Python queue class shares QueueBase; the C core's native type cannot (docs/c-core.md)
    assert isinstance(q, ticketq_base.QueueBase) or ticketq.PATH == "c"


def test_old_tick_names_keep_their_meaning():
    got = _load("ticketq_wait")
    if got is None:
        skip("ticketq_wait is not deployed here")
    wait = got[0]
    q = ticketq.TicketQueue(2)
    clock = ticks.FakeClock(5)
    d = ticks.Deadline(0, clock)  # expired at once: pop_until raises at its first check
    e = raises(wait.Timeout, wait.pop_until, q, d)
    assert isinstance(e, ticketq.QueueEmpty) and isinstance(e, ticks.Timeout)
    q.push(3, ticketq.NORMAL)
    assert wait.pop_until(q, ticks.Deadline(1000, clock)) == 3
    got = _load("ticketq_softticks")
    if got is not None:  # the Python definitions, on every interpreter
        soft = got[0]
        assert soft.ticks_add(2 ** 30 - 1, 1) == 0 and soft.ticks_diff(0, 2 ** 30 - 1) == 1
        raises(OverflowError, soft.ticks_add, 0, 2 ** 29)


def test_old_lane_names_catch_what_the_package_raises():
    got = _load("ticketq_lanes")
    if got is None:
        skip("ticketq_lanes is not deployed here")
    old = got[0]
    import ticketq.lanes as lanes

    q = lanes.LaneQueue(4, [1, 1], [1, 3])
    q.push(1, ticketq.NORMAL, 0)
    e = raises(old.LaneFull, q.push, 2, ticketq.NORMAL, 0)
    assert isinstance(e, lanes.LaneFull) and isinstance(e, ticketq.QueueFull) and len(q) == 1
    assert isinstance(q, old.LaneQueue)
    got = _load("ticketq_keyed")
    if got is None:
        return
    k = lanes.LaneQueue(4, max_lanes=1)
    k.push(1, ticketq.NORMAL, 100)
    e = raises(got[0].LanesFull, k.push, 2, ticketq.NORMAL, 200)
    assert isinstance(e, old.LanesFull) and len(k) == 1


def test_importing_an_old_name_warns_once_where_it_is_imported():
    if IS_MICROPYTHON:
        skip("CPython's warnings (a board's shim stays quiet)")
    import importlib
    import warnings

    for old in sorted(OLD):
        new = OLD[old][0]
        if old == "ticketq_viper":  # no emitter on CPython: test_viper_guard checks it where it loads
            continue
        sys.modules.pop(old, None)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            __import__(old)  # the warning points here: the line that imports the old name
            __import__(old)  # the second import is the cached module: no warning
            importlib.import_module(old)
        dep = [w for w in seen if issubclass(w.category, DeprecationWarning)]
        assert len(dep) == 1, (old, [str(w.message) for w in seen])
        text = str(dep[0].message)
        assert old in text and "import " + new in text, text
        assert dep[0].filename == __file__, (old, dep[0].filename)  # the importing line, not the shim
        assert not [w for w in seen if w not in dep], (old, [str(w.message) for w in seen])


def test_the_package_imports_no_old_name():
    # The package stands on its own: importing all of it loads no deprecated module (so a
    # user of the new names never sees the warning, and 0.2.0 can delete the shims).
    if IS_MICROPYTHON:
        skip("needs sys.modules with every module (CPython)")
    import subprocess

    lib = __file__.rsplit("/", 2)[0] + "/lib"
    code = ("import sys, warnings; warnings.simplefilter('error'); sys.path.insert(0, %r)\n"
            "import ticketq, ticketq.core, ticketq.lanes, ticketq.keyed, ticketq.ticks, ticketq.aio, "
            "ticketq.audit, ticketq.fleet, ticketq.resp\n"
            "print(sorted(m for m in sys.modules if m.startswith('ticketq_')))" % lib)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "[]", (out.stdout, out.stderr)

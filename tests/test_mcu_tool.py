# ticketq mcu's verdicts on CPython (pytest): how a run's output is read, when a viper run
# on the bytecode path is a failure, and that outcomes differing between routes fail the
# stage. The stage itself (QEMU firmware) runs in ./tools/test; MicroPython skips these.
from support import IS_MICROPYTHON, skip


def _mcu():
    if IS_MICROPYTHON:
        skip("ticketq mcu runs on CPython")
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
    from ticketq_tools import mcu
    return mcu


STREAM = "STREAM 03f63172 12661f59 3000"


def lines(path="viper", tq="ticketq/__init__.py", tv="ticketq/viper.py", why="-", tests=("PASS m.test_a",)):
    return ["ROUTE %s %s %s 4" % (path, tq, tv), "WHY %s" % why, STREAM] + list(tests) + [
        "%d passed, %d failed, 0 skipped" % (sum(t.startswith("PASS") for t in tests),
                                             sum(t.startswith("FAIL") for t in tests))]


def test_a_clean_frozen_run_passes():
    mcu = _mcu()
    r = mcu.Run("armv7m", "frozen", "viper", ["m"])
    mcu.parse(r, lines(), 0)
    assert not r.failed and r.counts == (1, 0, 0) and r.stream == STREAM and r.outcomes == {"m.test_a": "PASS"}


def test_a_module_from_the_wrong_place_fails_the_route():
    mcu = _mcu()
    r = mcu.Run("armv7m", "mount", "viper", ["m"])
    mcu.parse(r, lines(), 0)  # frozen names (ticketq/__init__.py): not the mounted source
    assert r.failed and any("not the mount route" in p for p in r.problems)
    r = mcu.Run("armv7m", "mount", "viper", ["m"])
    mcu.parse(r, lines(tq="/remote/ticketq/__init__.py", tv="/remote/ticketq/viper.py"), 0)
    assert not r.failed


def test_bytecode_in_a_viper_run_fails_except_where_documented_with_a_reason():
    mcu = _mcu()
    why = "ticketq.viper: self-check failed: _bind took an argument too many"
    r = mcu.Run("armv7m", "frozen", "viper", ["m"])
    mcu.parse(r, lines(path="bytecode", why=why), 0)
    assert r.failed and "not 'viper'" in r.problems[0]
    r = mcu.Run("armv6m", "frozen", "viper", ["m"])
    mcu.parse(r, lines(path="bytecode", why="-"), 0)  # no reason given: a failure there too
    assert r.failed
    r = mcu.Run("armv6m", "frozen", "viper", ["m"])
    mcu.parse(r, lines(path="bytecode", tv="absent", why=why), 0)  # the guard unloaded it
    assert not r.failed and r.fallback == why and r.group == "bytecode", r.problems


def test_a_failed_test_a_hang_or_no_summary_fails_the_run():
    mcu = _mcu()
    r = mcu.Run("rv32imc", "frozen", "viper", ["m"])
    mcu.parse(r, lines(tests=("PASS m.test_a", "FAIL m.test_b")), 1)
    assert r.failed and r.outcomes["m.test_b"] == "FAIL"
    r = mcu.Run("rv32imc", "frozen", "viper", ["m"])
    mcu.parse(r, lines()[:3], None)
    assert r.failed and any("timeout" in p for p in r.problems)


def test_outcomes_that_differ_between_routes_are_reported():
    mcu = _mcu()
    a = mcu.Run("armv6m", "mpy", "viper", ["m"])
    b = mcu.Run("rv32imc", "mount", "viper", ["m"])
    c = mcu.Run("armv7m", "frozen", "bytecode", ["m"])
    mcu.parse(a, lines(tq="/remote/ticketq/__init__.mpy", tv="/remote/ticketq/viper.mpy"), 0)
    mcu.parse(b, lines(tq="/remote/ticketq/__init__.py", tv="/remote/ticketq/viper.py", tests=("SKIP m.test_a: no",)), 0)
    mcu.parse(c, lines(path="bytecode", tv="blocked", tests=("SKIP m.test_a: forced",)), 0)
    diffs = mcu.compare([a, b, c])
    assert set(diffs) == {"m.test_a"} and set(diffs["m.test_a"]) == {a.name, b.name}  # c: the other path


def test_the_firmware_key_follows_the_frozen_sources():
    mcu = _mcu()
    assert "lib/ticketq/viper.py" in mcu.frozen_sources(True)
    assert "lib/ticketq/viper.py" not in mcu.frozen_sources(False)
    assert set(mcu.frozen_sources(True)) - set(mcu.frozen_sources(False)) == {"lib/ticketq/viper.py"}

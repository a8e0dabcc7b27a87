# python -m ticketq_tools.testsummary, the summary at the end of ./tools/test (issue 22): each stage's
# counts are parsed from its log's last count line, a stage that ran no test fails unless
# it said SKIPPED and exited 0, and the closing line CI reads sums them all. Host only: it
# reads files the host's tools/test writes.
from support import skip, IS_MICROPYTHON


def _ts():
    if IS_MICROPYTHON:
        skip("python -m ticketq_tools.testsummary runs on the host, after tools/test's stages")
    import os
    import sys

    tools = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools")
    if tools not in sys.path:
        sys.path.insert(0, tools)
    from ticketq_tools import testsummary

    return testsummary


def test_counts_from_each_runner_format():
    ts = _ts()
    assert ts.counts("PASS a.b\nSKIP a.c: why\n12 passed, 0 failed, 3 skipped\n") == (12, 0, 3)
    # pytest -q, its order and words; errors are failures
    assert ts.counts("....\n1520 passed, 41 skipped in 311.52s (0:05:11)\n") == (1520, 0, 41)
    assert ts.counts("F.\n2 failed, 10 passed, 1 skipped, 1 error in 3.01s\n") == (10, 3, 1)
    assert ts.counts("===== 7 passed, 2 warnings in 0.50s =====\n") == (7, 0, 0)
    # ticketq mcu's total, inside a longer line
    assert ts.counts("x  3 passed, 0 failed,   1 skipped\n-- 12 runs (3 targets x routes x paths) in 90 s "
                     "(+0 s firmware): 900 passed, 2 failed, 60 skipped; op stream identical\n") == (900, 2, 60)
    # the LAST count line wins; none at all is None
    assert ts.counts("1 passed, 1 failed, 0 skipped\nlater\n5 passed, 0 failed, 0 skipped\n") == (5, 0, 0)
    assert ts.counts("== header\nnothing counted\n") is None
    assert ts.counts("") is None


def test_a_stage_that_ran_no_test_fails_unless_skipped_with_exit_0():
    ts = _ts()
    r = ts.result("unix", "tests", 0, 1, "== MicroPython unix port (version unknown)\n")  # /bin/true
    assert r["status"] == "FAILED" and r["failed"] == 1 and "ran no test" in r["why"], r
    r = ts.result("unix", "tests", 0, 1, "0 passed, 0 failed, 0 skipped\n")
    assert r["status"] == "FAILED" and r["failed"] == 1, r
    r = ts.result("unix", "tests", 0, 0, "== MicroPython unix port: SKIPPED, none found (...)\n")
    assert r["status"] == "SKIPPED" and (r["passed"], r["failed"], r["skipped"]) == (0, 0, 0), r
    r = ts.result("unix", "tests", 2, 0, "== MicroPython unix port: SKIPPED, none found\n")
    assert r["status"] == "FAILED", r  # SKIPPED with a non-zero exit is not a skip


def test_exit_codes_and_checks():
    ts = _ts()
    r = ts.result("vm", "tests", 1, 9, "10 passed, 0 failed, 2 skipped\n")
    assert r["status"] == "FAILED" and r["failed"] == 1, r  # exit 1 with 0 counted: still a failure
    r = ts.result("vm", "tests", 1, 9, "10 passed, 3 failed, 2 skipped\n")
    assert r["status"] == "FAILED" and r["failed"] == 3, r
    r = ts.result("vm", "tests", 0, 9, "10 passed, 0 failed, 2 skipped\n")
    assert r["status"] == "ok" and (r["passed"], r["failed"], r["skipped"], r["secs"]) == (10, 0, 2, 9), r
    assert ts.result("firmware", "check", 0, 5, "")["passed"] == 1
    r = ts.result("firmware", "check", 3, 5, "")
    assert r["failed"] == 1 and r["status"] == "FAILED" and "exit 3" in r["why"], r


def test_the_summary_of_a_log_folder_ends_with_the_closing_line():
    ts = _ts()
    import os
    import tempfile

    d = tempfile.mkdtemp()
    stages = [("01-pytest", "tests", 0, 300, "1500 passed, 40 skipped in 300.00s\n"),
              ("02-vm", "tests", 1, 60, "FAIL a.b\n900 passed, 1 failed, 300 skipped\n"),
              ("03-unix", "tests", 0, 0, "== MicroPython unix port: SKIPPED, none found\n"),
              ("04-firmware", "check", 0, 20, "")]
    for name, kind, code, secs, text in stages:
        with open(os.path.join(d, name + ".log"), "w") as f:
            f.write(text)
        with open(os.path.join(d, name + ".meta"), "w") as f:
            f.write("%s %s %d %d\n" % (name[3:], kind, code, secs))
    rows = ts.read(d)
    assert [r["name"] for r in rows] == ["pytest", "vm", "unix", "firmware"]
    lines = ts.render(rows)
    assert lines[-1] == "2401 passed, 1 failed, 340 skipped", lines
    vm = [l for l in lines if l.startswith("vm ")][0]
    assert "FAILED" in vm and "60 s" in vm, vm
    assert "SKIPPED" in [l for l in lines if l.startswith("unix ")][0]
    assert ts.main([d]) == 1
    os.remove(os.path.join(d, "02-vm.meta"))
    assert ts.main([d]) == 0
    assert ts.main([tempfile.mkdtemp()]) == 2


def test_tools_test_stage_function_records_each_stage_and_the_summary_fails_the_run():
    # tools/test's own stage() (taken from the script as it is), with three quick stages: a
    # passing runner, the unix port given /bin/true (ran no test), a failing check whose
    # later commands must not run; then python -m ticketq_tools.testsummary as tools/test calls it
    if IS_MICROPYTHON:
        skip("runs bash on the host")
    import os
    import re
    import subprocess
    import sys
    import tempfile

    ts = _ts()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(ts.__file__))))  # tools/ticketq_tools/
    text = open(os.path.join(root, "tools", "test")).read()
    fn = re.search(r"^stage\(\) \{\n.*?^\}\n", text, re.M | re.S).group(0)
    assert 'tee "$f.log"' in fn and "PIPESTATUS[0]" in fn, fn
    logs = tempfile.mkdtemp()
    script = "\n".join([
        "set -euo pipefail", "logs=%s" % logs, "nstage=0", fn,
        "stage ok tests %s -c 'print(\"3 passed, 0 failed, 1 skipped\")'" % sys.executable,
        "stage unix tests env MICROPYTHON=/bin/true %s -m ticketq_tools.cli mpunix --skip-missing --quiet test_ticks"
        % sys.executable,
        "check() { echo step1; false; echo notreached; }",
        "stage firmware check check",
        "%s -m ticketq_tools.testsummary \"$logs\"" % sys.executable])
    p = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60, cwd=root)
    lines = p.stdout.splitlines()
    assert p.returncode == 1, p.stdout + p.stderr
    assert "notreached" not in p.stdout and "step1" in lines, p.stdout
    assert sorted(os.listdir(logs)) == ["01-ok.log", "01-ok.meta", "02-unix.log", "02-unix.meta",
                                        "03-firmware.log", "03-firmware.meta"]
    assert lines[-1] == "3 passed, 2 failed, 1 skipped", lines
    rows = dict((l.split()[0], l) for l in lines[-4:-1])
    assert rows["ok"].endswith("ok") and "FAILED" in rows["unix"] and "FAILED: exit 1" in rows["firmware"], rows

#!/usr/bin/env python3
"""The summary at the end of `./tools/test`: one row per stage (passed / failed / skipped,
seconds, status), then a closing line alone, `N passed, N failed, N skipped`, summing every
stage (what CI reads).

    python -m ticketq_tools.testsummary build/test-logs

tools/test runs each stage through its `stage` function, which tees the stage's output to
LOGDIR/NN-NAME.log and writes LOGDIR/NN-NAME.meta, one line: `NAME KIND EXIT SECONDS`.
KIND is
  tests  a test runner (pytest, tools/mpvm/run.mjs, ticketq mpunix, ticketq devtest,
         ticketq mcu test): its counts are read from the last count line of its log, either
         the runners' `N passed, N failed, N skipped` (also inside mcu.py's `-- ...: N passed,
         N failed, N skipped; ...` total) or pytest's `N failed, N passed, N skipped, N
         errors in 1.23s` (errors count as failed);
  check  one check (a firmware build, the main job compared with the VM's, the heap drift):
         1 passed if it exited 0, else 1 failed.
A stage's status is FAILED when it exited non-zero (then it counts at least 1 failed even if
its log says 0), or counted a failure, or (a tests stage) ran no test: no count line, or one
counting nothing; the only exception is a stage that printed SKIPPED and exited 0 (the unix
port where there is none), which is SKIPPED and adds nothing to the counts.

Exit status: 0 when no stage failed, 1 when one did, 2 no stage recorded in LOGDIR.
"""
import os
import re
import sys

RUNNER = re.compile(r"(\d+) passed, (\d+) failed(?:, (\d+) skipped)?")
PYTEST = re.compile(r"^=*\s*((?:\d+ [a-z]+(?:, )?)+) in [\d.]+s\b")
PYTEST_PAIR = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed)\b")


def counts(text):
    """(passed, failed, skipped) from the last count line of a runner's output, or None when
    it has none."""
    for line in reversed(text.splitlines()):
        line = line.strip()
        m = PYTEST.match(line)
        if m:
            c = {"passed": 0, "failed": 0, "skipped": 0}
            for n, word in PYTEST_PAIR.findall(m.group(1)):
                key = {"error": "failed", "errors": "failed", "xpassed": "passed",
                       "xfailed": "skipped"}.get(word, word)
                c[key] += int(n)
            return c["passed"], c["failed"], c["skipped"]
        m = RUNNER.search(line)
        if m:
            return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
    return None


def result(name, kind, code, secs, text):
    """A stage's row: dict(name, passed, failed, skipped, secs, status, why)."""
    row = dict(name=name, passed=0, failed=0, skipped=0, secs=secs, status="ok", why="")
    if kind == "check":
        row["passed" if code == 0 else "failed"] = 1
        if code:
            row.update(status="FAILED", why="exit %d" % code)
        return row
    c = counts(text)
    if c is None:
        if code == 0 and re.search(r"\bSKIPPED\b", text):
            row.update(status="SKIPPED", why=[l for l in text.splitlines() if "SKIPPED" in l][-1].strip())
            return row
        row.update(failed=1, status="FAILED", why="ran no test (no 'N passed, N failed' line), exit %d" % code)
        return row
    row["passed"], row["failed"], row["skipped"] = c
    if not sum(c):
        row.update(failed=1, status="FAILED", why="ran no test, exit %d" % code)
    elif code:
        row.update(failed=max(1, c[1]), status="FAILED", why="exit %d" % code)
    elif c[1]:
        row.update(status="FAILED", why="%d failed" % c[1])
    return row


def read(logdir):
    rows = []
    for f in sorted(os.listdir(logdir)):
        if not f.endswith(".meta"):
            continue
        name, kind, code, secs = open(os.path.join(logdir, f)).read().split()
        log = os.path.join(logdir, f[:-5] + ".log")
        text = open(log, errors="replace").read() if os.path.exists(log) else ""
        rows.append(result(name, kind, int(code), int(secs), text))
    return rows


def render(rows, logdir="build/test-logs"):
    """The summary's lines: a table, then the closing `N passed, N failed, N skipped`."""
    out = ["== summary (each stage's whole output: %s/NN-STAGE.log)" % logdir.rstrip("/")]
    for r in rows:
        out.append("%-28s %5d passed %3d failed %4d skipped %5d s  %s%s" % (
            r["name"], r["passed"], r["failed"], r["skipped"], r["secs"], r["status"],
            ": " + r["why"] if r["why"] else ""))
    tot = [sum(r[k] for r in rows) for k in ("passed", "failed", "skipped")]
    out.append("%d passed, %d failed, %d skipped" % tuple(tot))
    return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m ticketq_tools.testsummary LOGDIR", file=sys.stderr)
        return 2
    rows = read(argv[0]) if os.path.isdir(argv[0]) else []
    if not rows:
        print("testsummary: no stage recorded in %s" % argv[0])
        return 2
    print("\n".join(render(rows, argv[0])), flush=True)
    return 1 if any(r["status"] == "FAILED" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())

"""Runs benchmark snippets on CPython in a fresh interpreter (tools/bench/run.py starts it).

stdin: a JSON list of Python snippets; stdout: a JSON list of [ok, printed text] per
snippet. All snippets share one namespace, as on the MicroPython VM and the micro:bit, so
run.py drives the three interpreters the same way. lib/ and tools/bench/ are on sys.path;
nothing is imported from either before the first snippet (so one can measure an import).
"""
import contextlib
import io
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[0:0] = [os.path.join(os.path.dirname(os.path.dirname(HERE)), "lib"), HERE]


def main():
    steps = json.load(sys.stdin)
    env = {"__name__": "__bench__"}
    results = []
    for i, code in enumerate(steps):
        sys.stderr.write("progress %d\n" % i)  # for run.py's progress lines
        sys.stderr.flush()
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf):
                exec(code, env)
            results.append([True, buf.getvalue()])
        except Exception:
            results.append([False, buf.getvalue() + traceback.format_exc(limit=2)])
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()

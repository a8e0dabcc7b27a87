# Runs benchmark snippets on the MicroPython unix port (tools/bench/run.py starts it as
# `micropython tools/bench/mp_worker.py` with MICROPYPATH naming lib/ and tools/bench/).
#
# stdin: a JSON list of Python snippets, run in one namespace (as on CPython, the VM and the
# micro:bit). MicroPython's print cannot be redirected, so each snippet's output is framed on
# stdout instead: "\x02N" before snippet N, then what it printed, then "\x03ok" or
# "\x03err TYPE: message"; run.py splits the stream there.
import sys
import json



def run(steps, progress=False):
    # progress: "progress N" on stderr before step N, for run.py's progress lines (not on
    # the QEMU firmware, whose stderr is the same stream as stdout)
    env = {"__name__": "__bench__"}
    for i in range(len(steps)):
        if progress:
            sys.stderr.write("progress %d\n" % i)
        print("\x02%d" % i)
        try:
            exec(steps[i], env)
            print("\x03ok")
        except Exception as e:
            print("\x03err %s: %s" % (type(e).__name__, e))


# On MicroPython's QEMU firmware (ticketq mcu) run.py imports this module over `mpremote
# mount` and calls run() on the steps it reads from a mounted steps.json.
if __name__ == "__main__":
    run(json.loads(sys.stdin.read()), True)

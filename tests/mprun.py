# Runs test modules on MicroPython, where pytest does not exist: imports each module, calls
# every test_* function, prints one line per test; report() prints the closing
# "N passed, N failed, N skipped" line. A module that cannot be imported or compiled here
# is reported as skipped (it needs hypothesis: MAY_LACK) or failed (anything else), never
# passed over silently. Used by tools/mpvm (the WebAssembly VM; ticketq devtest's
# host target); on a board ticketq devtest calls the tests from the host instead (a
# micro:bit has no RAM for a harness). mprun_async.py adds the asyncio case_* coroutines
# where the VM's event loop can run them.
import gc
import sys

from support import SkipTest

res = [0, 0, 0]  # passed, failed, skipped

# The libraries a test module may find missing here, and then skip: host-only tools (the
# property tests' hypothesis, the source checks' ast) and asyncio on a board without it.
# Any other ImportError (the library importing what MicroPython lacks, a name gone from a
# module) is a failure, never a skip.
MAY_LACK = ("hypothesis", "ast", "asyncio")


def missing(err):
    # The module an ImportError names ("no module named 'x'"; CPython: "No module named"),
    # or "" when it names none (a name that a module lacks).
    s = str(err)
    return s.split("'")[1].split(".")[0] if "odule named '" in s else ""


def outcome(label, err):
    if err is None:
        print("PASS " + label)
        res[0] += 1
    elif isinstance(err, SkipTest):
        print("SKIP %s: %s" % (label, err))
        res[2] += 1
    else:
        print("FAIL " + label)
        sys.print_exception(err)
        res[1] += 1


def load(name):
    try:
        return __import__(name)
    except ImportError as e:
        outcome(name, SkipTest("cannot import here (%s)" % e) if missing(e) in MAY_LACK else e)
    except Exception as e:  # SyntaxError, MemoryError while compiling
        outcome(name, e)


def unload(name):
    # Frees the module for the next one (the micro:bit 1.9.2 firmware has no sys.modules).
    mods = getattr(sys, "modules", None)
    if mods is not None and name in mods:
        del mods[name]
    gc.collect()


def run(names):
    for name in names:
        mod = load(name)
        if mod is None:
            continue
        for t in sorted(dir(mod)):
            fn = getattr(mod, t)
            if not t.startswith("test_") or not callable(fn):
                continue
            gc.collect()
            err = None
            try:
                fn()
            except Exception as e:
                err = e
            outcome("%s.%s" % (name, t), err)
        unload(name)
    return res[1]


def report():
    print("%d passed, %d failed, %d skipped" % tuple(res))
    return res[1]


if __name__ == "__main__":  # the unix port: micropython tests/mprun.py [--bytecode] MODULE ...
    names = sys.argv[1:]
    if names and names[0] == "--bytecode":
        # Force ticketq's bytecode path on a port that has the viper emitter: block the
        # viper module before anything imports ticketq (ticketq's docstring, "Hot paths";
        # the name is libnames.VIPER, which tests/test_mpunix_cli.py checks against this line).
        sys.modules["ticketq.viper"] = None
        names = names[1:]
    run(names)
    if not sum(res):
        print("no tests ran")
        res[1] += 1
    sys.exit(1 if report() else 0)

# Runs test modules on MicroPython, where pytest does not exist: imports each module, calls
# every test_* function, prints one line per test and a closing "N passed, N failed,
# N skipped" line. A module that cannot be imported here (it needs hypothesis, say) is
# reported as skipped, never passed over silently. Used by tools/mpvm (the WebAssembly VM)
# and tools/devtest.py (a board over mpremote).
import gc
import sys

from support import SkipTest


def run(names):
    res = [0, 0, 0]  # passed, failed, skipped
    for name in names:
        try:
            mod = __import__(name)
        except ImportError as e:
            print("SKIP %s: cannot import here (%s)" % (name, e))
            res[2] += 1
            continue
        for t in sorted(dir(mod)):
            fn = getattr(mod, t)
            if not t.startswith("test_") or not callable(fn):
                continue
            gc.collect()
            try:
                fn()
            except SkipTest as e:
                print("SKIP %s.%s: %s" % (name, t, e))
                res[2] += 1
            except Exception as e:
                print("FAIL %s.%s" % (name, t))
                sys.print_exception(e)
                res[1] += 1
            else:
                print("PASS %s.%s" % (name, t))
                res[0] += 1
        del sys.modules[name]
        gc.collect()
    print("%d passed, %d failed, %d skipped" % tuple(res))
    return res[1]

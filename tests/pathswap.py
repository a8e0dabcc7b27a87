# For the tests that import ticketq afresh to see which hot path it picks (test_paths,
# test_viper_guard): while `with fresh_chooser():` is in force the C core is blocked
# (sys.modules["_ticketq"] = None, ticketq.ccore's own switch) and ticketq.ccore, the module
# that picks between the C core, viper and bytecode, is out of sys.modules, so the fresh
# import chooses again between viper and bytecode. Both are put back after. Not imported by
# support.py: the micro:bit (no sys.modules) never needs it, and pays no RAM for it.
import sys

_NO = object()


class fresh_chooser:
    def __enter__(self):
        m = sys.modules
        self.old = (m.get("_ticketq", _NO), m.get("ticketq.ccore", _NO))
        m["_ticketq"] = None
        if "ticketq.ccore" in m:
            del m["ticketq.ccore"]
        return self

    def __exit__(self, *exc):
        m = sys.modules
        for name, v in zip(("_ticketq", "ticketq.ccore"), self.old):
            if v is _NO:
                if name in m:
                    del m[name]
            else:
                m[name] = v
        return False

# The two hot paths of ticketq (ticketq's docstring, "Hot paths"): which one runs where, and the
# viper class against the bytecode class on seeded streams of every operation, bad
# arguments, renumbering, aging and a trace included. tools/test runs the unix port twice,
# with the viper default and with the bytecode path forced (tests/mprun.py --bytecode), so
# every other test module covers both paths as well.
import sys

import ticketq
from qcheck import check_heap, snapshot
from rng import Rng
from support import IS_MICROPYTHON, skip


def forced():
    # tests/mprun.py --bytecode blocks the viper module this way before importing ticketq
    mods = getattr(sys, "modules", None)
    return mods is not None and "ticketq.viper" in mods and mods["ticketq.viper"] is None


def c_expected():
    # the C core (module _ticketq: the x86 .mpy on the unix port's path in tools/test's
    # unix-c stage, docs/c-core.md) where it can be imported and is not blocked: then it is
    # the path in use, or its self-check refused it, which is a failure here
    mods = getattr(sys, "modules", None)
    if mods is None or mods.get("_ticketq", 0) is None or forced():
        return False
    try:
        import _ticketq  # noqa: F401
    except ImportError:
        return False
    return True


def viper_expected():
    # every 32-bit MicroPython port with a native emitter: not the WebAssembly VM, not the
    # micro:bit (no module there), not CPython, not a 64-bit unix port
    return (IS_MICROPYTHON and sys.platform not in ("webassembly", "microbit")
            and not sys.maxsize >> 32 and not forced())


def misplaced_armv6m():
    # Frozen armv6m code (mpy-tool aligns it to 2 bytes): a viper function at an address
    # 2 mod 4 lets extra arguments through, so the import self-check keeps the bytecode
    # path (docs/armv6m-frozen-viper.md). Wrong answers there are no excuse: only this.
    arch = getattr(sys.implementation, "_mpy", 0) >> 10
    return arch == 4 and ticketq.WHY is not None and "took an argument too many" in ticketq.WHY


def test_the_path_in_use():
    if not misplaced_armv6m():
        assert ticketq.PATH == ("c" if c_expected() else "viper" if viper_expected() else "bytecode"), ticketq.WHY
    q = ticketq.TicketQueue(4)
    q.push(1, ticketq.HIGH)
    assert q.pop() == 1 and isinstance(q, ticketq.TicketQueue)


class Num(int):
    pass


BAD = ("7", 2.0, None, -1, 0x40000000, 2 ** 40, -(2 ** 40))


def outcome(f, *args):
    try:
        return ("ok", f(*args))
    except Exception as e:
        return ("raise", type(e).__name__, str(e))


def stream(Q, seed, cap, first_seq, aging, lim, trace):
    # One seeded stream on a fresh queue of class Q: its outcomes one by one, then the final
    # state (a generator: the test compares two in step, holding no log, so that it fits
    # a QEMU board's ~130 KB heap).
    q = Q(cap, first_seq, aging)
    if lim:
        q._lim = lim
    if trace:
        from ticketq.audit import Trace
        q.trace = Trace(5)
    r = Rng(seed)
    for step in range(1500):
        op = r.next(24)
        if op < 9:
            yield outcome(q.push, r.next(30), r.next(4))
        elif op < 15:
            yield outcome(q.pop)
            yield (q.last_priority, q.last_seq, q.digest)
        elif op < 17:
            yield outcome(q.remove, r.next(30))
        elif op < 18:
            yield outcome(q.peek)
        elif op < 19:
            yield (len(q), bool(q), q.full(), repr(q))
        elif op < 20:
            b = BAD[r.next(len(BAD))]
            yield outcome(q.push, b, 1) + outcome(q.push, 1, b) + outcome(q.remove, b)
        elif op < 21:
            yield outcome(q.push, Num(r.next(30)), Num(r.next(4)))
        elif op < 22 and r.next(8) == 0:
            q.clear()
        elif op < 23:
            q.aging = r.next(3) if aging else 0
        else:
            check_heap(q)
            yield snapshot(q)
    check_heap(q)
    yield snapshot(q)
    if trace:
        yield (q.trace.count, q.trace.entries())


def test_viper_and_bytecode_agree_on_every_operation():
    if forced():
        skip("bytecode path forced: the default run of this module compares the two")
    try:
        import ticketq.viper as tqviper
    except (ImportError, SyntaxError) as e:
        skip("no viper path here (%s): the bytecode path is the only one" % e)
    V, B = tqviper.TicketQueue, tqviper.BytecodeQueue
    assert V is not B and issubclass(V, B)
    for args in ((1, 8, 0, 0, 0, 0), (2, 5, 0x3FFFFFF0, 3, 64, 1), (3, 32, 100, 1, 0, 1),
                 (4, 3, 0x3FFFFFFE, 0, 16, 0), (5, 64, 0, 2, 256, 1)):
        a = stream(V, *args)
        i = 0
        for y in stream(B, *args):
            x = next(a)
            assert x == y, (args, i, x, y)
            i += 1
        try:
            x = next(a)
        except StopIteration:
            x = None
        assert x is None and i > 1500, (args, i, x)


class Broken:
    # Stands for a ticketq.viper that fails to load: reading any name from it raises what a
    # port without the emitter, or a corrupt or foreign .mpy, raises while importing it.
    def __init__(self, e):
        self.e = e

    def __getattr__(self, name):
        raise self.e


NONE = object()  # reimport: no sys.modules entry for ticketq.viper


def reimport(viper):
    # A fresh `import ticketq` with sys.modules["ticketq.viper"] set to `viper` (NONE: no
    # entry), the C core blocked and ticketq.ccore (which picks between the two) imported
    # afresh (tests/pathswap.py); sys.modules is put back as it was, so the
    # other test modules keep the ticketq they imported.
    from pathswap import fresh_chooser

    with fresh_chooser():
        return _reimport(viper)


def _reimport(viper):
    mods = sys.modules
    old = mods["ticketq"]
    had = "ticketq.viper" in mods
    was = mods.get("ticketq.viper")
    if viper is not NONE:
        mods["ticketq.viper"] = viper
    elif had:
        del mods["ticketq.viper"]
    del mods["ticketq"]
    try:
        return __import__("ticketq")
    finally:
        mods["ticketq"] = old
        if "ticketq.viper" in mods:
            del mods["ticketq.viper"]
        if had:
            mods["ticketq.viper"] = was


def bytecode_in_use(t):
    # the module runs the bytecode class, and says so
    q = t.TicketQueue(4)
    q.push(5, t.LOW)
    q.push(6, t.HIGH)
    return (t.PATH == "bytecode" and not hasattr(q, "_s") and q.pop() == 6
            and q.last_priority == t.HIGH and len(q) == 1)


def test_any_failure_to_load_the_viper_module_keeps_the_bytecode_path():
    # Not only ImportError: a port without the emitter raises SyntaxError (the VM: "invalid
    # micropython decorator") or NotImplementedError, a corrupt or foreign .mpy ValueError
    # ("incompatible .mpy file"), a small board MemoryError while compiling it.
    if getattr(sys, "modules", None) is None:
        skip("no sys.modules here (micro:bit 1.9.2): cannot inject a module")
    for e in (ImportError("no emitter"), SyntaxError("invalid micropython decorator"),
              ValueError("incompatible .mpy file"), NotImplementedError("native"),
              MemoryError(), RuntimeError("corrupt"), AttributeError("PATH")):
        t = reimport(Broken(e))
        assert bytecode_in_use(t), (e, t.PATH)


def test_a_viper_module_that_raises_while_it_runs_keeps_the_bytecode_path():
    # The same through a real file whose code raises, where there is a filesystem to write
    # it to (CPython, the unix port): a copy of the package's __init__ in a folder first on
    # sys.path, beside a viper.py that raises (ticketq.core stays the one imported).
    if getattr(sys, "modules", None) is None:
        skip("no sys.modules here (micro:bit 1.9.2): cannot inject a module")
    if IS_MICROPYTHON and sys.platform not in ("linux", "darwin"):
        # a board (QEMU): the package is source only on the mount route, frozen or .mpy on
        # the others; skipped on all of them alike, so their outcomes compare (ticketq mcu)
        skip("a board: the package's source is not on every route (%s)" % sys.platform)
    try:
        import os
        if not ticketq.__file__.endswith(".py"):  # an .mpy or a frozen module: no source here
            raise OSError("ticketq is %s" % ticketq.__file__)
        with open(ticketq.__file__) as f:
            init = f.read()
        d = "build/broken_viper" if IS_MICROPYTHON else None
        if d is None:
            import tempfile
            d = tempfile.mkdtemp()
        for p in ("build", d, d + "/ticketq"):
            try:
                os.mkdir(p)
            except OSError:
                pass
        with open(d + "/ticketq/__init__.py", "w") as f:
            f.write(init)
        with open(ticketq.__file__.replace("__init__.py", "ccore.py")) as f:
            chooser = f.read()
        with open(d + "/ticketq/ccore.py", "w") as f:
            f.write(chooser)
        f = open(d + "/ticketq/viper.py", "w")
    except (ImportError, OSError, AttributeError) as e:
        skip("no filesystem to write a module to here, or no source of ticketq (%s)" % e)
    f.write("raise ValueError('incompatible .mpy file')\n")
    f.close()
    sys.path.insert(0, d)
    try:
        t = reimport(NONE)  # no entry: the import finds the file first on sys.path
    finally:
        sys.path.pop(0)
    assert bytecode_in_use(t) and "incompatible" in t.WHY, (t.PATH, t.WHY)


def test_importing_the_viper_module_first_still_gives_the_viper_path():
    # `import ticketq.viper` before `import ticketq` (e.g. for tqviper.BytecodeQueue): once
    # ticketq, imported by the viper module, met it half made and kept the
    # bytecode class, for the whole program, silently. Now the viper module stands on
    # ticketq.core alone (no circle): importing it first runs the package's __init__, which
    # swaps its class in.
    if forced():
        skip("bytecode path forced")
    if getattr(sys, "modules", None) is None:
        skip("no sys.modules here (micro:bit 1.9.2)")
    import ticketq

    if ticketq.PATH != "viper":
        skip("no viper path here: the bytecode path is the only one")
    mods = sys.modules
    old = (mods["ticketq"], mods["ticketq.viper"], mods["ticketq.ccore"])
    del mods["ticketq"]
    del mods["ticketq.viper"]
    del mods["ticketq.ccore"]
    try:
        __import__("ticketq.viper")
        v = mods["ticketq.viper"]
        t = mods["ticketq"]
        assert v is not old[1] and t is not old[0]
    finally:
        mods["ticketq"], mods["ticketq.viper"], mods["ticketq.ccore"] = old
    assert t.PATH == "viper" and t.TicketQueue is v.TicketQueue, t.PATH
    q = t.TicketQueue(4)
    q.push(5, 1)
    q.push(6, 2)
    assert hasattr(q, "_s") and q.pop() == 6 and q.last_priority == 2


def test_aging_reassigned_to_a_non_int_on_each_path():
    # ticketq/__init__.pyi, TicketQueue.aging: the assignment is not checked. The viper class refuses
    # a non-int at the assignment; the bytecode class stores it, and then None (like 0)
    # turns aging off without a word, a float ages on its own arithmetic, and a str fails
    # in the pop after it is loaded into the count, after that pop's ticket has left the queue.
    def queue():
        q = ticketq.TicketQueue(8, aging=1)
        for i in range(4):
            q.push(i, i % 4)  # 0 LOW, 1 NORMAL, 2 HIGH, 3 CRITICAL
        return q

    for v in (None, 2.5, "3"):
        q = queue()
        if ticketq.PATH in ("viper", "c"):  # aging is a word of an array('i') on both
            try:
                q.aging = v
            except TypeError:
                continue
            assert False, "viper took aging = %r" % (v,)
        q.aging = v
        if v is None:
            assert [q.pop() for _ in range(4)] == [3, 2, 1, 0]  # no promotion, no error
        elif v == "3":
            assert q.pop() == 3  # the count was 1: this pop reloads it with "3" and ages
            try:
                q.pop()
            except TypeError:
                assert len(q) == 2  # the ticket popped is gone
            else:
                assert False, "a str aging popped"
    if not IS_MICROPYTHON:  # the stub says so
        import os
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib",
                               "ticketq", "__init__.pyi")) as f:
            text = " ".join(f.read().split())
        assert "None turns aging off" in text, "ticketq/__init__.pyi: aging reassigned to None"

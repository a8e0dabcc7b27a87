# Board profile: Raspberry Pi Pico (RP2040, 264 KB RAM), MicroPython >= 1.20.
# Constants only: the worker imports this file on the board as `board`, host tools read it
# with ast.literal_eval (never exec).
NAME = "rp2"
CAPACITY = 128
HEARTBEAT = "LED"  # the on-board LED: GPIO 25 on a Pico, the CYW43's LED on a Pico W
MPY = True  # mpy-cross output matching the board's sys.implementation mpy version
MARCH = "armv6m"  # mpy-cross -march: the native code of ticketq.viper (RP2040: Cortex-M0+)
# Proven under QEMU (ticketq mcu, ./tools/test): RP2040's ISA by the armv6m target, frozen
# (freeze with MPY_CROSS_FLAGS=-march=armv6m) and as .mpy; RP2350 (Pico 2, Cortex-M33) by
# the armv7m target: for a Pico 2 set MARCH to what the board reports
# (sys.implementation._mpy; ticketq deploy refuses a MARCH that differs from it).
FILES = [
    "lib/ticketq/core.py",
    "lib/ticketq/__init__.py",
    "lib/ticketq/ccore.py",  # picks the C core (a _ticketq.mpy beside it), else viper
    "lib/ticketq/viper.py",
    "lib/ticketq/ticks.py",
    "lib/ticketq/audit.py",
    "firmware/worker.py",
    "firmware/shell.py",
    "firmware/workload.py",
    "firmware/workload.txt",
    "boards/rp2/board.py",
]
# This profile is for stock MicroPython (ticketq deploy rp2 puts FILES on as .mpy);
# ticketq's own UF2 (ticketq firmware rp2) has all of it frozen (boards/rp2-frozen), and that
# RP2040 firmware itself, not only its ISA, runs in rp2040js (the emulated Pico). Flashing a
# UF2, finding the board with mpremote (USB 2e8a:0005), which route to take, what is proven
# where: docs/boards.md, "The Raspberry Pi Pico".

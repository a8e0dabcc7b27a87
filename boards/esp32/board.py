# Board profile: ESP32 (a generic DevKit: 520 KB SRAM, MicroPython >= 1.20).
# Constants only: the worker imports this file on the board as `board`, host tools read it
# with ast.literal_eval (never exec).
NAME = "esp32"
CAPACITY = 256
HEARTBEAT = 2  # GPIO 2: the blue LED of most DevKit boards (set None if yours has none)
MPY = True  # mpy-cross output matching the board's sys.implementation mpy version
MARCH = "xtensawin"  # mpy-cross -march: the native code of ticketq.viper (ESP32: Xtensa LX6, windowed)
# Xtensa (ESP32, S2, S3) is NOT proven here: no emulated target runs it. An ESP32-C3 (RISC-V)
# needs MARCH = "rv32imc" (freeze with MPY_CROSS_FLAGS=-march=rv32imc); that ISA is proven
# under QEMU by ticketq mcu's rv32imc target (./tools/test).
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
    "boards/esp32/board.py",
]

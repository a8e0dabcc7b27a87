# Board profile: Raspberry Pi Pico (RP2040, 264 KB RAM) running ticketq's own firmware
# (ticketq firmware rp2): MicroPython 1.28.0's rp2 port for RPI_PICO with the library (through
# manifest.py, viper=True: ticketq.viper frozen as armv6m native code), the worker and this
# profile (as `board`) frozen into flash. Nothing goes on the file system; the file system
# (littlefs, ~1.4 MB) stays the user's. Constants only (ast.literal_eval on the host; on the
# board as `board`, without FILES, FROZEN, MARCH, frozen itself).
NAME = "rp2-frozen"  # sys.platform is "rp2": tools pick this profile by name (tools/run --emulate pico)
CAPACITY = 128
HEARTBEAT = "LED"  # machine.Pin("LED"): GPIO 25 on a Pico (the emulator counts its edges)
MPY = True  # what ticketq deploy would add (nothing: FILES is empty) goes on as .mpy
MARCH = "armv6m"
FILES = []  # everything the worker imports is frozen
# Frozen: the library as manifest.py freezes it (include(..., viper=True): ticketq firmware rp2
# checks that these lib/ files are exactly those), the worker by base name, this file as `board`.
FROZEN = [
    "lib/ticketq/__init__.py",
    "lib/ticketq/aio.py",
    "lib/ticketq/audit.py",
    "lib/ticketq/ccore.py",
    "lib/ticketq/core.py",
    "lib/ticketq/fleet.py",
    "lib/ticketq/keyed.py",
    "lib/ticketq/lanes.py",
    "lib/ticketq/resp.py",
    "lib/ticketq/sentinel.py",
    "lib/ticketq/ticks.py",
    "lib/ticketq/viper.py",
    "firmware/worker.py",
    "firmware/shell.py",
    "firmware/workload.py",
    "boards/rp2-frozen/board.py",
]

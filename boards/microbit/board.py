# Board profile: BBC micro:bit v1 (nRF51822, 16 KB RAM, ~10 KB MicroPython heap), running
# MicroPython 1.9.2 (Debian's firmware-microbit-micropython; the QEMU "microbit" machine).
# Constants only: the worker imports this file on the board as `board`, host tools read it
# with ast.literal_eval (never exec). The filesystem is flat (~15 KB): every file lands by
# its base name, this one as board.py. No .mpy loading, no os.stat; source compiles at about
# 2.2 B of RAM per byte (comments are free). Only the worker goes on: firmware/shell.py and
# firmware/workload.py (about 2 KB of heap each once imported) do not fit beside the library
# and the worker; drive worker.Worker directly at the REPL.
NAME = "microbit"
CAPACITY = 32  # queue slots: 256 bytes of arrays
HEARTBEAT = "microbit"  # the centre pixel of the 5x5 LED display (microbit.display)
MPY = False
FILES = [
    "lib/ticketq_heap.py",
    "lib/ticketq.py",
    "lib/ticketq_ticks.py",
    "lib/ticketq_wait.py",
    "firmware/worker.py",
    "boards/microbit/board.py",
]

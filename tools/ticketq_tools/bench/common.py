"""What every part of the interpreter benchmark shares: where it is (HERE: tools/bench, with the
kernels that run on the targets), the implementations and interpreters it compares, their order.
"""
import os
import sys


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
HERE = os.path.join(ROOT, "tools", "bench")  # the kernels, workers and results.json
sys.path[0:0] = [HERE, os.path.join(ROOT, "tools")]
import shake  # noqa: E402

NAMES = {
    "tq": "ticketq.TicketQueue",
    "tqb": "ticketq, bytecode path forced",
    "tqv": "ticketq, viper class",
    "hqt": "heapq, (class, seq, id) tuples",
    "hqi": "heapq, packed ints (C floor)",
    "pq": "queue.PriorityQueue",
    "sl": "sorted list + insort",
    "ph": "pure-Python heap of tuples",
}
TITLES = {
    "cpython": "CPython",
    "vm": "MicroPython WebAssembly VM",
    "unix": "MicroPython unix port (32-bit)",
    "unix-c": "MicroPython unix port (32-bit), C core loaded",
    "microbit": "micro:bit v1, emulated",
}
# MicroPython's QEMU firmware of ticketq mcu, ticketq frozen with viper=True: --interp name
# -> ticketq mcu target
QEMU = {"qemu-armv6m": "armv6m", "qemu-armv7m": "armv7m", "qemu-rv32": "rv32imc"}
TITLES.update({
    "qemu-armv6m": "Cortex-M0 (armv6m, RP2040's ISA) under QEMU",
    "qemu-armv7m": "Cortex-M3 (armv7m, RP2350/stm32's ISA) under QEMU",
    "qemu-rv32": "RISC-V rv32imc (ESP32-C3's ISA) under QEMU",
})
# The same firmware with ticketq's C core compiled in (ticketq mcu's frozen-c route, the user
# C module _ticketq): ticketq's default is then the C path, beside the firmware's C heapq
QEMU_C = {"qemu-armv6m-c": "armv6m", "qemu-armv7m-c": "armv7m", "qemu-rv32-c": "rv32imc"}
QEMU.update(QEMU_C)
for _i in QEMU_C:
    TITLES[_i] = TITLES[_i[:-2]].replace(" under QEMU", ", C core built in, under QEMU")
# unix-c: the same port with the C core's x86 .mpy on its path (docs/c-core.md): ticketq's
# default is then the C path, beside the viper and bytecode classes and heapq, in one process
ORDER = ("cpython", "vm", "unix", "unix-c", "microbit") + tuple(QEMU)
MICROPYTHONS = ("vm", "unix", "unix-c", "microbit") + tuple(QEMU)


def fills(cap):
    return (0, cap // 2, cap - 1)


# ticketq's Raspberry Pi Pico firmware (ticketq firmware rp2) in rp2040js, timed in emulated
# RP2040 cycles (ticketq_tools.bench.pico): the last target
TITLES["pico"] = "Raspberry Pi Pico (RP2040) in rp2040js"
# ... and the same firmware with ticketq's C core built in (ticketq firmware rp2 --user-c-module
# c/micropython.cmake): the default is then the C path, beside the viper and bytecode classes
TITLES["pico-c"] = "Raspberry Pi Pico (RP2040) in rp2040js, C core built in"
ORDER += ("pico", "pico-c")
MICROPYTHONS += ("pico", "pico-c")
PICOS = ("pico", "pico-c")

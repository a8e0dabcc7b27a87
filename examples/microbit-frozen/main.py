# main.py for a micro:bit on ticketq's own firmware (ticketq firmware microbit): the library,
# the worker and the board profile are frozen in flash, so this file is all the board
# compiles at boot. One import a line, each module after those it imports: the 1.8 KB C
# stack allows only a few nested imports (docs/microbit.md).
import ticketq
import ticketq.ticks as ticks
import worker
from microbit import display


def show(name):  # a job: the class digit of its name on the display
    display.show(name[-1])


w = worker.Worker(32)  # 32 slots, as boards/microbit-frozen says
for name, cls in (("low-0", 0), ("high-2", 2), ("critical-3", 3), ("normal-1", 1), ("high-2", 2)):
    w.submit(name, cls, show)
w.run(2000)  # runs the five in class order, then idles until 2 s have passed
display.clear()

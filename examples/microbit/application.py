# application: a worked example for the BBC micro:bit v1, started at boot by the main.py
# beside it. docs/microbit.md says why main.py is written the way it is, and how much room
# an application has (tests/test_microbit_boot.py boots this one, and boots it again with
# 0.5 KB less heap free).
#
# Five jobs of mixed priority classes (LOW 0 .. CRITICAL 3) go into a TicketQueue; the loop
# pops them in order (higher class first, first in first out within a class), shows each
# one's class on the 5x5 display and prints a line on the serial port, then the schedule's
# digest. A real application would loop for ever, pushing from its sensors, buttons or
# radio as they report, and popping the most urgent job each time round.
import ticketq
from microbit import display, sleep

q = ticketq.TicketQueue(8)
for job, cls in ((1, 0), (2, 2), (3, 0), (4, 3), (5, 2)):
    q.push(job, cls)
while q:
    job = q.pop()
    display.show(q.last_priority)
    print("job", job, "class", q.last_priority, "seq", q.last_seq)
    sleep(300)
display.clear()
print("done: digest %08x" % q.digest)

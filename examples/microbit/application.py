# application: a worked example for the BBC micro:bit v1, started at boot by the main.py
# beside it. docs/microbit.md says why main.py is written the way it is, and how much room
# an application has: this one is under 0.5 KB once stripped, about what fits beside the
# library, Deadline and pop_until when all of them are compiled on the board.
#
# Five jobs of mixed priority classes (LOW 0 .. CRITICAL 3) go into a TicketQueue; the loop
# pops them in order (higher class first, first in first out within a class), shows each
# one's class on the 5x5 display and prints a line on the serial port. When the queue stays
# empty for 500 ms (a Deadline on the tick counter, never the wall clock) it prints the
# schedule's digest and stops; a real application would loop for ever and push from its
# sensors, buttons or radio.
import ticketq
from ticketq_deadline import Deadline
from ticketq_wait import pop_until, Timeout
from microbit import display, sleep

q = ticketq.TicketQueue(8)
for job, cls in ((1, 0), (2, 2), (3, 0), (4, 3), (5, 2)):
    q.push(job, cls)
d = Deadline(None)  # re-armed in the loop: no allocation
while True:
    d.rearm(500)
    try:
        job = pop_until(q, d)
    except Timeout:
        break
    display.show(q.last_priority)
    print("job", job, "class", q.last_priority, "seq", q.last_seq)
    sleep(300)
print("done: digest %08x" % q.digest)

# lanes_replay: the replay behind ticketq lanes-demo, shared by CPython and the MicroPython
# VM (tools/islands_vm.mjs), so both compute the same thing from the same few integers.
# MicroPython 1.9 syntax; every integer stays a small int (-2**30 <= v < 2**30).
#
# Two sources push jobs of one class (NORMAL, telemetry) into one queue; a worker pops one
# job per tick. The chatty source (a sensor that dumps its buffer) pushes bursts; the quiet
# one (a door contact, say) one job every few ticks. The same arrivals go to
#   fifo   TicketQueue: strict priority, FIFO in a class, one bound for everything;
#   lanes  LaneQueue: the chatty source in lane 0, the quiet one in lane 1 (weights 1:1),
#          each lane with its own bound.
# A push refused with QueueFull (or LaneFull) is counted, not retried. Time is the tick
# number, a logical clock: nothing here reads a clock.
from ticketq import TicketQueue, QueueFull, NORMAL
from ticketq.lanes import LaneQueue
from rng import Rng  # tests/rng.py: on sys.path beside lib/ (ticketq lanes-demo, the VM)

CHATTY = 0
QUIET = 1


def arrivals(seed, ticks, period, burst, every):
    # [(tick, source), ...] in push order: every `period` ticks (jittered) the chatty source
    # pushes a burst of burst/2 .. burst jobs, a few per tick; the quiet source one job every
    # `every` ticks (jittered by a tick).
    r = Rng((seed & 0x3FFFFFFF) ^ 0x5DEECE or 1)
    out = []
    nxt = 3
    left = 0
    for t in range(ticks):
        if t >= nxt:
            left = burst // 2 + r.next(burst - burst // 2 + 1)
            nxt = t + period - 2 + r.next(5)
        k = 0
        while left and k < 6:  # a burst arrives at up to 6 jobs a tick
            out.append((t, CHATTY))
            left -= 1
            k += 1
        if t % every == every - 1 - r.next(2):
            out.append((t, QUIET))
    return out


def replay(q, arr, ticks, lanes):
    # Job i (1-based, in push order) of source arr[i-1][1] is pushed at its tick, then the
    # worker pops once a tick. Returns (pop order of ids, [pops before each job's pop, or -1
    # if refused], digest).
    order = []
    wait = []
    j = 0
    pops = 0
    for t in range(ticks):
        while j < len(arr) and arr[j][0] == t:
            j += 1
            try:
                if lanes:
                    q.push(j, NORMAL, arr[j - 1][1])
                else:
                    q.push(j, NORMAL)
                wait.append(pops)
            except QueueFull:
                wait.append(-1)
        if len(q):
            i = q.pop()
            order.append(i)
            wait[i - 1] = pops - wait[i - 1]
            pops += 1
    while len(q):  # drain what is left after the last tick
        i = q.pop()
        order.append(i)
        wait[i - 1] = pops - wait[i - 1]
        pops += 1
    return order, wait, q.digest


def simulate(seed, ticks=240, capacity=32, period=40, burst=40, every=6, chatty_cap=24):
    # {"fifo": (order, waits, digest), "lanes": (...)} for the same arrivals.
    arr = arrivals(seed, ticks, period, burst, every)
    fifo = replay(TicketQueue(capacity), arr, ticks, False)
    lanes = replay(LaneQueue(capacity, [1, 1], [chatty_cap, capacity - chatty_cap]), arr,
                   ticks, True)
    return arr, fifo, lanes


def report(seed, ticks=240, capacity=32, period=40, burst=40, every=6, chatty_cap=24):
    # The lines the VM prints and ticketq lanes-demo parses.
    arr, fifo, lanes = simulate(seed, ticks, capacity, period, burst, every, chatty_cap)
    for name, res in (("fifo", fifo), ("lanes", lanes)):
        print("%s %d %s" % (name, res[2], ",".join([str(x) for x in res[1]])))

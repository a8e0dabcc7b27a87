# AsyncTickets (lib/ticketq/aio.py): a worker coroutine waits for tickets with a deadline
# while a producer pushes them; the worker takes the highest class first and stops after
# 200 ms with nothing to do. Runs as it is on CPython and on the MicroPython unix port:
#   PYTHONPATH=lib python3 examples/async_tickets.py
#   MICROPYPATH=.frozen:lib ../shared/micropython/micropython examples/async_tickets.py
# (.frozen first: that build's asyncio is frozen in.) Not on the WebAssembly VM (tools/mpvm,
# tools/run --exec): its asyncio has no run(), the host drives the loop (docs/deadlines.md).
import asyncio

import ticketq
from ticketq.aio import AsyncTickets
from ticketq.ticks import Deadline
from ticketq.ticks import Timeout


async def worker(tickets):
    while True:
        try:
            job = await tickets.pop_until(Deadline(200))  # ms
        except Timeout:
            print("worker: nothing for 200 ms, stopping")
            return
        print("worker: job", job)


async def main():
    tickets = AsyncTickets(ticketq.TicketQueue(8))
    task = asyncio.create_task(worker(tickets))
    await asyncio.sleep(0.05)  # the worker is waiting on an empty queue
    tickets.push(101, ticketq.LOW)
    tickets.push(102, ticketq.HIGH)  # pushed second, taken first
    print("pushed 101 LOW, 102 HIGH")
    await asyncio.sleep(0.05)
    tickets.push(103, ticketq.NORMAL)
    print("pushed 103 NORMAL")
    await task


asyncio.run(main())

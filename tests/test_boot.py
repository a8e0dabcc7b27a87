# How a person starts on a board: `import ticketq` at the REPL. On the micro:bit
# (MicroPython 1.9.2, ~10 KB heap) that only works because ticketq.py compiles
# ticketq_heap before ticketq_queue, and only while the parts stay small: a new
# identifier in the library has been enough to break it, so it is tested on the board.


def test_import_ticketq_directly():
    import ticketq

    q = ticketq.TicketQueue(32)
    q.push(7, ticketq.HIGH)
    assert q.pop() == 7 and q.last_priority == ticketq.HIGH

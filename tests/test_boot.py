# The first thing a person does on a board: import ticketq, make a queue, use it. On a
# board, ticketq devtest also does it the way a person at the REPL does, before any test
# module is there: one `import ticketq` command after a soft reset and 256 B of their own
# objects (on the micro:bit v1, ~10 KB heap, the import that needs the most free heap).
import ticketq


def test_import_ticketq_and_use_it():
    q = ticketq.TicketQueue(32)
    q.push(7, ticketq.HIGH)
    assert q.pop() == 7 and q.last_priority == ticketq.HIGH
    assert isinstance(q, ticketq.TicketQueue) and issubclass(ticketq.QueueFull, Exception)
    # ticketq's docstring, "Hot paths": no viper on the micro:bit and the WebAssembly VM
    import sys
    assert ticketq.PATH == "bytecode" or sys.platform not in ("microbit", "webassembly")

# The module names of 0.1.0 before issue 23 still import, for one release (CHANGELOG,
# "Deprecated"): ticketq_heap and ticketq_base re-export ticketq_core's objects, the very
# same ones `ticketq` exports, so old code catching tqcore.QueueFull still catches
# what ticketq's queue raises. Runs on every interpreter (tests/mprun.py).
import ticketq
import ticketq.core as tqcore
import ticketq_core
import ticketq.core as core
from support import raises


def test_old_module_names_give_the_same_objects():
    assert tqcore.QueueFull is ticketq.QueueFull is ticketq_core.QueueFull
    assert tqcore.QueueEmpty is ticketq.QueueEmpty is ticketq_core.QueueEmpty
    assert tqcore.QueueBase is ticketq.QueueBase is ticketq_core.QueueBase
    for name in ("up", "down", "delete", "oldest", "promote", "renumber", "_int"):
        assert getattr(ticketq_heap, name) is getattr(ticketq_core, name), name
    q = ticketq.TicketQueue(1)
    q.push(7, ticketq.HIGH)
    e = raises(tqcore.QueueFull, q.push, 8, ticketq.LOW)
    assert isinstance(e, ticketq.QueueFull) and len(q) == 1
    assert q.pop() == 7
    raises(tqcore.QueueEmpty, q.pop)
    assert isinstance(q, tqcore.QueueBase)

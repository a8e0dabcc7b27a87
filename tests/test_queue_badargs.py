# Bad arguments: a clear TypeError or ValueError, and the queue exactly as it was.
from ticketq import TicketQueue, LOW, HIGH
from qcheck import snapshot, check_heap
from support import raises, IS_MICROPYTHON


def used():
    # A queue with history (a pop, the sequence at 43), so "unchanged" means something.
    q = TicketQueue(4, first_seq=40)
    for i in (1, 2, 3):
        q.push(i, HIGH if i == 2 else LOW)
    q.pop()
    return q


def test_bad_priority():
    q = used()
    before = snapshot(q)
    for p in (-1, 4, 99, 2 ** 40):
        raises(ValueError, q.push, 7, p)
    for p in ("1", 1.0, None, [1]):
        raises(TypeError, q.push, 7, p)
    assert snapshot(q) == before


def test_bad_job_id():
    q = used()
    before = snapshot(q)
    for i in (-1, 0x40000000, 2 ** 64):
        raises(ValueError, q.push, i, LOW)
        raises(ValueError, q.remove, i)
    for i in ("7", 7.0, None):
        raises(TypeError, q.push, i, LOW)
        raises(TypeError, q.remove, i)
    assert snapshot(q) == before
    assert q.push(0x3FFFFFFF, LOW) == 43  # the largest id is fine
    check_heap(q)


def test_bad_constructor_arguments():
    raises(ValueError, TicketQueue, 0)
    raises(ValueError, TicketQueue, -3)
    raises(TypeError, TicketQueue, 2.5)
    raises(TypeError, TicketQueue, "8")
    raises(ValueError, TicketQueue, 4, -1)
    raises(ValueError, TicketQueue, 4, 0x40000000)
    raises(ValueError, TicketQueue, 4, 0, -1)
    raises(TypeError, TicketQueue, 4, 0, None)


def test_bools_are_ints_on_every_interpreter():
    # MicroPython's isinstance(True, int) is False; the queue treats bools as ints anyway.
    q = TicketQueue(True, False, False)
    assert q.capacity == 1 and q.push(True, True) == 0
    assert q.remove(True) and not q.remove(False)
    raises(ValueError, q.push, True, 4)


class Num(int):
    pass


def test_int_subclasses_are_ints_everywhere_in_the_api():
    # ticketq.pyi, "Integers": an int subclass (an IntEnum member on CPython) counts as its
    # int value in every method, on every interpreter and both hot paths. MicroPython once
    # took an int-subclass id in push that remove refused with an interpreter message, and
    # failed push(8, Num(1)) with "unsupported types for __rsub__".
    q = TicketQueue(Num(4), first_seq=Num(0), aging=Num(0))
    assert q.capacity == 4 and type(q.capacity) is int
    assert q.push(Num(7), Num(2)) == 0 and q.push(8, Num(1)) == 1 and q.push(Num(9), 0) == 2
    assert q.remove(Num(7)) is True and q.remove(Num(7)) is False and q.peek() == 8
    assert q.pop() == 8 and q.last_priority == 1 and type(q.last_priority) is int
    e = raises(ValueError, q.push, 9, Num(4))  # out of range: ValueError, not TypeError
    assert "priority" in str(e) and len(q) == 1
    e = raises(ValueError, q.push, Num(-1), 0)
    assert "job id" in str(e) and len(q) == 1
    check_heap(q)


def test_the_int_rule_names_the_argument():
    # The library's own messages, whatever the interpreter would have said.
    q = used()
    before = snapshot(q)
    for args, what in (((7, "2"), "priority"), (("7", 2), "job id"), ((7, None), "priority"),
                       ((7.0, 2), "job id"), ((Num(7), "2"), "priority"), (("7", Num(2)), "job id")):
        e = raises(TypeError, q.push, args[0], args[1])
        assert str(e) == what + " must be int", (args, str(e))
    e = raises(TypeError, q.remove, 7.0)
    assert str(e) == "job id must be int"
    e = raises(TypeError, TicketQueue, 4, "0")
    assert str(e) == "first_seq must be int"
    assert snapshot(q) == before


def test_bad_arguments_under_heap_lock_leave_the_queue_as_it_was():
    # ticketq.pyi: under heap_lock a bad argument raises MemoryError instead of its
    # TypeError/ValueError (the message cannot be built); the queue is unchanged all the
    # same. The heap is unlocked before anything is asserted (an exception escaping under
    # the lock can hang the WebAssembly VM).
    try:
        from micropython import heap_lock, heap_unlock
    except ImportError:
        from support import skip
        skip("needs micropython.heap_lock (MicroPython only)")
    q = used()
    before = snapshot(q)
    got = []
    for args in ((-1, LOW), (1, 4), (1, -1), (0x40000000, LOW)):
        heap_lock()
        try:
            try:
                q.push(args[0], args[1])
                got.append(None)
            except MemoryError:
                got.append("MemoryError")
            except (TypeError, ValueError):
                got.append("checked")
        finally:
            heap_unlock()
    assert None not in got, got
    assert snapshot(q) == before


def test_the_int_rule_in_lanes():
    # LaneQueue follows the same rule: int subclasses count as their value in the
    # constructor, push (id, class and lane), remove and lane_len (MicroPython once raised
    # "unsupported types for __rsub__" and "__radd__" from push).
    from ticketq.lanes import LaneQueue

    q = LaneQueue(Num(8), [Num(1), 2], lane_capacity=Num(4), first_seq=Num(5), aging=Num(0))
    assert q.capacity == 8 and q.weights == (1, 2) and q.lane_capacity == (4, 4)
    assert q.push(Num(5), Num(2), Num(1)) == 5 and q.push(6, 1, Num(0)) == 6 and q.push(Num(7), 3) == 7
    assert q.lane_len(Num(1)) == 1 and q.remove(Num(5)) is True and q.lane_len(True) == 0
    assert [q.pop(), q.pop()] == [7, 6] and type(q.last_priority) is int
    e = raises(TypeError, q.push, 1, "2", 0)
    assert str(e) == "priority must be int"
    e = raises(ValueError, q.push, 1, 2, Num(2))
    assert "lane" in str(e) and len(q) == 0


class U8:
    # An int-like that is no int, as numpy's uint8 on CPython: it shifts, negates and adds
    # (wrapping at 8 bits) and converts through __index__. Not an int (ticketq.pyi,
    # "Integers"): push must refuse it as remove does, not take it as another class (-3
    # wraps to 253) or raise after the ticket was half stored.
    def __init__(self, v):
        self.v = v & 255

    def __index__(self):
        return self.v

    def __int__(self):
        return self.v

    def __bool__(self):
        return self.v != 0

    def __rshift__(self, n):
        return U8(self.v >> int(n))

    def __lshift__(self, n):
        return U8(self.v << int(n))

    def __neg__(self):
        return U8(-self.v)

    def __add__(self, o):
        return U8(self.v + int(o))

    __radd__ = __add__

    def __rsub__(self, o):
        return U8(int(o) - self.v)


def test_an_int_like_that_is_no_int_is_refused_by_push_as_by_remove():
    q = used()
    before = snapshot(q)
    for p in (U8(3), U8(1)):
        raises(TypeError, q.push, 7, p)
    raises(TypeError, q.push, U8(7), LOW)
    raises(TypeError, q.remove, U8(7))
    assert snapshot(q) == before
    check_heap(q)


def test_an_int_like_that_is_no_int_is_refused_by_lanes_push():
    # The same for LaneQueue.push (1 - U8(3) wraps to 254: it was queued in the wrong class).
    from ticketq.lanes import LaneQueue

    q = LaneQueue(4, [1, 1], 4, first_seq=40)
    q.push(1, LOW, 1)
    before = snapshot(q) + (q.lane_len(0), q.lane_len(1))
    for p in (U8(3), U8(1)):
        raises(TypeError, q.push, 7, p, 0)
    raises(TypeError, q.push, U8(7), LOW, 0)
    assert snapshot(q) + (q.lane_len(0), q.lane_len(1)) == before
    assert q.push(2, HIGH, 0) == 41  # no sequence number spent

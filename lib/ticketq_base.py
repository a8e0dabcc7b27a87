# ticketq_base: the cold half of ticketq.TicketQueue (construction, clear, full, remove,
# repr) and the two exceptions. Documentation: the docstrings below (help(), editors; the
# .pyi stubs carry the types). mpy-cross and freezing drop them, tools/deploy.py strips them
# for a board that compiles source.
#
# Why a separate module: a BBC micro:bit v1 (MicroPython 1.9.2, ~10 KB heap) compiles a
# whole module in RAM before running it, and needs about three times its stripped size free
# to do so. With the whole class in one module, `import ticketq` needed nearly all of the
# heap and failed after any earlier REPL command; split in three modules (ticketq, the
# heap in ticketq_heap, this one) it still imports after `from microbit import *` and a
# few hundred bytes of the user's objects (over the raw REPL, as tools/devtest.py checks
# it on the board with 256 B; the interactive REPL keeps ~300 B more for itself). The hot
# path (push, pop, peek, len) is in ticketq.py, the subclass, so its method lookups stop
# at the first class dictionary.
from array import array
from ticketq_heap import delete, oldest, _int

# Plain numbers, no const() here: each name would cost this module RAM on a micro:bit.
#   0x3FFFFFFF  2**30 - 1, the largest sequence number and job id
#   0x20000000  2**29, the internal sequence limit (ticketq.py)
_DIG0 = 0x2A5F0C3  # the digest of an empty schedule (tests compare with it)


class QueueFull(Exception):
    """Raised by push on a full queue; the queue is unchanged (no sequence number spent).

    Backpressure: even a CRITICAL ticket cannot jump a full queue. On MicroPython a fresh
    instance is raised while the heap can allocate, and one preallocated instance while
    ``micropython.heap_lock()`` is in force, so raising never allocates under the lock and
    no instance's traceback grows without bound.
    """
    pass


class QueueEmpty(Exception):
    """Raised by pop and peek on an empty queue; raised like QueueFull (no allocation).
    """
    pass


_FULL = QueueFull("ticket queue full")
_EMPTY = QueueEmpty("ticket queue empty")


def _err(e):
    # MicroPython appends to an exception's traceback on every raise, so one instance raised
    # forever grows without bound. A fresh instance (collected after use) avoids that; under
    # heap_lock the allocation fails and the preallocated instance is raised instead, whose
    # traceback cannot grow then either.
    try:
        return type(e)(e.args[0])
    except MemoryError:
        return e


class QueueBase:
    """Not for use on its own: ticketq.TicketQueue adds push, pop, peek and len. The fields
    (_k, _d, _n, _nxt, _nb, _lim: the sequence numbers) are explained there.
    """
    def __init__(self, capacity, first_seq=0, aging=0):
        """Allocate all storage: 8 bytes a slot, two arrays, nothing more ever.

        capacity: 1 <= capacity <= 2**24 slots (RAM is the real bound: 32 slots = 256 B).
        first_seq: the sequence number of the first push, 0 <= first_seq < 2**30. Lets a
            board that restores or mirrors a queue continue its sequence.
        aging: 0 (default, strict priority) or 1 <= N <= 2**30 - 1: every N pops, the
            oldest queued ticket (pushed first) below CRITICAL moves up one class (keeping
            its sequence number).

        Raises TypeError for a non-int, ValueError for a value out of range (see
        "Integers" in the module doc: bools and int subclasses count as their value).
        """
        capacity = _int(capacity, 1, 0x1000000, "capacity")
        first_seq = _int(first_seq, 0, 0x3FFFFFFF, "first_seq")
        aging = _int(aging, 0, 0x3FFFFFFF, "aging")
        self.capacity = capacity
        self.aging = aging
        self._k = array("i", range(capacity))
        self._d = array("i", range(capacity))
        self._lim = 0x20000000  # tests narrow it to wrap the internal counter in a few pushes
        self._nb = first_seq - 0x3FFFFFFF - 1  # both small ints: 2**30 is not one
        self._nxt = 0
        self.trace = None
        self.clear()

    def clear(self):
        # Empties the queue and restarts the digest and aging count; the sequence goes on
        # (it is a logical clock: it never goes back).
        """Drop every ticket; start a new schedule: ``digest`` back to its empty value,
        ``last_priority`` and ``last_seq`` back to -1, the aging count restarted. The
        sequence goes on (a logical clock never goes back): the next push gets the number
        after the last one handed out. O(1); no allocation.
        """
        self._n = 0
        self._left = self.aging
        self.digest = _DIG0
        self.last_priority = -1
        self.last_seq = -1

    def full(self):
        """True when ``len(q) == capacity``: the next push raises QueueFull.
        """
        return self._n >= self.capacity

    def remove(self, job_id):
        # The oldest ticket with this id: O(n) search, O(log n) repair.
        """Remove the oldest queued ticket (pushed first) with this job id.

        Returns True if one was removed, False if none is queued. The ticket that fills the
        hole is sifted up or down as it needs. Raises TypeError/ValueError for an id that
        push would refuse (queue unchanged). O(n) search + O(log n) repair; no allocation.
        """
        job_id = _int(job_id, 0, 0x3FFFFFFF, "job id")
        j = oldest(self._k, self._d, self._n, job_id)
        if j < 0:
            return False
        delete(self._k, self._d, self._n, j)
        self._n -= 1
        return True

    def __repr__(self):
        """``<TicketQueue n/capacity CRITICAL=c HIGH=h NORMAL=m LOW=l>`` (allocates).
        """
        c = [0, 0, 0, 0]
        for j in range(self._n):
            c[1 - (self._k[j] >> 29)] += 1
        return "<TicketQueue %d/%d CRITICAL=%d HIGH=%d NORMAL=%d LOW=%d>" % (
            self._n, self.capacity, c[3], c[2], c[1], c[0])

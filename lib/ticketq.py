# ticketq: a clock-free, preallocated priority queue of integer job tickets.
# Full documentation (shapes, ranges, errors, complexity) is in ticketq.pyi; run-time
# docstrings are kept out because a micro:bit keeps them in RAM, comments cost nothing.
#
# A ticket is (job id, priority class, sequence number). The queue numbers tickets itself
# at push time; no clock is ever read. Order: higher class first, then pushed first.
# Storage: two array('i') of `capacity` slots (8 bytes a slot) allocated in __init__, kept
# as a binary heap by ticketq_heap, where the key layout and the invariant are stated.
#
# Three modules, so that each compiles on a BBC micro:bit v1 (see ticketq_base.py): this
# one (the hot path: push, pop, peek, len), ticketq_heap (the heap on two arrays, and the
# argument checker) and ticketq_base (the exceptions, construction, clear, full, remove,
# repr). This one compiles first, while the most heap is free, then the heap and then the
# base, which imports the heap already there: a chain of nested imports three deep would
# overflow the micro:bit's 1.8 KB C stack. (Measured there: the other orders and splits
# tried need more free heap.)
#
# Sequence numbers: the one seen outside is (first_seq + pushes) mod 2**30, derived from the
# internal one s (0 <= s < _lim = 2**29) as s + _nb where _nb = base - 2**30 is negative, so
# the sum never leaves the small-int range. When the internal counter reaches _lim the
# queued tickets are renumbered in place (ticketq_heap.renumber), keeping their order.
#
# Hot paths (push, pop, peek, len, and remove in ticketq_base) allocate nothing: no tuples,
# slices, closures, formatting, or ints outside -2**30 <= v < 2**30. Errors are raised as a
# fresh instance when the heap allows it and as a preallocated one when it is locked
# (ticketq_base._err).
from ticketq_heap import up, down, promote, renumber, _int, const  # const: CPython's stand-in
from ticketq_base import QueueBase, QueueFull, QueueEmpty, _FULL, _EMPTY, _err

__version__ = "0.1.0"  # as package.json, manifest.py and pyproject.toml (tests/test_version.py)

LOW = const(0)
NORMAL = const(1)
HIGH = const(2)
CRITICAL = const(3)

_MASK = const(0x3FFFFFFF)  # 2**30 - 1: sequence numbers and ids are 30-bit
_SMASK = const(0x1FFFFFFF)  # internal sequence bits of a key


class TicketQueue(QueueBase):
    def __len__(self):
        return self._n

    def push(self, job_id, priority):
        try:
            # p: out of range, negative, or not an int. An int-like that shifts but is no int
            # (numpy's uint8 on CPython) has a sum that is no int: without that test it was
            # queued in the wrong class (-uint8(3) wraps) or raised halfway through the push.
            # Bools and int subclasses add up to an int (else they take the checker's way).
            p = job_id >> 30 or priority >> 2 or type(job_id + priority) is not int
        except TypeError:
            p = 1
        if p:
            _int(job_id, 0, _MASK, "job id")  # raises the specific error
            _int(priority, 0, 3, "priority")
        n = self._n
        if n >= self.capacity:
            raise _err(_FULL)
        # The free slot takes the id first and the class is shifted before anything changes.
        # Bools and int subclasses pass the checks and work as their int values from here.
        self._d[n] = job_id
        p = (-priority + 1) << 29  # not 1 - priority: MicroPython's int - int subclass fails
        s = self._nxt
        if s >= self._lim:
            # Keep tickets from the last quarter of the range exact; pack older ones.
            w = renumber(self._k, n, s - (self._lim >> 2))
            s -= w
            w += self._nb
            self._nb = w if w < 0 else w - _MASK - 1
        self._nxt = s + 1
        self._n = n + 1
        up(self._k, self._d, n, p + s, job_id)
        s += self._nb
        return s if s >= 0 else s + _MASK + 1

    def peek(self):
        if not self._n:
            raise _err(_EMPTY)
        i = self._d[0]
        return i if i >= 0 else ~i

    def pop(self):
        n = self._n - 1
        if n < 0:
            raise _err(_EMPTY)
        k = self._k
        d = self._d
        key = k[0]
        i = d[0]
        self._n = n
        if n:
            down(k, d, n, 0, k[n], d[n])
        c = 1 - (key >> 29)
        s = (key & _SMASK) + self._nb
        if s < 0:
            s = s + _MASK + 1
        self.last_priority = c
        self.last_seq = s
        p = i < 0
        if p:
            i = ~i
        # Schedule digest: rotate left 5 within 30 bits, fold in the id, rotate again, fold
        # in sequence and class. Masking before each shift keeps every value a small int.
        x = self.digest
        x = ((x & 0x1FFFFFF) << 5 | x >> 25) ^ i
        self.digest = ((x & 0x1FFFFFF) << 5 | x >> 25) ^ s ^ c << 28
        if self.trace is not None:
            self.trace.record(i, c, s, p)
        if self.aging:
            self._left -= 1
            if self._left <= 0:
                self._left = self.aging
                promote(k, d, n)
        return i


# The hot path: viper where the port compiles it (ticketq_viper), this bytecode class where
# it does not. PATH says which ("viper" or "bytecode"). To force the bytecode path, block
# the module before the first import: sys.modules["ticketq_viper"] = None.
# Any failure to load it keeps the bytecode path, not only ImportError (no module: the
# micro:bit, CPython): SyntaxError or NotImplementedError (no emitter: the VM), ValueError
# (a corrupt or foreign .mpy), MemoryError (compiling it). (PATH comes from the module, not
# from a `PATH = "viper"` line here: that one costs the micro:bit's `import ticketq` 96 B.
# And a tuple, redundant as it is: `except Exception:` compiles a few bytes smaller, which
# moved the micro:bit's heap layout so that test_queue_renumber no longer compiled there,
# measured with tools/devtest.py --emulate microbit; this keeps the old layout.)
PATH = "bytecode"
try:
    from ticketq_viper import TicketQueue, PATH, WHY
except (ImportError, Exception) as e:
    WHY = str(e)  # why not viper (None when it is): its import's error, self-check included

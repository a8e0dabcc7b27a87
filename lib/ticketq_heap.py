# ticketq_heap: the binary heap under ticketq.TicketQueue, as functions on its two arrays
# (as CPython's heapq works on a list). A separate module because a BBC micro:bit v1
# compiles a module only with about three times its stripped size of heap free: ticketq.py
# and ticketq_base.py keep the class, this one the mechanics (and, at the end, the argument
# checker the class uses, for the micro:bit's sake: see _int).
#
# Slots 0 .. n-1 of two array('i'):
#   k[i]  the key,  ((1 - class) << 29) + s  where s is the internal sequence, 0 <= s < 2**29
#   d[i]  the job id, or ~id (negative) once aging promoted the ticket
# The smaller key pops first: class 3 keys lie in [-2**30, -2**29), class 0 in [2**29, 2**30),
# so every key is a small int on a 32-bit port (-2**30 <= v < 2**30) and one integer
# comparison orders two tickets. Keys are unique because live sequences are.
#
# The invariant, stated once: k[(i - 1) >> 1] < k[i] for every slot 0 < i < n.
# Sift-up and sift-down move a hole instead of swapping (one write per level).
# Nothing here allocates; every integer stays a small int.
try:
    from micropython import const
except ImportError:
    const = lambda x: x

_SMASK = const(0x1FFFFFFF)  # the internal sequence bits of a key
# (Names cost the micro:bit RAM once its qstr pool is full: every identifier of these three
# modules is interned, locals included, so they reuse a few short names.)


def up(k, d, i, key, v):
    """Put (key, v) in the hole at slot i, moving larger parents down. O(log n)."""
    while i:
        p = (i - 1) >> 1
        if k[p] < key:
            break
        k[i] = k[p]
        d[i] = d[p]
        i = p
    k[i] = key
    d[i] = v


def down(k, d, n, i, key, v):
    """Put (key, v) in the hole at slot i of n, moving smaller children up. O(log n)."""
    c = 2 * i + 1
    while c < n:
        if c + 1 < n and k[c + 1] < k[c]:
            c += 1
        if key < k[c]:
            break
        k[i] = k[c]
        d[i] = d[c]
        i = c
        c = 2 * i + 1
    k[i] = key
    d[i] = v


def delete(k, d, n, j):
    """Remove slot j of n (n - 1 remain). The last ticket fills the hole; it may belong
    above it or below it, so it is sifted whichever way it needs. O(log n).
    """
    n -= 1
    if j < n:
        if j and k[n] < k[(j - 1) >> 1]:
            up(k, d, j, k[n], d[n])
        else:
            down(k, d, n, j, k[n], d[n])


def oldest(k, d, n, v):
    """Slot of the oldest ticket (pushed first: the lowest internal sequence, which unlike
    the outside number never wraps) with job id v, or, for v < 0, of the oldest ticket
    below the top class; -1 if there is none. O(n).
    """
    j = -1
    w = 0x20000000  # above every internal sequence
    for i in range(n):
        x = d[i]
        if (x == v or ~x == v) if v >= 0 else k[i] >= -0x20000000:  # below class 3
            s = k[i] & _SMASK
            if s < w:
                w = s
                j = i
    return j


def promote(k, d, n):
    """Aging: the oldest ticket below the top class moves up one class, keeping its
    sequence, and is marked promoted (~id). Its key only gets smaller: it can only go up.
    """
    j = oldest(k, d, n, -1)
    if j >= 0:
        v = d[j]
        up(k, d, j, k[j] - 0x20000000, v if v < 0 else ~v)


def renumber(k, n, w):
    """The internal counter ran out. Tickets with sequence >= w (the recent ones) are
    shifted down together and so keep their outside numbers; older ones are packed to 0,
    1, ... in order. No comparison between two tickets changes: the heap stays valid as
    it is. Returns the shift applied to the recent ones. O(n) + O(n) per packed ticket.
    c: tickets packed so far; p: the sequence of the last one packed.
    """
    c = 0
    p = -1
    while 1:
        # The next oldest ticket below w. A packed value never exceeds the one it replaced,
        # so packed slots fall at or below `p` and are not found again.
        x = w
        j = -1
        for i in range(n):
            s = k[i] & _SMASK
            if p < s < x:
                x = s
                j = i
        if j < 0:
            break
        k[j] += c - x
        p = x
        c += 1
    w -= c
    for i in range(n):
        if k[i] & _SMASK >= c:
            k[i] -= w
    return w


def _int(v, i, j, s):
    # One checker for the int arguments of ticketq (the queue, ticketq_audit): uniform
    # messages, and a small library (each distinct message string costs RAM on a micro:bit).
    # It lives here, not in ticketq_base, because on the micro:bit the module compiled last
    # has the least room: measured, `import ticketq` then tolerates ~700 B of the user's
    # objects instead of ~500.
    # The rule (ticketq.pyi, "Integers"): any int, bool or int subclass (an IntEnum member)
    # counts as its plain int value, which is returned; MicroPython's isinstance(True, int)
    # is False, and its int subclasses do not compare with ints, hence the bool test and
    # the conversion before the range check (v + 0, as int(v) fails for an int subclass on
    # MicroPython 1.9). v: the value, i..j: its range (i None: any int), s: its name.
    if not isinstance(v, int) and type(v) is not bool:
        raise TypeError(s + " must be int")
    v = v + 0
    if i is not None and not i <= v <= j:
        raise ValueError("%s must be %d..%d" % (s, i, j))
    return v

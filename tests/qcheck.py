# Queue-specific test helpers: the invariant read from the storage, a snapshot for
# "unchanged" checks, and a small-int random stream. Apart from support.py so a test that
# needs none of this does not pay for it on a micro:bit (every module costs RAM there).


def check_heap(q):
    # The queue's invariants, read from its storage: heap order over the live slots,
    # unique sequence numbers, every key and id a small int (-2**30 <= v < 2**30).
    k = q._k
    d = q._d
    n = len(q)
    assert 0 <= n <= q.capacity
    assert len(k) == len(d) == q.capacity
    seen = set()
    for i in range(n):
        assert -0x40000000 <= k[i] <= 0x3FFFFFFF
        assert -0x40000000 <= d[i] <= 0x3FFFFFFF
        if i:
            assert k[(i - 1) >> 1] < k[i], "heap order broken at slot %d" % i
        s = k[i] & 0x1FFFFFFF
        assert s < q._nxt <= q._lim
        assert s not in seen
        seen.add(s)


class Rng:
    # xorshift on 30 bits: every intermediate stays a small int, so it runs under heap_lock
    # and gives the same stream on every interpreter.
    def __init__(self, seed=0x1234567):
        self.x = seed

    def next(self, n):
        x = self.x
        x ^= (x & 0x1FFFF) << 13
        x ^= x >> 17
        x ^= (x & 0x1FFFFFF) << 5
        self.x = x
        return x % n


def snapshot(q):
    # Everything that defines the queue's future behaviour, to prove an operation that
    # failed left it exactly as it was.
    n = len(q)
    return (list(q._k)[:n], list(q._d)[:n], q._nxt, q._nb, q._left, q.digest,
            q.last_priority, q.last_seq)

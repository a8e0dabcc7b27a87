# The queue's invariants read from its storage, and a snapshot for "left unchanged"
# checks. Kept small: on a micro:bit every byte of a test helper is heap a test lacks.


def check_heap(q):
    # Heap order over the live slots, unique sequence numbers below the counter, every
    # key and id a small int (-2**30 <= v < 2**30).
    k = q._k
    d = q._d
    n = len(q)
    assert 0 <= n <= q.capacity == len(k) == len(d)
    for i in range(n):
        assert -0x40000000 <= k[i] <= 0x3FFFFFFF and -0x40000000 <= d[i] <= 0x3FFFFFFF
        assert k[i] & 0x1FFFFFFF < q._nxt <= q._lim
        assert not i or k[(i - 1) >> 1] < k[i], "heap order broken at slot %d" % i
    assert len(set(k[i] & 0x1FFFFFFF for i in range(n))) == n


def snapshot(q):
    # Everything that defines the queue's future behaviour.
    n = len(q)
    return (list(q._k)[:n], list(q._d)[:n], q._nxt, q._nb, q._left, q.digest,
            q.last_priority, q.last_seq)


def drain(q):
    # Pop everything: [(id, class, seq), ...], checking the invariant after each pop.
    out = []
    while q:
        out.append((q.pop(), q.last_priority, q.last_seq))
        check_heap(q)
    return out

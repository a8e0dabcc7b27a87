# Helpers for the lane-queue tests on every interpreter: the LaneQueue's invariants read
# from its storage, a snapshot for "left unchanged" checks, and the fairness measure.
# Its own module, not qcheck's: the micro:bit's tests import qcheck, and every byte of a
# helper there is heap a test lacks.


def check_lanes(q):
    # Live tickets in slots 0 .. n-1; every (class, lane) list well linked, in increasing
    # sequence order, holding exactly the live tickets of that class and lane; the masks
    # and lane counts agree; every value a small int.
    n = len(q)
    L = q.lanes
    assert 0 <= n <= q.capacity
    seen = [0] * n
    cnt = [0] * L
    for c in range(4):
        m = 0
        for l in range(L):
            x = c * L + l
            j = q._hd[x]
            prev = -1
            last = -1
            while j >= 0:
                assert j < n and not seen[j], (c, l, j)
                seen[j] = 1
                assert q._pv[j] == prev and q._ln[j] == l
                assert 1 - (q._k[j] >> 29) == c
                s = q._k[j] & 0x1FFFFFFF
                assert last < s < q._nxt <= q._lim, "lane list out of order"
                last = s
                cnt[l] += 1
                prev = j
                j = q._nx[j]
            assert q._tl[x] == prev
            if prev >= 0:
                m |= 1 << l
        assert q._mk[c] == m, (c, q._mk[c], m)
        assert 0 <= q._cur[c] < len(q._tb)
    assert sum(seen) == n, "a live slot in no list"
    for l in range(L):
        assert q._cnt[l] == cnt[l] <= q.lane_capacity[l]
    for i in range(n):
        assert -0x40000000 <= q._k[i] <= 0x3FFFFFFF and -0x40000000 <= q._d[i] <= 0x3FFFFFFF


def snapshot_lanes(q):
    # Everything that defines the queue's future behaviour: the tickets of every list in
    # order (not slot numbers), the cursors, the counters.
    L = q.lanes
    lists = []
    for x in range(4 * L):
        j = q._hd[x]
        out = []
        while j >= 0:
            out.append((q._k[j], q._d[j]))
            j = q._nx[j]
        lists.append(out)
    return (lists, list(q._cur), list(q._cnt), len(q), q._nxt, q._nb, q._left, q.digest,
            q.last_priority, q.last_seq, q.last_lane)


def fair_windows(pops, lane, w, total, c):
    # pops: [(class, lane popped, lanes that had a ticket of that class just before)].
    # For every run of class-c pops at each of which `lane` had a ticket of class c, and
    # every window of k consecutive pops in it: the lane's pops, against the bound
    # floor(k * w / total) - 1. Returns (windows checked, worst margin); margin < 0 is a
    # broken bound.
    run = []
    checked = 0
    worst = 1 << 20
    for e in pops + [(c, -1, ())]:
        if e[0] != c:
            continue
        if lane in e[2]:
            run.append(1 if e[1] == lane else 0)
            continue
        for a in range(len(run)):
            got = 0
            for b in range(a, len(run)):
                got += run[b]
                k = b - a + 1
                m = got - (k * w // total - 1)
                checked += 1
                if m < worst:
                    worst = m
        run = []
    return checked, worst


def check_keyed(q):
    # A keyed LaneQueue's invariants (lib/ticketq/lanes.py, "Keyed lanes"): lane slots in
    # use are exactly those with a key, each found through the key table, the others on the
    # free stack; every (class, lane) list well linked, in sequence order, holding exactly
    # that lane's live tickets of that class; each class's ring holds exactly the lanes with
    # a ticket of that class, well linked; a lane in use has tickets; small ints throughout.
    n = len(q)
    m = q.max_lanes
    assert 0 <= n <= q.capacity and 0 <= q.lanes <= m
    used = [s for s in range(m) if q._key[s] >= 0]
    assert len(used) == q.lanes, (used, q.lanes)
    free = sorted([q._fr[i] for i in range(m - q.lanes)])
    assert free == [s for s in range(m) if q._key[s] < 0], free
    entries = [x for x in q._ht if x >= 0]
    assert sorted(entries) == used, (entries, used)
    for s in used:
        assert q._find(q._key[s]) == s
        assert 0 <= q._key[s] < 1 << 30 and 1 <= q._kw[s] <= 32767
        assert 1 <= q._lc[s] <= q.capacity
    seen = [0] * n
    for c in range(4):
        ring = []
        x = q._rh[c]
        prev = -1
        while x >= 0:
            assert x in used and x not in ring, (c, x)
            assert q._rp[c * m + x] == prev
            ring.append(x)
            prev = x
            x = q._rn[c * m + x]
        assert q._rt[c] == prev
        assert q._u[c] >= 0 and (ring or q._u[c] == 0)
        for s in range(m):
            x = c * m + s
            j = q._hd[x]
            prev = -1
            last = -1
            while j >= 0:
                assert j < n and not seen[j], (c, s, j)
                seen[j] = 1
                assert q._pv[j] == prev and q._ln[j] == s
                assert 1 - (q._k[j] >> 29) == c
                sq = q._k[j] & 0x1FFFFFFF
                assert last < sq < q._nxt <= q._lim, "lane list out of order"
                last = sq
                prev = j
                j = q._nx[j]
            assert q._tl[x] == prev
            assert (prev >= 0) == (s in ring), (c, s, ring)
    assert sum(seen) == n, "a live slot in no list"
    for s in range(m):
        k = 0
        for j in range(n):
            k += q._ln[j] == s
        assert q._cnt[s] == k and (k > 0) == (s in used), (s, k)
    for i in range(n):
        assert -0x40000000 <= q._k[i] <= 0x3FFFFFFF and 0 <= q._d[i] <= 0x3FFFFFFF


def snapshot_keyed(q):
    # Everything that defines a keyed queue's future behaviour, by key (not slot numbers):
    # each lane's settings and tickets per class, the rings in order, the turn counts.
    m = q.max_lanes
    lanes = []
    for s in range(m):
        if q._key[s] < 0:
            continue
        lists = []
        for c in range(4):
            j = q._hd[c * m + s]
            out = []
            while j >= 0:
                out.append((q._k[j], q._d[j]))
                j = q._nx[j]
            lists.append(out)
        lanes.append((q._key[s], q._kw[s], q._lc[s], q._cnt[s], lists))
    lanes.sort()
    rings = []
    for c in range(4):
        x = q._rh[c]
        r = []
        while x >= 0:
            r.append(q._key[x])
            x = q._rn[c * m + x]
        rings.append(r)
    return (lanes, rings, list(q._u), len(q), q.lanes, q._nxt, q._nb, q.digest,
            q.last_priority, q.last_seq, q.last_lane)

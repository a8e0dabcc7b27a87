# A reference model of KEYED lanes (docs/lanes.md "Keyed lanes", the lead's rule of issue 24),
# written from the rule's text and nothing else: plain Python lists, no cleverness, so a
# test can hold the fleet (fleet/keyed.lua) and the board (ticketq.lanes, keyed mode) to
# it. Host only (CPython tests); the fleet's str keys and leases are in it too. It is the
# board's reference (tests/keyedref.py: rings, turns, push, pop, remove, the digest) plus
# what the fleet adds: leases and deliveries, ceilings and pause, settings kept per key,
# str keys folded into the digest, exceptions raised.
#
#   m = KeyedModel(capacity)
#   m.push(id, cls, key) -> seq  (raises QueueFull / LaneFull / LanesFull as the rule says)
#   m.pop(lease=False) -> (id, cls, seq, key, token or None)   (QueueEmpty)
#   m.ack(token), m.release(token), m.remove(id), m.set_lane(key, w, b, c), m.pause(key) ...
from ticketq.core import QueueEmpty, QueueFull
from ticketq.lanes import LaneFull, LanesFull

from keyedref import DIG0, KeyedRef  # noqa: F401  (DIG0: the digest's start, one definition)

MASK = 0x3FFFFFFF


class LaneFullM(QueueFull):
    pass


class LanesFullM(QueueFull):
    pass


def canon(key):
    # an int key k and the str of its canonical decimal are the same lane
    if isinstance(key, str) and (key == "0" or (key[:1] in "123456789" and key.isdigit())):
        if len(key) <= 10 and int(key) <= MASK:
            return int(key)
    return key


def fold(key):
    if isinstance(key, int):
        return key
    h = 5381
    for b in key.encode("utf-8"):
        h = (h * 33 + b) % (MASK + 1)
    return h


class KeyedModel(KeyedRef):
    def __init__(self, capacity, max_lanes=None, first_seq=0, max_deliveries=0):
        self.maxdel = max_deliveries
        self.settings = {}  # key -> [w, b, c, paused]
        self.dead = []
        KeyedRef.__init__(self, capacity, max_lanes, first_seq)

    def clear(self):
        KeyedRef.clear(self)
        self.leases = {}  # token -> (key, cls, push order, id, seq)
        self.deliv = {}  # push order -> deliveries
        self.ntoken = 0
        self.last_lane = -1

    # ---- settings (the board's hooks, from the settings kept per key)
    def get(self, key):
        s = self.settings.get(key)
        return s if s is not None else [1, self.cap, self.cap, 0]

    def weight(self, key):
        return self.get(key)[0]

    def bound(self, key):
        return self.get(key)[1]

    def serviceable(self, key):
        w, b, c, p = self.get(key)
        return not p and self.lanes[key].leased < c

    def key_fold(self, key):
        return fold(key)

    # ---- rings
    def join_all(self, key):
        ln = self.lanes[key]
        for c in range(4):
            if ln.fifo[c] and key not in self.rings[c]:
                self.rings[c].append(key)

    def _change(self, key, fn):
        # a settings change: leave every ring / join at the tails as serviceability turns
        ln = self.lanes.get(key)
        was = ln is not None and self.serviceable(key)
        fn()
        if ln is not None:
            now = self.serviceable(key)
            if was and not now:
                self.leave_all(key)
            elif now and not was:
                self.join_all(key)

    def set_lane(self, key, weight=None, bound=None, ceiling=None):
        key = canon(key)
        s = list(self.get(key))

        def fn():
            for i, v in ((0, weight), (1, bound), (2, ceiling)):
                if v is not None:
                    s[i] = v
            self._store(key, s)
        self._change(key, fn)

    def _store(self, key, s):
        if s == [1, self.cap, self.cap, 0]:
            self.settings.pop(key, None)
        else:
            self.settings[key] = s

    def pause(self, key, p=1):
        key = canon(key)
        s = list(self.get(key))
        s[3] = p
        self._change(key, lambda: self._store(key, s))

    def resume(self, key):
        self.pause(key, 0)

    # ---- the queue
    def push(self, i, cls, key):
        key = canon(key)
        r = KeyedRef.push(self, i, cls, key)
        if r is QueueFull:
            raise QueueFull("ticket queue full")
        if r is LaneFull:
            raise LaneFullM(key)
        if r is LanesFull:
            raise LanesFullM(key)
        return r

    def peek(self):
        if self.head() is None:
            raise QueueEmpty("ticket queue empty")
        return KeyedRef.peek(self)

    def pop(self, lease=False):
        if self.head() is None:
            raise QueueEmpty("ticket queue empty")
        self.leasing = lease
        i, cls, seq, key = KeyedRef.pop(self)
        self.last_lane = key
        return i, cls, seq, key, self.token

    def taken(self, ln, key, cls, t):
        # the pop's lease, before the rings move (a lease can take the lane to its ceiling)
        ctr, i, seq = t
        self.token = None
        d = self.deliv.pop(ctr, 0) + 1
        if self.leasing:
            ln.leased += 1
            self.ntoken += 1
            self.token = self.ntoken
            self.leases[self.token] = (key, cls, ctr, i, seq)
            self.deliv[ctr] = d
        self.deliveries = d

    def _lease_over(self, key):
        ln = self.lanes[key]
        if ln.held() == 0:
            del self.lanes[key]
        elif self.serviceable(key):
            self.join_all(key)

    def ack(self, token):
        if token not in self.leases:
            return False
        key, cls, ctr, i, seq = self.leases.pop(token)
        self.deliv.pop(ctr, None)
        self.lanes[key].leased -= 1
        self._lease_over(key)
        return True

    def release(self, token):
        # 1: back at its sequence place; 2: dead-lettered (max_deliveries); 0: not held
        if token not in self.leases:
            return 0
        key, cls, ctr, i, seq = self.leases.pop(token)
        ln = self.lanes[key]
        ln.leased -= 1
        out = 1
        if self.maxdel and self.deliv[ctr] >= self.maxdel:
            self.dead.append((i, cls, seq, self.deliv.pop(ctr)))
            out = 2
        else:
            ln.fifo[cls].append([ctr, i, seq])
            ln.fifo[cls].sort()
        self._lease_over(key)
        return out

    def remove(self, i):
        t = self.take_out(i)
        if t is None:
            return False
        self.deliv.pop(t[0], None)
        return True

    def lane(self, key):
        key = canon(key)
        w, b, c, p = self.get(key)
        ln = self.lanes.get(key)
        q = tuple(len(f) for f in ln.fifo) if ln else (0, 0, 0, 0)
        return {"exists": ln is not None, "queued": q, "leased": ln.leased if ln else 0,
                "held": ln.held() if ln else 0, "weight": w, "bound": b, "ceiling": c,
                "paused": bool(p)}

    def queued(self):
        return sum(len(f) for ln in self.lanes.values() for f in ln.fifo)

    def check(self):
        # The rule's state invariant: R_c holds exactly the serviceable lanes with a queued
        # class-c ticket, each once; every lane holds a ticket; used_c is within the head's turn.
        for c in range(4):
            r = self.rings[c]
            assert len(set(r)) == len(r), r
            want = set(k for k, ln in self.lanes.items() if ln.fifo[c] and self.serviceable(k))
            assert set(r) == want, (c, r, want)
        for k, ln in self.lanes.items():
            assert ln.held() > 0, k

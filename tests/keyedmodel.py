# A reference model of KEYED lanes (docs/lanes.md "Keyed lanes", the lead's rule of issue 24),
# written from the rule's text and nothing else: plain Python lists, no cleverness, so a
# test can hold the fleet (fleet/keyed.lua) and the board (ticketq.lanes, keyed mode) to
# it. Host only (CPython tests); the fleet's str keys and leases are in it too.
#
#   m = KeyedModel(capacity)
#   m.push(id, cls, key) -> seq  (raises QueueFull / LaneFull / LanesFull as the rule says)
#   m.pop(lease=False) -> (id, cls, seq, key, token or None)   (QueueEmpty)
#   m.ack(token), m.release(token), m.remove(id), m.set_lane(key, w, b, c), m.pause(key) ...
from ticketq.core import QueueEmpty, QueueFull

MASK = 0x3FFFFFFF
DIG0 = 0x2A5F0C3


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


def rot(g):
    return ((g & 0x1FFFFFF) << 5) | (g >> 25)


class Lane:
    def __init__(self):
        self.fifo = [[], [], [], []]  # per class: [(counter, id, seq)] in push order
        self.leased = 0

    def held(self):
        return sum(len(f) for f in self.fifo) + self.leased


class KeyedModel:
    def __init__(self, capacity, max_lanes=None, first_seq=0, max_deliveries=0):
        self.cap = capacity
        self.max_lanes = max_lanes
        self.first = first_seq
        self.maxdel = max_deliveries
        self.counter = 0
        self.settings = {}  # key -> [w, b, c, paused]
        self.dead = []
        self.clear()

    def clear(self):
        self.lanes = {}
        self.rings = [[], [], [], []]
        self.used = [0, 0, 0, 0]
        self.leases = {}  # token -> (key, cls, counter, id, seq)
        self.deliv = {}  # counter -> deliveries
        self.digest = DIG0
        self.ntoken = 0
        self.last_lane = -1

    # ---- settings
    def get(self, key):
        s = self.settings.get(key)
        return s if s is not None else [1, self.cap, self.cap, 0]

    def serviceable(self, key):
        w, b, c, p = self.get(key)
        return not p and self.lanes[key].leased < c

    # ---- rings
    def leave(self, key, cls):
        r = self.rings[cls]
        if key in r:
            if r[0] == key:
                self.used[cls] = 0
            r.remove(key)

    def leave_all(self, key):
        for c in range(4):
            self.leave(key, c)

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
    def total(self):
        return sum(ln.held() for ln in self.lanes.values())

    def push(self, i, cls, key):
        key = canon(key)
        if self.total() >= self.cap:
            raise QueueFull("ticket queue full")
        ln = self.lanes.get(key)
        if ln is not None and ln.held() >= self.get(key)[1]:
            raise LaneFullM(key)
        if ln is None and self.max_lanes is not None and len(self.lanes) >= self.max_lanes:
            raise LanesFullM(key)
        seq = (self.first + self.counter) & MASK
        ctr = self.counter
        self.counter += 1
        if ln is None:
            ln = self.lanes[key] = Lane()
        ln.fifo[cls].append((ctr, i, seq))
        if key not in self.rings[cls] and self.serviceable(key):
            self.rings[cls].append(key)
        return seq

    def _head(self):
        for cls in (3, 2, 1, 0):
            if self.rings[cls]:
                key = self.rings[cls][0]
                return cls, key
        return None

    def peek(self):
        h = self._head()
        if h is None:
            raise QueueEmpty("ticket queue empty")
        return self.lanes[h[1]].fifo[h[0]][0][1]

    def pop(self, lease=False):
        h = self._head()
        if h is None:
            raise QueueEmpty("ticket queue empty")
        cls, key = h
        ln = self.lanes[key]
        ctr, i, seq = ln.fifo[cls].pop(0)
        self.used[cls] += 1
        token = None
        d = self.deliv.pop(ctr, 0) + 1
        if lease:
            ln.leased += 1
            self.ntoken += 1
            token = self.ntoken
            self.leases[token] = (key, cls, ctr, i, seq)
            self.deliv[ctr] = d
        if not self.serviceable(key):
            self.leave_all(key)
        elif not ln.fifo[cls]:
            self.leave(key, cls)
            self.used[cls] = 0
        elif self.used[cls] >= self.get(key)[0]:
            self.rings[cls].append(self.rings[cls].pop(0))
            self.used[cls] = 0
        if ln.held() == 0:
            del self.lanes[key]
        g = rot(self.digest) ^ i
        g = rot(g) ^ seq ^ (cls << 28)
        if fold(key):
            g = rot(g) ^ fold(key)
        self.digest = g
        self.last_lane = key
        self.deliveries = d
        return i, cls, seq, key, token

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
            ln.fifo[cls].append((ctr, i, seq))
            ln.fifo[cls].sort()
        self._lease_over(key)
        return out

    def remove(self, i):
        best = None
        for key, ln in self.lanes.items():
            for c in range(4):
                for t in ln.fifo[c]:
                    if t[1] == i and (best is None or t[0] < best[0][0]):
                        best = (t, key, c)
        if best is None:
            return False
        t, key, c = best
        ln = self.lanes[key]
        ln.fifo[c].remove(t)
        self.deliv.pop(t[0], None)
        if not ln.fifo[c]:
            self.leave(key, c)
        if ln.held() == 0:
            del self.lanes[key]
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

# The reference of keyed lanes (docs/lanes.md, "Keyed lanes"), written from the rule with
# plain lists and dicts, independently of lib/ticketq/lanes.py's storage: the model that
# test_lanes_keyed.py (every interpreter) and test_lanes_keyed_props.py (hypothesis) hold a
# keyed LaneQueue to, answer by answer. Runs on MicroPython too (no f-strings, no sets).
# tests/keyedmodel.py (the fleet's model) builds on it: leases, ceilings, pause, str keys,
# settings kept per key; the hooks it overrides are marked "hook".
from ticketq import QueueFull
from ticketq.lanes import LaneFull, LanesFull

M30 = 1 << 30
DIG0 = 0x2A5F0C3


def rotl5(x):
    return ((x << 5) | (x >> 25)) & (M30 - 1)


def fold(g, i, c, s, lane):
    # The digest's definition (docs/lanes-design.md, step 8), the key (its fold) in place of the lane.
    g = rotl5(rotl5(g) ^ i) ^ s ^ (c << 28)
    return rotl5(g) ^ lane if lane else g


class Lane:
    # fifo: per class, [push order, id, seq] in push order; leased: tickets out on a lease
    # (the fleet model's; 0 here); w, b: the board's weight and bound, which live and die
    # with the lane.
    def __init__(self, w, b):
        self.fifo = [[], [], [], []]
        self.leased = 0
        self.w = w
        self.b = b

    def held(self):
        n = self.leased
        for f in self.fifo:
            n += len(f)
        return n


class KeyedRef:
    # lanes: key -> Lane; rings: per class, a list of keys, head first; used: per class, the
    # head's pops. max_lanes None: unbounded.
    def __init__(self, capacity, max_lanes, first_seq=0):
        self.cap = capacity
        self.most = max_lanes
        self.first = first_seq
        self.pushes = 0
        self.clear()

    def clear(self):
        self.lanes = {}
        self.rings = [[], [], [], []]
        self.used = [0, 0, 0, 0]
        self.digest = DIG0
        self.last = (-1, -1, -1)  # last_priority, last_seq, last_lane

    # ---- hooks: the board's settings, every lane serviceable, int keys
    def weight(self, key):
        return self.lanes[key].w

    def bound(self, key):
        return self.lanes[key].b

    def serviceable(self, key):
        return True

    def key_fold(self, key):
        return key

    def taken(self, lane, key, c, t):
        # A ticket t just left lane `key`'s class-c list by a pop, before the ring moves.
        pass

    # ---- the queue
    def count(self):
        n = 0
        for k in self.lanes:
            n += self.lanes[k].held()
        return n

    def lane_len(self, key):
        return self.lanes[key].held() if key in self.lanes else 0

    def leave(self, key, c):
        r = self.rings[c]
        if key in r:
            if r[0] == key:
                self.used[c] = 0
            r.remove(key)

    def leave_all(self, key):
        for c in range(4):
            self.leave(key, c)

    def push(self, i, c, key):
        # The sequence number, or the exception class push must raise (nothing changes).
        if self.count() >= self.cap:
            return QueueFull
        lane = self.lanes.get(key)
        if lane is not None:
            if lane.held() >= self.bound(key):
                return LaneFull
        elif self.most is not None and len(self.lanes) >= self.most:
            return LanesFull
        else:
            lane = self.lanes[key] = Lane(1, self.cap)
        s = (self.first + self.pushes) % M30
        lane.fifo[c].append([self.pushes, i, s])
        self.pushes += 1
        if key not in self.rings[c] and self.serviceable(key):
            self.rings[c].append(key)
        return s

    def set_lane(self, key, weight=None, bound=None):
        # False when the key has no lane (the board refuses it).
        if key not in self.lanes:
            return False
        if weight is not None:
            self.lanes[key].w = weight
        if bound is not None:
            self.lanes[key].b = bound
        return True

    def head(self):
        # (class, key) of the next pop, or None.
        for c in (3, 2, 1, 0):
            if self.rings[c]:
                return c, self.rings[c][0]
        return None

    def peek(self):
        c, key = self.head()
        return self.lanes[key].fifo[c][0][1]

    def pop(self):
        # (id, class, seq, key) popped.
        c, key = self.head()
        lane = self.lanes[key]
        t = lane.fifo[c].pop(0)
        self.used[c] += 1
        self.taken(lane, key, c, t)
        if not self.serviceable(key):
            self.leave_all(key)
        elif not lane.fifo[c]:
            self.leave(key, c)
        elif self.used[c] >= self.weight(key):
            self.used[c] = 0
            self.rings[c].append(self.rings[c].pop(0))
        if not lane.held():
            del self.lanes[key]
        self.digest = fold(self.digest, t[1], c, t[2], self.key_fold(key))
        self.last = (c, t[2], key)
        return t[1], c, t[2], key

    def take_out(self, i):
        # remove's work: the ticket [push order, id, seq] of id i pushed first, out of its
        # lane (and its ring, the lane emptied), or None.
        best = None
        for key in self.lanes:
            for c in range(4):
                for t in self.lanes[key].fifo[c]:
                    if t[1] == i and (best is None or t[0] < best[0]):
                        best = (t[0], key, c, t)
        if best is None:
            return None
        _, key, c, t = best
        lane = self.lanes[key]
        lane.fifo[c].remove(t)
        if not lane.fifo[c]:
            self.leave(key, c)
        if not lane.held():
            del self.lanes[key]
        return t

    def remove(self, i):
        return self.take_out(i) is not None

    def order(self):
        # Pop order if nothing else happened: [(id, class, seq, key)] (ticketq.audit.tickets).
        out = []
        for c in (3, 2, 1, 0):
            ring = list(self.rings[c])
            q = {}
            for k in ring:
                q[k] = list(self.lanes[k].fifo[c])
            used = self.used[c]
            while ring:
                k = ring[0]
                t = q[k].pop(0)
                out.append((t[1], c, t[2], k))
                used += 1
                if not q[k]:
                    ring.pop(0)
                    used = 0
                elif used >= self.weight(k):
                    ring.append(ring.pop(0))
                    used = 0
        return out

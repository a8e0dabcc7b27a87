# The reference of keyed lanes (docs/lanes.md, "Keyed lanes"), written from the rule with
# plain lists and dicts, independently of lib/ticketq/lanes.py's storage: the model that
# test_lanes_keyed.py (every interpreter) and test_lanes_keyed_props.py (hypothesis) hold a
# keyed LaneQueue to, answer by answer. Runs on MicroPython too (no f-strings, no sets).
from ticketq import QueueFull
from ticketq.lanes import LaneFull, LanesFull

M30 = 1 << 30
DIG0 = 0x2A5F0C3


def rotl5(x):
    return ((x << 5) | (x >> 25)) & (M30 - 1)


def fold(g, i, c, s, lane):
    # The digest's definition (docs/lanes.md, step 8), the key in place of the lane.
    g = rotl5(rotl5(g) ^ i) ^ s ^ (c << 28)
    return rotl5(g) ^ lane if lane else g


class KeyedRef:
    # lanes: key -> {"w": weight, "b": bound, "q": [[push order, id, seq] per class]}
    # rings: per class, a list of keys, head first; used: per class, the head's pops.
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

    def count(self):
        n = 0
        for k in self.lanes:
            n += self.lane_len(k)
        return n

    def lane_len(self, key):
        if key not in self.lanes:
            return 0
        n = 0
        for x in self.lanes[key]["q"]:
            n += len(x)
        return n

    def push(self, i, c, key):
        # The sequence number, or the exception class push must raise (nothing changes).
        if self.count() >= self.cap:
            return QueueFull
        if key in self.lanes:
            if self.lane_len(key) >= self.lanes[key]["b"]:
                return LaneFull
        elif len(self.lanes) >= self.most:
            return LanesFull
        else:
            self.lanes[key] = {"w": 1, "b": self.cap, "q": [[], [], [], []]}
        s = (self.first + self.pushes) % M30
        lane = self.lanes[key]
        lane["q"][c].append([self.pushes, i, s])
        self.pushes += 1
        if key not in self.rings[c]:
            self.rings[c].append(key)
        return s

    def set_lane(self, key, weight=None, bound=None):
        # False when the key has no lane (the board refuses it).
        if key not in self.lanes:
            return False
        if weight is not None:
            self.lanes[key]["w"] = weight
        if bound is not None:
            self.lanes[key]["b"] = bound
        return True

    def head(self):
        # (class, key) of the next pop, or None.
        for c in (3, 2, 1, 0):
            if self.rings[c]:
                return c, self.rings[c][0]
        return None

    def peek(self):
        c, key = self.head()
        return self.lanes[key]["q"][c][0][1]

    def _gone(self, key, c):
        # After a ticket left lane `key`'s class-c list: ring and lane bookkeeping.
        lane = self.lanes[key]
        if not lane["q"][c]:
            if self.rings[c][0] == key:
                self.used[c] = 0
            self.rings[c].remove(key)
        if not self.lane_len(key):
            del self.lanes[key]

    def pop(self):
        # (id, class, seq, key) popped.
        c, key = self.head()
        lane = self.lanes[key]
        t = lane["q"][c].pop(0)
        if lane["q"][c]:
            self.used[c] += 1
            if self.used[c] >= lane["w"]:
                self.used[c] = 0
                self.rings[c].append(self.rings[c].pop(0))
        self._gone(key, c)
        self.digest = fold(self.digest, t[1], c, t[2], key)
        self.last = (c, t[2], key)
        return t[1], c, t[2], key

    def remove(self, i):
        best = None
        for key in self.lanes:
            for c in range(4):
                for t in self.lanes[key]["q"][c]:
                    if t[1] == i and (best is None or t[0] < best[0]):
                        best = (t[0], key, c, t)
        if best is None:
            return False
        self.lanes[best[1]]["q"][best[2]].remove(best[3])
        self._gone(best[1], best[2])
        return True

    def order(self):
        # Pop order if nothing else happened: [(id, class, seq, key)] (ticketq.audit.tickets).
        out = []
        for c in (3, 2, 1, 0):
            ring = list(self.rings[c])
            q = {}
            for k in ring:
                q[k] = list(self.lanes[k]["q"][c])
            used = self.used[c]
            while ring:
                k = ring[0]
                t = q[k].pop(0)
                out.append((t[1], c, t[2], k))
                used += 1
                if not q[k]:
                    ring.pop(0)
                    used = 0
                elif used >= self.lanes[k]["w"]:
                    ring.append(ring.pop(0))
                    used = 0
        return out

# Model-based test (CPython only: needs hypothesis). Random push/pop/peek/remove/clear
# sequences, including full and empty queues, aging, sequence wrap and the narrowed
# internal counter, against a plain list model; the heap invariant is checked after
# every step. On MicroPython this module is reported as skipped (cannot import).
from hypothesis import settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import ticketq.core as core
from ticketq import TicketQueue, QueueFull, QueueEmpty
from ticketq.audit import tickets
from qcheck import check_heap, snapshot
from support import raises

M30 = 1 << 30


def fold(g, i, c, s):
    # The digest's definition, written independently of the library's code.
    def rotl5(x):
        return ((x << 5) | (x >> 25)) & (M30 - 1)
    return rotl5(rotl5(g) ^ i) ^ s ^ (c << 28)


class QueueMachine(RuleBasedStateMachine):
    @initialize(cap=st.integers(1, 8), first=st.one_of(st.integers(0, 50), st.integers(M30 - 60, M30 - 1)),
                aging=st.sampled_from([0, 0, 1, 2, 3, 5]), lim=st.sampled_from([None, 32, 64]))
    def setup(self, cap, first, aging, lim):
        self.q = TicketQueue(cap, first_seq=first, aging=aging)
        self.lim = lim
        if lim:
            self.q._lim = lim
        self.cap, self.aging = cap, aging
        self.model = []  # [order, id, class, outside seq, promoted]
        self.pushes = 0
        self.first = first
        self.left = aging
        self.digest = self.q.digest

    def expect_pop(self):
        t = max(self.model, key=lambda t: (t[2], -t[0]))
        self.model.remove(t)
        return t

    @rule(i=st.integers(0, 12) | st.just(M30 - 1), c=st.integers(0, 3))
    def push(self, i, c):
        if len(self.model) == self.cap:
            before = snapshot(self.q)
            raises(QueueFull, self.q.push, i, c)
            assert snapshot(self.q) == before
            return
        s = (self.first + self.pushes) % M30
        assert self.q.push(i, c) == s
        self.model.append([self.pushes, i, c, s, False])
        self.pushes += 1

    @rule()
    def pop(self):
        if not self.model:
            raises(QueueEmpty, self.q.pop)
            return
        t = self.expect_pop()
        assert self.q.pop() == t[1]
        assert self.q.last_priority == t[2]
        if not self.lim or self.pushes - t[0] <= self.lim // 4:
            assert self.q.last_seq == t[3]
        self.digest = fold(self.digest, t[1], t[2], self.q.last_seq)
        assert self.q.digest == self.digest
        if self.aging:
            self.left -= 1
            if self.left == 0:
                self.left = self.aging
                low = [t for t in self.model if t[2] < 3]
                if low:
                    old = min(low)
                    old[2] += 1
                    old[4] = True

    @rule()
    def peek(self):
        if not self.model:
            raises(QueueEmpty, self.q.peek)
        else:
            assert self.q.peek() == max(self.model, key=lambda t: (t[2], -t[0]))[1]

    @rule(i=st.integers(0, 12))
    def remove(self, i):
        mine = [t for t in self.model if t[1] == i]
        assert self.q.remove(i) == bool(mine)
        if mine:
            self.model.remove(min(mine))

    @precondition(lambda self: self.pushes % 7 == 3)
    @rule()
    def clear(self):
        self.q.clear()
        self.model = []
        self.left = self.aging
        self.digest = self.q.digest
        assert self.digest == core._DIG0

    @invariant()
    def heap_holds(self):
        check_heap(self.q)
        assert len(self.q) == len(self.model)
        assert self.q.full() == (len(self.model) == self.cap)
        order = sorted(self.model, key=lambda t: (-t[2], t[0]))
        assert [(t[1], t[2]) for t in order] == [(i, c) for i, c, _ in tickets(self.q)]


QueueMachine.TestCase.settings = settings(max_examples=150, stateful_step_count=60, deadline=None)
test_queue_model = QueueMachine.TestCase

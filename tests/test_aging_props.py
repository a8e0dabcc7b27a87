# CPython only (hypothesis): the aging bound ticketq.audit.max_wait against adversarial
# streams that hypothesis searches for: any history, then pushes of mostly high classes
# between pops, trying to keep one victim ticket waiting as long as possible.
from hypothesis import given, settings, strategies as st

from ticketq import TicketQueue
from ticketq.audit import max_wait
from qcheck import check_heap


@settings(max_examples=400, deadline=None)
@given(cap=st.integers(1, 8), n=st.integers(1, 5), cls=st.integers(0, 3),
       history=st.lists(st.tuples(st.booleans(), st.integers(0, 3)), max_size=40),
       pushes=st.lists(st.lists(st.integers(1, 3), max_size=8), min_size=1, max_size=60))
def test_no_ticket_waits_longer_than_the_bound(cap, n, cls, history, pushes):
    q = TicketQueue(cap, aging=n)
    for push, c in history:
        if push and not q.full():
            q.push(1, c)
        elif q:
            q.pop()
    if q.full():
        q.pop()
    q.push(999, cls)
    waited = 0
    bound = max_wait(cap, n, cls)
    step = 0
    while True:
        for c in pushes[step % len(pushes)]:
            if not q.full():
                q.push(2, c)
        step += 1
        if q.pop() == 999:
            break
        waited += 1
        check_heap(q)
        assert waited <= bound, (waited, bound)


@settings(max_examples=100, deadline=None)
@given(cap=st.integers(2, 8), cls=st.integers(0, 2))
def test_without_aging_a_critical_stream_starves_lower_classes(cap, cls):
    q = TicketQueue(cap)
    q.push(999, cls)
    for _ in range(50 * cap):
        while not q.full():
            q.push(2, 3)
        assert q.pop() != 999

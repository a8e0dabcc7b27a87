# CPython only (hypothesis): the fairness guarantees of ticketq.lanes (docs/lanes.md)
# against streams that hypothesis searches for: random weights and bounds, any pushes into
# any lanes and classes between pops, lanes coming and going; and the wait bound with aging
# (ticketq.audit.lane_max_wait) against an adversary trying to keep one ticket waiting.
from hypothesis import given, settings, target, strategies as st

from ticketq.lanes import LaneQueue, table
from ticketq.audit import lane_max_wait
from lanecheck import check_lanes
from test_lanes_fair import Stream, windows

weights_st = st.lists(st.sampled_from([1, 1, 2, 3, 4, 7, 10, 100]), min_size=1, max_size=6)


@settings(max_examples=200, deadline=None)
@given(ws=st.lists(st.integers(1, 40), min_size=1, max_size=7))
def test_table_lag_is_below_one_turn(ws):
    t = table(ws)
    for l in range(len(ws)):
        lo, hi = windows(t, l, ws[l], sum(ws), 2)
        assert lo >= -1 and hi <= 1


@settings(max_examples=150, deadline=None)
@given(ws=weights_st, cap=st.integers(4, 24), data=st.data(),
       steps=st.lists(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 5)), max_size=6),
                      min_size=1, max_size=120))
def test_window_and_wait_bounds_hold_for_any_stream(ws, cap, data, steps):
    bounds = data.draw(st.lists(st.integers(1, cap), min_size=len(ws), max_size=len(ws)))
    s = Stream(cap, ws, bounds)
    for pushes in steps:
        for c, l in pushes:
            s.push(c, l % len(ws))
        if len(s.q):
            s.pop()
    check_lanes(s.q)
    for c in range(4):
        s.check(c)


@settings(max_examples=300, deadline=None)
@given(ws=weights_st, cap=st.integers(1, 8), n=st.integers(0, 5), cls=st.integers(0, 3),
       data=st.data(),
       history=st.lists(st.tuples(st.booleans(), st.integers(0, 3), st.integers(0, 5)),
                        max_size=40),
       pushes=st.lists(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 5)), max_size=8),
                       min_size=1, max_size=60))
def test_no_ticket_waits_longer_than_lane_max_wait(ws, cap, n, cls, data, history, pushes):
    v = data.draw(st.integers(0, len(ws) - 1))
    bounds = data.draw(st.lists(st.integers(1, cap), min_size=len(ws), max_size=len(ws)))
    q = LaneQueue(cap, ws, bounds, aging=n)

    def push(i, c, l):
        if not q.full() and q.lane_len(l) < q.lane_capacity[l]:
            q.push(i, c, l)

    for p, c, l in history:
        if p:
            push(1, c, l % len(ws))
        elif q:
            q.pop()
    while q.full() or q.lane_len(v) >= q.lane_capacity[v]:
        q.pop()
    q.push(999, cls, v)
    bound = lane_max_wait(q, v, cls)
    top = lane_max_wait(q, v, 3)
    assert top <= ((bounds[v] + 1) * sum(ws) + ws[v] - 1) // ws[v] - 1  # the closed form
    waited = 0
    step = 0
    while True:
        for c, l in pushes[step % len(pushes)]:
            push(2, c, l % len(ws))
        step += 1
        if q.pop() == 999:
            break
        waited += 1
        if bound is None:
            if waited > 400:  # strict priority may starve it: no bound claimed
                return
        else:
            assert waited <= bound, (waited, bound)
    if bound is not None:
        target(waited / (bound + 1.0))
    check_lanes(q)

# CPython only: the REPL examples of docs/lanes.md (fixed and keyed lanes) run as doctests, and the page's
# demonstration table is what ticketq lanes-demo prints, so the page stays true.
import os

from support import IS_MICROPYTHON, raises, skip


def _page():
    if IS_MICROPYTHON:
        skip("reads docs/lanes.md and uses doctest (host only)")
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "lanes.md")
    with open(path) as f:
        return path, f.read()


def test_repl_example():
    path, text = _page()
    import doctest
    import re

    # two: fixed lanes ("Using it") and keyed lanes ("Keyed lanes"), each in its own namespace
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if ">>>" in b]
    assert len(blocks) == 2
    for block, least in zip(blocks, (15, 10)):
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        runner.run(doctest.DocTestParser().get_doctest(block, {}, "docs/lanes.md", path, 0))
        assert runner.failures == 0 and runner.tries >= least, (runner.failures, runner.tries)


def test_demonstration_table_and_explain_quote_are_current():
    path, text = _page()
    import sys

    tools = os.path.join(os.path.dirname(path), "..", "tools")
    if tools not in sys.path:
        sys.path.insert(0, tools)
    import lanes_demo

    lines = lanes_demo.summary(lanes_demo.run())
    table = lines[lines.index("") + 1:lines.index("", 3)]
    assert "```\n" + "\n".join(table) + "\n```" in text, "stale: rerun ticketq lanes-demo"
    import ticketq
    import ticketq.audit as audit
    from ticketq.lanes import LaneQueue

    q = LaneQueue(16, [2, 1], lane_capacity=[12, 4])  # the example's state at the quote
    for i in range(6):
        q.push(100 + i, ticketq.NORMAL, 0)
    q.push(900, ticketq.NORMAL, 1)
    for _ in range(4):
        q.pop()
    q.push(901, ticketq.CRITICAL, 1)
    q.pop()
    q.push(920, ticketq.NORMAL, 1)
    quote = " ".join(l[4:] for l in text.splitlines() if l.startswith("  > "))
    assert quote == audit.explain(q, 104, 920), quote


def test_fleet_example_runs_and_pops_the_lanequeue_examples_order():
    # The fleet tier's example, against the test server instead of redis.example: the same
    # pops as the LaneQueue fed the same operations (a leased and acked pop is a pop).
    path, text = _page()
    import re

    import fleet_server
    import ticketq
    from ticketq.lanes import LaneQueue

    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if ">>>" not in b]
    assert len(blocks) == 1 and "FleetLaneQueue" in blocks[0]
    srv = fleet_server.shared()
    srv.client()  # the library loaded
    ns = {}
    exec(blocks[0].replace("redis://redis.example:6379/0", srv.url), ns)
    q = ns["q"]
    t = LaneQueue(1000, [2, 1], [800, 200])
    for i in range(6):
        t.push(100 + i, ticketq.NORMAL, 0)
    t.push(900, ticketq.NORMAL, 1)
    assert ns["job"] == t.pop() == 100
    assert ns["popped"] == [t.pop() for _ in range(3)] == [101, 900, 102]
    assert (q.digest, q.last_lane, len(q), q.info()["leased"]) == (t.digest, t.last_lane, len(t), 0)
    q.destroy()


def test_keyed_fleet_refusal_words_are_the_ones_raised():
    # docs/lanes.md, "Keyed lanes on the fleet", quotes the LaneFull and LanesFull messages;
    # it quoted a LanesFull text ("lanes full: max_lanes 8 lanes hold tickets") that no code
    # raises (the fleet raises the board's words, "no lane for key 'b': max_lanes (8) lanes
    # exist"). The quotes are checked against a real keyed queue at its limits.
    path, text = _page()
    import re

    import fleet_server
    from ticketq.core import QueueFull
    from ticketq.fleet import FleetLaneQueue
    from ticketq.lanes import LaneFull, LanesFull

    part = text[text.index("- **Refusals, in this order:**"):]
    part = " ".join(part[:part.index("\n- **")].split())
    lane_full = re.search(r"`LaneFull` \(\"([^\"]+)\"", part).group(1)
    lanes_full = re.search(r"`LanesFull` \(\"([^\"]+)\"", part).group(1)
    srv = fleet_server.shared()
    conn = srv.client()
    name = fleet_server.fresh_name("kdocs")
    q = FleetLaneQueue(conn, name, 20, max_lanes=8)
    for k in range(7):
        q.push(k, 1, "k%d" % k)
    for i in range(8):
        q.push(50 + i, 1, "a")
    q.set_lane("a", bound=8)
    before = (q.tickets(), q.digest, len(q))
    e1 = raises(LaneFull, q.push, 51, 1, "a")
    e2 = raises(LanesFull, q.push, 52, 1, "b")
    assert isinstance(e2, QueueFull) and not isinstance(e2, LaneFull)
    assert (q.tickets(), q.digest, len(q)) == before
    assert str(e1) == lane_full, (str(e1), lane_full)
    assert str(e2) == lanes_full, (str(e2), lanes_full)
    q.destroy()

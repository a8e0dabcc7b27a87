# Host only: ticketq mutants's curated list (tools/mutants.json) still applies to the sources,
# each `old` found exactly once in its file, so the list cannot rot while the code changes
# (a mutant that no longer applies would silently test nothing). Runs nothing else: the
# mutation run itself is on demand (docs/testing.md, "Mutation testing").
from support import IS_MICROPYTHON, skip

if not IS_MICROPYTHON:
    import os
    import sys

    ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _mutants():
    if IS_MICROPYTHON:
        skip("reads the repository's sources (host only)")
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    from ticketq_tools import mutants

    return mutants


def test_every_curated_mutant_applies_exactly_once():
    m = _mutants()
    data = m.load()
    assert m.check(data) == []
    assert len(data["curated"]) >= 7
    # issue 26's seven are on the list, one per behaviour it found untested
    assert sum(x["why"].startswith("issue 26 #") for x in data["curated"]) == 7


def test_the_check_catches_a_mutant_that_no_longer_applies():
    m = _mutants()
    data = m.load()
    one = dict(data["curated"][0])
    gone = dict(one, old=one["old"] + "  # not in the source")
    twice = dict(one, file="tools/mutants.json", old='"area"')  # many times there
    data["curated"] = [gone, twice, dict(one, area="nowhere")]
    bad = m.check(data)
    assert len(bad) == 3, bad
    assert "found 0 times" in bad[0] and "not once" in bad[1] and "unknown area" in bad[2]

"""workload: the sample workload of an edge mesh node, and a player for workload files.

Job kinds (``KINDS``), each ``fn(name)`` doing deterministic busy work seeded by the
number after the ``-`` in its name:

- ``consensus`` (HIGH in the sample): tally one round of votes from the mesh neighbours;
- ``handoff`` (CRITICAL): hand a relayed flow to the next hop; raises ``OSError(113)``
  (EHOSTUNREACH) for about one peer in five, as when a neighbour has left the mesh;
- ``sync`` (LOW): push one chunk of background state to the gateway;
- ``telemetry`` (NORMAL): sample and pack the node's sensors.

The line format (a workload file, or any iterable of lines). One command a line, fields
split on ASCII whitespace (space, tab, CR, LF, VT, FF; as MicroPython's ``str.split``,
so a no-break space is part of a field on every interpreter), numbers in ASCII digits;
``#`` starts a comment line; blank lines are ignored::

    queue <capacity> [<aging>]   the worker's queue; at most once, before any other
                                 command (else: the board's, from board.py, strict
                                 priority: give one for the same log on every board)
    push <name> <CLASS>          submit job <name>, <kind>-<number> as sync-3 (the kind
                                 one of KINDS), with class LOW, NORMAL, HIGH or CRITICAL;
                                 a full queue refuses it and prints "full <name> <CLASS>"
    cancel <name>                cancel the oldest queued job with this name; prints
                                 "cancel <id> <name> <CLASS>" or "cancel <name>: not queued"
    run [<n>]                    run up to n tickets, all queued ones without n; never
                                 waits, so the log does not depend on the board's speed

Any other line, or a bad field (an unknown class or kind, a name without its number, a
count below 0, a capacity out of 1..2**24), raises ValueError naming its line number
before any of it is done. Example::

    queue 16 6
    push telemetry-0 NORMAL
    push sync-0 LOW
    push consensus-0 HIGH
    push handoff-0 CRITICAL
    cancel sync-0
    run 2
    run

The sample (``sample()``, shipped as ``firmware/workload.txt``): 48 ticks; each tick one
telemetry job, every other tick a sync chunk (every third one supersedes, so cancels, the
one before), every 8th tick and at random 1 tick in 11 a burst of 3..8 consensus votes and
1..3 relay handoffs that overruns the 16-slot queue (aging every 6 pops); the worker runs 2
tickets a tick. Random choices come from a 30-bit xorshift with a fixed seed, never from a
clock: every run, on every board, gives the same log and the same digest
(106 run, 4 failed, 12 cancelled, 8 refused, final digest 01c74530).
"""

from typing import Callable, Dict, Iterable, Iterator, Optional

from shell import Shell

KINDS: Dict[str, Callable[[str], object]]
"""``{"consensus": ..., "handoff": ..., "sync": ..., "telemetry": ...}``."""


def consensus(name: str) -> int: ...
def handoff(name: str) -> int: ...
def sync(name: str) -> int: ...
def telemetry(name: str) -> int: ...


def play(lines: Iterable[str], w: Optional[Shell] = None,
         out: Optional[Callable[[str], object]] = print) -> Shell:
    """Feed workload lines to worker ``w`` (created by ``shell.boot`` if None or on a
    ``queue`` line, with ``KINDS``); returns the worker (for its summary and digest)."""


def lines(path: str) -> Iterator[str]:
    """The lines of the file at ``path``, read one at a time with ``readline`` (the
    micro:bit's files are not iterable); the file is closed at the end."""


def sample(ticks: int = 48, seed: int = 0x2545F49) -> Iterator[str]:
    """The sample workload's lines (without the comments of workload.txt)."""


def main(path: Optional[str] = None, out: Optional[Callable[[str], object]] = print) -> Shell:
    """Play the workload file at ``path`` (default: ``sample()``, no file needed), then
    print the summary through ``out`` (``out=None``: silent, read the returned worker);
    returns the worker. ``python3 -c 'import workload; workload.main()'``
    on the host, ``import workload; workload.main()`` on a board."""

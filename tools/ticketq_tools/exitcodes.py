"""One exit code per condition, the same for every host tool that talks to a server or a
board: ticketq fleet, ticketq gateway, ticketq dashboard, tools/run, ticketq deploy and
ticketq devtest (UNREACHABLE: no board at the port given). docs/fleet.md ("Exit codes")
has this table once; tests/test_fleet_ctl.py checks the two are the same.
"""
OK = 0            # done
FAILED = 1        # the work failed, or the server refused the operation
USAGE = 2         # a bad option, value, URL or input file (argparse's own errors too)
NO_RAM = 3        # out of memory on the target (tools/run)
UNREACHABLE = 4   # the Redis/Valkey server or the board cannot be reached
AUTH = 5          # the server wants a password, refused the one given, or the user may not
NO_QUEUE = 6      # no such fleet queue (fleetctl create makes one)
NO_LIBRARY = 7    # the ticketq library is not loaded in the server (fleetctl install)
INTERRUPTED = 130  # Ctrl-C (SIGINT)
TERMINATED = 143   # SIGTERM

TABLE = {
    OK: "done",
    FAILED: "the work failed, or the server refused the operation",
    USAGE: "usage: a bad option, value, URL or input file",
    NO_RAM: "out of memory on the target (tools/run)",
    UNREACHABLE: "the Redis/Valkey server or the board cannot be reached",
    AUTH: "the server wants a password, refused the one given, or the user may not do that",
    NO_QUEUE: "no such fleet queue (fleetctl create makes one)",
    NO_LIBRARY: "the ticketq library is not loaded in the server (fleetctl install)",
    INTERRUPTED: "Ctrl-C (SIGINT)",
    TERMINATED: "SIGTERM",
}

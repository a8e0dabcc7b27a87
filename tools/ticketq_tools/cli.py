"""The host command `ticketq`: every host tool as one subcommand, in the style of mpremote and git.

    ticketq --help                 what a user can do (the table below)
    ticketq COMMAND --help         that command's own options
    ticketq COMMAND ARGS...        runs it: the module's main(ARGS), unchanged

Installed as a console script by `pip install -e .[fleet]` (tools/setup, into the checkout's
.venv) and by the wheel (`pip install ticketq[fleet]`); `tools/ticketq` runs it from a
checkout after tools/setup. argparse only picks the command: the rest of the line goes to the
command as it was typed, so each command parses its own options exactly as it always has.
From the wheel the fleet commands run (fleet, gateway, dashboard); the others need a checkout
(the firmware, the board profiles, the emulators) and say so. Exit status: the command's own.
"""
import argparse
import os
import sys

import ticketq_tools  # noqa: F401  (puts the checkout's lib/ and firmware/ on sys.path)

# (name, where its code is, what it does, runs from the wheel). Where: "ticketq_tools.X" or
# "tools/PATH.py" (a script of the checkout), either with main(argv). (tools/test's own
# helpers, ticketq_tools.testsummary and libnames, are no commands: `python -m` runs them.)
COMMANDS = [
    ("run", "ticketq_tools.run", "the main job: the worker plays a workload on the VM, an emulated or a real board", False),
    ("deploy", "ticketq_tools.deploy", "put a board profile's files on a MicroPython board (mpremote)", False),
    ("devtest", "ticketq_tools.devtest", "run the library's test modules on a board or an emulated one", False),
    ("emu", "ticketq_tools.emu", "an emulated BBC micro:bit v1 (QEMU) with a REPL on a pty", False),
    ("pico", "ticketq_tools.pico", "an emulated Raspberry Pi Pico (rp2040js, ticketq's firmware) on a pty; --deploy-check", False),
    ("mcu", "ticketq_tools.mcu", "MicroPython's QEMU boards (armv6m, armv7m, rv32imc) and the emulated Pico: build, test, main job, size", False),
    ("mpunix", "ticketq_tools.mpunix", "the test modules on the MicroPython unix port (viper, bytecode, C paths)", False),
    ("firmware", "ticketq_tools.firmware", "build ticketq's firmware: micro:bit, Raspberry Pi Pico (rp2, rp2350), the C core (natmod, unix)", False),
    ("fleet", "ticketq_tools.fleetctl", "the fleet queue on Redis/Valkey: install, create, stats, dead, grant, exporter ...", True),
    ("gateway", "ticketq_tools.gateway", "lease fleet tickets and run them on boards without a network", True),
    ("dashboard", "ticketq_tools.dashboard", "a web page of the fleet's queues, lanes and leases", True),
    ("bench", "tools/bench/run.py", "benchmark ticketq against textbook queues on every interpreter", False),
    ("bench-fleet", "tools/bench/fleet.py", "benchmark the fleet tier against BullMQ on one redis-server", False),
    ("bench-cluster", "tools/bench/fleet_cluster.py", "benchmark the fleet tier on a Redis Cluster", False),
    ("bench-keyed", "tools/bench/keyed.py", "benchmark keyed fleet lanes from 1 to 1,000,000 keys", False),
    ("islands", "tools/islands.py", "demonstration: a logical clock against timestamps on skewed islands", False),
    ("lanes-demo", "tools/lanes_demo.py", "demonstration: FIFO against fair lanes for a chatty and a quiet source", False),
    ("typecheck", "ticketq_tools.typecheck", "type-check the library and firmware against each board's stubs", False),
    ("stubdocs", "ticketq_tools.stubdocs", "check the .pyi stubs against lib/'s sources and docstrings", False),
    ("mutants", "ticketq_tools.mutants", "mutation testing of the tests, on demand", False),
]


class _Version(argparse.Action):
    # ticketq.__version__, imported only when asked: a command runs in a process where the
    # library is not imported yet, as when it was started on its own (deploy strips names
    # from the library's source, the micro:bit's __version__ among them)
    def __call__(self, parser, namespace, values, option_string=None):
        import ticketq  # lib/ of the checkout (ticketq_tools puts it on sys.path) or the wheel's

        print("ticketq " + ticketq.__version__)
        parser.exit()


def parser():
    """The argparse parser: one subparser per command, each taking the rest of the line as
    it is (prefix_chars that match nothing, so --help goes to the command's own parser)."""
    p = argparse.ArgumentParser(
        prog="ticketq", description=__doc__.split("\n", 1)[0],
        epilog="ticketq COMMAND --help gives a command's options. Docs: README.md, docs/layout.md.")
    p.add_argument("--version", action=_Version, nargs=0, help="print ticketq's version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, _, what, _ in COMMANDS:
        s = sub.add_parser(name, help=what, description=what, add_help=False, prefix_chars="\0")
        s.add_argument("args", nargs=argparse.REMAINDER)
    return p


def _call(name, where, argv):
    # Run one command as if started on its own: sys.argv[0] is "ticketq NAME" (its usage
    # line says so), then the module's main(argv); a script of tools/ is loaded from its file
    # with its folder first on sys.path, as `python tools/PATH.py` would have it.
    import importlib
    import importlib.util

    saved = sys.argv[:], sys.path[:]
    sys.argv[:] = ["ticketq " + name] + argv
    try:
        if where.startswith("tools/"):
            path = os.path.join(ticketq_tools.ROOT, where)
            sys.path.insert(0, os.path.dirname(path))
            spec = importlib.util.spec_from_file_location("ticketq_cmd_" + name.replace("-", "_"), path)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = mod
            spec.loader.exec_module(mod)
        else:
            mod = importlib.import_module(where)
        if name == "gateway":  # as its __main__ block: SIGTERM gives the leased tickets back
            import signal

            signal.signal(signal.SIGTERM, mod._terminate)
        return mod.main(argv)
    finally:
        sys.argv[:], sys.path[:] = saved


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    a = parser().parse_args(argv)
    name, where, _, wheel = [c for c in COMMANDS if c[0] == a.command][0]
    if not ticketq_tools.CHECKOUT and not wheel:
        sys.stderr.write("ticketq %s: needs a checkout of ticketq (its firmware, boards and tools):\n"
                         "  git clone the repository, then tools/setup and tools/ticketq %s\n" % (name, name))
        return 2
    try:
        code = _call(name, where, a.args)
        sys.stdout.flush()
    except BrokenPipeError:
        # `ticketq fleet source | head`: the reader went away, which is not an error; stdout
        # to /dev/null so the interpreter's flush at exit prints no second traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    return code


if __name__ == "__main__":
    sys.exit(main())

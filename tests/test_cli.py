# The host command `ticketq` (tools/ticketq_tools/cli.py, the console script of
# pyproject.toml): `ticketq --help` lists every command, and every command's --help exits 0
# with its own usage (argparse hands the rest of the line to the command unchanged). Runs the
# console script tools/setup installs into .venv, as a user types it. Host only.
from support import skip, IS_MICROPYTHON


def _exe():
    import os
    import sys

    exe = os.path.join(os.path.dirname(sys.executable), "ticketq")
    if not os.path.exists(exe):
        skip("no console script beside this interpreter (tools/setup: pip install -e .)")
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
    from ticketq_tools import cli

    return exe, cli


def _run(exe, *args):
    import subprocess
    import tempfile

    return subprocess.run([exe] + list(args), capture_output=True, text=True, timeout=120,
                          cwd=tempfile.gettempdir())


def test_help_lists_every_command():
    if IS_MICROPYTHON:
        skip("runs the host command")
    exe, cli = _exe()
    p = _run(exe, "--help")
    assert p.returncode == 0 and p.stdout.startswith("usage: ticketq "), (p.stdout, p.stderr)
    listed = [l.split()[0] for l in p.stdout.split("positional arguments:")[1].split("options:")[0].splitlines()
              if l.startswith("    ") and not l.startswith("     ")]
    names = [c[0] for c in cli.COMMANDS]
    assert listed == names and len(names) >= 15, (listed, names)
    for must in ("run", "deploy", "devtest", "firmware", "emu", "pico", "mcu", "mpunix", "bench", "fleet", "gateway", "dashboard",
                 "typecheck", "stubdocs", "mutants", "islands", "lanes-demo"):
        assert must in names, must


def test_every_command_answers_its_own_help():
    if IS_MICROPYTHON:
        skip("runs the host command")
    exe, cli = _exe()
    for name, _, _, _ in cli.COMMANDS:
        p = _run(exe, name, "--help")
        usage = p.stdout.split("\n", 1)[0]
        # its own parser's usage, named as typed (tools/run's main job names itself so)
        assert p.returncode == 0 and usage.startswith("usage: "), (name, p.returncode, p.stdout[:300], p.stderr[-1000:])
        assert ("ticketq " + name) in usage or (name == "run" and "tools/run" in usage), (name, usage)
        assert len(p.stdout.splitlines()) > 2 and "Traceback" not in p.stderr, (name, p.stdout, p.stderr)


def test_bad_command_is_a_usage_error_and_the_rest_of_the_line_goes_through():
    if IS_MICROPYTHON:
        skip("runs the host command")
    exe, _ = _exe()
    p = _run(exe, "nosuchcommand")
    assert p.returncode == 2 and "invalid choice: 'nosuchcommand'" in p.stderr, p.stderr
    p = _run(exe)
    assert p.returncode == 2 and "COMMAND" in p.stderr, p.stderr
    # an option the command does not know is the command's own usage error, not ticketq's
    p = _run(exe, "fleet", "stats", "--nosuchoption")
    assert p.returncode == 2 and p.stderr.startswith("usage: ticketq fleet"), p.stderr
    p = _run(exe, "--version")
    assert p.returncode == 0 and p.stdout.startswith("ticketq 0."), p.stdout

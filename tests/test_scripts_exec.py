# The commands the README and docs/ tell people to run exist and run as written (issue 35:
# one host command). A tools/ script they name is executable (git mode 100755, a shebang);
# a `ticketq COMMAND` they give names a real command of tools/ticketq_tools/cli.py; the
# checkout's wrapper tools/ticketq sets up .venv and runs the console script from any folder;
# and the commands that reach a server or a board say "unreachable" with exit 4
# (tools/ticketq_tools/exitcodes.py) when nothing is at the address given. Host only.
from support import skip, IS_MICROPYTHON


def _root():
    import os

    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _commands():
    import os
    import sys

    sys.path.insert(0, os.path.join(_root(), "tools"))
    from ticketq_tools import cli

    return [c[0] for c in cli.COMMANDS]


def _doc_commands():
    # The tools/ scripts and `ticketq COMMAND`s the README and docs/*.md give as commands:
    # inline code that starts with one and goes on with arguments (`ticketq deploy rp2
    # --connect a0`), and the lines of sh code blocks that start with one (after VAR=value
    # settings). {script or "ticketq NAME": {pages}}
    import glob
    import os
    import re

    root = _root()
    found = {}
    start = r"(?:[A-Z_]+=\S+ )*(?:\./)?(tools/[\w/.-]*\w|ticketq [a-z][\w-]*)"
    for f in [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md"))):
        text = open(f, encoding="utf-8").read()
        prose = re.sub(r"```.*?```", "", text, flags=re.S)
        for span in re.findall(r"`([^`]+)`", prose):  # inline code, paired from the start
            m = re.match(start + r"(?: |$)", span)
            if m and (m.group(1).startswith("ticketq ") or " " in span):  # a path alone is no command
                found.setdefault(m.group(1), set()).add(os.path.basename(f))
        for lang, block in re.findall(r"```(\w*)\n(.*?)```", text, re.S):  # paired from the start
            if lang not in ("", "sh", "bash", "console", "shell"):
                continue
            for line in block.splitlines():
                m = re.match(r"\s*(?:\$ )?" + start, line)
                if m:
                    found.setdefault(m.group(1), set()).add(os.path.basename(f))
    return found


def test_every_command_the_docs_give_exists():
    if IS_MICROPYTHON:
        skip("reads git's file modes on the host")
    import os
    import subprocess

    root, found = _root(), _doc_commands()
    names = _commands()
    given = set(k.split()[1] for k in found if k.startswith("ticketq "))
    # what the README and docs must keep showing: the two commands, the wrapper, and the
    # commands a user starts with
    assert {"tools/run", "tools/test", "tools/ticketq"} <= set(found), sorted(found)
    assert {"fleet", "deploy", "mpunix", "dashboard", "gateway", "run"} <= given, sorted(given)
    bad = dict((k, v) for k, v in found.items() if k.startswith("ticketq ") and k.split()[1] not in names)
    assert not bad, bad
    scripts = sorted(k for k in found if k.startswith("tools/"))
    out = subprocess.run(["git", "ls-files", "-s"] + scripts, capture_output=True, text=True, cwd=root,
                         timeout=60).stdout
    modes = dict((line.split("\t")[1], line.split()[0]) for line in out.splitlines())
    for n in scripts:
        assert os.path.isfile(os.path.join(root, n)), (n, found[n])
        if n in modes:
            assert modes[n] == "100755", (n, modes[n], found[n])
        else:  # not committed yet: the working tree's mode is what git will take
            assert os.access(os.path.join(root, n), os.X_OK), (n, found[n])
        with open(os.path.join(root, n), "rb") as f:
            assert f.read(2) == b"#!", (n, found[n])


def test_tools_keeps_the_two_commands_setup_and_one_wrapper():
    # issue 35: tools/ keeps setup, the README's two commands and one thin wrapper; no runpy
    # wrapper (tools/NAME.py that only runs ticketq_tools.NAME) and no per-tool shell wrapper
    if IS_MICROPYTHON:
        skip("reads the checkout on the host")
    import os

    root = _root()
    execs = sorted(f for f in os.listdir(os.path.join(root, "tools"))
                   if os.path.isfile(os.path.join(root, "tools", f)) and not os.path.splitext(f)[1])
    assert execs == ["run", "setup", "test", "ticketq"], execs
    for f in os.listdir(os.path.join(root, "tools")):
        if f.endswith(".py"):
            text = open(os.path.join(root, "tools", f), encoding="utf-8").read()
            assert "runpy" not in text and "ticketq_tools." + f[:-3] not in text, f


def test_the_wrapper_runs_the_console_script_from_another_folder():
    if IS_MICROPYTHON:
        skip("runs the host tools")
    import os
    import subprocess
    import tempfile

    root = _root()
    if not os.path.exists(os.path.join(root, ".venv", "bin", "ticketq")):
        skip("no .venv/bin/ticketq (tools/setup)")
    p = subprocess.run([os.path.join(root, "tools", "ticketq"), "fleet", "--help"], capture_output=True,
                       text=True, timeout=300, cwd=tempfile.gettempdir())
    assert p.returncode == 0 and "usage: ticketq fleet" in p.stdout, (p.stdout, p.stderr[-1000:])


# (command and arguments, exit code, a word of its one line): nothing is listening on the
# port given (a free one), and no board is at /dev/ttyTQNOSUCH.
RUNS = [
    (["fleet", "install", "--url", "redis://127.0.0.1:{port}/0"], 4, "cannot reach"),
    (["gateway", "--url", "redis://127.0.0.1:{port}/0", "--queue", "q", "--local", "--max", "1"], 4, "cannot reach"),
    (["dashboard", "--url", "redis://127.0.0.1:{port}/0"], 4, "cannot reach"),
    (["deploy", "rp2", "--connect", "/dev/ttyTQNOSUCH"], 4, "cannot reach a MicroPython REPL"),
    (["deploy", "rp2", "--connect", "id:TQNOSUCH"], 4, "no device with serial number"),
    (["devtest", "--connect", "/dev/ttyTQNOSUCH"], 4, "cannot reach a MicroPython REPL"),
]


def test_the_commands_run_as_written_and_say_unreachable_with_exit_4():
    if IS_MICROPYTHON:
        skip("runs the host tools")
    import os
    import subprocess
    import sys
    import tempfile

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from fleet_server import free_port

    exe = os.path.join(os.path.dirname(sys.executable), "ticketq")
    if not os.path.exists(exe):
        skip("no console script beside this interpreter (tools/setup: pip install -e .)")
    with tempfile.TemporaryDirectory() as tmp:
        for args, code, word in RUNS:
            cmd = [exe] + [a.replace("{port}", str(free_port())) for a in args]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp)
            out = p.stdout + p.stderr
            assert p.returncode == code and word in out and "Traceback" not in out, (cmd, p.returncode, out[-2000:])

# Every script the README and docs/ tell people to run is executable (git mode 100755, a
# shebang) and runs as written, from any folder (issue 22: `tools/fleetctl.py install` was
# not executable and needed the .venv interpreter). The tools/fleetctl, tools/gateway and
# tools/dashboard wrappers set up .venv and run the tool in it, as tools/run does; the tools
# themselves, started by their shebang's python3 without redis-py or mpremote, rerun
# themselves in the checkout's .venv (tools/ticketq_tools/venvpy.py). And deploy.py and devtest.py exit 4
# (tools/ticketq_tools/exitcodes.py: unreachable) when no board is at the port given. Host only.
from support import skip, IS_MICROPYTHON


def _readme_scripts():
    import os
    import re

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    text = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    names = set(m.lstrip("./") for m in re.findall(r"(?<![\w/.-])(?:\./)?tools/[\w/.-]*\w", text))
    return root, sorted(n for n in names if os.path.isfile(os.path.join(root, n)))


def test_every_script_the_readme_names_is_executable_in_git():
    if IS_MICROPYTHON:
        skip("reads git's file modes on the host")
    import os
    import subprocess

    root, names = _readme_scripts()
    assert "tools/fleetctl" in names and "tools/test" in names, names
    out = subprocess.run(["git", "ls-files", "-s"] + names, capture_output=True, text=True, cwd=root,
                         timeout=60).stdout
    modes = dict((line.split("\t")[1], line.split()[0]) for line in out.splitlines())
    for n in names:
        if n.endswith((".md", ".json", ".txt", ".pyi")):
            continue
        if n not in modes:  # not committed yet: the working tree's mode is what git will take
            assert os.access(os.path.join(root, n), os.X_OK), n
            continue
        assert modes[n] == "100755", (n, modes[n])
        with open(os.path.join(root, n), "rb") as f:
            assert f.read(2) == b"#!", n


def test_the_fleet_wrappers_run_as_written_from_another_folder():
    if IS_MICROPYTHON:
        skip("runs the host tools")
    import os
    import subprocess
    import tempfile

    root = _readme_scripts()[0]
    if not os.path.exists(os.path.join(root, ".venv", "bin", "python")):
        skip("no .venv (tools/setup)")
    for tool in ("fleetctl", "gateway", "dashboard"):
        p = subprocess.run([os.path.join(root, "tools", tool), "--help"], capture_output=True, text=True,
                           timeout=120, cwd=tempfile.gettempdir())
        assert p.returncode == 0 and "usage: %s.py" % tool in p.stdout, (tool, p.stdout, p.stderr[-1000:])


def _doc_commands():
    # The tools/ scripts the README and docs/*.md give as commands: inline code that starts
    # with the path and goes on with arguments (`tools/deploy.py rp2 --connect a0`), and the
    # lines of sh code blocks that start with one (after VAR=value settings).
    import glob
    import os
    import re

    root = _readme_scripts()[0]
    found = {}
    for f in [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md"))):
        text = open(f, encoding="utf-8").read()
        for m in re.finditer(r"`(?:[A-Z_]+=\S+ )*(?:\./)?(tools/[\w/.-]*\w) [^`]*`", text):
            found.setdefault(m.group(1), set()).add(os.path.basename(f))
        for block in re.findall(r"```(?:sh|bash|console|shell)?\n(.*?)```", text, re.S):
            for line in block.splitlines():
                m = re.match(r"\s*(?:\$ )?(?:[A-Z_]+=\S+ )*(?:\./)?(tools/[\w/.-]*\w)", line)
                if m:
                    found.setdefault(m.group(1), set()).add(os.path.basename(f))
    return root, found


def test_every_script_the_docs_give_as_a_command_is_executable_in_git():
    if IS_MICROPYTHON:
        skip("reads git's file modes on the host")
    import os
    import subprocess

    root, found = _doc_commands()
    assert {"tools/fleetctl", "tools/deploy.py", "tools/mpunix.py", "tools/dashboard"} <= set(found), found
    out = subprocess.run(["git", "ls-files", "-s"] + sorted(found), capture_output=True, text=True, cwd=root,
                         timeout=60).stdout
    modes = dict((line.split("\t")[1], line.split()[0]) for line in out.splitlines())
    for n, where in sorted(found.items()):
        assert os.path.isfile(os.path.join(root, n)), (n, where)
        if n in modes:
            assert modes[n] == "100755", (n, modes[n], where)
        else:  # not committed yet: the working tree's mode is what git will take
            assert os.access(os.path.join(root, n), os.X_OK), (n, where)
        with open(os.path.join(root, n), "rb") as f:
            assert f.read(2) == b"#!", (n, where)


def _bare_python():
    # An interpreter without redis-py and mpremote (the .venv's base one), or None.
    import subprocess
    import sys

    base = getattr(sys, "_base_executable", None)
    if not base or base == sys.executable:
        return None
    p = subprocess.run([base, "-c", "import importlib.util as u; print(u.find_spec('redis') is None and "
                        "u.find_spec('mpremote') is None)"], capture_output=True, text=True, timeout=60)
    return base if p.stdout.strip() == "True" else None


# (tool and arguments, exit code, a word of its one line): nothing is listening on the port
# given (a free one), and no board is at /dev/ttyTQNOSUCH.
RUNS = [
    (["fleetctl.py", "install", "--url", "redis://127.0.0.1:{port}/0"], 4, "cannot reach"),
    (["gateway.py", "--url", "redis://127.0.0.1:{port}/0", "--queue", "q", "--local", "--max", "1"], 4, "cannot reach"),
    (["dashboard.py", "--url", "redis://127.0.0.1:{port}/0"], 4, "cannot reach"),
    (["deploy.py", "rp2", "--connect", "/dev/ttyTQNOSUCH"], 4, "cannot reach a MicroPython REPL"),
    (["deploy.py", "rp2", "--connect", "id:TQNOSUCH"], 4, "no device with serial number"),
    (["devtest.py", "--connect", "/dev/ttyTQNOSUCH"], 4, "cannot reach a MicroPython REPL"),
    (["mcu.py", "--help"], 0, "usage:"),
    (["emu.py", "--help"], 0, "usage:"),
    (["mpunix.py", "--help"], 0, "usage:"),
]


def test_the_tools_run_as_written_and_say_unreachable_with_exit_4():
    if IS_MICROPYTHON:
        skip("runs the host tools")
    import os
    import subprocess
    import sys
    import tempfile

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from fleet_server import free_port

    root = _readme_scripts()[0]
    bare = _bare_python()
    with tempfile.TemporaryDirectory() as tmp:
        ways = [("this interpreter", [sys.executable], dict(os.environ))]
        if bare:  # by the shebang (/usr/bin/env python3), python3 being one without the modules
            os.symlink(bare, os.path.join(tmp, "python3"))
            env = dict(os.environ, PATH=tmp + os.pathsep + "/usr/bin:/bin")
            env.pop("PYTHONPATH", None)
            ways.append(("its shebang, python3 without redis-py or mpremote", [], env))
        for how, pre, env in ways:
            for args, code, word in RUNS:
                args = [a.replace("{port}", str(free_port())) for a in args]
                cmd = pre + [os.path.join(root, "tools", args[0])] + args[1:]
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp, env=env)
                out = p.stdout + p.stderr
                assert p.returncode == code and word in out and "Traceback" not in out, (how, cmd, p.returncode, out[-2000:])

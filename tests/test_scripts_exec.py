# Every script the README tells people to run is executable (git mode 100755, a shebang) and
# runs as written, from any folder (issue 22: `tools/fleetctl.py install` was not executable
# and needed the .venv interpreter: README now names the tools/fleetctl and tools/gateway
# wrappers, which run them in .venv as tools/run does). Host only.
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
    for tool in ("fleetctl", "gateway"):
        p = subprocess.run([os.path.join(root, "tools", tool), "--help"], capture_output=True, text=True,
                           timeout=120, cwd=tempfile.gettempdir())
        assert p.returncode == 0 and "usage: %s.py" % tool in p.stdout, (tool, p.stdout, p.stderr[-1000:])

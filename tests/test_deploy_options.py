# ticketq deploy's options for a person's own application (issue 13): --lib-only (the
# library without the worker firmware or board.py) and --add FILE (main.py, application
# modules), checked on the plan that --list prints; on a board, tests/test_microbit_boot.py
# deploys the same way and boots. CPython only (pytest).
import os

from support import skip, IS_MICROPYTHON, raises


def _deploy():
    if IS_MICROPYTHON:
        skip("reads the repository's profiles (host only)")
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
    from ticketq_tools import deploy

    return deploy


def test_lib_only_is_the_library_alone_on_every_board():
    deploy = _deploy()
    for name in ("microbit", "rp2", "esp32", "host"):
        prof = deploy.read_profile(name)
        items = deploy.plan(prof, mpy=bool(prof.get("MPY")), lib_only=True)
        assert items and all(os.path.relpath(i.src, deploy.ROOT).startswith("lib" + os.sep) for i in items), items
        assert {os.path.relpath(i.src, deploy.ROOT) for i in items} == {f for f in prof["FILES"] if f.startswith("lib/")}
        full = deploy.plan(prof, mpy=bool(prof.get("MPY")))
        assert "board.py" in [i.name for i in full] and "board.py" not in [i.name for i in items]


def test_add_puts_your_files_on_by_their_base_name(tmp_path=None):
    deploy = _deploy()
    import subprocess
    import sys
    import tempfile

    ex = os.path.join(deploy.ROOT, "examples", "microbit")
    add = [os.path.join(ex, "main.py"), os.path.join(ex, "application.py")]
    items = deploy.plan(deploy.read_profile("rp2"), mpy=True, lib_only=True, add=add)
    assert [(i.name, i.kind) for i in items[-2:]] == [("main.py", "stripped"), ("application.py", "stripped")]
    d = str(tmp_path) if tmp_path else tempfile.mkdtemp()
    clash = os.path.join(d, "ticketq.py")
    open(clash, "w").close()
    e = raises(deploy.DeployError, deploy.plan, deploy.read_profile("microbit"), False, True, [clash])
    assert "both import as ticketq" in str(e) and "package ticketq/" in str(e), str(e)
    raises(deploy.DeployError, deploy.plan, deploy.read_profile("microbit"), False, True, [os.path.join(d, "nope.py")])
    p = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", "deploy", "microbit", "--list",
                        "--lib-only", "--add", "main.py", "--add", "application.py"],
                       capture_output=True, text=True, cwd=ex, timeout=60)
    assert p.returncode == 0, p.stderr
    names = [l.split("->")[1].split()[0] for l in p.stdout.splitlines() if "->" in l]
    assert names == ["ticketq/core.py", "ticketq/__init__.py", "ticketq/ticks.py",
                     "main.py", "application.py"], p.stdout
    assert "worker" not in p.stdout and "board.py  " not in p.stdout



def test_the_microbit_gets_the_library_without_its_version_line():
    # boards/microbit/board.py DROP: __version__ cost that board's import 0.3 KB (measured);
    # every other board, and CPython, keep it.
    deploy = _deploy()
    for name in ("microbit", "rp2", "esp32", "host"):
        prof = deploy.read_profile(name)
        item = [i for i in deploy.plan(prof) if i.name == "ticketq/__init__.py"]
        if not item:  # an .mpy board: compiled from the file as it is
            assert prof.get("MPY") and "DROP" not in prof, name
            continue
        text = deploy.payload(item[0], None, prof.get("DROP", ())).decode()
        assert ("__version__" in text) == (name != "microbit"), name
        # ticketq.WHY's assignment and the `as e` that feeds it: not on the micro:bit
        assert ("WHY = str(e)" in text and " as e:" in text) == (name != "microbit"), name
        assert ("from ticketq.ccore import TicketQueue, PATH, WHY" in text) == (name != "microbit")
        assert "from ticketq.core import TicketQueue" in text  # the queue itself: ticketq/core.py
        assert '"""' not in text and "A *ticket* is" not in text  # no docstring on a source board
    board = [i for i in deploy.plan(deploy.read_profile("microbit")) if i.name == "board.py"][0]
    assert "DROP" not in deploy.payload(board).decode()


def test_bad_options_are_usage_errors_before_any_board_is_reached(tmp_path=None):
    # A missing --add file was exit 1 ("the board failed"), and only after the emulator had
    # started and the board had been reached; --retries -1 and --timeout -5 were taken.
    deploy = _deploy()
    import subprocess
    import sys
    import tempfile

    d = str(tmp_path) if tmp_path else tempfile.mkdtemp()
    open(os.path.join(d, "ticketq.py"), "w").close()
    for args, want in ((["--add", "nope.py"], "--add nope.py: no such file"),
                       (["--add", "ticketq.py"], "both import as ticketq"),
                       (["--retries", "-1"], "--retries"),
                       (["--timeout", "-5"], "--timeout"),
                       (["--timeout", "nan"], "--timeout")):
        for target in (["--connect", os.path.join(d, "no-such-tty")], ["--list"]):
            p = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", "deploy", "microbit"] + args + target,
                               capture_output=True, text=True, cwd=d, timeout=60)
            assert p.returncode == 2 and want in p.stderr and "Traceback" not in p.stderr, (args, target, p.returncode, p.stderr)
            assert "cannot reach" not in p.stderr and p.stdout == "", (args, p.stdout, p.stderr)
            # the error names the option given, not every option's rule (it said "--retries:
            # at least 0; --timeout: more than 0 seconds" for either)
            other = "--timeout" if args[0] == "--retries" else "--retries"
            assert other not in p.stderr.split("error:", 1)[1], (args, p.stderr)


def test_a_file_that_is_not_a_profile_is_named_not_a_traceback(tmp_path=None):
    # --board PATH took any file: a text file or a binary one ended in a SyntaxError or
    # UnicodeDecodeError traceback from tools/run, deploy.py and devtest.py.
    deploy = _deploy()
    import tempfile

    d = str(tmp_path) if tmp_path else tempfile.mkdtemp()
    for data in (b"root:x:0:0:root:/root:/bin/bash\n", b"\x7fELF\x01\xff\xfe\x00"):
        path = os.path.join(d, "board.py")
        with open(path, "wb") as f:
            f.write(data)
        e = raises(deploy.DeployError, deploy.read_profile, path)
        assert "not a board profile" in str(e) and path in str(e), str(e)


def test_an_added_module_may_not_shadow_a_profiles_mpy():
    # On rp2 the profile puts ticketq/core.mpy on; `--add lib/ticketq/core.py` would put
    # ticketq/core.py beside it, which MicroPython imports first (.py before .mpy): the board
    # would run the stripped source, without the .mpy's RAM saving, and nothing said so. The
    # same module under two names is refused like two files under one name, before any
    # board is reached.
    deploy = _deploy()
    prof = deploy.read_profile("rp2")
    assert prof.get("MPY")
    lib = os.path.join(deploy.ROOT, "lib")
    e = raises(deploy.DeployError, lambda: deploy.plan(prof, mpy=True, lib_only=True,
                                                       add=[os.path.join(lib, "ticketq", "core.py")]))
    assert "both import as ticketq.core" in str(e), str(e)
    # a module the profile leaves off goes on at its place in the package
    # (docs/boards.md: --add lib/ticketq/lanes.py)
    items = deploy.plan(prof, mpy=True, lib_only=True, add=[os.path.join(lib, "ticketq", "lanes.py")])
    assert ("ticketq/lanes.py", "stripped") in [(i.name, i.kind) for i in items]


def test_boards_md_says_which_profile_modules_the_worker_does_not_import():
    # docs/boards.md lists a profile's FILES as "what the worker imports"; every library
    # module there that no firmware file imports (directly or through the library) must be
    # named as such on that page, so a person trimming a board knows what the worker needs.
    deploy = _deploy()
    import ast

    def imports(path):
        with open(path) as f:
            tree = ast.parse(f.read())
        out = set()
        for n in ast.walk(tree):
            if isinstance(n, ast.Import):
                out.update(a.name for a in n.names)
            elif isinstance(n, ast.ImportFrom) and n.module:
                out.add(n.module)
        return out

    root = deploy.ROOT
    sys_path = __import__("sys").path
    sys_path.insert(0, os.path.join(root, "tools"))
    from ticketq_tools import libnames

    seen = set()
    todo = [os.path.join(root, "firmware", f) for f in ("worker.py", "shell.py", "workload.py")]
    while todo:
        for m in imports(todo.pop()):
            parts = m.split(".")
            for k in range(1, len(parts) + 1):  # `import ticketq.ticks` imports ticketq too
                p = libnames.file_of(".".join(parts[:k]))
                if ".".join(parts[:k]) not in seen and p:
                    seen.add(".".join(parts[:k]))
                    todo.append(os.path.join(root, p))
    assert {"ticketq", "ticketq.core", "ticketq.ticks"} <= seen, seen
    with open(os.path.join(root, "docs", "boards.md")) as f:
        text = " ".join(f.read().split())
    for name in ("rp2", "esp32", "host"):
        for f in deploy.read_profile(name)["FILES"]:
            if not f.startswith("lib/"):
                continue
            m = libnames.module_name(f)
            if m.startswith("ticketq_"):  # a deprecated 0.1.0 name: named on the page as such
                assert "`%s`" % m in text, (name, m)
            elif m not in seen and m != libnames.VIPER:
                assert "`%s` (not imported by the worker" % m in text, (name, m)


def test_deploy_makes_the_package_folder_on_a_board_with_folders(tmp_path=None):
    # ticketq deploy on a board with a file system of folders: the unix port's REPL standing
    # in for one (ticketq mpunix's board(), over mpremote as a real board). The package's
    # modules go into a ticketq/ folder it makes there, stripped of docstrings, verified;
    # a second deploy finds them unchanged; then an interpreter started in that folder
    # imports the package and its modules from it.
    deploy = _deploy()
    import subprocess
    import tempfile

    from ticketq_tools import mpunix

    exe = mpunix.find()[0]
    if not exe:
        skip("no MicroPython unix port here (ticketq mpunix --where)")
    try:
        import mpremote  # noqa: F401
    except ImportError:
        skip("mpremote is not installed (tools/setup)")
    home = str(tmp_path) if tmp_path else tempfile.mkdtemp()
    # stripped source, no MARCH (any port takes it); a few files, each write is slow here
    prof = {"NAME": "t", "MPY": False, "_path": "/nonexistent/board.py",
            "FILES": ["lib/ticketq/core.py", "lib/ticketq/__init__.py", "lib/ticketq/ticks.py"]}
    logs = []
    with mpunix.board(home) as url:
        with deploy.Board(url, soft_reset=False) as b:  # a soft reset would end the unix port
            res = deploy.deploy(b, prof, lib_only=True, log=logs.append)
            again = deploy.deploy(b, prof, lib_only=True, log=logs.append)
            on_board = b.files()
    names = [r.name for r in res]
    assert "ticketq/__init__.py" in names and "ticketq/core.py" in names and "ticketq/ticks.py" in names, names
    assert all(r.status.startswith("written") for r in res), res
    assert [r.status for r in again] == ["unchanged"] * len(again), again
    assert set(names) <= set(on_board), (names, on_board)
    with open(os.path.join(home, "ticketq", "__init__.py")) as f:
        text = f.read()
    assert '"""' not in text and "from ticketq.core import" in text  # stripped, the code kept
    code = ("import ticketq\nfrom ticketq.ticks import Deadline\nq = ticketq.TicketQueue(4)\n"
            "q.push(3, ticketq.HIGH)\nprint(q.pop(), ticketq.__file__, Deadline(10).expired())")
    env = dict(os.environ, MICROPYPATH="")  # only the folder itself: "" on sys.path is the cwd
    p = subprocess.run([exe, "-c", code], cwd=home, env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["3", "ticketq/__init__.py", "False"], p.stdout  # from the folder (cwd)


def test_the_c_core_goes_on_only_for_the_boards_own_architecture(tmp_path=None):
    # ticketq deploy --c-core (docs/c-core.md): the native .mpy whose header names the board's
    # architecture and .mpy version (sys.implementation._mpy) goes on as _ticketq.mpy beside
    # the package, and ticketq then runs its C path there; any other is refused, saying which
    # to take, before anything is written. On the unix port as the board (x86).
    if IS_MICROPYTHON:
        skip("drives a board from the host (CPython)")
    deploy = _deploy()
    import subprocess
    import tempfile

    from ticketq_tools import ccore, mpunix

    exe = mpunix.find()[0]
    if not exe:
        skip("no MicroPython unix port here (ticketq mpunix --where)")
    if ccore.available("x86"):
        skip(ccore.available("x86"))
    mpy = int(subprocess.run([exe, "-c", "import sys; print(sys.implementation._mpy)"], capture_output=True,
                             text=True, timeout=60).stdout)
    if deploy.mpy_arch(mpy) != "x86":
        skip("this unix port is not the 32-bit x86 one")
    x86 = deploy.natmod_for(mpy, "auto", log=lambda m: None)
    assert deploy.natmod_for(mpy, x86) == x86
    arm = ccore.build("armv6m", log=lambda m: None) if not ccore.available("armv6m") else None
    if arm:
        e = raises(deploy.DeployError, deploy.natmod_for, mpy, arm)
        assert "native code for armv6m, but the board's MicroPython reports x86" in str(e), e
        assert "ticketq firmware natmod x86" in str(e), e
        e = raises(deploy.DeployError, deploy.natmod_for, (mpy & 0x3FF) | (4 << 10), x86)  # an armv6m board
        assert "native code for x86, but the board's MicroPython reports armv6m" in str(e), e
    e = raises(deploy.DeployError, deploy.natmod_for, (mpy & 0xFF) | (((mpy >> 8) & 3) ^ 1) << 8 | (1 << 10), x86)
    assert "is .mpy version" in str(e), e
    e = raises(deploy.DeployError, deploy.natmod_for, mpy & 0x3FF, x86)
    assert "no native architecture" in str(e), e
    home = str(tmp_path) if tmp_path else tempfile.mkdtemp()
    prof = {"NAME": "t", "MPY": False, "_path": "/nonexistent/board.py",
            "FILES": ["lib/ticketq/core.py", "lib/ticketq/__init__.py", "lib/ticketq/ccore.py"]}
    with mpunix.board(home) as url:
        with deploy.Board(url, soft_reset=False) as b:
            if arm:  # refused before anything is written
                try:
                    deploy.deploy(b, prof, lib_only=True, log=lambda m: None, ccore=arm)
                except deploy.DeployError as e:
                    assert "native code for armv6m" in str(e), e
                else:
                    assert False, "an armv6m C core went onto an x86 board"
                assert not b.files(), b.files()
            res = deploy.deploy(b, prof, lib_only=True, log=lambda m: None, ccore="auto")
    assert "_ticketq.mpy" in [r.name for r in res], res
    code = "import ticketq\nq = ticketq.TicketQueue(4)\nq.push(3, 1)\nprint(ticketq.PATH, q.pop())"
    p = subprocess.run([exe, "-c", code], cwd=home, env=dict(os.environ, MICROPYPATH=""), capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["c", "3"], p.stdout

# CPython only: what a newcomer reads first stays true. The REPL examples of README.md and
# of docs/*.md are run as doctests; README's quick start is the two commands, and they are
# there; its code examples import only modules that every board profile deploys (and
# docs/microbit.md's, and examples/microbit's, only what the micro:bit profile deploys);
# every relative link of those pages leads to a file, and every docs page is reached from
# README by following links.
import os
import re

from support import IS_MICROPYTHON, skip

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..") if not IS_MICROPYTHON else ""


def _host():
    if IS_MICROPYTHON:
        skip("reads README.md and docs/ and uses doctest (host only)")


def _pages():
    docs = sorted(os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
    return ["README.md"] + docs


def _read(page):
    with open(os.path.join(ROOT, page), encoding="utf-8") as f:
        return f.read()


def _blocks(text, lang="python"):
    return re.findall(r"```%s\n(.*?)```" % lang, text, re.S)


def test_readme_and_docs_repl_examples():
    _host()
    import doctest

    parser = doctest.DocTestParser()
    tries = {}
    for page in _pages():
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        for i, block in enumerate(b for b in _blocks(_read(page)) if ">>>" in b):
            runner.run(parser.get_doctest(block, {}, "%s block %d" % (page, i), page, 0))
        assert runner.failures == 0, (page, runner.failures)
        tries[page] = runner.tries
    assert tries["README.md"] >= 8, tries
    for page in ("docs/queue.md", "docs/deadlines.md", "docs/main-job.md", "docs/microbit.md"):
        assert tries[page] >= 4, tries


def test_quick_start_is_the_two_commands():
    _host()
    text = _read("README.md")
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = [l.split("#")[0].strip() for l in _blocks(quick, "sh")[0].splitlines()]
    assert commands == ["./tools/run", "./tools/test"], commands
    for c in commands:
        assert os.access(os.path.join(ROOT, c), os.X_OK), c


def _imports(code):
    # The modules a code example imports (import, from ... import, __import__("...")).
    import ast

    lines = [re.sub(r"^(>>> |\.\.\. )", "", l) for l in code.splitlines()
             if not code.lstrip().startswith(">>>") or l.startswith((">>> ", "... "))]
    tree = ast.parse("\n".join(lines))
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):  # a package module counts with its package
            out |= {p for a in n.names for p in (a.name, a.name.split(".")[0])}
        elif isinstance(n, ast.ImportFrom) and n.module:
            out |= {n.module, n.module.split(".")[0]}
        elif isinstance(n, ast.Call) and getattr(n.func, "id", "") == "__import__" and n.args:
            out.add(n.args[0].value)
    return out


def _dotted(path):
    # "lib/ticketq/core.py" -> "ticketq.core", "lib/ticketq/__init__.py" -> "ticketq",
    # "lib/ticketq_lanes.py" -> "ticketq_lanes", "firmware/worker.py" -> "worker"
    parts = path[:-3].split("/")[1:]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _profile_modules(name):
    import ast

    # FILES, and FROZEN: a firmware's own modules (boards/microbit-frozen)
    found = None
    for node in ast.parse(_read(os.path.join("boards", name, "board.py"))).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") in ("FILES", "FROZEN"):
            mods = {_dotted(f) for f in ast.literal_eval(node.value) if f.endswith(".py")}
            found = (found or set()) | mods
    if found is None:
        raise AssertionError("boards/%s/board.py: no FILES" % name)
    return found


def _project_modules():
    out = set()
    for d in ("lib", "firmware"):
        for folder, _, files in os.walk(os.path.join(ROOT, d)):
            rel = os.path.relpath(folder, ROOT).replace(os.sep, "/")
            out |= {_dotted(rel + "/" + f) for f in files if f.endswith(".py")}
    return out


def test_examples_import_only_what_the_boards_get():
    # README's examples are for every board; docs/microbit.md's and examples/microbit's
    # for the micro:bit profile (the Deadline example once imported modules it lacked).
    _host()
    boards = [b for b in os.listdir(os.path.join(ROOT, "boards")) if os.path.isfile(os.path.join(ROOT, "boards", b, "board.py"))]
    every = set.intersection(*[_profile_modules(b) for b in boards])
    ours = _project_modules()
    readme = set().union(*[_imports(b) for b in _blocks(_read("README.md"))])
    assert {"ticketq", "ticketq.ticks"} <= readme
    # ticketq.fleet is the host side of the fleet tier (redis-py, on CPython gateways):
    # its README example is for a host, not a board.
    assert readme & ours - {"ticketq.fleet"} <= every, sorted(readme & ours - every)
    mb = _profile_modules("microbit")
    page = set().union(*[_imports(b) for b in _blocks(_read(os.path.join("docs", "microbit.md")))])
    ex = os.path.join("examples", "microbit")
    for f in os.listdir(os.path.join(ROOT, ex)):
        page |= _imports(_read(os.path.join(ex, f)))
    assert "application" in page and "ticketq.ticks" in page
    assert page - {"application", "microbit"} <= mb & ours, sorted(page - mb)


def test_links_lead_somewhere_and_every_page_is_reached_from_readme():
    _host()
    links = {}
    for page in _pages():
        base = os.path.dirname(page)
        links[page] = set()
        for target in re.findall(r"\]\(([^)#\s]+)\)", _read(page)):
            if "://" in target:
                continue
            path = os.path.normpath(os.path.join(base, target))
            assert os.path.exists(os.path.join(ROOT, path)), (page, target)
            links[page].add(path)
    seen, todo = set(), ["README.md"]
    while todo:  # the pages a reader reaches from README, following links
        page = todo.pop()
        if page not in seen:
            seen.add(page)
            todo += [p for p in links.get(page, ()) if p in links]
    assert seen == set(_pages()), "not linked from README or its pages: %s" % sorted(set(_pages()) - seen)


def test_quoted_stripped_sizes_are_the_files():
    # "`ticketq/lanes.py` is 5.8 KB stripped" stayed in docs/lanes.md and the micro:bit
    # profile while the module grew to 6.4 KB: every "N KB stripped" quoted for a module is
    # its stripped size now (tools/deploy.py's strip_source, in KB of 1024 B to one
    # decimal), and the "~M KB" it needs to compile is three times that, rounded.
    _host()
    import sys

    sys.path.insert(0, os.path.join(ROOT, "tools"))
    from ticketq_tools import deploy

    seen = 0
    for page in _pages() + [os.path.join("boards", "microbit", "board.py")]:
        text = _read(page)
        for mod, kb, need in re.findall(r"(ticketq(?:[/.]\w+|\w*))(?:\.py`? is|\W[^)]*?,) ([\d.]+) KB stripped\)?[^~]*~(\d+) KB", text):
            with open(os.path.join(ROOT, "lib", mod.replace(".", "/") + ".py"), encoding="utf-8") as f:
                size = len(deploy.strip_source(f.read()).encode()) / 1024
            assert "%.1f" % size == kb, (page, mod, kb, size)
            assert int(need) == round(3 * size), (page, mod, need, size)
            seen += 1
    assert seen >= 2, seen


def test_microbit_boot_output_is_the_examples():
    # docs/microbit.md shows what examples/microbit prints at boot: the same lines as the
    # application prints on CPython (tests/test_microbit_boot.py checks the board prints
    # them too), and the heap figure, which shifts with any change, marked as measured once.
    _host()
    import tempfile

    from test_microbit_boot import _on_cpython

    text = _read(os.path.join("docs", "microbit.md"))
    block = re.findall(r"\n```\n(-- main\.py at boot:\n.*?)```", text, re.S)
    assert len(block) == 1, block
    lines = block[0].splitlines()
    assert lines[1:-1] == _on_cpython(tempfile.mkdtemp()), lines
    assert re.match(r"-- heap free after it: \d+ B$", lines[-1]), lines[-1]
    after = text.split(block[0], 1)[1].split("\n\n", 2)[1]
    assert "measured once" in after, after


def test_layout_and_changelog_name_every_module_and_tool():
    # docs/boards.md's repository layout and CHANGELOG.md's first version were written
    # before fair lanes, the fleet tier and the viper path, and named none of them: every
    # folder, library module and tool is named in the layout, every library module in the
    # changelog.
    _host()
    import subprocess

    layout = _read(os.path.join("docs", "boards.md")).split("## Repository layout", 1)[1]
    changes = _read("CHANGELOG.md")
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if not files:
        skip("not a git checkout")
    folders = {f.split("/")[0] for f in files if "/" in f and not f.startswith(".")}
    missing = [d for d in folders if not re.search(r"^%s/" % d, layout, re.M)]
    # the library's modules: drawn in docs/layout.md (the package), listed there (the
    # deprecated names)
    mods = {f[4:-3] for f in files if f.startswith("lib/") and f.endswith(".py")}
    lib_layout = _read(os.path.join("docs", "layout.md"))
    missing += ["docs/layout.md: " + m for m in mods if "`%s`" % _dotted("lib/" + m + ".py") not in lib_layout
                and " %s " % _dotted("lib/" + m + ".py") not in lib_layout]
    tools = {f.split("/")[1] for f in files if f.startswith("tools/") and f.count("/") == 1 and
             not f.endswith((".txt", ".json"))}
    missing += ["tools/" + t for t in tools if t not in layout]
    assert not missing, "docs/boards.md's layout (folders, tools) or docs/layout.md (the library) does not name %s" % sorted(missing)
    unnamed = [m for m in mods if "`%s`" % _dotted("lib/" + m + ".py") not in changes]
    assert not unnamed, "CHANGELOG.md does not name %s" % sorted(unnamed)


def test_readme_lanes_figures_are_the_demonstrations():
    # README quotes tools/lanes_demo.py's default run in prose: the same figures as its summary.
    _host()
    import sys

    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import lanes_demo

    text = " ".join(_read("README.md").split())
    got = re.search(r"quiet one waits up to (\d+) pops and loses (\d+) of (\d+) pushes; with 1:1 lanes at most (\d+) pop", text)
    assert got, "README's lanes figures not found"
    summary = " ".join(" ".join(lanes_demo.summary(lanes_demo.run())).split())
    want = re.search(r"strict FIFO: the quiet source waits up to (\d+) pops .*?, and (\d+) of its (\d+) pushes are "
                     r"refused.*lanes: the quiet source waits at most (\d+) pop", summary)
    assert want and got.groups() == want.groups(), (got.groups(), want and want.groups())


def test_boards_page_says_what_deploy_leaves_off():
    # README sends rp2 and esp32 users to docs/boards.md, whose step 2 is tools/deploy.py;
    # lanes.md says fair lanes run on every target but the micro:bit. A profile's FILES are
    # the worker's modules, though: `tools/deploy.py rp2` put no ticketq.lanes (nor
    # ticketq.aio, ticketq.resp ...) on the board, and `import ticketq.lanes` failed there
    # with nothing on the page saying so. Every package module mip installs (package.json)
    # that a profile other than the micro:bit's leaves off is named in that step, with the
    # route (`--add lib/ticketq/...`) that puts it on. (The deprecated flat names follow
    # their package module; they are for old code, not named here.)
    _host()
    import json

    with open(os.path.join(ROOT, "package.json"), encoding="utf-8") as f:
        mip = {_dotted("lib/" + u[0]) for u in json.load(f)["urls"] if u[0].endswith(".py")}
    mip = {m for m in mip if not m.startswith("ticketq_")}
    left = set()
    for b in os.listdir(os.path.join(ROOT, "boards")):
        if b != "microbit" and os.path.isfile(os.path.join(ROOT, "boards", b, "board.py")):
            left |= mip - _profile_modules(b) - {"ticketq.viper"}
    assert "ticketq.lanes" in left, left  # what this test is about
    step = _read(os.path.join("docs", "boards.md")).split("## On a real board", 1)[1].split("\n3. ", 1)[0]
    step = " ".join(step.split())
    assert "--add lib/ticketq/lanes.py" in step, step
    missing = sorted(m for m in left if "`%s`" % m not in step)
    assert not missing, "docs/boards.md's deploy step does not name %s" % missing


def test_speed_figures_name_their_run():
    # README and docs/speed.md quote ratios to three digits (24.4x on the viper path). Two
    # runs of tools/bench/run.py on another 2-core machine, minutes apart, gave 31.4x and
    # 50.1x for the same cell: both ticketq's time and the tuple baseline's move between
    # runs. So README and speed.md say the figures are one run's, and speed.md names that
    # run's CPU (results.json, as BENCHMARKS.md does) and how far other runs moved.
    _host()
    import json

    with open(os.path.join(ROOT, "tools", "bench", "results.json"), encoding="utf-8") as f:
        cpu = json.load(f)["machine"]["cpu"].split(",")[0]
    text = " ".join(_read(os.path.join("docs", "speed.md")).split())
    after = text.split("<!-- end of the generated speed table -->", 1)[1].split("## ", 1)[0]
    assert cpu in after, (cpu, after)
    assert "one run" in after.lower() and "baseline" in after, after
    speed = " ".join(_read("README.md").split("## Speed", 1)[1].split("\n## ", 1)[0].split())
    assert "one run" in speed, speed

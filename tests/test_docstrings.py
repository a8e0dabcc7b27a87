# The library's documentation lives once, in the source (issue 23): every public module,
# class and function of lib/ (the package lib/ticketq/) carries
# its docstring where help() and an editor find it, and the .pyi stubs carry the types only,
# checked against the source rather than kept in step by hand: ticketq stubdocs's check
# resolves each stub name to its definition (through a class's bases and `from MODULE import
# NAME`) and reports a docstring written twice, a stub definition the source lacks or leaves
# undocumented, a stub whose parameters are not the source's, a public definition without a
# docstring. Boards never see the docstrings: mpy-cross and freezing drop them,
# ticketq deploy strips them from the source it puts on a board that compiles it
# (test_deploy_*). CPython only.
from support import skip, IS_MICROPYTHON


def _stubdocs():
    if IS_MICROPYTHON:
        skip("reads lib/ with CPython's ast")
    import os
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tools = os.path.join(root, "tools")
    if tools not in sys.path:
        sys.path.insert(0, tools)
    from ticketq_tools import stubdocs

    return stubdocs, os.path.join(root, "lib")


def test_the_stubs_match_the_sources_and_every_public_definition_is_documented():
    stubdocs, lib = _stubdocs()
    problems, counts = stubdocs.check(lib)
    assert not problems, "\n".join(problems)
    # What the check covered: the package's stubs, most of their
    # definitions found in the source and their parameters compared.
    sources, stubs = stubdocs.load(lib)
    package = sorted(m for m in sources if m == "ticketq" or m.startswith("ticketq."))
    assert package == ["ticketq", "ticketq.aio", "ticketq.audit", "ticketq.ccore", "ticketq.core", "ticketq.fleet",
                       "ticketq.keyed", "ticketq.lanes", "ticketq.resp", "ticketq.sentinel", "ticketq.ticks",
                       "ticketq.viper"], package
    assert len(stubs) >= 8 and counts["checked"] >= 90 and counts["signatures"] >= 70, counts
    assert counts["documented"] >= 90, counts


def test_every_package_module_has_its_own_docstring():
    # Written for the module it opens: names that module (not one merged into it) and is not
    # the concatenation of two (one summary line: no second "ticketq.x:" opening further down).
    stubdocs, lib = _stubdocs()  # skips on MicroPython, before the CPython-only imports
    import ast

    sources, _ = stubdocs.load(lib)
    for module, src in sorted(sources.items()):
        doc = ast.get_docstring(src.tree)
        assert doc, module
        first = doc.split("\n", 1)[0]
        assert first.startswith(module + ":"), (module, first)
        others = [l for l in doc.splitlines()[1:] if l.startswith("ticketq.") and l.split(":")[0] in sources]
        assert not others, (module, others)


def test_the_check_fails_on_drift():
    # The check can fail: in a copy of lib/, a stub parameter renamed, a docstring copied
    # into a stub, a source docstring turned into a string statement further down, a stub
    # method the source does not have: each is reported, and nothing else (the viper class's
    # push no longer inherits a docstring either).
    stubdocs, lib = _stubdocs()  # skips on MicroPython, before the CPython-only imports
    import os
    import shutil
    import tempfile

    def edit(path, old, new):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        assert old in text, (path, old)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new, 1))

    tmp = tempfile.mkdtemp()
    try:
        copy = os.path.join(tmp, "lib")
        shutil.copytree(lib, copy)
        stub = os.path.join(copy, "ticketq", "ticks.pyi")
        edit(stub, "    def advance(self, ms: int) -> None:", "    def advance(self, n: int) -> None:")
        edit(stub, "    def rearm(self, timeout_ms: Optional[int]) -> None:",
             '    def rearm(self, timeout_ms: Optional[int]) -> None:\n        """Twice."""')
        edit(stub, "    def expired(self) -> bool:", "    def gone(self) -> bool: ...\n\n    def expired(self) -> bool:")
        edit(os.path.join(copy, "ticketq", "core.py"), '    def push(self, job_id, priority):\n        """Queue',
             '    def push(self, job_id, priority):\n        0\n        """Queue')
        problems, _ = stubdocs.check(copy)
    finally:
        shutil.rmtree(tmp)
    want = ["ticketq.ticks.FakeClock.advance: the stub's parameters",
            "ticketq.ticks.Deadline.rearm: documented in the stub and in the source",
            "ticketq.ticks.Deadline.gone: in the stub, not defined by the source's class",
            "ticketq.TicketQueue.push: in the stub, no docstring in the source",
            "ticketq.core.TicketQueue.push: public, without a docstring in the source",
            "ticketq.viper.TicketQueue.push: public, without a docstring in the source"]
    for w in want:
        assert [p for p in problems if p.startswith(w)], (w, problems)
    assert len(problems) == len(want), problems


def test_the_check_sees_async_defs():
    # An ``async def`` is a function too (ast.AsyncFunctionDef, not ast.FunctionDef): in a copy
    # of lib/, a public coroutine method without a docstring is reported, as a def would be,
    # and the stub's async pop_until is resolved to the source's and its parameters compared.
    stubdocs, lib = _stubdocs()  # skips on MicroPython, before the CPython-only imports
    import os
    import shutil
    import tempfile

    tmp = tempfile.mkdtemp()
    try:
        copy = os.path.join(tmp, "lib")
        shutil.copytree(lib, copy)
        path = os.path.join(copy, "ticketq", "aio.py")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        old = "    async def pop_until(self, deadline):\n"
        assert old in text
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(old, "    async def drain(self):\n        return 0\n\n" + old, 1))
        problems, counts = stubdocs.check(copy)
        sources, stubs = stubdocs.load(copy)
        found = stubdocs.resolve(sources, "ticketq.aio", "AsyncTickets.pop_until")
    finally:
        shutil.rmtree(tmp)
    assert "ticketq.aio.AsyncTickets.drain: public, without a docstring in the source" in problems, problems
    assert found is not None and found[1].name == "pop_until", found


def test_help_shows_the_source_docstrings():
    if IS_MICROPYTHON:
        skip("CPython's pydoc")
    import pydoc

    import ticketq
    import ticketq.ticks as ticks

    text = pydoc.render_doc(ticketq.TicketQueue.push, renderer=pydoc.plaintext)
    assert "Queue a ticket; return its sequence number" in text, text[:800]
    text = pydoc.render_doc(ticketq.TicketQueue.remove, renderer=pydoc.plaintext)
    assert "Remove the oldest queued ticket" in text, text[:800]
    assert "A point in tick time" in (ticks.Deadline.__doc__ or ""), ticks.Deadline.__doc__
    import ticketq.aio as aio

    text = pydoc.render_doc(aio.AsyncTickets.pop_until, renderer=pydoc.plaintext)
    assert "waiting until ``deadline`` for one to arrive" in text and "Timeout" in text, text[:800]
    text = pydoc.render_doc(ticketq, renderer=pydoc.plaintext)
    assert "ticketq.core" in text and "ticketq.ticks" in text, text[:800]


def test_help_on_a_keyed_queues_methods_shows_their_docstrings():
    # A keyed LaneQueue binds its own push, pop, ... per instance (ticketq.keyed: self.push =
    # self._kpush); help(k.push) shows the bound function's docstring, which must say what
    # differs for keyed lanes and point to LaneQueue's method for the rest.
    if IS_MICROPYTHON:
        skip("CPython's pydoc")
    import pydoc

    import ticketq.lanes as lanes

    k = lanes.LaneQueue(8, max_lanes=2)
    names = ("push", "pop", "peek", "remove", "clear", "lane_len", "set_lane", "lane_settings")
    for name in names:
        method = getattr(k, name)
        assert method.__name__ == "_k" + name, (name, method)  # the keyed binding, not the class's
        text = " ".join(pydoc.render_doc(method, renderer=pydoc.plaintext).split())
        assert "LaneQueue.%s for keyed lanes" % name in text, (name, text[:600])
        assert "See LaneQueue.%s" % name in text and "O(" in text, (name, text[:1200])


def test_the_command_reports_no_drift():
    # ticketq stubdocs, as a person runs it: the same check, one line, exit 0.
    stubdocs, lib = _stubdocs()
    import os
    import subprocess
    import sys

    tool = "stubdocs"
    p = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", tool], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.strip().endswith(": no drift"), (p.stdout, p.stderr)

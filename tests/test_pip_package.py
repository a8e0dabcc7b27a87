# The pip package (pyproject.toml, hatchling) for CPython gateways and test suites (issue
# 13): built offline from this checkout, installed into a fresh virtual environment, it
# imports there (not from the checkout) at the version package.json states: the package
# ticketq/, every file as lib/ has it, each .pyi stub beside
# its module; help() shows the documentation the sources carry; and
# pyright, given only that environment, reports a wrong argument type from the installed
# stubs (the sources carry no annotations, so only a stub can say job_id is an int).
# CPython only (pytest).
from support import skip, IS_MICROPYTHON


def test_pip_package_installs_the_modules_with_their_stubs(tmp_path=None):
    if IS_MICROPYTHON:
        skip("builds a wheel with CPython's pip")
    import json
    import os
    import subprocess
    import sys

    try:
        import hatchling  # noqa: F401  (the build backend, from requirements-dev.txt)
    except ImportError:
        skip("hatchling is not installed (tools/setup)")
    from wheelbuild import QUIET as quiet, ROOT as root, build

    tmp, wheel = build(tmp_path)
    wheels = [wheel]
    with open(os.path.join(root, "package.json")) as f:
        version = json.load(f)["version"]
    assert [os.path.basename(w) for w in wheels] == ["ticketq-%s-py3-none-any.whl" % version]

    venv = os.path.join(tmp, "venv")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True, timeout=300)
    py = os.path.join(venv, "bin", "python")
    p = subprocess.run([py, "-m", "pip", "install"] + quiet + [wheels[0]], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    code = ("import glob, os, pydoc, ticketq, ticketq.ticks\n"
            "q = ticketq.TicketQueue(4); q.push(7, ticketq.HIGH)\n"
            "site = os.path.dirname(os.path.dirname(ticketq.__file__))\n"
            "print(ticketq.__version__, q.pop(), site)\n"
            "print(' '.join(sorted(os.path.relpath(p, site) for p in glob.glob(os.path.join(site, 'ticketq*.py*'))\n"
            "                      + glob.glob(os.path.join(site, 'ticketq', '*.py*')))))\n"
            "print(pydoc.render_doc(ticketq.TicketQueue.push, renderer=pydoc.plaintext))\n"
            "print(pydoc.render_doc(ticketq.TicketQueue.remove, renderer=pydoc.plaintext))\n"
            "print(pydoc.render_doc(ticketq.ticks.Deadline, renderer=pydoc.plaintext))\n")
    p = subprocess.run([py, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp)
    assert p.returncode == 0, p.stderr
    head, files, helptext = p.stdout.split("\n", 2)
    v, popped, site = head.split()
    assert (v, popped) == (version, "7") and site.startswith(venv), head
    lib = os.path.join(root, "lib")
    want = [f for f in os.listdir(lib) if f.endswith((".py", ".pyi"))]
    want += ["ticketq/" + f for f in os.listdir(os.path.join(lib, "ticketq")) if f.endswith((".py", ".pyi"))]
    assert files.split() == sorted(want), files
    assert "ticketq/__init__.pyi" in want and "ticketq/ticks.pyi" in want and not any(f.startswith("ticketq_") for f in want)
    # help(), as at the REPL: the sources' docstrings, for a method defined in a base class too
    assert "Queue a ticket; return its sequence number" in helptext, helptext[:2000]
    assert "Remove the oldest queued ticket" in helptext and "A point in tick time" in helptext, helptext[:3000]
    for f in files.split():  # every file as lib/ has it
        with open(os.path.join(site, f), encoding="utf-8") as a, open(os.path.join(lib, f), encoding="utf-8") as b:
            assert a.read() == b.read(), f

    try:
        import pyright  # noqa: F401  (tools/typecheck-requirements.txt)
    except ImportError:
        skip("pyright is not installed (tools/setup): the stubs were not checked in an editor's place")
    use = os.path.join(tmp, "use.py")
    with open(use, "w") as f:
        f.write("import ticketq\nq = ticketq.TicketQueue(4)\nq.push('job-7', ticketq.HIGH)\n")
    p = subprocess.run([sys.executable, "-m", "pyright", "--outputjson", "--pythonpath", py, use],
                       capture_output=True, text=True, timeout=300, cwd=tmp)
    out = json.loads(p.stdout)
    errors = [d for d in out["generalDiagnostics"] if d["severity"] == "error"]
    assert len(errors) == 1 and errors[0]["range"]["start"]["line"] == 2, out["generalDiagnostics"]
    assert "job_id" in errors[0]["message"] and '"int"' in errors[0]["message"], errors[0]["message"]


def test_stubdocs_help_is_help_not_a_folder(tmp_path=None):
    # `ticketq stubdocs --help` wrote the merged copies of lib/ into a folder named --help.
    if IS_MICROPYTHON:
        skip("runs ticketq stubdocs on CPython")
    import os
    import subprocess
    import sys
    import tempfile

    d = str(tmp_path) if tmp_path else tempfile.mkdtemp()
    tool = "stubdocs"
    p = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", tool, "--help"], cwd=d, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "OUTDIR" in p.stdout and os.listdir(d) == [], (p.stdout, os.listdir(d))
    p = subprocess.run([sys.executable, "-m", "ticketq_tools.cli", tool, "out"], cwd=d, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "__init__.py" in os.listdir(os.path.join(d, "out", "ticketq")), p.stderr

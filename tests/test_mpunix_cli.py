# ticketq mpunix's header names the hot path ticketq really runs there, asked of ticketq
# itself: a 64-bit unix port's default is the bytecode path (ticketq.viper refuses to load
# there), which the header called "default (viper)". CPython only (pytest): nothing but
# support is imported at the top, so the MicroPython runners skip this module.
from support import skip, IS_MICROPYTHON


def _where(exe, *args):
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return subprocess.run([sys.executable, "-m", "ticketq_tools.cli", "mpunix", "--where"] + list(args),
                          capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, MICROPYTHON=exe)).stdout


def test_the_header_names_the_path_ticketq_reports(tmp_path=None):
    if IS_MICROPYTHON:
        skip("drives ticketq mpunix from CPython")
    import os
    import tempfile

    d = str(tmp_path) if tmp_path else tempfile.mkdtemp()
    fake = os.path.join(d, "micropython64")
    with open(fake, "w") as f:  # a 64-bit port as the probe sees it
        f.write("#!/bin/sh\necho 1.29.0 64\necho bytecode\n")
    os.chmod(fake, 0o755)
    out = _where(fake)
    assert "1.29.0, 64-bit" in out and "ticketq's default (bytecode) path" in out, out
    assert "bytecode path forced" in _where(fake, "--bytecode")


def _mpunix(env_exe, *args):
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return subprocess.run([sys.executable, "-m", "ticketq_tools.cli", "mpunix"] + list(args),
                          capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, MICROPYTHON=env_exe))


def test_an_interpreter_that_runs_no_test_fails_the_stage():
    # issue 22: MICROPYTHON=/bin/true printed nothing, exited 0, and the stage was green
    if IS_MICROPYTHON:
        skip("drives ticketq mpunix from CPython")
    r = _mpunix("/bin/true", "--skip-missing", "test_ticks")
    assert r.returncode == 1, (r.returncode, r.stdout)
    assert "ran no test" in r.stdout and "SKIPPED" not in r.stdout, r.stdout
    assert r.stdout.splitlines()[-1] == "0 passed, 1 failed, 0 skipped", r.stdout


def test_a_wrong_path_is_an_error_not_a_skip():
    # SKIPPED is only ever said with exit 0; a $MICROPYTHON naming nothing is exit 2, ERROR
    if IS_MICROPYTHON:
        skip("drives ticketq mpunix from CPython")
    r = _mpunix("/nonexistent/micropython", "--skip-missing", "test_ticks")
    assert r.returncode == 2, (r.returncode, r.stdout)
    assert "SKIPPED" not in r.stdout and "ERROR" in r.stdout and "not an executable" in r.stdout, r.stdout


def test_quiet_leaves_out_pass_and_skip_lines_but_keeps_the_count():
    if IS_MICROPYTHON:
        skip("drives ticketq mpunix from CPython")
    import os
    import tempfile

    d = tempfile.mkdtemp()
    fake = os.path.join(d, "micropython")
    with open(fake, "w") as f:  # prints what mprun prints, whatever it is asked
        f.write("#!/bin/sh\necho PASS a.test_x\necho 'SKIP a.test_y: why'\necho FAIL a.test_z\n"
                "echo '1 passed, 1 failed, 1 skipped'\nexit 1\n")
    os.chmod(fake, 0o755)
    r = _mpunix(fake, "--quiet", "a")
    lines = r.stdout.splitlines()
    assert r.returncode == 1
    assert "FAIL a.test_z" in lines and lines[-1] == "1 passed, 1 failed, 1 skipped", lines
    assert not [l for l in lines if l.startswith(("PASS ", "SKIP "))], lines
    r = _mpunix(fake, "a")
    assert "SKIP a.test_y: why" in r.stdout.splitlines()


def test_mprun_blocks_the_viper_module_the_tools_name():
    # tests/mprun.py --bytecode (the unix-bytecode stage) must block the very module the host
    # tools block (ticketq_tools.libnames, read from manifest.py): a stale name there (an old
    # module name) would let the viper path run in the bytecode stage.
    if IS_MICROPYTHON:
        skip("reads tests/mprun.py on CPython")
    import os
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, os.path.join(root, "tools"))
    from ticketq_tools import libnames

    with open(os.path.join(root, "tests", "mprun.py")) as f:
        text = f.read()
    line = libnames.block_viper()
    assert line and line.replace("'", '"') in text, (line, "not in tests/mprun.py")

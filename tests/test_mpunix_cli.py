# tools/mpunix.py's header names the hot path ticketq really runs there, asked of ticketq
# itself: a 64-bit unix port's default is the bytecode path (ticketq_viper refuses to load
# there), which the header called "default (viper)". CPython only (pytest): nothing but
# support is imported at the top, so the MicroPython runners skip this module.
from support import skip, IS_MICROPYTHON


def _where(exe, *args):
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return subprocess.run([sys.executable, os.path.join(root, "tools", "mpunix.py"), "--where"] + list(args),
                          capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, MICROPYTHON=exe)).stdout


def test_the_header_names_the_path_ticketq_reports(tmp_path=None):
    if IS_MICROPYTHON:
        skip("drives tools/mpunix.py from CPython")
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

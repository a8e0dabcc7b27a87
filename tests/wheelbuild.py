# Host only (CPython's pip and hatchling): the wheel of this checkout, built offline, for the
# pip tests (test_pip_package, test_pip_fleet).
import glob
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUIET = ["--quiet", "--disable-pip-version-check", "--no-index"]


def build(tmp_path=None):
    """(folder, wheel path): `pip wheel` of the checkout into folder/dist, no index, no
    dependencies, no build isolation (hatchling from requirements-dev.txt)."""
    tmp = str(tmp_path) if tmp_path else tempfile.mkdtemp()
    p = subprocess.run([sys.executable, "-m", "pip", "wheel"] + QUIET + ["--no-deps", "--no-build-isolation",
                        "-w", os.path.join(tmp, "dist"), ROOT], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    wheels = glob.glob(os.path.join(tmp, "dist", "ticketq-*.whl"))
    assert len(wheels) == 1, wheels
    return tmp, wheels[0]

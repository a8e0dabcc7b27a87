# pytest on CPython: the library, the firmware and the shared test helpers import as they
# do on a board (flat, one folder on sys.path each).
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
for p in (os.path.join(here, "..", "lib"), os.path.join(here, "..", "firmware"), here):
    p = os.path.normpath(p)
    if p not in sys.path:
        sys.path.insert(0, p)

# pytest on CPython: the library and the shared test helpers import as they do on a board.
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
for p in (os.path.join(here, "..", "lib"), here):
    p = os.path.normpath(p)
    if p not in sys.path:
        sys.path.insert(0, p)

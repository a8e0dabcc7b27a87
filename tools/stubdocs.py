#!/usr/bin/env python3
"""The command tools/stubdocs.py: runs ticketq_tools/stubdocs.py (the module says what it does;
tools/stubdocs.py --help gives its options) with this tools/ folder first on sys.path."""
import os
import runpy
import sys

if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    runpy.run_module("ticketq_tools.stubdocs", run_name="__main__")

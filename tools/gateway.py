#!/usr/bin/env python3
"""The command tools/gateway.py: runs ticketq_tools/gateway.py (the module says what it does;
tools/gateway.py --help gives its options) with this tools/ folder first on sys.path."""
import os
import runpy
import sys

if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from ticketq_tools import venvpy  # without redis here: rerun in the checkout's .venv

    venvpy.ensure(__file__, ('redis',))
    runpy.run_module("ticketq_tools.gateway", run_name="__main__")

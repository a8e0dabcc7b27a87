# hatchling build hook (pyproject.toml): packs ticketq_tools (pkg/ticketq_tools: the console
# scripts ticketq-fleetctl, ticketq-gateway and ticketq-dashboard, with copies of
# tools/fleetctl.py, tools/gateway.py, the board worker and fleet/*.lua). The library's
# modules go in as lib/ has them: their docstrings are in the source (help() shows them),
# the .pyi stubs beside them carry the types (tests/test_docstrings.py).
import os

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version, build_data):
        if self.target_name != "wheel":
            return
        # the console scripts (ticketq_tools: pyproject.toml's [project.scripts]) and what
        # they need from the checkout, so that they run from the wheel alone
        tools = {
            "pkg/ticketq_tools/__init__.py": "ticketq_tools/__init__.py",
            "tools/fleetctl.py": "ticketq_tools/fleetctl.py",
            "tools/gateway.py": "ticketq_tools/gateway.py",
            "tools/exitcodes.py": "ticketq_tools/exitcodes.py",  # fleetctl's and the gateway's
            "tools/fleetmetrics.py": "ticketq_tools/fleetmetrics.py",  # exporter, --metrics-port
            "tools/dashboard.py": "ticketq_tools/dashboard.py",  # ticketq-dashboard
            "firmware/worker.py": "ticketq_tools/worker.py",
            "firmware/workload.py": "ticketq_tools/workload.py",
            "firmware/shell.py": "ticketq_tools/shell.py",
        }
        for lua in sorted(os.listdir(os.path.join(self.root, "fleet"))):
            if lua.endswith(".lua"):
                tools["fleet/" + lua] = "ticketq_tools/fleet/" + lua
        for src, dst in tools.items():
            build_data["force_include"][os.path.join(self.root, src)] = dst

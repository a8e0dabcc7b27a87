# hatchling build hook (pyproject.toml): packs ticketq_tools (tools/ticketq_tools: the console
# scripts ticketq-fleetctl, ticketq-gateway and ticketq-dashboard, with the board worker and
# fleet/*.lua). The library goes in as lib/ has it (pyproject.toml's sources = ["lib"]):
# the package ticketq/ with each .pyi beside its module, and the deprecated flat shims
# (ticketq_lanes.py ...); the docstrings are in the source (help() shows them), the stubs
# carry the types (tests/test_docstrings.py, tests/test_pip_package.py).
import os

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


# The modules of tools/ticketq_tools the console scripts need (fleetctl, the gateway, the
# dashboard, their exit codes and Prometheus exporter, and the package's __init__).
WHEEL_MODULES = ("__init__", "fleetctl", "gateway", "dashboard", "exitcodes", "fleetmetrics")


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version, build_data):
        if self.target_name != "wheel":
            return
        # the console scripts (ticketq_tools: pyproject.toml's [project.scripts]) and what
        # they need from the checkout, so that they run from the wheel alone
        pkg = "tools/ticketq_tools/"
        tools = dict((pkg + m + ".py", "ticketq_tools/" + m + ".py") for m in WHEEL_MODULES)
        for name in ("worker.py", "workload.py", "shell.py"):  # the board worker, for --local
            tools["firmware/" + name] = "ticketq_tools/board/" + name
        for lua in sorted(os.listdir(os.path.join(self.root, "fleet"))):
            if lua.endswith(".lua"):
                tools["fleet/" + lua] = "ticketq_tools/fleet/" + lua
        for src, dst in tools.items():
            build_data["force_include"][os.path.join(self.root, src)] = dst

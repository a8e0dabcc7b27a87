# hatchling build hook (pyproject.toml): packs ticketq_tools (tools/ticketq_tools: the console
# script `ticketq` and what its fleet commands need, with the board worker and fleet/*.lua). The library goes in as lib/ has it (pyproject.toml's sources = ["lib"]):
# the package ticketq/ with each .pyi beside its module; the docstrings are in the source (help() shows them), the stubs
# carry the types (tests/test_docstrings.py, tests/test_pip_package.py).
import os

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


# The modules of tools/ticketq_tools the wheel's `ticketq` needs: the command itself (cli), its
# fleet commands (fleetctl, the gateway, the dashboard, their exit codes and Prometheus
# exporter) and the package's __init__. The other commands need a checkout and say so.
WHEEL_MODULES = ("__init__", "cli", "fleetctl", "gateway", "dashboard", "exitcodes", "fleetmetrics")


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version, build_data):
        if self.target_name != "wheel" or version == "editable":
            return  # an editable install runs tools/ticketq_tools in place (dev-mode-dirs)
        # the console script (ticketq_tools.cli: pyproject.toml's [project.scripts]) and what
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

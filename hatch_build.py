# hatchling build hook (pyproject.toml): the wheel gets copies of lib/*.py with the
# docstrings of lib/*.pyi inserted (tools/stubdocs.py), so that help() on CPython shows
# the documentation; the .pyi stubs go in beside them as they are. It also packs
# ticketq_tools (pkg/ticketq_tools: the console scripts ticketq-fleetctl, ticketq-gateway and
# ticketq-dashboard,
# with copies of tools/fleetctl.py, tools/gateway.py, the board worker and fleet/*.lua). lib/ itself keeps no
# run-time docstrings: a micro:bit would keep them in RAM.
import os
import shutil
import sys
import tempfile

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


# The modules of tools/ticketq_tools the console scripts need (fleetctl, the gateway, the
# dashboard, their exit codes and Prometheus exporter, and the package's __init__).
WHEEL_MODULES = ("__init__", "fleetctl", "gateway", "dashboard", "exitcodes", "fleetmetrics")


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version, build_data):
        if self.target_name != "wheel":
            return
        sys.path.insert(0, os.path.join(self.root, "tools"))
        from ticketq_tools import stubdocs

        self._tmp = tempfile.mkdtemp(prefix="ticketq-wheel-")
        for name, text in stubdocs.merged_lib(os.path.join(self.root, "lib")).items():
            path = os.path.join(self._tmp, name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            build_data["force_include"][path] = name
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

    def finalize(self, version, build_data, artifact_path):
        if getattr(self, "_tmp", None):
            shutil.rmtree(self._tmp, ignore_errors=True)

# Freeze ticketq into a MicroPython firmware image that you build from MicroPython's source
# (1.20 or later, for metadata(), module() and package(files=...); the ports with manifests:
# rp2, esp32, stm32, unix, nrf ...): in the board's manifest,
#   include("path/to/ticketq/manifest.py")
# Frozen modules are compiled on the host and live in flash: no RAM for the source, the
# parse or the bytecode. The library is the package ticketq/ (lib/ticketq), frozen as
# ticketq/__init__.py, ticketq/core.py ...; the BBC micro:bit v1 (MicroPython 1.9.2, no
# manifests) gets it frozen by ticketq firmware instead: docs/install.md says which route
# serves which board.
metadata(
    version="0.1.0",
    description="Clock-free, preallocated priority queue of integer job tickets.",
    license="MIT",
)
# Every module of the package but the viper one (below): listed, because package() without
# files= takes every .py of the folder, ticketq/viper.py with it.
package(
    "ticketq",
    files=["__init__.py", "aio.py", "audit.py", "ccore.py", "core.py", "fleet.py", "keyed.py",
           "lanes.py", "resp.py", "sentinel.py", "ticks.py"],
    base_path="lib",
)
# The viper hot path (ticketq.viper) compiles only where the port has a native emitter
# (rp2, esp32, stm32, unix): include(".../manifest.py", viper=True) on those. Without it,
# ticketq runs its bytecode path.
if options.viper:
    module("ticketq/viper.py", base_path="lib")

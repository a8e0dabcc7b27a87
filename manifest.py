# Freeze ticketq into a MicroPython firmware image that you build from MicroPython's source
# (1.20 or later, for metadata(), module() and package(files=...); the ports with manifests:
# rp2, esp32, stm32, unix, nrf ...): in the board's manifest,
#   include("path/to/ticketq/manifest.py")
# Frozen modules are compiled on the host and live in flash: no RAM for the source, the
# parse or the bytecode. The library is the package ticketq/ (lib/ticketq), frozen as
# ticketq/__init__.py, ticketq/core.py ...; the BBC micro:bit v1 (MicroPython 1.9.2, no
# manifests) gets it frozen by tools/firmware.py instead: docs/install.md says which route
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
    files=["__init__.py", "aio.py", "audit.py", "core.py", "fleet.py", "keyed.py", "lanes.py",
           "resp.py", "ticks.py"],
    base_path="lib",
)
# The 0.1.0 module names: deprecated shims that re-export the package's objects, kept for
# one release (docs/install.md, "Old module names").
module("ticketq_async.py", base_path="lib")
module("ticketq_audit.py", base_path="lib")
module("ticketq_base.py", base_path="lib")
module("ticketq_deadline.py", base_path="lib")
module("ticketq_fleet.py", base_path="lib")
module("ticketq_fleetlanes.py", base_path="lib")
module("ticketq_heap.py", base_path="lib")
module("ticketq_keyed.py", base_path="lib")
module("ticketq_lanes.py", base_path="lib")
module("ticketq_resp.py", base_path="lib")
module("ticketq_softticks.py", base_path="lib")
module("ticketq_ticks.py", base_path="lib")
module("ticketq_wait.py", base_path="lib")
# The viper hot path (ticketq.viper) compiles only where the port has a native emitter
# (rp2, esp32, stm32, unix): include(".../manifest.py", viper=True) on those. Without it,
# ticketq runs its bytecode path.
if options.viper:
    module("ticketq/viper.py", base_path="lib")
    module("ticketq_viper.py", base_path="lib")  # its deprecated name, for one release

# Freeze ticketq into a MicroPython firmware image that you build from MicroPython's source
# (1.20 or later, for metadata() and module(); the ports with manifests: rp2, esp32, stm32,
# unix, nrf ...): in the board's manifest,
#   include("path/to/ticketq/manifest.py")
# Frozen modules are compiled on the host and live in flash: no RAM for the source, the
# parse or the bytecode. Not for the BBC micro:bit v1 as Debian ships it (a prebuilt
# MicroPython 1.9.2 image): docs/install.md says which route serves which board.
metadata(
    version="0.1.0",
    description="Clock-free, preallocated priority queue of integer job tickets.",
    license="MIT",
)
module("ticketq.py", base_path="lib")
module("ticketq_async.py", base_path="lib")
module("ticketq_audit.py", base_path="lib")
module("ticketq_base.py", base_path="lib")  # deprecated name (ticketq_core), for one release
module("ticketq_core.py", base_path="lib")
module("ticketq_deadline.py", base_path="lib")
module("ticketq_fleet.py", base_path="lib")
module("ticketq_fleetlanes.py", base_path="lib")
module("ticketq_heap.py", base_path="lib")  # deprecated name (ticketq_core), for one release
module("ticketq_keyed.py", base_path="lib")
module("ticketq_lanes.py", base_path="lib")
module("ticketq_resp.py", base_path="lib")
module("ticketq_softticks.py", base_path="lib")
module("ticketq_ticks.py", base_path="lib")
module("ticketq_wait.py", base_path="lib")
# The viper hot path (ticketq_viper) compiles only where the port has a native emitter
# (rp2, esp32, stm32, unix): include(".../manifest.py", viper=True) on those. Without it,
# ticketq runs its bytecode path.
if options.viper:
    module("ticketq_viper.py", base_path="lib")
